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
