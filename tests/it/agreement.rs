//! check-bot judges a bot's answers exactly as a match does: for each way a scripted bot
//! (`tests/bots/bad.py`) misbehaves, the fault a match records and the fault check-bot reports
//! have the same kind and the same words, because both go through the one bot connection.

use crate::support::*;
use multiversi::record::GameRecord;
use serde_json::Value;

/// The fault a 4-player match records for `bad.py MODE` in seat 0, as `kind: detail`.
fn match_fault(name: &str, mode: &str) -> String {
    let dir = temp_dir(name);
    let bot = bad_bot(&dir.join("pids"), mode, 1, "0");
    let record = dir.join("games.jsonl");
    let out = multiversi("match")
        .args(&[&bot, "builtin:random", "builtin:random", "builtin:random"])
        .args(&["--games", "1", "--move-ms", "2000"])
        .record(&record)
        .run();
    let games: Vec<GameRecord> = read_records(&record);
    assert_eq!(games.len(), 1, "{}", out.describe());
    let fault = games[0]
        .faults
        .iter()
        .find(|f| f.seat == 0)
        .unwrap_or_else(|| panic!("{mode}: no fault of seat 0 in {:?}", games[0].faults));
    format!(
        "{}: {}",
        multiversi::explain::kind_name(fault.kind),
        fault.detail
    )
}

/// The first failed position check of `check-bot` on `bad.py MODE`.
fn check_bot_fault(name: &str, mode: &str) -> Value {
    let dir = temp_dir(name);
    let pids = dir.join("pids");
    let out = multiversi("check-bot")
        .args(&[
            "--json",
            "--move-ms",
            "2000",
            "--",
            "python3",
            &test_bot("bad.py"),
        ])
        .arg(&pids)
        .args(&[mode, "1", "0"])
        .run();
    let report: Value = serde_json::from_slice(out.stdout_bytes())
        .unwrap_or_else(|e| panic!("no JSON ({e}): {}", out.describe()));
    report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["passed"] == false && c["id"] != "startup")
        .cloned()
        .unwrap_or_else(|| panic!("{mode}: no failed check in {report:#}"))
}

/// Both record the fault `expected` (its beginning: `kind: detail`); with `exact`, check-bot's
/// words are the match's, whole (the fault does not depend on the position).
fn agree_on(mode: &str, expected: &str, exact: bool) {
    let in_match = match_fault(&format!("agree-match-{mode}"), mode);
    assert!(
        in_match.starts_with(expected),
        "{mode}: the match recorded {in_match:?}, expected {expected:?}"
    );
    let check = check_bot_fault(&format!("agree-check-{mode}"), mode);
    let summary = check["summary"].as_str().unwrap_or_default();
    let said = if exact { in_match.as_str() } else { expected };
    assert!(
        summary.contains(&format!(": {said}")),
        "{mode}: the match recorded {in_match:?}, check-bot said {summary:?}:\n{check:#}"
    );
}

fn agree(mode: &str, expected: &str) {
    agree_on(mode, expected, true);
}

/// A bot that writes `ready` and a move in one write: the move was owed to nobody. check-bot used
/// to take it as the answer to its next position.
#[test]
fn a_move_written_with_ready_is_a_line_nobody_asked_for_in_both() {
    agree("eager", "malformed: sent a line when no reply was due");
    // The turn never went out: the check shows only the start as sent.
    let check = check_bot_fault("agree-check-eager-sent", "eager");
    let sent: Vec<&str> = check["sent"]
        .as_array()
        .expect("sent")
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(
        !sent.is_empty() && sent.iter().all(|l| !l.contains(r#""type":"turn""#)),
        "{check:#}"
    );
    assert!(
        check["summary"]
            .as_str()
            .unwrap()
            .contains("before the turn was sent"),
        "{check:#}"
    );
}

/// A bot that dies while a helper of its own keeps its stdout open: a crash, not a timeout.
#[test]
fn a_death_behind_a_helper_that_keeps_stdout_open_is_a_crash_in_both() {
    agree(
        "daemon-stdout",
        "crash: exited (exit code 3) while a process it started still holds its stdout open",
    );
}

/// Two answers to one turn in one write: the second is a line nobody asked for, not a line
/// after the end of the game.
#[test]
fn a_second_answer_in_the_same_write_is_a_line_nobody_asked_for_in_both() {
    agree("spam", "malformed: sent a line when no reply was due");
    // ... with the match's hint about two answers, not the generic one about the form.
    let check = check_bot_fault("agree-check-spam-hint", "spam");
    assert!(
        check["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("two answers to one message?"),
        "{check:#}"
    );
}

#[test]
fn garbage_a_crash_and_an_illegal_move_read_alike_in_both() {
    agree("garbage", "malformed: not JSON");
    agree("crash", "crash: exited (exit code 3)");
    agree("unknown", "malformed: unknown message type");
    // The square it plays depends on the position: the kind and the rule it broke agree.
    agree_on("illegal", "illegal: illegal move", false);
}
