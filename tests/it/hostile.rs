//! Bots that attack the referee on purpose (`tests/bots/bad.py`): lines nobody asked for, bots
//! that die between their turns, floods on stdout and stderr, lines at the cap, squares that
//! name nothing. Each test pins down one defect found by such bots.

use crate::support::*;
use multiversi::record::{FaultKind, GameRecord};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Runs a match of `bots` with `extra` options, checks that it succeeded and left no scripted
/// process behind, and returns its records and the run (its output).
fn play(dir: &Path, bots: &[String], extra: &[&str]) -> (Vec<GameRecord>, Run) {
    let record = dir.join("games.jsonl");
    let out = multiversi("match")
        .args_os(bots)
        .args(&["--seed", "3", "--startup-ms", "10000", "--grace-ms", "200"])
        .record(&record)
        .args(extra)
        .ok();
    assert_no_process_left(&dir.join("pids"));
    (read_records(&record), out)
}

#[test]
fn a_second_answer_is_malformed_at_the_ply_it_arrives_in_every_game() {
    // Answers twice at its first turn of each game: both lines in one write, or the second 5 ms
    // after the first while the next bot thinks (both others take 150 ms at their first two
    // turns, whatever the seating), or in the same write only the start of a second line that
    // it never ends. Either way the extra output is noticed before anything else goes out, at
    // the ply after its move, and never read as the start of its next answer.
    let handles: Vec<_> = [("spam", "0"), ("spam-later", "5"), ("spam-partial", "0")]
        .into_iter()
        .map(|(mode, delay)| {
            std::thread::spawn(move || {
                let dir = temp_dir(&format!("hostile-{mode}"));
                let pids = dir.join("pids");
                let bots = [
                    bad_bot(&pids, mode, 1, delay),
                    bad_bot(&pids, "slow", 2, "150"),
                    bad_bot(&pids, "slow", 2, "150"),
                ];
                let (records, _) = play(&dir, &bots, &["--games", "20"]);
                assert_eq!(records.len(), 20);
                for r in &records {
                    check_record(r);
                    let s = seat_of(r, mode);
                    assert_eq!(r.faults.len(), 1, "{mode}: {:?}", r.faults);
                    let f = &r.faults[0];
                    assert_eq!(
                        (f.seat, f.kind, f.ply),
                        (s, FaultKind::Malformed, s as u32 + 1),
                        "{mode}: {f:?}"
                    );
                    assert!(f.detail.contains("no reply was due"), "{f:?}");
                    if mode == "spam-partial" {
                        assert!(f.detail.starts_with("sent 11 byte(s) of a line"), "{f:?}");
                        assert_eq!(f.text.as_deref(), Some(r#"{"type":"mo"#), "{f:?}");
                    } else {
                        assert!(f.text.as_deref().unwrap_or("").contains("\"move\""));
                    }
                    // Its one answer was played as its move.
                    assert_eq!(r.moves[s].seat, s);
                    assert!(r.moves.iter().all(|m| m.seat != s || m.ply == s as u32));
                }
                verify_holds(&dir.join("games.jsonl"));
            })
        })
        .collect();
    for h in handles {
        h.join().expect("case passed");
    }
}

#[test]
fn a_move_before_any_turn_and_a_death_between_turns_are_faults_when_they_happen() {
    let handles: Vec<_> = [("eager", 0u32), ("die-later", 1)]
        .into_iter()
        .map(|(mode, turn)| {
            std::thread::spawn(move || {
                let dir = temp_dir(&format!("hostile-{mode}"));
                let pids = dir.join("pids");
                // Whatever the seating, the bot after it thinks for 500 ms at its first two turns:
                // time enough for a death 5 ms after an answer to happen even on a machine loaded
                // far beyond its cores (150 ms was once not enough there).
                let bots = [
                    bad_bot(&pids, mode, turn, "5"),
                    bad_bot(&pids, "slow", 2, "500"),
                    bad_bot(&pids, "slow", 2, "500"),
                ];
                let (records, out) = play(&dir, &bots, &[]);
                let err = out.stderr();
                let r = &records[0];
                check_record(r);
                let s = seat_of(r, mode);
                assert_eq!(r.faults.len(), 1, "{mode}: {:?}", r.faults);
                let f = &r.faults[0];
                assert_eq!(f.seat, s);
                if mode == "eager" {
                    // Its move came with its ready, before any turn: noticed at the start.
                    assert_eq!((f.kind, f.ply), (FaultKind::Malformed, 0), "{f:?}");
                    assert!(f.detail.contains("no reply was due"), "{f:?}");
                    assert!(f.text.as_deref().unwrap_or("").contains("d3"), "{f:?}");
                    assert!(r.moves.iter().all(|m| m.seat != s));
                } else {
                    // It answered at its first turn and died while the next seat was thinking.
                    assert_eq!((f.kind, f.ply), (FaultKind::Crash, s as u32 + 1), "{f:?}");
                    assert!(f.detail.contains("exit code 3"), "{f:?}");
                    assert!(f.detail.contains("no reply was due"), "{f:?}");
                    assert_eq!(r.moves[s].seat, s);
                }
                assert!(err.contains("disqualified"), "{err}");
                verify_holds(&dir.join("games.jsonl"));
            })
        })
        .collect();
    for h in handles {
        h.join().expect("case passed");
    }
}

/// A bot that exits while a helper it started holds its stdout open ends no output: its exit is
/// noticed when it happens, not at its deadline 20 s on, as a crash that says both how it ended
/// and why no end of output came. A move it wrote just before it exited is still its move; the
/// exit then counts where it is noticed, while the next seat thinks. The same before `ready`.
#[test]
fn an_exit_behind_a_helper_that_holds_stdout_is_a_crash_when_it_happens() {
    let modes = [
        "helper-exit",
        "move-helper-exit",
        "partial-helper-exit",
        "helper-exit-at-start",
    ];
    let handles: Vec<_> = modes
        .into_iter()
        .map(|mode| {
            std::thread::spawn(move || {
                let dir = temp_dir(&format!("hostile-{mode}"));
                let pids = dir.join("pids");
                // The bots after it think for 500 ms at their first two turns, so an exit right
                // after a move is noticed while the next seat thinks (see `die-later` above).
                let bots = [
                    bad_bot(&pids, mode, 1, ""),
                    bad_bot(&pids, "slow", 2, "500"),
                    bad_bot(&pids, "slow", 2, "500"),
                ];
                // A bot that never answers `start` stops a match unless it goes on.
                let extra = [
                    "--games",
                    "1",
                    "--move-ms",
                    "20000",
                    "--events",
                    "--keep-going",
                ];
                // `play` checks that neither the bot nor its helper is left running.
                let (records, out) = play(&dir, &bots, &extra);
                let started = std::fs::read_to_string(&pids).unwrap_or_default();
                assert_eq!(
                    started.lines().count(),
                    4,
                    "three bots and a helper: {started}"
                );
                let r = &records[0];
                check_record(r);
                let s = seat_of(r, mode);
                assert_eq!(r.faults.len(), 1, "{mode}: {:?}", r.faults);
                let f = &r.faults[0];
                assert_eq!((f.seat, f.kind), (s, FaultKind::Crash), "{f:?}");
                let exited = "exited (exit code 0) while a process it started still holds its \
                              stdout open";
                let fault_ms = out
                    .stdout()
                    .lines()
                    .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("an event"))
                    .find(|e| e["type"] == "fault")
                    .map(|e| e["ms"].as_f64());
                if mode == "helper-exit-at-start" {
                    // Noticed far sooner than the 10000 ms startup limit.
                    assert_eq!((f.ply, f.detail.as_str()), (0, exited), "{f:?}");
                    let ms = fault_ms.flatten().expect("the fault's ms");
                    assert!(ms < 2500.0, "noticed after {ms} ms");
                    assert!(r.moves.iter().all(|m| m.seat != s));
                } else if mode == "helper-exit" {
                    // Noticed at its first turn, far sooner than the 20000 ms limit.
                    assert_eq!((f.ply, f.detail.as_str()), (s as u32, exited), "{f:?}");
                    let ms = fault_ms.flatten().expect("the fault's ms");
                    assert!(ms < 5000.0, "noticed after {ms} ms");
                    // To the microsecond, as the record's times are, not a float's last digits.
                    assert_eq!((ms * 1000.0).round() / 1000.0, ms, "{ms}");
                    assert!(r.moves.iter().all(|m| m.seat != s));
                } else if mode == "partial-helper-exit" {
                    // Half a move is no answer while its output has not ended; the fault shows
                    // it, as a timeout would.
                    let detail = format!(
                        "{exited}; {} byte(s) of a line came without the newline that ends every \
                         message",
                        f.text.as_deref().unwrap_or_default().len()
                    );
                    assert_eq!((f.ply, &f.detail), (s as u32, &detail), "{f:?}");
                    assert!(
                        f.text
                            .as_deref()
                            .unwrap_or_default()
                            .starts_with("{\"type\": \"move\""),
                        "{f:?}"
                    );
                    assert!(r.moves.iter().all(|m| m.seat != s));
                } else {
                    // Its move counted; its exit was noticed at the next ply, when it owed
                    // nothing.
                    let detail = format!("{exited} when no reply was due");
                    assert_eq!((f.ply, &f.detail), (s as u32 + 1, &detail), "{f:?}");
                    assert_eq!(r.moves[s].seat, s);
                    assert!(r.moves.iter().all(|m| m.seat != s || m.ply == s as u32));
                }
                verify_holds(&dir.join("games.jsonl"));
            })
        })
        .collect();
    for h in handles {
        h.join().expect("case passed");
    }
}

/// The peak resident memory of a process (`VmHWM`), in kB.
fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The bound the issue sets on the referee's peak memory, whatever a bot writes.
const PEAK_RSS_LIMIT_KB: u64 = 8 * 1024;

/// Plays one game with `flooder` among three other bots, one of which lingers after the game
/// (it ignores SIGTERM), so the referee is still alive when the game's record is written; reads
/// the referee's peak memory then. Returns it with the record.
fn peak_rss_of_a_match_with(dir: &Path, flooder: &str) -> (u64, GameRecord) {
    let pids = dir.join("pids");
    let record = dir.join("games.jsonl");
    let linger = bad_bot(&pids, "linger", 0, "0");
    let referee = multiversi("match")
        .args(&[
            flooder,
            &linger,
            "builtin:random",
            "builtin:greedy",
            "--seed",
            "4",
        ])
        .args(&["--startup-ms", "10000", "--grace-ms", "1000"])
        .record(&record)
        .stdout_to(Stdio::null())
        .stderr_to(Stdio::null())
        .spawn();
    let until = Instant::now() + Duration::from_secs(60);
    let mut peak = None;
    while Instant::now() < until {
        // The record is written before the bots are shut down: the lingering bot keeps the
        // referee waiting for a second and a half after that.
        if std::fs::read_to_string(&record).is_ok_and(|t| t.ends_with('\n')) {
            peak = peak_rss_kb(referee.id());
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    referee.finish().assert_ok();
    assert_no_process_left(&pids);
    let peak = peak.expect("the referee's peak memory, read while it was still running");
    (peak, read_records(&record).remove(0))
}

#[test]
fn the_referee_stays_under_8_mb_whatever_a_bot_writes() {
    // An endless line as its answer and an endless line while another bot thinks, both through a
    // 1 MiB pipe; and a flood on stderr for the whole game, also through a 1 MiB pipe.
    let handles: Vec<_> = ["flood-pipe", "flood-idle", "flood-stderr"]
        .into_iter()
        .map(|mode| {
            std::thread::spawn(move || {
                let dir = temp_dir(&format!("hostile-rss-{mode}"));
                let flooder = bad_bot(&dir.join("pids"), mode, 1, "0");
                let (peak, r) = peak_rss_of_a_match_with(&dir, &flooder);
                println!("{mode}: referee peak RSS {peak} kB");
                assert!(
                    peak < PEAK_RSS_LIMIT_KB,
                    "{mode}: the referee peaked at {peak} kB"
                );
                check_record(&r);
                if mode == "flood-stderr" {
                    // Nobody is starved: every bot plays the whole game.
                    assert!(r.faults.is_empty(), "{mode}: {:?}", r.faults);
                } else {
                    assert_eq!(r.faults.len(), 1, "{mode}: {:?}", r.faults);
                    let f = &r.faults[0];
                    let s = seat_of(&r, mode);
                    assert_eq!((f.seat, f.kind), (s, FaultKind::Malformed), "{f:?}");
                    assert!(f.detail.contains("longer than 16384 bytes"), "{f:?}");
                    let first_turn = s as u32;
                    if mode == "flood-pipe" {
                        // As its answer, at its own turn.
                        assert_eq!(f.ply, first_turn, "{f:?}");
                    } else {
                        // Unasked, while other bots think (the flood takes the bot a moment
                        // to start), and never read as the answer to its next turn.
                        assert!((first_turn + 1..first_turn + 4).contains(&f.ply), "{f:?}");
                        assert!(f.detail.contains("no reply was due"), "{f:?}");
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("case passed");
    }
}

#[test]
fn a_line_at_the_cap_may_end_in_crlf_and_a_square_that_names_nothing_is_illegal() {
    let handles: Vec<_> = [("crlf", ""), ("square", "z9"), ("square", "aa1")]
        .into_iter()
        .map(|(mode, square)| {
            std::thread::spawn(move || {
                let dir: PathBuf = temp_dir(&format!("hostile-{mode}-{square}"));
                let pids = dir.join("pids");
                let bots = [
                    bad_bot(&pids, mode, 1, square),
                    "builtin:random".to_string(),
                    "builtin:greedy".to_string(),
                ];
                let (records, _) = play(&dir, &bots, &[]);
                let r = &records[0];
                check_record(r);
                if mode == "crlf" {
                    // 16384 bytes and then \r\n: at the cap, not over it.
                    assert!(r.faults.is_empty(), "{:?}", r.faults);
                    return;
                }
                // Off the board or no square at all: one rule, an illegal move.
                assert_eq!(r.faults.len(), 1, "{:?}", r.faults);
                let f = &r.faults[0];
                let s = seat_of(r, mode);
                assert_eq!(
                    (f.seat, f.kind, f.ply),
                    (s, FaultKind::Illegal, s as u32),
                    "{f:?}"
                );
                assert_eq!(
                    f.detail,
                    format!("illegal move {square}: the square is not on the board")
                );
            })
        })
        .collect();
    for h in handles {
        h.join().expect("case passed");
    }
}

#[test]
fn the_log_cap_holds_per_bot_across_restarts_and_an_unopenable_log_exits_5() {
    // 300 KB of stderr at the start of each of 5 games, the bot started afresh for each: the
    // log keeps the first MiB of the whole match and says where it stopped.
    let dir = temp_dir("hostile-log-cap");
    let pids = dir.join("pids");
    let logs = dir.join("logs");
    let bots = [
        bad_bot(&pids, "chatty-start", 0, "0"),
        "builtin:random".to_string(),
        "builtin:greedy".to_string(),
    ];
    let (records, _) = play(
        &dir,
        &bots,
        &[
            "--games",
            "5",
            "--restart",
            "--log-dir",
            logs.to_str().unwrap(),
        ],
    );
    assert!(records.iter().all(|r| r.faults.is_empty()));
    assert_eq!(std::fs::read_to_string(&pids).unwrap().lines().count(), 5);
    let log = std::fs::read(logs.join("bot1-bad.log")).expect("log");
    assert!(log.len() < (1 << 20) + 200, "{}", log.len());
    let text = String::from_utf8_lossy(&log);
    assert_eq!(text.matches("log capped at 1048576 bytes").count(), 1);

    // A log that cannot be opened (its name is taken by a directory) is output that cannot be
    // written: exit 5, naming the file; no bot is started.
    std::fs::create_dir_all(logs.join("bot1-random.log")).unwrap();
    multiversi("match")
        .args(&["builtin:random", "builtin:greedy", "builtin:random"])
        .arg("--log-dir")
        .arg(&logs)
        .run()
        .assert_code(5)
        .assert_stderr_has("bot1-random.log");
}

#[test]
fn log_protocol_keeps_every_line_both_ways_with_the_time() {
    let dir = temp_dir("hostile-log-protocol");
    let logs = dir.join("logs");
    let plain = dir.join("plain");
    let bots = ["builtin:random", "builtin:greedy", "builtin:random"];
    for (logs, protocol) in [(&logs, true), (&plain, false)] {
        let command = multiversi("match")
            .args(&["--seed", "2", "--log-dir", logs.to_str().unwrap()])
            .args(&bots);
        if protocol {
            command.arg("--log-protocol").ok();
        } else {
            command.ok();
        }
    }
    let log = std::fs::read_to_string(logs.join("bot2-greedy.log")).expect("log");
    let lines: Vec<&str> = log.lines().collect();
    // `[multiversi HH:MM:SS.mmm] > line` to the bot, `<` from it, in the order they went.
    let entry = |dir: char, kind: &str| {
        lines.iter().position(|l| {
            let Some(rest) = l.strip_prefix("[multiversi ") else {
                return false;
            };
            let (time, line) = rest.split_at(12);
            let b = time.as_bytes();
            b[2] == b':'
                && b[5] == b':'
                && b[8] == b'.'
                && time.chars().filter(char::is_ascii_digit).count() == 9
                && line.starts_with(&format!("] {dir} {{\"type\":\"{kind}\""))
        })
    };
    let order: Vec<Option<usize>> = [
        ('>', "start"),
        ('<', "ready"),
        ('>', "turn"),
        ('<', "move"),
        ('>', "end"),
    ]
    .iter()
    .map(|&(d, k)| entry(d, k))
    .collect();
    assert!(order.iter().all(Option::is_some), "{order:?}\n{log}");
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}\n{log}");
    let turns = lines
        .iter()
        .filter(|l| l.contains("] > {\"type\":\"turn\""))
        .count();
    let moves = lines
        .iter()
        .filter(|l| l.contains("] < {\"type\":\"move\""))
        .count();
    assert!(turns > 5 && turns == moves, "{turns} turns, {moves} moves");
    // Without the option, the log has the notes but no protocol lines.
    let plain = std::fs::read_to_string(plain.join("bot2-greedy.log")).expect("log");
    assert!(plain.contains("[multiversi] game"), "{plain}");
    assert!(!plain.contains("{\"type\""), "{plain}");
}

#[test]
fn control_characters_from_a_bot_never_reach_a_terminal_raw() {
    // Its ready name and version, its bad move and its stderr all carry ESC sequences and
    // newlines. The match output (with --show), the fault message and replay show them made
    // visible; the record keeps them as they were.
    let dir = temp_dir("hostile-escapes");
    let pids = dir.join("pids");
    let record = dir.join("games.jsonl");
    let out = multiversi("match")
        .args(&[
            &bad_bot(&pids, "escapes", 1, "0"),
            "builtin:random",
            "builtin:greedy",
            "--show",
            "--startup-ms",
            "10000",
        ])
        .record(&record)
        .ok();
    let replay = multiversi("replay").arg(&record).ok();
    for (what, bytes) in [
        ("match stdout", out.stdout_bytes()),
        ("match stderr", out.stderr_bytes()),
        ("replay", replay.stdout_bytes()),
    ] {
        let text = String::from_utf8_lossy(bytes);
        assert!(!bytes.contains(&0x1b), "{what} has a raw ESC:\n{text}");
        assert!(!bytes.contains(&0x07), "{what} has a raw BEL:\n{text}");
        assert!(
            !text.lines().any(|l| l.starts_with("forged")),
            "{what} has a forged line:\n{text}"
        );
    }
    let all = format!("{}{}{}", out.stdout(), out.stderr(), replay.stdout());
    assert!(all.contains("evil\\u{1b}[2J\\nforged line"), "{all}");
    let r = &read_records(&record)[0];
    let s = seat_of(r, "escapes");
    let ready = r.seats[s].ready.as_ref().expect("ready");
    assert_eq!(ready.name.as_deref(), Some("evil\u{1b}[2J\nforged line"));
    assert_eq!(ready.version.as_deref(), Some("\u{1b}]0;pwned\u{7}"));
    let f = &r.faults[0];
    assert_eq!(f.kind, FaultKind::Illegal, "{f:?}");
    assert!(f.stderr_tail.contains("\u{1b}[31mred"), "{f:?}");
    assert!(
        f.text.as_deref().unwrap_or("").contains("\\u001b[2J"),
        "{f:?}"
    );
}

/// The seat's own moves in a game, in order.
fn moves_of(r: &GameRecord, seat: usize) -> Vec<&multiversi::record::MoveRecord> {
    r.moves.iter().filter(|m| m.seat == seat).collect()
}

#[test]
fn a_second_answer_that_comes_after_the_next_turn_is_an_answer_to_an_earlier_turn() {
    // `stale` answers its second turn, then writes that answer again only once it has read its
    // third turn: the stale line is certain to arrive while the third turn's answer is due,
    // whatever the timing. The others answer at once.
    for mode in ["stale+echo", "stale"] {
        let dir = temp_dir(&format!("hostile-{}", mode.replace('+', "-")));
        let pids = dir.join("pids");
        let bots = [
            bad_bot(&pids, mode, 2, "0"),
            "builtin:random".to_string(),
            "builtin:greedy".to_string(),
        ];
        let (records, _) = play(&dir, &bots, &["--games", "3"]);
        assert_eq!(records.len(), 3);
        for r in &records {
            check_record(r);
            let s = seat_of(r, mode);
            assert_eq!(r.faults.len(), 1, "{mode}: {:?}", r.faults);
            let f = &r.faults[0];
            let own = moves_of(r, s);
            // Its first two answers were played; the fault is at its third turn.
            assert_eq!(own.len(), 2, "{mode}: {:?}", r.moves);
            let (answered, stale_square) = (own[1].ply, own[1].square);
            assert_eq!(f.seat, s);
            assert!(f.ply > answered, "{f:?}");
            assert!(
                f.text
                    .as_deref()
                    .unwrap_or("")
                    .contains(&stale_square.to_string()),
                "{f:?}"
            );
            if mode == "stale+echo" {
                // With the echo, the referee sees what the line is: a second answer to the
                // turn at ply `answered`, malformed, in words that say so.
                assert_eq!(f.kind, FaultKind::Malformed, "{f:?}");
                assert_eq!(
                    f.detail,
                    format!(
                        "answered the turn at ply {answered}, not the one at ply {}: an answer \
                         to an earlier turn",
                        f.ply
                    )
                );
            } else {
                // The risk of a bot without the echo: the stale line is taken as the answer to
                // the new turn, and its square judged on the new board. It was played at the
                // earlier turn, so it is occupied now: the game records an illegal move, not
                // the malformed second answer it was, with words that say what it likely is.
                // (Had the square been free and legal, the stale move would have been played
                // as the bot's choice.)
                assert_eq!(f.kind, FaultKind::Illegal, "{f:?}");
                assert_eq!(
                    f.detail,
                    format!(
                        "illegal move {stale_square}: the square is occupied, the square of its \
                         own previous move: a late second answer to its previous turn?"
                    )
                );
            }
        }
        verify_holds(&dir.join("games.jsonl"));
    }
}

#[test]
fn a_ready_that_echoes_another_game_is_malformed() {
    // `old-game` echoes, in each ready, the game of the start before (at its first start, the
    // right one): kept alive for a second game, it answers that game's start as the first's.
    let dir = temp_dir("hostile-old-game");
    let pids = dir.join("pids");
    let bots = [
        bad_bot(&pids, "old-game", 1, "0"),
        "builtin:random".to_string(),
        "builtin:greedy".to_string(),
    ];
    let (mut records, _) = play(&dir, &bots, &["--games", "2"]);
    records.sort_by(|a, b| a.game.cmp(&b.game));
    let [first, second] = &records[..] else {
        panic!("two games: {records:?}")
    };
    assert!(first.faults.is_empty(), "{:?}", first.faults);
    let s = seat_of(second, "old-game");
    let f = &second.faults[..];
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (f[0].seat, f[0].kind, f[0].ply),
        (s, FaultKind::Malformed, 0)
    );
    assert_eq!(
        f[0].detail,
        format!(
            "answered the start of game {}, not the one of game {}: an answer to another \
             game's start",
            first.game, second.game
        )
    );
    assert!(moves_of(second, s).is_empty());
}

/// A bot taken out while another thinks does not stop the other's clock, nor move its
/// deadline: taking it out (here, a grace for the helper it left holding its stdout) is the
/// referee's work, done once the thinking bot's answer is in, which is timed as it came.
#[test]
fn a_bot_taken_out_during_anothers_turn_leaves_that_turns_time_as_it_was() {
    let dir = temp_dir("hostile-out-during-a-turn");
    let pids = dir.join("pids");
    let (dies, slow) = ("die-later-helper", "slow");
    let bots = [
        bad_bot(&pids, dies, 1, "50"),
        bad_bot(&pids, slow, 1, "300"),
        "builtin:random".to_string(),
    ];
    let (records, _) = play(&dir, &bots, &["--games", "1", "--move-ms", "5000"]);
    assert_no_process_left(&pids);
    let r = &records[0];
    let (d, s) = (seat_of(r, dies), seat_of(r, slow));
    let fault = r
        .faults
        .iter()
        .find(|f| f.seat == d)
        .expect("the bot that left");
    assert_eq!(fault.kind, FaultKind::Crash, "{fault:?}");
    assert!(
        fault.detail.contains("still holds its stdout open"),
        "{fault:?}"
    );
    let first = moves_of(r, s);
    let first = first.first().expect("the slow bot's move");
    assert!(
        first.ms >= 300.0 && first.ms < 5000.0,
        "a move that took 300 ms recorded at {} ms",
        first.ms
    );
}

/// A last line ended by the bot's exit rather than its newline is an answer, and it arrived
/// when its end did: the time recorded runs to the exit, not to the line's first bytes
/// (PROTOCOL.md, "How time is measured").
#[test]
fn a_move_ended_by_the_bots_exit_is_timed_to_the_exit() {
    let dir = temp_dir("hostile-no-newline-exit");
    let pids = dir.join("pids");
    let mode = "no-newline-exit";
    let bots = [
        bad_bot(&pids, mode, 1, "400"),
        "builtin:random".to_string(),
        "builtin:greedy".to_string(),
    ];
    let (records, _) = play(&dir, &bots, &["--games", "1", "--move-ms", "5000"]);
    let r = &records[0];
    let s = seat_of(r, mode);
    let first = moves_of(r, s);
    let first = first
        .first()
        .expect("its move, ended by its exit, was played");
    assert!(
        (400.0..5000.0).contains(&first.ms),
        "recorded {} ms for a line whose end came 400 ms after its bytes",
        first.ms
    );
    // Its output has ended: what it owes next it cannot answer.
    assert!(r.faults.iter().any(|f| f.seat == s), "{:?}", r.faults);
}

/// A move written without its newline is no answer (the line never ends), but the timeout says
/// that half a line came, shows it, and the hint is about the newline, not about flushing only.
#[test]
fn a_move_without_its_newline_times_out_with_words_that_say_what_came() {
    let dir = temp_dir("hostile-no-newline");
    let pids = dir.join("pids");
    let bots = [
        bad_bot(&pids, "no-newline", 1, ""),
        "builtin:random".to_string(),
        "builtin:greedy".to_string(),
    ];
    let (records, out) = play(&dir, &bots, &["--games", "1", "--move-ms", "300"]);
    let stderr = out.stderr();
    let r = &records[0];
    let f = &r.faults[0];
    assert_eq!(f.kind, FaultKind::Timeout, "{f:?}");
    assert!(
        f.detail.starts_with(
            "no move within 300 ms; 32 byte(s) of a line came without the newline that ends \
             every message"
        ),
        "{f:?}"
    );
    assert!(
        f.text
            .as_deref()
            .unwrap_or("")
            .starts_with(r#"{"type": "move""#),
        "{f:?}"
    );
    assert!(stderr.contains("ends with a newline"), "{stderr}");
}

/// A bot that opens the referee's ends of the other bots' pipes through /proc and writes a line
/// into each would have them all disqualified for output nobody asked for. The referee is not
/// dumpable, so a bot of the same user is refused. Root (or CAP_SYS_PTRACE) gets in whatever
/// the referee does, so as root the match is run as the unprivileged user `nobody`, as an
/// organiser would run bots without a sandbox.
#[test]
fn a_bot_cannot_write_into_the_other_bots_pipes_through_the_referees_files() {
    let dir = temp_dir("hostile_inject");
    let open_to_all = |path: &Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o777)).unwrap();
    };
    open_to_all(&dir);
    let pids = dir.join("pids");
    let logs = dir.join("logs");
    let record = dir.join("games.jsonl");
    let injector = bad_bot(&pids, "inject", 1, "");
    let wrapper: &[&str] = if unsafe { libc::geteuid() } == 0 {
        &[
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--",
        ]
    } else {
        &["env"]
    };
    let out = multiversi_under(wrapper, "match")
        .args(&[
            &injector,
            "builtin:random",
            "builtin:random",
            "builtin:random",
        ])
        .args(&["--games", "2", "--seed", "4"])
        .arg("--record")
        .arg(&record)
        .arg("--log-dir")
        .arg(&logs)
        .run();
    out.assert_ok();
    let log = std::fs::read_dir(&logs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("bad"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .unwrap_or_else(|| panic!("no log of the injecting bot: {}", out.describe()));
    // The attack ran, at its first turn of each game, and got nowhere.
    assert_eq!(log.matches("injection: ").count(), 4, "{log}");
    assert!(
        log.contains("injection: cannot list the referee's files: Permission denied"),
        "{log}"
    );
    let records = read_records(&record);
    assert_eq!(records.len(), 2);
    for r in &records {
        assert!(r.faults.is_empty(), "{:?}", r.faults);
    }
    assert_no_process_left(&pids);
}
