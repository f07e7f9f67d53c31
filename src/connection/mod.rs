//! The bot connection: one bot as the run starts it, and the one place where what it sent (or
//! did not send) is judged. The referee and `check-bot` both talk to bots only through here, so
//! that check-bot predicts exactly what a match will do with a bot: the same deadlines, the same
//! line cap, the same parser, the same words for each fault.
//!
//! Below it is the transport: a local process (`crate::process::BotProcess`) or a network
//! connection to a bot on its owner's machine (`crate::remote::RemoteBot`). Nothing above this
//! module touches either; both are read through the same `crate::process::Wire`, so a remote
//! bot's lines meet the same cap and deadlines, and are judged here by the same functions,
//! with the same fault kinds. Only the words differ where the transport does: a connection
//! that broke is told from a bot that ended, and a remote bot's timeout says that the time
//! was measured at the referee, network included.
//!
//! What it does not decide: whether a move is legal (the rules' one legality gate,
//! `Position::play`, does), and what a fault costs (the referee's policy).

use crate::limits::Limits;
use crate::process::{describe_status, BotLog, BotProcess, Received, Wire};
use crate::protocol::{fault_text, parse_reply, truncate, Reply, MAX_LINE_BYTES};
use crate::record::{FaultKind, ReadyInfo};
use crate::remote::{RemoteBot, RemoteRef};
use crate::rules::Square;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

/// How much of a faulty bot's stderr goes into its fault record.
pub const STDERR_TAIL_CHARS: usize = 2000;

/// How to start one bot: the one description of a bot every layer uses, from the line-up of a
/// run (`crate::run::lineup`) to the referee.
#[derive(Clone, Debug)]
pub struct BotSpec {
    pub name: String,
    /// The command as recorded: the user's words, split (or `builtin:NAME`).
    pub command: Vec<String>,
    /// The argument list started; for a built-in bot in a run, without the `--seed` each deal
    /// adds.
    pub argv: Vec<String>,
    pub builtin: bool,
    pub dir: Option<PathBuf>,
    pub env: Vec<(String, String)>,
    /// Its log (stderr, notes, protocol lines), if the run keeps logs: opened once, shared by
    /// all its processes.
    pub log: Option<BotLog>,
    /// OS limits and environment it runs under.
    pub limits: Limits,
    /// A bot over the network: the lobby it connects to, instead of a command to start.
    pub remote: Option<RemoteRef>,
}

/// A fault as the connection judges it: its kind, the detail in the referee's words (which
/// `crate::explain` recognises to give a hint), and the offending text, if any. The referee adds
/// the seat, the ply and the bot's stderr when it records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub detail: String,
    pub text: Option<String>,
}

impl Fault {
    pub fn new(kind: FaultKind, detail: impl Into<String>, text: Option<String>) -> Fault {
        Fault {
            kind,
            detail: detail.into(),
            text,
        }
    }

    fn malformed(detail: impl Into<String>, line: &[u8]) -> Fault {
        Fault::new(FaultKind::Malformed, detail, Some(fault_text(line)))
    }
}

/// What a bot sent in answer to a turn, read from the wire: a square name that the rules judge
/// next, or a fault.
pub type MoveAnswer = Result<Square, Fault>;

/// How a running bot is reached.
enum Transport {
    Local(BotProcess),
    Remote(RemoteBot),
}

impl Transport {
    fn wire(&self) -> &Wire {
        match self {
            Transport::Local(p) => p.wire(),
            Transport::Remote(r) => r.wire(),
        }
    }

    fn wire_mut(&mut self) -> &mut Wire {
        match self {
            Transport::Local(p) => p.wire_mut(),
            Transport::Remote(r) => r.wire_mut(),
        }
    }

    fn log_note(&self, note: &str) {
        self.wire().log_note(note);
    }

    /// Whether the bot has ended: a process that exited (not reaped), a connection closed.
    fn ended(&mut self) -> bool {
        match self {
            Transport::Local(p) => p.try_status().is_some(),
            Transport::Remote(r) => r.ended(),
        }
    }

    /// How a local bot ended, in words for its log (` (exit code 3)`), waiting up to `wait` for
    /// it to exit; empty if it runs on, and for a remote bot.
    fn exit_words(&mut self, wait: Duration) -> String {
        match self {
            Transport::Local(p) => p.wait_exit(wait).map_or(String::new(), |s| {
                format!(" ({})", describe_status(Some(s)))
            }),
            Transport::Remote(_) => String::new(),
        }
    }

    /// Ends it at once: a process group killed, a connection cut.
    fn kill(self) {
        match self {
            Transport::Local(p) => {
                p.kill();
            }
            Transport::Remote(mut r) => r.disconnect(),
        }
    }

    fn local(&self) -> Option<&BotProcess> {
        match self {
            Transport::Local(p) => Some(p),
            Transport::Remote(_) => None,
        }
    }

    fn local_mut(&mut self) -> Option<&mut BotProcess> {
        match self {
            Transport::Local(p) => Some(p),
            Transport::Remote(_) => None,
        }
    }
}

/// One bot of a run: how to start it and, while it runs, its process or connection.
pub struct Connection {
    pub spec: BotSpec,
    /// None before the first start and after a fault.
    process: Option<Transport>,
    /// The last line written to the running process, byte for byte: what `check-bot` shows as
    /// sent for a failed exchange inside a game the referee played (a rebuilt line would differ).
    last_sent: Vec<u8>,
}

impl Connection {
    pub fn new(spec: BotSpec) -> Connection {
        Connection {
            spec,
            process: None,
            last_sent: Vec::new(),
        }
    }

    /// Whether the bot, a local one still running, wrote to its stderr faster than the referee
    /// reads it at some time since `since`, and so waited on it.
    pub fn stderr_held_back_since(&self, since: Instant) -> bool {
        self.process
            .as_ref()
            .and_then(Transport::local)
            .is_some_and(|p| p.stderr_held_back_since(since))
    }

    /// Whether the bot plays over the network.
    pub fn is_remote(&self) -> bool {
        self.spec.remote.is_some()
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    pub fn is_running(&self) -> bool {
        self.process.is_some()
    }

    /// The process id of the running bot, to tell one process from the next.
    pub fn pid(&self) -> Option<u32> {
        self.process
            .as_ref()
            .and_then(Transport::local)
            .map(BotProcess::pid)
    }

    /// Starts the bot if it is not running (first game, or after a fault stopped it). A bot kept
    /// alive that exited between games is started afresh, like one that faulted. A remote bot
    /// is "started" by taking one of its waiting connections, waiting for one up to the
    /// lobby's limit (see `crate::remote::Remotes::take`). `before_game`, the game about to
    /// start, is named in the log's note of such a restart. True when the bot had been running
    /// and had ended by itself, and so was started again (a record notes it); false when it was
    /// still running or had not been running.
    pub fn ensure_started(&mut self, before_game: Option<&str>) -> std::io::Result<bool> {
        let mut restarted = false;
        if let Some(mut process) = self.process.take() {
            if !process.ended() {
                self.process = Some(process);
            } else {
                restarted = true;
                // The game is named where it is known: two games of one bot may write to its
                // log at once.
                let before = before_game.map_or(String::new(), |g| format!(", before game {g}"));
                // How it exited: the record says only that it was started again, and a crash
                // after `end` costs it nothing, so its log is where its author learns of one.
                let how = process.exit_words(Duration::ZERO);
                process.log_note(&match process {
                    Transport::Local(_) => {
                        format!("exited between games{how}{before}: starting it again")
                    }
                    Transport::Remote(_) => {
                        format!(
                            "closed its connection between games{before}: taking a new connection"
                        )
                    }
                });
                process.kill();
            }
        }
        if self.process.is_none() {
            // A new process has been sent nothing yet.
            self.last_sent.clear();
            self.process = Some(match &self.spec.remote {
                Some(remote) => {
                    Transport::Remote(remote.remotes.take(remote.bot, self.spec.log.clone())?)
                }
                None => Transport::Local(BotProcess::spawn_limited(
                    &self.spec.argv,
                    self.spec.dir.as_deref(),
                    &self.spec.env,
                    self.spec.log.clone(),
                    &self.spec.limits,
                )?),
            });
        }
        Ok(restarted)
    }

    /// Whether the running bot has exited (not reaped: see `BotProcess::try_status`), or its
    /// connection closed.
    pub fn has_exited(&mut self) -> bool {
        self.process.as_mut().is_some_and(Transport::ended)
    }

    /// How the running bot ended, in words for a note in its log (` (exit code 3)`), waiting up
    /// to `wait` for it to exit: a bot whose output has just ended is usually exiting. Empty if
    /// it runs on, and for a remote bot.
    pub fn exit_words(&mut self, wait: Duration) -> String {
        self.process
            .as_mut()
            .map_or(String::new(), |p| p.exit_words(wait))
    }

    /// Stops the running bot at once (its group is killed), noting why in its log.
    pub fn stop(&mut self, note: &str) {
        if let Some(process) = self.process.take() {
            process.log_note(note);
            process.kill();
        }
    }

    /// A new game begins for this bot: its log notes it, and a per-game CPU limit starts afresh.
    pub fn begin_game(&mut self, note: &str) {
        if let Some(p) = self.process.as_mut() {
            p.log_note(note);
            if let Some(p) = p.local_mut() {
                p.begin_game_limits();
            }
        }
    }

    /// Writes a message line to the bot (never blocks: what the pipe does not take waits).
    pub fn send(&mut self, line: &[u8]) {
        if let Some(p) = self.process.as_mut() {
            p.wire_mut().send(line);
            self.last_sent.clear();
            self.last_sent.extend_from_slice(line);
        }
    }

    /// How many of the bytes sent to the bot's process it has not read, where the transport can
    /// tell (a pipe: see `Wire::unread_input`).
    pub fn unread_input(&self) -> Option<usize> {
        self.process.as_ref().and_then(|p| p.wire().unread_input())
    }

    /// The last line sent to the bot's latest process, as sent (empty if it was sent nothing).
    /// Kept after a fault stops the process, so that the exchange that failed can be shown.
    pub fn last_sent(&self) -> &[u8] {
        &self.last_sent
    }

    /// Whether reading would return at once: a line, an over-long line, or the end of output.
    /// A bot that is not running has nothing more to say, which counts as news.
    pub fn has_news(&self) -> bool {
        self.process
            .as_ref()
            .map_or(true, |p| p.wire().has_news(MAX_LINE_BYTES))
    }

    /// Reads what the bot has written so far, without waiting (see `Wire::read_now`).
    pub fn read_now(&mut self) {
        if let Some(p) = self.process.as_mut() {
            p.wire_mut().read_now();
        }
    }

    /// Whether the bot has written anything that reading would return now (a running bot only).
    pub fn has_output(&self) -> bool {
        self.process
            .as_ref()
            .is_some_and(|p| p.wire().has_news(MAX_LINE_BYTES))
    }

    /// What a bot kept alive from the last game has written since, when it owed nothing: a
    /// `malformed` fault for the game about to start. The end of its output is not a fault: the
    /// bot is started afresh for the new game.
    pub fn between_games(&mut self) -> Option<Fault> {
        let p = self.process.as_mut()?.wire_mut();
        p.poll_now();
        if !p.has_news(MAX_LINE_BYTES) || p.output_ended() {
            return None;
        }
        let (detail, text) = match p.recv_line(Instant::now(), MAX_LINE_BYTES) {
            Received::Line(line, _) => ("sent a line between games", fault_text(&line)),
            Received::TooLong(prefix) => {
                ("sent an over-long line between games", fault_text(&prefix))
            }
            // An end is not a fault between games: `ensure_started` starts the bot afresh.
            Received::Eof | Received::Gone | Received::Timeout => return None,
        };
        Some(Fault::new(
            FaultKind::Malformed,
            format!("{detail}, when no reply was due"),
            Some(text),
        ))
    }

    /// Whether `unasked` would find a fault now: a line, an over-long line, the end of the
    /// output, or bytes without their newline.
    pub fn has_unasked(&self) -> bool {
        self.has_output() || !self.partial_line().is_empty()
    }

    /// The bytes read that do not form a line yet (none for a bot that is not running).
    fn partial_line(&self) -> &[u8] {
        self.process
            .as_ref()
            .map_or(&[][..], |p| p.wire().partial_line())
    }

    /// What the bot wrote while it owed nothing (a second answer, a move before its turn, a
    /// line after `end`, even part of one), or the end of its output then: the fault, judged
    /// without waiting. None when it has written nothing.
    pub fn unasked(&mut self) -> Option<Fault> {
        if !self.has_output() {
            // Bytes without their newline are output too: left for later, they would be read as
            // the start of the bot's next answer, and judged there, a turn late.
            let partial = self.partial_line();
            if partial.is_empty() {
                return None;
            }
            return Some(Fault::malformed(
                format!(
                    "sent {} byte(s) of a line, without its newline, when no reply was due",
                    partial.len()
                ),
                partial,
            ));
        }
        let p = self.process.as_mut()?.wire_mut();
        Some(match p.recv_line(Instant::now(), MAX_LINE_BYTES) {
            Received::Line(line, _) => Fault::malformed("sent a line when no reply was due", &line),
            Received::TooLong(prefix) => Fault::malformed(
                format!("sent a line longer than {MAX_LINE_BYTES} bytes when no reply was due"),
                &prefix,
            ),
            Received::Eof | Received::Timeout => Fault::new(
                FaultKind::Crash,
                format!("{} when no reply was due", self.describe_end()),
                None,
            ),
            Received::Gone => {
                let status = self.exit_status_behind_helper();
                self.crash_behind_helper(status, " when no reply was due")
            }
        })
    }

    /// Reads the answer owed by `deadline` to a message (`what`: `ready` or `move`) whose limit
    /// was `limit_ms`: the line and when it arrived, or the fault if none came in time.
    pub fn answer(
        &mut self,
        deadline: Instant,
        limit_ms: u64,
        what: &str,
    ) -> Result<(Vec<u8>, Instant), Fault> {
        let received = self.receive(deadline);
        self.judge_received(received, deadline, limit_ms, what)
    }

    /// Waits for the next line until `deadline`, unjudged (see `judge_received`). A bot that is
    /// not running has ended its output.
    pub fn receive(&mut self, deadline: Instant) -> Received {
        match self.process.as_mut() {
            Some(p) => p.wire_mut().recv_line(deadline, MAX_LINE_BYTES),
            None => Received::Eof,
        }
    }

    /// Turns what waiting produced into the answer or the matching fault. A line that came
    /// after the deadline is a timeout, with the line as its text.
    pub fn judge_received(
        &mut self,
        received: Received,
        deadline: Instant,
        limit_ms: u64,
        what: &str,
    ) -> Result<(Vec<u8>, Instant), Fault> {
        match received {
            Received::Line(line, at) if at <= deadline => Ok((line, at)),
            Received::Line(line, _) => Err(Fault::new(
                FaultKind::Timeout,
                format!("the {what} arrived after the {limit_ms} ms limit"),
                Some(fault_text(&line)),
            )),
            Received::Timeout => {
                // A bot that died while a helper of its own still holds its stdout open shows
                // no end of output: its silence is a crash, and the record says so. It is
                // noticed here, at the deadline, only where the kernel has no pidfd to tell
                // of the exit at once (`Received::Gone`).
                let local = self.process.as_mut().and_then(Transport::local_mut);
                match local.and_then(|p| p.try_status()) {
                    Some(status) => Err(self.crash_behind_helper(Some(status), "")),
                    None if self.is_remote() => Err(Fault::new(
                        FaultKind::Timeout,
                        format!(
                            "no {what} within {limit_ms} ms (a remote bot: the time is measured \
                             at the referee, network included, and its connection is still open)"
                        ),
                        None,
                    )),
                    None => {
                        // A bot that floods its stderr waits on it once the referee reads it at
                        // the flood rate: said when it still did at the deadline, since that is
                        // then most likely why it is late.
                        let flood = self
                            .process
                            .as_ref()
                            .and_then(Transport::local)
                            .is_some_and(|p| p.stderr_held_back_at(deadline));
                        let flood = if flood {
                            format!(
                                "; at its deadline it was writing to its stderr faster than the \
                                 referee reads it ({} MiB a second), and waiting on it",
                                crate::process::STDERR_RATE_MIB
                            )
                        } else {
                            String::new()
                        };
                        // Half a line is not an answer, but it tells a bot that forgot its
                        // newline (or to flush it) from one that never answered.
                        let partial = self.partial_line();
                        let broken = self
                            .process
                            .as_ref()
                            .is_some_and(|p| p.wire().input_broken());
                        if partial.is_empty() {
                            // A bot that closed its stdin still runs, but can read nothing more.
                            let closed = if broken {
                                "; it had closed its stdin, so what it was sent could not be \
                                 written to it"
                            } else {
                                ""
                            };
                            Err(Fault::new(
                                FaultKind::Timeout,
                                format!("no {what} within {limit_ms} ms{closed}{flood}"),
                                None,
                            ))
                        } else {
                            Err(Fault::new(
                                FaultKind::Timeout,
                                format!(
                                    "no {what} within {limit_ms} ms; {} byte(s) of a line came \
                                     without the newline that ends every message{flood}",
                                    partial.len()
                                ),
                                Some(fault_text(partial)),
                            ))
                        }
                    }
                }
            }
            Received::TooLong(prefix) => Err(Fault::malformed(
                format!("a line longer than {MAX_LINE_BYTES} bytes"),
                &prefix,
            )),
            Received::Eof => Err(Fault::new(FaultKind::Crash, self.describe_end(), None)),
            Received::Gone => {
                let status = self.exit_status_behind_helper();
                Err(self.crash_behind_helper(status, ""))
            }
        }
    }

    /// Waits for a line until `until` without judging it: `check-bot` listens past a limit only
    /// to tell a late answer (and how late) from none. Not for the referee, which has judged.
    pub fn late_line(&mut self, until: Instant) -> Option<(Vec<u8>, Instant)> {
        match self.receive(until) {
            Received::Line(line, at) => Some((line, at)),
            _ => None,
        }
    }

    /// Whether the bot ran out of its CPU allowance and caught `SIGXCPU`: an answer it gives
    /// after that is void.
    pub fn cpu_limit_reached(&self, line: &[u8]) -> Option<Fault> {
        self.process
            .as_ref()
            .and_then(Transport::local)
            .is_some_and(BotProcess::cpu_limit_reached)
            .then(|| {
                Fault::new(
                    FaultKind::Crash,
                    "answered after its CPU time was up (it caught SIGXCPU)",
                    Some(fault_text(line)),
                )
            })
    }

    /// How a bot's output ended, for a crash fault: its exit status if it exited, in a moment.
    fn describe_end(&mut self) -> String {
        if let Some(Transport::Remote(r)) = &self.process {
            return r.describe_end();
        }
        let status = self
            .process
            .as_mut()
            .and_then(Transport::local_mut)
            .and_then(|p| p.wait_exit(Duration::from_millis(200)));
        match status {
            Some(_) => format!("exited ({})", describe_status(status)),
            None => "closed its output".into(),
        }
    }

    /// How a bot that exited while its stdout stays open ended. Its exit was seen
    /// (`Received::Gone`), so its status is there; it is not reaped (see
    /// `BotProcess::try_status`).
    fn exit_status_behind_helper(&mut self) -> Option<ExitStatus> {
        self.process
            .as_mut()
            .and_then(Transport::local_mut)
            .and_then(|p| p.wait_exit(Duration::from_millis(200)))
    }

    /// The crash of a bot that exited while a process it started holds its stdout open, `when`
    /// it was noticed: how it ended, and the part of a line it had written and never ended,
    /// which is not an answer (its output has not ended: a line is ended by its newline or by
    /// the end of the output) but may say what went wrong.
    fn crash_behind_helper(&self, status: Option<ExitStatus>, when: &str) -> Fault {
        let exited = format!(
            "exited ({}) while a process it started still holds its stdout open{when}",
            describe_status(status)
        );
        let partial = self.partial_line();
        if partial.is_empty() {
            return Fault::new(FaultKind::Crash, exited, None);
        }
        Fault::new(
            FaultKind::Crash,
            format!(
                "{exited}; {} byte(s) of a line came without the newline that ends every message",
                partial.len()
            ),
            Some(fault_text(partial)),
        )
    }

    /// The game ended while the bot was thinking: its answer is no longer wanted, but is still
    /// on its way. It is awaited until `deadline` and dropped, so that it is not taken for the
    /// answer to the next game's `start`; a bot that does not answer by then is stopped, to be
    /// started afresh for the next game.
    pub fn drop_late_answer(&mut self, deadline: Instant) {
        let Some(p) = self.process.as_mut() else {
            return;
        };
        match p.wire_mut().recv_line(deadline, MAX_LINE_BYTES) {
            Received::Line(..) => {
                p.log_note("answered after the game had ended: the answer is ignored");
            }
            _ => self.stop("no answer after the game had ended: stopping it"),
        }
    }

    /// The sanction's part that touches the bot: its group is killed, its stderr collected, and
    /// a crash or timeout that a limit explains says so. Returns the detail (with the limit
    /// named, if one explains it) and the end of its stderr (`tail_chars` at most).
    pub fn disqualify(
        &mut self,
        kind: FaultKind,
        detail: String,
        note: &str,
        tail_chars: usize,
    ) -> (String, String) {
        let mut p = match self.process.take() {
            None => return (detail, String::new()),
            Some(Transport::Remote(mut r)) => {
                // Its stderr stays on its owner's machine; the connection is cut.
                r.log_note(note);
                r.disconnect();
                return (detail, String::new());
            }
            Some(Transport::Local(p)) => p,
        };
        // How it ended before the kill, for the limit it may have run into.
        let status = p.try_status();
        p.log_note(note);
        // Kill the group first, and the helpers that left it: its stderr then ends at once and
        // the tail is complete. A helper left alive would hold the stderr open, and the wait
        // for its end would last its whole 200 ms at every such fault.
        p.signal_kill();
        p.sweep_helpers();
        p.settle_stderr(Duration::from_millis(200));
        let tail = p.stderr_tail(tail_chars);
        let detail = if matches!(kind, FaultKind::Crash | FaultKind::Timeout) {
            p.explain_limit(detail, status, &tail)
        } else {
            detail
        };
        p.kill();
        (detail, tail)
    }

    /// Closes the bot's stdin: a bot that reads it to the end then exits by itself.
    pub fn close_input(&mut self) {
        match self.process.as_mut() {
            Some(Transport::Local(p)) => p.close_stdin(),
            Some(Transport::Remote(r)) => r.finish_input(),
            None => {}
        }
    }

    /// Waits up to `grace` for the bot to exit by itself; its status if it did. The process is
    /// kept (see `stop`, `shut_down_all`). A remote bot has no status here.
    pub fn wait_exit(&mut self, grace: Duration) -> Option<ExitStatus> {
        self.process.as_mut()?.local_mut()?.wait_exit(grace)
    }

    /// Kills the bot's group now, without reaping it: its stderr ends at once.
    pub fn signal_kill(&self) {
        if let Some(p) = self.process.as_ref().and_then(Transport::local) {
            p.signal_kill();
        }
    }

    /// The end of the bot's stderr, after waiting up to 200 ms for it to end (a remote bot's
    /// stderr stays on its owner's machine).
    pub fn stderr_tail(&self, max: usize) -> String {
        match self.process.as_ref().and_then(Transport::local) {
            Some(p) => {
                p.settle_stderr(Duration::from_millis(200));
                p.stderr_tail(max)
            }
            None => String::new(),
        }
    }
}

/// Ends bots politely, all at once, each with the whole `grace` from the moment their input
/// ends (see `crate::process::shutdown_all`); a remote bot's client has until the same moment
/// to close its side.
pub fn shut_down_all<'a>(bots: impl IntoIterator<Item = &'a mut Connection>, grace: Duration) {
    let mut local = Vec::new();
    let mut remote = Vec::new();
    for bot in bots {
        match bot.process.take() {
            Some(Transport::Local(p)) => local.push(p),
            Some(Transport::Remote(mut r)) => {
                r.finish_input();
                remote.push(r);
            }
            None => {}
        }
    }
    let closed_by = Instant::now() + grace;
    crate::process::shutdown_all(local, grace);
    for mut r in remote {
        r.wait_closed(closed_by.saturating_duration_since(Instant::now()));
    }
}

/// Waits up to `wait` until one of the bots `players[i]`, for each `i` in `indices`, has output
/// (or takes pending input), and reads and writes what it can for every one of them.
/// `Duration::ZERO` only looks. A bot that is not running is skipped.
pub fn wait_among(players: &mut [Connection], indices: &[usize], wait: Duration) {
    crate::process::wait_among(
        players,
        indices,
        |bot| bot.process.as_mut().map(Transport::wire_mut),
        wait,
    );
}

/// The answer to the `start` of game `game`: the bot's `ready`, or the fault. A `ready` that says
/// it answers another game's start (its `game` echo) is malformed: it is a late answer to an
/// earlier start, whatever its timing.
pub fn judge_ready(line: &[u8], game: &str) -> Result<ReadyInfo, Fault> {
    match parse_reply(line) {
        Ok(Reply::Ready {
            game: Some(answered),
            ..
        }) if answered != game => Err(Fault::malformed(
            format!(
                "answered the start of game {}, not the one of game {}: an answer to another \
                 game's start",
                truncate(&answered, 40),
                truncate(game, 40)
            ),
            line,
        )),
        Ok(Reply::Ready { name, version, .. }) => Ok(ReadyInfo { name, version }),
        Ok(Reply::Move { .. } | Reply::UnknownSquare { .. }) => Err(Fault::malformed(
            "expected a ready message, got a move",
            line,
        )),
        Err(e) => Err(Fault::malformed(e, line)),
    }
}

/// The answer to the `turn` at `ply`, read from the wire: a square name (for the rules to
/// judge), or the fault. A square name that names no square at all is an illegal move, not a
/// malformed line. A move that says it answers another ply (its `ply` echo) is malformed before
/// its square is looked at: it answers an earlier turn (a second answer that came late), and
/// its square, legal or not, was never this turn's choice.
pub fn judge_move(line: &[u8], ply: u32) -> MoveAnswer {
    let (square, answered) = match parse_reply(line) {
        Ok(Reply::Move { square, ply }) => (Ok(square), ply),
        Ok(Reply::UnknownSquare { square, ply }) => (Err(square), ply),
        Ok(Reply::Ready { .. }) => {
            return Err(Fault::malformed("expected a move message, got ready", line))
        }
        Err(e) => return Err(Fault::malformed(e, line)),
    };
    if let Some(answered) = answered.filter(|&a| a != u64::from(ply)) {
        let why = if answered < u64::from(ply) {
            "an answer to an earlier turn"
        } else {
            "a ply no turn has had yet"
        };
        return Err(Fault::malformed(
            format!("answered the turn at ply {answered}, not the one at ply {ply}: {why}"),
            line,
        ));
    }
    square.map_err(|square| {
        Fault::new(
            FaultKind::Illegal,
            crate::protocol::unknown_square(&square),
            Some(fault_text(line)),
        )
    })
}

/// Whether an answer says which message it answers (`game` in a `ready`, `ply` in a `move`).
/// Not a judgement (that is `judge_ready` and `judge_move`): `check-bot` warns about a bot that
/// never says, since only the echo lets a match tell a late second answer from the next one.
pub fn says_what_it_answers(line: &[u8]) -> bool {
    matches!(
        parse_reply(line),
        Ok(Reply::Ready { game: Some(_), .. }
            | Reply::Move { ply: Some(_), .. }
            | Reply::UnknownSquare { ply: Some(_), .. })
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_for_another_ply_is_malformed_before_its_square_is_looked_at() {
        let d3: Square = "d3".parse().unwrap();
        // No echo, or the echo of this turn: judged as the square says.
        assert_eq!(judge_move(br#"{"type":"move","square":"d3"}"#, 14), Ok(d3));
        assert_eq!(
            judge_move(br#"{"type":"move","square":"d3","ply":14}"#, 14),
            Ok(d3)
        );
        let line = br#"{"type":"move","square":"d3","ply":12}"#;
        let fault = judge_move(line, 14).unwrap_err();
        assert_eq!(fault.kind, FaultKind::Malformed);
        assert_eq!(
            fault.detail,
            "answered the turn at ply 12, not the one at ply 14: an answer to an earlier turn"
        );
        assert_eq!(
            fault.text.as_deref(),
            Some(r#"{"type":"move","square":"d3","ply":12}"#)
        );
        // A square that names nothing, for an earlier turn: the stale answer is what is wrong.
        let fault = judge_move(br#"{"type":"move","square":"zz","ply":3}"#, 14).unwrap_err();
        assert_eq!(fault.kind, FaultKind::Malformed);
        // ... and for this turn it is the illegal move it always was.
        let fault = judge_move(br#"{"type":"move","square":"zz","ply":14}"#, 14).unwrap_err();
        assert_eq!(fault.kind, FaultKind::Illegal);
        let fault = judge_move(br#"{"type":"move","square":"d3","ply":15}"#, 14).unwrap_err();
        assert_eq!(
            (fault.kind, fault.detail.as_str()),
            (
                FaultKind::Malformed,
                "answered the turn at ply 15, not the one at ply 14: a ply no turn has had yet"
            )
        );
        let fault = judge_move(br#"{"type":"move","square":"d3","ply":-2}"#, 14).unwrap_err();
        assert_eq!(
            (fault.kind, fault.detail.as_str()),
            (
                FaultKind::Malformed,
                "field 'ply' must be a non-negative integer"
            )
        );
    }

    #[test]
    fn a_ready_for_another_game_is_malformed() {
        let ready = |line: &[u8]| judge_ready(line, "g-2");
        assert_eq!(
            ready(br#"{"type":"ready","name":"b"}"#).map(|r| r.name),
            Ok(Some("b".into()))
        );
        assert_eq!(
            ready(br#"{"type":"ready","name":"b","game":"g-2"}"#).map(|r| r.name),
            Ok(Some("b".into()))
        );
        let fault = ready(br#"{"type":"ready","name":"b","game":"g-1"}"#).unwrap_err();
        assert_eq!(fault.kind, FaultKind::Malformed);
        assert_eq!(
            fault.detail,
            "answered the start of game g-1, not the one of game g-2: an answer to another \
             game's start"
        );
    }

    #[test]
    fn only_an_answer_with_its_echo_says_what_it_answers() {
        assert!(says_what_it_answers(
            br#"{"type":"move","square":"d3","ply":0}"#
        ));
        assert!(says_what_it_answers(br#"{"type":"ready","game":"g"}"#));
        assert!(!says_what_it_answers(br#"{"type":"move","square":"d3"}"#));
        assert!(!says_what_it_answers(br#"{"type":"ready","name":"x"}"#));
        assert!(!says_what_it_answers(
            br#"{"type":"move","square":"d3","ply":null}"#
        ));
        assert!(!says_what_it_answers(b"not json"));
    }
}
