//! `multiversi match` with built-in bots: records that replay, seat rotation, the table, events.

use crate::support::*;
use multiversi::record::GameRecord;

#[test]
fn builtin_match_writes_records_that_replay() {
    let dir = temp_dir("builtin");
    let record = dir.join("games.jsonl");
    let out = multiversi("match")
        .args(&[
            "builtin:random",
            "builtin:greedy",
            "builtin:random",
            "builtin:greedy",
            "--seed",
            "7",
            "--games",
            "4",
        ])
        .record(&record)
        .ok();
    let table = out.stdout();
    assert!(table.starts_with("  #  bot "), "{table}");
    assert!(
        table.lines().next().unwrap().ends_with("ready as"),
        "{table}"
    );
    assert!(table.contains("random-2"), "{table}");
    let records = read_records(&record);
    assert_eq!(records.len(), 4);
    for (g, r) in records.iter().enumerate() {
        assert_eq!(r.format, "multiversi-game");
        assert!(r.faults.is_empty(), "{:?}", r.faults);
        assert_eq!(r.moves.len(), 60);
        check_record(r);
        // Seats rotate: bot g sits in seat 0 of game g.
        let expected = ["random", "greedy", "random-2", "greedy-2"][g % 4];
        assert_eq!(r.seats[0].name, expected);
        assert_eq!(
            r.seats[0].ready.as_ref().unwrap().name.as_deref(),
            Some(expected.trim_end_matches("-2"))
        );
    }
    // The same seed plays the same games.
    let again = dir.join("again.jsonl");
    multiversi("match")
        .args(&[
            "builtin:random",
            "builtin:greedy",
            "builtin:random",
            "builtin:greedy",
            "--seed",
            "7",
            "--games",
            "4",
        ])
        .record(&again)
        .ok();
    let moves = |rs: &[GameRecord]| {
        rs.iter()
            .map(|r| r.moves.iter().map(|m| m.square).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    };
    assert_eq!(moves(&read_records(&again)), moves(&records));
}

#[test]
fn three_players_other_boards_and_blocked_squares() {
    let dir = temp_dir("boards");
    let record = dir.join("games.jsonl");
    for board in ["10x10", "octagon"] {
        multiversi("match")
            .args(&[
                "builtin:random",
                "builtin:greedy",
                "builtin:random",
                "--board",
                board,
                "--anti",
                "--blocked",
                "c3",
                "--blocked-random",
                "3",
                "--seed",
                "3",
                "--games",
                "2",
            ])
            .record(&record)
            .ok();
    }
    let records = read_records(&record);
    assert_eq!(records.len(), 4);
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r.rules.players, 3);
        assert!(r.rules.anti);
        assert_eq!(r.rules.blocked.len(), 4);
        assert!(r.rules.blocked.iter().any(|sq| sq.to_string() == "c3"));
        // The record's seed is the one its random blocked squares were drawn from.
        let setup = multiversi::rules::Setup {
            players: 3,
            board: r.rules.board.name().into(),
            anti: true,
            blocked: "c3".into(),
            blocked_random: 3,
            seed: r.seed.expect("a seed"),
        };
        let drawn = multiversi::rules::Rules::from_setup(&setup).unwrap();
        assert_eq!(drawn.blocked, r.rules.blocked, "game {i}");
        check_record(r);
    }
}

#[test]
fn events_stream_is_json_lines() {
    let out = multiversi("match")
        .args(&[
            "builtin:random",
            "builtin:greedy",
            "builtin:random",
            "builtin:greedy",
            "--seed",
            "1",
            "--events",
            "--show",
        ])
        .ok();
    let lines: Vec<serde_json::Value> = out
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every stdout line is JSON"))
        .collect();
    let types: Vec<&str> = lines.iter().map(|v| v["type"].as_str().unwrap()).collect();
    assert_eq!(types.first(), Some(&"game_start"));
    assert_eq!(types.iter().filter(|&&t| t == "move").count(), 60);
    assert_eq!(&types[types.len() - 2..], ["game_end", "match_end"]);
    // Boards and the table went to stderr.
    assert!(out.stderr().contains("faults"));
    assert!(out.stderr().contains("  a b c d e f g h"));
}

/// A fault at a game's start (a bot kept from the game before that ends on reading its next
/// `start`) is told after that game's `game_start`, never before: a reader of the stream hears
/// of a game before any fault in it.
#[test]
fn a_fault_at_the_start_comes_after_its_games_start_in_the_events() {
    let dir = temp_dir("match-start-fault-events");
    let pids = dir.join("pids");
    let out = multiversi("match")
        .args(&[
            &bad_bot(&pids, "crash-start", 2, "0"),
            "builtin:random",
            "builtin:greedy",
            "--games",
            "3",
            "--seed",
            "1",
            "--events",
        ])
        .ok();
    assert_no_process_left(&pids);
    let mut seen: Vec<String> = Vec::new();
    let mut faults = 0;
    for line in out.stdout().lines() {
        let event: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let Some(game) = event["game"].as_str() else {
            continue;
        };
        if event["type"] == "game_start" {
            seen.push(game.to_string());
        } else {
            assert!(
                seen.iter().any(|g| g == game),
                "{} of game {game} before its game_start:\n{}",
                event["type"],
                out.stdout()
            );
            faults += usize::from(event["type"] == "fault");
        }
    }
    assert_eq!(seen.len(), 3);
    assert_eq!(
        faults,
        1,
        "the crash at the second start:\n{}",
        out.stdout()
    );
}

/// Records are committed in groups by one writer, but a game is reported ended (here: its
/// `game_end` event, read live) only once its line is in the record file; each game once.
#[test]
fn a_game_is_reported_ended_only_once_its_record_is_in_the_file() {
    use std::io::BufRead;
    let dir = temp_dir("match-commit");
    let record = dir.join("games.jsonl");
    let bot = bot_cmd(&[env!("CARGO_BIN_EXE_multiversi"), "bench-bot"]);
    let (reader, writer) = pipe();
    let mut child = multiversi("match")
        .args(&[&bot, &bot, &bot, &bot, "--games", "48", "--seed", "5"])
        .args(&["--concurrency", "2", "--events"])
        .record(&record)
        .stdout_to(writer)
        .spawn();
    // Only whole lines: the writer may be in the middle of the next group's line while we read.
    let ids_in_file = || -> Vec<String> {
        let text = std::fs::read_to_string(&record).unwrap_or_default();
        let whole = &text[..text.rfind('\n').map_or(0, |end| end + 1)];
        whole
            .lines()
            .map(|l| {
                serde_json::from_str::<GameRecord>(l)
                    .expect("a whole record")
                    .game
            })
            .collect()
    };
    let mut ended = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::from(reader)).lines() {
        let event: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        if event["type"] == "game_end" {
            let game = event["game"].as_str().unwrap().to_string();
            assert!(
                ids_in_file().contains(&game),
                "game {game} reported ended before its record was in the file"
            );
            ended.push(game);
        }
    }
    assert!(child.wait().success());
    let mut recorded = ids_in_file();
    assert_eq!(recorded.len(), 48);
    recorded.sort();
    ended.sort();
    assert_eq!(
        recorded, ended,
        "every game recorded once and reported once"
    );
}

#[test]
fn without_bots_four_built_in_bots_play() {
    let dir = temp_dir("default");
    let record = dir.join("games.jsonl");
    // A short move limit bounds the built-in searchers' thinking.
    multiversi("match")
        .args(&["--move-ms", "50"])
        .record(&record)
        .ok();
    let r = &read_records(&record)[0];
    // README: without bots, `best` plays `brs+`, `greedy` and `random`.
    let commands: Vec<&str> = r.seats.iter().map(|s| s.command[0].as_str()).collect();
    assert_eq!(
        commands,
        [
            "builtin:best",
            "builtin:brs+",
            "builtin:greedy",
            "builtin:random"
        ]
    );
    check_record(r);
    // Three players: `best`, `greedy` and `random`.
    let record = dir.join("three.jsonl");
    multiversi("match")
        .args(&["--players", "3", "--move-ms", "50"])
        .record(&record)
        .ok();
    let r = &read_records(&record)[0];
    let commands: Vec<&str> = r.seats.iter().map(|s| s.command[0].as_str()).collect();
    assert_eq!(
        commands,
        ["builtin:best", "builtin:greedy", "builtin:random"]
    );
    check_record(r);
}

#[test]
fn match_option_errors() {
    let cases: &[(&[&str], i32, &str)] = &[
        (&["builtin:random", "builtin:random"], 2, "2 bots given"),
        (&["--players", "5"], 2, "--players 5"),
        (
            &[
                "--players",
                "3",
                "builtin:random",
                "builtin:random",
                "builtin:random",
                "builtin:random",
            ],
            2,
            "--players 3 but 4 bots given",
        ),
        (&["--move-ms", "0"], 2, "--move-ms 0"),
        (&["--startup-ms", "0"], 2, "--startup-ms 0"),
        (
            &[
                "--cwd",
                "7=.",
                "builtin:random",
                "builtin:random",
                "builtin:random",
            ],
            2,
            "--cwd 7=.",
        ),
        (&["--games", "0"], 2, "--games 0"),
        (
            &[
                "builtin:random",
                "builtin:random",
                "builtin:random",
                "builtin:random",
                "--players",
                "5",
            ],
            2,
            "--players 5: this game is for 3 or 4 players",
        ),
        (&["--board", "9x9"], 2, "'9x9'"),
        (
            &["builtin:random", "builtin:nope", "builtin:random"],
            2,
            "'nope'",
        ),
        (
            &["builtin:random", "builtin:random", "'unclosed"],
            2,
            "unterminated",
        ),
        (
            &["builtin:random", "builtin:random", "./no-such-bot --x"],
            4,
            "no-such-bot",
        ),
        (
            &["--record", "/nonexistent-dir/x.jsonl"],
            5,
            "/nonexistent-dir/x.jsonl",
        ),
    ];
    for (args, code, needle) in cases {
        let out = multiversi("match").args(args).run();
        out.assert_code(*code);
        out.assert_stderr_has(needle);
    }
}

/// The CPUs of a kernel CPU list (`0-3,6`).
fn cpu_list(list: &str) -> Vec<u32> {
    let mut cpus = Vec::new();
    for part in list.split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        cpus.extend(a.parse::<u32>().unwrap()..=b.parse::<u32>().unwrap());
    }
    cpus
}

/// The CPUs each probe bot wrote down as it started.
fn bots_cpus(dir: &std::path::Path) -> Vec<Vec<u32>> {
    probe_log(dir, "log")
        .iter()
        .filter(|e| e.event == "cpus")
        .map(|e| cpu_list(e.msg.as_ref().and_then(|m| m.as_str()).unwrap()))
        .collect()
}

#[test]
fn pinned_cpus_keep_each_game_and_its_bots_on_one_cpu_and_unpinned_bots_on_all() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let mine = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .map(|l| cpu_list(l.trim()))
        .unwrap();
    for pinned in [true, false] {
        let dir = temp_dir(if pinned { "pinned" } else { "unpinned" });
        let bot = probe(&dir, "log", &["cpus=1"]);
        let mut command = multiversi("match").args(&[&bot, &bot, &bot, &bot]).args(&[
            "--games",
            "48",
            "--concurrency",
            "2",
            "--seed",
            "3",
        ]);
        if pinned {
            command = command.arg("--pin-cpus");
        }
        command.ok();
        let cpus = bots_cpus(&dir);
        // Two deals of 24 games, each with its own four bot processes.
        assert_eq!(cpus.len(), 8, "{cpus:?}");
        for bot in &cpus {
            if pinned {
                assert_eq!(bot.len(), 1, "a pinned bot may run on one CPU: {cpus:?}");
                assert!(mine.contains(&bot[0]), "{cpus:?} within {mine:?}");
            } else {
                assert_eq!(bot, &mine, "an unpinned bot keeps the referee's CPUs");
            }
        }
    }
}

/// A game count that is not whole rotations of the seats is noted (the bots do not sit in each
/// seat equally often); whole rotations and a single game are not.
#[test]
fn an_uneven_game_count_is_noted() {
    let run = |games: &str| {
        multiversi("match")
            .args(&["builtin:random", "builtin:random", "builtin:random"])
            .args(&["--games", games, "--seed", "1"])
            .run()
    };
    let uneven = run("4");
    uneven.assert_ok().assert_stderr_has(
        "note: 4 games of 3 players: some bots sit in some seats more often than others",
    );
    for games in ["1", "6"] {
        let even = run(games);
        even.assert_ok();
        assert!(!even.stderr().contains("note:"), "{}", even.describe());
    }
}
