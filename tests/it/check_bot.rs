//! `multiversi check-bot`: every bundled starter bot and every built-in bot passes every check;
//! each kind of broken bot (`tests/bots/broken.py`) fails the check that names its mistake, and
//! the run exits with 1.

use crate::support::{bot, closed_pipe, multiversi, shell_word, temp_dir, test_bot, utf8, Run};
use serde_json::Value;
use std::path::Path;
use std::process::Stdio;

fn broken_bot() -> String {
    test_bot("broken.py")
}

/// Runs `check-bot --json` with `options` on `command` and returns the run and its report.
fn check(options: &[&str], command: &[&str]) -> (Run, Value) {
    let out = multiversi("check-bot")
        .arg("--json")
        .args(options)
        .arg("--")
        .args(command)
        // A Python bot must flush by itself, as in a real environment.
        .env_remove("PYTHONUNBUFFERED")
        .run();
    let report: Value = serde_json::from_slice(out.stdout_bytes())
        .unwrap_or_else(|e| panic!("check-bot --json printed no JSON ({e}): {}", out.describe()));
    (out, report)
}

fn failed(report: &Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["passed"] == false)
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

fn find<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id} in {report}"))
}

fn assert_all_pass(options: &[&str], command: &[&str]) -> Value {
    let (out, report) = check(options, command);
    assert!(
        failed(&report).is_empty() && out.code() == Some(0),
        "{command:?} failed {:?} (exit {:?}):\n{report:#}",
        failed(&report),
        out.code()
    );
    assert_eq!(report["passed"], true);
    let counts = &report["counts"];
    assert_eq!(
        (
            &counts["failed"],
            &counts["not_checked"],
            &counts["warnings"]
        ),
        (&Value::from(0), &Value::from(0), &Value::from(0)),
        "{counts}"
    );
    assert_eq!(
        counts["passed"].as_u64().unwrap() as usize,
        report["checks"].as_array().unwrap().len()
    );
    report
}

/// The shape of a passing report: every check there, times measured.
fn assert_complete(report: &Value) {
    let ids: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    for id in [
        "startup",
        "board-8x8-3",
        "board-8x8-4",
        "board-10x10-3",
        "board-10x10-4",
        "board-octagon-3",
        "board-octagon-4",
        "anti",
        "blocked",
        "placing",
        "no-discs",
        "last-square",
        "unknown-fields",
        "game-4p-seat-0",
        "game-4p-seat-1",
        "game-4p-seat-2",
        "game-4p-seat-3",
        "game-3p-seat-0",
        "game-3p-seat-1",
        "game-3p-seat-2",
        "several-games",
        "end",
        "stdin-close",
        "times",
        "stdout",
        "echo",
    ] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    let times = &report["times"];
    assert!(times["answers"].as_u64().unwrap() > 100, "{times}");
    assert!(times["p50_ms"].as_f64().unwrap() <= times["p99_ms"].as_f64().unwrap());
    assert!(times["p99_ms"].as_f64().unwrap() <= times["max_ms"].as_f64().unwrap());
}

/// Every starter and built-in bot says which start and turn each answer is for: its `echo` check
/// passes, with no warning (`assert_all_pass` counts none).
fn assert_echoes(report: &Value) {
    let echo = find(report, "echo");
    assert_eq!(echo["status"], "passed", "{echo}");
    assert!(
        echo["summary"]
            .as_str()
            .unwrap()
            .contains("every move carries the ply of its turn"),
        "{echo}"
    );
}

fn starter_passes(language: &str) {
    let starter = bot(language);
    let command: Vec<String> = starter
        .command
        .iter()
        .map(|p| utf8(p).to_string())
        .collect();
    // After `--` the words are the program and its arguments as given: a compiled bot's path goes
    // in unquoted, one word even when the checkout's path holds a space.
    let command: Vec<&str> = command.iter().map(String::as_str).collect();
    let report = assert_all_pass(&[], &command);
    assert_complete(&report);
    assert_echoes(&report);
}

#[test]
fn python_starter_passes() {
    starter_passes("python");
}

#[test]
fn js_starter_passes() {
    starter_passes("js");
}

#[test]
fn c_starter_passes() {
    starter_passes("c");
}

#[test]
fn rust_starter_passes() {
    starter_passes("rust");
}

/// PYTHONUNBUFFERED in the checker's environment reaches the bot and hides a missing flush:
/// check-bot says so, unless the bot runs with a clean environment.
#[test]
fn an_inherited_pythonunbuffered_is_noted() {
    let note = "PYTHONUNBUFFERED is set here, and the bot inherits it";
    let run = |env: Option<&str>, options: &[&str]| {
        let command = multiversi("check-bot").args(options).arg("builtin:random");
        match env {
            Some(value) => command.env("PYTHONUNBUFFERED", value),
            None => command.env_remove("PYTHONUNBUFFERED"),
        }
        .run()
    };
    run(Some("1"), &[]).assert_ok().assert_stderr_has(note);
    for (env, options) in [(None, &[][..]), (Some("1"), &["--clean-env"][..])] {
        let out = run(env, options);
        out.assert_ok();
        assert!(!out.stderr().contains(note), "{}", out.describe());
    }
}

#[test]
fn instant_built_in_bots_pass() {
    for name in ["random", "greedy"] {
        let report = assert_all_pass(&[], &[&format!("builtin:{name}")]);
        assert_complete(&report);
        assert_echoes(&report);
    }
}

/// The search engines think for most of the time they get, so on a machine loaded far beyond
/// its cores a stalled process can deliver an answer late; the checker rightly reports it, but
/// that says nothing about the bot. One run of each engine (`best` is `mcts`, `brs+` is `brs`
/// with more knowledge) at a short limit keeps the suite short; it proves that every exchange of
/// the protocol works, and that the engines keep their time: the median answer leaves a good
/// part of the limit unused (they search at most 60 ms of 100), so a late answer is a stall,
/// tolerated only as a timeout. The median's bound leaves room for the test suite's own load on
/// two cores, where a bound of 70 ms failed once: an engine that spent its whole limit
/// would still fail it.
#[test]
fn searching_built_in_bots_pass() {
    for name in ["brs", "mcts"] {
        let command = format!("builtin:{name}");
        let (out, report) = check(&["--move-ms", "100"], &[&command]);
        for c in report["checks"].as_array().unwrap() {
            let summary = c["summary"].as_str().unwrap();
            assert!(
                c["passed"] == true || c["id"] == "times" || summary.contains("timeout"),
                "{name} failed {} for another reason than a late answer:\n{report:#}",
                c["id"]
            );
        }
        assert_complete(&report);
        assert_echoes(&report);
        let p50 = report["times"]["p50_ms"].as_f64().unwrap();
        assert!(
            p50 < 85.0,
            "{name}: median answer {p50} ms of 100:\n{report:#}"
        );
        if out.code() != Some(0) {
            eprintln!(
                "{name}: late answers on a loaded machine: {:?}",
                failed(&report)
            );
        }
    }
}

/// Runs the broken bot in one mode and checks that `expected` fail, with exit code 1.
fn broken(mode: &[&str], options: &[&str], expected: &[&str]) -> Value {
    let script = broken_bot();
    let mut command = vec!["python3", script.as_str()];
    command.extend(mode);
    let (out, report) = check(options, &command);
    let failed = failed(&report);
    for id in expected {
        assert!(
            failed.iter().any(|f| f == id),
            "{mode:?} should fail {id}, failed {failed:?}:\n{report:#}"
        );
    }
    out.assert_code(1);
    assert_eq!(report["passed"], false);
    report
}

#[test]
fn a_bot_that_never_says_ready_fails_startup_and_nothing_waits_for_it_again() {
    let started = std::time::Instant::now();
    let report = broken(
        &["never-ready"],
        &["--startup-ms", "500"],
        &["startup", "board-8x8-3"],
    );
    let startup = find(&report, "startup");
    assert!(startup["summary"]
        .as_str()
        .unwrap()
        .contains("no ready within 500 ms"));
    // The likeliest cause, a Python bot that does not flush, is named.
    assert!(
        startup["hint"].as_str().unwrap().contains("flush"),
        "{startup}"
    );
    // What the bot never got to do is not checked, rather than passed or failed.
    for id in ["stdout", "stdin-close", "end", "times", "game-3p-seat-0"] {
        let check = find(&report, id);
        assert_eq!(check["passed"], false, "{check}");
        assert_eq!(check["status"], "not-checked", "{check}");
        assert!(
            check["summary"]
                .as_str()
                .unwrap()
                .starts_with("not checked"),
            "{check}"
        );
    }
    // Only the two exchanges that ran count as failed; the rest are counted apart.
    let checks = report["checks"].as_array().unwrap();
    assert_eq!(find(&report, "startup")["status"], "failed");
    assert_eq!(find(&report, "board-8x8-3")["status"], "failed");
    let counts = &report["counts"];
    assert_eq!(counts["failed"], 2, "{counts}");
    assert_eq!(counts["passed"], 0, "{counts}");
    assert_eq!(
        counts["not_checked"].as_u64().unwrap() as usize,
        checks.len() - 2,
        "{counts}"
    );
    // One start waited for (with the checker's extra look), not one per check.
    assert!(started.elapsed().as_secs() < 8, "{:?}", started.elapsed());
}

/// On the terminal, the checks a bot never got to are marked apart and counted apart: a bot
/// author sees one mistake to fix, not twenty-five.
#[test]
fn the_checklist_counts_not_checked_apart_from_failed() {
    let out = multiversi("check-bot")
        .args(&[
            "--startup-ms",
            "300",
            "--",
            "python3",
            &broken_bot(),
            "never-ready",
        ])
        .env_remove("PYTHONUNBUFFERED")
        .run();
    out.assert_code(1);
    let text = out.stdout();
    let lines: Vec<&str> = text.lines().collect();
    let marked = |mark: &str| lines.iter().filter(|l| l.starts_with(mark)).count();
    assert_eq!(marked("FAIL  "), 2, "{text}");
    assert_eq!(marked("ok    "), 0, "{text}");
    let skipped: Vec<&&str> = lines.iter().filter(|l| l.starts_with("--    ")).collect();
    assert_eq!(skipped.len(), 24, "{text}");
    assert!(
        skipped
            .iter()
            .all(|l| l.contains("not checked: the bot did not answer start")),
        "{text}"
    );
    assert!(
        text.contains("\n26 checks: 2 failed, 24 not checked, 0 passed.\n"),
        "{text}"
    );
    assert!(text.contains("fix the failures and check again"), "{text}");
    out.assert_stderr_has("26 checks: 2 failed, 24 not checked, 0 passed");
}

#[test]
fn an_illegal_placing_move_fails_the_placing_check_with_what_was_sent_and_got() {
    let report = broken(&["illegal-placing"], &[], &["placing"]);
    let placing = find(&report, "placing");
    assert!(placing["summary"].as_str().unwrap().contains("illegal"));
    let sent = placing["sent"].as_array().unwrap();
    assert_eq!(sent.len(), 2);
    let turn: Value = serde_json::from_str(sent[1].as_str().unwrap()).unwrap();
    assert_eq!(turn["type"], "turn");
    assert_eq!(turn["kind"], "placing");
    let got: Value = serde_json::from_str(placing["got"].as_str().unwrap()).unwrap();
    let square = got["square"].as_str().unwrap();
    assert!(!turn["legal"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l == square));
    // Flipping positions are still fine.
    assert_eq!(find(&report, "board-8x8-4")["passed"], true);
}

#[test]
fn a_crash_without_discs_fails_that_check_and_shows_the_traceback() {
    let report = broken(&["crash-no-discs"], &[], &["no-discs"]);
    let check = find(&report, "no-discs");
    assert!(check["summary"].as_str().unwrap().contains("crash"));
    assert!(check["stderr"]
        .as_str()
        .unwrap()
        .contains("no discs of my own"));
    // It is started afresh and passes what it can do.
    assert_eq!(find(&report, "last-square")["passed"], true);
    // In whole games the turn it crashed on is shown as it was sent: a board without its
    // colour, the seat it played.
    let mut shown = 0;
    for check in report["checks"].as_array().unwrap() {
        let id = check["id"].as_str().unwrap();
        if !id.starts_with("game-") || check["passed"] == true {
            continue;
        }
        let turn: Value = serde_json::from_str(check["sent"][0].as_str().unwrap()).unwrap();
        let seat = turn["seat"].as_u64().unwrap() as usize;
        assert!(id.ends_with(&format!("seat-{seat}")), "{id}: {turn}");
        let mine = ['B', 'W', 'R', 'G'][seat];
        assert!(
            turn["rows"]
                .as_array()
                .unwrap()
                .iter()
                .all(|r| !r.as_str().unwrap().contains(mine)),
            "{id}: {turn}"
        );
        shown += 1;
    }
    assert!(shown > 0, "{report:#}");
}

#[test]
fn a_bot_for_8x8_only_fails_the_other_boards() {
    let report = broken(
        &["only-8x8"],
        &[],
        &[
            "board-10x10-3",
            "board-10x10-4",
            "board-octagon-3",
            "board-octagon-4",
        ],
    );
    for id in ["board-8x8-3", "board-8x8-4", "placing", "game-4p-seat-0"] {
        assert_eq!(find(&report, id)["passed"], true, "{id}");
    }
}

#[test]
fn a_bot_that_needs_two_moves_fails_on_the_last_square() {
    broken(&["second-move"], &[], &["last-square"]);
}

#[test]
fn debugging_output_on_stdout_fails_the_stdout_check() {
    let report = broken(&["debug-print"], &[], &["stdout", "board-8x8-3"]);
    assert!(find(&report, "stdout")["summary"]
        .as_str()
        .unwrap()
        .contains("thinking about"));
}

/// A line of its own before every ready fails every start: the first two say so, and what
/// comes after them is not checked, rather than failed once more at its start (one mistake read
/// as twenty); the stdout check, which judges that very line, still runs.
#[test]
fn debugging_output_before_ready_is_one_mistake_not_twenty() {
    let report = broken(&["debug-start"], &[], &["startup", "stdout"]);
    assert!(find(&report, "startup")["summary"]
        .as_str()
        .unwrap()
        .contains("2 of 2 starts failed"));
    assert!(find(&report, "stdout")["summary"]
        .as_str()
        .unwrap()
        .contains("got start, I am seat"));
    for id in ["board-10x10-3", "game-3p-seat-0", "several-games", "echo"] {
        let check = find(&report, id);
        assert_eq!(check["status"], "not-checked", "{check}");
        assert!(
            check["summary"]
                .as_str()
                .unwrap()
                .contains("no start was answered well"),
            "{check}"
        );
    }
    assert_eq!(report["counts"]["failed"], 4, "{}", report["counts"]);
}

#[test]
fn answering_end_fails_the_end_check() {
    broken(&["answer-end"], &[], &["end", "stdout"]);
}

#[test]
fn leaving_after_each_game_fails_the_several_games_check() {
    let report = broken(&["exit-after-end"], &[], &["several-games"]);
    // Started again for every game, it still plays them all.
    assert_eq!(find(&report, "game-3p-seat-2")["passed"], true);
}

#[test]
fn ignoring_the_end_of_input_fails_the_exit_check_and_leaves_no_process() {
    let dir = temp_dir("check-bot-ignore-eof");
    let pids = dir.join("pids");
    let script = broken_bot();
    let out = multiversi("check-bot")
        .args(&["--grace-ms", "300", "--", "python3", &script, "ignore-eof"])
        .env("BROKEN_PIDFILE", &pids)
        .run();
    let text = out.stdout();
    assert_eq!(out.code(), Some(1), "{text}");
    let exit_line = text
        .lines()
        .find(|l| l.contains("exits when its stdin closes"))
        .unwrap();
    assert!(exit_line.starts_with("FAIL"), "{text}");
    assert!(exit_line.contains("still running 300 ms"), "{text}");
    assert_eq!(text.matches("FAIL").count(), 1, "{text}");
    for pid in std::fs::read_to_string(&pids).unwrap().lines() {
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "bot process {pid} is still running"
        );
    }
}

#[test]
fn a_slow_bot_fails_the_times_check_with_its_figures() {
    let report = broken(
        &["slow", "150"],
        &["--move-ms", "100"],
        &["times", "last-square"],
    );
    let times = &report["times"];
    assert!(times["max_ms"].as_f64().unwrap() >= 150.0, "{times}");
    assert_eq!(times["limit_ms"], 100);
    let summary = find(&report, "times")["summary"].as_str().unwrap();
    assert!(summary.contains("answered late or not at all"), "{summary}");
}

#[test]
fn a_bot_that_refuses_unknown_fields_fails_that_check() {
    let report = broken(&["strict"], &[], &["unknown-fields"]);
    // The start it crashed on counts against the start-up too; nothing else fails.
    assert_eq!(failed(&report), ["startup", "unknown-fields"], "{report:#}");
    let start: Value =
        serde_json::from_str(find(&report, "unknown-fields")["sent"][0].as_str().unwrap()).unwrap();
    assert!(start.get("future_field").is_some() && start["rules"].get("future_field").is_some());
}

#[test]
fn under_a_memory_limit_a_crash_names_the_limit() {
    let report = broken(
        &["hog-memory"],
        &["--limit-memory-mb", "64"],
        &["board-8x8-3", "game-4p-seat-0"],
    );
    for id in ["board-8x8-3", "game-4p-seat-0"] {
        let summary = find(&report, id)["summary"].as_str().unwrap();
        assert!(summary.contains("memory limit of 64 MB"), "{id}: {summary}");
    }
    multiversi("check-bot")
        .args(&["--limit-files", "0", "builtin:random"])
        .run()
        .assert_code(2)
        .assert_stderr_has("--limit-files");
}

#[test]
fn the_same_seed_sends_the_same_positions() {
    let sent = |seed: &str| {
        let (_, report) = check(&["--seed", seed], &["python3", &broken_bot(), "only-8x8"]);
        find(&report, "board-10x10-3")["sent"].clone()
    };
    let first = sent("5");
    assert!(first.as_array().is_some_and(|s| s.len() == 2));
    assert_eq!(first, sent("5"));
    assert_ne!(first, sent("6"));
}

#[test]
fn a_bot_that_cannot_start_is_an_error_not_a_checklist() {
    let out = multiversi("check-bot").args(&["--", "./no/such/bot"]).run();
    out.assert_code(4)
        .assert_stderr_has("'./no/such/bot' does not exist in the current directory");
    assert!(out.stdout_bytes().is_empty());
    multiversi("check-bot")
        .args(&["builtin:nobody"])
        .run()
        .assert_code(2);
}

#[test]
fn options_after_a_one_argument_bot_say_where_they_go() {
    multiversi("check-bot")
        .args(&["python3 mybot.py", "--move-ms", "300"])
        .run()
        .assert_code(2)
        .assert_stderr_has(&format!(
            "{} check-bot --move-ms 300 \"python3 mybot.py\"",
            shell_word(env!("CARGO_BIN_EXE_multiversi"))
        ));
}

#[test]
fn a_closed_stderr_or_stdout_does_not_panic() {
    let script = broken_bot();
    // The exit code of check-bot, with its stdout and stderr sent where it is told.
    let exit_code = |stdout: Stdio, stderr: Stdio| {
        multiversi("check-bot")
            .args(&[
                "--startup-ms",
                "300",
                "--",
                "python3",
                &script,
                "never-ready",
            ])
            .env_remove("PYTHONUNBUFFERED")
            .stdout_to(stdout)
            .stderr_to(stderr)
            .run()
            .code()
    };
    // stderr into a pipe nobody reads any more, stdout to /dev/null; then the report into such a
    // pipe: no panic (exit 101), the verdict (1: a check failed) all the same.
    assert_eq!(exit_code(Stdio::null(), closed_pipe().into()), Some(1));
    assert_eq!(exit_code(closed_pipe().into(), Stdio::null()), Some(1));
}

/// A bot that plays well but never says which turn or start it answers passes, with a warning
/// that says why it matters; the same bot with the echo passes without one.
#[test]
fn a_bot_without_the_echo_passes_with_a_warning_that_says_why() {
    let dir = temp_dir("check-bot-echo");
    let script = test_bot("bad.py");
    let pids = utf8(&dir.join("pids")).to_string();
    let (out, report) = check(&[], &["python3", &script, &pids, "plain"]);
    out.assert_code(0);
    assert_eq!(report["passed"], true);
    let echo = find(&report, "echo");
    assert_eq!(echo["status"], "warning", "{echo}");
    assert_eq!(echo["passed"], true, "{echo}");
    let summary = echo["summary"].as_str().unwrap();
    // Every position check's ready and move (whole games go through the referee).
    assert!(
        summary.starts_with("12 of 12 ready answers carry no game, 12 of 12 moves of the position checks carry no ply"),
        "{summary}"
    );
    let hint = echo["hint"].as_str().unwrap();
    assert!(
        hint.contains("\"ply\"") && hint.contains("illegal move"),
        "{hint}"
    );
    let counts = &report["counts"];
    assert_eq!(
        (&counts["warnings"], &counts["failed"]),
        (&Value::from(1), &Value::from(0))
    );
    assert_eq!(
        counts["passed"].as_u64().unwrap() as usize,
        report["checks"].as_array().unwrap().len() - 1
    );

    // On the terminal: marked WARN, counted apart, and the run still passes.
    let out = multiversi("check-bot")
        .args(&["--", "python3", &script, &pids, "plain"])
        .run();
    out.assert_code(0);
    let text = out.stdout();
    assert!(
        text.lines()
            .any(|l| l.starts_with("WARN  says which start and turn it answers")),
        "{text}"
    );
    out.assert_stdout_has(
        "\nall 26 checks passed, 1 with a warning: the bot speaks the protocol.\n",
    );

    let (out, report) = check(&[], &["python3", &script, &pids, "plain+echo"]);
    out.assert_code(0);
    assert_echoes(&report);
    assert_eq!(report["counts"]["warnings"], 0);
}

/// What the checklist shows as sent is what the bot was sent, byte for byte: in whole games too,
/// where the referee plays the game (a turn rebuilt from the record showed `"last_move_ms":null`
/// where the bot had received a number). And a hint that several failures share is given once.
#[test]
fn what_the_checklist_shows_as_sent_is_what_the_bot_received() {
    let dir = temp_dir("check-bot-sent");
    let received = dir.join("received");
    // The slow bot behind `tee`, which keeps every line the bot reads.
    let script = format!(
        "tee -a {} | exec python3 {} slow 150",
        shell_word(utf8(&received)),
        shell_word(&broken_bot())
    );
    let out = multiversi("check-bot")
        .args(&["--move-ms", "100", "--", "sh", "-c", &script])
        .env_remove("PYTHONUNBUFFERED")
        .run();
    out.assert_code(1);
    let text = out.stdout();
    let lines: std::collections::HashSet<String> = std::fs::read_to_string(&received)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let (mut whole_games, mut in_whole_game) = (0, false);
    for line in text.lines() {
        if !line.starts_with(' ') {
            in_whole_game = line.starts_with("FAIL  whole game");
        }
        let Some(sent) = line.strip_prefix("        sent:   ") else {
            continue;
        };
        if sent == "(end of input)" {
            // Not a line: its stdin was closed (the exit check, failed on a busy machine).
            continue;
        }
        assert!(
            lines.contains(sent),
            "shown as sent, never received: {sent}\n{text}"
        );
        let message: Value = serde_json::from_str(sent).unwrap();
        if in_whole_game {
            // The turn it was too slow for (from ply 40 on; earlier only if a busy machine made
            // a quick answer late). After a move of its own (a seat's first turn is at the ply
            // of its seat), that move's time was sent with it.
            assert_eq!(message["type"], "turn", "{sent}");
            if message["ply"].as_u64() > message["seat"].as_u64() {
                assert!(message["last_move_ms"].is_number(), "{sent}");
                whole_games += 1;
            }
        }
    }
    assert!(whole_games > 0, "{text}");
    let hints: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("        hint:   "))
        .collect();
    let pointers = hints
        .iter()
        .filter(|h| h.starts_with("the same as for"))
        .count();
    for hint in hints.iter().filter(|h| !h.starts_with("the same as for")) {
        assert_eq!(
            hints.iter().filter(|h| *h == hint).count(),
            1,
            "{hint}\n{text}"
        );
    }
    assert!(pointers > 0, "several failures share a hint:\n{text}");
}

/// After `--`, one word is a program, taken whole: a path with a space is not split in two.
#[test]
fn a_program_path_with_a_space_after_dashes_is_taken_whole() {
    let dir = temp_dir("check-bot-spaced").join("my bots");
    std::fs::create_dir_all(&dir).unwrap();
    let bot = dir.join("bot");
    std::fs::write(
        &bot,
        format!(
            "#!/bin/sh\nexec python3 {} never-ready\n",
            shell_word(&broken_bot())
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&bot, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (out, report) = check(&["--startup-ms", "300"], &[utf8(&bot)]);
    // It started (and then never said ready): not "cannot be started" (exit 4).
    out.assert_code(1);
    assert_eq!(
        report["command"],
        serde_json::json!([utf8(&bot)]),
        "{report}"
    );
    assert_eq!(failed(&report)[0], "startup", "{report:#}");
}

/// A bot that exits at once, saying why on stderr: its startup advice does not claim it said
/// nothing, and a stdout it never wrote to passes nothing.
#[test]
fn a_bot_that_exits_at_once_is_judged_by_what_it_said() {
    let dir = temp_dir("check-bot-exits");
    let script = dir.join("exits.py");
    std::fs::write(&script, "import sys\nsys.exit('cannot load my weights')\n").unwrap();
    let (out, report) = check(&[], &["python3", utf8(&script)]);
    out.assert_code(1);
    let startup = find(&report, "startup");
    assert_eq!(startup["passed"], false);
    assert!(
        !startup.to_string().contains("without a word on stderr"),
        "{startup}"
    );
    assert!(
        find(&report, "board-8x8-3")
            .to_string()
            .contains("cannot load my weights"),
        "{report:#}"
    );
    assert_eq!(find(&report, "stdout")["status"], "not-checked");
    // The startup check, the first the author reads, shows what the bot said.
    assert!(
        startup["stderr"]
            .as_str()
            .unwrap_or("")
            .contains("cannot load my weights"),
        "{startup}"
    );
    assert_eq!(report["counts"]["passed"], 0, "{}", report["counts"]);
}

/// The slips `match` refuses before starting anything are refused here too, in the same words,
/// with exit 4 and no checklist.
#[test]
fn a_command_that_cannot_work_is_refused_before_any_check() {
    let dir = temp_dir("check-bot-slips");
    std::fs::write(dir.join("bot.py"), "print('x')\n").unwrap();
    for (command, says) in [
        (
            &["python3", "nosuch.py"][..],
            "'nosuch.py' does not exist in ",
        ),
        (&["./bot.py"][..], "'./bot.py' exists but is not executable"),
        (
            &["bot.py"][..],
            "looked up on PATH, where there is none: type \"python3 bot.py\"",
        ),
    ] {
        let out = multiversi("check-bot")
            .arg("--cwd")
            .arg(&dir)
            .arg("--")
            .args(command)
            .run();
        out.assert_code(4).assert_stderr_has(says);
        assert!(out.stdout().is_empty(), "{}", out.describe());
    }
}
