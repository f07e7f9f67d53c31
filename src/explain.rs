//! Words a bot author can act on. A fault record says exactly what happened, for programs; this
//! module turns it into what a person needs on the terminal: which bot, what it sent, the likely
//! cause of the common mistakes, and the end of its stderr. It also recognises the usual slips in
//! the bot commands of `multiversi match` (a command split into two bots by forgotten quotes, a
//! script that is not executable or not on PATH) and says what to type instead.
//!
//! Everything here is a pure function of its arguments (the command check looks at the file
//! system), so each message is tested as the user sees it.

use crate::record::{FaultKind, FaultRecord};
use crate::rules::Colour;
use crate::text::visible;
use std::path::{Path, PathBuf};

/// How much of what a bot sent is shown on the terminal (the record keeps more).
const SHOWN_TEXT_CHARS: usize = 120;
/// Lines of stderr shown after a crash when there is no short traceback to show whole.
const STDERR_LINES: usize = 8;
/// A Python traceback up to this many lines is shown whole.
const TRACEBACK_LINES: usize = 40;
/// Longest stderr line shown; longer ones are cut.
const STDERR_LINE_CHARS: usize = 200;

/// The kind as the record spells it (`malformed`), which is also what `--events` and
/// `protocol/PROTOCOL.md` call it.
pub fn kind_name(kind: FaultKind) -> &'static str {
    match kind {
        FaultKind::Timeout => "timeout",
        FaultKind::Crash => "crash",
        FaultKind::Malformed => "malformed",
        FaultKind::Illegal => "illegal",
    }
}

/// Who faulted, and where its whole stderr is kept.
pub struct FaultedBot<'a> {
    /// The bot's name in the match (as in the results table).
    pub name: &'a str,
    /// The log file with its whole stderr, when the match keeps logs (`--log-dir`).
    pub log: Option<&'a Path>,
    /// A built-in bot: its faults are not a bot author's mistakes.
    pub builtin: bool,
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
        kind_name(fault.kind),
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
    match (bot.log, lines.is_empty()) {
        (Some(log), _) => out += &format!("  its whole stderr: {}\n", log.display()),
        (None, false) => {
            out += "  (to keep a bot's whole stderr, run the match with --log-dir DIR)\n"
        }
        (None, true) => {}
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
    let detail = fault.detail.as_str();
    let text = fault.text.as_deref().unwrap_or("");
    let hint = match fault.kind {
        FaultKind::Malformed if detail.starts_with("not JSON") || detail.starts_with("not UTF-8") => {
            "stdout is the protocol channel and every line there must be one JSON message: is the \
             bot printing debug output to stdout? Use stderr (Python: print(..., file=sys.stderr); \
             JavaScript: console.error)."
        }
        FaultKind::Malformed if detail == "sent a line when no reply was due" => {
            if text.trim_start().starts_with('{') {
                "the bot sent a message nobody asked for (two answers to one message?): answer \
                 each start with one ready and each turn with one move, and nothing for end."
            } else {
                "is the bot printing debug output to stdout? Use stderr: stdout carries only the \
                 protocol's messages."
            }
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
        FaultKind::Timeout if detail.starts_with("no ready") => {
            "does the bot flush stdout after each line? Python buffers stdout when it is a pipe: \
             print(..., flush=True), or run it with python3 -u. (Or it is still loading: give it \
             more time with --startup-ms.)"
        }
        FaultKind::Timeout if detail.starts_with("no move") => {
            "the bot did not answer in time: does it flush stdout after each move (Python: \
             print(..., flush=True))? Does it keep within the turn's time_ms? --move-ms gives \
             more time."
        }
        FaultKind::Timeout => {
            "the answer came too late: keep a margin below the turn's time_ms for the answer to \
             reach the referee, or give more time with --move-ms."
        }
        FaultKind::Illegal => {
            "every turn lists the legal moves in its legal field: play one of those."
        }
        FaultKind::Crash if detail.starts_with("could not be started") => {
            "check the bot's command: the program must exist and be executable."
        }
        FaultKind::Crash if fault.ply == 0 && fault.stderr_tail.trim().is_empty() => {
            "the bot ended before the game began, without a word on stderr: does it read its \
             input line by line until stdin closes, instead of exiting?"
        }
        FaultKind::Crash if fault.stderr_tail.trim().is_empty() => {
            "the bot ended without a word on stderr: it must keep reading stdin until stdin \
             closes, and answer every turn."
        }
        FaultKind::Crash => return None,
    };
    Some(hint.to_string())
}

/// A built-in bot searches for a share of its time and answers well inside it on an idle
/// machine; when it is late, the machine is the cause, not a bug to look for in the bot.
fn builtin_hint(bot: &FaultedBot, fault: &FaultRecord) -> Option<String> {
    (bot.builtin && fault.kind == FaultKind::Timeout).then(|| {
        "a built-in bot answers well inside its time on an idle machine: the machine is busy \
         (other work, or more games at once than it has cores: --concurrency). Give more time \
         with --move-ms."
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

/// Interpreters and shells: given alone as a bot's command, they read a program from stdin and
/// never answer, so a bare one is a command that lost its script to forgotten quotes.
const INTERPRETERS: &[&str] = &[
    "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "java",
    "ruby", "perl", "php", "lua", "sh", "bash", "zsh", "dotnet", "Rscript", "julia", "ocaml",
    "guile", "racket", "scala", "kotlin", "elixir", "erl", "escript", "tclsh", "env",
];

/// Whether a command word names an interpreter (`python3.12` and `/usr/bin/python3` too).
pub fn is_interpreter(word: &str) -> bool {
    let base = word.rsplit('/').next().unwrap_or(word);
    INTERPRETERS.contains(&base)
        || base
            .strip_prefix("python")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// The interpreter that usually runs a script, by its file name.
fn interpreter_for(file: &str) -> Option<&'static str> {
    let ext = file.rsplit_once('.')?.1;
    Some(match ext {
        "py" => "python3",
        "js" | "mjs" | "cjs" => "node",
        "ts" => "deno run",
        "rb" => "ruby",
        "pl" => "perl",
        "php" => "php",
        "lua" => "lua",
        "sh" => "sh",
        "bash" => "bash",
        "jar" => "java -jar",
        "R" | "r" => "Rscript",
        "jl" => "julia",
        _ => return None,
    })
}

/// The program as the user invoked it, for commands to copy from a message: `multiversi` when
/// it was found on PATH, else the path typed (`target/release/multiversi`, as `cargo run`
/// starts it), so that the suggested line works where it is pasted.
pub fn program() -> String {
    match std::env::args().next() {
        Some(arg0) if arg0.contains('/') => shell_quote(&arg0),
        _ => "multiversi".into(),
    }
}

/// A word quoted for a shell when it needs it, so a suggested command line can be pasted.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=+,@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Bots given as separate words where one quoted command was meant: `python3 mybot.py` unquoted
/// is the two bots `python3` and `mybot.py`. Returns the message, with the whole corrected
/// command line, when some bot is a bare interpreter; None otherwise. `specs` are the BOT
/// arguments as given; `rest` the other arguments of the command line, repeated at the end.
pub fn forgotten_quotes(specs: &[String], rest: &str, program: &str) -> Option<String> {
    let bare: Vec<usize> = (0..specs.len())
        .filter(|&i| is_interpreter(specs[i].trim()))
        .collect();
    let first = *bare.first()?;
    // Each bare interpreter takes the words after it up to the next bot that stands on its own:
    // a built-in bot, another interpreter or a command with a space in it.
    let mut fixed: Vec<String> = Vec::new();
    let mut i = 0;
    while i < specs.len() {
        let mut words = vec![specs[i].clone()];
        if is_interpreter(specs[i].trim()) {
            while i + 1 < specs.len()
                && !specs[i + 1].starts_with("builtin:")
                && !is_interpreter(specs[i + 1].trim())
                && !specs[i + 1].contains(' ')
            {
                i += 1;
                words.push(specs[i].clone());
                // An interpreter's options come before its script; the script ends the command.
                if !specs[i].starts_with('-') {
                    break;
                }
            }
        }
        let joined = words.join(" ");
        fixed.push(if words.len() > 1 || joined.contains(' ') {
            format!("\"{joined}\"")
        } else {
            shell_quote(&joined)
        });
        i += 1;
    }
    let rest = if rest.is_empty() {
        String::new()
    } else {
        format!(" {rest}")
    };
    Some(format!(
        "bot {} is '{}' alone, which would wait for a program on its stdin: a bot's command is \
         one argument, so quote it with its script. Type:\n  {program} match {}{rest}",
        first + 1,
        specs[first].trim(),
        fixed.join(" ")
    ))
}

/// The words of this run's command line after `match` that are not the bots, quoted for a shell:
/// the options to repeat in a corrected command line.
pub fn options_after(specs: &[String]) -> String {
    let raw: Vec<String> = std::env::args().collect();
    let from = raw
        .iter()
        .position(|a| a == "match")
        .map_or(raw.len(), |i| i + 1);
    other_words(&raw[from..], specs)
}

/// `words` without the `specs`, taken out in order (the bots are the positional arguments),
/// each quoted for a shell and joined by spaces.
pub fn other_words(words: &[String], specs: &[String]) -> String {
    let mut next = 0;
    let mut rest = Vec::new();
    for word in words {
        if specs.get(next) == Some(word) {
            next += 1;
        } else {
            rest.push(shell_quote(word));
        }
    }
    rest.join(" ")
}

/// What is wrong with a bot's program word, when it is one of the usual slips: a script that
/// exists but is not executable, or one in the current directory named without `./` (a command
/// without a `/` is looked up on PATH only). `dir` is the bot's working directory (`--cwd`), where
/// relative paths are resolved. Returns the message, or None when the command looks runnable (or
/// fails in a way the start itself reports well).
pub fn program_problem(argv: &[String], dir: Option<&Path>) -> Option<String> {
    let program = argv.first()?;
    let args: Vec<String> = argv[1..].iter().map(|a| shell_quote(a)).collect();
    let args = if args.is_empty() {
        String::new()
    } else {
        format!(" {}", args.join(" "))
    };
    let resolve = |p: &str| -> PathBuf {
        match dir {
            Some(d) if Path::new(p).is_relative() => d.join(p),
            _ => PathBuf::from(p),
        }
    };
    let with_interpreter =
        |path: &str| interpreter_for(path).map(|i| format!("\"{i} {}{args}\"", shell_quote(path)));
    if !program.contains('/') {
        if on_path(program) {
            return None;
        }
        let here = resolve(program);
        if !here.is_file() {
            return None;
        }
        let mut fix = Vec::new();
        if is_executable(&here) {
            fix.push(format!("\"./{program}{args}\""));
        }
        if let Some(run) = with_interpreter(program) {
            fix.push(run);
        }
        if fix.is_empty() {
            fix.push(format!("\"./{program}{args}\" after chmod +x {program}"));
        }
        return Some(format!(
            "'{program}' is a file in {}, but a command without a '/' is looked up on PATH, \
             where there is none: type {}",
            dir.map_or("the current directory".to_string(), |d| d
                .display()
                .to_string()),
            fix.join(" or ")
        ));
    }
    let path = resolve(program);
    if path.is_file() && !is_executable(&path) {
        let fix = match with_interpreter(program) {
            Some(run) => format!(
                "run it with its interpreter: {run} (or make it executable: chmod +x {program}, \
                 with a #! line at its top)"
            ),
            None => format!("make it executable (chmod +x {program}) or name its interpreter"),
        };
        return Some(format!("'{program}' exists but is not executable: {fix}"));
    }
    if path.is_dir() {
        return Some(format!(
            "'{program}' is a directory, not a program (use --cwd N=DIR to run a bot in a directory)"
        ));
    }
    None
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether a word without a `/` names an executable file on PATH, as `execvp` would find it.
fn on_path(word: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir| is_executable(&dir.join(word)))
    })
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
        let log = PathBuf::from("logs/bot2-mybot.log");
        let text = fault_message(
            "g",
            &FaultedBot {
                name: "mybot",
                log: Some(&log),
                builtin: false,
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
    fn bare_interpreters_are_recognised() {
        for word in [
            "python3",
            "python",
            "python3.12",
            "/usr/bin/python3",
            "node",
            "java",
            "ruby",
        ] {
            assert!(is_interpreter(word), "{word}");
        }
        for word in ["python3x", "mybot", "builtin:greedy", "./node_bot"] {
            assert!(!is_interpreter(word), "{word}");
        }
    }

    #[test]
    fn forgotten_quotes_suggest_the_quoted_command() {
        let specs: Vec<String> = ["python3", "mybot.py", "builtin:greedy", "builtin:random"]
            .map(String::from)
            .to_vec();
        let text = forgotten_quotes(&specs, "--games 4", "multiversi").unwrap();
        assert!(text.starts_with("bot 1 is 'python3' alone"), "{text}");
        assert!(
            text.ends_with(
                "\n  multiversi match \"python3 mybot.py\" builtin:greedy builtin:random --games 4"
            ),
            "{text}"
        );
        let specs: Vec<String> = [
            "builtin:greedy",
            "node",
            "--harmony",
            "a.js",
            "java",
            "-jar",
            "b.jar",
            "random",
        ]
        .map(String::from)
        .to_vec();
        let text = forgotten_quotes(&specs, "", "multiversi").unwrap();
        assert!(
            text.ends_with("multiversi match builtin:greedy \"node --harmony a.js\" \"java -jar b.jar\" random"),
            "{text}"
        );
        let fine: Vec<String> = ["python3 a.py", "builtin:greedy", "builtin:random"]
            .map(String::from)
            .to_vec();
        assert_eq!(forgotten_quotes(&fine, "", "multiversi"), None);
    }

    #[test]
    fn options_are_kept_for_the_corrected_command() {
        let w = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let words = w(&[
            "--games",
            "4",
            "python3",
            "my bot.py",
            "x",
            "--record",
            "g.jsonl",
        ]);
        let specs = w(&["python3", "my bot.py", "x"]);
        assert_eq!(other_words(&words, &specs), "--games 4 --record g.jsonl");
    }

    #[test]
    fn scripts_that_cannot_run_as_given() {
        let dir = std::env::temp_dir().join(format!("multiversi-explain-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("mybot.py"), "print()\n").unwrap();
        let argv = |s: &str| crate::process::split_command(s).unwrap();
        let text = program_problem(&argv("mybot.py --fast"), Some(&dir)).unwrap();
        assert!(text.starts_with("'mybot.py' is a file in "), "{text}");
        assert!(text.contains("looked up on PATH"), "{text}");
        assert!(text.ends_with("type \"python3 mybot.py --fast\""), "{text}");
        let path = format!("{}/mybot.py", dir.display());
        let text = program_problem(&argv(&path), None).unwrap();
        assert!(text.contains("exists but is not executable"), "{text}");
        assert!(text.contains(&format!("\"python3 {path}\"")), "{text}");
        assert_eq!(program_problem(&argv("python3 mybot.py"), Some(&dir)), None);
        assert_eq!(
            program_problem(&argv("no-such-program-here"), Some(&dir)),
            None
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
