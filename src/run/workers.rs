//! The runner: plays a list of deals on N workers and writes each game's record as it ends.
//! `match` and `league` both run through here; a match is a league with one line-up.
//!
//! Each worker is a thread that owns the processes of the bots it plays with: it takes the next
//! deal from a shared queue, plays the deal's games one after another with the same processes
//! (a bot is started again only after a fault, or for every game with `restart`), and keeps a
//! bot's process for the next deal when that deal has the bot too. Once no deal is left to
//! start, an idle worker joins the deal in play with the most games left, with processes of its
//! own (`DealWork`), so that the last deals, or a run of fewer deals than workers, still keep
//! every worker busy. Built-in bots are started afresh for every deal with a seed drawn from the
//! deal, so that their random choices do not depend on which worker played which deal before;
//! a deal with one is not joined.
//!
//! Records are committed in groups. The worker that played a game serialises its record and
//! hands it to the run's one writer thread, and goes on to its next game at once; the writer
//! writes every line handed to it since its last sync, each whole with a single write, forces
//! them all to disk with one sync, and only then reports those games as ended. So a worker never
//! waits for the disk, one sync covers the games of every worker, and a game counts as done (the
//! progress, the table, a sink's decision) only once the sync that covers it has returned: a
//! `kill -9` loses only games not yet synced, which a resumed run plays again (see `records`).
//! The workers print nothing: what happens becomes events (`events`), which the main thread
//! hands to the run's sinks.
//!
//! A bot that never once answered `start` (a wrong path that starts an interpreter which exits
//! at once) would lose every game it is in. The workers notice it in the first game it plays
//! and, unless told to play on, do not record that game, nor any other game in which it has
//! failed to answer `start` (another worker may be playing one at the same time): such games
//! say nothing about the bots, and a recorded one would count as done when the run is resumed
//! after the bot is fixed.

use super::events::{Event, Flow, SeatedBot, Sink};
use super::plan::{BotSpec, Run, SilentBots};
use super::records::{Line, RecordFile};
use crate::connection::{shut_down_all, Connection};
use crate::process::{allowed_cpus, interrupted, pin_this_thread, sweep_strays};
use crate::record::{FaultKind, FaultRecord, GameRecord, MoveRecord, SeatRecord};
use crate::referee::{play_game, GameSetup, Observer};
use crate::rules::Position;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A bot that never answered `start`, with what the first game saw of it.
#[derive(Clone, Debug)]
pub struct SilentBot {
    pub bot: usize,
    pub fault: FaultRecord,
}

/// How a run ended.
#[derive(Debug, Default)]
pub struct Summary {
    /// Games played and recorded by this run.
    pub games: u64,
    pub interrupted: bool,
    pub silent: Vec<SilentBot>,
    /// Games played but not recorded (nor counted in the tallies): a bot in them had never
    /// answered `start`.
    pub not_recorded: u64,
    /// Games not played because a silent bot was left out or the run stopped early.
    pub skipped: u64,
    /// Per bot of the run: the games it was started again for because it had ended by itself
    /// since its last game (its seat `restarted` in the record).
    pub restarted: Vec<u64>,
    /// Per bot of the run: the games in which it wrote to its stderr faster than the referee
    /// reads it, and so waited on it (its move times include the waits), counted for the
    /// bots still running at the game's end (a fault's words say it for the others).
    pub stderr_held_back: Vec<u64>,
    /// A record could not be written: the run stopped.
    pub write_error: Option<String>,
    /// A sink asked the run to stop (a sequential test that has decided).
    pub stopped_by_sink: bool,
}

/// What a worker tells the main thread.
enum Message {
    Event(Event),
    /// A bot never answered `start` in its first game.
    Silent(SilentBot),
    WriteFailed(String),
}

/// How many finished games may wait for the writer before a worker that finishes another waits
/// too. A sync covers every game waiting, so the queue stays short while the disk keeps up (a
/// sync of some 4 ms covers a handful of games of instant bots); when the writer falls behind (a
/// disk or a machine busy with other work), this bounds the records held in memory (some 20 KB
/// each) instead of letting them pile up in the workers' heaps, which kept the referee's peak
/// memory over a 10,000-game league 2-3 MB higher without a bound and about 1.5 MB at 64.
const WAITING_GAMES: usize = 16;

/// The least time from one sync of the records to the next. A sync costs the same for one game
/// as for fifty, and each one is work for the kernel and the disk that the games in play wait
/// behind: quick games end hundreds of times a second, and syncing at each end cost `match
/// --record` 15 to 40 % more time per game than without at concurrency 2. 20 ms keeps that to a
/// few percent, and only delays when a game counts: it still counts only once synced, and `kill
/// -9` still loses only the games not yet synced. A batch that a worker waits for (it shows the
/// games move by move) is synced at once.
const SYNC_GAP: Duration = Duration::from_millis(20);

/// What a worker hands the writer: a game to record, or a shared deal's claim to release.
enum ToWriter {
    Game(ToWrite),
    /// A deal shared with other runs (see `Claims`), released once every game handed over
    /// before it is on disk. Released by the worker, a claim marked complete while its last
    /// game still waited here would, after a `kill -9`, tell the next run that a pair is played
    /// whose record was lost: nobody would play it again, and a sequential test would wait for
    /// it forever; a claim left unfinished would let another run take the deal over and play
    /// again the games still waiting here.
    Release {
        deal: usize,
        complete: bool,
    },
}

/// A game to record, on its way from the worker that played it to the writer.
struct ToWrite {
    line: Line,
    record: Box<GameRecord>,
    bots: Vec<usize>,
    /// Told once the game is reported, for a worker that waits for it (dropped untold when the
    /// write fails).
    reported: Option<mpsc::SyncSender<()>>,
}

/// A deal in play, its games handed out one at a time: to the worker that took the deal, and
/// to idle workers that join it once no deal is left to start. Without that, a run's last deals
/// (or a run with fewer deals than workers) left workers idle while one played a whole deal's
/// games one after another. A joining worker plays with its own processes of the deal's bots,
/// as a worker of another deal with the same bots would. Not joined: a deal shared with other
/// runs, whose claim one worker releases once its games are on disk, and a deal with a built-in
/// bot, whose moves follow from its deal's seed through the games one process plays in order.
struct DealWork {
    deal: usize,
    games: Vec<super::plan::GamePlan>,
    /// The next game to hand out (past the end once all are).
    next: AtomicUsize,
    /// The games of the deal played so far, and their time in all (µs): what a game of it
    /// takes, for whether joining it is worth the start of processes.
    played: AtomicU64,
    played_us: AtomicU64,
}

impl DealWork {
    fn new(deal: usize, games: Vec<super::plan::GamePlan>) -> DealWork {
        DealWork {
            deal,
            games,
            next: AtomicUsize::new(0),
            played: AtomicU64::new(0),
            played_us: AtomicU64::new(0),
        }
    }

    /// Counts a game of the deal played in `took`.
    fn note_played(&self, took: Duration) {
        self.played_us
            .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
        self.played.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether an idle worker should join: enough games left, and, once some have been played,
    /// enough time in them (see `JOIN_WORK`). A deal none of whose games has ended yet is
    /// joined: it has just begun, and its games' length is not known.
    fn worth_joining(&self) -> bool {
        let left = self.left() as u64;
        let played = self.played.load(Ordering::Relaxed);
        left >= JOIN_AT_LEAST as u64
            && (played == 0
                || self.played_us.load(Ordering::Relaxed) / played * left
                    >= JOIN_WORK.as_micros() as u64)
    }

    /// The next game no worker has taken.
    fn take(&self) -> Option<&super::plan::GamePlan> {
        self.games.get(self.next.fetch_add(1, Ordering::SeqCst))
    }

    /// Takes every game not yet taken; how many there were.
    fn take_rest(&self) -> usize {
        let taken = self.next.swap(self.games.len(), Ordering::SeqCst);
        self.games.len().saturating_sub(taken)
    }

    fn left(&self) -> usize {
        self.games
            .len()
            .saturating_sub(self.next.load(Ordering::SeqCst))
    }
}

/// The fewest games left in a deal for an idle worker to join it: with one left, the worker
/// playing the deal takes it next, and a joiner would only start processes.
const JOIN_AT_LEAST: usize = 2;

/// The least time the games left in a deal must take, at the deal's pace so far, for an idle
/// worker to join it. A joiner starts its own processes of the deal's bots first (a few
/// milliseconds for a compiled bot, tens for Python, hundreds for a JVM), and the game it took
/// waits for them: for games of instant bots, a few milliseconds a game, joining would end the
/// deal later, not sooner.
const JOIN_WORK: Duration = Duration::from_secs(1);

/// A deal taken off the queue and not yet open to join: while one is, an idle worker waits to see
/// whether it may join it (`Shared::deal_to_join`).
struct Starting<'a> {
    count: &'a AtomicUsize,
}

impl Drop for Starting<'_> {
    fn drop(&mut self) {
        self.count.fetch_sub(1, Ordering::SeqCst);
    }
}

/// State the workers share.
struct Shared<'a> {
    run: &'a Run,
    queue: Mutex<VecDeque<usize>>,
    /// The deals in play that idle workers may join (see `DealWork`).
    open: Mutex<Vec<Arc<DealWork>>>,
    /// Deals taken off the queue whose games are not yet open to join (see `Starting`).
    starting: AtomicUsize,
    /// Set when the run must stop early (a silent bot in a match, a failed write, a sink).
    stop: AtomicBool,
    /// Per bot: it never answered `start` and is left out.
    silent: Vec<AtomicBool>,
    /// Per bot: it answered `start` at least once in this run.
    answered: Vec<AtomicBool>,
    /// Per bot: its silence has been reported.
    reported: Vec<AtomicBool>,
    /// Some sink wants the move-by-move events.
    moves: bool,
    /// Per bot: the games it was started again for, and those in which its stderr was read at
    /// the flood rate (`Summary`).
    restarted: Vec<AtomicU64>,
    stderr_held_back: Vec<AtomicU64>,
}

impl Shared<'_> {
    fn halted(&self) -> bool {
        interrupted() || self.stop.load(Ordering::SeqCst)
    }

    /// The next deal to start, counted as starting until the guard is dropped.
    fn next_deal(&self) -> Option<(usize, Starting<'_>)> {
        let mut queue = self.queue.lock().ok()?;
        let d = queue.pop_front()?;
        self.starting.fetch_add(1, Ordering::SeqCst);
        Some((
            d,
            Starting {
                count: &self.starting,
            },
        ))
    }

    fn open_deals(&self) -> MutexGuard<'_, Vec<Arc<DealWork>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// For a worker with no deal left to start: the deal in play with the most games left to
    /// take, if one is worth joining. While another worker is starting a deal (it has taken it
    /// off the queue, and not yet opened its games), the answer waits for it: otherwise a run
    /// of one deal could leave its second worker with nothing, as it looked too soon.
    fn deal_to_join(&self) -> Option<Arc<DealWork>> {
        loop {
            if self.halted() {
                return None;
            }
            // Read before the look: if no deal was starting then, every deal in play was open.
            let starting = self.starting.load(Ordering::SeqCst);
            let found = self
                .open_deals()
                .iter()
                .filter(|work| work.worth_joining())
                .max_by_key(|work| work.left())
                .cloned();
            if found.is_some() || starting == 0 {
                return found;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// Plays every game of the run, handing what happens to `sinks`, and says how it ended.
pub fn run(run: &Run, sinks: &mut [&mut dyn Sink]) -> Summary {
    let shared = Shared {
        run,
        queue: Mutex::new((0..run.deals.len()).collect()),
        open: Mutex::new(Vec::new()),
        starting: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        silent: run.bots.iter().map(|_| AtomicBool::new(false)).collect(),
        answered: run.bots.iter().map(|_| AtomicBool::new(false)).collect(),
        reported: run.bots.iter().map(|_| AtomicBool::new(false)).collect(),
        restarted: run.bots.iter().map(|_| AtomicU64::new(0)).collect(),
        stderr_held_back: run.bots.iter().map(|_| AtomicU64::new(0)).collect(),
        moves: sinks.iter().any(|s| s.interest().moves),
    };
    let mut summary = Summary::default();
    let (tx, rx) = mpsc::channel::<Message>();
    std::thread::scope(|scope| {
        // The writer runs until every worker has dropped its handle on it, so that every game
        // handed to it, even on an interrupted run, is written and synced before the run ends.
        // Without a writer (no records, or no thread to be had), each worker records its own
        // games, one sync each.
        let commit = run.record.as_ref().and_then(|file| {
            let (commit, games) = mpsc::sync_channel::<ToWriter>(WAITING_GAMES);
            let (tx, shared) = (tx.clone(), &shared);
            let spawned = std::thread::Builder::new()
                .name("writer".into())
                .spawn_scoped(scope, move || writer(file, games, shared, tx));
            spawned.ok().map(|_| commit)
        });
        let cpus = if run.pin_cpus {
            allowed_cpus()
        } else {
            Vec::new()
        };
        for w in 0..run.concurrency.max(1) {
            let tx = tx.clone();
            let commit = commit.clone();
            let shared = &shared;
            // Worker w on the w-th CPU the run may use (more workers than CPUs share them).
            let cpu = (!cpus.is_empty()).then(|| cpus[w % cpus.len()]);
            let spawned = std::thread::Builder::new()
                .name(format!("worker-{w}"))
                .spawn_scoped(scope, move || {
                    if let Some(cpu) = cpu {
                        if let Err(e) = pin_this_thread(cpu) {
                            crate::stderr_line!(
                                "multiversi: cannot keep worker {w} on CPU {cpu} ({e}): it and \
                                 its bots run on any CPU"
                            );
                        }
                    }
                    worker(shared, tx, commit)
                });
            if let Err(e) = spawned {
                crate::stderr_line!("multiversi: cannot start worker {w}: {e}");
            }
        }
        drop(commit);
        drop(tx);
        loop {
            match rx.recv_timeout(Duration::from_millis(250)) {
                Ok(Message::Event(event)) => {
                    match &event {
                        Event::GameEnded { recorded: true, .. } => summary.games += 1,
                        Event::GameEnded {
                            recorded: false, ..
                        } => summary.not_recorded += 1,
                        Event::Skipped(n) => summary.skipped += n,
                        _ => {}
                    }
                    for sink in sinks.iter_mut() {
                        if sink.event(&event) == Flow::Stop {
                            summary.stopped_by_sink = true;
                            shared.stop.store(true, Ordering::SeqCst);
                        }
                    }
                }
                Ok(Message::Silent(silent)) => summary.silent.push(silent),
                Ok(Message::WriteFailed(message)) => {
                    shared.stop.store(true, Ordering::SeqCst);
                    summary.write_error.get_or_insert(message);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => sinks.iter_mut().for_each(|s| s.tick()),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
    });
    sinks.iter_mut().for_each(|s| s.finish());
    summary.interrupted = interrupted();
    let counts =
        |per_bot: &[AtomicU64]| per_bot.iter().map(|n| n.load(Ordering::Relaxed)).collect();
    summary.restarted = counts(&shared.restarted);
    summary.stderr_held_back = counts(&shared.stderr_held_back);
    // Each shutdown swept after its bot; this catches anything left over from the whole run.
    sweep_strays(None);
    summary
}

/// The group commit: takes the games the workers hand over, and for each batch (every game
/// waiting when the previous sync returned, and those that end within `SYNC_GAP` of its start)
/// writes their lines, syncs once and then reports them as ended, and releases the claims
/// handed over with them. After a failed write or sync nothing more is written: the run stops,
/// the games of that batch and after it are not reported, and no claim after the failure is
/// released as complete (a sync that failed may have left some games on disk; a resumed run
/// counts what the file holds).
fn writer(
    file: &RecordFile,
    queue: mpsc::Receiver<ToWriter>,
    shared: &Shared,
    tx: mpsc::Sender<Message>,
) {
    // A worker that shows the games move by move waits for each game's report before its next
    // game starts: a batch with such a game is not held back.
    let waited_for = |item: &ToWriter| matches!(item, ToWriter::Game(g) if g.reported.is_some());
    let mut failed = false;
    let mut batch = Vec::new();
    let mut synced: Option<Instant> = None;
    while let Ok(first) = queue.recv() {
        let mut hurry = waited_for(&first);
        batch.push(first);
        // What comes until SYNC_GAP after the last sync began joins this batch, taken off the
        // queue as it comes, so that no worker waits meanwhile.
        while let Some(left) = synced
            .filter(|_| !hurry)
            .and_then(|at| (at + SYNC_GAP).checked_duration_since(Instant::now()))
        {
            match queue.recv_timeout(left) {
                Ok(item) => {
                    hurry = waited_for(&item);
                    batch.push(item);
                }
                Err(_) => break,
            }
        }
        batch.extend(queue.try_iter());
        synced = Some(Instant::now());
        let mut error = None;
        let mut written = 0;
        let games: Vec<&ToWrite> = batch
            .iter()
            .filter_map(|item| match item {
                ToWriter::Game(game) => Some(game),
                _ => None,
            })
            .collect();
        // Some of the batch's games, named for a message.
        let named = |games: &[&ToWrite]| match games {
            [one] => format!("game {}", one.record.game),
            [first, .., last] => format!("games {} to {}", first.record.game, last.record.game),
            [] => String::new(),
        };
        if !failed && !games.is_empty() {
            let lines: Vec<&Line> = games.iter().map(|game| &game.line).collect();
            let (whole, stopped) = file.write_lines(&lines);
            written = whole;
            if let Some(e) = stopped {
                error = Some(format!(
                    "{}: cannot write {}: {e}",
                    file.path().display(),
                    named(&games[whole..])
                ));
            }
            if written > 0 {
                if let Err(e) = file.sync() {
                    error = Some(format!(
                        "{}: cannot force {} to disk: {e}",
                        file.path().display(),
                        named(&games[..written])
                    ));
                    written = 0;
                }
            }
        }
        // In the order handed over: a claim is complete only if every game before it is on disk.
        let mut games = 0;
        for item in batch.drain(..) {
            match item {
                ToWriter::Game(game) => {
                    games += 1;
                    if games > written {
                        continue;
                    }
                    let _ = tx.send(Message::Event(Event::GameEnded {
                        record: game.record,
                        bots: game.bots,
                        recorded: true,
                    }));
                    if let Some(reported) = game.reported {
                        let _ = reported.send(());
                    }
                }
                ToWriter::Release { deal, complete } => {
                    if let Some(claims) = &shared.run.claims {
                        claims.release(deal, complete && games <= written);
                    }
                }
            }
        }
        if let Some(message) = error {
            failed = true;
            shared.stop.store(true, Ordering::SeqCst);
            let _ = tx.send(Message::WriteFailed(message));
        }
    }
}

/// Notes which bots answered `start` in a game just played, and finds the bots in it that
/// have never answered: they crashed or stayed silent before `ready` (a wrong path, a missing
/// interpreter), here and in every game before. A bot that answered with something else did
/// answer, and its fault says what. The first such game of a bot is reported; every one stops
/// the run or leaves the bot out, as the run says. Returns whether the game had such a bot, and
/// so is not to be recorded (unless the run plays on). Done by the worker before it records the
/// game, and before its next game, so that a match stops at once.
fn check_answers(
    shared: &Shared,
    record: &GameRecord,
    bots: &[usize],
    tx: &mpsc::Sender<Message>,
) -> Vec<usize> {
    let mut silent_here = Vec::new();
    for (seat, &bot) in bots.iter().enumerate() {
        if record.seats.get(seat).is_some_and(|s| s.ready.is_some()) {
            shared.answered[bot].store(true, Ordering::SeqCst);
            continue;
        }
        let Some(fault) = record.faults.iter().find(|f| f.seat == seat) else {
            continue;
        };
        if !matches!(fault.kind, FaultKind::Crash | FaultKind::Timeout)
            || shared.answered[bot].load(Ordering::SeqCst)
        {
            continue;
        }
        silent_here.push(seat);
        match shared.run.silent {
            SilentBots::Stop => shared.stop.store(true, Ordering::SeqCst),
            SilentBots::LeaveOut => shared.silent[bot].store(true, Ordering::SeqCst),
            SilentBots::PlayOn => {}
        }
        if !shared.reported[bot].swap(true, Ordering::SeqCst) {
            let _ = tx.send(Message::Silent(SilentBot {
                bot,
                fault: fault.clone(),
            }));
        }
    }
    silent_here
}

/// Turns what the referee reports of a game into events for the main thread.
struct Relay {
    tx: mpsc::Sender<Message>,
    /// Per seat of the game being played, the bot, for fault messages.
    seated: Vec<SeatedBot>,
    /// Whether to send the move-by-move events (some sink wants them).
    moves: bool,
    /// Per seat: its bot has not answered `start` yet in this run. Its fault at the start is
    /// held back until the game is over: if it never answered, the run's end explains it once
    /// (`ending`), rather than a fault message for a game that is not recorded.
    unproven: Vec<bool>,
    /// The faults held back, of seats in `unproven`.
    held: Vec<Event>,
    /// Until the game being played has started (every `start` answered or judged), its faults
    /// so far, sent once the game's start is: a sink is never told of a fault in a game it has
    /// not been told of.
    early: Option<Vec<Event>>,
}

impl Relay {
    fn send(&self, event: Event) {
        let _ = self.tx.send(Message::Event(event));
    }

    /// Before each game: nothing of it has been said yet.
    fn begin(&mut self) {
        self.early = Some(Vec::new());
    }

    /// Once the game has started, or after it, also one that never started (the run was
    /// interrupted during its start): the faults of its start not sent yet.
    fn flush_early(&mut self) {
        for event in self.early.take().unwrap_or_default() {
            self.send(event);
        }
    }
}

impl Observer for Relay {
    fn game_started(&mut self, game: &str, seats: &[SeatRecord], position: &Position) {
        if self.moves {
            self.send(Event::GameStarted {
                game: game.to_string(),
                seats: seats.to_vec(),
                rules: position.rules().clone(),
                rows: position.rows(),
            });
        }
        self.flush_early();
    }

    fn moved(&mut self, game: &str, m: &MoveRecord, position: &Position) {
        if self.moves {
            self.send(Event::Moved {
                game: game.to_string(),
                played: m.clone(),
                rows: position.rows(),
                scores: position.scores(),
            });
        }
    }

    fn faulted(&mut self, game: &str, fault: &FaultRecord, ms: Option<f64>) {
        let mut bot = self.seated.get(fault.seat).cloned().unwrap_or_default();
        let cap = crate::process::STDERR_LOG_CAP;
        bot.log_full = bot
            .log
            .as_deref()
            .is_some_and(|log| std::fs::metadata(log).is_ok_and(|m| m.len() >= cap))
            .then_some(cap);
        let event = Event::Faulted {
            game: game.to_string(),
            fault: fault.clone(),
            ms,
            bot,
        };
        let at_start =
            fault.ply == 0 && matches!(fault.kind, FaultKind::Crash | FaultKind::Timeout);
        if at_start && self.unproven.get(fault.seat).copied().unwrap_or(false) {
            self.held.push(event);
        } else if let Some(early) = self.early.as_mut() {
            early.push(event);
        } else {
            self.send(event);
        }
    }
}

/// One worker: takes deals until none is left or the run stops. `commit` is the writer's queue,
/// when the run has one.
fn worker(shared: &Shared, tx: mpsc::Sender<Message>, commit: Option<mpsc::SyncSender<ToWriter>>) {
    let run = shared.run;
    let mut relay = Relay {
        tx: tx.clone(),
        seated: Vec::new(),
        moves: shared.moves,
        unproven: Vec::new(),
        held: Vec::new(),
        early: None,
    };
    let skipped = |n: usize| {
        let _ = tx.send(Message::Event(Event::Skipped(n as u64)));
    };
    // Bots kept from the previous deal, by their place in the run's list.
    let mut kept: Vec<(usize, Connection)> = Vec::new();
    loop {
        // A deal shared with other runs that its taker left unfinished (it was killed) comes
        // first: every later pair of a sequential test waits for it.
        let retried = if shared.halted() {
            None
        } else {
            run.claims.as_ref().and_then(|c| c.retry())
        };
        let (d, retried, starting) = match retried {
            Some((d, recorded)) => (d, Some(recorded), None),
            None => match shared.next_deal() {
                Some((d, starting)) => (d, None, Some(starting)),
                // No deal left to start: help with the one in play with the most games left.
                None => match shared.deal_to_join() {
                    Some(work) => {
                        play_deal(shared, &work, &mut relay, &commit, &mut kept);
                        if interrupted() {
                            break;
                        }
                        continue;
                    }
                    None => break,
                },
            },
        };
        let deal = &run.deals[d];
        if shared.halted() {
            skipped(deal.games.len());
            if retried.is_some() {
                if let Some(claims) = &run.claims {
                    claims.release(d, false);
                }
            }
            continue;
        }
        // A deal shared with other runs is played by the first run to take it.
        let recorded = match (retried, run.claims.as_ref()) {
            (Some(recorded), _) => recorded,
            (None, Some(claims)) => match claims.take(d) {
                super::plan::Claim::Pass => continue,
                super::plan::Claim::Play { recorded } => recorded,
            },
            (None, None) => Vec::new(),
        };
        let games: Vec<super::plan::GamePlan> = deal
            .games
            .iter()
            .filter(|g| !recorded.contains(&g.index))
            .collect();
        if shared.halted()
            || deal
                .bots
                .iter()
                .any(|&b| shared.silent[b].load(Ordering::SeqCst))
        {
            skipped(games.len());
            if let Some(claims) = &run.claims {
                claims.release(d, false);
            }
            continue;
        }
        let work = Arc::new(DealWork::new(d, games));
        // Idle workers may join the deal once no deal is left to start (see `DealWork`).
        let joinable = run.claims.is_none() && !deal.bots.iter().any(|&b| run.bots[b].builtin);
        if joinable {
            shared.open_deals().push(Arc::clone(&work));
        }
        drop(starting);
        let played = play_deal(shared, &work, &mut relay, &commit, &mut kept);
        if joinable {
            shared.open_deals().retain(|open| !Arc::ptr_eq(open, &work));
        }
        if let Some(claims) = &run.claims {
            let complete = played.all_recorded && played.unplayed == 0;
            let release = ToWriter::Release { deal: d, complete };
            // After the games handed over, once they are on disk; if the writer is gone, its
            // games are as written as they will be.
            let sent = match commit.as_ref().filter(|_| played.handed > 0) {
                Some(commit) => commit.send(release).is_ok(),
                None => false,
            };
            if !sent {
                claims.release(d, complete && played.handed == 0);
            }
        }
        if interrupted() {
            break;
        }
    }
    if interrupted() {
        // The signal handler has killed every group; dropping the players reaps them.
        return;
    }
    shut_down_all(kept.iter_mut().map(|(_, p)| p), run.grace);
}

/// What a worker did with a deal's games: those it played, those it took but did not play (the
/// run stopped), those handed to the writer, and whether every one it played is recorded.
struct Played {
    played: usize,
    unplayed: usize,
    handed: usize,
    all_recorded: bool,
}

/// Plays games of `work` until none is left to take or the run stops, with the bots kept from
/// the worker's last deal where this deal has them (the others shut down) and new processes for
/// the rest; leaves this deal's bots in `kept` for the next. A run that stops leaves no game of
/// the deal to take: those left are counted unplayed here, by whichever worker stops first, and
/// reported skipped.
fn play_deal(
    shared: &Shared,
    work: &DealWork,
    relay: &mut Relay,
    commit: &Option<mpsc::SyncSender<ToWriter>>,
    kept: &mut Vec<(usize, Connection)>,
) -> Played {
    let run = shared.run;
    let deal = &run.deals[work.deal];
    let mut players: Vec<Connection> = deal
        .bots
        .iter()
        .map(|&b| {
            let spec = &run.bots[b];
            match kept.iter().position(|(k, _)| *k == b && !spec.builtin) {
                Some(i) => kept.swap_remove(i).1,
                None => new_player(spec, b, deal.seed),
            }
        })
        .collect();
    shut_down_all(kept.iter_mut().map(|(_, p)| p), run.grace);
    kept.clear();
    let mut out = Played {
        played: 0,
        unplayed: 0,
        handed: 0,
        all_recorded: true,
    };
    while let Some(game) = work.take() {
        if shared.halted()
            || deal
                .bots
                .iter()
                .any(|&b| shared.silent[b].load(Ordering::SeqCst))
        {
            out.unplayed += 1;
            break;
        }
        if run.restart && out.played > 0 {
            shut_down_all(players.iter_mut(), run.grace);
        }
        let setup = GameSetup {
            game: deal.id(game),
            rules: deal.rules.clone(),
            seed: Some(deal.seed),
            time: run.time,
            opening: deal.opening.clone(),
            place: Some(deal.place(game)),
        };
        let seating = game.order();
        relay.seated = seating
            .iter()
            .map(|&i| SeatedBot {
                name: players[i].spec.name.clone(),
                log: players[i].spec.log.as_ref().map(|l| l.path().to_path_buf()),
                builtin: run.bots[deal.bots[i]].builtin,
                remote: players[i].is_remote(),
                log_full: None,
            })
            .collect();
        relay.unproven = seating
            .iter()
            .map(|&i| !shared.answered[deal.bots[i]].load(Ordering::SeqCst))
            .collect();
        let started = Instant::now();
        relay.begin();
        let played = play_game(&setup, &mut players, &seating, relay);
        relay.flush_early();
        let Ok(mut record) = played else {
            out.unplayed += 1;
            break;
        };
        work.note_played(started.elapsed());
        out.played += 1;
        let bots: Vec<usize> = seating.iter().map(|&i| deal.bots[i]).collect();
        // What each bot did that is no fault but costs it, for the notes at the run's end.
        for (seat, (&i, &bot)) in seating.iter().zip(&bots).enumerate() {
            if record.seats.get(seat).is_some_and(|s| s.restarted) {
                shared.restarted[bot].fetch_add(1, Ordering::Relaxed);
            }
            if players[i].stderr_held_back_since(started) {
                shared.stderr_held_back[bot].fetch_add(1, Ordering::Relaxed);
            }
        }
        let silent_seats = check_answers(shared, &record, &bots, &relay.tx);
        let recorded = silent_seats.is_empty() || run.silent == SilentBots::PlayOn;
        out.all_recorded &= recorded;
        for event in std::mem::take(&mut relay.held) {
            let of_silent = matches!(&event, Event::Faulted { fault, .. }
                if silent_seats.contains(&fault.seat));
            if recorded || !of_silent {
                relay.send(event);
            }
        }
        if let Some(file) = run.record.as_ref().filter(|_| recorded) {
            let failed = |game: &str, e: std::io::Error| {
                let _ = relay.tx.send(Message::WriteFailed(format!(
                    "{}: cannot write game {game}: {e}",
                    file.path().display(),
                )));
            };
            let Some(commit) = commit else {
                // No writer thread: this worker records and syncs the game itself.
                if let Err(e) = file.append(&mut record) {
                    failed(&record.game, e);
                    break;
                }
                relay.send(Event::GameEnded {
                    record: Box::new(record),
                    bots,
                    recorded,
                });
                continue;
            };
            let line = match Line::of(&mut record) {
                Ok(line) => line,
                Err(e) => {
                    failed(&record.game, e);
                    break;
                }
            };
            // The writer reports the game once it is on disk. A sink that draws the games
            // move by move (`--show`, `--events`) sees a game's end before the next game of
            // the same worker starts: the worker waits for the report.
            let (reported, wait) = if shared.moves {
                let (tell, wait) = mpsc::sync_channel(1);
                (Some(tell), Some(wait))
            } else {
                (None, None)
            };
            let game = ToWrite {
                line,
                record: Box::new(record),
                bots,
                reported,
            };
            if commit.send(ToWriter::Game(game)).is_err() {
                break;
            }
            out.handed += 1;
            if wait.is_some_and(|w| w.recv().is_err()) {
                break;
            }
            continue;
        }
        relay.send(Event::GameEnded {
            record: Box::new(record),
            bots,
            recorded,
        });
    }
    out.unplayed += work.take_rest();
    *kept = deal.bots.iter().copied().zip(players).collect();
    if out.unplayed > 0 {
        relay.send(Event::Skipped(out.unplayed as u64));
    }
    crate::heap::finished(out.played as u64);
    out
}

/// A bot's connection for one deal; a built-in bot gets a seed drawn from the deal.
fn new_player(spec: &BotSpec, bot: usize, deal_seed: u64) -> Connection {
    let mut spec = spec.clone();
    if spec.builtin {
        let seed = super::seating::mix(deal_seed, bot as u64 + 1);
        spec.argv.extend(["--seed".to_string(), seed.to_string()]);
    }
    Connection::new(spec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::TimeControl;
    use crate::rules::{BoardKind, Rules};
    use crate::run::lineup::from_words;
    use crate::run::{Claim, Claims, DealPlan, GameIds, GamePlan, IdNumber, LeftOut};
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    /// Per release: the deal, whether complete, and the indices of its games on disk then.
    type Seen = Arc<Mutex<Vec<(usize, bool, Vec<u64>)>>>;

    /// The schedule indices of the games in a record file.
    fn indices_in(path: &Path) -> Vec<u64> {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        text.lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|r| r["schedule"]["index"].as_u64())
            .collect()
    }

    /// Claims that let this run play every deal and note, at each release, which of the deal's
    /// games the record file holds.
    struct Witness {
        path: PathBuf,
        seen: Seen,
    }

    impl Claims for Witness {
        fn take(&self, _deal: usize) -> Claim {
            Claim::Play {
                recorded: Vec::new(),
            }
        }

        fn release(&self, deal: usize, complete: bool) {
            let on_disk = indices_in(&self.path)
                .into_iter()
                .filter(|i| i / 3 == deal as u64)
                .collect();
            self.seen.lock().unwrap().push((deal, complete, on_disk));
        }
    }

    /// Asks the run to stop at the first game that ends.
    struct StopAtOnce;

    impl Sink for StopAtOnce {
        fn event(&mut self, event: &Event) -> Flow {
            match event {
                Event::GameEnded { .. } => Flow::Stop,
                _ => Flow::Continue,
            }
        }
    }

    /// Three deals of three games of three Python starter bots, recorded, with `Witness` claims.
    fn shared_run(dir: &Path, seen: &Seen) -> Run {
        std::fs::create_dir_all(dir).unwrap();
        let path = dir.join("games.jsonl");
        let _ = std::fs::remove_file(&path);
        let starter = concat!(env!("CARGO_MANIFEST_DIR"), "/bots/python/starter.py");
        let words = ["python3".to_string(), starter.to_string()];
        let bot = from_words(&words, true, None, Path::new("multiversi"), None).unwrap();
        let rules = Rules::new(3, BoardKind::Eight, false).unwrap();
        let seatings = [[0, 1, 2], [1, 2, 0], [2, 0, 1]];
        let deals = (0..3u64)
            .map(|d| DealPlan {
                bots: vec![0, 1, 2],
                rules: rules.clone(),
                seed: d,
                opening: Vec::new(),
                run: "t".into(),
                number: d,
                ids: GameIds {
                    prefix: format!("t-{d}-"),
                    number: IdNumber::SeatingFrom0,
                    width: 0,
                },
                games: crate::run::DealGames::Listed(
                    seatings
                        .iter()
                        .enumerate()
                        .map(|(s, seating)| GamePlan::new(3 * d + s as u64, s as u32, seating))
                        .collect(),
                ),
            })
            .collect();
        Run {
            bots: vec![bot.clone(), bot.clone(), bot],
            deals,
            time: TimeControl {
                move_ms: 5000,
                clock_ms: None,
                increment_ms: 0,
                startup_ms: 10_000,
            },
            grace: Duration::from_millis(500),
            concurrency: 1,
            pin_cpus: false,
            restart: false,
            record: Some(RecordFile::open(&path).unwrap()),
            silent: SilentBots::Stop,
            left_out: LeftOut::default(),
            claims: Some(Box::new(Witness {
                path,
                seen: seen.clone(),
            })),
        }
    }

    /// A deal shared with other runs is released only once the games of it that this run
    /// records are on disk: a `done` claim whose last game still waited for the writer would,
    /// after a `kill -9`, leave a pair that nobody plays again, and an unfinished claim released
    /// early would let another run play again the games still waiting.
    #[test]
    fn a_shared_deal_is_released_only_once_its_games_are_written() {
        let dir = std::env::temp_dir().join(format!("multiversi-claims-{}", std::process::id()));
        let seen = Seen::default();
        let run = shared_run(&dir, &seen);
        let summary = super::run(&run, &mut []);
        assert_eq!(summary.games, 9, "{summary:?}");
        let seen = seen.lock().unwrap().clone();
        assert_eq!(
            seen,
            (0..3)
                .map(|d| (d, true, (3 * d as u64..3 * d as u64 + 3).collect()))
                .collect::<Vec<_>>(),
            "each deal released as complete with all its games on disk"
        );

        // Stopped after its first game: the deal is released unfinished, after that game.
        let seen = Seen::default();
        let run = shared_run(&dir, &seen);
        let summary = super::run(&run, &mut [&mut StopAtOnce]);
        assert!(summary.stopped_by_sink && summary.games >= 1, "{summary:?}");
        let recorded = indices_in(&dir.join("games.jsonl"));
        let seen = seen.lock().unwrap().clone();
        assert!(!seen.is_empty(), "the deal in play is released");
        for (deal, complete, on_disk) in seen {
            let of_deal: Vec<u64> = recorded
                .iter()
                .copied()
                .filter(|i| i / 3 == deal as u64)
                .collect();
            assert_eq!(on_disk, of_deal, "deal {deal} released before its games");
            assert_eq!(complete, of_deal.len() == 3, "deal {deal}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
