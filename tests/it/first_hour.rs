//! A bot author's first hour: the messages a person sees when a bot or a command line goes wrong
//! in the usual ways, checked as they appear on the terminal.

use crate::support::samples;
use crate::support::*;
use std::path::Path;

/// Writes a Python bot into `dir` and returns its path.
fn script(dir: &Path, name: &str, body: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, body).expect("write bot");
    path
}

/// One game of `bot` against two built-in bots, run in `dir`.
fn match_in(dir: &Path, args: &[&str], unbuffered: bool) -> Run {
    let command = multiversi("match").current_dir(dir).args(args);
    if unbuffered {
        command.run()
    } else {
        command.env_remove("PYTHONUNBUFFERED").run()
    }
}

const CHATTY: &str = "import sys, json\n\
for line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'start':\n        \
print('got start, I am seat', m['seat'], flush=True)\n";

#[test]
fn debug_output_on_stdout_is_shown_with_its_likely_cause() {
    let dir = temp_dir("first-hour-chatty");
    script(&dir, "chatty.py", CHATTY);
    let out = match_in(
        &dir,
        &[
            "python3 chatty.py",
            "builtin:greedy",
            "builtin:random",
            "--games",
            "3",
        ],
        true,
    );
    let err = out.stderr();
    assert_eq!(out.status.code(), Some(0), "{err}");
    // The same mistake in every game: explained in full once, counted after that, and summed
    // up per bot at the end.
    assert_eq!(
        err.matches("disqualified at ply 0: malformed").count(),
        1,
        "{err}"
    );
    assert_eq!(err.matches("received:").count(), 1, "{err}");
    assert!(
        err.contains("faults in this run, by bot (each kind explained above the first time):\n  chatty: 3 (malformed 3)\n"),
        "{err}"
    );
    assert!(
        err.contains("bot 'chatty' (seat 0, black) disqualified at ply 0: malformed: not JSON"),
        "{err}"
    );
    assert!(
        err.contains("\n  received: got start, I am seat 0\n"),
        "{err}"
    );
    assert!(
        err.contains("is the bot printing debug output to stdout? Use stderr"),
        "{err}"
    );
}

#[test]
fn a_bot_that_does_not_flush_is_asked_about_flushing() {
    let dir = temp_dir("first-hour-noflush");
    script(
        &dir,
        "noflush.py",
        "import sys, json\nfor line in sys.stdin:\n    print(json.dumps({'type': 'ready'}))\n",
    );
    let out = match_in(
        &dir,
        &[
            "python3 noflush.py",
            "builtin:greedy",
            "builtin:random",
            "--startup-ms",
            "1000",
        ],
        false,
    );
    let err = out.stderr();
    // One message: the stop says what the bot did; no fault message for a game not recorded.
    assert!(!err.contains("disqualified"), "{err}");
    assert_eq!(err.matches("never answered start").count(), 2, "{err}");
    // It never answered start, so the match stops; still running at the limit, it was not a
    // wrong path, and the stop says so.
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(
        err.contains("never answered start: no ready within 1000 ms")
            && err.contains("sent no ready line in time: does it flush stdout")
            && err.contains("--startup-ms")
            && !err.contains("a wrong path"),
        "{err}"
    );
}

#[test]
fn a_crash_shows_the_whole_traceback_and_where_the_log_is() {
    let dir = temp_dir("first-hour-crash");
    script(
        &dir,
        "crashy.py",
        "import sys, json\nprint('warming up', file=sys.stderr)\n\
def answer(m):\n    if m['type'] == 'start':\n        return {'type': 'ready'}\n    \
return {'type': 'move', 'square': m['legal'][0] / 2}\n\
for line in sys.stdin:\n    print(json.dumps(answer(json.loads(line))), flush=True)\n",
    );
    let out = match_in(
        &dir,
        &[
            "python3 crashy.py",
            "builtin:greedy",
            "builtin:random",
            "--log-dir",
            "logs",
        ],
        true,
    );
    let err = out.stderr();
    assert!(
        err.contains(
            "bot 'crashy' (seat 0, black) disqualified at ply 0: crash: exited (exit code 1)"
        ),
        "{err}"
    );
    let shown: Vec<&str> = err.lines().filter_map(|l| l.strip_prefix("  | ")).collect();
    assert_eq!(
        shown.first(),
        Some(&"Traceback (most recent call last):"),
        "{err}"
    );
    assert!(
        shown.iter().any(|l| l.contains("in answer")),
        "the traceback's middle is kept: {err}"
    );
    assert!(
        shown
            .last()
            .unwrap()
            .starts_with("TypeError: unsupported operand"),
        "{err}"
    );
    assert!(!err.contains("warming up"), "only the traceback: {err}");
    assert!(
        err.contains("  its whole stderr: logs/bot1-crashy.log\n"),
        "{err}"
    );
    let log = std::fs::read_to_string(dir.join("logs/bot1-crashy.log")).unwrap();
    assert!(log.contains("warming up") && log.contains("TypeError"));
}

#[test]
fn forgotten_quotes_say_what_to_type() {
    let dir = temp_dir("first-hour-quotes");
    script(&dir, "mybot.py", CHATTY);
    let out = match_in(
        &dir,
        &[
            "python3",
            "mybot.py",
            "builtin:greedy",
            "builtin:random",
            "--games",
            "4",
        ],
        true,
    );
    let err = out.stderr();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("multiversi: bot 1 is 'python3' alone"),
        "{err}"
    );
    // Invoked by its path (as `cargo run` does), the line to type starts with that path...
    let exe = env!("CARGO_BIN_EXE_multiversi");
    assert!(
        err.contains(&format!(
            "\n  {} match \"python3 mybot.py\" builtin:greedy builtin:random --games 4\n",
            shell_word(exe)
        )),
        "{err}"
    );
    // ...and found on PATH, with its name.
    TestCommand::on_path("match")
        .current_dir(&dir)
        .args(&["python3", "mybot.py", "builtin:greedy", "builtin:random"])
        .run()
        .assert_stderr_has(
            "\n  multiversi match \"python3 mybot.py\" builtin:greedy builtin:random\n",
        );
}

#[test]
fn a_script_in_the_current_directory_is_not_on_path() {
    let dir = temp_dir("first-hour-path");
    script(&dir, "mybot.py", CHATTY);
    let out = match_in(
        &dir,
        &["mybot.py", "builtin:greedy", "builtin:random"],
        true,
    );
    let err = out.stderr();
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(
        err.contains(
            "bot 1: 'mybot.py' is a file in the current directory, but a command without a '/' \
             is looked up on PATH"
        ),
        "{err}"
    );
    assert!(err.contains("type \"python3 mybot.py\""), "{err}");
}

#[test]
fn a_script_that_is_not_executable_names_its_interpreter() {
    let dir = temp_dir("first-hour-noexec");
    script(&dir, "mybot.js", "console.log('hi')\n");
    let out = match_in(
        &dir,
        &["./mybot.js --fast", "builtin:greedy", "builtin:random"],
        true,
    );
    let err = out.stderr();
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(
        err.contains(
            "bot 1: './mybot.js' exists but is not executable: run it with its interpreter: \
             \"node ./mybot.js --fast\""
        ),
        "{err}"
    );
}

#[test]
fn bots_are_named_apart_and_keep_the_name_they_gave() {
    let dir = temp_dir("first-hour-names");
    let record = dir.join("games.jsonl");
    let out = multiversi("match")
        .current_dir(repo())
        .args(&[
            "python3 bots/python/starter.py",
            "node bots/js/starter.js",
            "builtin:random",
            "--name",
            "3=dice",
            "--move-ms",
            "2000",
        ])
        .record(&record)
        .run();
    let table = out.stdout();
    out.assert_code(0);
    assert!(
        table.lines().next().unwrap().ends_with("ready as"),
        "{table}"
    );
    let ready = |bot: &str| table_row(&table, bot).map(|row| row["ready as"].clone());
    assert_eq!(
        ready("starter.py").as_deref(),
        Some("starter-python 1"),
        "{table}"
    );
    assert_eq!(
        ready("starter.js").as_deref(),
        Some("starter-js 1"),
        "{table}"
    );
    assert!(ready("dice").is_some(), "{table}");
    let game = &read_records(&record)[0];
    let names: Vec<&str> = game.seats.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["starter.py", "starter.js", "dice"]);
}

#[test]
fn two_bots_given_one_name_is_an_error() {
    let out = multiversi("match")
        .args(&[
            "builtin:random",
            "builtin:greedy",
            "builtin:random",
            "--name",
            "1=x",
            "--name",
            "2=x",
        ])
        .run();
    out.assert_code(2);
    assert_eq!(
        out.stderr(),
        "multiversi: --name 2=x: bot 1 has that name too; give each bot its own\n"
    );
}

/// A name given with --name that another bot would have had from its command is kept, and the
/// other bot is numbered, with a one-line note that says which and why; a --name that takes no
/// other bot's name says nothing.
#[test]
fn a_given_name_that_takes_another_bots_name_is_said() {
    let dir = temp_dir("first-hour-yielded");
    let record = dir.join("games.jsonl");
    let lineup = ["builtin:random", "builtin:random", "builtin:greedy"];
    let out = multiversi("match")
        .args(&lineup)
        .args(&["--name", "2=greedy", "--games", "1"])
        .record(&record)
        .run();
    out.assert_code(0);
    let note = "multiversi: note: bot 3 is named greedy-2, not greedy: --name 2=greedy gave that \
                name to bot 2, and a name given with --name is kept as it is\n";
    assert_eq!(out.stderr().matches(note).count(), 1, "{}", out.stderr());
    let names: Vec<String> = read_records(&record)[0]
        .seats
        .iter()
        .map(|s| s.name.clone())
        .collect();
    assert_eq!(names, ["random", "greedy", "greedy-2"]);
    let quiet = multiversi("match")
        .args(&lineup)
        .args(&["--name", "2=dice", "--games", "1"])
        .run();
    quiet.assert_code(0);
    assert!(!quiet.stderr().contains("note:"), "{}", quiet.stderr());
}

/// Sample games written to a record file in a fresh directory.
fn sample_file(name: &str, games: &[multiversi::record::GameRecord]) -> std::path::PathBuf {
    let path = temp_dir(name).join("games.jsonl");
    samples::write(&path, games);
    path
}

#[test]
fn replay_into_a_closed_pipe_stops_quietly() {
    let path = sample_file("first-hour-pipe", &samples::sample_games());
    // The reader is gone before a byte is read, as `| head` once it has its lines.
    let out = multiversi("replay")
        .arg(&path)
        .stdout_to(closed_pipe())
        .run();
    out.assert_code(0);
    assert_eq!(out.stderr(), "");
}

#[test]
fn replay_keeps_the_time_column_aligned_with_many_flips() {
    let mut games = samples::sample_games();
    let squares: Vec<multiversi::rules::Square> =
        ["a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "a2"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
    games[0].moves[4].flips = squares;
    let path = sample_file("first-hour-columns", &games[..1]);
    let out = multiversi("replay").arg(&path).run();
    let text = out.stdout();
    let ends: Vec<usize> = text
        .lines()
        .filter(|l| l.ends_with(" ms"))
        .map(|l| l.chars().count())
        .collect();
    assert!(ends.len() == games[0].moves.len(), "{text}");
    assert!(
        ends.iter().all(|&e| e == ends[0]),
        "time column out of line: {ends:?}\n{text}"
    );
    assert!(text.contains("flips a1 b1 c1 d1 e1 f1 g1 h1 a2 "), "{text}");
}

#[test]
fn replay_says_when_a_game_id_is_ambiguous() {
    let games = samples::sample_games();
    let path = sample_file(
        "first-hour-ambiguous",
        &[games[0].clone(), games[1].clone(), games[0].clone()],
    );
    let id = games[0].game.clone();
    let out = multiversi("replay")
        .args(&[path.to_str().unwrap(), "--game", &id])
        .run();
    out.assert_code(2);
    let p = path.display();
    assert_eq!(
        out.stderr(),
        format!(
            "multiversi: game id '{id}' is ambiguous: 2 games have it; give the number of one: \
             1 ({p}:1, started {s}), 3 ({p}:3, started {s})\n",
            s = games[0].started
        )
    );
    // Its number picks one.
    let out = multiversi("replay")
        .args(&[path.to_str().unwrap(), "--game", "3"])
        .run();
    out.assert_stdout_has(&format!("({p}:3)"));
}

#[test]
fn the_hand_typed_messages_of_the_starter_readme_are_accepted() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/bots/README.md")).unwrap();
    let block = readme
        .split("```json\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a json block in bots/README.md");
    let lines: Vec<&str> = block.lines().filter(|l| l.starts_with('{')).collect();
    assert_eq!(lines.len(), 2, "{block}");
    let out = multiversi("bot")
        .args(&["best", "--seed", "1"])
        .stdin(block.as_bytes())
        .run();
    out.assert_code(0);
    let answers: Vec<serde_json::Value> = out
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 2, "{}", out.stdout());
    assert_eq!(answers[0]["type"], "ready");
    assert_eq!(answers[1]["type"], "move");
    let turn: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    let legal = turn["legal"].as_array().unwrap();
    assert!(legal.contains(&answers[1]["square"]), "{}", answers[1]);
}

/// `match --show` with its stdout on a pseudo-terminal: what the terminal received.
fn show_on_a_terminal(no_color: bool) -> String {
    use std::io::Read;
    let (mut master, slave) = open_pty(60);
    let command = multiversi("match")
        .args(&["builtin:greedy", "builtin:random", "builtin:random"])
        .args(&["--show", "--seed", "3"])
        .stdout_to(slave);
    let command = if no_color {
        command.env("NO_COLOR", "1")
    } else {
        command.env_remove("NO_COLOR").env("TERM", "xterm-256color")
    };
    // Started, the command is gone, and with it our copy of the terminal's slave side, so that
    // its end is seen.
    let child = command.spawn();
    let mut text = Vec::new();
    let mut buf = [0u8; 65536];
    // The master reads until every holder of the slave side is gone (then EIO).
    while let Ok(n) = master.read(&mut buf) {
        if n == 0 {
            break;
        }
        text.extend_from_slice(&buf[..n]);
    }
    child.finish().assert_ok();
    String::from_utf8_lossy(&text).replace("\r\n", "\n")
}

#[test]
fn show_numbers_moves_like_replay_and_draws_in_colour_on_a_terminal() {
    let coloured = show_on_a_terminal(false);
    assert!(!coloured.contains("ply 0"), "{coloured}");
    assert!(
        coloured.contains("\x1b[48;5;"),
        "no colour on a terminal: {coloured}"
    );
    let plain = show_on_a_terminal(true);
    assert!(!plain.contains('\x1b'), "NO_COLOR: {plain}");
    let first = plain
        .lines()
        .find(|l| l.trim_start().starts_with("1."))
        .expect("move 1");
    assert!(first.starts_with("   1. Black greedy "), "{first}");
    assert!(
        plain.lines().any(|l| l.starts_with("   2. White random ")),
        "{plain}"
    );
    assert!(plain.contains("game "), "{plain}");
}

/// A bot whose script does not exist: one message, before any game (the interpreter would start
/// and exit at once), exit 4, and no record file left behind for a match that recorded nothing.
#[test]
fn a_missing_script_gives_one_message_and_leaves_no_record_file() {
    let dir = temp_dir("first-hour-missing-script");
    let out = match_in(
        &dir,
        &[
            "python3 no_such_bot.py",
            "builtin:greedy",
            "builtin:random",
            "--record",
            "games.jsonl",
        ],
        true,
    );
    let err = out.stderr();
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(!err.contains("disqualified"), "{err}");
    assert!(!err.contains("game(s) recorded in"), "{err}");
    assert_eq!(err.matches("multiversi: ").count(), 1, "{err}");
    assert_eq!(
        err,
        "multiversi: bot 1: 'no_such_bot.py' does not exist in the current directory: python3 \
         would start and exit at once\n"
    );
    assert!(
        !dir.join("games.jsonl").exists(),
        "an empty record file was left"
    );
}
