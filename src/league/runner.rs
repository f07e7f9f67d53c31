//! The runner: plays a list of deals on N workers and writes each game's record as it ends.
//! `match` and `league` both run through here; a match is a league with one line-up.
//!
//! Each worker is a thread that owns the processes of the bots it plays with: it takes the next
//! deal from a shared queue, plays the deal's games one after another with the same processes
//! (a bot is started again only after a fault, or for every game with `restart`), and keeps a
//! bot's process for the next deal when that deal has the bot too. Built-in bots are started
//! afresh for every deal with a seed drawn from the deal, so that their random choices do not
//! depend on which worker played which deal before.
//!
//! Records are written by the worker that played the game, one whole line under a lock, and
//! forced to disk before the game counts as done (see `records`). The main thread counts the
//! games and shows progress.
//!
//! A bot that never once answered `start` (a wrong path that starts an interpreter which exits
//! at once) would lose every game it is in. The workers notice it in the first game it plays
//! and, unless told to play on, do not record that game, nor any other game in which it has
//! failed to answer `start` (another worker may be playing one at the same time): such games
//! say nothing about the bots, and a recorded one would count as done when the run is resumed
//! after the bot is fixed.

use super::records::RecordFile;
use super::table::Table;
use crate::process::{interrupted, sweep_strays, BotProcess};
use crate::protocol::TimeControl;
use crate::record::{FaultKind, FaultRecord, GameRecord, ScheduleRef, SeatRecord};
use crate::referee::{play_game, GameSetup, Observer, Player};
use crate::rules::{Position, Rules, Square};
use serde_json::json;
use std::collections::{HashSet, VecDeque};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One bot of a run, as the runner starts it.
#[derive(Clone, Debug)]
pub struct BotSpec {
    pub name: String,
    /// The command as recorded: the user's words, split (or `builtin:NAME`).
    pub command: Vec<String>,
    /// The argument list started; for a built-in bot without the `--seed` each deal adds.
    pub argv: Vec<String>,
    pub builtin: bool,
    pub dir: Option<PathBuf>,
    pub env: Vec<(String, String)>,
    /// Its log (stderr, notes, protocol lines), if the run keeps logs.
    pub log: Option<crate::process::BotLog>,
    /// OS limits and environment it runs under.
    pub limits: crate::limits::Limits,
}

/// One game of a deal.
#[derive(Clone, Debug)]
pub struct GamePlan {
    pub id: String,
    pub place: ScheduleRef,
    /// `seating[seat]`: the place in the deal's `bots` of the bot in that seat.
    pub seating: Vec<usize>,
}

/// Games with the same bots, rules and opening, played by one worker with the same processes.
#[derive(Clone, Debug)]
pub struct DealPlan {
    /// The bots, by their place in the run's `bots`.
    pub bots: Vec<usize>,
    pub rules: Rules,
    pub seed: u64,
    pub opening: Vec<Square>,
    /// The games still to play (a resumed run leaves out the finished ones).
    pub games: Vec<GamePlan>,
}

/// What to do with a bot that never once answered `start` (a wrong path, a missing interpreter).
/// With `Stop` and `LeaveOut` the games in which it failed to answer are not recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SilentBots {
    /// Stop the run: every game it plays would be lost (a match, unless `--keep-going`).
    Stop,
    /// Leave it out: skip the deals it is in and go on with the others (a league).
    LeaveOut,
    /// Play on and record its games as lost by its fault (`match --keep-going`).
    PlayOn,
}

/// Bots the caller left out before the run (a league bot whose command cannot work at all):
/// their deals are not in the run's `deals`, and the run's end reports them with the bots left
/// out on the way.
#[derive(Clone, Debug, Default)]
pub struct LeftOut {
    /// The bots, by their place in the run's `bots`.
    pub bots: Vec<usize>,
    /// The games of their deals not played.
    pub games: u64,
}

/// A whole run.
pub struct Run {
    pub bots: Vec<BotSpec>,
    pub deals: Vec<DealPlan>,
    pub time: TimeControl,
    /// How long a bot gets to exit after its stdin closes.
    pub grace: Duration,
    pub concurrency: usize,
    pub restart: bool,
    pub show: bool,
    pub events: bool,
    pub record: Option<RecordFile>,
    pub silent: SilentBots,
    /// Bots left out before the run began.
    pub left_out: LeftOut,
    /// Print the table every this many games (0: only at the end).
    pub table_every: u64,
}

/// A bot that never answered `start`, with what the first game saw of it.
#[derive(Clone, Debug)]
pub struct SilentBot {
    pub bot: usize,
    pub fault: FaultRecord,
}

/// How a run ended.
#[derive(Debug)]
pub struct Finished {
    pub table: Table,
    /// Games played and recorded by this run.
    pub games: u64,
    pub interrupted: bool,
    pub silent: Vec<SilentBot>,
    /// Games played but not recorded (nor counted in the tallies): a bot in them had never
    /// answered `start`.
    pub not_recorded: u64,
    /// Games not played because a silent bot was left out or the run stopped early.
    pub skipped: u64,
    /// A record could not be written: the run stopped.
    pub write_error: Option<String>,
}

/// What a worker tells the main thread.
enum Report {
    /// A game ended and its record is on disk. `bots[seat]` is the run's bot in that seat.
    Played {
        record: Box<GameRecord>,
        bots: Vec<usize>,
    },
    /// A game was played but not recorded: a bot in it had never answered `start`.
    NotRecorded,
    /// Games not played (a deal with a silent bot, or the rest of a deal when the run stops).
    Skipped(u64),
    /// A bot never answered `start` in its first game.
    Silent(SilentBot),
    WriteFailed(String),
}

/// State the workers share.
struct Shared<'a> {
    run: &'a Run,
    queue: Mutex<VecDeque<usize>>,
    /// Set when the run must stop early (a silent bot in a match, a failed write).
    stop: AtomicBool,
    /// Per bot: it never answered `start` and is left out.
    silent: Vec<AtomicBool>,
    /// Per bot: it answered `start` at least once in this run.
    answered: Vec<AtomicBool>,
    /// Per bot: its silence has been reported.
    reported: Vec<AtomicBool>,
    /// Faults already explained in full on stderr (see `Watch::told`).
    told: Arc<Mutex<HashSet<String>>>,
}

impl Shared<'_> {
    fn halted(&self) -> bool {
        interrupted() || self.stop.load(Ordering::SeqCst)
    }

    fn next_deal(&self) -> Option<usize> {
        self.queue.lock().ok()?.pop_front()
    }
}

/// Plays every game of the run and returns the tallies.
pub fn run(run: &Run) -> Finished {
    let shared = Shared {
        run,
        queue: Mutex::new((0..run.deals.len()).collect()),
        stop: AtomicBool::new(false),
        silent: run.bots.iter().map(|_| AtomicBool::new(false)).collect(),
        answered: run.bots.iter().map(|_| AtomicBool::new(false)).collect(),
        reported: run.bots.iter().map(|_| AtomicBool::new(false)).collect(),
        told: Arc::default(),
    };
    let total: u64 = run.deals.iter().map(|d| d.games.len() as u64).sum();
    let mut finished = Finished {
        table: Table::new(run.bots.iter().map(|b| b.name.clone()).collect()),
        games: 0,
        interrupted: false,
        silent: Vec::new(),
        not_recorded: 0,
        skipped: 0,
        write_error: None,
    };
    let mut progress = Progress::new(total, !run.show && !run.events);
    let (tx, rx) = mpsc::channel::<Report>();
    std::thread::scope(|scope| {
        for w in 0..run.concurrency.max(1) {
            let tx = tx.clone();
            let shared = &shared;
            let spawned = std::thread::Builder::new()
                .name(format!("worker-{w}"))
                .spawn_scoped(scope, move || worker(shared, tx));
            if let Err(e) = spawned {
                crate::stderr_line!("multiversi: cannot start worker {w}: {e}");
            }
        }
        drop(tx);
        loop {
            match rx.recv_timeout(Duration::from_millis(250)) {
                Ok(Report::Played { record, bots }) => {
                    finished.table.add(&bots, &record);
                    finished.games += 1;
                    progress.game_done();
                    if run.table_every > 0 && finished.games % run.table_every == 0 {
                        let mut out = std::io::stdout().lock();
                        let _ = write!(
                            out,
                            "{}after {} games:\n{}\n",
                            clear_progress(),
                            finished.games,
                            finished.table.text()
                        )
                        .and_then(|()| out.flush());
                    }
                }
                Ok(Report::Silent(silent)) => finished.silent.push(silent),
                Ok(Report::NotRecorded) => {
                    finished.not_recorded += 1;
                    progress.skipped(1);
                }
                Ok(Report::Skipped(n)) => {
                    finished.skipped += n;
                    progress.skipped(n);
                }
                Ok(Report::WriteFailed(message)) => {
                    shared.stop.store(true, Ordering::SeqCst);
                    finished.write_error.get_or_insert(message);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => progress.tick(),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
    });
    progress.finish();
    finished.interrupted = interrupted();
    // Each shutdown swept after its bot; this catches anything left over from the whole run.
    sweep_strays(None);
    finished
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
    tx: &mpsc::Sender<Report>,
) -> bool {
    let mut silent_here = false;
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
        silent_here = true;
        match shared.run.silent {
            SilentBots::Stop => shared.stop.store(true, Ordering::SeqCst),
            SilentBots::LeaveOut => shared.silent[bot].store(true, Ordering::SeqCst),
            SilentBots::PlayOn => {}
        }
        if !shared.reported[bot].swap(true, Ordering::SeqCst) {
            let _ = tx.send(Report::Silent(SilentBot {
                bot,
                fault: fault.clone(),
            }));
        }
    }
    silent_here
}

/// One worker: takes deals until none is left or the run stops.
fn worker(shared: &Shared, tx: mpsc::Sender<Report>) {
    let run = shared.run;
    let mut watch = Watch {
        show: run.show,
        events: run.events,
        seated: Vec::new(),
        colour: Watch::colour(run.events),
        told: Arc::clone(&shared.told),
    };
    // Bots kept from the previous deal, by their place in the run's list.
    let mut kept: Vec<(usize, Player)> = Vec::new();
    while let Some(d) = shared.next_deal() {
        let deal = &run.deals[d];
        if shared.halted()
            || deal
                .bots
                .iter()
                .any(|&b| shared.silent[b].load(Ordering::SeqCst))
        {
            let _ = tx.send(Report::Skipped(deal.games.len() as u64));
            continue;
        }
        let mut players: Vec<Player> = deal
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
        shut_down(kept.drain(..).filter_map(|(_, p)| p.process), run.grace);
        let mut played = 0;
        for game in &deal.games {
            if shared.halted()
                || deal
                    .bots
                    .iter()
                    .any(|&b| shared.silent[b].load(Ordering::SeqCst))
            {
                break;
            }
            if run.restart && played > 0 {
                shut_down(
                    players.iter_mut().filter_map(|p| p.process.take()),
                    run.grace,
                );
            }
            let setup = GameSetup {
                game: game.id.clone(),
                rules: deal.rules.clone(),
                seed: Some(deal.seed),
                time: run.time,
                opening: deal.opening.clone(),
                place: Some(game.place.clone()),
            };
            watch.seated = game
                .seating
                .iter()
                .map(|&i| SeatedBot {
                    name: players[i].name.clone(),
                    log: players[i].log.as_ref().map(|l| l.path().to_path_buf()),
                    builtin: run.bots[deal.bots[i]].builtin,
                })
                .collect();
            let Ok(record) = play_game(&setup, &mut players, &game.seating, &mut watch) else {
                break;
            };
            played += 1;
            let bots: Vec<usize> = game.seating.iter().map(|&i| deal.bots[i]).collect();
            let keep =
                !check_answers(shared, &record, &bots, &tx) || run.silent == SilentBots::PlayOn;
            if let Some(file) = run.record.as_ref().filter(|_| keep) {
                if let Err(e) = file.append(&record) {
                    let _ = tx.send(Report::WriteFailed(format!(
                        "{}: cannot write game {}: {e}",
                        file.path().display(),
                        record.game
                    )));
                    break;
                }
            }
            watch.event(|| {
                json!({"type": "game_end", "game": record.game, "result": record.result,
                "scores": record.scores, "ranking": record.ranking, "rows": record.final_rows,
                "faults": record.faults.len(), "recorded": keep})
            });
            if run.show {
                watch.human(&format!(
                    "game {}: {} (scores {:?}){}\n\n",
                    record.game,
                    describe_result(&record),
                    record.scores,
                    if keep {
                        ""
                    } else {
                        "; not recorded: a bot never answered start"
                    }
                ));
            }
            let _ = tx.send(if keep {
                Report::Played {
                    record: Box::new(record),
                    bots,
                }
            } else {
                Report::NotRecorded
            });
        }
        if played < deal.games.len() {
            let _ = tx.send(Report::Skipped((deal.games.len() - played) as u64));
        }
        kept = deal.bots.iter().copied().zip(players).collect();
        if interrupted() {
            break;
        }
    }
    if interrupted() {
        // The signal handler has killed every group; dropping the players reaps them.
        return;
    }
    shut_down(kept.into_iter().filter_map(|(_, p)| p.process), run.grace);
}

/// A player for one deal; a built-in bot gets a seed drawn from the deal.
fn new_player(spec: &BotSpec, bot: usize, deal_seed: u64) -> Player {
    let mut argv = spec.argv.clone();
    if spec.builtin {
        let seed = super::schedule::mix(deal_seed, bot as u64 + 1);
        argv.extend(["--seed".to_string(), seed.to_string()]);
    }
    Player {
        name: spec.name.clone(),
        command: spec.command.clone(),
        argv,
        dir: spec.dir.clone(),
        log: spec.log.clone(),
        env: spec.env.clone(),
        process: None,
        limits: spec.limits,
    }
}

/// Ends bots politely, all at once: every stdin is closed first, so they exit in parallel.
fn shut_down(processes: impl IntoIterator<Item = BotProcess>, grace: Duration) {
    let mut processes: Vec<BotProcess> = processes.into_iter().collect();
    for p in &mut processes {
        p.close_stdin();
    }
    for p in processes {
        p.shutdown(grace);
    }
}

pub fn describe_result(record: &GameRecord) -> String {
    match record.result {
        crate::rules::Outcome::Win { winner } => format!(
            "{} ({}) wins",
            crate::text::visible(&record.seats[winner].name),
            record.seats[winner].colour
        ),
        crate::rules::Outcome::Draw => "draw".into(),
    }
}

/// Set while a progress line is drawn on the terminal: other lines on stderr clear it first.
static LIVE_PROGRESS: AtomicBool = AtomicBool::new(false);

/// What starts a line on stderr: a clearing of the progress line when one is drawn.
pub fn clear_progress() -> &'static str {
    if LIVE_PROGRESS.load(Ordering::SeqCst) {
        "\r\x1b[K"
    } else {
        ""
    }
}

/// Games done, games per second and the time left, on stderr: one line redrawn in place on a
/// terminal, a plain line every half minute otherwise (a log file of a long run).
struct Progress {
    total: u64,
    done: u64,
    skipped: u64,
    started: Instant,
    last: Instant,
    live: bool,
    plain: bool,
    drawn: bool,
}

impl Progress {
    fn new(total: u64, enabled: bool) -> Progress {
        let tty = std::io::stderr().is_terminal();
        Progress {
            total,
            done: 0,
            skipped: 0,
            started: Instant::now(),
            last: Instant::now(),
            live: enabled && tty && {
                LIVE_PROGRESS.store(true, Ordering::SeqCst);
                true
            },
            plain: enabled && !tty,
            drawn: false,
        }
    }

    fn game_done(&mut self) {
        self.done += 1;
        self.tick();
    }

    fn skipped(&mut self, n: u64) {
        self.skipped += n;
    }

    fn line(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64();
        let rate = self.done as f64 / secs.max(1e-9);
        let left = self.total.saturating_sub(self.done + self.skipped);
        let eta = if self.done > 0 {
            format_duration(left as f64 / rate)
        } else {
            "?".into()
        };
        format!(
            "{}/{} games  {:.1} games/s  ETA {eta}",
            self.done, self.total, rate
        )
    }

    fn tick(&mut self) {
        let now = Instant::now();
        if self.live && now - self.last >= Duration::from_millis(200) {
            crate::stderr_text!("\r\x1b[K{}", self.line());
            let _ = std::io::stderr().flush();
            self.drawn = true;
            self.last = now;
        } else if self.plain && now - self.last >= Duration::from_secs(30) {
            crate::stderr_line!("multiversi: {}", self.line());
            self.last = now;
        }
    }

    fn finish(&mut self) {
        if self.drawn {
            crate::stderr_text!("\r\x1b[K");
        }
        LIVE_PROGRESS.store(false, Ordering::SeqCst);
    }
}

/// `1h02m`, `3m05s`, `12s`.
pub fn format_duration(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s / 60 % 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// What a fault message says of the bot in a seat.
#[derive(Clone, Debug, Default)]
pub struct SeatedBot {
    pub name: String,
    /// Its log file, when the run keeps logs.
    pub log: Option<PathBuf>,
    /// A bot built into multiversi (`builtin:NAME`).
    pub builtin: bool,
}

/// Prints boards and events as games run.
pub struct Watch {
    pub show: bool,
    pub events: bool,
    /// Per seat of the game being played, the bot, for fault messages.
    pub seated: Vec<SeatedBot>,
    /// `--show` draws in colour (on a terminal, without `NO_COLOR`).
    pub colour: bool,
    /// Faults explained in full so far, by bot, kind and detail, shared by the run's workers: a
    /// bot that makes the same mistake in every game (debug output on stdout, say) gets its
    /// hint and stderr once and a line per later game, not a screenful each time.
    pub told: Arc<Mutex<HashSet<String>>>,
}

impl Watch {
    /// Whether `--show` draws in colour: its boards go to stdout, or to stderr with `--events`.
    pub fn colour(events: bool) -> bool {
        use std::io::IsTerminal;
        crate::replay::terminal::colour_for(if events {
            std::io::stderr().is_terminal()
        } else {
            std::io::stdout().is_terminal()
        })
    }

    /// Events go to stdout as one JSON object per line, flushed at once for live dashboards.
    /// The event is built only when events are on: this runs on every move.
    pub fn event(&self, value: impl FnOnce() -> serde_json::Value) {
        if self.events {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", value()).and_then(|()| out.flush());
        }
    }

    /// Human output goes to stdout, or to stderr when stdout carries events.
    pub fn human(&self, text: &str) {
        if self.events {
            crate::stderr_text!("{text}");
        } else {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
        }
    }
}

impl Observer for Watch {
    fn game_started(&mut self, game: &str, seats: &[SeatRecord], position: &Position) {
        self.event(|| {
            json!({"type": "game_start", "game": game, "rules": position.rules(),
            "seats": seats, "rows": position.rows()})
        });
        if self.show {
            // Drawn as replay draws it, so that what --show printed and the replay look alike.
            use crate::replay::terminal::{board_of_rows, board_text, seat_label};
            let names: Vec<String> = seats
                .iter()
                .map(|s| {
                    let name = crate::text::visible(&s.name);
                    format!("{} {name}", seat_label(s.seat, self.colour))
                })
                .collect();
            let board = board_text(&board_of_rows(&position.rows()), None, self.colour);
            self.human(&format!("game {game}: {}\n{board}\n", names.join(", ")));
        }
    }

    fn moved(&mut self, game: &str, m: &crate::record::MoveRecord, position: &Position) {
        self.event(|| {
            json!({"type": "move", "game": game, "ply": m.ply, "seat": m.seat,
            "square": m.square, "kind": m.kind, "flips": m.flips, "ms": m.ms,
            "rows": position.rows(), "scores": position.scores()})
        });
        if self.show {
            // Numbered as replay numbers moves: the move after `ply` moves is move ply + 1.
            use crate::replay::terminal::{board_of_rows, board_text, move_text};
            let name = self.seated.get(m.seat).map_or("", |b| b.name.as_str());
            let line = move_text(
                m,
                m.ply as usize + 1,
                &crate::text::visible(name),
                0,
                self.colour,
            );
            let board = board_text(&board_of_rows(&position.rows()), Some(m), self.colour);
            self.human(&format!("{line}\n{board}\n"));
        }
    }

    fn faulted(&mut self, game: &str, f: &FaultRecord, ms: Option<f64>) {
        self.event(|| json!({"type": "fault", "game": game, "fault": f, "ms": ms}));
        // Faults are always worth a message on stderr: they are why a bot lost.
        let seated = self.seated.get(f.seat).cloned().unwrap_or_default();
        let bot = crate::explain::FaultedBot {
            name: &seated.name,
            log: seated.log.as_deref(),
            builtin: seated.builtin,
        };
        let message = crate::explain::fault_message(game, &bot, f);
        let key = format!("{}\0{:?}\0{}", seated.name, f.kind, f.detail);
        let first_time = self.told.lock().map_or(true, |mut told| told.insert(key));
        if first_time {
            crate::stderr_text!("{}{message}", clear_progress());
        } else {
            let line = message.lines().next().unwrap_or_default();
            crate::stderr_text!(
                "{}{line} (the same fault as before: see the first time above)\n",
                clear_progress()
            );
        }
    }
}
