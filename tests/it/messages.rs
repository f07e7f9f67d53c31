//! What the referee tells the bots and the `--events` stream, field by field, against the game's
//! record and values worked out here: a probe bot (`tests/bots/probe.py`) writes down every
//! message it is sent.

use crate::support::*;
use multiversi::record::{FaultKind, GameRecord};
use multiversi::rules::Position;
use serde_json::{json, Value};

/// The seat whose command mentions `log` (the probe writing that log) in a game.
fn seat_of(record: &GameRecord, log: &str) -> usize {
    record
        .seats
        .iter()
        .position(|s| s.command.iter().any(|w| w.ends_with(log)))
        .expect("the probe has a seat")
}

/// Each seat's clock before ply `ply`, worked out from the record: the start, less the time of
/// each move, plus the increment after each move.
fn clocks_before(record: &GameRecord, ply: u32, clock: f64, increment: f64) -> Vec<f64> {
    let mut clocks = vec![clock; record.seats.len()];
    for m in record.moves.iter().filter(|m| m.ply < ply) {
        clocks[m.seat] += increment - m.ms;
    }
    clocks
}

fn squares(values: &[multiversi::rules::Square]) -> Vec<String> {
    values.iter().map(|s| s.to_string()).collect()
}

#[test]
fn turn_start_and_end_messages_and_events_say_what_happened() {
    let dir = temp_dir("messages");
    let record = dir.join("games.jsonl");
    // At its first turn the probe's 3000 ms clock is above the 2000 ms move limit (time_ms is
    // the move limit); it spends 600 ms on each of its first three turns, so the clock falls
    // below the limit (time_ms is the clock), with room to spare on a loaded machine.
    let watcher = probe(&dir, "log-a", &["delay=600", "delay_turns=3"]);
    // The other probe writes 5000 bytes of stderr and crashes at its third turn.
    let crasher = probe(&dir, "log-b", &["fault=stderr-crash", "at=3", "bytes=5000"]);
    let out = multiversi("match")
        .args(&[
            &watcher,
            &crasher,
            "builtin:random",
            "builtin:greedy",
            "--games",
            "2",
            "--seed",
            "11",
            "--move-ms",
            "2000",
            "--clock-ms",
            "3000",
            "--increment-ms",
            "50",
            "--startup-ms",
            "20000",
            "--grace-ms",
            "300",
            "--events",
        ])
        .record(&record)
        .ok();
    assert_no_process_left(&dir.join("pids"));
    let records = read_records(&record);
    assert_eq!(records.len(), 2);
    let log = probe_log(&dir, "log-a");
    let mut saw_clock_limit = false;
    let mut saw_move_limit = false;
    for (g, r) in records.iter().enumerate() {
        check_record(r);
        // Game ids: the match's start time, then the game's number from 0001.
        assert!(r.game.ends_with(&format!("-{:04}", g + 1)), "{}", r.game);
        assert_eq!(
            r.game[..r.game.len() - 5],
            records[0].game[..r.game.len() - 5]
        );
        let me = seat_of(r, "log-a");
        let crasher = seat_of(r, "log-b");
        // The crasher's fault: at its third turn, with the last 2000 bytes of its stderr.
        assert_eq!(r.faults.len(), 1, "{:?}", r.faults);
        let f = &r.faults[0];
        assert_eq!((f.seat, f.kind), (crasher, FaultKind::Crash), "{f:?}");
        assert_eq!(r.moves.iter().filter(|m| m.seat == crasher).count(), 2);
        let written: String = (0..5000 / 8 + 1).map(|i| format!("{i:07}\n")).collect();
        let written = &written[..5000];
        assert_eq!(f.stderr_tail, written[5000 - 2000..], "the last 2000 bytes");

        let mine: Vec<&Value> = log
            .iter()
            .filter_map(|e| e.msg.as_ref())
            .filter(|m| m["game"] == r.game.as_str())
            .collect();
        // start
        let start = mine[0];
        let players: Vec<Value> = r
            .seats
            .iter()
            .map(|s| json!({"seat": s.seat, "colour": s.colour, "name": s.name}))
            .collect();
        assert_eq!(
            *start,
            json!({"type": "start", "protocol": 1, "game": r.game, "seat": me,
                "colour": r.seats[me].colour, "players": players, "rules": r.rules,
                "size": 8, "rows": r.initial_rows,
                "time": {"move_ms": 2000, "clock_ms": 3000, "increment_ms": 50,
                         "startup_ms": 20000}})
        );
        // turns
        let turns: Vec<&Value> = mine
            .iter()
            .copied()
            .filter(|m| m["type"] == "turn")
            .collect();
        let my_moves: Vec<u32> = r
            .moves
            .iter()
            .filter(|m| m.seat == me)
            .map(|m| m.ply)
            .collect();
        let turn_plies: Vec<u32> = turns
            .iter()
            .map(|t| t["ply"].as_u64().unwrap() as u32)
            .collect();
        assert_eq!(turn_plies, my_moves, "one turn per move of the probe");
        let mut previous: Option<u32> = None;
        for t in &turns {
            let ply = t["ply"].as_u64().unwrap() as u32;
            let mut position = Position::new(r.rules.clone());
            for m in r.moves.iter().filter(|m| m.ply < ply) {
                for f in r.faults.iter().filter(|f| f.ply == m.ply) {
                    position.remove_seat(f.seat);
                }
                position.play(m.square).unwrap();
            }
            for f in r.faults.iter().filter(|f| f.ply == ply) {
                position.remove_seat(f.seat);
            }
            let (legal, kind) = position.legal_moves();
            assert!(!legal.is_empty());
            // Moves since the probe's previous turn (since the start for its first), not its own.
            let since: Vec<Value> = r
                .moves
                .iter()
                .filter(|m| m.ply < ply && previous.is_none_or(|p| m.ply > p))
                .map(|m| json!({"ply": m.ply, "seat": m.seat, "square": m.square}))
                .collect();
            assert!(since.iter().all(|m| m["seat"] != me));
            if previous.is_some() {
                assert!(!since.is_empty(), "the others moved in between");
            }
            let out: Vec<usize> = r
                .faults
                .iter()
                .filter(|f| f.ply <= ply)
                .map(|f| f.seat)
                .collect();
            let clocks = clocks_before(r, ply, 3000.0, 50.0);
            let reported: Vec<f64> = t["clocks_ms"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_f64().expect("a clock in every seat"))
                .collect();
            for (seat, (&got, &want)) in reported.iter().zip(&clocks).enumerate() {
                // The referee keeps unrounded times; the record rounds each to a microsecond.
                assert!(
                    (got - want.max(0.0).floor()).abs() <= 1.0,
                    "ply {ply} seat {seat}: clock {got}, worked out {want}"
                );
            }
            let limit = t["time_ms"].as_f64().unwrap();
            let expected = clocks[me].floor().min(2000.0);
            assert!(
                (limit - expected).abs() <= 1.0,
                "ply {ply}: {limit} vs {expected}"
            );
            if clocks[me] < 1999.0 {
                saw_clock_limit = true;
            } else {
                saw_move_limit = true;
            }
            // The time the referee measured for the probe's previous move, exactly as recorded.
            let last_move_ms = previous
                .and_then(|p| r.moves.iter().find(|m| m.ply == p))
                .map(|m| m.ms);
            let rest = json!({"type": "turn", "game": r.game, "ply": ply, "seat": me,
                "rows": position.rows(), "moves": since, "legal": squares(&legal),
                "kind": kind, "out": out, "last_move_ms": last_move_ms});
            for (key, value) in rest.as_object().unwrap() {
                assert_eq!(&t[key], value, "ply {ply}: field {key}");
            }
            assert_eq!(
                t.as_object().unwrap().len(),
                rest.as_object().unwrap().len() + 2
            );
            previous = Some(ply);
        }
        // end: the result, and the crasher's fault for the others
        let end = mine.last().unwrap();
        assert_eq!(
            **end,
            json!({"type": "end", "game": r.game, "result": r.result, "scores": r.scores,
                "rows": r.final_rows,
                "faults": [{"seat": crasher, "kind": "crash", "ply": f.ply}]})
        );
        assert_eq!(mine.len(), 2 + turns.len());
    }
    assert!(
        saw_clock_limit && saw_move_limit,
        "both limits were in force"
    );
    // The watcher was kept alive for the second game: one process, two starts.
    let pids: std::collections::BTreeSet<u32> = log.iter().map(|e| e.pid).collect();
    assert_eq!(pids.len(), 1);

    // The events, against the records.
    let events: Vec<Value> = out
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).expect("an event is JSON"))
        .collect();
    let mut expected = Vec::new();
    for r in &records {
        let mut position = Position::new(r.rules.clone());
        expected.push(
            json!({"type": "game_start", "game": r.game, "rules": r.rules,
            "seats": r.seats, "rows": r.initial_rows}),
        );
        let mut faults = r.faults.iter().peekable();
        for m in &r.moves {
            while let Some(f) = faults.next_if(|f| f.ply <= m.ply) {
                position.remove_seat(f.seat);
                expected.push(json!({"type": "fault", "game": r.game, "fault": f}));
            }
            position.play(m.square).unwrap();
            expected.push(json!({"type": "move", "game": r.game, "ply": m.ply,
                "seat": m.seat, "square": m.square, "kind": m.kind, "flips": m.flips,
                "ms": m.ms, "rows": position.rows(), "scores": position.scores()}));
        }
        for f in faults {
            expected.push(json!({"type": "fault", "game": r.game, "fault": f}));
        }
        expected.push(
            json!({"type": "game_end", "game": r.game, "result": r.result,
            "scores": r.scores, "ranking": r.ranking, "rows": r.final_rows,
            "faults": r.faults.len(), "recorded": true}),
        );
    }
    assert_eq!(events.len(), expected.len() + 1, "one match_end at the end");
    for (i, (got, want)) in events.iter().zip(&expected).enumerate() {
        let mut got = got.clone();
        if want["type"] == "fault" {
            // The time to notice a crash depends on the machine: only its kind is checked.
            let ms = got
                .as_object_mut()
                .unwrap()
                .remove("ms")
                .expect("a fault event has ms");
            assert!(ms.as_f64().is_some_and(|ms| ms >= 0.0), "{ms}");
        }
        assert_eq!(&got, want, "event {i}");
    }
    // match_end: each bot's totals over both games, worked out from the records.
    let table = &events.last().unwrap()["table"];
    assert_eq!(events.last().unwrap()["type"], "match_end");
    let rows = table.as_array().unwrap();
    assert_eq!(rows.len(), 4);
    for (bot, row) in rows.iter().enumerate() {
        // Bot k sits in seat (k - g) mod 4 in game g.
        let seats: Vec<usize> = (0..2).map(|g| (bot + 4 - g) % 4).collect();
        let wins = (0..2)
            .filter(|&g| records[g].result == multiversi::rules::Outcome::Win { winner: seats[g] })
            .count();
        // A disqualified bot loses, even when the others drew.
        let draws = (0..2)
            .filter(|&g| records[g].result == multiversi::rules::Outcome::Draw)
            .filter(|&g| records[g].faults.iter().all(|f| f.seat != seats[g]))
            .count();
        let faults: usize = (0..2)
            .map(|g| {
                records[g]
                    .faults
                    .iter()
                    .filter(|f| f.seat == seats[g])
                    .count()
            })
            .sum();
        let discs: u32 = (0..2).map(|g| records[g].scores[seats[g]]).sum();
        assert_eq!(
            row["bot"],
            records[0].seats[seats[0]].name.as_str(),
            "{row}"
        );
        assert_eq!(row["games"], 2, "{row}");
        assert_eq!(row["wins"], wins, "{row}");
        assert_eq!(row["draws"], draws, "{row}");
        assert_eq!(row["losses"], 2 - wins - draws, "{row}");
        assert_eq!(row["faults"], faults, "{row}");
        assert_eq!(row["discs"], discs, "{row}");
        let times: Vec<f64> = (0..2)
            .flat_map(|g| {
                let seat = seats[g];
                records[g]
                    .moves
                    .iter()
                    .filter(move |m| m.seat == seat)
                    .map(|m| m.ms)
            })
            .collect();
        let max = times.iter().cloned().fold(0.0, f64::max);
        assert!(
            (row["max_ms"].as_f64().unwrap() - max).abs() < 0.01,
            "{row}"
        );
        let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
        assert!(
            (row["mean_ms"].as_f64().unwrap() - mean).abs() < 0.01,
            "{row}"
        );
    }
}
