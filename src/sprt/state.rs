//! The test's state as a pure function of the game records: what a front-end feeds each record
//! to as it is written, and rebuilds from the record files after a restart (`kill -9` and a rerun
//! give the same LLR, because nothing else goes into it).
//!
//! **How records map to units.** A unit is one deal of the test's schedule (`schedule.deal`,
//! numbered 0, 1, 2, … in schedule order), holding `games_per_unit` games numbered by
//! `schedule.seating` from 0. Seatings 2j and 2j + 1 are twins: the same rules, board, blocked
//! squares and opening, the same bot in every other seat, the candidate and the baseline
//! exchanged. Every game of a unit has the same rules, starting board and opening. A record that
//! breaks this is refused with a `RecordError` that names it; it is not counted.
//!
//! **Which units count.** Only complete units, and only the longest run of complete units from
//! unit 0 on: a unit whose games are all in but that follows an incomplete one waits. Games that
//! end fast (a crash, a quick win) therefore cannot complete their units first and tilt the
//! statistic; which units count depends on the schedule only, never on results.
//!
//! **Stopping.** The LLR is checked after each counted unit, in schedule order; the first unit at
//! which it reaches a bound decides, and the decision stands. Units completed after it (games that
//! were in progress when the test stopped) are counted apart and change nothing, so that the
//! verdict is the same whatever the number of games played at once.

use super::estimate::EloEstimate;
use super::gsprt::{Bounds, Hypotheses, Verdict};
use super::units::{head_to_head, UnitCounts};
use crate::record::{GameRecord, OwnGames, Schedule, Whose};
use crate::rules::{Rules, Seat, Square};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// The most games a unit may hold: a deal of 4 bots has 4! = 24 seatings.
pub const MAX_GAMES_PER_UNIT: u32 = 24;

/// What is tested, and how the schedule is cut into units.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    /// The schedule's run name (`schedule.run` of its records).
    pub run: String,
    /// The candidate's name in the records (C, the new version).
    pub candidate: String,
    /// The baseline's name in the records (B, the old version).
    pub baseline: String,
    /// Games per unit: 2 for a twin pair (pentanomial counts), 2m for a deal of m pairs.
    pub games_per_unit: u32,
    pub hypotheses: Hypotheses,
}

/// A setup that cannot work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// The candidate and the baseline have the same name: no record could tell them apart.
    SameName(String),
    /// Not an even number of games from 2 to `MAX_GAMES_PER_UNIT`.
    GamesPerUnit(u32),
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::SameName(name) => write!(
                f,
                "the candidate and the baseline are both named '{name}': give them different names"
            ),
            SetupError::GamesPerUnit(n) => write!(
                f,
                "{n} games per unit: a unit is 1 to {} twin pairs, an even number of games from 2 to {}",
                MAX_GAMES_PER_UNIT / 2,
                MAX_GAMES_PER_UNIT
            ),
        }
    }
}

impl std::error::Error for SetupError {}

/// A record that does not fit the test; it is not counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// Without a schedule a game has no unit.
    NoSchedule { game: String },
    /// It belongs to another run.
    OtherRun { game: String, run: String },
    /// The candidate or the baseline does not sit at its table.
    NotSeated { game: String, name: String },
    /// A name sits in two seats, so which one is the bot is unclear.
    SeatedTwice { game: String, name: String },
    /// Its seating is beyond the unit's games.
    Seating {
        game: String,
        seating: u32,
        games_per_unit: u32,
    },
    /// Its seats are not numbered 0 to k − 1, or its ranking does not list each of them once.
    Seats { game: String, why: &'static str },
    /// It bears the test's name but is not the game the test's schedule has at its index
    /// (another test of the same name, with another seed or other bots, wrote it).
    Foreign { game: String, why: String },
    /// Another game already holds its place in the schedule.
    Conflict {
        game: String,
        other: String,
        unit: u64,
        seating: u32,
    },
    /// It is not the twin of the game in its twin seating, or not played on the same board and
    /// opening as the rest of its unit.
    NotTwins {
        game: String,
        other: String,
        why: String,
    },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::NoSchedule { game } => write!(
                f,
                "game {game} has no schedule: an SPRT counts games by their place in its schedule"
            ),
            RecordError::OtherRun { game, run } => {
                write!(f, "game {game} belongs to run '{run}', not to this test")
            }
            RecordError::NotSeated { game, name } => {
                write!(f, "game {game} has no seat for '{name}'")
            }
            RecordError::SeatedTwice { game, name } => {
                write!(f, "game {game} seats '{name}' more than once")
            }
            RecordError::Seating {
                game,
                seating,
                games_per_unit,
            } => write!(
                f,
                "game {game} is seating {seating}, but a unit has seatings 0 to {}",
                games_per_unit - 1
            ),
            RecordError::Seats { game, why } => write!(f, "game {game}: {why}"),
            RecordError::Foreign { game, why } => write!(
                f,
                "game {game} is not a game of this test's schedule ({why}): another test of \
                 the same name wrote it"
            ),
            RecordError::Conflict {
                game,
                other,
                unit,
                seating,
            } if game == other => write!(
                f,
                "game {game} is recorded twice with different contents (seating {seating} of \
                 unit {unit}): the first read counts"
            ),
            RecordError::Conflict {
                game,
                other,
                unit,
                seating,
            } => write!(
                f,
                "game {game} and game {other} are both seating {seating} of unit {unit}: the \
                 first read, game {other}, counts"
            ),
            RecordError::NotTwins { game, other, why } => {
                write!(
                    f,
                    "game {game} does not match game {other} of its unit: {why}"
                )
            }
        }
    }
}

impl std::error::Error for RecordError {}

/// What `SprtState::add` did with a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Added {
    /// Taken in.
    New,
    /// The same game was already in (a file read twice): ignored.
    Duplicate,
}

/// The position a game was played from, which its twin must share.
#[derive(Clone, Debug, PartialEq)]
struct Board {
    rules: Rules,
    initial_rows: Vec<String>,
    opening: Vec<Square>,
}

/// One game as the test needs it.
#[derive(Clone, Debug)]
struct Game {
    id: String,
    /// What tells two records of one id apart (`fingerprint`).
    fingerprint: u64,
    /// The candidate's half points against the baseline.
    half_points: u32,
    candidate_seat: Seat,
    baseline_seat: Seat,
    board: Board,
    /// Per seat: the name, with the candidate's and the baseline's left out, so that a game and
    /// its twin have equal lists.
    others: Vec<Option<String>>,
    /// Per seat: the index of its place group, its fractional place and its share of first
    /// place.
    places: Vec<(usize, f64, f64)>,
}

/// How the candidate or the baseline did against the other bots at its tables.
#[derive(Clone, Debug, Default, PartialEq)]
struct Tally {
    games: u64,
    wins: f64,
    place_sum: f64,
    /// Per field bot: (half points against it, meetings).
    against: BTreeMap<String, (u64, u64)>,
}

impl Tally {
    fn add(&mut self, game: &Game, seat: Seat, other_tested: Seat) {
        let (group, place, win) = game.places[seat];
        self.games += 1;
        self.wins += win;
        self.place_sum += place;
        for (s, name) in game.others.iter().enumerate() {
            if s == seat || s == other_tested {
                continue;
            }
            if let Some(name) = name {
                let half = match group.cmp(&game.places[s].0) {
                    std::cmp::Ordering::Less => 2,
                    std::cmp::Ordering::Equal => 1,
                    std::cmp::Ordering::Greater => 0,
                };
                let cell = self.against.entry(name.clone()).or_insert((0, 0));
                cell.0 += half;
                cell.1 += 1;
            }
        }
    }

    fn result(&self) -> FieldResult {
        let per_game = |x: f64| (self.games > 0).then(|| x / self.games as f64);
        let (half, meetings) = self
            .against
            .values()
            .fold((0, 0), |(h, m), &(a, b)| (h + a, m + b));
        FieldResult {
            games: self.games,
            wins: per_game(self.wins),
            mean_place: per_game(self.place_sum),
            score: (meetings > 0).then(|| half as f64 / (2 * meetings) as f64),
            opponents: self
                .against
                .iter()
                .map(|(name, &(half, meetings))| Opponent {
                    name: name.clone(),
                    meetings,
                    score: half as f64 / (2 * meetings) as f64,
                })
                .collect(),
        }
    }
}

/// The candidate's or the baseline's results against the field, over the counted games.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldResult {
    pub games: u64,
    /// Share of first places (a shared first place counts as a share of one).
    pub wins: Option<f64>,
    /// Mean place from 1; a shared place is the mean of the positions it spans.
    pub mean_place: Option<f64>,
    /// Head-to-head score against every field bot at its tables (above 1, shared ½, below 0).
    pub score: Option<f64>,
    /// The same per field bot, by name.
    pub opponents: Vec<Opponent>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Opponent {
    pub name: String,
    pub meetings: u64,
    pub score: f64,
}

/// The test so far: a pure function of the records added, whatever their order.
#[derive(Clone, Debug)]
pub struct SprtState {
    setup: Setup,
    scores: (f64, f64),
    bounds: Bounds,
    /// Units not counted yet, by number: incomplete, or waiting for an earlier unit.
    waiting: BTreeMap<u64, Vec<Option<Game>>>,
    /// The first unit not counted (all before it are).
    next_unit: u64,
    /// The ids and fingerprints of the counted games: seating s of unit u at u·g + s.
    counted_ids: Vec<(String, u64)>,
    counts: UnitCounts,
    llr: f64,
    candidate: Tally,
    baseline: Tally,
    /// The verdict of the first counted unit at which the LLR reached a bound.
    decision: Option<Verdict>,
    /// Complete units after the decision, not counted.
    after_decision: u64,
    /// The test after each counted unit, for plotting it over the games.
    history: Vec<Point>,
    /// The schedule each record is checked against (`with_schedule`).
    schedule: Option<Checked>,
}

/// A front-end's schedule, for `SprtState::with_schedule`.
#[derive(Clone)]
struct Checked(Arc<dyn Schedule>);

impl fmt::Debug for Checked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Checked(schedule)")
    }
}

/// What tells two records of one game id apart: a hash of the whole record. The same record
/// read twice has the same; another game written under the same id (a record edited, or another
/// run's) does not, however its results compare.
fn fingerprint(record: &GameRecord) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_vec(record).unwrap_or_default().hash(&mut h);
    h.finish()
}

/// The test's state after one counted unit.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Point {
    /// Games counted so far.
    pub games: u64,
    pub llr: f64,
    /// The Elo estimate and its interval so far (none while the units' scores do not vary).
    pub elo: Option<EloEstimate>,
}

impl SprtState {
    /// An empty test.
    pub fn new(setup: Setup) -> Result<SprtState, SetupError> {
        if setup.candidate == setup.baseline {
            return Err(SetupError::SameName(setup.candidate.clone()));
        }
        let g = setup.games_per_unit;
        if g == 0 || g % 2 == 1 || g > MAX_GAMES_PER_UNIT {
            return Err(SetupError::GamesPerUnit(g));
        }
        Ok(SprtState {
            scores: setup.hypotheses.scores(),
            bounds: setup.hypotheses.bounds(),
            counts: UnitCounts::new(g),
            setup,
            waiting: BTreeMap::new(),
            next_unit: 0,
            counted_ids: Vec::new(),
            llr: 0.0,
            candidate: Tally::default(),
            baseline: Tally::default(),
            decision: None,
            after_decision: 0,
            history: Vec::new(),
            schedule: None,
        })
    }

    /// The test that takes only the games of its front-end's schedule: a record that bears the
    /// test's name but is not the schedule's game at its index (`Schedule::mismatch`: another
    /// seed, other bots) is refused (`RecordError::Foreign`), as the front-end's finished set
    /// refuses it, so that the two agree on what is played.
    pub fn with_schedule(mut self, schedule: Arc<dyn Schedule>) -> SprtState {
        self.schedule = Some(Checked(schedule));
        self
    }

    /// The test of these records, in any order, with the records that did not fit.
    pub fn from_records<'a>(
        setup: Setup,
        records: impl IntoIterator<Item = &'a GameRecord>,
    ) -> Result<(SprtState, Vec<RecordError>), SetupError> {
        let mut state = SprtState::new(setup)?;
        let mut errors = Vec::new();
        for record in records {
            if let Err(e) = state.add(record) {
                errors.push(e);
            }
        }
        Ok((state, errors))
    }

    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// Takes in one finished game; counts every unit it completes in schedule order.
    pub fn add(&mut self, record: &GameRecord) -> Result<Added, RecordError> {
        let game_id = || record.game.clone();
        let schedule = record
            .schedule
            .as_ref()
            .ok_or_else(|| RecordError::NoSchedule { game: game_id() })?;
        if schedule.run != self.setup.run {
            return Err(RecordError::OtherRun {
                game: game_id(),
                run: schedule.run.clone(),
            });
        }
        let g = self.setup.games_per_unit;
        if schedule.seating >= g {
            return Err(RecordError::Seating {
                game: game_id(),
                seating: schedule.seating,
                games_per_unit: g,
            });
        }
        if let Some(Checked(own)) = &self.schedule {
            let names: Vec<&str> = record.seats.iter().map(|s| s.name.as_str()).collect();
            let own = OwnGames {
                run: &self.setup.run,
                schedule: &**own,
            };
            match own.whose(Some(schedule), record.seed, &names) {
                Whose::Own => {}
                // Not met: the run's name was checked above.
                Whose::OtherRun => {
                    return Err(RecordError::OtherRun {
                        game: game_id(),
                        run: schedule.run.clone(),
                    })
                }
                Whose::NotScheduled(why) => {
                    return Err(RecordError::Foreign {
                        game: game_id(),
                        why,
                    })
                }
            }
        }
        let (unit, slot) = (schedule.deal, schedule.seating as usize);
        let held = if unit < self.next_unit {
            self.counted_ids
                .get((unit * g as u64) as usize + slot)
                .map(|(id, f)| (id, *f))
        } else {
            self.waiting
                .get(&unit)
                .and_then(|games| games[slot].as_ref())
                .map(|game| (&game.id, game.fingerprint))
        };
        if let Some((held, held_fingerprint)) = held {
            if *held == record.game && held_fingerprint == fingerprint(record) {
                return Ok(Added::Duplicate);
            }
            return Err(RecordError::Conflict {
                game: game_id(),
                other: held.clone(),
                unit,
                seating: schedule.seating,
            });
        }
        let game = self.digest(record)?;
        if let Some(games) = self.waiting.get(&unit) {
            for (s, other) in games.iter().enumerate() {
                if let Some(other) = other {
                    check_same_unit(&game, other, s == (slot ^ 1))?;
                }
            }
        }
        self.waiting
            .entry(unit)
            .or_insert_with(|| vec![None; g as usize])[slot] = Some(game);
        self.count_complete_units();
        Ok(Added::New)
    }

    /// Whether the game in seating `slot` of `unit` is in (counted, or waiting).
    pub fn recorded(&self, unit: u64, slot: u32) -> bool {
        unit < self.next_unit
            || self
                .waiting
                .get(&unit)
                .and_then(|games| games.get(slot as usize))
                .is_some_and(|g| g.is_some())
    }

    /// The first unit not counted: every unit before it is.
    pub fn next_unit(&self) -> u64 {
        self.next_unit
    }

    /// The LLR of the counted units (at the decision, once there is one).
    pub fn llr(&self) -> f64 {
        self.llr
    }

    pub fn verdict(&self) -> Verdict {
        self.decision.unwrap_or(Verdict::Continue)
    }

    /// The LLR and the Elo estimate after each counted unit, up to the decision.
    pub fn history(&self) -> &[Point] {
        &self.history
    }

    /// Everything the test says so far.
    pub fn report(&self) -> Report {
        let waiting_games = self
            .waiting
            .values()
            .map(|games| games.iter().filter(|g| g.is_some()).count() as u64)
            .sum();
        Report {
            candidate: self.setup.candidate.clone(),
            baseline: self.setup.baseline.clone(),
            hypotheses: self.setup.hypotheses,
            bounds: self.bounds,
            llr: self.llr,
            verdict: self.verdict(),
            score: self.counts.mean(),
            elo: self.counts.elo(),
            los: self.counts.likelihood_of_superiority(),
            counts: self.counts.clone(),
            candidate_field: self.candidate.result(),
            baseline_field: self.baseline.result(),
            waiting_units: self.waiting.len() as u64,
            waiting_games,
            after_decision: self.after_decision,
        }
    }

    /// The record boiled down; refuses a record without both tested bots or with a broken
    /// ranking.
    fn digest(&self, record: &GameRecord) -> Result<Game, RecordError> {
        let id = record.game.clone();
        let seat_of = |name: &str| -> Result<Seat, RecordError> {
            let mut seats = record.seats.iter().filter(|s| s.name == name);
            let first = seats.next().ok_or_else(|| RecordError::NotSeated {
                game: id.clone(),
                name: name.to_string(),
            })?;
            if seats.next().is_some() {
                return Err(RecordError::SeatedTwice {
                    game: id.clone(),
                    name: name.to_string(),
                });
            }
            Ok(first.seat)
        };
        let candidate_seat = seat_of(&self.setup.candidate)?;
        let baseline_seat = seat_of(&self.setup.baseline)?;
        let k = record.seats.len();
        let seats_error = |why| RecordError::Seats {
            game: id.clone(),
            why,
        };
        if record.seats.iter().enumerate().any(|(i, s)| s.seat != i) {
            return Err(seats_error("its seats are not numbered 0, 1, … in order"));
        }
        let places = places(&record.ranking, k)
            .ok_or_else(|| seats_error("its ranking does not list every seat exactly once"))?;
        let half_points = head_to_head(&record.ranking, candidate_seat, baseline_seat)
            .ok_or_else(|| seats_error("its ranking does not list every seat exactly once"))?;
        let others = record
            .seats
            .iter()
            .map(|s| (s.seat != candidate_seat && s.seat != baseline_seat).then(|| s.name.clone()))
            .collect();
        let opening = record
            .moves
            .iter()
            .take(record.opening as usize)
            .map(|m| m.square)
            .collect();
        Ok(Game {
            id,
            fingerprint: fingerprint(record),
            half_points,
            candidate_seat,
            baseline_seat,
            board: Board {
                rules: record.rules.clone(),
                initial_rows: record.initial_rows.clone(),
                opening,
            },
            others,
            places,
        })
    }

    /// Counts every complete unit from `next_unit` on, in order, checking the LLR after each.
    fn count_complete_units(&mut self) {
        while let Some(games) = self.waiting.get(&self.next_unit) {
            if games.iter().any(|g| g.is_none()) {
                break;
            }
            let Some(games) = self.waiting.remove(&self.next_unit) else {
                break;
            };
            self.next_unit += 1;
            let games: Vec<Game> = games.into_iter().flatten().collect();
            self.counted_ids
                .extend(games.iter().map(|g| (g.id.clone(), g.fingerprint)));
            if self.decision.is_some() {
                self.after_decision += 1;
                continue;
            }
            self.counts.add(games.iter().map(|g| g.half_points).sum());
            for game in &games {
                self.candidate
                    .add(game, game.candidate_seat, game.baseline_seat);
                self.baseline
                    .add(game, game.baseline_seat, game.candidate_seat);
            }
            let (s0, s1) = self.scores;
            self.llr = self.counts.llr(s0, s1);
            self.history.push(Point {
                games: self.counts.games(),
                llr: self.llr,
                elo: self.counts.elo(),
            });
            let verdict = self.bounds.verdict(self.llr);
            if verdict != Verdict::Continue {
                self.decision = Some(verdict);
            }
        }
    }
}

/// Checks that two games may share a unit: same rules, board and opening; for twins also the
/// candidate and the baseline exchanged and every other seat the same.
fn check_same_unit(game: &Game, other: &Game, twins: bool) -> Result<(), RecordError> {
    let refuse = |why: &str| {
        Err(RecordError::NotTwins {
            game: game.id.clone(),
            other: other.id.clone(),
            why: why.to_string(),
        })
    };
    if game.board.rules != other.board.rules {
        return refuse("the rules or blocked squares differ");
    }
    if game.board.initial_rows != other.board.initial_rows {
        return refuse("the starting boards differ");
    }
    if game.board.opening != other.board.opening {
        return refuse("the openings differ");
    }
    if twins {
        if game.candidate_seat != other.baseline_seat || game.baseline_seat != other.candidate_seat
        {
            return refuse("the candidate and the baseline are not in exchanged seats");
        }
        if game.others != other.others {
            return refuse("the other seats are not held by the same bots");
        }
    }
    Ok(())
}

/// Per seat of a k-seat game: its place group, fractional place (a group covering positions p to
/// q places each of its seats at (p + q)/2) and share of first place. None unless the ranking
/// lists each of the seats 0..k exactly once.
fn places(ranking: &[Vec<Seat>], k: usize) -> Option<Vec<(usize, f64, f64)>> {
    let mut out: Vec<Option<(usize, f64, f64)>> = vec![None; k];
    let mut position = 1usize;
    for (g, group) in ranking.iter().enumerate() {
        let size = group.len();
        let place = position as f64 + (size as f64 - 1.0) / 2.0;
        let win = if g == 0 { 1.0 / size as f64 } else { 0.0 };
        for &seat in group {
            let cell = out.get_mut(seat)?;
            if cell.is_some() {
                return None;
            }
            *cell = Some((g, place, win));
        }
        position += size;
    }
    out.into_iter().collect()
}

/// Everything the test says so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub candidate: String,
    pub baseline: String,
    pub hypotheses: Hypotheses,
    pub bounds: Bounds,
    pub llr: f64,
    pub verdict: Verdict,
    /// The counted units' scores (their number, games, and per value of the lattice).
    pub counts: UnitCounts,
    /// Their mean score.
    pub score: Option<f64>,
    /// The candidate's Elo advantage over the baseline with a 95% interval.
    pub elo: Option<EloEstimate>,
    /// The likelihood that the candidate is the stronger.
    pub los: Option<f64>,
    pub candidate_field: FieldResult,
    pub baseline_field: FieldResult,
    /// Units with some games in that are not counted yet, and their games.
    pub waiting_units: u64,
    pub waiting_games: u64,
    /// Units completed after the decision, not counted.
    pub after_decision: u64,
}

impl Report {
    /// The report for people, a few lines:
    /// ```text
    /// sprt new vs old: elo0 0, elo1 10, alpha 0.05, beta 0.05
    /// LLR 1.23 of (-2.94, 2.94): continue
    /// 1234 games in 617 pairs; pairs scoring 0, ¼, ½, ¾, 1: 12, 100, 300, 150, 55
    /// new - old, from the pairs: +12.3 Elo, 95% interval [-3.4, +28.0], LOS 93.4%
    /// against the field: new 61.2% (wins 35.0%, mean place 1.85), old 55.0% (wins 30.1%, mean place 2.02)
    /// ```
    pub fn text(&self) -> String {
        let h = &self.hypotheses;
        let mut out = format!(
            "sprt {} vs {}: elo0 {}, elo1 {}, alpha {}, beta {}\n",
            self.candidate, self.baseline, h.elo0, h.elo1, h.alpha, h.beta
        );
        out += &format!(
            "LLR {:.2} of ({:.2}, {:.2}): {}\n",
            self.llr,
            self.bounds.lower,
            self.bounds.upper,
            self.verdict.describe()
        );
        let g = self.counts.games_per_unit();
        // "1 pair", "617 pairs"; "1 unit", "40 units".
        let units = |n: u64| match (g, n) {
            (2, 1) => "pair",
            (2, _) => "pairs",
            (_, 1) => "unit",
            _ => "units",
        };
        let labels: Vec<String> = (0..=2 * g as usize)
            .map(|i| match (g, i) {
                (2, 0) => "0".into(),
                (2, 1) => "¼".into(),
                (2, 2) => "½".into(),
                (2, 3) => "¾".into(),
                (2, 4) => "1".into(),
                _ => format!("{i}/{}", 2 * g),
            })
            .collect();
        let counts: Vec<String> = self.counts.counts().iter().map(|c| c.to_string()).collect();
        out += &format!(
            "{} games in {} {}; {} scoring {}: {}\n",
            self.counts.games(),
            self.counts.units(),
            units(self.counts.units()),
            units(2),
            labels.join(", "),
            counts.join(", ")
        );
        // "From the pairs": the standings printed above this report have an Elo scale and an
        // LOS column of their own (every game, a bootstrap over deals); the test decides on
        // these, the pairs' own.
        out += &format!("{} - {}, from the pairs: ", self.candidate, self.baseline);
        match self.elo {
            Some(e) => {
                out += &format!(
                    "{:+.1} Elo, 95% interval [{:+.1}, {:+.1}]",
                    e.elo, e.low, e.high
                )
            }
            // Say why: a candidate that lost every pair is not "not measured yet".
            None => {
                out += match self.counts.mean() {
                    _ if self.counts.units() < 2 => "no Elo estimate yet (it needs 2 pairs)",
                    Some(m) if m <= 0.0 => {
                        "no Elo estimate: every pair scored 0 for the candidate (no finite Elo \
                         difference fits that)"
                    }
                    Some(m) if m >= 1.0 => {
                        "no Elo estimate: every pair scored 1 for the candidate (no finite Elo \
                         difference fits that)"
                    }
                    _ => "no Elo estimate (every pair so far has scored the same)",
                }
            }
        }
        if let Some(los) = self.los {
            out += &format!(", LOS {:.1}%", 100.0 * los);
        }
        out += "\n";
        let field = |name: &str, r: &FieldResult| match (r.score, r.wins, r.mean_place) {
            (Some(s), Some(w), Some(p)) => format!(
                "{name} {:.1}% (wins {:.1}%, mean place {p:.2})",
                100.0 * s,
                100.0 * w
            ),
            _ => format!("{name} no games"),
        };
        out += &format!(
            "against the field: {}, {}\n",
            field(&self.candidate, &self.candidate_field),
            field(&self.baseline, &self.baseline_field)
        );
        if self.verdict != Verdict::Continue {
            // The decision stands: these games will never count. One line for both kinds, the
            // pairs completed since and the games of pairs that cannot count in order.
            let mut parts = Vec::new();
            if self.after_decision > 0 {
                parts.push(format!(
                    "{} complete {}",
                    self.after_decision,
                    units(self.after_decision)
                ));
            }
            if self.waiting_units > 0 {
                parts.push(format!(
                    "{} game(s) of {} {} left incomplete or behind an incomplete one",
                    self.waiting_games,
                    self.waiting_units,
                    units(self.waiting_units)
                ));
            }
            if !parts.is_empty() {
                out += &format!(
                    "after the decision, not counted: {}\n",
                    parts.join(", and ")
                );
            }
        } else if self.waiting_units > 0 {
            out += &format!(
                "waiting: {} game(s) of {} {} not counted yet (incomplete, or after an incomplete one)\n",
                self.waiting_games,
                self.waiting_units,
                units(self.waiting_units)
            );
        }
        out
    }
}
