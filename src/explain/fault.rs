//! A fault put into words. A fault record says exactly what happened, for programs; this turns
//! it into what a person needs on the terminal: which bot, what it sent, the likely cause of the
//! common mistakes, and the end of its stderr. `match`, `league` and `check-bot` all explain
//! faults with it, so a bot author reads the same hint wherever the bot failed.

use crate::record::{FaultKind, FaultRecord};
use crate::rules::Colour;
use crate::text::visible;
use std::path::Path;

/// How much of what a bot sent is shown on the terminal (the record keeps more).
const SHOWN_TEXT_CHARS: usize = 120;
/// Lines of stderr shown after a crash when there is no short traceback to show whole.
const STDERR_LINES: usize = 8;
/// A Python traceback up to this many lines is shown whole.
const TRACEBACK_LINES: usize = 40;
/// Longest stderr line shown; longer ones are cut.
const STDERR_LINE_CHARS: usize = 200;

/// The kind as the record spells it: `FaultKind::as_str`, under the name its callers know.
pub fn kind_name(kind: FaultKind) -> &'static str {
    kind.as_str()
}

/// Who faulted, and where its whole stderr is kept.
pub struct FaultedBot<'a> {
    /// The bot's name in the match (as in the results table).
    pub name: &'a str,
    /// The log file with its whole stderr, when the match keeps logs (`--log-dir`).
    pub log: Option<&'a Path>,
    /// A built-in bot: its faults are not a bot author's mistakes.
    pub builtin: bool,
    /// A bot over the network: its log holds the referee's notes, not its stderr.
    pub remote: bool,
    /// Its log's cap in bytes, when the log had reached it: it then holds the start of its
    /// stderr, not the whole.
    pub log_full: Option<u64>,
}

/// The message printed on stderr when a bot is disqualified: a first line that names the game,
/// the bot, its seat, the ply and the fault kind with the record's detail, then indented lines
/// with what was received, a hint at the likely cause, the end of the bot's stderr and where the
/// whole of it is. Every piece of bot-controlled text is made visible (no escape sequence reaches
/// the terminal). Ends with a newline.
pub fn fault_message(game: &str, bot: &FaultedBot, fault: &FaultRecord) -> String {
    let mut out = format!(
        "multiversi: game {game}: bot '{}' (seat {}, {}) disqualified at ply {}: {}: {}\n",
        visible(bot.name),
        fault.seat,
        Colour::of_seat(fault.seat),
        fault.ply,
        fault.kind,
        visible(&fault.detail)
    );
    if let Some(text) = &fault.text {
        out += &format!("  received: {}\n", shown(text));
    }
    if let Some(hint) = builtin_hint(bot, fault).or_else(|| hint(fault)) {
        out += &format!("  hint: {hint}\n");
    }
    let lines = stderr_excerpt(&fault.stderr_tail);
    if !lines.is_empty() {
        out += "  its stderr ended with:\n";
        for line in &lines {
            out += &format!("  | {line}\n");
        }
    }
    if let Some(log) = bot.log {
        // A remote bot's stderr is on its owner's machine (`multiversi connect` shows it); its
        // log here has the referee's side of the connection.
        let what = match bot.log_full {
            _ if bot.remote => "the referee's notes on it".to_string(),
            Some(cap) => format!("its stderr until its log was full ({} MiB)", cap >> 20),
            None => "its whole stderr".to_string(),
        };
        out += &format!("  {what}: {}\n", log.display());
    } else if !lines.is_empty() {
        out += "  (to keep a bot's whole stderr, run the match with --log-dir DIR)\n";
    }
    out
}

/// Text a bot sent, as shown: cut to a line's worth, control characters made visible.
fn shown(text: &str) -> String {
    let cut = crate::protocol::truncate(text, SHOWN_TEXT_CHARS);
    let quoted = visible(&cut).into_owned();
    if quoted.is_empty() {
        "an empty line".into()
    } else {
        quoted
    }
}

/// The likely cause of a fault, for the mistakes every bot author makes once.
pub fn hint(fault: &FaultRecord) -> Option<String> {
    if let Some(hint) = remote_hint(fault) {
        return Some(hint.to_string());
    }
    let detail = fault.detail.as_str();
    let text = fault.text.as_deref().unwrap_or("");
    let hint = match fault.kind {
        // Python's print of a dict: {'type': 'ready', ...}, single quotes, True and None.
        FaultKind::Malformed
            if detail.starts_with("not JSON") && text.trim_start().starts_with("{'") =>
        {
            "the line looks like a Python dict printed as it is (single quotes are not JSON): \
             send print(json.dumps(message), flush=True)."
        }
        FaultKind::Malformed if detail.starts_with("not JSON") || detail.starts_with("not UTF-8") => {
            "stdout is the protocol channel and every line there must be one JSON message: is the \
             bot printing debug output to stdout? Use stderr (Python: print(..., file=sys.stderr); \
             JavaScript: console.error)."
        }
        FaultKind::Malformed if detail.starts_with("sent a line when no reply was due") => {
            if text.trim_start().starts_with('{') {
                "the bot sent a message nobody asked for (two answers to one message?): answer \
                 each start with one ready and each turn with one move, and nothing for end."
            } else {
                "is the bot printing debug output to stdout? Use stderr: stdout carries only the \
                 protocol's messages."
            }
        }
        FaultKind::Malformed if detail.starts_with("answered the turn at ply") => {
            "the bot sent a move for another turn than the one asked (two answers to one turn? \
             the second was read when the next turn was due): answer each turn once, with the \
             turn's own ply."
        }
        FaultKind::Malformed if detail.starts_with("answered the start of game") => {
            "the bot's ready named another game than the start it answered (an answer left over \
             from an earlier start?): answer each start once, with its own game id."
        }
        FaultKind::Malformed if detail.starts_with("a line longer than") => {
            "one protocol message per line: is the bot writing without newlines, or dumping data \
             to stdout?"
        }
        FaultKind::Malformed
            if detail.starts_with("wrong shape")
                || detail.starts_with("not a JSON object")
                || detail.starts_with("no 'type' field")
                || detail.starts_with("unknown message type") =>
        {
            "each answer is one JSON object on one line, such as {\"type\":\"ready\",\"name\":\"mybot\"} \
             after start and {\"type\":\"move\",\"square\":\"d3\"} on a turn (protocol/PROTOCOL.md)."
        }
        FaultKind::Malformed if detail.starts_with("expected a ready message") => {
            "the first message of every game is start, answered by {\"type\":\"ready\"}; a move \
             is due only after a turn."
        }
        FaultKind::Malformed if detail.starts_with("expected a move message") => {
            "a turn is answered with {\"type\":\"move\",\"square\":\"d3\"}; ready only answers start."
        }
        FaultKind::Malformed => {
            "see protocol/PROTOCOL.md for the exact form of each answer (a square is a letter and a \
             number, such as d3)."
        }
        FaultKind::Timeout if detail.contains("faster than the referee reads it") => {
            "when its time ran out the bot was writing to stderr faster than the referee reads a \
             bot's stderr (a capped rate), so its writes waited until they were read. Write less \
             there (debug output only when debugging)."
        }
        FaultKind::Timeout if detail.contains("without the newline that ends every message") => {
            "a message is one line and ends with a newline (\\n): write it after the JSON and \
             flush (Python's print(..., flush=True) does both; in C, printf(\"...\\n\") then \
             fflush(stdout))."
        }
        FaultKind::Timeout if detail.contains("it had closed its stdin") => {
            "the bot closed its standard input while it still played: keep stdin open and read \
             every message from it until the referee closes it, at the end of the match."
        }
        FaultKind::Timeout if detail.starts_with("no ready") => {
            "does the bot flush stdout after each line? Python buffers stdout when it is a pipe: \
             print(..., flush=True), or run it with python3 -u. (Or it is still loading: give it \
             more time: --startup-ms, startup_ms in a league config.)"
        }
        FaultKind::Timeout if detail.starts_with("no move") => {
            "the bot did not answer in time: does it flush stdout after each move (Python buffers \
             stdout when it is a pipe: print(..., flush=True), or run it with python3 -u)? Does \
             it keep within the turn's time_ms? --move-ms (move_ms in a league config) gives more \
             time."
        }
        FaultKind::Timeout => {
            "the answer came too late: keep a margin below the turn's time_ms for the answer to \
             reach the referee, or give more time (--move-ms; move_ms in a league config)."
        }
        FaultKind::Illegal if detail.contains("a late second answer to its previous turn") => {
            "answer each turn once; and send the turn's ply in every move ({\"type\":\"move\",\
             \"square\":\"d3\",\"ply\":14}), so that a late second answer is caught as what it \
             is (protocol/PROTOCOL.md)."
        }
        FaultKind::Illegal => {
            "every turn lists the legal moves in its legal field: play one of those."
        }
        FaultKind::Crash if detail.starts_with("could not be started") => {
            "check the bot's command: the program must exist and be executable."
        }
        FaultKind::Crash if detail.contains(" limit of ") && detail.contains(" reached") => {
            "the bot ran into one of the limits every bot of this run gets (README, \"Running unknown bots\"): \
             it must use less, or the organiser gives more (--limit-cpu-s, --limit-memory-mb, \
             --limit-files, --limit-file-size-mb, or a league's [limits] table)."
        }
        FaultKind::Crash if fault.ply == 0 && fault.stderr_tail.trim().is_empty() => {
            "the bot ended at the start of the game (at its start or its first turn), without a \
             word on stderr: does it read its input line by line until stdin closes, instead of \
             exiting after one line?"
        }
        FaultKind::Crash if fault.stderr_tail.trim().is_empty() => {
            "the bot ended without a word on stderr: it must keep reading stdin until stdin \
             closes, and answer every turn."
        }
        FaultKind::Crash => return None,
    };
    Some(hint.to_string())
}

/// The hint for a bot over the network (`crate::remote`), whose faults have words of their own:
/// its command and stderr are on its owner's machine, and its time includes the network.
fn remote_hint(fault: &FaultRecord) -> Option<&'static str> {
    let detail = fault.detail.as_str();
    Some(match fault.kind {
        FaultKind::Crash
            if detail.contains("remote bot") && detail.contains("is not connected") =>
        {
            "its owner must run multiversi connect HOST:PORT --token-file FILE -- COMMAND (README, \
             \"Bots over the network\"). A bot that has played in this run loses the games it \
             misses while away, as a local bot that crashes would; only a bot that never answered \
             is left out, and a run of the league again plays its games."
        }
        FaultKind::Crash if detail.contains("its network connection") => {
            "a remote bot: its stderr and how it ended are shown by multiversi connect on its \
             owner's machine."
        }
        FaultKind::Timeout if detail.contains("a remote bot:") => {
            "a remote bot's time includes the network: keep a margin of a few round trips below \
             the turn's time_ms, or give more time (move_ms, startup_ms)."
        }
        _ => return None,
    })
}

/// A built-in bot searches for a share of its time and answers well inside it on an idle
/// machine; when it is late, the machine is the cause, not a bug to look for in the bot.
fn builtin_hint(bot: &FaultedBot, fault: &FaultRecord) -> Option<String> {
    (bot.builtin && fault.kind == FaultKind::Timeout).then(|| {
        "a built-in bot answers well inside its time on an idle machine: the machine is busy \
         (other work, or more games at once than it has cores: --concurrency). Give more time \
         with --move-ms (move_ms in a league config)."
            .to_string()
    })
}

/// The lines of a bot's stderr worth showing after a fault: a short Python traceback whole (its
/// cause is at the bottom, its place at the top), otherwise the last few lines. Each line is
/// made visible and cut to a reasonable length; blank lines at the end are dropped.
pub fn stderr_excerpt(tail: &str) -> Vec<String> {
    let lines: Vec<&str> = tail.trim_end().lines().collect();
    if lines.iter().all(|l| l.trim().is_empty()) {
        return Vec::new();
    }
    let traceback = lines
        .iter()
        .rposition(|l| l.starts_with("Traceback (most recent call last)"))
        .filter(|&start| lines.len() - start <= TRACEBACK_LINES);
    let from = traceback.unwrap_or(lines.len().saturating_sub(STDERR_LINES));
    lines[from..]
        .iter()
        .map(|l| visible(&crate::protocol::truncate(l, STDERR_LINE_CHARS)).into_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(kind: FaultKind, detail: &str, text: Option<&str>, stderr: &str) -> FaultRecord {
        FaultRecord {
            seat: 1,
            kind,
            ply: 0,
            detail: detail.into(),
            text: text.map(str::to_string),
            stderr_tail: stderr.into(),
        }
    }

    fn bot(name: &str) -> FaultedBot<'_> {
        FaultedBot {
            name,
            log: None,
            builtin: false,
            remote: false,
            log_full: None,
        }
    }

    #[test]
    fn debug_output_on_stdout_is_shown_with_a_hint() {
        let f = fault(
            FaultKind::Malformed,
            "not JSON: expected value at line 1 column 1",
            Some("got start, I am seat 0"),
            "",
        );
        let text = fault_message("g1", &bot("mybot"), &f);
        assert_eq!(
            text.lines().next().unwrap(),
            "multiversi: game g1: bot 'mybot' (seat 1, white) disqualified at ply 0: malformed: \
             not JSON: expected value at line 1 column 1"
        );
        assert!(
            text.contains("\n  received: got start, I am seat 0\n"),
            "{text}"
        );
        assert!(
            text.contains("printing debug output to stdout? Use stderr"),
            "{text}"
        );
    }

    /// A Python dict printed as it is, rather than as JSON, gets words for that, not the hint
    /// about debug output.
    #[test]
    fn a_python_dict_on_stdout_is_told_to_be_json() {
        let f = fault(
            FaultKind::Malformed,
            "not JSON: key must be a string at line 1 column 2",
            Some("{'type': 'ready', 'name': 'mybot'}"),
            "",
        );
        let hint = hint(&f).unwrap();
        assert!(
            hint.contains("print(json.dumps(message), flush=True)"),
            "{hint}"
        );
        assert!(!hint.contains("debug output"), "{hint}");
    }

    /// A crash from a limit is about the limit, wherever in the game it came; a crash at ply 0
    /// is not said to come before the game when it may have come at the first turn.
    #[test]
    fn a_crash_hint_names_a_limit_and_does_not_guess_when_ply_0_ended() {
        let cpu = fault(
            FaultKind::Crash,
            "CPU limit of 1 s per game reached: killed by signal SIGXCPU",
            None,
            "",
        );
        for ply in [0, 12] {
            let hint = hint(&FaultRecord { ply, ..cpu.clone() }).unwrap();
            assert!(hint.contains("ran into one of the limits"), "{hint}");
            assert!(hint.contains("--limit-cpu-s"), "{hint}");
        }
        let first = fault(FaultKind::Crash, "exited (exit code 0)", None, "");
        let hint = hint(&first).unwrap();
        assert!(hint.contains("at its start or its first turn"), "{hint}");
        assert!(!hint.contains("before the game began"), "{hint}");
    }

    #[test]
    fn received_text_is_cut_and_made_visible() {
        let long = format!("\x1b[2J{}", "x".repeat(500));
        let f = fault(FaultKind::Malformed, "not JSON: x", Some(&long), "");
        let text = fault_message("g", &bot("evil\x1b]0;"), &f);
        assert!(!text.contains('\x1b'), "{text:?}");
        assert!(text.contains("bot 'evil\\u{1b}]0;'"));
        let received = text.lines().find(|l| l.contains("received:")).unwrap();
        assert!(received.contains("\\u{1b}[2J") && received.ends_with('…'));
        assert!(received.len() < 160);
    }

    #[test]
    fn a_late_built_in_bot_blames_the_machine_not_flushing() {
        let f = fault(FaultKind::Timeout, "no move within 200 ms", None, "");
        let builtin = FaultedBot {
            name: "brs+",
            log: None,
            builtin: true,
            remote: false,
            log_full: None,
        };
        let text = fault_message("g", &builtin, &f);
        assert!(text.contains("the machine is busy"), "{text}");
        assert!(!text.contains("flush"), "{text}");
        // A bot author's bot is still asked about flushing.
        let text = fault_message("g", &bot("mybot"), &f);
        assert!(text.contains("flush stdout"), "{text}");
        // Other faults of a built-in bot (a crash: killed by a memory limit) keep their hints.
        let crash = fault(FaultKind::Crash, "exited (killed by signal 9)", None, "");
        assert!(!fault_message("g", &builtin, &crash).contains("machine is busy"));
    }

    #[test]
    fn a_missing_ready_asks_about_flushing() {
        let f = fault(FaultKind::Timeout, "no ready within 10000 ms", None, "");
        let text = fault_message("g", &bot("slow"), &f);
        assert!(text.contains(": timeout: no ready within 10000 ms"));
        assert!(text.contains("does the bot flush stdout after each line?"));
        assert!(!text.contains("received:"));
    }

    #[test]
    fn a_crash_shows_a_whole_short_traceback_and_the_log() {
        let stderr = "starting\nthinking\nTraceback (most recent call last):\n  File \"bot.py\", \
                      line 9, in <module>\n    main()\n  File \"bot.py\", line 5, in main\n    \
                      x = 1 / 0\nZeroDivisionError: division by zero\n";
        let f = fault(FaultKind::Crash, "exited (exit code 1)", None, stderr);
        let log = std::path::PathBuf::from("logs/bot2-mybot.log");
        let text = fault_message(
            "g",
            &FaultedBot {
                name: "mybot",
                log: Some(&log),
                builtin: false,
                remote: false,
                log_full: None,
            },
            &f,
        );
        assert!(text.contains(": crash: exited (exit code 1)"));
        assert!(
            text.contains("  | Traceback (most recent call last):\n"),
            "{text}"
        );
        assert!(text.contains("  | ZeroDivisionError: division by zero\n"));
        assert!(!text.contains("thinking"), "only the traceback: {text}");
        assert!(
            text.ends_with("  its whole stderr: logs/bot2-mybot.log\n"),
            "{text}"
        );
    }

    #[test]
    fn a_crash_without_a_traceback_shows_the_last_lines() {
        let stderr: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        let f = fault(FaultKind::Crash, "exited (signal 11)", None, &stderr);
        let lines = stderr_excerpt(&f.stderr_tail);
        assert_eq!(lines.first().unwrap(), "line 13");
        assert_eq!(lines.last().unwrap(), "line 20");
        let text = fault_message("g", &bot("c"), &f);
        assert!(text.contains("run the match with --log-dir DIR"));
    }

    #[test]
    fn a_remote_bots_log_is_not_called_its_stderr() {
        let f = fault(
            FaultKind::Crash,
            "its network connection closed (a remote bot)",
            None,
            "",
        );
        let log = std::path::PathBuf::from("logs/bot3-far.log");
        let remote = FaultedBot {
            name: "far",
            log: Some(&log),
            builtin: false,
            remote: true,
            log_full: None,
        };
        let text = fault_message("g", &remote, &f);
        assert!(text.contains("shown by multiversi connect"), "{text}");
        assert!(
            text.ends_with("  the referee's notes on it: logs/bot3-far.log\n"),
            "{text}"
        );
        assert!(!text.contains("stderr: logs"), "{text}");
    }
}
