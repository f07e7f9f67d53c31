//! Fault kinds and line endings beyond `faults.rs`: the wrong message at the wrong time, a bot
//! that closes its output but keeps running, answers after the deadline (whole or half a line
//! before it), `\r\n` endings and the 16384-byte line limit, each with a probe bot
//! (`tests/bots/probe.py`) in seat 0 of a 4-player game.

use crate::support::*;
use multiversi::record::{FaultKind, GameRecord};
use serde_json::Value;

/// Plays one game with a probe with `options` (words apart by spaces) in seat 0; returns its
/// record and the `ms` of its fault event, if any.
fn probe_game(name: &str, options: &str) -> (GameRecord, Option<f64>) {
    let dir = temp_dir(&format!("kind-{name}"));
    let record = dir.join("games.jsonl");
    let options: Vec<&str> = options.split_whitespace().collect();
    let out = multiversi("match")
        .args(&[
            &probe(&dir, "log", &options),
            "builtin:random",
            "builtin:greedy",
        ])
        .args(&["builtin:random", "--seed", "5", "--move-ms", "1000"])
        .args(&["--startup-ms", "20000", "--grace-ms", "200", "--events"])
        .record(&record)
        .ok();
    assert_no_process_left(&dir.join("pids"));
    let mut records = read_records(&record);
    assert_eq!(records.len(), 1);
    let fault_ms = out
        .stdout()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("an event"))
        .find(|e| e["type"] == "fault")
        .map(|e| e["ms"].as_f64().expect("a fault event's ms"));
    (records.remove(0), fault_ms)
}

#[test]
fn wrong_messages_closed_output_and_late_lines_are_faults() {
    // (name, options, kind, ply, part of the offending text, the most the fault may take in ms)
    type Case = (
        &'static str,
        &'static str,
        FaultKind,
        u32,
        Option<&'static str>,
        f64,
    );
    let cases: &[Case] = &[
        (
            "move-at-start",
            "fault=move-at-start",
            FaultKind::Malformed,
            0,
            Some("\"move\""),
            20000.0,
        ),
        (
            "ready-at-turn",
            "fault=ready-at-turn at=2",
            FaultKind::Malformed,
            4,
            Some("\"ready\""),
            1000.0,
        ),
        (
            "close-stdout",
            "fault=close-stdout at=2",
            FaultKind::Crash,
            4,
            None,
            1000.0,
        ),
        // An answer 3000 ms into a 1000 ms limit: flagged at the deadline, not when it comes.
        (
            "late",
            "fault=late at=2 ms=3000",
            FaultKind::Timeout,
            4,
            None,
            2500.0,
        ),
        // Half a line before the deadline does not move it.
        (
            "half-line",
            "fault=half-line at=2 ms=3500",
            FaultKind::Timeout,
            4,
            None,
            2500.0,
        ),
        (
            "line-16385",
            "pad=16385",
            FaultKind::Malformed,
            0,
            Some("{\"type\": \"move\""),
            1000.0,
        ),
    ];
    let handles: Vec<_> = cases
        .iter()
        .map(|&(name, options, kind, ply, text, most_ms)| {
            std::thread::spawn(move || {
                let (r, ms) = probe_game(name, options);
                assert_eq!(r.faults.len(), 1, "{name}: {:?}", r.faults);
                let f = &r.faults[0];
                assert_eq!((f.seat, f.kind), (0, kind), "{name}: {f:?}");
                if let Some(text) = text {
                    assert!(
                        f.text.as_deref().unwrap_or("").contains(text),
                        "{name}: {f:?}"
                    );
                }
                if kind == FaultKind::Timeout {
                    assert!(f.detail.contains("1000"), "{name}: {f:?}");
                }
                let ms = ms.expect("a fault event");
                assert!(ms < most_ms, "{name}: noticed after {ms} ms");
                check_disqualified(&r, ply);
            })
        })
        .collect();
    for h in handles {
        h.join().expect("case passed");
    }
}

#[test]
fn crlf_endings_and_a_line_of_exactly_16384_bytes_are_accepted() {
    let handles: Vec<_> = [("crlf", "crlf=1"), ("line-16384", "pad=16384")]
        .into_iter()
        .map(|(name, options)| {
            std::thread::spawn(move || {
                let (r, ms) = probe_game(name, options);
                assert!(r.faults.is_empty(), "{name}: {:?}", r.faults);
                assert_eq!(ms, None);
                assert!(r.seats[0].ready.is_some());
                assert!(r.moves.iter().filter(|m| m.seat == 0).count() >= 10);
                check_record(&r);
            })
        })
        .collect();
    for h in handles {
        h.join().expect("case passed");
    }
}
