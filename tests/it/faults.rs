//! Scripted misbehaving bots (`tests/bots/bad.py`): every fault kind ends in the right record,
//! the game completes for the others, and no process remains afterwards (checked in /proc).

use crate::support::*;
use multiversi::record::{FaultKind, GameRecord};
use std::path::Path;

/// Plays one 4-player game with the scripted bot in seat 0 and three built-in bots.
fn one_game(name: &str, mode: &str, turn: u32, startup_ms: &str) -> (GameRecord, String) {
    let dir = temp_dir(name);
    let pids = dir.join("pids");
    game_with(&dir, &bad_bot(&pids, mode, turn, "0"), startup_ms)
}

/// Plays one 4-player game with `bot` in seat 0; `dir/pids` lists the processes to check.
fn game_with(dir: &Path, bot: &str, startup_ms: &str) -> (GameRecord, String) {
    let pids = dir.join("pids");
    let record = dir.join("games.jsonl");
    let out = multiversi("match")
        .args(&[bot, "builtin:random", "builtin:greedy", "builtin:random"])
        .args(&[
            "--seed",
            "5",
            "--move-ms",
            "400",
            "--startup-ms",
            startup_ms,
        ])
        .args(&["--grace-ms", "200"])
        // Some of these bots never answer start; the game is still played and recorded.
        .arg("--keep-going")
        .record(&record)
        .ok();
    assert_no_process_left(&pids);
    let mut records = read_records(&record);
    assert_eq!(records.len(), 1);
    (records.remove(0), out.stderr())
}

#[test]
fn each_fault_kind_is_recorded_and_the_game_goes_on() {
    let cases: &[(&str, FaultKind, &str, Option<&str>)] = &[
        ("hang", FaultKind::Timeout, "no move within 400 ms", None),
        // Its stderr flood ended a turn before: its timeout is not put down to it.
        (
            "flood-then-hang",
            FaultKind::Timeout,
            "no move within 400 ms",
            None,
        ),
        (
            "stderr-hog",
            FaultKind::Timeout,
            "no move within 400 ms; at its deadline it was writing to its stderr faster than the referee reads it",
            None,
        ),
        ("crash", FaultKind::Crash, "exit code 3", None),
        (
            "signal",
            FaultKind::Crash,
            "killed by signal 11 (SIGSEGV)",
            None,
        ),
        (
            "garbage",
            FaultKind::Malformed,
            "not JSON",
            Some("this is not json"),
        ),
        (
            "binary",
            FaultKind::Malformed,
            "not UTF-8",
            Some("{\"type\":\"move\""),
        ),
        (
            "flood",
            FaultKind::Malformed,
            "longer than 16384 bytes",
            Some("xxxx"),
        ),
        (
            "unknown",
            FaultKind::Malformed,
            "unknown message type 'pass'",
            Some("{\"type\":\"pass\"}"),
        ),
        (
            "illegal",
            FaultKind::Illegal,
            "the square is occupied",
            Some("\"square\": \""),
        ),
        (
            "spam",
            FaultKind::Malformed,
            "no reply was due",
            Some("\"type\": \"move\""),
        ),
    ];
    // Run the cases side by side: each waits on its own bots, not on the CPU.
    let handles: Vec<_> = cases
        .iter()
        .map(|&(mode, kind, detail, text)| {
            std::thread::spawn(move || {
                let (r, err) = one_game(&format!("fault-{mode}"), mode, 2, "10000");
                let f = &r.faults[0];
                assert_eq!(f.kind, kind, "{mode}: {f:?}");
                assert!(f.detail.contains(detail), "{mode}: {f:?}");
                if let Some(text) = text {
                    assert!(
                        f.text.as_deref().unwrap_or("").contains(text),
                        "{mode}: {f:?}"
                    );
                }
                assert!(f.text.as_deref().unwrap_or("").chars().count() <= 201);
                // Only a bot that flooded its stderr is said to have waited on it.
                assert_eq!(
                    f.detail.contains("stderr"),
                    mode == "stderr-hog",
                    "{mode}: {f:?}"
                );
                if mode == "stderr-hog" {
                    assert!(err.contains("was writing to stderr faster than"), "{err}");
                }
                if mode != "flood" && mode != "stderr-hog" {
                    assert!(
                        f.stderr_tail
                            .contains(&format!("misbehaving on purpose: {mode}")),
                        "{mode}: {f:?}"
                    );
                }
                // The spam bot's extra line is noticed right after its move, before the next
                // turn goes out.
                let ply = if mode == "spam" { 5 } else { 4 };
                check_disqualified(&r, ply);
                assert!(err.contains("disqualified"), "{mode}: {err}");
            })
        })
        .collect();
    for h in handles {
        h.join().expect("case passed");
    }
}

#[test]
fn a_bot_that_closed_its_stdin_times_out_with_words_that_say_so() {
    let (r, err) = one_game("fault-close-stdin", "close-stdin", 1, "10000");
    assert_eq!(r.faults.len(), 1, "{:?}", r.faults);
    let f = &r.faults[0];
    assert_eq!((f.seat, f.kind), (0, FaultKind::Timeout), "{f:?}");
    assert!(
        f.detail
            .contains("no move within 400 ms; it had closed its stdin"),
        "{f:?}"
    );
    // It answered its first turn; the next one could not be written to it.
    let first_turn = r.moves.iter().find(|m| m.seat == 0).expect("its move").ply;
    assert!(f.ply > first_turn, "{f:?}");
    assert!(err.contains("closed its standard input"), "{err}");
}

#[test]
fn faults_before_the_first_move() {
    // A shell bot starts fast even on a loaded machine, so a short startup limit is safe here.
    let dir = temp_dir("no-ready");
    let pids = dir.join("pids");
    let script = format!("echo $$ >> {}; exec sleep 100", shell_word(utf8(&pids)));
    let bot = bot_cmd(&["sh", "-c", &script]);
    let (r, _) = game_with(&dir, &bot, "1000");
    assert_eq!(r.faults[0].kind, FaultKind::Timeout);
    assert!(r.faults[0].detail.contains("no ready within 1000 ms"));
    assert!(r.seats[0].ready.is_none());
    check_disqualified(&r, 0);

    let (r, _) = one_game("exit-at-once", "exit-at-once", 1, "10000");
    assert_eq!(r.faults[0].kind, FaultKind::Crash);
    assert!(r.faults[0].detail.contains("exit code 2"), "{:?}", r.faults);
    assert!(r.faults[0].stderr_tail.contains("exiting before ready"));
    check_disqualified(&r, 0);
}

#[test]
fn a_helper_that_ignores_sigterm_is_killed_with_its_group() {
    let (r, _) = one_game("orphan", "orphan", 1, "10000");
    assert!(r.faults.is_empty(), "{:?}", r.faults);
    check_record(&r);
}

#[test]
fn a_helper_that_leaves_its_group_is_killed_at_the_end_and_after_a_crash() {
    // The helper (a daemonising double fork with setsid) is out of reach of the group kill:
    // the referee finds it among the orphans it inherits as a child subreaper.
    // With "daemon-stdout" the helper also holds the bot's stdout open: the crash is still
    // recorded as a crash (noticed when the bot exits), not as a timeout, and says so.
    let handles: Vec<_> = [("daemon", 1), ("daemon-crash", 2), ("daemon-stdout", 2)]
        .into_iter()
        .map(|(mode, turn)| {
            std::thread::spawn(move || {
                let dir = temp_dir(&format!("escape-{mode}"));
                let pids = dir.join("pids");
                // `game_with` checks that neither the bot nor its helper is left running.
                let (r, _) = game_with(&dir, &bad_bot(&pids, mode, turn, "0"), "10000");
                let started = std::fs::read_to_string(&pids).unwrap_or_default();
                assert_eq!(
                    started.lines().count(),
                    2,
                    "the bot and its helper: {started}"
                );
                if mode == "daemon" {
                    assert!(r.faults.is_empty(), "{:?}", r.faults);
                    check_record(&r);
                } else {
                    assert_eq!(r.faults[0].kind, FaultKind::Crash, "{:?}", r.faults);
                    let detail = match mode {
                        "daemon-crash" => "exited (exit code 3)",
                        _ => {
                            "exited (exit code 3) while a process it started still holds its \
                             stdout open"
                        }
                    };
                    assert_eq!(r.faults[0].detail, detail, "{:?}", r.faults);
                    check_disqualified(&r, 4);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("case passed");
    }
}

/// A helper that left its group and outlived its bot is killed, and that is said: in the bot's
/// log, and by check-bot, since another harness may leave such a helper running.
#[test]
fn a_helper_left_running_is_named_in_the_log_and_by_check_bot() {
    let dir = temp_dir("helper-named");
    let pids = dir.join("pids");
    let logs = dir.join("logs");
    let bot = bad_bot(&pids, "daemon", 1, "0");
    multiversi("match")
        .args(&[&bot, "builtin:random", "builtin:greedy", "builtin:random"])
        .args(&["--seed", "5", "--grace-ms", "200", "--log-dir", utf8(&logs)])
        .record(&dir.join("games.jsonl"))
        .ok();
    assert_no_process_left(&pids);
    let said: Vec<String> = std::fs::read_dir(&logs)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .filter(|text| text.contains("process(es) that had left its process group"))
        .collect();
    assert_eq!(said.len(), 1, "one bot's log says it");
    assert!(
        said[0].contains(
            "killed 1 process(es) that had left its process group and were still running"
        ),
        "{}",
        said[0]
    );
    let check = multiversi("check-bot")
        .args(&["--grace-ms", "200"])
        .arg(&bot)
        .run();
    assert_no_process_left(&pids);
    check.assert_stderr_has("multiversi: note: the bot left ");
    check.assert_stderr_has("process(es) running outside its process group");
}

#[test]
fn half_the_limit_is_never_flagged_past_it_always_is() {
    // Margins for a loaded machine: answers at 200 ms against a 400 ms limit, for five turns.
    let dir = temp_dir("slow");
    let pids = dir.join("pids");
    let record = dir.join("games.jsonl");
    let half = bad_bot(&pids, "slow", 5, "200");
    let late = bad_bot(&pids, "slow", 5, "800");
    multiversi("match")
        .args(&[
            &half,
            &late,
            "builtin:random",
            "--move-ms",
            "400",
            "--startup-ms",
            "10000",
            "--grace-ms",
            "200",
        ])
        .record(&record)
        .ok();
    assert_no_process_left(&pids);
    let r = &read_records(&record)[0];
    check_record(r);
    assert_eq!(r.faults.len(), 1, "{:?}", r.faults);
    assert_eq!(
        (r.faults[0].seat, r.faults[0].kind, r.faults[0].ply),
        (1, FaultKind::Timeout, 1)
    );
    let slow: Vec<f64> = r
        .moves
        .iter()
        .filter(|m| m.seat == 0)
        .map(|m| m.ms)
        .take(5)
        .collect();
    assert_eq!(slow.len(), 5);
    assert!(
        slow.iter().all(|&ms| (190.0..400.0).contains(&ms)),
        "{slow:?}"
    );
}

#[test]
fn bots_are_kept_alive_between_games_and_restarted_after_a_crash() {
    let dir = temp_dir("restart");
    let pids = dir.join("pids");
    let record = dir.join("games.jsonl");
    let crash = bad_bot(&pids, "crash", 2, "0");
    let good = bad_bot(&pids, "good", 0, "0");
    let out = multiversi("match")
        .args(&[
            &crash,
            &good,
            "builtin:random",
            "--games",
            "3",
            "--move-ms",
            "400",
            "--startup-ms",
            "10000",
            "--grace-ms",
            "200",
        ])
        .record(&record)
        .ok();
    assert_no_process_left(&pids);
    let records = read_records(&record);
    assert_eq!(records.len(), 3);
    for r in &records {
        check_record(r);
        assert_eq!(r.faults.len(), 1, "{:?}", r.faults);
    }
    // Three processes of the crashing bot (one per game), one of the good bot.
    let started = std::fs::read_to_string(&pids).unwrap().lines().count();
    assert_eq!(started, 4);
    // The table: the crashing bot lost all three games with three faults.
    let table = out.stdout();
    let row = table_row(&table, "bad-crash").expect("a row for the crashing bot");
    let counts = ["games", "wins", "draws", "losses", "faults"].map(|c| row[c].as_str());
    assert_eq!(counts, ["3", "0", "0", "3", "3"], "{table}");
}

#[test]
fn logs_working_directories_and_game_clocks() {
    let dir = temp_dir("logs");
    let pids = dir.join("pids");
    let logs = dir.join("logs");
    let record = dir.join("games.jsonl");
    // Bot 1 names its script relative to its working directory.
    let crash = bot_cmd(&["python3", "bad.py", utf8(&pids), "crash", "2", "0"]);
    let cwd = format!("1={}/tests/bots", env!("CARGO_MANIFEST_DIR"));
    // Bot 2 answers in 150 ms against a 400 ms game clock: it runs out by its third turn.
    let slow = bad_bot(&pids, "slow", 10, "150");
    multiversi("match")
        .args(&[
            &crash,
            &slow,
            "builtin:random",
            "--cwd",
            &cwd,
            "--clock-ms",
            "400",
            "--startup-ms",
            "10000",
            "--grace-ms",
            "200",
        ])
        .arg("--log-dir")
        .arg(&logs)
        .record(&record)
        .ok();
    assert_no_process_left(&pids);
    let r = &read_records(&record)[0];
    check_record(r);
    assert_eq!(r.faults.len(), 2, "{:?}", r.faults);
    assert_eq!((r.faults[0].seat, r.faults[0].kind), (0, FaultKind::Crash));
    let clock = &r.faults[1];
    assert_eq!(
        (clock.seat, clock.kind),
        (1, FaultKind::Timeout),
        "{clock:?}"
    );
    let limit: u64 = clock
        .detail
        .trim_start_matches("no move within ")
        .trim_end_matches(" ms")
        .parse()
        .expect("a timeout names its limit");
    assert!(limit < 400, "{clock:?}");
    let used: f64 = r.moves.iter().filter(|m| m.seat == 1).map(|m| m.ms).sum();
    assert!(
        (used + limit as f64 - 400.0).abs() < 2.0,
        "{used} + {limit}"
    );

    let log = std::fs::read_to_string(logs.join("bot1-bad-crash.log")).expect("bot 1's log");
    assert!(log.contains("misbehaving on purpose: crash"), "{log}");
    assert!(
        log.contains(&format!("[multiversi] game {} seat 0: start", r.game)),
        "{log}"
    );
    assert!(log.contains("disqualified at ply 3"), "{log}");
    assert!(logs.join("bot2-bad-slow.log").exists());
    assert!(logs.join("bot3-random.log").exists());
}

/// A bot that does not end when its stdin closes, nor on SIGTERM, is killed, and its log says
/// each step and how it ended: its last words cut short are then explained.
#[test]
fn a_bot_that_will_not_end_is_signalled_and_its_log_says_so() {
    let dir = temp_dir("faults-signalled-log");
    let (pids, logs) = (dir.join("pids"), dir.join("logs"));
    let linger = bad_bot(&pids, "linger", 0, "0");
    multiversi("match")
        .args(&[
            &linger,
            "builtin:random",
            "builtin:greedy",
            "--grace-ms",
            "200",
        ])
        .arg("--log-dir")
        .arg(&logs)
        .record(&dir.join("games.jsonl"))
        .ok();
    assert_no_process_left(&pids);
    let log = std::fs::read_to_string(logs.join("bot1-bad.log")).expect("its log");
    let steps = [
        "still running 200 ms after its stdin closed: SIGTERM to its process group",
        "still running 100 ms after SIGTERM: SIGKILL to its process group",
        "ended (killed by signal 9 (SIGKILL))",
    ];
    let mut at = 0;
    for step in steps {
        let found = log[at..]
            .find(step)
            .unwrap_or_else(|| panic!("{step:?} in {log}"));
        at += found + step.len();
    }
    // A bot that ends by itself is not said to have been signalled.
    let random = std::fs::read_to_string(logs.join("bot2-random.log")).expect("its log");
    assert!(!random.contains("SIGTERM"), "{random}");
}

/// Three games of the scripted bot in `mode` (its TURN `turn`) against two built-in bots, the
/// bots kept alive between games, with logs in `dir/logs` and the referee's stderr in
/// `dir/stderr.txt`; checks that no process is left.
fn three_kept_games(dir: &Path, mode: &str, turn: u32) -> Vec<GameRecord> {
    let pids = dir.join("pids");
    let record = dir.join("games.jsonl");
    let logs = dir.join("logs");
    let out = multiversi("match")
        .args(&[
            &bad_bot(&pids, mode, turn, ""),
            "builtin:random",
            "builtin:greedy",
            "--games",
            "3",
            "--startup-ms",
            "10000",
            "--grace-ms",
            "200",
            "--log-dir",
            utf8(&logs),
        ])
        .record(&record)
        .ok();
    std::fs::write(dir.join("stderr.txt"), out.stderr()).expect("stderr kept");
    assert_no_process_left(&pids);
    let records = read_records(&record);
    assert_eq!(records.len(), 3);
    records
}

/// How many processes of the scripted bot were started.
fn processes(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("pids"))
        .unwrap()
        .lines()
        .count()
}

/// The scripted bot of `three_kept_games` ended after each game, as `how` says, and was started
/// again for the next without a fault; its log says how it ended and before which game each
/// restart came (two games of one bot may share a log): the record says only that it was
/// started again.
fn started_again_after_each_game(dir: &Path, records: &[GameRecord], how: &str) {
    assert!(records.iter().all(|r| r.faults.is_empty()));
    assert_eq!(processes(dir), 3);
    let log = std::fs::read_to_string(dir.join("logs/bot1-bad.log")).expect("its log");
    for r in &records[1..] {
        let note = format!(
            "between games ({how}), before game {}: starting it again",
            r.game
        );
        assert!(log.contains(&note), "{note:?} not in {log}");
    }
}

#[test]
fn a_bot_that_exits_between_games_is_started_again_without_a_fault() {
    let dir = temp_dir("quit");
    let records = three_kept_games(&dir, "quit-after-end", 0);
    started_again_after_each_game(&dir, &records, "exit code 0");
    // No fault, but a note at the end tells its author; and no other note.
    let stderr = std::fs::read_to_string(dir.join("stderr.txt")).unwrap();
    assert!(!stderr.contains("wrote to its stderr faster"), "{stderr}");
    assert!(
        stderr.contains(
            "note: bot bad ended between games and was started again for 2 game(s): a bot is \
             kept for the next game, so after end it should go on reading stdin"
        ),
        "{stderr}"
    );
    // The records say which seat's process is not the last game's: the quitter's, in games 2
    // and 3 only.
    for (i, r) in records.iter().enumerate() {
        for s in &r.seats {
            let expected = i > 0 && s.name.starts_with("bad");
            assert_eq!(s.restarted, expected, "game {} seat {}", i + 1, s.seat);
        }
    }
    // As the documented schema has it.
    let file = dir.join("games.jsonl");
    let schema = crate::schemas::load("protocol/record.schema.json");
    for line in std::fs::read_to_string(&file).expect("records").lines() {
        let value: serde_json::Value = serde_json::from_str(line).expect("a JSON record");
        crate::schemas::check(&value, &schema).unwrap_or_else(|e| panic!("record: {e}"));
    }
    // And the replay says so beside the command, in that game alone.
    let words = "started again: it had ended after its previous game";
    let shown = |game: &str| {
        let out = multiversi("replay")
            .arg(&file)
            .args(&["--game", game])
            .run();
        out.assert_code(0);
        out.stdout().contains(words)
    };
    assert!(shown("2"), "game 2's replay does not say {words:?}");
    assert!(!shown("1"), "game 1's replay says {words:?}");
}

#[test]
fn a_bot_that_crashes_between_games_is_started_again_and_its_log_says_how_it_ended() {
    let dir = temp_dir("crash-after-end");
    let records = three_kept_games(&dir, "crash-after-end", 0);
    started_again_after_each_game(&dir, &records, "exit code 3");
    for r in &records[1..] {
        let bad = r.seats.iter().find(|s| s.name.starts_with("bad")).unwrap();
        assert!(bad.restarted, "game {}", r.game);
    }
}

#[test]
fn a_line_written_after_the_last_move_is_judged_between_games_not_in_the_game_it_ended() {
    // Its move that fills the board comes twice in one write: once the first is played the game
    // is over, and no fault may change its result. Seats rotate, so in one of the three games
    // it makes the last move.
    let dir = temp_dir("spam-last");
    let records = three_kept_games(&dir, "spam-last", 0);
    verify_holds(&dir.join("games.jsonl"));
    // Started afresh after its fault, by the referee: not a bot that ended by itself.
    let stderr = std::fs::read_to_string(dir.join("stderr.txt")).unwrap();
    assert!(!stderr.contains("ended between games"), "{stderr}");
    let bad_seat = |r: &GameRecord| seat_of(r, "spam-last");
    let last = records
        .iter()
        .position(|r| r.moves.last().map(|m| m.seat) == Some(bad_seat(r)))
        .expect("a game whose last move is the scripted bot's");
    assert!(
        records[last].faults.is_empty(),
        "{:?}",
        records[last].faults
    );
    // Kept for the next game, it is faulted there, at its start, for the line it still owes an
    // explanation for; after the last game nothing is left to judge it in.
    for (i, r) in records.iter().enumerate() {
        if i == last + 1 {
            assert_eq!(r.faults.len(), 1, "game {}: {:?}", r.game, r.faults);
            let f = &r.faults[0];
            assert_eq!(
                (f.seat, f.kind, f.ply),
                (bad_seat(r), FaultKind::Malformed, 0)
            );
            assert!(f.detail.contains("between games"), "{}", f.detail);
        } else {
            assert!(r.faults.is_empty(), "game {}: {:?}", r.game, r.faults);
        }
    }
}

#[test]
fn a_kept_bot_that_crashes_on_reading_its_next_start_is_faulted_in_that_game() {
    let dir = temp_dir("crash-start");
    // Each process of it plays one game and exits on reading its second start.
    let records = three_kept_games(&dir, "crash-start", 2);
    let crasher_seat = |r: &GameRecord| {
        r.seats
            .iter()
            .position(|s| s.name.starts_with("bad"))
            .unwrap()
    };
    // Game 1 is its first process's first; game 2 its second start, on which it crashed: a
    // crash before ready, not a restart; game 3 a fresh process's first.
    assert!(records[0].faults.is_empty(), "{:?}", records[0].faults);
    assert_eq!(records[1].faults.len(), 1, "{:?}", records[1].faults);
    let fault = &records[1].faults[0];
    assert_eq!(
        (fault.seat, fault.kind, fault.ply),
        (crasher_seat(&records[1]), FaultKind::Crash, 0)
    );
    assert!(fault.detail.contains("exit code 3"), "{}", fault.detail);
    assert!(records[2].faults.is_empty(), "{:?}", records[2].faults);
    assert_eq!(processes(&dir), 2);
    // A start after a fault is no restart of a bot that ended by itself.
    assert!(records.iter().flat_map(|r| &r.seats).all(|s| !s.restarted));
}

#[test]
fn a_bot_that_floods_stderr_is_never_stalled_and_its_log_is_capped() {
    let dir = temp_dir("chatty");
    let pids = dir.join("pids");
    let logs = dir.join("logs");
    let record = dir.join("games.jsonl");
    let chatty = bad_bot(&pids, "chatty", 0, "0");
    multiversi("match")
        .args(&[
            &chatty,
            "builtin:random",
            "builtin:greedy",
            "--move-ms",
            "3000",
            "--startup-ms",
            "10000",
            "--grace-ms",
            "200",
        ])
        .arg("--log-dir")
        .arg(&logs)
        .record(&record)
        .ok();
    assert_no_process_left(&pids);
    let r = &read_records(&record)[0];
    assert!(r.faults.is_empty(), "{:?}", r.faults);
    check_record(r);
    // About 320 KB per turn for 20 turns went through; the log keeps the first MiB and says so.
    let log = std::fs::read(logs.join("bot1-bad.log")).expect("log");
    assert!(log.len() < (1 << 20) + 200, "{}", log.len());
    assert!(String::from_utf8_lossy(&log).contains("log capped at 1048576 bytes"));
}

/// The end of a bot's stderr in its fault is at most 2000 bytes of text, even when what it wrote
/// is not UTF-8 and each of its bytes becomes a three-byte replacement character.
#[test]
fn a_stderr_tail_of_bytes_that_are_not_utf8_keeps_to_its_2000_bytes() {
    let (r, _) = one_game("fault-crash-bytes", "crash-bytes", 1, "10000");
    let f = &r.faults[0];
    assert_eq!(f.kind, FaultKind::Crash, "{f:?}");
    assert!(f.stderr_tail.len() <= 2000, "{} bytes", f.stderr_tail.len());
    assert!(f.stderr_tail.len() > 1990, "{} bytes", f.stderr_tail.len());
    assert!(f.stderr_tail.chars().all(|c| c == '\u{fffd}'), "{f:?}");
}

/// A bot that floods its stderr until its deadline times out with words that say so, and the
/// fault message names its log, full by then, as holding the start of its stderr only.
#[test]
fn a_bot_that_floods_stderr_to_its_deadline_is_told_so_and_its_cut_log_is_named_so() {
    let dir = temp_dir("stderr-hog");
    let pids = dir.join("pids");
    let logs = dir.join("logs");
    let record = dir.join("games.jsonl");
    let hog = bad_bot(&pids, "stderr-hog", 1, "0");
    let out = multiversi("match")
        .args(&[&hog, "builtin:random", "builtin:greedy"])
        .args(&["--move-ms", "400", "--grace-ms", "200"])
        .arg("--log-dir")
        .arg(&logs)
        .record(&record)
        .ok();
    assert_no_process_left(&pids);
    let f = &read_records(&record)[0].faults[0];
    assert_eq!(f.kind, FaultKind::Timeout, "{f:?}");
    assert!(
        f.detail
            .contains("at its deadline it was writing to its stderr"),
        "{f:?}"
    );
    let err = out.stderr();
    let log = logs.join("bot1-bad.log");
    assert!(
        err.contains(&format!(
            "its stderr until its log was full (1 MiB): {}",
            log.display()
        )),
        "{err}"
    );
    assert!(!err.contains("its whole stderr"), "{err}");
    // It was taken out, so its flood is said in its fault, not again at the end.
    assert!(!err.contains("note: bot bad wrote to its stderr"), "{err}");
    // Past the cap the log still takes the referee's notes: the fault is there.
    let text = String::from_utf8_lossy(&std::fs::read(&log).expect("its log")).into_owned();
    let (_, after) = text
        .split_once("log capped at 1048576 bytes")
        .expect("the cap is marked");
    assert!(after.contains("disqualified at ply"), "{after}");
}

/// A bot that floods its stderr but answers in time is no fault; it waited on its stderr all the
/// same, which made its moves slower without a word, so the run ends with a note that says so.
#[test]
fn a_bot_that_floods_stderr_but_answers_in_time_gets_a_note_at_the_end() {
    let dir = temp_dir("flood-and-play");
    let pids = dir.join("pids");
    let record = dir.join("games.jsonl");
    let flooder = bad_bot(&pids, "flood-and-play", 1, "0");
    let out = multiversi("match")
        .args(&[&flooder, "builtin:random", "builtin:greedy"])
        .args(&["--games", "2", "--move-ms", "2000", "--grace-ms", "200"])
        .record(&record)
        .ok();
    assert_no_process_left(&pids);
    assert!(read_records(&record).iter().all(|r| r.faults.is_empty()));
    out.assert_stderr_has(
        "note: bot bad wrote to its stderr faster than the referee reads it (8 MiB a second) in \
         2 game(s), and waited on it: its move times include those waits",
    );
    assert!(
        !out.stderr().contains("note: bot random"),
        "{}",
        out.stderr()
    );
}
