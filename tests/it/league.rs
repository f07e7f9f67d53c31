//! The runner shared by `match` and `league`: games in parallel, records that never interleave
//! or repeat, seatings, bots that never answer, resumable leagues.

use crate::support::{
    assert_no_process_left, bad_bot, bot_cmd, check_record, closed_pipe, multiversi, probe,
    probe_log, read_json, read_records, shell_word, table_row, temp_dir, toml_string, utf8, Run,
};
use std::collections::HashSet;

fn random_match(record: &std::path::Path, games: &str, extra: &[&str]) -> Run {
    multiversi("match")
        .args(&[
            "builtin:random",
            "builtin:random",
            "builtin:greedy",
            "builtin:random",
        ])
        .args(&["--seed", "11", "--move-ms", "200", "--games", games])
        .record(record)
        .args(extra)
        .run()
}

#[test]
fn a_match_on_two_workers_plays_every_seating_once() {
    let dir = temp_dir("match-concurrency");
    let record = dir.join("games.jsonl");
    let out = random_match(&record, "30", &["--concurrency", "2"]);
    out.assert_ok();
    assert!(
        out.stderr().contains("30 game(s) recorded in") && out.stderr().contains("holds 30"),
        "{}",
        out.stderr()
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
        check_record(r);
    }
    // The table counts every game of every bot.
    let table = out.stdout();
    let row = table_row(&table, "greedy").expect("greedy's row");
    assert_eq!(row["games"], "30", "{table}");
}

#[test]
fn a_record_file_cut_mid_line_gets_the_next_game_on_a_line_of_its_own() {
    let dir = temp_dir("match-cut-line");
    let record = dir.join("games.jsonl");
    let out = random_match(&record, "1", &[]);
    out.assert_ok();
    // A kill in the middle of a write leaves a line without its end.
    let mut text = std::fs::read(&record).unwrap();
    let cut = text.len() / 2;
    text.truncate(cut);
    std::fs::write(&record, &text).unwrap();
    let out = random_match(&record, "2", &[]);
    out.assert_ok();
    let text = std::fs::read_to_string(&record).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(serde_json::from_str::<serde_json::Value>(lines[0]).is_err());
    for line in &lines[1..] {
        serde_json::from_str::<multiversi::record::GameRecord>(line).expect("a whole game");
    }
    // The summary counts games, not the damaged line.
    out.assert_stderr_has("which now holds 2 game(s) and 1 damaged line(s)");
}

#[test]
fn matches_started_together_never_share_game_ids() {
    let dir = temp_dir("match-ids");
    let record = dir.join("games.jsonl");
    // All three started before any is waited for.
    let children: Vec<_> = (0..3)
        .map(|_| {
            multiversi("match")
                .args(&["--players", "3", "--move-ms", "20", "--games", "4"])
                .record(&record)
                .spawn()
        })
        .collect();
    for child in children {
        child.finish().assert_ok();
    }
    let records = read_records(&record);
    assert_eq!(records.len(), 12);
    let ids: HashSet<&str> = records.iter().map(|r| r.game.as_str()).collect();
    assert_eq!(ids.len(), 12);
}

/// The lines of a record file: how many are games, how many are damaged.
fn games_and_damaged(path: &std::path::Path) -> (usize, usize) {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let games = lines
        .iter()
        .filter(|l| serde_json::from_str::<multiversi::record::GameRecord>(l).is_ok())
        .count();
    (games, lines.len() - games)
}

#[test]
fn a_bot_that_never_answers_start_stops_a_match_and_records_nothing_unless_told_to_keep_going() {
    let dir = temp_dir("match-silent");
    let record = dir.join("games.jsonl");
    // The file already holds two games of an earlier match and a line cut off by a kill.
    random_match(&record, "2", &[]).assert_ok();
    let mut earlier = std::fs::read(&record).unwrap();
    earlier.extend_from_slice(br#"{"format":"multiversi-game","version":1,"ga"#);
    std::fs::write(&record, &earlier).unwrap();
    // A script that ends before its ready (one that does not exist is refused before any game).
    let missing = dir.join("nosuchbot.py");
    std::fs::write(&missing, "raise SystemExit(1)\n").unwrap();
    let bot = bot_cmd(&["python3", utf8(&missing)]);
    let command = || {
        // 20 games are four deals: both workers start the bot at once.
        multiversi("match")
            .args(&[&bot, "builtin:random", "builtin:random", "--games", "20"])
            .args(&["--move-ms", "50", "--concurrency", "2"])
            .record(&record)
    };
    let out = command().run();
    out.assert_code(4);
    let err = out.stderr();
    assert!(err.contains("never answered start"), "{err}");
    assert!(err.contains("nosuchbot.py"), "{err}");
    assert!(err.contains("hint:"), "{err}");
    assert!(
        err.contains("which now holds 2 game(s) and 1 damaged line(s)"),
        "{err}"
    );
    assert!(
        err.contains("stopped: bot nosuchbot never answered start, so no game was recorded"),
        "{err}"
    );
    assert!(err.contains("--keep-going"), "{err}");
    // It stopped at once, and the games it lost are not in the file, which is as it was.
    assert_eq!(std::fs::read(&record).unwrap(), earlier);
    // No bot finished a game: none is named there, as if each had failed.
    assert_eq!(out.stdout(), "no game finished in this run\n");

    let out = command().arg("--keep-going").ok();
    assert_eq!(games_and_damaged(&record), (22, 1));
    assert!(
        out.stderr().contains("20 game(s) recorded in")
            && out
                .stderr()
                .contains("which now holds 22 game(s) and 1 damaged line(s)"),
        "{}",
        out.stderr()
    );
}

#[test]
fn a_bot_that_answered_start_once_and_then_fails_to_start_has_ordinary_faults() {
    let dir = temp_dir("match-answered-once");
    let record = dir.join("games.jsonl");
    // Plays its first game, then exits at once whenever it is started again.
    let script = dir.join("once.sh");
    std::fs::write(
        &script,
        format!(
            "if [ -e \"$1\" ]; then echo 'started again: giving up' >&2; exit 3; fi\n\
             touch \"$1\"\nexec {} bench-bot\n",
            shell_word(env!("CARGO_BIN_EXE_multiversi"))
        ),
    )
    .unwrap();
    let started = dir.join("started");
    let bot = bot_cmd(&["sh", utf8(&script), utf8(&started)]);
    let out = multiversi("match")
        .args(&[
            &bot,
            "builtin:random",
            "builtin:random",
            "--games",
            "3",
            "--restart",
            "--concurrency",
            "1",
            "--name",
            "1=once",
        ])
        .record(&record)
        .ok();
    assert!(!out.stderr().contains("never answered"), "{}", out.stderr());
    let records = read_records(&record);
    assert_eq!(records.len(), 3);
    let crashes: Vec<_> = records
        .iter()
        .flat_map(|r| &r.faults)
        .filter(|f| f.ply == 0 && f.detail.contains("exit code 3"))
        .collect();
    assert_eq!(crashes.len(), 2, "{records:?}");
}

/// The command of the benchmark's bot, which answers at once.
fn bench_bot() -> String {
    bot_cmd(&[env!("CARGO_BIN_EXE_multiversi"), "bench-bot"])
}

/// A league config of `bots` instant bots (the benchmark's bot) and the given extra keys.
fn league_config(dir: &std::path::Path, bots: usize, extra: &str) -> std::path::PathBuf {
    let command = toml_string(&bench_bot());
    let mut text = format!("name = \"t\"\nseed = 5\nplayers = 3\nmove_ms = 2000\n{extra}\n");
    for i in 0..bots {
        text += &format!("[[bot]]\nname = \"b{i}\"\ncommand = {command}\n");
    }
    let path = dir.join("league.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// Every game in a league directory's record files, by schedule index, and the damaged lines.
fn league_games(out: &std::path::Path) -> (Vec<u64>, usize) {
    let mut indices = Vec::new();
    let mut damaged = 0;
    let Ok(entries) = std::fs::read_dir(out) else {
        return (indices, damaged);
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            for line in std::fs::read_to_string(&path).unwrap().lines() {
                match serde_json::from_str::<multiversi::record::GameRecord>(line) {
                    Ok(r) => indices.push(r.schedule.unwrap().index),
                    Err(_) => damaged += 1,
                }
            }
        }
    }
    indices.sort_unstable();
    (indices, damaged)
}

fn league(args: &[&str]) -> Run {
    multiversi("league").args(args).run()
}

#[test]
fn a_league_plays_every_deal_in_every_seating_and_resumes_with_nothing_to_do() {
    let dir = temp_dir("league-basic");
    let config = league_config(&dir, 5, "opening = 3\nblocked = 2");
    let out_dir = dir.join("out");
    let out = dir.join("out");
    let (c, o) = (config.to_str().unwrap(), out.to_str().unwrap());
    let dry = league(&[c, "--out", o, "--dry-run"]);
    dry.assert_ok();
    dry.assert_stdout_has("10 deals");
    dry.assert_stdout_has(": 60 games");
    assert!(!out_dir.exists(), "a dry run writes nothing");

    let first = league(&[c, "--out", o, "--concurrency", "2"]);
    first.assert_ok();
    assert!(out_dir.join("league.toml").exists());
    let records = read_records(&out_dir.join("games.jsonl"));
    assert_eq!(records.len(), 60);
    let mut by_deal: std::collections::HashMap<u64, Vec<&multiversi::record::GameRecord>> =
        Default::default();
    for r in &records {
        check_record(r);
        assert_eq!(r.opening, 3);
        assert_eq!(r.rules.blocked.len(), 2);
        assert!(r.moves[..3].iter().all(|m| m.ms == 0.0));
        by_deal
            .entry(r.schedule.as_ref().unwrap().deal)
            .or_default()
            .push(r);
    }
    assert_eq!(by_deal.len(), 10);
    for games in by_deal.values() {
        // A deal: the same bots, blocked squares and opening in all 3! seatings.
        assert_eq!(games.len(), 6);
        let orders: HashSet<Vec<&str>> = games
            .iter()
            .map(|r| r.seats.iter().map(|s| s.name.as_str()).collect())
            .collect();
        assert_eq!(orders.len(), 6);
        for r in games {
            assert_eq!(r.rules.blocked, games[0].rules.blocked);
            assert_eq!(r.moves[..3], games[0].moves[..3]);
        }
    }
    let again = league(&[c, "--out", o]);
    again.assert_ok();
    again.assert_stderr_has("0 game(s) to play");
    assert_eq!(read_records(&out_dir.join("games.jsonl")).len(), 60);
}

#[test]
fn a_league_grows_by_bots_and_rounds_and_refuses_other_changes() {
    let dir = temp_dir("league-grow");
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let small = league_config(&dir, 4, "");
    let done = league(&[small.to_str().unwrap(), "--out", o]);
    done.assert_ok();
    let (before, _) = league_games(&out);
    assert_eq!(before.len(), 4 * 6);
    let old: Vec<multiversi::record::GameRecord> = read_records(&out.join("games.jsonl"));

    // One bot more and a second round: C(5,3) = 10 deals a round, 2 rounds, 6 seatings.
    let grown = league_config(&dir, 5, "rounds = 2");
    let more = league(&[grown.to_str().unwrap(), "--out", o]);
    more.assert_ok();
    more.assert_stderr_has("96 game(s) to play");
    let (after, damaged) = league_games(&out);
    assert_eq!(damaged, 0);
    assert_eq!(after.len(), 120);
    assert_eq!(after.iter().collect::<HashSet<_>>().len(), 120);
    // The finished games kept their place: the first lines are untouched.
    assert_eq!(read_records(&out.join("games.jsonl"))[..24], old[..]);

    let reseeded = league_config(&dir, 5, "rounds = 2\nboards = [\"10x10\"]");
    let refused = league(&[reseeded.to_str().unwrap(), "--out", o]);
    refused.assert_code(2);
    refused.assert_stderr_has("boards was");
    let fewer = league_config(&dir, 4, "rounds = 2");
    let refused = league(&[fewer.to_str().unwrap(), "--out", o]);
    refused.assert_code(2);
    refused.assert_stderr_has("bot b4 was removed");
    assert_eq!(league_games(&out).0.len(), 120);
}

#[test]
fn shards_split_the_schedule_and_together_play_it_once() {
    let dir = temp_dir("league-shards");
    let out = dir.join("out");
    let config = league_config(&dir, 5, "");
    let (c, o) = (config.to_str().unwrap(), out.to_str().unwrap());
    for i in 1..=3 {
        let shard = format!("{i}/3");
        let done = league(&[c, "--out", o, "--shard", &shard, "--concurrency", "1"]);
        done.assert_ok();
        assert!(out.join(format!("games-{i}-of-3.jsonl")).exists());
    }
    let (games, _) = league_games(&out);
    assert_eq!(games.len(), 60);
    assert_eq!(games.iter().collect::<HashSet<_>>().len(), 60);
    // The whole league, run after its shards, finds nothing left to play.
    let whole = league(&[c, "--out", o]);
    whole.assert_stderr_has("0 game(s) to play");
    for bad in ["0/3", "4/3", "x", "1/0"] {
        let out = league(&[c, "--out", o, "--shard", bad]);
        out.assert_code(2);
        assert!(out.stderr().contains("--shard"), "{bad}");
    }
}

#[test]
fn a_league_killed_at_random_moments_never_loses_a_finished_game_nor_records_one_twice() {
    let dir = temp_dir("league-kill");
    let out = dir.join("out");
    let config = league_config(&dir, 6, "rounds = 3");
    let total = 20 * 6 * 3;
    let mut rng = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64
        | 1;
    let mut kills = 0;
    for attempt in 0..40 {
        let (before, _) = league_games(&out);
        let mut child = multiversi("league")
            .arg(&config)
            .arg("--out")
            .arg(&out)
            .stdout_to(std::process::Stdio::null())
            .stderr_to(std::process::Stdio::null())
            .spawn();
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let wait = 20 + rng % 300;
        std::thread::sleep(std::time::Duration::from_millis(wait));
        let finished = child.try_wait().is_some();
        if !finished {
            child.signal(libc::SIGKILL);
            kills += 1;
        }
        child.wait();
        let (games, _) = league_games(&out);
        let distinct: HashSet<&u64> = games.iter().collect();
        assert_eq!(
            distinct.len(),
            games.len(),
            "attempt {attempt} (killed after {wait} ms): a game recorded twice"
        );
        assert!(before.iter().all(|g| distinct.contains(g)), "a game lost");
        if finished {
            break;
        }
    }
    eprintln!("league killed {kills} times");
    assert!(
        kills > 0,
        "the league finished before any kill: make it longer"
    );
    // Whatever is left, one last run finishes.
    let last = league(&[config.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    last.assert_ok();
    let (games, _) = league_games(&out);
    assert_eq!(games.len(), total, "after {kills} kills");
    assert_eq!(games.iter().collect::<HashSet<_>>().len(), total);
}

#[test]
fn league_config_errors_name_the_key_and_exit_2_or_3() {
    let dir = temp_dir("league-errors");
    let missing = league(&[dir.join("none.toml").to_str().unwrap()]);
    missing.assert_code(3);
    missing.assert_stderr_has("cannot read");
    let bad = league_config(&dir, 4, "players = 6");
    let out = league(&[bad.to_str().unwrap(), "--dry-run"]);
    out.assert_code(2);
    out.assert_stderr_has("players = 6");
    let typo = league_config(&dir, 4, "moves_ms = 100");
    let out = league(&[typo.to_str().unwrap(), "--dry-run"]);
    out.assert_code(2);
    out.assert_stderr_has("moves_ms");
    let example = league(&["--example"]);
    example.assert_ok();
    assert_eq!(
        example.stdout(),
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/league.toml"))
            .unwrap()
    );
}

#[test]
fn a_league_leaves_out_a_bot_that_never_answers_records_none_of_its_games_and_plays_them_later() {
    let dir = temp_dir("league-silent");
    let out = dir.join("out");
    let config = league_config(&dir, 4, "concurrency = 2");
    let mut text = std::fs::read_to_string(&config).unwrap();
    // A script that ends before its ready (one that does not exist is left out before any game).
    let missing = dir.join("nosuchbot.py");
    std::fs::write(&missing, "raise SystemExit(1)\n").unwrap();
    let broken = bot_cmd(&["python3", utf8(&missing)]);
    text += &format!(
        "[[bot]]\nname = \"broken\"\ncommand = {}\n",
        toml_string(&broken)
    );
    std::fs::write(&config, text).unwrap();
    let (c, o) = (config.to_str().unwrap(), out.to_str().unwrap());
    let done = league(&[c, "--out", o]);
    let err = done.stderr();
    assert_eq!(done.status.code(), Some(4), "{err}");
    assert!(
        err.contains("bot broken") && err.contains("never answered start"),
        "{err}"
    );
    // 10 deals of 3 of the 5 bots, 6 games each: the 4 without it are played, the 6 with it
    // are not recorded, by either worker.
    assert!(
        err.contains("left out bot broken: the 36 game(s) with it are not recorded"),
        "{err}"
    );
    assert!(err.contains("run the league again"), "{err}");
    let records = read_records(&out.join("games.jsonl"));
    assert_eq!(records.len(), 24);
    assert!(records
        .iter()
        .all(|r| r.seats.iter().all(|s| s.name != "broken")));
    assert!(done.stdout().contains("Standings of all 24 game(s)"));

    // Fixed in the config (a bot without a game may change its command), the next run plays
    // exactly the games left out.
    let text = std::fs::read_to_string(&config).unwrap();
    let fixed = bench_bot();
    let (was, now) = (toml_string(&broken), toml_string(&fixed));
    assert!(text.contains(&was), "{text}");
    std::fs::write(&config, text.replace(&was, &now)).unwrap();
    let again = league(&[c, "--out", o]);
    again.assert_ok();
    assert!(
        again
            .stderr()
            .contains("36 game(s) to play (24 finished before)"),
        "{}",
        again.stderr()
    );
    let records = read_records(&out.join("games.jsonl"));
    assert_eq!(records.len(), 60);
    let indices: HashSet<u64> = records
        .iter()
        .map(|r| r.schedule.as_ref().unwrap().index)
        .collect();
    assert_eq!(indices.len(), 60);
    let with_it = records
        .iter()
        .filter(|r| r.seats.iter().any(|s| s.name == "broken"))
        .count();
    assert_eq!(with_it, 36);
    assert!(records.iter().all(|r| r.faults.is_empty()));
    // Now that it has games, its command is part of them: changing it again is refused.
    let text = std::fs::read_to_string(&config).unwrap();
    let other = toml_string(&format!("{fixed} --other"));
    assert!(text.contains(&now), "{text}");
    std::fs::write(&config, text.replace(&now, &other)).unwrap();
    let changed = league(&[c, "--out", o, "--dry-run"]);
    changed.assert_code(2);
    changed.assert_stderr_has("bot broken: its command");
}

#[test]
fn a_league_with_a_bot_that_cannot_start_plays_the_rest_and_exits_4() {
    let dir = temp_dir("league-cannot-start");
    let out = dir.join("out");
    let config = league_config(&dir, 3, "");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text += "[[bot]]\nname = \"absent\"\ncommand = \"no-such-program-anywhere\"\n";
    std::fs::write(&config, text).unwrap();
    let done = league(&[config.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let err = done.stderr();
    assert_eq!(done.status.code(), Some(4), "{err}");
    assert!(
        err.contains("left out bot absent: the 18 game(s) with it are not recorded"),
        "{err}"
    );
    assert_eq!(read_records(&out.join("games.jsonl")).len(), 6);
}

#[test]
fn protocol_v1_bots_play_after_an_opening_they_did_not_make() {
    // The starter bots read `rows` and `legal` in every turn: an opening needs nothing new.
    let dir = temp_dir("league-opening");
    let starter = concat!(env!("CARGO_MANIFEST_DIR"), "/bots/python/starter.py");
    let starter = toml_string(&bot_cmd(&["python3", starter]));
    let text = format!(
        "name = \"o\"\nplayers = 3\nopening = 7\nmove_ms = 5000\nstartup_ms = 20000\n\
         [[bot]]\nname = \"py\"\ncommand = {starter}\n\
         [[bot]]\nname = \"greedy\"\ncommand = \"builtin:greedy\"\n\
         [[bot]]\nname = \"random\"\ncommand = \"builtin:random\"\n"
    );
    let config = dir.join("league.toml");
    std::fs::write(&config, text).unwrap();
    let out = dir.join("out");
    let done = league(&[config.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    done.assert_ok();
    let records = read_records(&out.join("games.jsonl"));
    assert_eq!(records.len(), 6);
    for r in &records {
        assert!(r.faults.is_empty(), "{:?}", r.faults);
        assert_eq!(r.opening, 7);
        check_record(r);
        // The first move a bot made came after the seven the referee played.
        assert!(r.moves[7].ms > 0.0 || r.moves[7].ply == 7);
    }
}

#[test]
fn a_second_run_or_a_shard_on_the_same_directory_is_refused_while_the_first_plays() {
    let dir = temp_dir("league-twice");
    let config = league_config(&dir, 5, "rounds = 200");
    let out = dir.join("out");
    let (c, o) = (config.to_str().unwrap(), out.to_str().unwrap());
    let mut first = multiversi("league")
        .args(&[c, "--out", o, "--concurrency", "1"])
        .stdout_to(std::process::Stdio::null())
        .stderr_to(std::process::Stdio::null())
        .spawn();
    let records = out.join("games.jsonl");
    let started = std::time::Instant::now();
    while std::fs::metadata(&records).map_or(0, |m| m.len()) == 0 {
        assert!(
            started.elapsed().as_secs() < 60,
            "the first run records a game"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let second = league(&[c, "--out", o, "--concurrency", "1"]);
    // A shard writes another record file, but would play the same games as the whole run.
    let shard = league(&[c, "--out", o, "--shard", "1/2"]);
    let still_running = first.try_wait().is_none();
    if still_running {
        first.signal(libc::SIGINT);
    }
    first.wait();
    assert!(still_running, "the first run was still playing");
    second.assert_code(5);
    assert!(
        second
            .stderr()
            .contains("another run of this league is playing in this directory"),
        "{}",
        second.stderr()
    );
    shard.assert_code(5);
    assert!(
        shard.stderr().contains("a run without --shard is playing"),
        "{}",
        shard.stderr()
    );
    assert!(
        !out.join("games-1-of-2.jsonl").exists(),
        "the shard recorded nothing"
    );
    let (indices, _) = league_games(&out);
    let unique: HashSet<u64> = indices.iter().copied().collect();
    assert_eq!(unique.len(), indices.len(), "no game recorded twice");
}

#[test]
fn a_league_shows_the_standings_quick_table_every_standings_every_games() {
    let dir = temp_dir("league-running-table");
    // 4 bots, 3 players: 4 deals of 6 games.
    let config = league_config(&dir, 4, "standings_every = 6\nconcurrency = 1");
    let out = dir.join("out");
    let run = league(&[config.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    run.assert_ok();
    let text = run.stdout();
    for n in [6, 12, 18, 24] {
        let block: Vec<&str> = text
            .split(&format!("after {n} games:\n"))
            .nth(1)
            .unwrap_or_else(|| panic!("no table after {n} games:\n{text}"))
            .lines()
            .take_while(|l| !l.is_empty())
            .collect();
        let table = block.join("\n");
        assert!(
            block[0].contains("rating") && block[0].ends_with("ready as"),
            "{table}"
        );
        // Every game seats three bots; bots with games are listed, each with its own.
        let games: u32 = (0..4)
            .filter_map(|b| table_row(&table, &format!("b{b}")))
            .map(|row| row["games"].parse::<u32>().unwrap())
            .sum();
        assert_eq!(games, 3 * n, "{table}");
        let deals = n.div_ceil(6);
        let plural = if deals == 1 { "" } else { "s" };
        assert!(
            block.iter().any(|l| l.starts_with(&format!(
                "{n} games in {deals} deal{plural}; rating: Plackett-Luce"
            ))),
            "{table}"
        );
    }
    // The whole league's standings come after, with intervals.
    assert!(text.contains("Standings of all 24 game(s)"), "{text}");
}

#[test]
fn a_league_into_a_closed_pipe_plays_on_and_ends_quietly() {
    let dir = temp_dir("league-closed-pipe");
    let config = league_config(&dir, 4, "standings_every = 6\nconcurrency = 1");
    let out = dir.join("out");
    // `multiversi league … 2>&1 | head` with head gone: stdout and stderr are a closed pipe.
    let pipe = closed_pipe();
    multiversi("league")
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .stdout_to(pipe.try_clone().unwrap())
        .stderr_to(pipe)
        .run()
        .assert_code(0);
    assert_eq!(read_records(&out.join("games.jsonl")).len(), 24);
    assert!(out.join("standings.json").exists());
}

/// A gauntlet, end to end: the candidate (`hero`) sits in every game, the other seats are every
/// combination of the pool, each deal is played in all its seatings (so the hero sits in every
/// seat equally often), and the league plays exactly the number of games `--dry-run` announced.
#[test]
fn a_gauntlet_seats_the_candidate_in_every_game_and_rotates_the_seats() {
    let dir = temp_dir("league-gauntlet");
    let config = dir.join("league.toml");
    let pool = ["random", "greedy", "random-b"];
    let mut text = String::from(
        "name = \"gauntlet\"\nseed = 3\nformat = \"gauntlet\"\ncandidates = [\"hero\"]\n\
         players = [3, 4]\nrounds = 1\nmove_ms = 1000\n",
    );
    // The hero in the middle of the list: being a candidate, not a place, puts it in every game.
    for (name, command) in [
        ("random", "builtin:random"),
        ("hero", "builtin:greedy"),
        ("greedy", "builtin:greedy"),
        ("random-b", "builtin:random"),
    ] {
        text += &format!("[[bot]]\nname = \"{name}\"\ncommand = \"{command}\"\n");
    }
    std::fs::write(&config, text).unwrap();
    let out = dir.join("out");
    let (c, o) = (config.to_str().unwrap(), out.to_str().unwrap());

    let dry = league(&[c, "--out", o, "--dry-run"]);
    dry.assert_ok();
    let announced: usize = dry
        .stdout()
        .lines()
        .find_map(|l| l.strip_suffix(" games")?.rsplit_once(": ")?.1.parse().ok())
        .unwrap_or_else(|| panic!("no game count in the dry run:\n{}", dry.stdout()));
    // 3 players: the hero and every 2 of the 3 others, 3 deals of 3! seatings; 4 players: the
    // hero and all 3 others, 1 deal of 4! seatings.
    assert_eq!(announced, 3 * 6 + 24, "{}", dry.stdout());
    let hero_line = format!("hero {announced} games");
    assert!(
        dry.stdout()
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>().join(" ") == hero_line),
        "the hero plays every game:\n{}",
        dry.stdout()
    );

    let played = league(&[c, "--out", o, "--concurrency", "2"]);
    played.assert_ok();
    let records = read_records(&out.join("games.jsonl"));
    assert_eq!(records.len(), announced);
    let mut by_deal: std::collections::BTreeMap<u64, Vec<&multiversi::record::GameRecord>> =
        Default::default();
    for r in &records {
        check_record(r);
        let names: Vec<&str> = r.seats.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names.iter().filter(|n| **n == "hero").count(),
            1,
            "every game seats the hero once: {names:?}"
        );
        by_deal
            .entry(r.schedule.as_ref().unwrap().deal)
            .or_default()
            .push(r);
    }
    let mut pool_parts: HashSet<Vec<String>> = HashSet::new();
    for (deal, games) in &by_deal {
        let k = games[0].seats.len();
        let seatings: usize = (1..=k).product();
        assert_eq!(games.len(), seatings, "deal {deal}");
        // The same bots throughout the deal, in all k! orders: the seats rotate.
        let orders: HashSet<Vec<&str>> = games
            .iter()
            .map(|r| r.seats.iter().map(|s| s.name.as_str()).collect())
            .collect();
        assert_eq!(orders.len(), seatings, "deal {deal}");
        let numbers: HashSet<u32> = games
            .iter()
            .map(|r| r.schedule.as_ref().unwrap().seating)
            .collect();
        assert_eq!(numbers, (0..seatings as u32).collect(), "deal {deal}");
        for seat in 0..k {
            let hero_here = games
                .iter()
                .filter(|r| r.seats[seat].name == "hero")
                .count();
            assert_eq!(
                hero_here,
                seatings / k,
                "deal {deal}: the hero in seat {seat}"
            );
        }
        let mut part: Vec<String> = games[0]
            .seats
            .iter()
            .map(|s| s.name.clone())
            .filter(|n| n != "hero")
            .collect();
        part.sort();
        assert!(part.iter().all(|n| pool.contains(&n.as_str())), "{part:?}");
        assert!(
            pool_parts.insert(part),
            "deal {deal} repeats another's bots"
        );
    }
    // Every combination of the pool filling the free seats: 3 pairs and the one triple.
    assert_eq!(pool_parts.len(), 4, "{pool_parts:?}");
    let again = league(&[c, "--out", o]);
    again.assert_stderr_has("0 game(s) to play");
}

/// The game ids a bot log's notes name (`[multiversi] game ID seat S: start`).
fn games_in_logs(dir: &std::path::Path) -> HashSet<String> {
    let mut games = HashSet::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_file() {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            if let Some(rest) = line.strip_prefix("[multiversi] game ") {
                games.insert(rest.split_whitespace().next().unwrap().to_string());
            }
        }
    }
    games
}

/// Two shards running at once in one directory give their bots the same names; each keeps its
/// bots' logs in a directory of its own, so that no log mixes the two shards' games.
#[test]
fn shards_running_at_once_keep_their_bots_logs_apart() {
    let dir = temp_dir("league-shard-logs");
    let out = dir.join("out");
    let config = league_config(&dir, 4, "");
    let (c, o) = (config.to_str().unwrap(), out.to_str().unwrap());
    let shards: Vec<_> = ["1/2", "2/2"]
        .iter()
        .map(|shard| {
            multiversi("league")
                .args(&[c, "--out", o, "--shard", shard, "--concurrency", "1"])
                .spawn()
        })
        .collect();
    for shard in shards {
        let run = shard.finish();
        run.assert_ok();
        // Both write the directory's standings at the end, perhaps at once: neither may fail.
        let err = run.stderr();
        assert!(!err.contains("warning"), "{err}");
    }
    let logs = out.join("logs");
    let loose: Vec<_> = std::fs::read_dir(&logs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    assert!(
        loose.is_empty(),
        "shard logs outside a shard's directory: {loose:?}"
    );
    for i in 1..=2 {
        let own = logs.join(format!("shard-{i}-of-2"));
        let names: HashSet<String> = std::fs::read_dir(&own)
            .unwrap_or_else(|e| panic!("{}: {e}", own.display()))
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            (0..4).map(|b| format!("bot{}-b{b}.log", b + 1)).collect(),
            "{}",
            own.display()
        );
        // The shard's logs tell of its own games, every one of them, and of no other.
        let recorded: HashSet<String> = read_records(&out.join(format!("games-{i}-of-2.jsonl")))
            .into_iter()
            .map(|r| r.game)
            .collect();
        assert_eq!(
            recorded.len(),
            12,
            "shard {i}: 2 of the 4 deals, 6 seatings each"
        );
        assert_eq!(games_in_logs(&own), recorded, "shard {i}");
    }
}

#[test]
fn a_league_with_fewer_deals_than_workers_says_how_many_games_it_plays_at_once() {
    // Three bots, three players, one round: one deal, with a built-in bot, whose six games one
    // worker plays in turn (its moves follow from the deal's seed through them).
    let dir = temp_dir("league-one-deal");
    let command = toml_string(&bench_bot());
    let config = dir.join("builtin.toml");
    std::fs::write(
        &config,
        format!(
            "name = \"t\"\nseed = 5\nplayers = 3\nmove_ms = 2000\nrounds = 1\n\
             [[bot]]\nname = \"b0\"\ncommand = {command}\n\
             [[bot]]\nname = \"b1\"\ncommand = {command}\n\
             [[bot]]\nname = \"r\"\ncommand = \"builtin:random\"\n"
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let (c, o) = (config.to_str().unwrap(), out.to_str().unwrap());
    let said = "1 at a time (concurrency 2, but the games of a deal with a built-in bot are \
                played one after another, and only 1 deal(s) are left to play)";
    let dry = league(&[c, "--out", o, "--dry-run", "--concurrency", "2"]);
    dry.assert_ok().assert_stdout_has(said);
    let played = league(&[c, "--out", o, "--concurrency", "2"]);
    played.assert_ok().assert_stderr_has(said);
    // Without a built-in bot, workers share the deal's games: the concurrency as it is.
    let config = league_config(&dir, 3, "rounds = 1");
    let dry = league(&[config.to_str().unwrap(), "--dry-run", "--concurrency", "2"]);
    dry.assert_ok().assert_stdout_has(", 2 at a time (");
    // And with deals enough for every worker.
    let config = league_config(&dir, 4, "rounds = 1");
    let dry = league(&[config.to_str().unwrap(), "--dry-run", "--concurrency", "2"]);
    dry.assert_ok().assert_stdout_has(", 2 at a time (");
    // A pinned run says so, since a resumed one is pinned only when asked again.
    let pinned = dir.join("pinned");
    let run = league(&[c, "--out", pinned.to_str().unwrap(), "--pin-cpus"]);
    run.assert_ok()
        .assert_stderr_has(", each on a CPU of its own; records in ");
}

/// A worker with no deal left to start joins one in play: a league of one deal, played at
/// concurrency 2, plays its games with two processes of each bot, one for each worker, and
/// records each game once.
#[test]
fn idle_workers_share_the_games_of_a_deal_in_play() {
    let dir = temp_dir("league-shared-deal");
    // Three bots, three players, one round: one deal of six games. A move takes 25 ms, a game
    // about half a second: enough for the second worker to join (the runner's JOIN_WORK).
    let logs = ["log-0", "log-1", "log-2"];
    let mut text = "name = \"t\"\nseed = 5\nplayers = 3\nmove_ms = 2000\nrounds = 1\n".to_string();
    for (i, log) in logs.iter().enumerate() {
        let command = toml_string(&probe(&dir, log, &["delay=25"]));
        text += &format!("[[bot]]\nname = \"p{i}\"\ncommand = {command}\n");
    }
    let config = dir.join("league.toml");
    std::fs::write(&config, text).unwrap();
    let out = dir.join("out");
    let run = league(&[
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--concurrency",
        "2",
    ]);
    run.assert_ok().assert_stderr_has(", 2 at a time;");
    assert_no_process_left(&dir.join("pids"));
    let (indices, damaged) = league_games(&out);
    assert_eq!((indices, damaged), ((0..6).collect::<Vec<u64>>(), 0));
    for log in logs {
        let started: std::collections::BTreeSet<u32> = probe_log(&dir, log)
            .iter()
            .filter(|e| e.msg.as_ref().is_some_and(|m| m["type"] == "start"))
            .map(|e| e.pid)
            .collect();
        assert_eq!(
            started.len(),
            2,
            "{log}: the processes that got a start: {started:?}"
        );
    }
}

/// Records of another league of the same name (another seed) in a league's directory are not
/// its games: a resume plays the games they stand in the place of, says once how many records
/// it ignored and why, and leaves every line of the file as it was.
#[test]
fn another_leagues_records_under_the_same_name_do_not_make_its_games_finished() {
    let dir = temp_dir("league-foreign");
    let config = league_config(&dir, 4, "");
    let other_config = dir.join("other.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&other_config, text.replace("seed = 5", "seed = 6")).unwrap();
    let (out, other) = (dir.join("out"), dir.join("other"));
    let o = out.to_str().unwrap();
    league(&[config.to_str().unwrap(), "--out", o]).assert_ok();
    league(&[
        other_config.to_str().unwrap(),
        "--out",
        other.to_str().unwrap(),
    ])
    .assert_ok();
    // Half of its games, then all of the other league's.
    let records = out.join("games.jsonl");
    let own = std::fs::read_to_string(&records).unwrap();
    let mut kept: String = own.lines().take(12).map(|l| format!("{l}\n")).collect();
    kept += &std::fs::read_to_string(other.join("games.jsonl")).unwrap();
    std::fs::write(&records, &kept).unwrap();
    let again = league(&[config.to_str().unwrap(), "--out", o]);
    again.assert_ok().assert_stderr_has("12 game(s) to play");
    let warning = "24 record(s) of run 't' are not games of this league's schedule";
    assert_eq!(
        again.stderr().matches(warning).count(),
        1,
        "{}",
        again.stderr()
    );
    again.assert_stderr_has("its seed is");
    let now = std::fs::read_to_string(&records).unwrap();
    assert!(
        now.starts_with(&kept),
        "the lines the file held are left as they were"
    );
    // Its own games are all in the file now, each with its own seed: the 12 kept, then the 12
    // played again.
    let seeded = |text: &str| -> HashSet<(u64, Option<u64>)> {
        text.lines()
            .map(|l| serde_json::from_str::<multiversi::record::GameRecord>(l).unwrap())
            .map(|r| (r.schedule.unwrap().index, r.seed))
            .collect()
    };
    let played: String = now
        .lines()
        .take(12)
        .chain(now[kept.len()..].lines())
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(seeded(&played), seeded(&own));
}

/// The standings a league writes at its end count the games its resume counts: records of
/// another league of its name (another seed) and of a league of another name copied into its
/// directory are left out, said in one warning and counted in `other_runs`; its standings are
/// those of its own games alone, and `multiversi standings` of the files still counts them all.
#[test]
fn a_leagues_final_standings_count_only_its_own_games() {
    let dir = temp_dir("league-own-standings");
    let config = league_config(&dir, 4, "");
    let text = std::fs::read_to_string(&config).unwrap();
    let (seeded, named) = (dir.join("seeded.toml"), dir.join("named.toml"));
    std::fs::write(&seeded, text.replace("seed = 5", "seed = 6")).unwrap();
    std::fs::write(&named, text.replace("name = \"t\"", "name = \"u\"")).unwrap();
    let (out, o) = (
        dir.join("out"),
        dir.join("out").to_string_lossy().into_owned(),
    );
    let first = league(&[config.to_str().unwrap(), "--out", &o]);
    first.assert_ok();
    let clean = std::fs::read_to_string(out.join("standings.json")).unwrap();
    assert!(!clean.contains("other_runs"), "{clean}");
    let files = |name: &str| std::fs::read(out.join(name)).unwrap();
    let (clean_csv, clean_viewer) = (files("standings.csv"), files("games.html"));
    for (config, into) in [(&seeded, "seeded"), (&named, "named")] {
        let into = dir.join(into);
        league(&[config.to_str().unwrap(), "--out", into.to_str().unwrap()]).assert_ok();
    }
    // The same seed's records under another name in a file of their own, the other seed's
    // appended to the league's own.
    std::fs::copy(
        dir.join("named/games.jsonl"),
        out.join("games-copied.jsonl"),
    )
    .unwrap();
    let records = out.join("games.jsonl");
    let mut both = std::fs::read(&records).unwrap();
    both.extend(std::fs::read(dir.join("seeded/games.jsonl")).unwrap());
    std::fs::write(&records, &both).unwrap();

    let again = league(&[config.to_str().unwrap(), "--out", &o]);
    again.assert_ok().assert_stderr_has("0 game(s) to play");
    again.assert_stdout_has("Standings of all 24 game(s) in ");
    let warning = "the standings count only this league's own games and leave out 48 record(s) \
                   in its directory: 24 of run 't' that are not games of its schedule (the first, \
                   game ";
    assert_eq!(
        again.stderr().matches(warning).count(),
        1,
        "{}",
        again.stderr()
    );
    again
        .assert_stderr_has("games.jsonl:25: its seed is ")
        .assert_stderr_has("); 24 of other runs or of none. `multiversi standings` of the files")
        .assert_stdout_has("; 48 records of other runs left out");
    let json = read_json(&out.join("standings.json"));
    assert_eq!(
        (&json["games"], &json["other_runs"]),
        (&24.into(), &48.into())
    );
    // Its own games' standings, as the league wrote them before anything was copied in.
    let mut own = json.clone();
    own.as_object_mut().unwrap().remove("other_runs");
    assert_eq!(
        own,
        serde_json::from_str::<serde_json::Value>(&clean).unwrap()
    );
    // The games it lists are its own, numbered as before.
    assert_eq!(files("standings.csv"), clean_csv);
    assert_eq!(files("games.html"), clean_viewer);

    // Any records' standings count every record, as before.
    let all = multiversi("standings")
        .arg(&records)
        .arg(out.join("games-copied.jsonl"))
        .arg("--out")
        .arg(dir.join("all"))
        .run();
    all.assert_ok();
    assert!(!all.stderr().contains("leave out"), "{}", all.stderr());
    let json = read_json(&dir.join("all/standings.json"));
    assert_eq!(
        (&json["games"], &json["other_runs"]),
        (&72.into(), &serde_json::Value::Null)
    );
}

/// The names in a directory, sorted.
fn entries(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A run refused because another holds the directory (exit 5) leaves nothing it created: a
/// shard of another count, a run without `--shard`, the same shard again. The running shard's
/// lock files stay.
#[test]
fn a_refused_run_leaves_nothing_it_created_in_the_directory() {
    let dir = temp_dir("league-refused-clean");
    let config = league_config(&dir, 5, "rounds = 200");
    let out = dir.join("out");
    let (c, o) = (config.to_str().unwrap(), out.to_str().unwrap());
    let mut first = multiversi("league")
        .args(&[c, "--out", o, "--shard", "1/2", "--concurrency", "1"])
        .stdout_to(std::process::Stdio::null())
        .stderr_to(std::process::Stdio::null())
        .spawn();
    let records = out.join("games-1-of-2.jsonl");
    let started = std::time::Instant::now();
    while std::fs::metadata(&records).map_or(0, |m| m.len()) == 0 {
        assert!(
            started.elapsed().as_secs() < 60,
            "the first shard records a game"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let before = entries(&out);
    assert!(before.contains(&"run-of-2.lock".to_string()), "{before:?}");
    let refused = [
        league(&[c, "--out", o, "--shard", "1/3"]),
        league(&[c, "--out", o, "--shard", "3/3"]),
        league(&[c, "--out", o]),
        league(&[c, "--out", o, "--shard", "1/2"]),
    ];
    let after = entries(&out);
    let still_running = first.try_wait().is_none();
    if still_running {
        first.signal(libc::SIGINT);
    }
    first.wait();
    assert!(still_running, "the first shard was still playing");
    for run in &refused {
        run.assert_code(5);
    }
    refused[0].assert_stderr_has("a run with --shard I/2 is playing");
    assert_eq!(after, before, "the refused runs left nothing behind");
}

/// The faults summed up at the end are those of the games kept: a fault in the game a bot that
/// never answered `start` left unrecorded is said apart, so that the counts agree with the
/// records and the standings.
#[test]
fn faults_in_a_game_left_unrecorded_are_said_apart_from_the_counts() {
    let dir = temp_dir("league-unrecorded-faults");
    let quits = dir.join("quits.py");
    std::fs::write(&quits, "raise SystemExit(1)\n").unwrap();
    let hang = bad_bot(&dir.join("pids"), "hang", 1, "");
    let bench = bench_bot();
    let mut text =
        "name = \"u\"\nseed = 2\nplayers = 3\nmove_ms = 100\nconcurrency = 1\n".to_string();
    for (name, command) in [
        ("quits", bot_cmd(&["python3", utf8(&quits)])),
        ("hang", hang),
        ("b1", bench.clone()),
        ("b2", bench),
    ] {
        text += &format!(
            "[[bot]]\nname = \"{name}\"\ncommand = {}\n",
            toml_string(&command)
        );
    }
    let config = dir.join("league.toml");
    std::fs::write(&config, text).unwrap();
    let out = dir.join("out");
    let done = league(&[utf8(&config), "--out", utf8(&out)]);
    let err = done.stderr();
    assert_eq!(done.status.code(), Some(4), "{err}");
    // The first game has quits, which ends, and hang, which times out; it is not recorded.
    // The deal without quits is: hang times out in each of its 6 games.
    let records = read_records(&out.join("games.jsonl"));
    assert_eq!(records.len(), 6);
    let hang_faults = records
        .iter()
        .flat_map(|r| r.faults.iter().map(move |f| &r.seats[f.seat].name))
        .filter(|name| *name == "hang")
        .count();
    assert_eq!(hang_faults, 6);
    assert!(err.contains("  hang: 6 (timeout 6)\n"), "{err}");
    assert!(
        err.contains("(1 fault(s) in 1 game(s) not recorded (a bot in them never answered start) are not counted)"),
        "{err}"
    );
    assert_no_process_left(&dir.join("pids"));
}
