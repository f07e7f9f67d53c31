//! The summary of a game that every standings computation works from: a record is boiled down
//! to what the tables and the rating need (who sat where, the places, discs, faults, move-time
//! totals) as soon as it is read, added to the sums (`aggregate`), and dropped with its record.

use super::by_ordinal::ByOrdinal;
use crate::record::{FaultKind, FaultRecord, GameRecord, ScheduleRef, SeatRecord};
use crate::rules::{Outcome, Seat, Square};
use std::collections::{HashMap, HashSet};

/// One seat of one game. `B` is who the bot is: its number, an index into `Games::names`, once
/// the game is added; its name and command (`BotNamed`) before, while a reading thread boils the
/// record down.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatSummary<B = u32> {
    pub bot: B,
    /// Discs of its own colour at the end.
    pub score: u32,
    /// Its place group in the record's `ranking`: 0 is first; seats that share a place share it.
    pub group: u8,
    /// Its fractional place from 1: a seat that shares a place with others gets the mean of the
    /// positions they span (two seats tied for first are both 1.5), so the places of a game
    /// always add up to 1 + 2 + … + k.
    pub place: f32,
    /// The first fault that disqualified it, if any.
    pub fault: Option<FaultKind>,
    /// Moves the bot itself played (the referee's opening moves are not counted).
    pub moves: u32,
    /// Their total and largest time in milliseconds.
    pub total_ms: f64,
    pub max_ms: f64,
}

/// One game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameSummary {
    /// Its number from 1 in the order the games were read: the `#game=N` of the replay viewer
    /// written from the same files.
    pub number: u32,
    /// The record's game id.
    pub id: String,
    /// The deal it belongs to, as an index into the deals seen (games of the same schedule deal
    /// share it; a game without a schedule is a deal of its own).
    pub deal: u32,
    pub result: Outcome,
    /// In seat order.
    pub seats: Vec<SeatSummary>,
}

impl GameSummary {
    /// Whether a seat shares the point of a draw for the whole table: it was seated and not
    /// disqualified.
    pub fn shares_draw(&self, seat: Seat) -> bool {
        matches!(self.result, Outcome::Draw) && self.seats[seat].fault.is_none()
    }

    /// The points a seat earned: 1 for the winner; in a draw for the whole table, an equal share
    /// of the point for each seat that was not disqualified; 0 otherwise.
    pub fn points(&self, seat: Seat) -> f64 {
        match self.result {
            Outcome::Win { winner } => (winner == seat) as u8 as f64,
            Outcome::Draw => {
                let sharing = self.seats.iter().filter(|s| s.fault.is_none()).count();
                if self.seats[seat].fault.is_none() {
                    1.0 / sharing as f64
                } else {
                    0.0
                }
            }
        }
    }

    /// The places as groups of bots, best first (the record's `ranking` with bots for seats).
    pub fn ranking(&self) -> Vec<Vec<u32>> {
        let groups = self.seats.iter().map(|s| s.group as usize + 1).max();
        let mut out = vec![Vec::new(); groups.unwrap_or(0)];
        for s in &self.seats {
            out[s.group as usize].push(s.bot);
        }
        out
    }
}

/// What happened to a record offered to `Games::add`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Added {
    /// Counted, with its number.
    Counted(u32),
    /// The same record (see `fingerprint`) was already counted; it is not counted twice. Holds
    /// the number of the first copy.
    Duplicate(u32),
    /// Another record holds the same place in the same schedule (the same run, index and seed:
    /// one game of one schedule) with other contents; the first read counts, this one does not.
    /// Holds the number of the first.
    SamePlace(u32),
}

/// Every game read so far, boiled down as it is read: the bots' names, the deals, and the sums
/// the standings are computed from (`aggregate::Sums`), so that memory grows with the bots and
/// the deals, not with the games. What still grows with the games is small and said where it is
/// kept: a key per game for the duplicates and the second records of one place (`seen`), and
/// for the online rating, which depends on the order of the games, a few bytes per game
/// (`Sums::online`).
#[derive(Clone, Debug)]
pub struct Games {
    /// Bot names in order of first appearance.
    pub names: Vec<String>,
    /// How many deals there are.
    pub deals: u32,
    /// Games counted.
    count: u32,
    bot_index: HashMap<String, u32>,
    /// Deals by run, deal id and seed: two leagues that share a name but not a seed have the
    /// same run and deal ids for different deals.
    deal_index: HashMap<(u32, u64, Option<u64>), u32>,
    /// Each game by its key, with its number and the low half of its fingerprint, for the
    /// duplicates and the second records of one place; None for a run's own table, whose games
    /// come from the referee, once each. A game of a schedule is keyed by its place
    /// (`place_key`): it is played once, so a second record of the place is a copy of it (the
    /// same fingerprint) or not a game of the schedule (another one). A game without a schedule
    /// is keyed by its fingerprint. Keys and values are kept as halves: an entry of a `u64`
    /// beside a `u32` is padded to 16 bytes, of three `u32`s it takes 12, of four 16.
    seen: Seen,
    /// Run names (of the records' `schedule`), in order of first appearance.
    pub(crate) runs: Vec<String>,
    /// Per bot (like `names`), each distinct command it was recorded with and where that was
    /// first seen: the standings go by name, so two bots given the same name are one bot here,
    /// and this is how that gets noticed (`name_clashes`).
    commands: Vec<Vec<(Vec<String>, String)>>,
    pub(crate) sums: super::aggregate::Sums,
    /// In test builds only, every game's summary as read and its place in its schedule, for the
    /// tests that compare the sums with the same figures computed game by game.
    #[cfg(test)]
    pub games: Vec<GameSummary>,
    #[cfg(test)]
    pub(crate) schedule: Vec<Option<(u32, u64)>>,
}

/// How `Games` tells a record it has counted already (see `Games::seen`).
#[derive(Clone, Debug)]
enum Seen {
    /// It does not: a run's own table, whose games come from the referee, once each.
    Nothing,
    /// By each game's key (`place_key`, or its fingerprint outside any schedule).
    Keys(HashMap<[u32; 2], [u32; 2]>),
    /// Every game is of one schedule, at a known ordinal there (`Games::of_one_schedule`): by
    /// that ordinal, with the same number and half fingerprint as `Keys` holds.
    Ordinals(ByOrdinal<[u32; 2]>),
}

impl Seen {
    fn is_looked_for(&self) -> bool {
        !matches!(self, Seen::Nothing)
    }
}

/// One name recorded with different commands: probably different bots counted as one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameClash {
    pub name: String,
    /// Each command, with where it was first seen (a file and line, and the game id).
    pub commands: Vec<(Vec<String>, String)>,
}

/// A move as the standings read it: who played it, where, and how long it took.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Played {
    pub seat: Seat,
    pub square: Square,
    pub ms: f64,
}

/// What the standings read of a record, borrowed from it: the same whether it comes from a whole
/// `GameRecord` (`Facts::of`) or from the standings' lean reading of a line (`lean`), so that both
/// are boiled down (`Digest::of`) by the same code.
#[derive(Clone, Copy, Debug)]
pub struct Facts<'a> {
    pub game: &'a str,
    pub started: &'a str,
    pub duration_ms: u64,
    pub players: u8,
    pub seed: Option<u64>,
    pub seats: &'a [SeatRecord],
    pub moves: &'a [Played],
    pub faults: &'a [FaultRecord],
    pub scores: &'a [u32],
    pub result: Outcome,
    pub ranking: &'a [Vec<Seat>],
    pub opening: u32,
    pub schedule: Option<&'a ScheduleRef>,
}

impl<'a> Facts<'a> {
    /// The facts of a whole record; `moves` must be its moves as `played` gives them.
    pub fn of(record: &'a GameRecord, moves: &'a [Played]) -> Facts<'a> {
        Facts {
            game: &record.game,
            started: &record.started,
            duration_ms: record.duration_ms,
            players: record.rules.players,
            seed: record.seed,
            seats: &record.seats,
            moves,
            faults: &record.faults,
            scores: &record.scores,
            result: record.result,
            ranking: &record.ranking,
            opening: record.opening,
            schedule: record.schedule.as_ref(),
        }
    }
}

/// A record's moves as the standings read them.
pub fn played(record: &GameRecord) -> Vec<Played> {
    record
        .moves
        .iter()
        .map(|m| Played {
            seat: m.seat,
            square: m.square,
            ms: m.ms,
        })
        .collect()
}

/// A record boiled down to what `Games::add_digest` needs, computed from the record alone, so
/// that it can be computed on any thread while the games are added in order on one: its
/// fingerprint, and the game summarised as far as that is possible without the other games (or
/// why its parts do not fit together).
#[derive(Clone, Debug, PartialEq)]
pub struct Digest {
    /// See `fingerprint`.
    pub fingerprint: u64,
    pub game: Result<Boiled, String>,
}

/// A game as far as it is summarised before it is added (`GameSummary` without the numbers
/// of its bots, deal and place among the games).
#[derive(Clone, Debug, PartialEq)]
pub struct Boiled {
    pub id: String,
    pub seed: Option<u64>,
    pub schedule: Option<ScheduleRef>,
    pub result: Outcome,
    pub seats: Vec<BoiledSeat>,
}

/// A bot as a record names it, before the standings number it.
#[derive(Clone, Debug, PartialEq)]
pub struct BotNamed {
    pub name: String,
    pub command: Vec<String>,
}

/// One seat of a `Boiled` game.
pub type BoiledSeat = SeatSummary<BotNamed>;

impl<B> SeatSummary<B> {
    /// The same seat with the bot named another way.
    fn with_bot<C>(self, bot: C) -> SeatSummary<C> {
        SeatSummary {
            bot,
            score: self.score,
            group: self.group,
            place: self.place,
            fault: self.fault,
            moves: self.moves,
            total_ms: self.total_ms,
            max_ms: self.max_ms,
        }
    }
}

impl Digest {
    /// Boils a record down: checks that its parts fit together (`check`), sums each seat's
    /// moves and times, and takes its fingerprint.
    pub fn of(f: &Facts) -> Digest {
        Digest {
            fingerprint: fingerprint(f),
            game: check(f).map(|(groups, places)| boil(f, &groups, &places)),
        }
    }

    /// `of` without the fingerprint (0), for games that are never compared (a run's own table,
    /// `Games::for_table`): hashing every move of every game is most of what a digest costs.
    pub fn unfingerprinted(f: &Facts) -> Digest {
        Digest {
            fingerprint: 0,
            game: check(f).map(|(groups, places)| boil(f, &groups, &places)),
        }
    }
}

fn boil(f: &Facts, groups: &[u8], places: &[f32]) -> Boiled {
    let opening = f.opening as usize;
    let seats = f
        .seats
        .iter()
        .enumerate()
        .map(|(seat, s)| {
            let mut moves = 0;
            let (mut total_ms, mut max_ms) = (0.0, 0.0f64);
            for m in f.moves.iter().skip(opening).filter(|m| m.seat == seat) {
                moves += 1;
                total_ms += m.ms;
                max_ms = max_ms.max(m.ms);
            }
            BoiledSeat {
                bot: BotNamed {
                    name: s.name.clone(),
                    command: s.command.clone(),
                },
                score: f.scores[seat],
                group: groups[seat],
                place: places[seat],
                fault: f.faults.iter().find(|x| x.seat == seat).map(|x| x.kind),
                moves,
                total_ms,
                max_ms,
            }
        })
        .collect();
    Boiled {
        id: f.game.to_string(),
        seed: f.seed,
        schedule: f.schedule.cloned(),
        result: f.result,
        seats,
    }
}

/// What makes two records the same game: a fingerprint of the record's content (id, start,
/// duration, seats, scores, result and every move with its time). Game ids alone are not enough:
/// two matches started in the same second number their games alike. The same game read twice
/// (a file or shard given twice) has the same fingerprint; two games that were really played are
/// told apart by their measured move times if nothing else.
///
/// The hash is the standard library's SipHash. A record file is the user's own, not an
/// attacker's, so a hash that resists crafted collisions is not what is needed; but a well-mixed
/// 64-bit hash keeps accidental ones out of reach (two of a million games alike: about 3 chances
/// in 100 million), and fed the moves in one write, as here, it is a small part of the cost.
fn fingerprint(f: &Facts) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    f.game.hash(&mut h);
    f.started.hash(&mut h);
    f.duration_ms.hash(&mut h);
    if let Some(s) = f.schedule {
        (&s.run, s.index, s.deal, s.seating).hash(&mut h);
    }
    for s in f.seats {
        s.name.hash(&mut h);
    }
    f.scores.hash(&mut h);
    f.ranking.hash(&mut h);
    // The moves, the bulk of a record, as one run of bytes: one write instead of three per move.
    let mut moves = Vec::with_capacity(f.moves.len() * 18);
    for m in f.moves {
        moves.extend_from_slice(&(m.seat as u64).to_le_bytes());
        moves.extend_from_slice(&[m.square.col, m.square.row]);
        moves.extend_from_slice(&m.ms.to_bits().to_le_bytes());
    }
    moves.hash(&mut h);
    for x in f.faults {
        (x.seat, x.ply, &x.detail).hash(&mut h);
    }
    h.finish()
}

/// A scheduled game's place as one key: its run, index and seed. Two leagues that share a name
/// but not a seed have different games at one index (see `deal_index`), so the seed is part of
/// the place.
fn place_key(run: &str, index: u64, seed: Option<u64>) -> [u32; 2] {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (run, index, seed).hash(&mut h);
    let k = h.finish();
    [k as u32, (k >> 32) as u32]
}

impl Default for Games {
    fn default() -> Games {
        Games::new()
    }
}

impl Games {
    /// Games to compute full standings from: duplicates noticed, the online rating kept in
    /// schedule order, the game list of the HTML page kept.
    pub fn new() -> Games {
        Games::empty(
            Seen::Keys(HashMap::new()),
            super::aggregate::Sums::new(true, true),
        )
    }

    /// `new` for games that are all of one schedule of `games` games, each added with its
    /// ordinal there (`add_at_ordinal`): a run's own games, as the standings it writes at its
    /// end read them. The same standings as `new` gives, from less memory: what is kept per
    /// game for the duplicates and the online rating is kept by ordinal (`by_ordinal`).
    pub fn of_one_schedule(games: u64) -> Games {
        Games::empty(
            Seen::Ordinals(ByOrdinal::new(games)),
            super::aggregate::Sums::new(true, true).by_ordinal(games),
        )
    }

    fn empty(seen: Seen, sums: super::aggregate::Sums) -> Games {
        Games {
            names: Vec::new(),
            deals: 0,
            count: 0,
            bot_index: HashMap::new(),
            deal_index: HashMap::new(),
            seen,
            runs: Vec::new(),
            commands: Vec::new(),
            sums,
            #[cfg(test)]
            games: Vec::new(),
            #[cfg(test)]
            schedule: Vec::new(),
        }
    }

    /// Games for a run's table, as the referee hands them over (each once, complete): no
    /// duplicates looked for, no game list, the online rating updated as the games come (the
    /// table does not show it) and the deals' stages in one (it has no bootstrap), so that
    /// nothing is kept per game, and per deal only its key in `deal_index`.
    pub fn for_table() -> Games {
        Games::empty(
            Seen::Nothing,
            super::aggregate::Sums::new(false, false).one_deal_of_stages(),
        )
    }

    /// Games that do not keep the HTML page's list of games (`new` keeps it): for standings
    /// without the page.
    pub fn without_game_list(mut self) -> Games {
        self.sums.list = None;
        self
    }

    /// Games counted so far.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Adds one game. A record whose parts do not fit together (seats, scores and ranking of
    /// different sizes, a seat missing from the ranking, a winner who is not seated, the same bot
    /// in two seats) is refused with a sentence saying why, and nothing is added.
    pub fn add(&mut self, record: &GameRecord) -> Result<Added, String> {
        self.add_from(record, |id| format!("game {id}"))
    }

    /// `add`, with where the record comes from, given the game's id (asked only when a bot shows
    /// up with a command not seen before, for `name_clashes`).
    pub fn add_from(
        &mut self,
        record: &GameRecord,
        origin: impl Fn(&str) -> String,
    ) -> Result<Added, String> {
        let moves = played(record);
        let facts = Facts::of(record, &moves);
        let digest = match self.seen.is_looked_for() {
            true => Digest::of(&facts),
            false => Digest::unfingerprinted(&facts),
        };
        self.add_digest(digest, origin)
    }

    /// `add_from` for a record already boiled down (`Digest::of`, on any thread).
    pub fn add_digest(
        &mut self,
        digest: Digest,
        origin: impl Fn(&str) -> String,
    ) -> Result<Added, String> {
        self.add_at(digest, None, origin)
    }

    /// `add_digest` for games `of_one_schedule`, with the game's ordinal in that schedule.
    pub fn add_at_ordinal(
        &mut self,
        digest: Digest,
        ordinal: u64,
        origin: impl Fn(&str) -> String,
    ) -> Result<Added, String> {
        self.add_at(digest, Some(ordinal), origin)
    }

    fn add_at(
        &mut self,
        digest: Digest,
        ordinal: Option<u64>,
        origin: impl Fn(&str) -> String,
    ) -> Result<Added, String> {
        let fingerprint = [digest.fingerprint as u32, (digest.fingerprint >> 32) as u32];
        // The game's key among those seen by key: its place in its schedule, else its
        // fingerprint. Hashed only where the keys are kept: a run's table adds every game.
        let placed = digest
            .game
            .as_ref()
            .ok()
            .filter(|_| matches!(self.seen, Seen::Keys(_)))
            .and_then(|g| {
                g.schedule
                    .as_ref()
                    .map(|s| place_key(&s.run, s.index, g.seed))
            });
        let key = placed.unwrap_or(fingerprint);
        let first = match &self.seen {
            Seen::Nothing => None,
            Seen::Keys(seen) => seen.get(&key).map(|&found| (found, placed.is_some())),
            Seen::Ordinals(seen) => match (ordinal, &digest.game) {
                // Refused below, for why its parts do not fit together.
                (_, Err(_)) => None,
                (Some(ordinal), Ok(_)) if ordinal < seen.len() => {
                    seen.get(ordinal).map(|found| (found, true))
                }
                (Some(ordinal), Ok(_)) => {
                    return Err(format!(
                        "game {ordinal} from 0 of a schedule of {} games",
                        seen.len()
                    ))
                }
                (None, Ok(_)) => return Err("not a game of the run's schedule".into()),
            },
        };
        if let Some(([first, check], placed)) = first {
            return Ok(if !placed || check == fingerprint[0] {
                Added::Duplicate(first)
            } else {
                Added::SamePlace(first)
            });
        }
        let game = digest.game?;
        let number = self.count + 1;
        let run =
            game.schedule
                .as_ref()
                .map(|s| match self.runs.iter().position(|r| *r == s.run) {
                    Some(i) => i as u32,
                    None => {
                        self.runs.push(s.run.clone());
                        self.runs.len() as u32 - 1
                    }
                });
        let deal = match (&game.schedule, run) {
            (Some(s), Some(run)) => {
                let next = self.deals;
                *self
                    .deal_index
                    .entry((run, s.deal, game.seed))
                    .or_insert(next)
            }
            _ => self.deals,
        };
        if deal == self.deals {
            self.deals += 1;
        }
        let seats = game
            .seats
            .into_iter()
            .map(|mut s| {
                let bot = self.bot(&s.bot.name);
                let commands = &mut self.commands[bot as usize];
                if !commands.iter().any(|(c, _)| *c == s.bot.command) {
                    commands.push((std::mem::take(&mut s.bot.command), origin(&game.id)));
                }
                s.with_bot(bot)
            })
            .collect();
        let place = match (&game.schedule, run) {
            (Some(s), Some(run)) => Some((run, s.index)),
            _ => None,
        };
        let game = GameSummary {
            number,
            id: game.id,
            deal,
            result: game.result,
            seats,
        };
        // Sums of one schedule refuse a game without an ordinal there, which was refused above.
        self.sums.add(&game, place, ordinal, &self.runs)?;
        self.count += 1;
        #[cfg(test)]
        {
            self.schedule.push(place);
            self.games.push(game);
        }
        match (&mut self.seen, ordinal) {
            (Seen::Keys(seen), _) => {
                seen.insert(key, [number, fingerprint[0]]);
            }
            (Seen::Ordinals(seen), Some(ordinal)) => seen.set(ordinal, [number, fingerprint[0]])?,
            _ => {}
        }
        Ok(Added::Counted(number))
    }

    /// The same games in the order of their schedules (by run name, then place in the run),
    /// games outside any schedule after them in reading order, with bots and deals numbered
    /// afresh in that order: how the standings were computed game by game, before the sums
    /// (`aggregate`) did the same as the games are read. Kept in test builds as the measure the
    /// sums must agree with.
    #[cfg(test)]
    pub fn in_schedule_order(&self) -> Games {
        let mut order: Vec<usize> = (0..self.games.len()).collect();
        let key = |i: usize| {
            self.schedule[i].map(|(run, index)| (self.runs[run as usize].as_str(), index))
        };
        // Stable, with `None` (no schedule) last: those keep their reading order.
        order.sort_by(|&a, &b| match (key(a), key(b)) {
            (Some(x), Some(y)) => x.cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
        // A copy to compute from, not to add to: it does not know the fingerprints.
        let mut sorted = Games::new();
        let mut new_deal: HashMap<u32, u32> = HashMap::new();
        for i in order {
            let mut game = self.games[i].clone();
            for seat in &mut game.seats {
                seat.bot = sorted.bot(&self.names[seat.bot as usize]);
            }
            let next = sorted.deals;
            game.deal = *new_deal.entry(game.deal).or_insert(next);
            if game.deal == next {
                sorted.deals += 1;
            }
            sorted.schedule.push(self.schedule[i]);
            sorted.games.push(game);
        }
        sorted.runs = self.runs.clone();
        sorted.count = self.count;
        sorted
    }

    /// The names that stand for more than one command, in the order the names were first seen.
    pub fn name_clashes(&self) -> Vec<NameClash> {
        self.names
            .iter()
            .zip(&self.commands)
            .filter(|(_, commands)| commands.len() > 1)
            .map(|(name, commands)| NameClash {
                name: name.clone(),
                commands: commands.clone(),
            })
            .collect()
    }

    fn bot(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.bot_index.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.commands.push(Vec::new());
        self.bot_index.insert(name.to_string(), i);
        i
    }
}

/// Checks that a record's seats, scores, result and ranking fit together, and returns each
/// seat's place group and fractional place.
fn check(record: &Facts) -> Result<(Vec<u8>, Vec<f32>), String> {
    let n = record.seats.len();
    if n > 4 {
        return Err(format!("{n} seats: a game has at most 4"));
    }
    if n != record.players as usize {
        return Err(format!(
            "{} seats for a game of {} players",
            n, record.players
        ));
    }
    if record.scores.len() != n {
        return Err(format!("{} scores for {n} seats", record.scores.len()));
    }
    for (i, s) in record.seats.iter().enumerate() {
        if s.seat != i {
            return Err(format!("seats[{i}] is seat {}", s.seat));
        }
    }
    let mut names = HashSet::new();
    for s in record.seats {
        if !names.insert(s.name.as_str()) {
            return Err(format!("bot '{}' sits in two seats", s.name));
        }
    }
    if let Outcome::Win { winner } = record.result {
        if winner >= n {
            return Err(format!(
                "the winner is seat {winner}, but there are {n} seats"
            ));
        }
    }
    for f in record.faults {
        if f.seat >= n {
            return Err(format!(
                "a fault of seat {}, but there are {n} seats",
                f.seat
            ));
        }
    }
    let mut groups = vec![u8::MAX; n];
    let mut places = vec![0.0f32; n];
    let mut before = 0usize;
    for (g, place) in record.ranking.iter().enumerate() {
        if place.is_empty() {
            return Err(format!("ranking place {} is empty", g + 1));
        }
        // The mean of positions before+1 ..= before+len.
        let fractional = before as f32 + (place.len() as f32 + 1.0) / 2.0;
        for &seat in place {
            if seat >= n || groups[seat] != u8::MAX {
                return Err(format!(
                    "the ranking lists seat {seat} twice or out of range"
                ));
            }
            groups[seat] = g as u8;
            places[seat] = fractional;
        }
        before += place.len();
    }
    if before != n {
        return Err(format!("the ranking lists {before} of {n} seats"));
    }
    Ok((groups, places))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::record::{FaultRecord, MoveRecord, ScheduleRef, SeatRecord};
    use crate::rules::{BoardKind, Colour, MoveKind, Rules, Square};

    /// A record with these bots in seat order, scores, ranking (of seats) and result; no moves.
    pub fn record(
        bots: &[&str],
        scores: &[u32],
        ranking: &[&[Seat]],
        result: Outcome,
    ) -> GameRecord {
        let players = bots.len() as u32;
        let colours = [Colour::Black, Colour::White, Colour::Red, Colour::Green];
        GameRecord {
            format: crate::record::FORMAT.into(),
            version: crate::record::VERSION,
            game: format!("g-{}", bots.join("-")),
            started: "2026-11-29T00:00:00Z".into(),
            duration_ms: 0,
            rules: Rules::new(players, BoardKind::Eight, false).unwrap(),
            seed: None,
            seats: bots
                .iter()
                .enumerate()
                .map(|(i, name)| SeatRecord {
                    seat: i,
                    colour: colours[i],
                    name: name.to_string(),
                    command: vec![format!("builtin:{name}")],
                    ready: None,
                    restarted: false,
                })
                .collect(),
            initial_rows: vec![],
            moves: vec![],
            faults: vec![],
            final_rows: vec![],
            scores: scores.to_vec(),
            result,
            ranking: ranking.iter().map(|p| p.to_vec()).collect(),
            opening: 0,
            schedule: None,
        }
    }

    pub fn scheduled(mut r: GameRecord, run: &str, index: u64, deal: u64) -> GameRecord {
        r.schedule = Some(ScheduleRef {
            run: run.into(),
            index,
            deal,
            seating: 0,
        });
        r
    }

    pub fn mv(ply: u32, seat: Seat, ms: f64) -> MoveRecord {
        MoveRecord {
            ply,
            seat,
            square: "a1".parse::<Square>().unwrap(),
            kind: MoveKind::Placing,
            flips: vec![],
            ms,
        }
    }

    pub fn fault(seat: Seat, kind: FaultKind) -> FaultRecord {
        FaultRecord {
            seat,
            kind,
            ply: 0,
            detail: String::new(),
            text: None,
            stderr_tail: String::new(),
        }
    }

    #[test]
    fn places_are_fractional_for_shared_places() {
        let r = record(
            &["a", "b", "c", "d"],
            &[10, 20, 20, 5],
            &[&[1, 2], &[0], &[3]],
            Outcome::Draw,
        );
        let mut games = Games::new();
        assert_eq!(games.add(&r), Ok(Added::Counted(1)));
        let g = &games.games[0];
        let places: Vec<f32> = g.seats.iter().map(|s| s.place).collect();
        assert_eq!(places, vec![3.0, 1.5, 1.5, 4.0]);
        assert_eq!(g.ranking(), vec![vec![1, 2], vec![0], vec![3]]);
    }

    #[test]
    fn draw_points_are_shared_by_seats_not_disqualified() {
        let mut r = record(
            &["a", "b", "c", "d"],
            &[20, 20, 10, 14],
            &[&[0, 1], &[2], &[3]],
            Outcome::Draw,
        );
        r.faults.push(fault(3, FaultKind::Timeout));
        let mut games = Games::new();
        games.add(&r).unwrap();
        let g = &games.games[0];
        // Three seats share the point, whatever their discs; the disqualified one gets nothing.
        for seat in 0..3 {
            assert!((g.points(seat) - 1.0 / 3.0).abs() < 1e-12);
            assert!(g.shares_draw(seat));
        }
        assert_eq!(g.points(3), 0.0);
        assert!(!g.shares_draw(3));
    }

    #[test]
    fn opening_moves_are_not_the_bots_moves() {
        let mut r = record(
            &["a", "b", "c"],
            &[3, 2, 1],
            &[&[0], &[1], &[2]],
            Outcome::Win { winner: 0 },
        );
        r.moves = vec![
            mv(0, 0, 0.0),
            mv(1, 1, 0.0),
            mv(2, 2, 7.0),
            mv(3, 0, 4.0),
            mv(4, 1, 2.0),
        ];
        r.opening = 2;
        let mut games = Games::new();
        games.add(&r).unwrap();
        let s = &games.games[0].seats;
        assert_eq!((s[0].moves, s[0].total_ms, s[0].max_ms), (1, 4.0, 4.0));
        assert_eq!((s[1].moves, s[1].total_ms), (1, 2.0));
        assert_eq!((s[2].moves, s[2].max_ms), (1, 7.0));
    }

    #[test]
    fn deals_group_scheduled_games_and_plain_games_stand_alone() {
        let win = Outcome::Win { winner: 0 };
        let r = || record(&["a", "b", "c"], &[3, 2, 1], &[&[0], &[1], &[2]], win);
        let mut games = Games::new();
        games.add(&scheduled(r(), "L", 0, 0)).unwrap();
        games.add(&scheduled(r(), "L", 1, 0)).unwrap();
        games.add(&scheduled(r(), "M", 0, 0)).unwrap();
        let mut plain = r();
        plain.game = "p1".into();
        games.add(&plain).unwrap();
        // Another match started in the same second: the same game id, another game.
        plain.scores = vec![3, 1, 2];
        games.add(&plain).unwrap();
        // Another league of the same name (another seed): its deal 0 is another deal.
        let mut other = scheduled(r(), "L", 2, 0);
        other.seed = Some(99);
        games.add(&other).unwrap();
        let deals: Vec<u32> = games.games.iter().map(|g| g.deal).collect();
        assert_eq!(deals, vec![0, 0, 1, 2, 3, 4]);
        assert_eq!(games.deals, 5);
        // The same game again (a file given twice, a shard merged twice) is not counted twice.
        assert_eq!(
            games.add(&scheduled(r(), "L", 1, 0)),
            Ok(Added::Duplicate(2))
        );
        assert_eq!(games.add(&plain), Ok(Added::Duplicate(5)));
        assert_eq!(games.games.len(), 6);
        assert_eq!(games.names, vec!["a", "b", "c"]);
    }

    #[test]
    fn a_name_with_two_commands_is_one_bot_and_a_clash() {
        let win = Outcome::Win { winner: 0 };
        let mut games = Games::new();
        let mut r = record(&["a", "b", "c"], &[3, 2, 1], &[&[0], &[1], &[2]], win);
        r.game = "g1".into();
        games.add_from(&r, |_| "one.jsonl:1".into()).unwrap();
        r.game = "g2".into();
        games.add_from(&r, |_| "one.jsonl:2".into()).unwrap();
        assert!(games.name_clashes().is_empty());
        r.game = "g3".into();
        r.seats[1].command = vec!["./b".into()];
        games.add_from(&r, |_| "two.jsonl:1".into()).unwrap();
        assert_eq!(games.names, vec!["a", "b", "c"]);
        assert_eq!(
            games.name_clashes(),
            vec![NameClash {
                name: "b".into(),
                commands: vec![
                    (vec!["builtin:b".into()], "one.jsonl:1".into()),
                    (vec!["./b".into()], "two.jsonl:1".into()),
                ],
            }]
        );
    }

    #[test]
    fn inconsistent_records_are_refused() {
        let win = Outcome::Win { winner: 0 };
        let mut games = Games::new();
        let bad = record(&["a", "b", "c"], &[3, 2, 1], &[&[0], &[1]], win);
        assert!(games.add(&bad).unwrap_err().contains("lists 2 of 3"));
        let bad = record(&["a", "b", "a"], &[3, 2, 1], &[&[0], &[1], &[2]], win);
        assert!(games.add(&bad).unwrap_err().contains("two seats"));
        let bad = record(&["a", "b", "c"], &[3, 2], &[&[0], &[1], &[2]], win);
        assert!(games.add(&bad).unwrap_err().contains("2 scores"));
        let bad = record(
            &["a", "b", "c"],
            &[3, 2, 1],
            &[&[0], &[1], &[2]],
            Outcome::Win { winner: 5 },
        );
        assert!(games.add(&bad).unwrap_err().contains("winner"));
        let bad = record(&["a", "b", "c"], &[3, 2, 1], &[&[0, 0], &[1], &[2]], win);
        assert!(games.add(&bad).unwrap_err().contains("twice"));
        assert!(games.games.is_empty() && games.names.is_empty());
    }
}
