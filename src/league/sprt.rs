//! `format = "sprt"`: a league that is a sequential test of a candidate (the new version) against
//! a baseline (the old one), played until the test decides (see `crate::sprt` for the
//! statistics, README "Is my new version better?" for the design).
//!
//! **The schedule** is an endless list of units, cut at the cap (`max_games`). Unit u is one
//! twin pair, a pure function of the seed and u: the table size and board cycle through the
//! config's, the k − 2 other seats go to field bots drawn at random (distinct), the candidate and
//! the baseline get two random seats, and the unit has its own random blocked squares (if asked)
//! and opening. Its seating 0 puts the candidate in the first of those seats, seating 1 is the
//! twin with the two exchanged. Shards (`--shard I/N`) share the schedule as they go: each takes
//! the next pair no other shard has taken (`PairClaims`), so that pairs are played in schedule
//! order by whichever shards are running — a shard still waiting in a cluster's queue would
//! otherwise hold up the complete prefix that the test counts.
//!
//! **Stopping.** A sink (`Watch`) feeds every game recorded to the test's state, and in a sharded
//! run also the games the other shards append to their record files; once the merged test has
//! decided, it asks the run to stop (the games in progress finish and are recorded, and change
//! nothing). Everything the test says comes from the record files alone, so a rerun after
//! `kill -9` continues with the same LLR, and `multiversi sprt --status DIR` says the same as the
//! run did.

use super::command::{self as league, Place};
use super::config::{LeagueConfig, SprtKeys};
use crate::exit::{self, fail};
use crate::files::write_atomically;
use crate::record::{OwnGames, Schedule, Scheduled};
use crate::referee::random_opening;
use crate::reporters::faults::FaultMessages;
use crate::reporters::progress::Progress;
use crate::rng::Rng;
use crate::rules::Rules;
use crate::run::events::{Event, Flow, Sink};
use crate::run::records::{self, Ignored, Recorded};
use crate::run::seating::mix;
use crate::run::{
    BotSpec, DealGames, DealPlan, GameIds, GamePlan, IdNumber, LeftOut, Run, SilentBots,
};
use crate::sprt::{Hypotheses, RecordError, Report, Setup, SprtState, Verdict};
use anyhow::Result;
use std::collections::HashSet;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The test of a config with `format = "sprt"`: who is tested and the units' schedule.
pub struct Test<'a> {
    config: &'a LeagueConfig,
    keys: &'a SprtKeys,
    /// The candidate's, the baseline's and the field bots' places in the config's list.
    candidate: usize,
    baseline: usize,
    field: Vec<usize>,
    hypotheses: Hypotheses,
    /// The test's name, shared by every deal's games.
    run: Arc<str>,
}

/// One unit of the schedule: a twin pair's table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    pub number: u64,
    pub players: usize,
    /// An index into the config's boards.
    pub board: usize,
    pub seed: u64,
    /// The seats of the candidate and the baseline in seating 0 (exchanged in seating 1).
    pub candidate_seat: usize,
    pub baseline_seat: usize,
    /// Per seat, the field bot in it (its place in the config's list); None for the two tested.
    pub others: Vec<Option<usize>>,
}

impl<'a> Test<'a> {
    /// The test of a config; None unless it is a sequential test with valid keys (a checked
    /// config with `format = "sprt"` has them).
    pub fn new(config: &'a LeagueConfig) -> Option<Test<'a>> {
        let keys = config.sprt.as_ref().filter(|_| config.format == "sprt")?;
        let hypotheses = keys.hypotheses().ok()?;
        let place = |name: &str| config.bots.iter().position(|b| b.name == name);
        let candidate = place(&keys.candidate)?;
        let baseline = place(&keys.baseline)?;
        let field = (0..config.bots.len())
            .filter(|&i| i != candidate && i != baseline)
            .collect();
        Some(Test {
            config,
            keys,
            candidate,
            baseline,
            field,
            hypotheses,
            run: config.name.as_str().into(),
        })
    }

    /// The units the cap allows.
    pub fn units(&self) -> u64 {
        self.keys.max_games / 2
    }

    pub fn hypotheses(&self) -> Hypotheses {
        self.hypotheses
    }

    /// What the test's state needs to know.
    pub fn setup(&self) -> Setup {
        Setup {
            run: self.config.name.clone(),
            candidate: self.keys.candidate.clone(),
            baseline: self.keys.baseline.clone(),
            games_per_unit: 2,
            hypotheses: self.hypotheses(),
        }
    }

    /// Unit u of the schedule: a pure function of the seed and u.
    pub fn unit(&self, u: u64) -> Unit {
        let sizes = self.config.sizes();
        let combination = (u % (sizes.len() * self.config.boards.len()) as u64) as usize;
        let players = sizes[combination % sizes.len()];
        let board = combination / sizes.len();
        let seed = mix(self.config.seed, u);
        let mut rng = Rng::new(mix(seed, 1));
        // k − 2 distinct field bots, in a random order (a partial Fisher–Yates shuffle).
        let mut field = self.field.clone();
        for i in 0..players - 2 {
            let j = i + rng.below((field.len() - i) as u64) as usize;
            field.swap(i, j);
        }
        let candidate_seat = rng.below(players as u64) as usize;
        let mut baseline_seat = rng.below(players as u64 - 1) as usize;
        if baseline_seat >= candidate_seat {
            baseline_seat += 1;
        }
        let mut fillers = field.into_iter();
        let others = (0..players)
            .map(|seat| {
                (seat != candidate_seat && seat != baseline_seat)
                    .then(|| fillers.next())
                    .flatten()
            })
            .collect();
        Unit {
            number: u,
            players,
            board,
            seed,
            candidate_seat,
            baseline_seat,
            others,
        }
    }

    /// The game at schedule index `index` (seating `index` mod 2 of unit `index` / 2): what a
    /// record of it must say (`Schedule`).
    fn scheduled(&self, index: u64) -> Scheduled {
        let (u, s) = (index / 2, (index % 2) as usize);
        let unit = self.unit(u);
        let tested = [&self.keys.candidate, &self.keys.baseline];
        let names = (0..unit.players)
            .map(|seat| {
                if seat == unit.candidate_seat {
                    tested[s].clone()
                } else if seat == unit.baseline_seat {
                    tested[1 - s].clone()
                } else {
                    unit.others[seat].map_or_else(String::new, |b| self.config.bots[b].name.clone())
                }
            })
            .collect();
        Scheduled {
            deal: u,
            seating: s as u32,
            seed: Some(unit.seed),
            names,
        }
    }

    /// The test's schedule, for the state and the finished set to check records against.
    pub fn schedule(&self) -> Arc<dyn Schedule> {
        Arc::new(TestSchedule(self.config.clone()))
    }

    /// How the games of unit u are named: `NAME-u00001-8x8-s0` and `-s1` for its two seatings.
    fn game_ids(&self, unit: &Unit) -> GameIds {
        GameIds {
            prefix: format!(
                "{}-u{:05}-{}-s",
                self.config.name,
                unit.number + 1,
                self.config.boards[unit.board]
            ),
            number: IdNumber::SeatingFrom0,
            width: 0,
        }
    }

    /// Unit u as a deal of the runner, with the games not yet recorded. The deal's bots are the
    /// candidate, the baseline, then the field bots in seat order.
    pub fn deal(&self, u: u64, finished: &Recorded) -> Result<DealPlan> {
        let unit = self.unit(u);
        let setup = self
            .config
            .setup(&self.config.boards[unit.board], unit.players, unit.seed);
        let rules = Rules::from_setup(&setup).map_err(|e| fail(exit::USAGE, e.to_string()))?;
        let opening = random_opening(&rules, self.config.opening, mix(unit.seed, u64::MAX));
        let mut bots = vec![self.candidate, self.baseline];
        bots.extend(unit.others.iter().flatten());
        let games = (0..2u32)
            .filter(|&s| !finished.indices.contains(&(2 * u + s as u64)))
            .map(|s| {
                let mut next_other = 2;
                let seating: Vec<usize> = (0..unit.players)
                    .map(|seat| {
                        if seat == unit.candidate_seat {
                            s as usize
                        } else if seat == unit.baseline_seat {
                            1 - s as usize
                        } else {
                            next_other += 1;
                            next_other - 1
                        }
                    })
                    .collect();
                GamePlan::new(2 * u + s as u64, s, &seating)
            })
            .collect();
        let games = DealGames::Listed(games);
        Ok(DealPlan {
            bots,
            rules,
            seed: unit.seed,
            opening,
            run: Arc::clone(&self.run),
            number: u,
            ids: self.game_ids(&unit),
            games,
        })
    }
}

/// A test's schedule owning its config, so that the state and the claims can keep it.
struct TestSchedule(LeagueConfig);

impl Schedule for TestSchedule {
    fn at(&self, index: u64) -> Option<Scheduled> {
        Test::new(&self.0).map(|test| test.scheduled(index))
    }
}

/// What reading a test's record files found beside its games.
#[derive(Default)]
pub struct Found {
    /// Records of the test that did not fit (with the file they are in), one line each.
    pub problems: Vec<String>,
    /// Per file, the records of another test of the same name (`Ignored`).
    pub ignored: Vec<(PathBuf, Ignored)>,
    /// Per file, its damaged lines (not a readable record: cut off by a kill, or not a game).
    pub damaged: Vec<(PathBuf, u64)>,
}

impl Found {
    /// The warnings a reader of the directory prints: each record that did not fit, and once a
    /// file its records of another test.
    pub fn warnings(&self, run: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .problems
            .iter()
            .map(|p| format!("multiversi: warning: not counted: {p}"))
            .collect();
        out.extend(
            self.ignored
                .iter()
                .filter_map(|(path, ignored)| ignored.warning(path, run, "this test's")),
        );
        out
    }

    /// One warning a file with damaged lines, as the end of a run says them.
    pub fn damaged_warnings(&self) -> Vec<String> {
        self.damaged
            .iter()
            .map(|(path, n)| {
                format!(
                    "multiversi: warning: {} holds {n} damaged line(s), which replay and \
                     standings skip and the test does not count",
                    path.display()
                )
            })
            .collect()
    }
}

/// The test as the record files in `out` say it is: its state, and what did not fit.
pub fn state_of(test: &Test, out: &Path) -> Result<(SprtState, Found)> {
    let mut state = SprtState::new(test.setup())
        .map_err(|e| fail(exit::USAGE, e.to_string()))?
        .with_schedule(test.schedule());
    let mut found = Found::default();
    for file in league::record_files(out)? {
        let mut tail = Tail::new(file);
        tail.read_into(&mut state, &mut found.problems)
            .map_err(|e| fail(exit::BAD_INPUT, e))?;
        if tail.ignored.records > 0 {
            found
                .ignored
                .push((tail.path.clone(), tail.ignored.clone()));
        }
        // Read once, a line without its newline is one cut off by a kill (or, in a file
        // another shard is writing, one that is being written: it is complete a moment later).
        let damaged = tail.damaged + tail.unfinished as u64;
        if damaged > 0 {
            found.damaged.push((tail.path.clone(), damaged));
        }
    }
    Ok((state, found))
}

/// A record file read as it grows: the complete lines after what was read before. A line not
/// yet finished (being written, or cut off by a kill) is left for the next read.
struct Tail {
    path: PathBuf,
    offset: u64,
    /// Records of another test of the same name read so far, said once for the file.
    ignored: Ignored,
    /// Damaged lines read so far.
    damaged: u64,
    /// The file ended, at the last read, in a line without its newline: one being written, or
    /// one cut off by a kill.
    unfinished: bool,
}

impl Tail {
    fn new(path: PathBuf) -> Tail {
        Tail {
            path,
            offset: 0,
            ignored: Ignored::default(),
            damaged: 0,
            unfinished: false,
        }
    }

    /// Adds the new complete records of the test's run to `state`; records that do not fit
    /// are described in `problems`. Errors: the file cannot be read.
    fn read_into(
        &mut self,
        state: &mut SprtState,
        problems: &mut Vec<String>,
    ) -> Result<(), String> {
        let cannot = |e: std::io::Error| format!("{}: cannot read: {e}", self.path.display());
        let mut file = match std::fs::File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(cannot(e)),
        };
        file.seek(SeekFrom::Start(self.offset)).map_err(cannot)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(cannot)?;
        let end = bytes.iter().rposition(|&b| b == b'\n');
        let rest = end.map_or(&bytes[..], |end| &bytes[end + 1..]);
        self.unfinished = !rest.iter().all(u8::is_ascii_whitespace);
        let Some(end) = end else {
            return Ok(());
        };
        for line in bytes[..end].split(|&b| b == b'\n') {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            // A damaged line is no finished game; `replay` and `standings` report it.
            let Ok(record) = crate::replay::read::read_line(line) else {
                self.damaged += 1;
                continue;
            };
            let ours = record
                .schedule
                .as_ref()
                .is_some_and(|s| s.run == state.setup().run);
            if ours {
                match state.add(&record) {
                    Ok(_) => {}
                    Err(RecordError::Foreign { game, why }) => self.ignored.add(&game, &why),
                    Err(e) => problems.push(format!("{}: {e}", self.path.display())),
                }
            }
        }
        self.offset += end as u64 + 1;
        Ok(())
    }
}

/// How the shards of a test share its pairs: a claim file per pair in `DIR/claims/`, created
/// by the first shard to take the pair and locked (`flock`) while it plays it, then marked
/// `done`. A shard that finds a claim file unlocked and not done takes the pair over: its
/// shard was killed in the middle (the games it recorded are left out, the rest are played).
/// The lock dies with its process, so a killed shard never holds a pair up. Claims only say who
/// plays what; what the test counts is still the records alone.
struct PairClaims {
    dir: PathBuf,
    out: PathBuf,
    run: String,
    /// What the records of the run are checked against, as the test's state checks them.
    schedule: Arc<dyn Schedule>,
    me: String,
    /// The schedule's unit of each deal of the run.
    units: Vec<u64>,
    /// The claim files this shard holds locked, by deal.
    held: std::sync::Mutex<Vec<(usize, std::fs::File)>>,
    /// Deals passed because another shard held them: taken over if that shard stops.
    passed: std::sync::Mutex<Vec<usize>>,
    last_retry: std::sync::Mutex<Instant>,
    /// Set by this shard's `Watch` once the merged test has decided.
    decided: Arc<AtomicBool>,
}

impl PairClaims {
    fn new(
        out: &Path,
        run: &str,
        schedule: Arc<dyn Schedule>,
        me: String,
        units: Vec<u64>,
        decided: Arc<AtomicBool>,
    ) -> Result<PairClaims> {
        let dir = out.join("claims");
        std::fs::create_dir_all(&dir).map_err(|e| {
            fail(
                exit::OUTPUT,
                format!("{}: cannot create: {e}", dir.display()),
            )
        })?;
        let claims = PairClaims {
            dir,
            out: out.to_path_buf(),
            run: run.to_string(),
            schedule,
            me,
            units,
            held: std::sync::Mutex::new(Vec::new()),
            passed: std::sync::Mutex::new(Vec::new()),
            last_retry: std::sync::Mutex::new(Instant::now()),
            decided,
        };
        let reopened = claims.reopen_lost().map_err(|e| {
            fail(
                exit::OUTPUT,
                format!("{}: cannot check the claims: {e}", claims.dir.display()),
            )
        })?;
        if !reopened.is_empty() {
            let shown: Vec<String> = reopened
                .iter()
                .take(8)
                .map(|u| (u + 1).to_string())
                .collect();
            crate::stderr_line!(
                "multiversi: {} pair(s) marked played in {} are not whole in the records (pair \
                 {}{}): they are played again",
                reopened.len(),
                claims.dir.display(),
                shown.join(", "),
                if reopened.len() > shown.len() {
                    ", ..."
                } else {
                    ""
                }
            );
        }
        Ok(claims)
    }

    /// Reopens the claims marked `done` whose pair is not whole in the records: the records are
    /// what the test counts, so games lost from them (a damaged line, a record file cut or
    /// removed) must be played again, and a `done` would keep every shard from it. A reopened
    /// claim is taken over as one left by a stopped shard: the games still recorded stay.
    /// Returns the units reopened.
    fn reopen_lost(&self) -> std::io::Result<Vec<u64>> {
        let mut done: Vec<(u64, PathBuf)> = Vec::new();
        for &unit in &self.units {
            let path = self.dir.join(format!("u{unit:05}"));
            match std::fs::read_to_string(&path) {
                Ok(text) if text.starts_with("done") => done.push((unit, path)),
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        if done.is_empty() {
            return Ok(Vec::new());
        }
        // Read after the claims: a pair marked done since the run read its records is whole.
        let finished = self.recorded()?;
        let mut reopened = Vec::new();
        for (unit, path) in done {
            if [2 * unit, 2 * unit + 1]
                .iter()
                .all(|i| finished.indices.contains(i))
            {
                continue;
            }
            let mut file = std::fs::File::options()
                .read(true)
                .write(true)
                .open(&path)?;
            // Locked: another shard holds it, taking it over or reopening it already.
            if !Self::lock(&file) {
                continue;
            }
            // Read again under the lock: a shard may have reopened it and played it since.
            let mut text = String::new();
            file.read_to_string(&mut text)?;
            if !text.starts_with("done") {
                continue;
            }
            Self::write(
                &mut file,
                &format!(
                    "reopened by shard {}: its games are not all in the records\n",
                    self.me
                ),
            )?;
            reopened.push(unit);
        }
        Ok(reopened)
    }

    /// The games of the run in the directory's record files now, as the test counts them.
    fn recorded(&self) -> std::io::Result<Recorded> {
        let mut finished = Recorded::default();
        for f in league::record_files(&self.out).map_err(std::io::Error::other)? {
            records::finished(&f, &self.run, Some(&*self.schedule), &mut finished)?;
        }
        Ok(finished)
    }

    /// Locks `file` without waiting; false if another process holds it.
    fn lock(file: &std::fs::File) -> bool {
        // SAFETY: flock on a descriptor owned by `file`; no memory is shared.
        unsafe {
            libc::flock(
                std::os::fd::AsRawFd::as_raw_fd(file),
                libc::LOCK_EX | libc::LOCK_NB,
            ) == 0
        }
    }

    fn write(file: &mut std::fs::File, text: &str) -> std::io::Result<()> {
        use std::io::Write;
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        // Not synced: after a crash a lost claim or `done` only sends the next shard to the
        // records, which say what is played (`take_unit`).
        file.write_all(text.as_bytes())
    }

    fn take_unit(&self, deal: usize) -> std::io::Result<crate::run::Claim> {
        use crate::run::Claim;
        let unit = self.units[deal];
        let path = self.dir.join(format!("u{unit:05}"));
        let created = std::fs::File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path);
        let (file, fresh) = match created {
            Ok(file) => (file, true),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => (
                std::fs::File::options()
                    .read(true)
                    .write(true)
                    .open(&path)?,
                false,
            ),
            Err(e) => return Err(e),
        };
        if !Self::lock(&file) {
            if let Ok(mut passed) = self.passed.lock() {
                passed.push(deal);
            }
            return Ok(Claim::Pass);
        }
        match self.hold(deal, file, fresh)? {
            Some(recorded) => Ok(Claim::Play { recorded }),
            None => Ok(Claim::Pass),
        }
    }

    /// Keeps a claim file this shard has locked, unless its pair is done: then None. A claim
    /// that is not fresh is taken over from a shard that stopped in the middle, and what it
    /// recorded stays: the indices of those games are returned, to be left out.
    fn hold(
        &self,
        deal: usize,
        mut file: std::fs::File,
        fresh: bool,
    ) -> std::io::Result<Option<Vec<u64>>> {
        let unit = self.units[deal];
        let mut recorded = Vec::new();
        if !fresh {
            let mut text = String::new();
            file.read_to_string(&mut text)?;
            // A pair left because the test had decided is never needed: a shard that has not
            // read the decision yet must not play the rest of it, splitting it between files.
            if text.starts_with("done") || text.starts_with("decided") {
                return Ok(None);
            }
            let finished = self.recorded()?;
            recorded = [2 * unit, 2 * unit + 1]
                .into_iter()
                .filter(|i| finished.indices.contains(i))
                .collect();
        }
        Self::write(&mut file, &format!("shard {}\n", self.me))?;
        if let Ok(mut held) = self.held.lock() {
            held.push((deal, file));
        }
        Ok(Some(recorded))
    }

    /// A passed deal whose claim is no longer locked: its shard stopped. Looked for at most
    /// once a second.
    fn retry_units(&self) -> std::io::Result<Option<(usize, Vec<u64>)>> {
        {
            let Ok(mut last) = self.last_retry.lock() else {
                return Ok(None);
            };
            if last.elapsed() < Duration::from_secs(1) {
                return Ok(None);
            }
            *last = Instant::now();
        }
        let candidates: Vec<usize> = match self.passed.lock() {
            Ok(passed) => passed.clone(),
            Err(_) => return Ok(None),
        };
        for deal in candidates {
            let path = self.dir.join(format!("u{:05}", self.units[deal]));
            let file = std::fs::File::options()
                .read(true)
                .write(true)
                .open(&path)?;
            if !Self::lock(&file) {
                continue;
            }
            if let Ok(mut passed) = self.passed.lock() {
                passed.retain(|&d| d != deal);
            }
            if let Some(recorded) = self.hold(deal, file, false)? {
                return Ok(Some((deal, recorded)));
            }
        }
        Ok(None)
    }
}

impl crate::run::Claims for PairClaims {
    fn take(&self, deal: usize) -> crate::run::Claim {
        match self.take_unit(deal) {
            Ok(claim) => claim,
            Err(e) => {
                // Without its claim a pair might be played twice: leave it to the others.
                crate::stderr_line!(
                    "{}multiversi: warning: cannot claim pair {} in {}: {e}",
                    crate::reporters::progress::clear_progress(),
                    self.units[deal] + 1,
                    self.dir.display()
                );
                crate::run::Claim::Pass
            }
        }
    }

    fn retry(&self) -> Option<(usize, Vec<u64>)> {
        self.retry_units().unwrap_or_else(|e| {
            crate::stderr_line!(
                "{}multiversi: warning: cannot look for pairs left by a stopped shard in {}: {e}",
                crate::reporters::progress::clear_progress(),
                self.dir.display()
            );
            None
        })
    }

    fn release(&self, deal: usize, complete: bool) {
        let Ok(mut held) = self.held.lock() else {
            return;
        };
        if let Some(at) = held.iter().position(|(d, _)| *d == deal) {
            let (_, mut file) = held.swap_remove(at);
            if complete {
                let _ = Self::write(&mut file, &format!("done by shard {}\n", self.me));
            } else if self.decided.load(Ordering::SeqCst) {
                let _ = Self::write(&mut file, &format!("decided, left by shard {}\n", self.me));
            }
            // Dropping the file releases the lock.
        }
    }
}

/// The sink that feeds the test: every recorded game of this run, and (read four times a second)
/// the games other shards append; it stops the run once the merged test has decided, and draws
/// the progress line with the LLR.
struct Watch {
    state: SprtState,
    progress: Progress,
    /// The other record files of the directory (other shards), read as they grow.
    others: Vec<Tail>,
    own: PathBuf,
    out: PathBuf,
    last_poll: Instant,
    /// Problems already printed (a record that does not fit is reported once).
    told: HashSet<String>,
    /// The decision has been announced.
    announced: bool,
    /// Shared with the claims: the pairs left after the decision are marked so.
    decided: Arc<AtomicBool>,
}

impl Watch {
    fn note(&self) -> String {
        let b = self.state.report();
        let elo = match b.elo {
            Some(e) => format!(
                "  Elo {:+.1} [{:+.1}, {:+.1}]",
                e.elo,
                e.low.max(-999.0),
                e.high.min(999.0)
            ),
            None => String::new(),
        };
        format!(
            "LLR {:.2} ({:.2}, {:.2}){elo}  {} pairs",
            b.llr,
            b.bounds.lower,
            b.bounds.upper,
            b.counts.units()
        )
    }

    /// Reads what the other shards have added since the last poll, at most four times a second.
    fn poll(&mut self, force: bool) {
        if !force && self.last_poll.elapsed() < Duration::from_millis(250) {
            return;
        }
        self.last_poll = Instant::now();
        // A shard started after this one has a file that was not there at the start.
        if let Ok(files) = league::record_files(&self.out) {
            for file in files {
                if file != self.own && !self.others.iter().any(|t| t.path == file) {
                    self.others.push(Tail::new(file));
                }
            }
        }
        let mut problems = Vec::new();
        let mut ignored = Vec::new();
        for tail in &mut self.others {
            if let Err(e) = tail.read_into(&mut self.state, &mut problems) {
                problems.push(e);
            }
            if tail.ignored.records > 0 {
                ignored.push((tail.path.clone(), tail.ignored.clone()));
            }
        }
        for p in problems {
            self.warn(p);
        }
        // Another test's records are said once a file, when they are first seen.
        let run = self.state.setup().run.clone();
        for (path, records) in ignored {
            let Some(warning) = records.warning(&path, &run, "this test's") else {
                continue;
            };
            if self.told.insert(format!("ignored {}", path.display())) {
                crate::stderr_line!("{}{warning}", crate::reporters::progress::clear_progress());
            }
        }
    }

    fn warn(&mut self, problem: String) {
        if self.told.insert(problem.clone()) {
            crate::stderr_line!(
                "{}multiversi: warning: not counted: {problem}",
                crate::reporters::progress::clear_progress()
            );
        }
    }

    fn flow(&mut self) -> Flow {
        self.progress.set_note(self.note());
        if self.state.verdict() == Verdict::Continue {
            return Flow::Continue;
        }
        self.decided.store(true, Ordering::SeqCst);
        if !self.announced {
            self.announced = true;
            crate::stderr_line!(
                "{}multiversi: the test has decided ({}, LLR {:.2}): no more games are started; \
                 the games in progress finish and are recorded",
                crate::reporters::progress::clear_progress(),
                self.state.verdict().describe(),
                self.state.llr()
            );
        }
        Flow::Stop
    }
}

impl Sink for Watch {
    fn event(&mut self, event: &Event) -> Flow {
        self.progress.event(event);
        if let Event::GameEnded {
            record,
            recorded: true,
            ..
        } = event
        {
            if let Err(e) = self.state.add(record) {
                self.warn(format!("{}: {e}", self.own.display()));
            }
            self.poll(false);
        }
        self.flow()
    }

    fn tick(&mut self) {
        self.poll(false);
        self.progress.set_note(self.note());
        self.progress.tick();
    }

    fn finish(&mut self) {
        self.progress.finish();
    }
}

/// Plays a sequential test: the units of this shard not yet recorded, until the test decides or
/// the cap is reached; then writes `sprt.json`, `sprt.html` and the standings, prints the report
/// and exits with the verdict's code.
pub fn run(
    config: &LeagueConfig,
    place: &Place,
    mut bots: Vec<BotSpec>,
    left_out: Vec<usize>,
) -> Result<()> {
    let Some(test) = Test::new(config) else {
        return Err(fail(
            exit::USAGE,
            "not a sequential test (format = \"sprt\")",
        ));
    };
    if let Some(&b) = left_out.first() {
        return Err(fail(
            exit::BOT_START,
            format!(
                "bot {}'s command cannot work (see above): a sequential test needs every bot; \
                 fix it and run the test again",
                config.bots[b].name
            ),
        ));
    }
    let out = place.out;
    let (state, found) = state_of(&test, out)?;
    let schedule = test.schedule();
    let mut finished = Recorded::default();
    for file in league::record_files(out)? {
        // The records `state_of` ignored as another test's are ignored here too (and said
        // once, by it), so that no pair is taken for played that the test does not count.
        records::finished(&file, &config.name, Some(&*schedule), &mut finished).map_err(|e| {
            fail(
                exit::BAD_INPUT,
                format!("{}: cannot read: {e}", file.display()),
            )
        })?;
    }
    // Shards do not split the schedule in advance: each takes the next pair no other shard has
    // taken (`PairClaims`), so that the pairs are played in schedule order by whichever shards
    // are running, and a shard still waiting in a cluster's queue holds up nothing.
    let decided = state.verdict() != Verdict::Continue;
    // Shared by the watch, which sets it, and the claims, which mark the pairs left after it.
    let decided_now = Arc::new(AtomicBool::new(decided));
    let mut deals = Vec::new();
    let mut units = Vec::new();
    if !decided {
        for u in 0..test.units() {
            let plan = test.deal(u, &finished)?;
            if !plan.games.is_empty() {
                deals.push(plan);
                units.push(u);
            }
        }
    }
    let to_play: u64 = deals.iter().map(|d| d.games.len() as u64).sum();
    let concurrency = crate::run::setup::concurrency(place.concurrency.or(config.concurrency))?;
    if place.dry_run {
        return league::print_stdout(&format!(
            "sprt {}: {} vs {}, field {}; {} players, board(s) {}; opening {} move(s)\n\
             up to {} games ({} pairs); {} recorded; to play now: {to_play}{}\n",
            config.name,
            test.keys.candidate,
            test.keys.baseline,
            test.field
                .iter()
                .map(|&i| config.bots[i].name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            config
                .sizes()
                .iter()
                .map(|k| k.to_string())
                .collect::<Vec<_>>()
                .join(" and "),
            config.boards.join(", "),
            config.opening,
            2 * test.units(),
            test.units(),
            finished.indices.len(),
            match place.shard {
                Some((i, n)) => format!(" in shard {i}/{n}"),
                None => String::new(),
            }
        ));
    }
    let _lock = (
        super::run_lock::lock(out, place.shard)?,
        league::lock_records(out, &out.join(league::records_name(place.shard)))?,
    );
    league::write_copy(out, config)?;
    let changed: Vec<String> = super::bot_files::check(out, &bots, &finished.bots, false)?
        .changed
        .into_iter()
        .map(|(_, phrase)| phrase)
        .collect();
    if !changed.is_empty() {
        return Err(fail(
            exit::USAGE,
            format!(
                "{} holds a test whose {} recorded game(s) were played by another version of \
                 its bots: {}. A test compares two fixed programs: start a new test (another \
                 --out, or remove {}); if the change does not change how the bot plays, remove \
                 {} to go on",
                out.display(),
                finished.indices.len(),
                changed.join(", "),
                out.display(),
                out.join(super::bot_files::FILE_NAME).display()
            ),
        ));
    }
    let logs = league::logs_dir(out, place.shard);
    std::fs::create_dir_all(&logs).map_err(|e| {
        fail(
            exit::OUTPUT,
            format!("{}: cannot create: {e}", logs.display()),
        )
    })?;
    crate::run::lineup::set_logs(&mut bots, &logs, false)?;
    let record_path = out.join(league::records_name(place.shard));
    let record = crate::run::setup::open_records(&record_path, "test records")?;
    for warning in found.warnings(&config.name) {
        crate::stderr_line!("{warning}");
    }
    let h = test.hypotheses();
    crate::stderr_line!(
        "multiversi: sprt {}: {} vs {} (elo0 {}, elo1 {}, alpha {}, beta {}): {}; records in {}",
        config.name,
        test.keys.candidate,
        test.keys.baseline,
        h.elo0,
        h.elo1,
        h.alpha,
        h.beta,
        if decided {
            format!(
                "already decided after {} game(s)",
                state.report().counts.games()
            )
        } else {
            format!(
                "up to {to_play} game(s) to play{} ({} recorded before), {concurrency} at a time",
                match place.shard {
                    Some((i, n)) => format!(" in shard {i}/{n}"),
                    None => String::new(),
                },
                finished.indices.len()
            )
        },
        record_path.display()
    );
    let run = Run {
        bots,
        deals,
        time: crate::protocol::TimeControl {
            move_ms: config.move_ms,
            clock_ms: config.clock_ms,
            increment_ms: config.increment_ms,
            startup_ms: config.startup_ms,
        },
        grace: Duration::from_millis(config.grace_ms),
        concurrency,
        pin_cpus: place.pin_cpus,
        restart: false,
        record: Some(record),
        // A test without one of its bots answers nothing: stop, and say which.
        silent: SilentBots::Stop,
        left_out: LeftOut::default(),
        // Claims also without --shard: a whole run started beside running shards takes
        // only the pairs they have not taken.
        claims: Some(Box::new(PairClaims::new(
            out,
            &config.name,
            schedule,
            match place.shard {
                Some((i, n)) => format!("{i}/{n}"),
                None => "whole".into(),
            },
            units,
            decided_now.clone(),
        )?)),
    };
    let mut watch = Watch {
        state,
        progress: Progress::new(run.total_games(), true),
        others: Vec::new(),
        own: record_path.clone(),
        out: out.to_path_buf(),
        last_poll: Instant::now() - Duration::from_secs(2),
        // What the start said is not said again when the other shards' files are read anew.
        told: found
            .problems
            .iter()
            .cloned()
            .chain(
                found
                    .ignored
                    .iter()
                    .map(|(path, _)| format!("ignored {}", path.display())),
            )
            .collect(),
        announced: decided,
        decided: decided_now,
    };
    watch.poll(true);
    let mut faults = FaultMessages::default();
    let mut web = match &place.web {
        Some(address) if !run.deals.is_empty() => Some(league::watch(
            address,
            format!("sprt {}", config.name),
            &run,
            out,
            &record_path,
        )?),
        _ => None,
    };
    let played = if run.deals.is_empty() {
        Ok(())
    } else {
        let mut sinks: Vec<&mut dyn Sink> = vec![&mut watch, &mut faults];
        if let Some(web) = web.as_mut() {
            sinks.push(web);
        }
        let summary = crate::run::guarded::play(&run, "test", &mut sinks)?;
        crate::run::ending::conclude(&run, &summary, "test")
    };
    // The end says what the files say, whatever this run saw.
    let (state, found) = state_of(&test, out)?;
    let schedule = test.schedule();
    let own = OwnGames {
        run: &config.name,
        schedule: &*schedule,
    };
    league::write_standings(out, own, "this test's");
    let written = write_results(&test, &state, &found, out);
    let report = state.report();
    // A run that stopped for a bot that never answered is not one to run again as it is.
    let stopped_for_a_bot = played
        .as_ref()
        .is_err_and(|e| exit::code_of(e) == exit::BOT_START);
    let words = match report.verdict {
        Verdict::Continue if stopped_for_a_bot => "verdict: not decided: a bot never answered \
                                                   start (stderr says which, and why); fix it, \
                                                   then run the test again to go on\n"
            .to_string(),
        _ => ending_words(&test, &report, out),
    };
    league::print_stdout(&format!("\n{}{words}", report.text()))?;
    played?;
    written?;
    verdict_code(&test, &report)
}

/// What the verdict means, in a line, after the report.
fn ending_words(test: &Test, report: &Report, out: &Path) -> String {
    let h = &report.hypotheses;
    match report.verdict {
        Verdict::AcceptH1 => format!(
            "verdict: {} is better than {} (H1: by {} Elo or more rather than {} or less)\n",
            report.candidate, report.baseline, h.elo1, h.elo0
        ),
        // What is decided is that it is not better by elo1: the estimate above may well be
        // positive. Then, as H1's line does, the hypothesis accepted and the one rejected.
        Verdict::AcceptH0 => format!(
            "verdict: {} is not better than {} by {} Elo or more (H0: by {} Elo or less rather \
             than {} or more)\n",
            report.candidate, report.baseline, h.elo1, h.elo0, h.elo1
        ),
        // A cap lowered on a later run can lie below what was already played: name both then.
        Verdict::Continue if report.counts.units() > test.units() => format!(
            "verdict: undecided after {} games, more than the cap of {} (raise max_games or \
             --max-games to go on)\n",
            report.counts.games(),
            2 * test.units()
        ),
        Verdict::Continue if report.counts.units() == test.units() => format!(
            "verdict: undecided after the cap of {} games (raise max_games or --max-games to go on)\n",
            2 * test.units()
        ),
        // Shards are named only where there are some (a shard's record file).
        Verdict::Continue if sharded(out) => "verdict: not decided yet: run the test again to go \
                                              on (or wait for the other shards)\n"
            .to_string(),
        Verdict::Continue => "verdict: not decided yet: run the test again to go on\n".to_string(),
    }
}

/// Whether a test's directory holds a shard's record file (`games-I-of-N.jsonl`).
fn sharded(out: &Path) -> bool {
    league::record_files(out).is_ok_and(|files| {
        files.iter().any(|f| {
            f.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("games-"))
        })
    })
}

/// `H1`, `H0`, `undecided` (at the cap) or `continue`.
fn verdict_word(test: &Test, report: &Report) -> &'static str {
    match report.verdict {
        Verdict::AcceptH1 => "H1",
        Verdict::AcceptH0 => "H0",
        Verdict::Continue if report.counts.units() >= test.units() => "undecided",
        Verdict::Continue => "continue",
    }
}

/// The documented exit code of a verdict: 0 for H1 (the new version is better), `SPRT_H0`,
/// `SPRT_UNDECIDED` (at the cap, or not decided yet).
fn verdict_code(test: &Test, report: &Report) -> Result<()> {
    match verdict_word(test, report) {
        "H1" => Ok(()),
        "H0" => Err(fail(exit::SPRT_H0, "")),
        _ => Err(fail(exit::SPRT_UNDECIDED, "")),
    }
}

/// `sprt.json` and `sprt.html` beside the records, each written whole or not at all.
fn write_results(test: &Test, state: &SprtState, found: &Found, out: &Path) -> Result<()> {
    let report = state.report();
    let json = result_json(test, state, &report, found);
    let text = serde_json::to_string_pretty(&json).unwrap_or_default() + "\n";
    for (name, content) in [
        ("sprt.json", text),
        (
            "sprt.html",
            crate::sprt::html::page(&report, state.history()),
        ),
    ] {
        let path = out.join(name);
        write_atomically(&path, |out| out.write_all(content.as_bytes()))?;
    }
    Ok(())
}

/// The test's result as `protocol/SPRT.md` documents it.
pub fn result_json(
    test: &Test,
    state: &SprtState,
    report: &Report,
    found: &Found,
) -> serde_json::Value {
    let field = |r: &crate::sprt::FieldResult| {
        serde_json::json!({
            "games": r.games,
            "score": r.score,
            "wins": r.wins,
            "mean_place": r.mean_place,
            "opponents": r.opponents.iter().map(|o| serde_json::json!({
                "name": o.name, "meetings": o.meetings, "score": o.score,
            })).collect::<Vec<_>>(),
        })
    };
    let h = &report.hypotheses;
    serde_json::json!({
        "format": "multiversi-sprt",
        "version": 1,
        "test": test.config.name,
        "candidate": report.candidate,
        "baseline": report.baseline,
        "elo0": h.elo0,
        "elo1": h.elo1,
        "alpha": h.alpha,
        "beta": h.beta,
        "max_games": 2 * test.units(),
        "verdict": verdict_word(test, report),
        "llr": report.llr,
        "bounds": [report.bounds.lower, report.bounds.upper],
        "games": report.counts.games(),
        "units": report.counts.units(),
        "games_per_unit": report.counts.games_per_unit(),
        "unit_counts": report.counts.counts(),
        "score": report.score,
        "elo": report.elo,
        "los": report.los,
        "candidate_field": field(&report.candidate_field),
        "baseline_field": field(&report.baseline_field),
        "waiting_games": report.waiting_games,
        "after_decision": report.after_decision,
        "damaged_lines": found.damaged.iter().map(|(_, n)| n).sum::<u64>(),
        "ignored_records": found.ignored.iter().map(|(_, i)| i.records).sum::<u64>(),
        "history": state.history(),
    })
}

/// `multiversi sprt --status DIR`: the merged state of a test's directory (every shard's records),
/// printed; the exit code is the verdict's.
pub fn status(out: &Path, json: bool) -> Result<()> {
    let copy = out.join("league.toml");
    let text = std::fs::read_to_string(&copy).map_err(|e| {
        fail(
            exit::BAD_INPUT,
            format!(
                "{}: cannot read ({e}): is {} the directory of a test?",
                copy.display(),
                out.display()
            ),
        )
    })?;
    let config = LeagueConfig::parse_copy(&text)
        .map_err(|e| fail(exit::BAD_INPUT, format!("{}: damaged: {e}", copy.display())))?;
    let test = Test::new(&config).ok_or_else(|| {
        fail(
            exit::BAD_INPUT,
            format!(
                "{}: not a sequential test (format = {:?}), or its [sprt] keys are wrong",
                copy.display(),
                config.format
            ),
        )
    })?;
    let (state, found) = state_of(&test, out)?;
    // What a resume would say of the records, and the damaged lines, which a run says at its end.
    for warning in found.warnings(&config.name) {
        crate::stderr_line!("{warning}");
    }
    for warning in found.damaged_warnings() {
        crate::stderr_line!("{warning}");
    }
    let report = state.report();
    let text = if json {
        serde_json::to_string_pretty(&result_json(&test, &state, &report, &found))
            .unwrap_or_default()
            + "\n"
    } else {
        format!("{}{}", report.text(), ending_words(&test, &report, out))
    };
    league::print_stdout(&text)?;
    verdict_code(&test, &report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(players: &str, field: usize) -> LeagueConfig {
        let mut text = format!(
            "name = \"t\"\nformat = \"sprt\"\nplayers = {players}\nboards = [\"8x8\", \"octagon\"]\n\
             seed = 7\n[sprt]\ncandidate = \"new\"\nbaseline = \"old\"\n\
             [[bot]]\nname = \"old\"\ncommand = \"builtin:random\"\n\
             [[bot]]\nname = \"new\"\ncommand = \"builtin:greedy\"\n"
        );
        for i in 0..field {
            text += &format!("[[bot]]\nname = \"f{i}\"\ncommand = \"builtin:random\"\n");
        }
        LeagueConfig::parse(&text).unwrap()
    }

    #[test]
    fn a_unit_is_a_twin_pair_with_the_tested_bots_exchanged_and_the_field_in_place() {
        let config = config("[3, 4]", 3);
        let test = Test::new(&config).unwrap();
        let finished = Recorded::default();
        for u in 0..200 {
            let deal = test.deal(u, &finished).unwrap();
            let unit = test.unit(u);
            assert_eq!(deal.games.len(), 2);
            assert_eq!(deal.bots[..2], [1, 0], "candidate, baseline first");
            let games: Vec<_> = deal.games.iter().collect();
            let (a, b) = (&games[0], &games[1]);
            let (a_order, b_order) = (a.order(), b.order());
            assert_eq!(a_order.len(), unit.players);
            for seat in 0..unit.players {
                let (x, y) = (deal.bots[a_order[seat]], deal.bots[b_order[seat]]);
                if seat == unit.candidate_seat {
                    assert_eq!((x, y), (1, 0));
                } else if seat == unit.baseline_seat {
                    assert_eq!((x, y), (0, 1));
                } else {
                    assert_eq!(x, y, "a field seat keeps its bot");
                    assert!(x >= 2, "a field bot");
                }
            }
            let mut all = deal.bots.clone();
            all.sort_unstable();
            all.dedup();
            assert_eq!(all.len(), unit.players, "every bot sits once");
            let (a_place, b_place) = (deal.place(a), deal.place(b));
            assert_eq!(
                (a_place.index, b_place.index, a_place.deal, b_place.seating),
                (2 * u, 2 * u + 1, u, 1)
            );
            assert_eq!(a_place.run, config.name);
            assert_ne!(deal.id(a), deal.id(b));
            assert_eq!(
                deal.id(b),
                format!(
                    "{}-u{:05}-{}-s1",
                    config.name,
                    u + 1,
                    config.boards[unit.board]
                )
            );
        }
    }

    #[test]
    fn the_schedule_is_fixed_by_the_seed_and_spreads_seats_sizes_boards_and_fillers() {
        let config = config("[3, 4]", 3);
        let test = Test::new(&config).unwrap();
        assert_eq!(test.unit(17), test.unit(17));
        let mut sizes = [0u32; 5];
        let mut boards = [0u32; 2];
        let mut seats = [0u32; 4];
        let mut fillers = [0u32; 5];
        for u in 0..4000 {
            let unit = test.unit(u);
            sizes[unit.players] += 1;
            boards[unit.board] += 1;
            if unit.players == 4 {
                seats[unit.candidate_seat] += 1;
            }
            for f in unit.others.iter().flatten() {
                fillers[*f] += 1;
            }
        }
        assert_eq!((sizes[3], sizes[4]), (2000, 2000));
        assert_eq!(boards, [2000, 2000]);
        // 2000 draws of 4 seats: each about 500 (a binomial's sd is about 19).
        assert!(seats.iter().all(|&n| (420..580).contains(&n)), "{seats:?}");
        // 2000 × 1 + 2000 × 2 field seats over 3 bots: about 2000 each.
        assert!(
            fillers[2..].iter().all(|&n| (1850..2150).contains(&n)),
            "{fillers:?}"
        );
        let mut other = config.clone();
        other.seed = 8;
        let other = Test::new(&other).unwrap();
        assert!((0..20).any(|u| other.unit(u) != test.unit(u)));
    }

    #[test]
    fn a_recorded_game_is_left_out_of_its_deal() {
        let config = config("4", 2);
        let test = Test::new(&config).unwrap();
        let mut finished = Recorded::default();
        finished.indices.insert(2 * 5 + 1);
        let deal = test.deal(5, &finished).unwrap();
        assert_eq!(deal.games.len(), 1);
        let game = deal.games.iter().next().unwrap();
        assert_eq!(deal.place(&game).seating, 0);
    }

    #[test]
    fn the_example_is_a_test_and_wrong_keys_are_named() {
        let example = LeagueConfig::parse(include_str!("../../examples/sprt.toml")).unwrap();
        let test = Test::new(&example).unwrap();
        assert_eq!((test.candidate, test.baseline, test.field.len()), (0, 1, 2));
        assert_eq!(test.units(), 10_000);
        let base = include_str!("../../examples/sprt.toml");
        let wrong = |from: &str, to: &str| {
            assert!(base.contains(from), "{from}");
            LeagueConfig::parse(&base.replacen(from, to, 1)).unwrap_err()
        };
        assert!(wrong("baseline = \"random\"", "baseline = \"nobody\"").contains("no bot is named"));
        assert!(
            wrong("baseline = \"random\"", "baseline = \"greedy\"").contains("two different bots")
        );
        assert!(wrong("elo1 = 10", "elo1 = -10").contains("elo0"));
        assert!(wrong("max_games = 20000", "max_games = 1").contains("max_games"));
        assert!(wrong("move_ms = 200", "move_ms = 200\nrounds = 2").contains("rounds"));
        assert!(wrong("format = \"sprt\"", "format = \"round-robin\"").contains("[sprt]"));
        assert!(wrong("[sprt]", "[sprt]\nmystery = 1").contains("mystery"));
        // Two field bots are needed at a 4-player table.
        let one_field = base.replace(
            "[[bot]]\nname = \"pool-random\"\ncommand = \"builtin:random\"\n",
            "",
        );
        assert!(LeagueConfig::parse(&one_field)
            .unwrap_err()
            .contains("needs 2 others"));
    }
}
