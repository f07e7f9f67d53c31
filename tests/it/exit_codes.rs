//! The exit codes README "Exit codes" documents for `match`, for the failures that need more
//! than a wrong word on the command line: each loses nothing already written and leaves no bot.

use crate::support::*;

#[test]
fn missing_cwd_uncreatable_log_dir_and_a_zero_clock() {
    let dir = temp_dir("exit-codes");
    let missing = dir.join("no such dir");
    let blocker = dir.join("a file");
    std::fs::write(&blocker, "not a directory").unwrap();
    let cwd = format!("1={}", missing.display());
    let logs = blocker.join("logs");
    let three = ["builtin:random", "builtin:greedy", "builtin:random"];
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["--cwd", &cwd], 3),
        (vec!["--log-dir", logs.to_str().unwrap()], 5),
        (vec!["--clock-ms", "0"], 2),
    ];
    for (args, code) in cases {
        let out = multiversi("match").args(&three).args(&args).run();
        out.assert_code(code);
        assert!(out.stdout_bytes().is_empty(), "{args:?}: no table");
    }
}

#[test]
fn a_record_file_that_is_not_a_file_is_refused_before_any_game() {
    let dir = temp_dir("exit-codes-not-a-file");
    let fifo = dir.join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    // /dev/null refused the sync after the first game; a FIFO hung while its games were counted.
    for target in [std::path::Path::new("/dev/null"), fifo.as_path()] {
        let out = multiversi("match")
            .args(&["builtin:random", "builtin:greedy", "builtin:random"])
            .record(target)
            .timeout(std::time::Duration::from_secs(20))
            .run();
        let err = out.stderr();
        out.assert_code(5);
        assert!(err.contains("not a regular file"), "{err}");
        assert!(
            !err.contains("disqualified") && out.stdout_bytes().is_empty(),
            "{err}"
        );
    }
}

#[test]
fn a_record_write_that_fails_mid_match_exits_5_and_keeps_the_games_before() {
    // Once to learn the size of a first game's line, then again with files limited to one and
    // a half of it: the first game fits, the second cannot be written.
    let dir = temp_dir("record-fails");
    let trial = dir.join("trial.jsonl");
    // Bots that write nothing but their pid: the file size limit binds them too.
    let pids = dir.join("pids");
    let good = bot_cmd(&["python3", &test_bot("bad.py"), utf8(&pids), "good"]);
    let command = |record: &std::path::Path| {
        multiversi("match")
            .args(&[&good, &good, "builtin:random"])
            .args(&["--seed", "3", "--games", "3", "--startup-ms", "20000"])
            .args(&["--grace-ms", "200"])
            .record(record)
    };
    command(&trial).ok();
    let first = std::fs::read_to_string(&trial)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .len() as u64;

    let record = dir.join("games.jsonl");
    let limit = first * 3 / 2;
    // SAFETY: setrlimit is async-signal-safe; run in the child before exec. SIGXFSZ is left as
    // it is (to kill, as a shell's `ulimit -f` leaves it): the referee must not die of it
    // halfway through a line.
    let command = unsafe {
        command(&record).pre_exec(move || {
            let rlimit = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            libc::setrlimit(libc::RLIMIT_FSIZE, &rlimit);
            Ok(())
        })
    };
    command
        .run()
        .assert_code(5)
        .assert_stderr_has(utf8(&record));
    assert_no_process_left(&dir.join("pids"));
    // Only whole games: the first, and no half of the second for a later run to append to.
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(text.ends_with('\n'), "half a line left at the end");
    let games = read_records(&record);
    assert_eq!(games.len(), 1);
    check_record(&games[0]);
}

/// The same limit reached by the writer's batches of quick games (several lines in one write):
/// the lines that went out whole are kept, the one cut off is taken back, and the referee says
/// so with exit 5 instead of dying of SIGXFSZ.
#[test]
fn a_file_size_limit_cuts_a_batch_of_quick_games_at_a_whole_line() {
    let dir = temp_dir("record-limit-batch");
    let record = dir.join("games.jsonl");
    let bot = bot_cmd(&[env!("CARGO_BIN_EXE_multiversi"), "bench-bot"]);
    // Some 30 games' lines: far fewer than the games played, written many to a batch.
    let limit: libc::rlim_t = 200 * 1024;
    // SAFETY: setrlimit is async-signal-safe; run in the child before exec.
    let command = unsafe {
        multiversi("match")
            .args(&[&bot, &bot, &bot, &bot, "--games", "2000", "--seed", "9"])
            .args(&["--concurrency", "2"])
            .record(&record)
            .pre_exec(move || {
                let rlimit = libc::rlimit {
                    rlim_cur: limit,
                    rlim_max: limit,
                };
                libc::setrlimit(libc::RLIMIT_FSIZE, &rlimit);
                Ok(())
            })
    };
    let out = command.run();
    out.assert_code(5);
    out.assert_stderr_has(&format!("{}: cannot write game", utf8(&record)));
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(text.ends_with('\n'), "half a line left at the end");
    let games = read_records(&record);
    assert!(
        games.len() > 10 && text.len() as u64 <= limit,
        "{} games in {} bytes",
        games.len(),
        text.len()
    );
    assert_eq!(
        text.lines().count(),
        games.len(),
        "a line that is not a game"
    );
    for game in &games {
        check_record(game);
    }
}

/// `multiversi perft 7 | head -1`, and the like for every subcommand that prints: a reader that
/// went away ends it quietly, with exit 0 and no "Broken pipe" — as other Unix tools do.
#[test]
fn every_subcommand_into_a_closed_pipe_ends_quietly() {
    let records = temp_dir("exit-codes-closed-pipe").join("games.jsonl");
    samples::write(&records, &samples::sample_games());
    let records = utf8(&records);
    let start = r#"{"type":"start","protocol":1,"game":"g","seat":0,"colour":"black","players":[{"seat":0,"colour":"black","name":"a"},{"seat":1,"colour":"white","name":"b"},{"seat":2,"colour":"red","name":"c"}],"rules":{"players":3,"board":"8x8","anti":false,"blocked":[]},"size":8,"rows":["........","........","........","...BW...","...NR...","........","........","........"],"time":{"move_ms":500,"clock_ms":null,"increment_ms":0,"startup_ms":10000}}"#;
    let cases: Vec<(&str, Vec<&str>, String)> = vec![
        ("perft", vec!["5"], String::new()),
        ("league", vec!["--example"], String::new()),
        ("bot", vec!["random"], format!("{start}\n")),
        ("replay", vec![records, "--verify"], String::new()),
        ("replay", vec![records, "--ply", "3"], String::new()),
        ("standings", vec![records], String::new()),
        ("perft", vec!["--help"], String::new()),
        (
            "match",
            vec!["builtin:random", "builtin:random", "builtin:random"],
            String::new(),
        ),
    ];
    for (subcommand, args, stdin) in cases {
        let out = multiversi(subcommand)
            .args(&args)
            .stdin(stdin)
            .stdout_to(closed_pipe())
            .run();
        let err = out.stderr();
        assert_eq!(out.code(), Some(0), "{subcommand} {args:?}: {err}");
        for noise in ["Broken pipe", "panicked", "error"] {
            assert!(!err.contains(noise), "{subcommand} {args:?}: {err}");
        }
    }
}

/// Output that cannot be written for another reason than a reader gone is an output failure
/// (exit 5) that says so, not a wrong option (exit 2).
#[test]
fn output_to_a_full_disk_is_exit_5() {
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let out = multiversi("perft").arg("3").stdout_to(full()).run();
    out.assert_code(5);
    out.assert_stderr_has("multiversi: cannot write output: No space left on device");
    let out = multiversi("league")
        .arg("--example")
        .stdout_to(full())
        .run();
    out.assert_code(5);
}

/// A file where `--out` needs a directory is an output failure (exit 5) for a league as for the
/// standings, with the same words: not an unreadable input (exit 3).
#[test]
fn an_out_directory_under_a_file_is_exit_5() {
    let dir = temp_dir("exit-out-under-a-file");
    std::fs::write(dir.join("afile"), "").unwrap();
    let out_dir = dir.join("afile").join("sub");
    let config = dir.join("league.toml");
    let bots = (1..=3)
        .map(|i| format!("[[bot]]\nname = \"r{i}\"\ncommand = \"builtin:random\"\n"))
        .collect::<String>();
    std::fs::write(&config, format!("name = \"x\"\nplayers = 3\n{bots}")).unwrap();
    let out = multiversi("league")
        .arg(&config)
        .arg("--out")
        .arg(&out_dir)
        .run();
    out.assert_code(5);
    out.assert_stderr_has(&format!(
        "cannot create {}: Not a directory",
        out_dir.display()
    ));
}
