//! The verdicts: what the exchanges saw (`Evidence`) judged into the checks that are about the
//! whole run (starting in time, several games in one process, silence after `end`, answer
//! times, stdout, echoes), and the checklist assembled in the order a bot meets its checks.

use super::positions::Scenario;
use super::report::{Check, Times};
use super::whole_games::whole_games;
use crate::connection::says_what_it_answers;
use crate::protocol::TimeControl;

pub(super) const SEVERAL_GAMES: &str = "plays several games in one process";
pub(super) const ECHO: &str = "says which start and turn it answers";
pub(super) const END: &str = "stays silent after end";
pub(super) const TIMES: &str = "answer times within the move limit";
pub(super) const EXIT: &str = "exits when its stdin closes";
pub(super) const STDOUT: &str = "writes only protocol lines on stdout";

/// What the exchanges saw, gathered as they go; the verdicts below judge it once they are done.
#[derive(Default)]
pub(super) struct Evidence {
    /// How many games were started, for their ids.
    pub(super) games: u32,
    /// Every `ready` in time: how long it took.
    pub(super) ready_ms: Vec<f64>,
    /// Every `start` that was not answered well: which game, what happened.
    pub(super) bad_starts: Vec<String>,
    /// Every move answered, in time or late: how long it took (a move the referee gave up on in a
    /// whole game has no time).
    pub(super) answer_ms: Vec<f64>,
    /// Every move that came too late or not at all.
    pub(super) late: Vec<String>,
    /// Output that is not a protocol line the referee could take: where, what.
    pub(super) stray: Vec<String>,
    /// Lines written after an `end`.
    pub(super) after_end: Vec<String>,
    /// Games after which the bot's process ended by itself.
    pub(super) left: Vec<String>,
    /// Every process of the bot that played, by pid, in order.
    pub(super) pids: Vec<u32>,
    /// How many starts got no answer at all, even well past the limit.
    pub(super) silent_starts: u32,
    /// The advice for the first failed start (such as the flush hint for a missing ready) and
    /// the end of the bot's stderr then, shown with the startup check.
    pub(super) first_bad_start: Option<(Option<String>, Option<String>)>,
    /// Which good answers said what they answer.
    pub(super) echoes: Echoes,
}

/// How many good answers of one kind carried their echo (`game` in `ready`, `ply` in `move`),
/// and how many did not.
#[derive(Default)]
pub(super) struct EchoCount {
    pub(super) with: u32,
    pub(super) without: u32,
}

impl EchoCount {
    pub(super) fn note(&mut self, line: &[u8]) {
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
pub(super) struct Echoes {
    pub(super) ready: EchoCount,
    pub(super) moves: EchoCount,
}

impl Evidence {
    /// The checklist in the order a bot meets the checks in a match: starting, the exchanges,
    /// then what the whole run showed.
    pub(super) fn checklist(
        &self,
        time: &TimeControl,
        exchanges: Vec<Check>,
        exit: Check,
    ) -> Vec<Check> {
        let mut checks = vec![self.startup_check(time)];
        checks.extend(exchanges);
        checks.push(self.several_games_check());
        checks.push(self.end_check());
        checks.push(exit);
        checks.push(self.times_check(time));
        checks.push(self.stdout_check());
        checks.push(self.echo_check());
        checks
    }

    /// The checklist of a bot that never answered a `start` well: that failure, the checks
    /// `done` (of the first scenarios), and every other check not checked, for `why`. Output it
    /// wrote is still judged: a bot that writes a line of its own before its `ready` has made
    /// that very mistake.
    pub(super) fn never_ready(
        &self,
        time: &TimeControl,
        mut done: Vec<Check>,
        scenarios: &[Scenario],
        why: &str,
    ) -> Vec<Check> {
        let mut checks = vec![self.startup_check(time)];
        let from = done.len();
        checks.append(&mut done);
        let skipped = |id: &str, title: &str| Check::not_checked(id, title, why);
        for s in scenarios.iter().skip(from) {
            checks.push(skipped(&s.id, &s.title));
        }
        for whole in whole_games() {
            checks.push(skipped(&whole.id(), &whole.title()));
        }
        // Closing the input of a bot that never answered, or looking at output it never wrote,
        // proves nothing about it: these are not checked either, rather than passed.
        checks.push(skipped("several-games", SEVERAL_GAMES));
        checks.push(skipped("end", END));
        checks.push(skipped("stdin-close", EXIT));
        checks.push(skipped("times", TIMES));
        // Output it wrote fails the check; no output at all, from a bot that never got as far
        // as a ready, passes nothing.
        checks.push(match self.stray.is_empty() {
            true => skipped("stdout", STDOUT),
            false => self.stdout_check(),
        });
        checks.push(skipped("echo", ECHO));
        checks
    }

    fn startup_check(&self, time: &TimeControl) -> Check {
        let (id, title) = ("startup", "starts and says ready in time");
        let limit = time.startup_ms;
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
            if let Some((hint, stderr)) = &self.first_bad_start {
                check.hint = hint.clone();
                check.stderr = stderr.clone();
            }
            return check;
        }
        let first = self.ready_ms.first().copied().unwrap_or(0.0);
        let slowest = self.ready_ms.iter().copied().fold(0.0, f64::max);
        Check::pass(
            id,
            title,
            format!(
                "first ready after {first:.1} ms, slowest {slowest:.1} ms, of {} starts timed \
                 one by one (limit {limit} ms)",
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

    fn times_check(&self, time: &TimeControl) -> Check {
        let limit = time.move_ms;
        let figures = match Times::of(&self.answer_ms, limit) {
            Some(t) => format!(
                "{} answers: p50 {:.2} ms, p99 {:.2} ms, slowest {:.2} ms ({:.0}% of the {limit} ms limit)",
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
                        "{} turns answered late or not at all (the first: {first}); {figures}",
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
            // Whole games are judged by the referee, which counts no echo: say which moves.
            moves.missing("moves of the position checks", "ply"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if missing.is_empty() {
            let ready = match ready.with {
                0 => "no ready to judge".to_string(),
                n => format!("every ready carries the game of its start ({n})"),
            };
            let moves = match moves.with {
                0 => "no move of a position check to judge".to_string(),
                n => format!("every move carries the ply of its turn ({n} in the position checks)"),
            };
            return Check::pass("echo", ECHO, format!("{ready}; {moves}"));
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
        match self.stray.first() {
            Some(first) => {
                let mut check = Check::fail(
                    "stdout",
                    STDOUT,
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
                STDOUT,
                "only ready and move lines, when asked".into(),
            ),
        }
    }
}
