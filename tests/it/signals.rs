//! Ctrl-C, SIGTERM, SIGHUP and a killed referee: every bot goes, finished games stay on disk.

use crate::support::*;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Waits until `check` holds, or fails after a generous time.
fn wait_for(what: &str, mut check: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(20);
    while !check() {
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

/// Starts a long match of slow bots (one with a helper that ignores SIGTERM) and returns it
/// once at least one game is on disk.
fn long_match(dir: &Path) -> Running {
    let pids = dir.join("pids");
    let record = dir.join("games.jsonl");
    let child = multiversi("match")
        .args(&[
            &bad_bot(&pids, "orphan", 0, "0"),
            &bad_bot(&pids, "slow", 1000, "5"),
            &bad_bot(&pids, "slow", 1000, "5"),
            "--games",
            "1000",
            "--startup-ms",
            "10000",
        ])
        .record(&record)
        .stdout_to(Stdio::null())
        .spawn();
    wait_for("a finished game", || lines(&record) >= 1);
    child
}

#[test]
fn ctrl_c_sigterm_and_sighup_end_the_run_at_once_and_keep_finished_games() {
    let handles: Vec<_> = [
        (libc::SIGINT, "sigint"),
        (libc::SIGTERM, "sigterm"),
        (libc::SIGHUP, "sighup"),
    ]
    .into_iter()
    .map(|(signal, name)| std::thread::spawn(move || interrupt(signal, name)))
    .collect();
    for h in handles {
        h.join().expect("case passed");
    }
}

/// Sends `signal` to a long match once a game is on disk, and checks how the match ends.
fn interrupt(signal: libc::c_int, name: &str) {
    let dir = temp_dir(name);
    let mut child = long_match(&dir);
    child.signal(signal);
    let asked = Instant::now();
    let status = child.wait();
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{name}: {:?}",
        asked.elapsed()
    );
    assert_eq!(status.code(), Some(130), "{name}");
    let err = child.finish().stderr();
    assert!(err.contains("interrupted after"), "{name}: {err}");
    // The signal's handler killed the bots: that is not their fault, and nothing says it is.
    assert!(!err.contains("disqualified"), "{name}: {err}");
    // Every line on disk is a whole game that holds, and the game cut short is not there.
    let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    assert!(text.ends_with('\n'), "{name}: a line cut short");
    let records = read_records(&dir.join("games.jsonl"));
    assert!(!records.is_empty());
    for r in &records {
        check_record(r);
    }
    assert_no_process_left(&dir.join("pids"));
}

#[test]
fn a_killed_referee_takes_its_bots_and_their_helpers_along() {
    let dir = temp_dir("sigkill");
    let mut child = long_match(&dir);
    child.signal(libc::SIGKILL);
    child.wait();
    // Complete lines only: the game being played when the referee died is simply not there.
    for r in read_records(&dir.join("games.jsonl")) {
        check_record(&r);
    }
    assert_no_process_left(&dir.join("pids"));
}

/// A fault printed in a game that Ctrl-C then abandons: the end says that game is not recorded.
#[test]
fn a_fault_in_a_game_that_ctrl_c_abandons_is_said_to_be_not_recorded() {
    let dir = temp_dir("ctrl-c-fault");
    let pids = dir.join("pids");
    let logs = dir.join("logs");
    let record = dir.join("games.jsonl");
    let mut child = multiversi("match")
        .args(&[
            &bad_bot(&pids, "garbage", 1, "0"),
            &bad_bot(&pids, "slow", 1000, "3000"),
            &bad_bot(&pids, "slow", 1000, "3000"),
            "--move-ms",
            "10000",
            "--log-dir",
            logs.to_str().expect("a UTF-8 path"),
        ])
        .record(&record)
        .stdout_to(Stdio::null())
        .spawn();
    // The referee notes the disqualification in the bot's log as it happens; the slow bots are
    // then thinking about their first moves, far from the game's end.
    wait_for("the fault", || {
        std::fs::read_dir(&logs).is_ok_and(|entries| {
            entries.flatten().any(|e| {
                std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains("disqualified at ply"))
            })
        })
    });
    // The fault's event reaches the main thread a moment after the note.
    std::thread::sleep(Duration::from_millis(300));
    child.signal(libc::SIGINT);
    assert_eq!(child.wait().code(), Some(130));
    let err = child.finish().stderr();
    assert!(err.contains("disqualified at ply 0: malformed"), "{err}");
    assert!(
        err.contains("are not recorded: the interruption abandoned those games"),
        "{err}"
    );
    assert_eq!(lines(&record), 0, "{err}");
    assert_no_process_left(&pids);
}
