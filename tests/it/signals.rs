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
fn long_match(dir: &Path) -> KillOnDrop {
    let pids = dir.join("pids");
    let record = dir.join("games.jsonl");
    let child = multiversi()
        .args([
            "match",
            &bad_bot(&pids, "orphan", 0, "0"),
            &bad_bot(&pids, "slow", 1000, "5"),
            &bad_bot(&pids, "slow", 1000, "5"),
            "--games",
            "1000",
            "--startup-ms",
            "10000",
            "--record",
            record.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("multiversi starts");
    let child = KillOnDrop(child);
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
    // SAFETY: signalling the child we started.
    unsafe {
        libc::kill(child.id() as i32, signal);
    }
    let asked = Instant::now();
    let status = child.wait().expect("multiversi ends");
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{name}: {:?}",
        asked.elapsed()
    );
    assert_eq!(status.code(), Some(130), "{name}");
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
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
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
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
    let mut child = KillOnDrop(
        multiversi()
            .args([
                "match",
                &bad_bot(&pids, "garbage", 1, "0"),
                &bad_bot(&pids, "slow", 1000, "3000"),
                &bad_bot(&pids, "slow", 1000, "3000"),
                "--move-ms",
                "10000",
                "--record",
                dir.join("games.jsonl").to_str().unwrap(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("multiversi starts"),
    );
    // Read stderr as it comes, until the fault has been printed.
    let mut stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = std::io::Read::read(&mut stderr, &mut buf) {
            if n == 0 {
                break;
            }
            all.push_str(&String::from_utf8_lossy(&buf[..n]));
            let _ = tx.send(all.clone());
        }
        all
    });
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let seen = rx
            .recv_timeout(until.saturating_duration_since(Instant::now()))
            .expect("the fault is printed");
        if seen.contains("disqualified") {
            break;
        }
    }
    // The slow bots are thinking about their first move: the game is far from its end.
    // SAFETY: signalling the child we started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    assert_eq!(child.wait().expect("ends").code(), Some(130));
    let err = reader.join().expect("reader");
    assert!(
        err.contains("are not recorded: the interruption abandoned those games"),
        "{err}"
    );
    assert_eq!(lines(&dir.join("games.jsonl")), 0, "{err}");
    assert_no_process_left(&pids);
}
