//! `multiversi check-bot`: before a league, a bot author learns whether the bot speaks the
//! protocol. One bot process is put through short games from constructed positions (every
//! board, 3 and 4 players, Anti-Reversi, blocked squares, only placing moves, no discs left, the
//! last empty square) and whole games from every seat against built-in `random` bots, all in one
//! process as a match would keep it; then its stdin is closed. The evidence becomes a checklist
//! (`report`): one line per check, and for a failure the exact lines sent and what came back.
//!
//! Each exchange is judged exactly as the referee judges it (same line cap, same parser, same
//! legality gate, same deadlines from the moment a message is written), because the point is to
//! predict what a match will do with the bot. Where the referee stops waiting at the limit, the
//! checker waits a little longer, only to tell a slow bot from a silent one. A bot that fails an
//! exchange is killed and started afresh for the next one, as the referee would.

mod positions;
mod report;

use crate::connection::{
    judge_move, judge_ready, says_what_it_answers, BotSpec, Connection, Fault,
};
use crate::exit::{self, fail};
use crate::explain::{hint, kind_name};
use crate::process::{
    become_subreaper, describe_status, install_signal_handlers, interrupted, Guard, Received,
};
use crate::protocol::{fault_text, PlayerInfo, TimeControl, ToBot, TurnView};
use crate::record::{FaultKind, FaultRecord, GameRecord};
use crate::referee::{play_game, GameSetup, Interrupted, Observer};
use crate::rng::Rng;
use crate::rules::{BoardKind, Colour, Outcome, Rules, Seat, Setup};
use crate::run::lineup;
use anyhow::Result;
use clap::Args;
use positions::{is_placing, Scenario};
use report::{Check, Counts, Report, Times};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct CheckBotArgs {
    /// The bot: a program and its arguments (put `--` before them), or one argument split like a
    /// BOT of `match`, or builtin:NAME.
    #[arg(
        value_name = "COMMAND",
        required = true,
        num_args = 1..,
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub command: Vec<String>,
    /// Whether COMMAND came after `--` (clap takes the `--` away; `cli` sets this from the raw
    /// command line). After `--` the words are the argument list as given, so a single word is a
    /// program, taken whole even with a space in its path, and never split like a BOT of `match`.
    #[arg(skip)]
    pub after_dashes: bool,
    /// The most one move may take, in milliseconds (as `match --move-ms`).
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub move_ms: u64,
    /// Time for the bot to answer start with ready, in milliseconds (as `match --startup-ms`).
    #[arg(long, default_value_t = 10000, value_name = "MS")]
    pub startup_ms: u64,
    /// Time the bot has to exit after its stdin is closed, in milliseconds.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub grace_ms: u64,
    /// Seed of the positions, the games and the opponents: the same seed sends the same messages.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Working directory of the bot.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Print the result as one JSON object instead of the checklist (see README).
    #[arg(long)]
    pub json: bool,
    /// The OS limits of `match` (see README, "Running unknown bots"), for the bot checked: its
    /// crashes then name the limit it ran into, as a league's records will.
    #[command(flatten)]
    pub limits: crate::limits::Limits,
}

/// How long the checker listens after an `end` for output nobody asked for. A bot that answers
/// `end` does so at once; a later line is still caught by the next `start` exchange.
const AFTER_END: Duration = Duration::from_millis(30);
/// The longest the checker keeps listening past a limit to tell a late answer from none.
const LATE_WAIT_CAP: Duration = Duration::from_millis(2000);
/// How much of the bot's stderr a failed check shows.
const STDERR_SHOWN: usize = 800;

/// What came back for one message, judged by the connection exactly as in a match.
enum Heard {
    /// A line within the limit, and how long it took.
    Answer(Vec<u8>, f64),
    /// The fault a match would record. For a timeout, `late` is the answer that came after the
    /// limit while the checker listened on (and how long it took): a slow bot, not a silent one.
    Fault { fault: Fault, late: Option<f64> },
}

/// A failed exchange: the fault the referee would record (its kind, and its detail in the
/// referee's words, which `explain::hint` recognises), and what to show besides the stderr.
struct Trouble {
    kind: FaultKind,
    detail: String,
    /// Whether it happened at `start`, before any turn.
    at_start: bool,
    sent: Vec<String>,
    got: Option<String>,
}

fn line_text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes.strip_suffix(b"\n").unwrap_or(bytes)).into_owned()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Sends one message and waits for the answer against `limit_ms` from the moment it was written,
/// as the referee does. Whatever the bot wrote before the message went out was owed to nobody:
/// a match disqualifies it for that before sending anything more, and so does the check.
fn ask(bot: &mut Connection, message: &[u8], limit_ms: u64, what: &str) -> Heard {
    if let Some(fault) = bot.unasked() {
        return Heard::Fault { fault, late: None };
    }
    bot.send(message);
    let sent = Instant::now();
    let limit = Duration::from_millis(limit_ms);
    let deadline = sent + limit;
    match bot.answer(deadline, limit_ms, what) {
        Ok((line, at)) => Heard::Answer(line, ms(at - sent)),
        Err(fault) if fault.kind == FaultKind::Timeout => {
            // Where the referee stops waiting, listen a little longer, only to tell a slow bot
            // from a silent one.
            let late = match &fault.text {
                Some(_) => Some(ms(Instant::now() - sent)),
                None => bot
                    .late_line(deadline + limit.min(LATE_WAIT_CAP))
                    .map(|(_, at)| ms(at - sent)),
            };
            Heard::Fault { fault, late }
        }
        Err(fault) => Heard::Fault { fault, late: None },
    }
}

/// The bot to check, resolved as `match` resolves a BOT (`crate::run::lineup`): `builtin:NAME`
/// runs this program's built-in bot (with `seed`), a single argument is split like a BOT of
/// `match`, and several arguments (or any after `--`: `after_dashes`) are the argument list as
/// given.
fn resolve_command(
    words: &[String],
    after_dashes: bool,
    exe: &std::path::Path,
    seed: u64,
) -> Result<BotSpec> {
    // `check-bot "python3 bot.py" --move-ms 300`: everything after the bot belongs to the bot,
    // so check-bot's own options there would be passed to it. Say where they go instead.
    if let [first, rest @ ..] = words {
        let is_option = |w: &String| {
            let name = w.split('=').next().unwrap_or(w);
            OWN_OPTIONS.contains(&name)
        };
        // After `--`, a word with a space is a program's path: what follows is its arguments.
        let a_line = first.contains([' ', '\t']) && !after_dashes;
        if a_line || first.starts_with("builtin:") {
            if let Some(option) = rest.iter().find(|w| is_option(w)) {
                return Err(fail(
                    exit::USAGE,
                    format!(
                        "{option} after the bot would be passed to the bot: put check-bot's \
                         options before it, as in: {} check-bot {} {first:?}",
                        crate::explain::program(),
                        rest.join(" ")
                    ),
                ));
            }
        }
    }
    let mut bot = lineup::from_words(words, after_dashes, Some("bot"), exe, None)
        .map_err(|e| fail(exit::USAGE, e))?;
    if bot.builtin {
        bot.argv.extend(["--seed".into(), seed.to_string()]);
    }
    Ok(bot)
}

/// check-bot's own options, recognised when given after a one-argument bot by mistake.
const OWN_OPTIONS: &[&str] = &[
    "--move-ms",
    "--startup-ms",
    "--grace-ms",
    "--seed",
    "--cwd",
    "--json",
];

/// A whole game of the checklist: the bot's seat and the game's options.
struct WholeGame {
    players: u32,
    seat: Seat,
    board: BoardKind,
    anti: bool,
    blocked_random: u32,
}

/// Whole games from every seat of a 4-player and of a 3-player table, across the boards and
/// options, so that every seat is played at least once with each player count.
fn whole_games() -> Vec<WholeGame> {
    let game = |players, seat, board, anti, blocked_random| WholeGame {
        players,
        seat,
        board,
        anti,
        blocked_random,
    };
    vec![
        game(4, 0, BoardKind::Eight, false, 0),
        game(4, 1, BoardKind::Ten, false, 0),
        game(4, 2, BoardKind::Octagon, true, 0),
        game(4, 3, BoardKind::Eight, false, 4),
        game(3, 0, BoardKind::Eight, false, 0),
        game(3, 1, BoardKind::Octagon, false, 4),
        game(3, 2, BoardKind::Eight, true, 0),
    ]
}

/// Ignores the game's events: the record says everything the checklist needs.
struct Quiet;
impl Observer for Quiet {}

/// The checker's state: the bot and its opponents, and the evidence gathered so far.
struct Checker {
    time: TimeControl,
    grace: Duration,
    seed: u64,
    /// `players[0]` is the bot under check; the rest are built-in opponents for whole games.
    players: Vec<Connection>,
    games: u32,
    /// Every `ready` in time: how long it took.
    ready_ms: Vec<f64>,
    /// Every `start` that was not answered well: which game, what happened.
    bad_starts: Vec<String>,
    /// Every move answered, in time or late: how long it took (a move the referee gave up on in a
    /// whole game has no time).
    answer_ms: Vec<f64>,
    /// Every move that came too late or not at all.
    late: Vec<String>,
    /// Output that is not a protocol line the referee could take: where, what.
    stray: Vec<String>,
    /// Lines written after an `end`.
    after_end: Vec<String>,
    /// Games after which the bot's process ended by itself.
    left: Vec<String>,
    /// Every process of the bot that played, by pid, in order.
    pids: Vec<u32>,
    /// How many starts got no answer at all, even well past the limit.
    silent_starts: u32,
    /// The advice for the first failed start (such as the flush hint for a missing ready).
    first_bad_start_hint: Option<String>,
    /// Which good answers said what they answer.
    echoes: Echoes,
}

/// How many good answers of one kind carried their echo (`game` in `ready`, `ply` in `move`),
/// and how many did not.
#[derive(Default)]
struct EchoCount {
    with: u32,
    without: u32,
}

impl EchoCount {
    fn note(&mut self, line: &[u8]) {
        if says_what_it_answers(line) {
            self.with += 1;
        } else {
            self.without += 1;
        }
    }

    /// `"3 of 13 moves carry no ply"`, or None when all did.
    fn missing(&self, what: &str, field: &str) -> Option<String> {
        (self.without > 0).then(|| {
            format!(
                "{} of {} {what} carry no {field}",
                self.without,
                self.with + self.without
            )
        })
    }
}

/// The echoes of the answers check-bot judged itself (whole games go through the referee, which
/// judges a wrong echo there as a match does).
#[derive(Default)]
struct Echoes {
    ready: EchoCount,
    moves: EchoCount,
}

impl Checker {
    fn bot(&mut self) -> &mut Connection {
        &mut self.players[0]
    }

    /// Notes the bot's current process, to count how many played.
    fn note_process(&mut self) {
        if let Some(pid) = self.players[0].pid() {
            if self.pids.last() != Some(&pid) {
                self.pids.push(pid);
            }
        }
    }

    fn next_game(&mut self) -> String {
        self.games += 1;
        format!("check-{}-{:02}", self.seed, self.games)
    }

    /// Turns a failed exchange into a failed check: the bot's stderr is collected, and the bot
    /// killed (it is started afresh for the next exchange), as the referee does. `what` says
    /// which exchange it was.
    fn failed(&mut self, id: &str, title: &str, what: &str, trouble: Trouble) -> Check {
        // The referee's sanction: the group killed, the stderr collected, a limit named.
        let (detail, stderr) = self.bot().disqualify(
            trouble.kind,
            trouble.detail,
            "check-bot: the check failed",
            STDERR_SHOWN,
        );
        let fault = FaultRecord {
            seat: 0,
            kind: trouble.kind,
            ply: u32::from(!trouble.at_start),
            detail,
            text: trouble.got,
            stderr_tail: stderr,
        };
        let mut check = Check::fail(
            id,
            title,
            format!("{what}{}: {}", kind_name(fault.kind), fault.detail),
        );
        check.hint = hint(&fault);
        check.sent = trouble.sent;
        check.got = fault.text;
        check.stderr = (!fault.stderr_tail.trim().is_empty()).then_some(fault.stderr_tail);
        check
    }

    /// Sends `start` and takes the `ready`, starting the bot first if it is not running. A bot
    /// kept from an earlier game whose output has ended is noted and started again, as the
    /// referee does.
    fn start_game(&mut self, game: &str, start: &[u8]) -> Result<Result<(), Trouble>, Interrupted> {
        let sent = vec![line_text(start)];
        let trouble = |fault: Fault| Trouble {
            kind: fault.kind,
            detail: fault.detail,
            at_start: true,
            sent: sent.clone(),
            got: fault.text,
        };
        // A bot kept from an earlier game must have said nothing since, as in a match.
        if let Some(fault) = self.bot().between_games() {
            self.stray.push(format!(
                "before game {game}: {}",
                fault.text.as_deref().unwrap_or("")
            ));
            return Ok(Err(self.bad_start(game, trouble(fault))));
        }
        let mut kept = self.bot().is_running();
        let mut left_before = false;
        for _attempt in 0..2 {
            if self.bot().has_exited() {
                kept = false;
                self.bot().stop("exited between games: starting it again");
                self.left.push(format!("before game {game}"));
            }
            if let Err(e) = self.bot().ensure_started() {
                return Ok(Err(Trouble {
                    kind: FaultKind::Crash,
                    detail: format!("could not be started: {e}"),
                    at_start: true,
                    sent: Vec::new(),
                    got: None,
                }));
            }
            let limit = self.time.startup_ms;
            // A per-game CPU limit starts afresh with each game, as in a match.
            self.bot()
                .begin_game(&format!("check-bot: game {game}: start"));
            let heard = ask(self.bot(), start, limit, "ready");
            self.note_process();
            if interrupted() {
                return Err(Interrupted);
            }
            let result = match heard {
                Heard::Fault { fault, .. } if kept && fault.kind == FaultKind::Crash => {
                    // Its output ended: it may have left after the last `end` (then a fresh
                    // process answers, as in a match), or it crashed on this `start` (then the
                    // fresh one crashes too, and that is the failure).
                    left_before = true;
                    self.bot().stop("ended between games: starting it again");
                    kept = false;
                    continue;
                }
                Heard::Answer(line, ms) => match judge_ready(&line, game) {
                    Ok(_) => {
                        self.ready_ms.push(ms);
                        self.echoes.ready.note(&line);
                        Ok(())
                    }
                    Err(fault) => {
                        self.stray.push(format!(
                            "game {game}, instead of ready: {}",
                            fault_text(&line)
                        ));
                        Err(trouble(fault))
                    }
                },
                Heard::Fault { fault, late } => {
                    match (fault.kind, late) {
                        (FaultKind::Timeout, None) => self.silent_starts += 1,
                        (FaultKind::Malformed, _) => self.stray.push(format!(
                            "game {game}, instead of ready: {}",
                            fault.text.as_deref().unwrap_or("")
                        )),
                        _ => {}
                    }
                    let mut t = trouble(fault);
                    if let Some(took) = late {
                        t.detail += &format!(" (the ready came after {took:.0} ms)");
                    }
                    Err(t)
                }
            };
            if left_before && result.is_ok() {
                self.left.push(format!("before game {game}"));
            }
            return Ok(result.map_err(|t| self.bad_start(game, t)));
        }
        unreachable!("the second attempt starts a fresh process, whose end is not `kept`")
    }

    /// Notes a failed start, and the advice for the first.
    fn bad_start(&mut self, game: &str, t: Trouble) -> Trouble {
        self.bad_starts
            .push(format!("game {game}: {}: {}", kind_name(t.kind), t.detail));
        if self.first_bad_start_hint.is_none() {
            self.first_bad_start_hint = hint(&FaultRecord {
                seat: 0,
                kind: t.kind,
                ply: 0,
                detail: t.detail.clone(),
                text: t.got.clone(),
                stderr_tail: String::new(),
            });
        }
        t
    }

    /// Listens briefly after an `end`: a line now is output nobody asked for, the end of output
    /// means the bot left.
    fn after_end(&mut self, game: &str) {
        if !self.bot().is_running() {
            return;
        }
        let text = match self.bot().receive(Instant::now() + AFTER_END) {
            Received::Timeout => return,
            Received::Eof => {
                self.left.push(format!("after game {game}"));
                self.bot()
                    .stop("check-bot: its output ended after the end of a game");
                return;
            }
            Received::Line(line, _) => fault_text(&line),
            Received::TooLong(prefix) => fault_text(&prefix),
        };
        // The line is read, so the checks go on with this process; in a match it would be
        // taken as the answer to the next `start`, and the bot disqualified.
        self.after_end
            .push(format!("after the end of game {game}: {text}"));
        self.stray
            .push(format!("after the end of game {game}: {text}"));
    }

    /// One constructed position: `start` with it, one `turn`, then `end`.
    fn check_position(&mut self, scenario: &Scenario) -> Result<Check, Interrupted> {
        let (id, title) = (scenario.id.as_str(), scenario.title.as_str());
        let game = self.next_game();
        let position = &scenario.position;
        let rules = position.rules().clone();
        let seat = scenario.seat();
        let n = rules.players as usize;
        let start = ToBot::Start {
            protocol: crate::protocol::PROTOCOL_VERSION,
            game: game.clone(),
            seat,
            colour: Colour::of_seat(seat),
            players: (0..n)
                .map(|s| PlayerInfo {
                    seat: s,
                    colour: Colour::of_seat(s),
                    name: if s == seat { "you" } else { "random" }.into(),
                })
                .collect(),
            rules: rules.clone(),
            size: rules.side(),
            rows: position.rows(),
            time: self.time,
        }
        .to_line();
        let start = if scenario.unknown_fields {
            with_unknown_fields(&start, &["rules", "time"])
        } else {
            start
        };
        if let Err(trouble) = self.start_game(&game, &start)? {
            return Ok(self.failed(id, title, "at start: ", trouble));
        }
        let rows = position.rows();
        let (legal, kind) = position.legal_moves();
        let mut turn = Vec::new();
        TurnView {
            game: &game,
            ply: position.ply(),
            seat,
            rows: &rows,
            moves: &[],
            legal: &legal,
            kind,
            time_ms: self.time.move_ms,
            clocks_ms: &vec![None; n],
            out: &[],
            last_move_ms: None,
        }
        .write_line(&mut turn);
        if scenario.unknown_fields {
            turn = with_unknown_fields(&turn, &[]);
        }
        let mut options = format!("{}, {n} players", rules.board.name());
        if rules.anti {
            options.push_str(", anti");
        }
        if !rules.blocked.is_empty() {
            options.push_str(&format!(", {} blocked", rules.blocked.len()));
        }
        let asked = format!(
            "{options}: turn at ply {} as {}, {} {} move{}",
            position.ply(),
            Colour::of_seat(seat),
            legal.len(),
            if is_placing(position) {
                "placing"
            } else {
                "flipping"
            },
            if legal.len() == 1 { "" } else { "s" }
        );
        let limit = self.time.move_ms;
        let heard = ask(self.bot(), &turn, limit, "move");
        if interrupted() {
            return Err(Interrupted);
        }
        let sent = vec![line_text(&start), line_text(&turn)];
        let trouble = |fault: Fault| Trouble {
            kind: fault.kind,
            detail: fault.detail,
            at_start: false,
            sent: sent.clone(),
            got: fault.text,
        };
        let what = format!("{asked}: ");
        let (line, took) = match heard {
            Heard::Answer(line, took) => (line, took),
            Heard::Fault { fault, late } => {
                match (fault.kind, late) {
                    (FaultKind::Timeout, Some(took)) => {
                        self.answer_ms.push(took);
                        self.late.push(format!("game {game}: {took:.0} ms"));
                    }
                    (FaultKind::Timeout, None) => self.late.push(format!("game {game}: no move")),
                    (FaultKind::Malformed, _) => self.stray.push(format!(
                        "game {game}, instead of a move: {}",
                        fault.text.as_deref().unwrap_or("")
                    )),
                    _ => {}
                }
                let mut t = trouble(fault);
                if let Some(took) = late {
                    t.detail += &format!(" (the move came after {took:.0} ms)");
                }
                return Ok(self.failed(id, title, &what, t));
            }
        };
        self.answer_ms.push(took);
        let square = match judge_move(&line, position.ply()) {
            Ok(square) => {
                self.echoes.moves.note(&line);
                square
            }
            Err(fault) => {
                if fault.kind == FaultKind::Malformed {
                    self.stray.push(format!(
                        "game {game}, instead of a move: {}",
                        fault_text(&line)
                    ));
                }
                return Ok(self.failed(id, title, &what, trouble(fault)));
            }
        };
        // A second line written with the answer: a match disqualifies the bot for it before the
        // next turn goes out, whoever's turn that is.
        if let Some(fault) = self.bot().unasked() {
            self.stray.push(format!(
                "game {game}, after its move: {}",
                fault.text.as_deref().unwrap_or("")
            ));
            let mut t = trouble(fault);
            t.detail += " (a second line after its move: one answer per turn)";
            return Ok(self.failed(id, title, &what, t));
        }
        let mut after = position.clone();
        if let Err(illegal) = after.play(square) {
            let t = trouble(Fault::new(
                FaultKind::Illegal,
                illegal.to_string(),
                Some(fault_text(&line)),
            ));
            return Ok(self.failed(id, title, &what, t));
        }
        let scores = after.scores();
        let end = ToBot::End {
            game: game.clone(),
            result: Outcome::decide(&scores, rules.anti, &after.in_game()),
            scores,
            rows: after.rows(),
            faults: Vec::new(),
        }
        .to_line();
        self.bot().send(&end);
        self.after_end(&game);
        Ok(Check::pass(
            id,
            title,
            format!("{asked} → {square} in {took:.1} ms"),
        ))
    }

    /// A whole game against built-in `random` bots, through the referee itself.
    fn check_game(&mut self, whole: &WholeGame) -> Result<Check, Interrupted> {
        let setup = Setup {
            players: whole.players,
            board: whole.board.name().into(),
            anti: whole.anti,
            blocked_random: whole.blocked_random,
            seed: self.seed.wrapping_add(self.games as u64),
            ..Setup::default()
        };
        let rules = match Rules::from_setup(&setup) {
            Ok(rules) => rules,
            Err(e) => unreachable!("check-bot's own game options are valid: {e}"),
        };
        let mut options = format!("{}, {} players", whole.board.name(), whole.players);
        if whole.anti {
            options.push_str(", anti");
        }
        if whole.blocked_random > 0 {
            options.push_str(&format!(", {} blocked", whole.blocked_random));
        }
        let id = format!("game-{}p-seat-{}", whole.players, whole.seat);
        let title = format!("whole game: seat {} of {}", whole.seat, whole.players);
        let game = self.next_game();
        let n = whole.players as usize;
        let mut order = Vec::with_capacity(n);
        let mut opponent = 1;
        for s in 0..n {
            if s == whole.seat {
                order.push(0);
            } else {
                order.push(opponent);
                opponent += 1;
            }
        }
        let before = self.bot().pid();
        let record = play_game(
            &GameSetup {
                game: game.clone(),
                rules,
                seed: Some(setup.seed),
                time: self.time,
                opening: Vec::new(),
                place: None,
            },
            &mut self.players,
            &order,
            &mut Quiet,
        )?;
        self.note_process();
        let after = self.bot().pid();
        if before.is_some() && after.is_some() && before != after {
            self.left.push(format!("before game {game}"));
        }
        let seat = whole.seat;
        let mine: Vec<f64> = record
            .moves
            .iter()
            .filter(|m| m.seat == seat)
            .map(|m| m.ms)
            .collect();
        self.answer_ms.extend(&mine);
        let others: Vec<String> = record
            .faults
            .iter()
            .filter(|f| f.seat != seat)
            .map(|f| format!("seat {} {}", f.seat, kind_name(f.kind)))
            .collect();
        let Some(fault) = record.faults.iter().find(|f| f.seat == seat) else {
            self.after_end(&game);
            let mut summary = format!(
                "{options}: played {} moves as {}, {}",
                mine.len(),
                Colour::of_seat(seat),
                describe_result(&record, seat)
            );
            if !others.is_empty() {
                summary.push_str(&format!(" (opponents faulted: {})", others.join(", ")));
            }
            return Ok(Check::pass(&id, &title, summary));
        };
        match fault.kind {
            FaultKind::Malformed => self.stray.push(format!(
                "game {game} ply {}: {}",
                fault.ply,
                fault.text.as_deref().unwrap_or("")
            )),
            FaultKind::Timeout if !fault.detail.contains("ready") => self
                .late
                .push(format!("game {game} ply {}: {}", fault.ply, fault.detail)),
            FaultKind::Timeout | FaultKind::Crash if fault.detail.contains("ready") => self
                .bad_starts
                .push(format!("game {game}: {}", fault.detail)),
            _ => {}
        }
        let mut check = Check::fail(
            &id,
            &title,
            format!(
                "{options}: {} at ply {} after {} good moves: {}",
                kind_name(fault.kind),
                fault.ply,
                mine.len(),
                fault.detail
            ),
        );
        // The line the bot failed to answer (its start or its turn), exactly as the referee
        // wrote it: the last one the connection sent to this bot.
        let last = self.players[0].last_sent();
        check.sent = (!last.is_empty())
            .then(|| line_text(last))
            .into_iter()
            .collect();
        check.got = fault.text.clone();
        check.hint = hint(fault);
        check.stderr = (!fault.stderr_tail.trim().is_empty()).then(|| {
            let tail = &fault.stderr_tail;
            let cut = tail.len().saturating_sub(STDERR_SHOWN);
            let cut = (cut..tail.len())
                .find(|&i| tail.is_char_boundary(i))
                .unwrap_or(0);
            tail[cut..].to_string()
        });
        Ok(check)
    }

    /// Closes the bot's stdin (after an `end`, as a match does) and times its exit.
    fn check_exit(&mut self) -> Check {
        let (id, title) = ("stdin-close", "exits when its stdin closes");
        let mut note = "";
        let mut grace = self.grace;
        if !self.bot().is_running() {
            // Its start-up counts too: a process closed at once may not have begun to read.
            note = " (a fresh process, as the last one was stopped after a failure: its start-up \
                    time is allowed too)";
            grace += Duration::from_millis(self.time.startup_ms);
            if let Err(e) = self.bot().ensure_started() {
                return Check::fail(id, title, format!("could not be started: {e}"));
            }
        }
        let bot = &mut self.players[0];
        bot.close_input();
        let closed = Instant::now();
        let status = bot.wait_exit(grace);
        let took = ms(closed.elapsed());
        let stderr = |bot: &Connection| {
            let tail = bot.stderr_tail(STDERR_SHOWN);
            (!tail.trim().is_empty()).then_some(tail)
        };
        let mut check = match status {
            Some(s) if s.success() => Check::pass(
                id,
                title,
                format!("exited {took:.1} ms after its stdin closed (exit code 0){note}"),
            ),
            Some(s) => {
                let mut check = Check::fail(
                    id,
                    title,
                    format!(
                        "ended {took:.1} ms after its stdin closed, but with {}{note}",
                        describe_status(Some(s))
                    ),
                );
                check.stderr = stderr(bot);
                check
            }
            None => {
                bot.signal_kill();
                let mut check = Check::fail(
                    id,
                    title,
                    format!(
                        "still running {} ms after its stdin closed{note}: a match kills it",
                        grace.as_millis()
                    ),
                );
                check.stderr = stderr(bot);
                check
            }
        };
        if !check.passed {
            check.sent = vec!["(end of input)".into()];
            check.hint = Some(
                "read stdin line by line until it ends, then exit with code 0 (Python: for line \
                 in sys.stdin: ...; C: while (fgets(...))); a match waits --grace-ms, then \
                 terminates the bot."
                    .into(),
            );
        }
        bot.stop("check-bot: its stdin was closed");
        check
    }

    /// Runs every check, in the order a bot meets them in a match, and assembles the checklist.
    fn run(&mut self, scenarios: &[Scenario]) -> Result<Vec<Check>, Interrupted> {
        let mut exchanges = Vec::new();
        for (i, scenario) in scenarios.iter().enumerate() {
            exchanges.push(self.check_position(scenario)?);
            if i == 0 && self.silent_starts > 0 {
                // Not a word after `start`: nothing else can be checked.
                return Ok(self.never_ready(exchanges, scenarios));
            }
        }
        for whole in whole_games() {
            exchanges.push(self.check_game(&whole)?);
        }
        let exit = self.check_exit();
        let mut checks = vec![self.startup_check()];
        checks.extend(exchanges);
        checks.push(self.several_games_check());
        checks.push(self.end_check());
        checks.push(exit);
        checks.push(self.times_check());
        checks.push(self.stdout_check());
        checks.push(self.echo_check());
        Ok(checks)
    }

    fn never_ready(&mut self, mut done: Vec<Check>, scenarios: &[Scenario]) -> Vec<Check> {
        let mut checks = vec![self.startup_check()];
        checks.append(&mut done);
        let skipped = |id: &str, title: &str| {
            Check::not_checked(id, title, "the bot did not answer start at all")
        };
        for s in &scenarios[1..] {
            checks.push(skipped(&s.id, &s.title));
        }
        for whole in whole_games() {
            checks.push(skipped(
                &format!("game-{}p-seat-{}", whole.players, whole.seat),
                &format!("whole game: seat {} of {}", whole.seat, whole.players),
            ));
        }
        // Closing the input of a bot that never answered, or looking at output it never wrote,
        // proves nothing about it: these are not checked either, rather than passed.
        checks.push(skipped("several-games", SEVERAL_GAMES));
        checks.push(skipped("end", END));
        checks.push(skipped("stdin-close", "exits when its stdin closes"));
        checks.push(skipped("times", TIMES));
        checks.push(skipped("stdout", "writes only protocol lines on stdout"));
        checks.push(skipped("echo", ECHO));
        checks
    }

    fn startup_check(&self) -> Check {
        let (id, title) = ("startup", "starts and says ready in time");
        let limit = self.time.startup_ms;
        if let Some(first) = self.bad_starts.first() {
            let mut check = Check::fail(
                id,
                title,
                format!(
                    "{} of {} starts failed, the first: {first}",
                    self.bad_starts.len(),
                    self.bad_starts.len() + self.ready_ms.len()
                ),
            );
            check.hint = self.first_bad_start_hint.clone();
            return check;
        }
        let first = self.ready_ms.first().copied().unwrap_or(0.0);
        let slowest = self.ready_ms.iter().copied().fold(0.0, f64::max);
        Check::pass(
            id,
            title,
            format!(
                "first ready after {first:.1} ms, slowest of {} timed starts {slowest:.1} ms \
                 (limit {limit} ms)",
                self.ready_ms.len()
            ),
        )
    }

    fn several_games_check(&self) -> Check {
        let id = "several-games";
        if let Some(first) = self.left.first() {
            let mut check = Check::fail(
                id,
                SEVERAL_GAMES,
                format!(
                    "its process ended by itself {} times, the first {first}",
                    self.left.len()
                ),
            );
            check.hint = Some(
                "after end, keep reading stdin: the next start may follow in the same process. \
                 Exit only when stdin ends (a match starts a bot that left again, at the cost of \
                 its start-up each game)."
                    .into(),
            );
            return check;
        }
        let summary = match self.pids.len() {
            1 => format!("{} games in one process", self.games),
            n => format!(
                "{} games in {n} processes: started again only after a failed check",
                self.games
            ),
        };
        Check::pass(id, SEVERAL_GAMES, summary)
    }

    fn end_check(&self) -> Check {
        match self.after_end.first() {
            Some(first) => {
                let mut check = Check::fail("end", END, format!("wrote a line {first}"));
                check.hint = Some(
                    "end takes no answer: in a match the line would be read as the answer to the \
                     next start, and the bot disqualified."
                        .into(),
                );
                check
            }
            None => Check::pass("end", END, "no output after any end".into()),
        }
    }

    fn times_check(&self) -> Check {
        let limit = self.time.move_ms;
        let figures = match Times::of(&self.answer_ms, limit) {
            Some(t) => format!(
                "{} moves: p50 {:.2} ms, p99 {:.2} ms, slowest {:.2} ms ({:.0}% of the {limit} ms limit)",
                t.answers,
                t.p50_ms,
                t.p99_ms,
                t.max_ms,
                t.max_ms * 100.0 / limit.max(1) as f64
            ),
            None => "no move answered".into(),
        };
        match self.late.first() {
            Some(first) => {
                let mut check = Check::fail(
                    "times",
                    TIMES,
                    format!(
                        "{} moves over the limit (the first: {first}); {figures}",
                        self.late.len()
                    ),
                );
                check.hint = Some(
                    "answer within the turn's time_ms with a margin for the pipes and a busy \
                     machine (the built-in bots aim at 80% of it), and flush stdout after each \
                     line."
                        .into(),
                );
                check
            }
            None if self.answer_ms.is_empty() => Check::fail("times", TIMES, figures),
            None => Check::pass("times", TIMES, figures),
        }
    }

    /// A bot whose answers do not say what they answer is not wrong by protocol version 1, so
    /// this is a warning, not a failure: but a match cannot tell its late second answer to one
    /// turn from its answer to the next, and takes the one for the other.
    fn echo_check(&self) -> Check {
        let (ready, moves) = (&self.echoes.ready, &self.echoes.moves);
        if ready.with + ready.without + moves.with + moves.without == 0 {
            return Check::not_checked("echo", ECHO, "the bot gave no good answer to judge");
        }
        let missing: Vec<String> = [
            ready.missing("ready answers", "game"),
            moves.missing("moves", "ply"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if missing.is_empty() {
            return Check::pass(
                "echo",
                ECHO,
                format!(
                    "every ready carries the game of its start, every move the ply of its turn \
                     ({} answers)",
                    ready.with + moves.with
                ),
            );
        }
        let mut check = Check::warning(
            "echo",
            ECHO,
            format!(
                "{}: a match cannot tell a late second answer from the answer to the next turn",
                missing.join(", ")
            ),
        );
        check.hint = Some(
            "echo the turn's ply in every move ({\"type\":\"move\",\"square\":\"d3\",\"ply\":14}) \
             and the start's game in every ready ({\"type\":\"ready\",\"game\":\"...\"}). \
             Without them, a second answer to one turn that arrives after the next turn was sent \
             is taken as the answer to that turn: the game records an illegal move, or plays a \
             stale move as the bot's choice, instead of the malformed answer it was \
             (protocol/PROTOCOL.md, \"Versioning\")."
                .into(),
        );
        check
    }

    fn stdout_check(&self) -> Check {
        let title = "writes only protocol lines on stdout";
        match self.stray.first() {
            Some(first) => {
                let mut check = Check::fail(
                    "stdout",
                    title,
                    format!(
                        "{} lines that were no answer, the first: {first}",
                        self.stray.len()
                    ),
                );
                check.hint = Some(
                    "stdout carries only the protocol's answers, one per start or turn; a match \
                     disqualifies a bot for any other line. Write debugging output to stderr \
                     (Python: print(..., file=sys.stderr); JavaScript: console.error)."
                        .into(),
                );
                check
            }
            None => Check::pass(
                "stdout",
                title,
                "only ready and move lines, when asked".into(),
            ),
        }
    }
}

const SEVERAL_GAMES: &str = "plays several games in one process";
const ECHO: &str = "says which start and turn it answers";
const END: &str = "stays silent after end";
const TIMES: &str = "answer times within the move limit";

fn describe_result(record: &GameRecord, seat: Seat) -> String {
    let discs = record.scores.get(seat).copied().unwrap_or(0);
    match record.result {
        Outcome::Win { winner } if winner == seat => format!("won with {discs} discs"),
        Outcome::Win { winner } => format!("{discs} discs, seat {winner} won"),
        Outcome::Draw => format!("{discs} discs, a draw"),
    }
}

/// A message line with a field no version-1 message has, at the top and at the start of the
/// objects named by `nested`, as a later protocol version may send them. Works on the line's text
/// (the referee's own serialisation) so that `type` stays first.
fn with_unknown_fields(line: &[u8], nested: &[&str]) -> Vec<u8> {
    const EXTRA: &str =
        r#""future_field":{"note":"a field of a later version","values":[1,2.5,null]}"#;
    let text = String::from_utf8_lossy(line);
    let Some(body) = text.trim_end().strip_suffix('}') else {
        return line.to_vec();
    };
    let mut out = format!("{body},{EXTRA}}}\n");
    for key in nested {
        let opening = format!("\"{key}\":{{");
        out = out.replacen(&opening, &format!("{opening}{EXTRA},"), 1);
    }
    out.into_bytes()
}

/// Runs `multiversi check-bot`.
pub fn run(args: &CheckBotArgs) -> Result<()> {
    if args.move_ms == 0 || args.startup_ms == 0 {
        return Err(fail(
            exit::USAGE,
            "--move-ms and --startup-ms must be at least 1",
        ));
    }
    args.limits
        .check(|key| format!("--limit-{}", key.replace('_', "-")))
        .map_err(|e| fail(exit::USAGE, e))?;
    if let Some(dir) = &args.cwd {
        if !dir.is_dir() {
            return Err(fail(
                exit::BAD_INPUT,
                format!("--cwd {}: not a directory", dir.display()),
            ));
        }
    }
    let exe = std::env::current_exe()
        .map_err(|e| fail(exit::BOT_START, format!("cannot find this program: {e}")))?;
    let mut rng = Rng::new(args.seed);
    let mut bot = resolve_command(&args.command, args.after_dashes, &exe, rng.next_u64())?;
    bot.dir = args.cwd.clone();
    bot.limits = args.limits;
    let argv = bot.argv.clone();
    install_signal_handlers();
    if let Err(e) = become_subreaper() {
        use std::io::Write;
        // A closed stderr is no reason to stop the check.
        let _ = writeln!(
            std::io::stderr(),
            "multiversi: cannot become a child subreaper ({e}): a helper that leaves the bot's \
             process group may outlive the check"
        );
    }
    let _guard = Guard::start(&exe, &["guard"])
        .map_err(|e| fail(exit::BOT_START, format!("cannot start the watchdog: {e}")))?;
    let mut players = vec![Connection::new(bot)];
    for i in 1..4 {
        let mut random =
            lineup::bot_spec("builtin:random", Some(&format!("random-{i}")), &exe, None)
                .map_err(|e| fail(exit::USAGE, e))?;
        random
            .argv
            .extend(["--seed".into(), rng.next_u64().to_string()]);
        players.push(Connection::new(random));
    }
    // A command that cannot be started at all is the person's error, not a failed check.
    players[0].ensure_started().map_err(|e| {
        fail(
            exit::BOT_START,
            format!("cannot start {}: {e}", args.command.join(" ")),
        )
    })?;
    let mut checker = Checker {
        time: TimeControl {
            move_ms: args.move_ms,
            clock_ms: None,
            increment_ms: 0,
            startup_ms: args.startup_ms,
        },
        grace: Duration::from_millis(args.grace_ms),
        seed: args.seed,
        players,
        games: 0,
        ready_ms: Vec::new(),
        bad_starts: Vec::new(),
        answer_ms: Vec::new(),
        late: Vec::new(),
        stray: Vec::new(),
        after_end: Vec::new(),
        left: Vec::new(),
        pids: Vec::new(),
        silent_starts: 0,
        first_bad_start_hint: None,
        echoes: Echoes::default(),
    };
    let scenarios = positions::scenarios(args.seed);
    let outcome = checker.run(&scenarios);
    for player in checker.players.iter_mut().skip(1) {
        player.shut_down(Duration::from_millis(args.grace_ms));
    }
    let Ok(checks) = outcome else {
        return Err(fail(
            exit::INTERRUPTED,
            "interrupted: the check was not finished",
        ));
    };
    let report = Report {
        command: argv,
        seed: args.seed,
        move_ms: args.move_ms,
        startup_ms: args.startup_ms,
        grace_ms: args.grace_ms,
        passed: Counts::of(&checks).all_passed(),
        counts: Counts::of(&checks),
        times: Times::of(&checker.answer_ms, args.move_ms),
        checks,
    };
    let text = if args.json {
        let mut json = serde_json::to_string(&report).unwrap_or_else(|_| "{}".into());
        json.push('\n');
        json
    } else {
        report.text()
    };
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            // A reader that went away (`check-bot ... | head`) still gets the verdict's exit
            // code, quietly.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            Err(e) => return Err(fail(exit::OUTPUT, format!("cannot write the report: {e}"))),
            Ok(()) => {}
        }
    }
    // A check that could not run is no pass: exit 1 unless every check ran and passed.
    if report.counts.all_passed() {
        Ok(())
    } else {
        Err(fail(exit::CHECK_FAILED, report.counts.verdict()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn commands_as_words_as_one_line_or_builtin() {
        let exe = Path::new("/bin/multiversi");
        let words = |ws: &[&str]| ws.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert_eq!(
            resolve_command(&words(&["python3", "my bot.py"]), true, exe, 5)
                .unwrap()
                .argv,
            words(&["python3", "my bot.py"])
        );
        assert_eq!(
            resolve_command(&words(&["python3 'my bot.py' --fast"]), false, exe, 5)
                .unwrap()
                .argv,
            words(&["python3", "my bot.py", "--fast"])
        );
        assert_eq!(
            resolve_command(&words(&["builtin:greedy"]), true, exe, 5)
                .unwrap()
                .argv,
            words(&["/bin/multiversi", "bot", "greedy", "--seed", "5"])
        );
        assert!(resolve_command(&words(&["builtin:nobody"]), false, exe, 5).is_err());
        // After `--`, one word is a program, whole: a path with a space is not split.
        assert_eq!(
            resolve_command(&words(&["/opt/my bots/bot"]), true, exe, 5)
                .unwrap()
                .argv,
            words(&["/opt/my bots/bot"])
        );
        assert_eq!(
            resolve_command(&words(&["/opt/my bots/bot"]), false, exe, 5)
                .unwrap()
                .argv,
            words(&["/opt/my", "bots/bot"])
        );
    }

    #[test]
    fn unknown_fields_at_the_top_and_inside_keep_the_type_first() {
        let line = b"{\"type\":\"start\",\"rules\":{\"players\":3},\"time\":{\"move_ms\":5}}\n";
        let out = with_unknown_fields(line, &["rules", "time"]);
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("{\"type\":\"start\",") && text.ends_with("}\n"));
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        for v in [&value, &value["rules"], &value["time"]] {
            assert_eq!(v["future_field"]["values"][1], 2.5);
        }
        assert_eq!(value["rules"]["players"], 3);
        assert_eq!(value["time"]["move_ms"], 5);
    }

    #[test]
    fn every_seat_of_both_table_sizes_plays_a_whole_game() {
        let games = whole_games();
        for players in [3, 4] {
            let mut seats: Vec<Seat> = games
                .iter()
                .filter(|g| g.players == players)
                .map(|g| g.seat)
                .collect();
            seats.sort_unstable();
            assert_eq!(seats, (0..players as usize).collect::<Vec<_>>());
        }
    }
}
