//! OS limits, the clean environment and a bubblewrap sandbox for unknown bots
//! (`tests/bots/greedy_for_resources.py`): a bot that reaches a limit is faulted with a detail
//! that names it, the game is played to its end by the others, and no process remains.

use crate::support::*;
use multiversi::record::{FaultKind, GameRecord};
use std::path::Path;
use std::time::{Duration, Instant};

/// The command line of the resource-hungry bot (`arg` is its mode's parameter; empty, none is
/// given).
fn hungry_bot(dir: &Path, mode: &str, arg: &str) -> String {
    hungry_bot_run_by("python3", dir, mode, arg)
}

/// `hungry_bot` with the Python interpreter `python`.
fn hungry_bot_run_by(python: &str, dir: &Path, mode: &str, arg: &str) -> String {
    let (script, pids) = (test_bot("greedy_for_resources.py"), dir.join("pids"));
    let mut words = vec![python, &script, utf8(&pids), mode];
    if !arg.is_empty() {
        words.push(arg);
    }
    bot_cmd(&words)
}

/// Plays `games` 4-player games with `bot` in the first seat and three built-in bots, with
/// `extra` options; checks that the match succeeded, that every record replays and that no
/// process of the bot remains. Returns the records and the referee's stderr.
fn games_with(dir: &Path, bot: &str, games: u32, extra: &[&str]) -> (Vec<GameRecord>, String) {
    let record = dir.join("games.jsonl");
    let games = games.to_string();
    let cwd = format!("1={}", dir.display());
    let out = multiversi("match")
        .args(&[bot, "builtin:random", "builtin:greedy", "builtin:random"])
        .args(&["--seed", "9", "--games", &games])
        // Far beyond what any of these bots needs even on a loaded machine: a fault here comes
        // from a limit, never from the clock.
        .args(&["--move-ms", "60000", "--grace-ms", "200", "--cwd", &cwd])
        .record(&record)
        .args(extra)
        .ok();
    let records = read_records(&record);
    for r in &records {
        check_record(r);
    }
    (records, out.stderr())
}

/// One game with the hungry bot under `limit`; returns the detail of the bot's one fault.
fn one_fault(name: &str, mode: &str, arg: &str, limit: &[&str]) -> String {
    let dir = temp_dir(name);
    let (records, err) = games_with(&dir, &hungry_bot(&dir, mode, arg), 1, limit);
    assert_no_process_left(&dir.join("pids"));
    let record = &records[0];
    assert_eq!(record.faults.len(), 1, "{:?}", record.faults);
    let fault = &record.faults[0];
    assert_eq!((fault.seat, fault.kind), (0, FaultKind::Crash), "{fault:?}");
    // The other three played the board to its end.
    assert!(record.moves.len() > 40, "{} moves", record.moves.len());
    assert!(err.contains(&fault.detail), "{err}");
    fault.detail.clone()
}

#[test]
fn a_bot_that_allocates_without_end_meets_its_memory_limit() {
    let detail = one_fault("limit-memory", "memory", "", &["--limit-memory-mb", "64"]);
    assert_eq!(
        detail,
        "memory limit of 64 MB reached: exited (exit code 1)"
    );
}

#[test]
fn a_bot_that_computes_without_end_meets_its_cpu_limit() {
    // A crash by SIGXCPU: the kernel stopped it, not the move time limit.
    let detail = one_fault("limit-cpu", "cpu", "", &["--limit-cpu-s", "1"]);
    assert_eq!(
        detail,
        "CPU limit of 1 s per game reached: exited (killed by signal 24 (SIGXCPU))"
    );
}

#[test]
fn a_bot_that_catches_sigxcpu_is_faulted_when_it_answers() {
    let detail = one_fault(
        "limit-cpu-caught",
        "cpu-stubborn",
        "1.6",
        &["--limit-cpu-s", "1"],
    );
    assert_eq!(
        detail,
        "CPU limit of 1 s per game reached: answered after its CPU time was up (it caught SIGXCPU)"
    );
}

#[test]
fn the_cpu_allowance_is_renewed_for_every_game_of_a_bot_kept_alive() {
    // 0.5 s a game under a limit of 1 s: three games add up to 1.5 s of the process's life. (Not
    // closer to the limit: on a loaded virtual machine a process is charged more CPU time than
    // its own clock counts, and 0.7 s failed there.)
    let dir = temp_dir("limit-cpu-per-game");
    let bot = hungry_bot(&dir, "cpu-each-game", "0.5");
    let (records, err) = games_with(&dir, &bot, 3, &["--limit-cpu-s", "1"]);
    assert_no_process_left(&dir.join("pids"));
    assert_eq!(records.len(), 3);
    for r in &records {
        assert!(r.faults.is_empty(), "{:?}\n{err}", r.faults);
    }
    // One process played all three games.
    let pids = std::fs::read_to_string(dir.join("pids")).unwrap();
    assert_eq!(pids.lines().count(), 1, "{pids}");
}

#[test]
fn a_bot_that_writes_a_huge_file_meets_its_file_size_limit() {
    let detail = one_fault(
        "limit-file-size",
        "file-size",
        "",
        &["--limit-file-size-mb", "2"],
    );
    assert_eq!(
        detail,
        "file size limit of 2 MB reached: exited (killed by signal 25 (SIGXFSZ))"
    );
    let written = std::fs::metadata(temp_dir_path("limit-file-size").join("huge.bin")).unwrap();
    assert_eq!(written.len(), 2 << 20);
}

#[test]
fn a_bot_that_opens_files_without_end_meets_its_open_files_limit() {
    let detail = one_fault("limit-files", "files", "", &["--limit-files", "32"]);
    assert_eq!(
        detail,
        "open files limit of 32 reached: exited (exit code 1)"
    );
}

#[test]
fn limits_of_zero_are_usage_errors() {
    for (flag, message) in [
        (
            "--limit-cpu-s",
            "--limit-cpu-s 0: a limit must be at least 1",
        ),
        (
            "--limit-memory-mb",
            "--limit-memory-mb 0: a limit must be at least 1",
        ),
    ] {
        let out = multiversi("match").args(&[flag, "0"]).run();
        out.assert_code(2);
        out.assert_stderr_has(message);
    }
}

/// The environment a bot reports in its ready name, as NAME=VALUE pairs.
fn reported_env(clean: bool) -> Vec<String> {
    let dir = temp_dir(if clean { "env-clean" } else { "env-inherited" });
    let record = dir.join("games.jsonl");
    // The interpreter itself: a launcher such as a pyenv shim adds variables of its own.
    let python = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .unwrap();
    let python = String::from_utf8(python.stdout).unwrap();
    let bot = hungry_bot_run_by(python.trim(), &dir, "env", "");
    let command = multiversi("match")
        .args(&[&bot, "builtin:random", "builtin:random"])
        .record(&record)
        .env("MULTIVERSI_TEST_SECRET", "hunter2")
        .env("LANG", "C.UTF-8");
    if clean {
        command.arg("--clean-env").ok();
    } else {
        command.ok();
    }
    let records = read_records(&record);
    let name = records[0].seats[0]
        .ready
        .as_ref()
        .unwrap()
        .name
        .clone()
        .unwrap();
    let env = name.strip_prefix("env:").unwrap();
    env.split(';').map(str::to_string).collect()
}

#[test]
fn clean_env_gives_a_bot_only_path_home_and_lang() {
    let inherited = reported_env(false);
    assert!(inherited.contains(&"MULTIVERSI_TEST_SECRET=hunter2".to_string()));
    let clean = reported_env(true);
    let names: Vec<&str> = clean.iter().filter_map(|v| v.split('=').next()).collect();
    assert_eq!(names, ["HOME", "LANG", "PATH"], "{clean:?}");
    assert!(clean.contains(&"LANG=C.UTF-8".to_string()));
    let path = std::env::var("PATH").unwrap();
    assert!(clean.contains(&format!("PATH={path}")));
}

/// The directory `temp_dir(name)` made, without emptying it again.
fn temp_dir_path(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// Processes whose command line mentions `marker` (the sandboxed bot's pids are those of its
/// own pid namespace, so it cannot write down the ones seen from here).
fn processes_mentioning(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            if String::from_utf8_lossy(&cmdline).contains(marker) {
                found.push(pid);
            }
        }
    }
    found
}

/// The bubblewrap recipe of README.md, "Running unknown bots", as the start of a bot command.
fn bwrap_prefix(bot_dir: &Path) -> String {
    let dir = utf8(bot_dir);
    bot_cmd(&[
        "bwrap",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--bind",
        dir,
        dir,
        "--chdir",
        dir,
        "--unshare-all",
        "--die-with-parent",
        "--",
    ])
}

fn assert_bwrap_runs() {
    assert!(
        std::process::Command::new("bwrap")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success()),
        "bwrap is missing: install Debian's bubblewrap package (.ci/setup does)"
    );
}

#[test]
fn a_bot_under_bubblewrap_has_no_network_and_cannot_write_outside_its_directory() {
    assert_bwrap_runs();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let outside = temp_dir("sandbox-outside");
    let report = |sandboxed: bool| {
        let dir = temp_dir(if sandboxed {
            "sandbox-bot"
        } else {
            "sandbox-free"
        });
        let bot = hungry_bot(&dir, "sandbox", &format!("{port}:{}", outside.display()));
        let command = if sandboxed {
            format!("{} {bot}", bwrap_prefix(&dir))
        } else {
            bot
        };
        let (records, err) = games_with(&dir, &command, 1, &[]);
        let record = &records[0];
        // The sandboxed bot played the whole game.
        assert!(record.faults.is_empty(), "{:?}\n{err}", record.faults);
        assert!(record.moves.len() > 40);
        assert!(record.moves.iter().filter(|m| m.seat == 0).count() > 10);
        assert_eq!(record.seats[0].name, "greedy_for_resources");
        let until = Instant::now() + Duration::from_secs(3);
        let marker = dir.display().to_string();
        while !processes_mentioning(&marker).is_empty() {
            assert!(Instant::now() < until, "a process of the bot is left");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(dir.join("inside.txt").exists());
        record.seats[0]
            .ready
            .as_ref()
            .unwrap()
            .name
            .clone()
            .unwrap()
    };
    // Without the sandbox the same bot reaches both: the test can tell.
    assert_eq!(report(false), "net=open,write=open,own-dir=writable");
    std::fs::remove_file(outside.join("escaped.txt")).unwrap();
    let confined = report(true);
    // ECONNREFUSED or ENETUNREACH in its own network namespace; EROFS outside its directory.
    assert!(confined.starts_with("net=blocked("), "{confined}");
    assert!(
        confined.ends_with(",write=blocked(30),own-dir=writable"),
        "{confined}"
    );
    assert!(!outside.join("escaped.txt").exists());
}

#[test]
fn limits_reach_a_bot_inside_the_sandbox_and_are_named() {
    assert_bwrap_runs();
    let dir = temp_dir("sandbox-cpu");
    let bot = format!("{} {}", bwrap_prefix(&dir), hungry_bot(&dir, "cpu", ""));
    let (records, err) = games_with(&dir, &bot, 1, &["--limit-cpu-s", "1"]);
    let fault = &records[0].faults[0];
    // bubblewrap reports its child's SIGXCPU as exit code 128 + 24.
    assert_eq!(
        (fault.seat, fault.kind, fault.detail.as_str()),
        (
            0,
            FaultKind::Crash,
            "CPU limit of 1 s per game reached: exited (exit code 152)"
        ),
        "{err}"
    );
    let marker = dir.display().to_string();
    let until = Instant::now() + Duration::from_secs(3);
    while !processes_mentioning(&marker).is_empty() {
        assert!(Instant::now() < until, "a process of the bot is left");
        std::thread::sleep(Duration::from_millis(10));
    }
}
