//! The exchanges: the bot under check put through each constructed position (`start`, one
//! `turn`, `end`), whole games through the referee itself, and the closing of its stdin. Each
//! failed exchange becomes a failed check with the lines sent and what came back, and the bot is
//! killed and started afresh for the next one, as the referee would; everything seen along the
//! way is kept as evidence for the verdicts (`verdicts`).

use super::ask::{ask, line_text, ms, Heard};
use super::positions::{is_placing, Scenario};
use super::report::Check;
use super::verdicts::{Evidence, EXIT};
use super::whole_games::{whole_games, WholeGame};
use crate::connection::{judge_move, judge_ready, Connection, Fault};
use crate::explain::{hint, kind_name};
use crate::process::{describe_status, interrupted, Received};
use crate::protocol::{fault_text, PlayerInfo, TimeControl, ToBot, TurnView};
use crate::record::{FaultKind, FaultRecord, GameRecord};
use crate::referee::{play_game, GameSetup, Interrupted, Observer};
use crate::rules::{Colour, Outcome, Rules, Seat, Setup};
use std::time::{Duration, Instant};

/// How long the checker listens after an `end` for output nobody asked for. A bot that answers
/// `end` does so at once; a later line is still caught by the next `start` exchange.
const AFTER_END: Duration = Duration::from_millis(30);
/// How much of the bot's stderr a failed check shows.
const STDERR_SHOWN: usize = 800;

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

/// Ignores the game's events: the record says everything the checklist needs.
struct Quiet;
impl Observer for Quiet {}

/// The checker's state: the bot and its opponents, and what the exchanges saw so far.
pub(super) struct Checker {
    pub(super) time: TimeControl,
    pub(super) grace: Duration,
    pub(super) seed: u64,
    /// `players[0]` is the bot under check; the rest are built-in opponents for whole games.
    pub(super) players: Vec<Connection>,
    /// What the exchanges saw, for the verdicts.
    pub(super) seen: Evidence,
}

impl Checker {
    pub(super) fn new(
        time: TimeControl,
        grace: Duration,
        seed: u64,
        players: Vec<Connection>,
    ) -> Self {
        Checker {
            time,
            grace,
            seed,
            players,
            seen: Evidence::default(),
        }
    }

    fn bot(&mut self) -> &mut Connection {
        &mut self.players[0]
    }

    /// Notes the bot's current process, to count how many played.
    fn note_process(&mut self) {
        if let Some(pid) = self.players[0].pid() {
            if self.seen.pids.last() != Some(&pid) {
                self.seen.pids.push(pid);
            }
        }
    }

    fn next_game(&mut self) -> String {
        self.seen.games += 1;
        format!("check-{}-{:02}", self.seed, self.seen.games)
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
        // The startup check shows the first failed start's advice, given with its stderr in view
        // (a bot that printed why it stopped did not end "without a word"), and that stderr.
        if trouble.at_start && self.seen.first_bad_start.is_none() {
            self.seen.first_bad_start = Some((check.hint.clone(), check.stderr.clone()));
        }
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
            self.seen.stray.push(format!(
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
                self.seen.left.push(format!("before game {game}"));
            }
            if let Err(e) = self.bot().ensure_started(None) {
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
                Heard::Unasked(fault) => {
                    self.seen.stray.push(format!(
                        "before the start of game {game}: {}",
                        fault.text.as_deref().unwrap_or("")
                    ));
                    Err(Trouble {
                        sent: Vec::new(),
                        ..trouble(fault)
                    })
                }
                Heard::Answer(line, ms) => match judge_ready(&line, game) {
                    Ok(_) => {
                        self.seen.ready_ms.push(ms);
                        self.seen.echoes.ready.note(&line);
                        Ok(())
                    }
                    Err(fault) => {
                        self.seen.stray.push(format!(
                            "game {game}, instead of ready: {}",
                            fault_text(&line)
                        ));
                        Err(trouble(fault))
                    }
                },
                Heard::Fault { fault, late } => {
                    match (fault.kind, late) {
                        (FaultKind::Timeout, None) => self.seen.silent_starts += 1,
                        (FaultKind::Malformed, _) => self.seen.stray.push(format!(
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
                self.seen.left.push(format!("before game {game}"));
            }
            return Ok(result.map_err(|t| self.bad_start(game, t)));
        }
        unreachable!("the second attempt starts a fresh process, whose end is not `kept`")
    }

    /// Notes a failed start (its advice and stderr are taken when it fails its check, `failed`).
    fn bad_start(&mut self, game: &str, t: Trouble) -> Trouble {
        self.seen
            .bad_starts
            .push(format!("game {game}: {}: {}", kind_name(t.kind), t.detail));
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
            // Its process exited, whoever still holds its stdout: it left all the same.
            Received::Eof | Received::Gone => {
                self.seen.left.push(format!("after game {game}"));
                self.bot()
                    .stop("check-bot: its output ended after the end of a game");
                return;
            }
            Received::Line(line, _) => fault_text(&line),
            Received::TooLong(prefix) => fault_text(&prefix),
        };
        // The line is read, so the checks go on with this process; in a match it would be
        // taken as the answer to the next `start`, and the bot disqualified.
        self.seen
            .after_end
            .push(format!("after the end of game {game}: {text}"));
        self.seen
            .stray
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
        let mut cells = Vec::new();
        position.cells_into(&mut cells);
        let (legal, kind) = position.legal_moves();
        let mut turn = Vec::new();
        TurnView {
            game: &crate::protocol::json_string(&game),
            ply: position.ply(),
            seat,
            cells: &cells,
            side: rules.side() as usize,
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
            Heard::Unasked(fault) => {
                // Written after its ready, before the turn: the turn never went out.
                self.seen.stray.push(format!(
                    "game {game}, before its turn: {}",
                    fault.text.as_deref().unwrap_or("")
                ));
                let t = Trouble {
                    sent: vec![line_text(&start)],
                    ..trouble(fault)
                };
                return Ok(self.failed(id, title, "before the turn was sent: ", t));
            }
            Heard::Fault { fault, late } => {
                match (fault.kind, late) {
                    (FaultKind::Timeout, Some(took)) => {
                        self.seen.answer_ms.push(took);
                        self.seen.late.push(format!("game {game}: {took:.0} ms"));
                    }
                    (FaultKind::Timeout, None) => {
                        self.seen.late.push(format!("game {game}: no move"))
                    }
                    (FaultKind::Malformed, _) => self.seen.stray.push(format!(
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
        self.seen.answer_ms.push(took);
        let square = match judge_move(&line, position.ply()) {
            Ok(square) => {
                self.seen.echoes.moves.note(&line);
                square
            }
            Err(fault) => {
                if fault.kind == FaultKind::Malformed {
                    self.seen.stray.push(format!(
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
            self.seen.stray.push(format!(
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
            seed: self.seed.wrapping_add(self.seen.games as u64),
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
        let (id, title) = (whole.id(), whole.title());
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
            self.seen.left.push(format!("before game {game}"));
        }
        let seat = whole.seat;
        let mine: Vec<f64> = record
            .moves
            .iter()
            .filter(|m| m.seat == seat)
            .map(|m| m.ms)
            .collect();
        self.seen.answer_ms.extend(&mine);
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
            FaultKind::Malformed => self.seen.stray.push(format!(
                "game {game} ply {}: {}",
                fault.ply,
                fault.text.as_deref().unwrap_or("")
            )),
            FaultKind::Timeout if !fault.detail.contains("ready") => self
                .seen
                .late
                .push(format!("game {game} ply {}: {}", fault.ply, fault.detail)),
            FaultKind::Timeout | FaultKind::Crash if fault.detail.contains("ready") => self
                .seen
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
        let (id, title) = ("stdin-close", EXIT);
        let mut note = "";
        let mut grace = self.grace;
        if !self.bot().is_running() {
            // Its start-up counts too: a process closed at once may not have begun to read.
            note = " (a fresh process, as the last one had ended, by itself or stopped after a \
                    failure: its start-up time is allowed too)";
            grace += Duration::from_millis(self.time.startup_ms);
            if let Err(e) = self.bot().ensure_started(None) {
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
    pub(super) fn run(&mut self, scenarios: &[Scenario]) -> Result<Vec<Check>, Interrupted> {
        let mut exchanges = Vec::new();
        for (i, scenario) in scenarios.iter().enumerate() {
            exchanges.push(self.check_position(scenario)?);
            if i == 0 && self.seen.silent_starts > 0 {
                // Not a word after `start`: nothing else can be checked.
                let why = "the bot did not answer start at all";
                return Ok(self.seen.never_ready(&self.time, exchanges, scenarios, why));
            }
            if i == 1 && self.seen.ready_ms.is_empty() && self.seen.bad_starts.len() >= 2 {
                // Its first two starts answered wrongly (a line of its own before its ready, a
                // wrong ready): every later check would fail at its start again, one mistake
                // read as twenty.
                let why = "no start was answered well (see the first check)";
                return Ok(self.seen.never_ready(&self.time, exchanges, scenarios, why));
            }
        }
        for whole in whole_games() {
            exchanges.push(self.check_game(&whole)?);
        }
        let exit = self.check_exit();
        Ok(self.seen.checklist(&self.time, exchanges, exit))
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
