//! The runner shared by `match` and `league`: games in parallel, records that never interleave
//! or repeat, seatings, bots that never answer, resumable leagues.

use crate::support::{read_records, run, stderr, stdout, temp_dir};
use std::collections::HashSet;

fn random_match(record: &std::path::Path, games: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "match",
        "builtin:random",
        "builtin:random",
        "builtin:greedy",
        "builtin:random",
        "--seed",
        "11",
        "--move-ms",
        "200",
        "--games",
        games,
        "--record",
        record.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn a_match_on_two_workers_plays_every_seating_once() {
    let dir = temp_dir("match-concurrency");
    let record = dir.join("games.jsonl");
    let out = random_match(&record, "30", &["--concurrency", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("30 game(s) recorded in") && stderr(&out).contains("holds 30"),
        "{}",
        stderr(&out)
    );
    let records = read_records(&record);
    assert_eq!(records.len(), 30);
    let ids: HashSet<&str> = records.iter().map(|r| r.game.as_str()).collect();
    assert_eq!(ids.len(), 30);
    let indices: HashSet<u64> = records
        .iter()
        .map(|r| r.schedule.as_ref().unwrap().index)
        .collect();
    assert_eq!(indices, (0..30).collect());
    // The first deal's 24 games seat the four bots in all 24 orders.
    let orders: HashSet<Vec<String>> = records
        .iter()
        .filter(|r| r.schedule.as_ref().unwrap().deal == 0)
        .map(|r| r.seats.iter().map(|s| s.name.clone()).collect())
        .collect();
    assert_eq!(orders.len(), 24);
    for r in &records {
        crate::matches::check_record(r);
    }
    // The table counts every game of every bot.
    let table = stdout(&out);
    let row = table.lines().find(|l| l.starts_with("greedy ")).unwrap();
    assert_eq!(row.split_whitespace().nth(1), Some("30"), "{table}");
}

#[test]
fn a_record_file_cut_mid_line_gets_the_next_game_on_a_line_of_its_own() {
    let dir = temp_dir("match-cut-line");
    let record = dir.join("games.jsonl");
    let out = random_match(&record, "1", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    // A kill in the middle of a write leaves a line without its end.
    let mut text = std::fs::read(&record).unwrap();
    let cut = text.len() / 2;
    text.truncate(cut);
    std::fs::write(&record, &text).unwrap();
    let out = random_match(&record, "2", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&record).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(serde_json::from_str::<serde_json::Value>(lines[0]).is_err());
    for line in &lines[1..] {
        serde_json::from_str::<multiversi::record::GameRecord>(line).expect("a whole game");
    }
    assert!(stderr(&out).contains("holds 3"), "{}", stderr(&out));
}

#[test]
fn matches_started_together_never_share_game_ids() {
    let dir = temp_dir("match-ids");
    let record = dir.join("games.jsonl");
    let children: Vec<_> = (0..3)
        .map(|_| {
            crate::support::multiversi()
                .args([
                    "match",
                    "--players",
                    "3",
                    "--move-ms",
                    "20",
                    "--games",
                    "4",
                    "--record",
                    record.to_str().unwrap(),
                ])
                .output()
        })
        .collect();
    for child in children {
        assert!(child.unwrap().status.success());
    }
    let records = read_records(&record);
    assert_eq!(records.len(), 12);
    let ids: HashSet<&str> = records.iter().map(|r| r.game.as_str()).collect();
    assert_eq!(ids.len(), 12);
}

#[test]
fn a_bot_that_never_answers_start_stops_a_match_unless_told_to_keep_going() {
    let dir = temp_dir("match-silent");
    let record = dir.join("games.jsonl");
    let missing = dir.join("nosuchbot.py");
    let bot = format!("python3 {}", missing.display());
    let args = |extra: &[&'static str]| {
        let mut v: Vec<String> = vec![
            "match".into(),
            bot.clone(),
            "builtin:random".into(),
            "builtin:random".into(),
            "--games".into(),
            "20".into(),
            "--move-ms".into(),
            "50".into(),
            "--concurrency".into(),
            "1".into(),
            "--record".into(),
            record.to_str().unwrap().into(),
        ];
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let out = crate::support::multiversi()
        .args(args(&[]))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("never answered start"), "{err}");
    assert!(err.contains("nosuchbot.py"), "{err}");
    assert!(err.contains("hint:"), "{err}");
    assert!(err.contains("--keep-going"), "{err}");
    // It stopped at once: the one game it played is recorded, not twenty lost ones.
    assert_eq!(read_records(&record).len(), 1);

    let out = crate::support::multiversi()
        .args(args(&["--keep-going"]))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(read_records(&record).len(), 21);
}
