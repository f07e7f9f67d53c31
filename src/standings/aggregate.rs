//! The sums the standings are computed from, added to as each game is read, so that what is kept
//! grows with the bots and the deals, not with the games: per bot its totals, per deal the
//! Plackett–Luce stages its games make (the bootstrap resamples deals, so a deal's stages are all
//! it needs of them), per seat and per pair of bots their counts.
//!
//! **The same figures as game by game.** The standings were first computed from every game's
//! summary, in the order of the schedules (`Games::in_schedule_order`), so that they do not depend
//! on the order files and lines are read in. The sums give the same figures in any reading
//! order: what is added up is counted exactly (weights of shared places in 24ths of a game,
//! points in 12ths, places in halves, move times in 2⁻⁴⁰ ms), and what depends on an order — the
//! numbering of bots, deals and choice sets, which sets the order the fit adds its terms in — is
//! taken from each one's first appearance in schedule order, remembered as the games come
//! (`Place`) and applied when the standings are computed (`Sums::canonical`). The one figure that
//! depends on the order of the games themselves, the online Weng–Lin rating, keeps a few bytes per
//! game (`Online`) to replay them in schedule order. A test in `standings` compares everything
//! with the game-by-game computation.

use super::by_ordinal::ByOrdinal;
use super::games::GameSummary;
use super::rating::{stage_list, ChoiceSet, Prepared, Stages};
use super::tally::{BotTally, Meeting, SeatTally};
use super::weng_lin::{self, WengLin};
use super::GameList;
use crate::record::FaultKind;
use crate::rules::Outcome;
use skillratings::weng_lin::WengLinRating;
use std::cmp::Ordering;
use std::collections::HashMap;

/// A game's weight in the Plackett–Luce sums, in units: every order that shared places allow
/// weighs `UNITS / orders` of them. A game has at most 4 seats, so the orders (a product of
/// factorials of the sizes of its places) divide 4! = 24.
const UNITS: u64 = 24;
/// Points are counted in twelfths: a draw's point shared by 1 to 4 seats.
const POINT_UNITS: u64 = 12;
/// Move times are counted in 2⁻⁴⁰ ms: exact sums of any sub-nanosecond times, in any order.
const MS_SCALE: f64 = (1u64 << 40) as f64;

/// Where a game comes in the order the standings are computed in: games of a schedule by run
/// name, then index in the run, then the others; ties (and the others) in reading order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    /// An index into the run names; `NO_RUN` for a game outside any schedule.
    run: u32,
    index: u64,
    /// The game's number in reading order.
    number: u32,
}

const NO_RUN: u32 = u32::MAX;

/// Games per chunk of the online rating's list.
const CHUNK: usize = 4096;

impl Place {
    fn new(schedule: Option<(u32, u64)>, number: u32) -> Place {
        let (run, index) = schedule.unwrap_or((NO_RUN, 0));
        Place { run, index, number }
    }

    fn cmp(&self, other: &Place, runs: &[String]) -> Ordering {
        match (self.run == NO_RUN, other.run == NO_RUN) {
            (false, false) => runs[self.run as usize]
                .cmp(&runs[other.run as usize])
                .then(self.index.cmp(&other.index))
                .then(self.number.cmp(&other.number)),
            (false, true) => Ordering::Less,
            (true, false) => Ordering::Greater,
            (true, true) => self.number.cmp(&other.number),
        }
    }
}

/// One bot's totals, exactly.
#[derive(Clone, Debug)]
struct BotSums {
    /// The first game it played in, in schedule order, and its seat there: its number.
    first: (Place, usize),
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    points: u64,
    discs: u64,
    /// Places in halves.
    places: u64,
    faults: [u32; FaultKind::ALL.len()],
    moves: u64,
    ms: i128,
    max_ms: f64,
}

/// One deal's Plackett–Luce stages, in units: (choice set, weight), (bot, times chosen).
#[derive(Clone, Debug)]
struct DealSums {
    first: Place,
    sets: Vec<(u32, u64)>,
    chosen: Vec<(u32, u64)>,
    bots: Vec<u32>,
}

/// A choice set (bots as read, sorted), and where it first appears in schedule order: the game
/// and its place among that game's stages.
#[derive(Clone, Debug)]
struct SetSums {
    bots: ChoiceSet,
    first: (Place, usize),
}

#[derive(Clone, Debug, Default)]
struct SeatSums {
    games: u32,
    wins: u32,
    draws: u32,
    points: u64,
    places: u64,
}

/// A game as the online rating needs it, to replay in schedule order: 32 bytes.
#[derive(Clone, Copy, Debug)]
struct Online {
    run: u32,
    index: u64,
    seats: OnlineSeats,
}

/// A game's bots and place groups, as the online rating updates with them: 20 bytes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct OnlineSeats {
    bots: [u32; 4],
    /// Each seat's place group; `u8::MAX` past the last seat.
    groups: [u8; 4],
}

impl OnlineSeats {
    /// None for a game of more than 4 seats, which the online rating cannot hold here.
    fn of(seats: &[(u32, u8)]) -> Option<OnlineSeats> {
        if seats.len() > 4 {
            return None;
        }
        let mut o = OnlineSeats {
            bots: [0; 4],
            groups: [u8::MAX; 4],
        };
        for (i, &(bot, group)) in seats.iter().enumerate() {
            o.bots[i] = bot;
            o.groups[i] = group;
        }
        Some(o)
    }

    fn update(&self, ratings: &mut [WengLinRating], seats: &mut Vec<(u32, u8)>) {
        seats.clear();
        for (&bot, &group) in self.bots.iter().zip(&self.groups) {
            if group != u8::MAX {
                seats.push((bot, group));
            }
        }
        weng_lin::update(ratings, seats);
    }
}

/// How the online rating gets its games in schedule order.
#[derive(Clone, Debug, Default)]
enum OnlineOrder {
    /// Updated as the games come: a run's table, whose games come in the order they end.
    #[default]
    AsTheyCome,
    /// Kept in chunks of `CHUNK` (a vector that doubles would hold up to three times the games
    /// while it moves), sorted into schedule order at the end.
    Sorted(Vec<Vec<Online>>),
    /// Kept at each game's ordinal in the one schedule all the games are of
    /// (`Sums::by_ordinal`): already in schedule order.
    ByOrdinal(ByOrdinal<OnlineSeats>),
}

/// What the standings are computed from; see the module's note.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sums {
    bots: Vec<BotSums>,
    deals: Vec<DealSums>,
    sets: Vec<SetSums>,
    set_index: HashMap<ChoiceSet, u32>,
    /// Per game size (index 0–4), per seat.
    seats: [Vec<SeatSums>; 5],
    meetings: Vec<Vec<Meeting>>,
    /// The games for the online rating, to replay in schedule order, unless it is updated as
    /// the games come (into `live`).
    online: OnlineOrder,
    live: Vec<WengLinRating>,
    /// The HTML page's list of games, with bots numbered as read, or None.
    pub list: Option<GameList>,
    /// Some when every deal's stages are added into one (`Sums::one_deal_of_stages`).
    merged: Option<Merged>,
}

/// For sums whose stages are all added into one deal: how many deals have come (to tell a
/// deal's first game), and how many each bot (as read) played in.
#[derive(Clone, Debug, Default)]
struct Merged {
    deals: u32,
    bot_deals: Vec<u32>,
}

/// The sums with bots, deals and choice sets numbered in schedule order, as the standings use
/// them: bots are indexed like `names`.
pub(crate) struct Canonical {
    pub names: Vec<String>,
    pub tallies: Vec<BotTally>,
    pub deals_played: Vec<u32>,
    pub prepared: Prepared,
    pub online: Vec<WengLin>,
    pub seats: Vec<SeatTally>,
    pub head_to_head: Vec<Vec<Meeting>>,
    /// `renumber[bot]`: the index in `names` of a bot as read (as the HTML page's games number
    /// them in `Sums::list`, which is left as it is: renumbered where it is used, not copied).
    pub renumber: Vec<u32>,
}

impl Sums {
    /// Sums that replay the online rating in schedule order (`ordered`) or update it as the
    /// games come, and keep the HTML page's game list or not.
    pub fn new(ordered: bool, list: bool) -> Sums {
        Sums {
            online: match ordered {
                true => OnlineOrder::Sorted(Vec::new()),
                false => OnlineOrder::AsTheyCome,
            },
            list: list.then(GameList::default),
            ..Sums::default()
        }
    }

    /// The same sums for games that are all of one schedule of `games` games, each added with
    /// its ordinal there (`add`'s `ordinal`): the online rating keeps them at their ordinals
    /// rather than in a list to sort (see `by_ordinal`).
    pub fn by_ordinal(mut self, games: u64) -> Sums {
        self.online = OnlineOrder::ByOrdinal(ByOrdinal::new(games));
        self
    }

    /// The same sums with every deal's Plackett–Luce stages added into one: for a run's table,
    /// which fits without the bootstrap and so needs only their total. Per deal they take about
    /// 0.4 KB (166 KB at the end of a 10,080-game run), which a run would keep to its end: some
    /// 16 MB over a season of a million games. The deals are still counted, and each bot's, as a
    /// deal's first game comes (a run's deal seats the same bots in all its games). Such sums
    /// give the same ratings up to the order of the additions in the last bits, and no
    /// bootstrap.
    pub fn one_deal_of_stages(mut self) -> Sums {
        self.merged = Some(Merged::default());
        self
    }

    /// Adds one game (its bots and deal numbered as read, `schedule` its run and index there,
    /// `ordinal` its ordinal there for sums `by_ordinal`). Sums `by_ordinal` refuse a game
    /// without an ordinal, or with one outside the schedule, before anything is added.
    pub fn add(
        &mut self,
        g: &GameSummary,
        schedule: Option<(u32, u64)>,
        ordinal: Option<u64>,
        runs: &[String],
    ) -> Result<(), String> {
        let seats: Vec<(u32, u8)> = g.seats.iter().map(|s| (s.bot, s.group)).collect();
        if let OnlineOrder::ByOrdinal(games) = &mut self.online {
            let ordinal = ordinal.ok_or("not a game of the run's schedule")?;
            let game = OnlineSeats::of(&seats).ok_or("more than 4 seats")?;
            games.set(ordinal, game)?;
        }
        let place = Place::new(schedule, g.number);
        let earlier = |a: &(Place, usize), b: &(Place, usize)| {
            a.0.cmp(&b.0, runs).then(a.1.cmp(&b.1)) == Ordering::Less
        };
        let bots_now = g
            .seats
            .iter()
            .map(|s| s.bot as usize + 1)
            .max()
            .unwrap_or(0);
        while self.bots.len() < bots_now {
            self.bots.push(BotSums {
                first: (place, usize::MAX),
                games: 0,
                wins: 0,
                draws: 0,
                losses: 0,
                points: 0,
                discs: 0,
                places: 0,
                faults: [0; FaultKind::ALL.len()],
                moves: 0,
                ms: 0,
                max_ms: 0.0,
            });
            self.live.push(WengLinRating::new());
        }
        let n = self.bots.len();
        for row in &mut self.meetings {
            row.resize(n, Meeting::default());
        }
        self.meetings.resize(n, vec![Meeting::default(); n]);
        let sharing = g.seats.iter().filter(|s| s.fault.is_none()).count() as u64;
        let points = |seat: usize| -> u64 {
            match g.result {
                Outcome::Win { winner } => POINT_UNITS * (winner == seat) as u64,
                Outcome::Draw if g.seats[seat].fault.is_none() => POINT_UNITS / sharing.max(1),
                Outcome::Draw => 0,
            }
        };
        for (seat, s) in g.seats.iter().enumerate() {
            let b = &mut self.bots[s.bot as usize];
            if b.first.1 == usize::MAX || earlier(&(place, seat), &b.first) {
                b.first = (place, seat);
            }
            b.games += 1;
            match g.result {
                Outcome::Win { winner } if winner == seat => b.wins += 1,
                _ if g.shares_draw(seat) => b.draws += 1,
                _ => b.losses += 1,
            }
            b.points += points(seat);
            b.discs += s.score as u64;
            b.places += (s.place * 2.0) as u64;
            if let Some(kind) = s.fault {
                b.faults[kind.index()] += 1;
            }
            b.moves += s.moves as u64;
            b.ms += (s.total_ms * MS_SCALE).round() as i128;
            b.max_ms = b.max_ms.max(s.max_ms);
        }
        // The deal's stages (of every deal, in one, for merged sums; deals are numbered as read,
        // so a deal's first game is the one numbered as the count so far).
        let deal = match &mut self.merged {
            Some(m) => {
                m.bot_deals.resize(self.bots.len(), 0);
                if g.deal >= m.deals {
                    m.deals = g.deal + 1;
                    for s in &g.seats {
                        m.bot_deals[s.bot as usize] += 1;
                    }
                }
                0
            }
            None => g.deal as usize,
        };
        if deal == self.deals.len() {
            self.deals.push(DealSums {
                first: place,
                sets: Vec::new(),
                chosen: Vec::new(),
                bots: Vec::new(),
            });
        }
        let d = &mut self.deals[deal];
        if place.cmp(&d.first, runs) == Ordering::Less {
            d.first = place;
        }
        let (orders, list) = stage_list(&g.ranking());
        let weight = UNITS / orders.max(1) as u64;
        for (position, (set, chosen)) in list.into_iter().enumerate() {
            let id = match self.set_index.get(&set) {
                Some(&id) => {
                    let s = &mut self.sets[id as usize];
                    if earlier(&(place, position), &s.first) {
                        s.first = (place, position);
                    }
                    id
                }
                None => {
                    let id = self.sets.len() as u32;
                    self.sets.push(SetSums {
                        bots: set.clone(),
                        first: (place, position),
                    });
                    self.set_index.insert(set, id);
                    id
                }
            };
            add_to(&mut d.sets, id, weight);
            add_to(&mut d.chosen, chosen, weight);
        }
        for s in &g.seats {
            if !d.bots.contains(&s.bot) {
                d.bots.push(s.bot);
            }
        }
        // The seats.
        let size = g.seats.len().min(4);
        let row = &mut self.seats[size];
        if row.is_empty() {
            *row = vec![SeatSums::default(); size];
        }
        for (seat, s) in g.seats.iter().enumerate().take(size) {
            let t = &mut row[seat];
            t.games += 1;
            t.wins += matches!(g.result, Outcome::Win { winner } if winner == seat) as u32;
            t.draws += g.shares_draw(seat) as u32;
            t.points += points(seat);
            t.places += (s.place * 2.0) as u64;
        }
        // Head to head.
        for x in &g.seats {
            for y in &g.seats {
                if x.bot != y.bot {
                    let m = &mut self.meetings[x.bot as usize][y.bot as usize];
                    m.games += 1;
                    m.above += (x.group < y.group) as u32;
                    m.tied += (x.group == y.group) as u32;
                }
            }
        }
        // The online rating (kept by ordinal above).
        match (&mut self.online, OnlineSeats::of(&seats)) {
            (OnlineOrder::ByOrdinal(_), _) => {}
            (OnlineOrder::Sorted(chunks), Some(seats)) => {
                let o = Online {
                    run: place.run,
                    index: place.index,
                    seats,
                };
                match chunks.last_mut().filter(|c| c.len() < CHUNK) {
                    Some(chunk) => chunk.push(o),
                    None => {
                        let mut chunk = Vec::with_capacity(CHUNK);
                        chunk.push(o);
                        chunks.push(chunk);
                    }
                }
            }
            _ => weng_lin::update(&mut self.live, &seats),
        }
        if let Some(list) = &mut self.list {
            list.push_game(g);
        }
        Ok(())
    }

    /// The sums renumbered in schedule order (see the module's note). `names` and `runs` are the
    /// bots' and runs' names as read.
    pub fn canonical(&self, names: &[String], runs: &[String]) -> Canonical {
        let n = self.bots.len();
        let by_first =
            |a: &(Place, usize), b: &(Place, usize)| a.0.cmp(&b.0, runs).then(a.1.cmp(&b.1));
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| by_first(&self.bots[a].first, &self.bots[b].first));
        let mut new_bot = vec![0u32; n];
        for (i, &bot) in order.iter().enumerate() {
            new_bot[bot] = i as u32;
        }
        let mut set_order: Vec<usize> = (0..self.sets.len()).collect();
        set_order.sort_by(|&a, &b| by_first(&self.sets[a].first, &self.sets[b].first));
        let mut new_set = vec![0u32; self.sets.len()];
        for (i, &set) in set_order.iter().enumerate() {
            new_set[set] = i as u32;
        }
        let set_table: Vec<ChoiceSet> = set_order
            .iter()
            .map(|&set| {
                let mut bots: ChoiceSet = self.sets[set]
                    .bots
                    .iter()
                    .map(|&b| new_bot[b as usize])
                    .collect();
                bots.sort_unstable();
                bots
            })
            .collect();
        let mut deal_order: Vec<usize> = (0..self.deals.len()).collect();
        deal_order.sort_by(|&a, &b| self.deals[a].first.cmp(&self.deals[b].first, runs));
        let weight = |units: u64| units as f64 / UNITS as f64;
        let deals: Vec<Stages> = deal_order
            .iter()
            .map(|&d| {
                let d = &self.deals[d];
                let mut sets: Vec<(u32, f64)> = d
                    .sets
                    .iter()
                    .map(|&(s, w)| (new_set[s as usize], weight(w)))
                    .collect();
                sets.sort_by_key(|&(s, _)| s);
                let mut chosen: Vec<(u32, f64)> = d
                    .chosen
                    .iter()
                    .map(|&(b, w)| (new_bot[b as usize], weight(w)))
                    .collect();
                chosen.sort_by_key(|&(b, _)| b);
                Stages { sets, chosen }
            })
            .collect();
        let deal_bots: Vec<Vec<u32>> = deal_order
            .iter()
            .map(|&d| {
                self.deals[d]
                    .bots
                    .iter()
                    .map(|&b| new_bot[b as usize])
                    .collect()
            })
            .collect();
        let mut deals_played = vec![0u32; n];
        match &self.merged {
            Some(m) => {
                for (bot, &played) in m.bot_deals.iter().enumerate() {
                    deals_played[new_bot[bot] as usize] = played;
                }
            }
            None => {
                for bots in &deal_bots {
                    for &b in bots {
                        deals_played[b as usize] += 1;
                    }
                }
            }
        }
        let tallies = order
            .iter()
            .map(|&bot| {
                let b = &self.bots[bot];
                BotTally {
                    games: b.games,
                    wins: b.wins,
                    draws: b.draws,
                    losses: b.losses,
                    points: b.points as f64 / POINT_UNITS as f64,
                    discs: b.discs,
                    place_sum: b.places as f64 / 2.0,
                    faults: b.faults,
                    moves: b.moves,
                    total_ms: b.ms as f64 / MS_SCALE,
                    max_ms: b.max_ms,
                }
            })
            .collect();
        let online = match &self.online {
            OnlineOrder::ByOrdinal(games) => {
                let mut current = vec![WengLinRating::new(); n];
                let mut seats = Vec::with_capacity(4);
                for g in games.values() {
                    g.update(&mut current, &mut seats);
                }
                current
            }
            OnlineOrder::Sorted(chunks) => {
                // The games' numbers in reading order, sorted: 4 bytes a game where references
                // took 8, at the point where the standings' memory peaks.
                let game = |i: u32| &chunks[i as usize / CHUNK][i as usize % CHUNK];
                let total = chunks.iter().map(Vec::len).sum::<usize>();
                let mut sorted: Vec<u32> = (0..total as u32).collect();
                // Stable: games of one place (or none) keep their reading order.
                sorted.sort_by(|&a, &b| {
                    let (a, b) = (game(a), game(b));
                    match (a.run == NO_RUN, b.run == NO_RUN) {
                        (false, false) => runs[a.run as usize]
                            .cmp(&runs[b.run as usize])
                            .then(a.index.cmp(&b.index)),
                        (false, true) => Ordering::Less,
                        (true, false) => Ordering::Greater,
                        (true, true) => Ordering::Equal,
                    }
                });
                let mut current = vec![WengLinRating::new(); n];
                let mut seats = Vec::with_capacity(4);
                for g in sorted.into_iter().map(game) {
                    g.seats.update(&mut current, &mut seats);
                }
                current
            }
            OnlineOrder::AsTheyCome => self.live.clone(),
        };
        let online = order.iter().map(|&bot| weng_lin::of(online[bot])).collect();
        let seats = self
            .seats
            .iter()
            .enumerate()
            .flat_map(|(size, row)| {
                row.iter().enumerate().map(move |(seat, t)| SeatTally {
                    players: size as u8,
                    seat: seat as u8,
                    games: t.games,
                    wins: t.wins,
                    draws: t.draws,
                    points: t.points as f64 / POINT_UNITS as f64,
                    place_sum: t.places as f64 / 2.0,
                })
            })
            .collect();
        let head_to_head = order
            .iter()
            .map(|&a| order.iter().map(|&b| self.meetings[a][b]).collect())
            .collect();
        Canonical {
            names: order.iter().map(|&bot| names[bot].clone()).collect(),
            tallies,
            deals_played,
            prepared: Prepared {
                bots: n,
                set_table,
                deals,
                deal_bots,
            },
            online,
            seats,
            head_to_head,
            renumber: new_bot,
        }
    }
}

/// Adds `units` to `key`'s entry of a short list.
fn add_to(list: &mut Vec<(u32, u64)>, key: u32, units: u64) {
    match list.iter_mut().find(|(k, _)| *k == key) {
        Some((_, w)) => *w += units,
        None => list.push((key, units)),
    }
}
