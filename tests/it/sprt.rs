//! `multiversi sprt`: the sequential test played for real with the built-in instant bots, whose
//! games depend only on the seed (so that a test's verdict for a given seed is fixed): verdicts
//! and their exit codes, the files beside the records, resuming after `kill -9`, shards stopping
//! together, and bad options.

use crate::support::*;
use multiversi::record::GameRecord;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// The test's result file.
fn result(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("sprt.json")).expect("sprt.json written");
    serde_json::from_str(&text).expect("sprt.json parses")
}

/// Every record in the directory's record files, by schedule index.
fn records_by_index(dir: &Path) -> BTreeMap<u64, GameRecord> {
    let mut all = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("games") && name.ends_with(".jsonl") {
            for r in read_records(&path) {
                let index = r.schedule.as_ref().expect("a schedule").index;
                assert!(
                    all.insert(index, r).is_none(),
                    "game {index} recorded twice"
                );
            }
        }
    }
    all
}

/// C's head-to-head result against B in a record, in half points: 2 above, 1 shared, 0 below.
fn half_points(r: &GameRecord, c: &str, b: &str) -> u64 {
    let seat = |name: &str| {
        r.seats
            .iter()
            .find(|s| s.name == name)
            .expect("seated")
            .seat
    };
    let group = |seat| r.ranking.iter().position(|g| g.contains(&seat)).unwrap();
    match group(seat(c)).cmp(&group(seat(b))) {
        std::cmp::Ordering::Less => 2,
        std::cmp::Ordering::Equal => 1,
        std::cmp::Ordering::Greater => 0,
    }
}

fn sprt(dir: &Path, args: &[&str]) -> TestCommand {
    multiversi("sprt")
        .args(args)
        .arg("--out")
        .arg(dir)
        .args(&["--move-ms", "2000"])
        .timeout(Duration::from_secs(120))
}

/// greedy against random is a clear difference: the test accepts H1 in a few dozen pairs, exits
/// 0, and its files say the same as its report; the counts in sprt.json are those of the
/// records, pair by pair in schedule order, and the twins are twins.
#[test]
fn a_clearly_better_bot_is_accepted_as_better_and_the_files_agree_with_the_records() {
    let dir = temp_dir("sprt_h1");
    let run = sprt(
        &dir,
        &[
            "builtin:greedy",
            "builtin:random",
            "--elo1",
            "50",
            "--seed",
            "3",
        ],
    )
    .run();
    run.assert_ok()
        .assert_stdout_has("H1 accepted")
        .assert_stdout_has("verdict: greedy is better than random");
    for file in [
        "league.toml",
        "games.jsonl",
        "sprt.html",
        "standings.json",
        "standings.html",
    ] {
        assert!(dir.join(file).is_file(), "{file} written");
    }
    let json = result(&dir);
    assert_eq!(json["format"], "multiversi-sprt");
    assert_eq!(json["verdict"], "H1");
    assert_eq!(
        (json["candidate"].as_str(), json["baseline"].as_str()),
        (Some("greedy"), Some("random"))
    );
    let llr = json["llr"].as_f64().unwrap();
    assert!(
        llr >= json["bounds"][1].as_f64().unwrap(),
        "LLR {llr} at the upper bound"
    );
    // The counted pairs are the first `units` pairs of the schedule, all recorded, and their
    // pentanomial counts are those of the records.
    let records = records_by_index(&dir);
    let units = json["units"].as_u64().unwrap();
    assert!(units >= 5, "{units} pairs");
    let mut counts = [0u64; 5];
    for u in 0..units {
        let (a, b) = (&records[&(2 * u)], &records[&(2 * u + 1)]);
        counts
            [(half_points(a, "greedy", "random") + half_points(b, "greedy", "random")) as usize] +=
            1;
        // Twins: the same board and opening, the tested bots exchanged, the field in place.
        assert_eq!(a.initial_rows, b.initial_rows);
        assert_eq!(a.opening, b.opening);
        assert!(a.opening > 0, "each pair has an opening");
        let opening = |r: &GameRecord| -> Vec<_> {
            r.moves
                .iter()
                .take(r.opening as usize)
                .map(|m| m.square)
                .collect()
        };
        assert_eq!(opening(a), opening(b));
        for (sa, sb) in a.seats.iter().zip(&b.seats) {
            match sa.name.as_str() {
                "greedy" => assert_eq!(sb.name, "random"),
                "random" => assert_eq!(sb.name, "greedy"),
                other => assert_eq!(sb.name, other),
            }
        }
    }
    let counted: Vec<u64> = json["unit_counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect();
    assert_eq!(counted, counts);
    assert_eq!(json["history"].as_array().unwrap().len() as u64, units);
    // --status reads the same from the directory, and exits with the verdict's code.
    let status = multiversi("sprt")
        .arg("--status")
        .arg(&dir)
        .arg("--json")
        .run();
    status.assert_ok();
    let from_status: serde_json::Value = serde_json::from_str(&status.stdout()).unwrap();
    assert_eq!(from_status, json);
    let page = std::fs::read_to_string(dir.join("sprt.html")).unwrap();
    assert!(page.contains("<svg") && page.contains("H1 accepted"));
}

/// Two copies of one bot (the built-in random, each copy with its own seeds): the test accepts
/// H0 and exits 10. (For this seed; how often H0 is accepted over many seeds is measured by
/// `bench/sprt.sh`.)
#[test]
fn two_copies_of_one_bot_are_found_not_better() {
    let dir = temp_dir("sprt_h0");
    let run = sprt(
        &dir,
        &[
            "builtin:random",
            "builtin:random",
            "builtin:greedy",
            "--elo1",
            "100",
            "--seed",
            "5",
            "--players",
            "3",
        ],
    )
    .run();
    run.assert_code(10)
        .assert_stdout_has("H0 accepted")
        .assert_stdout_has(
            "verdict: random is not better than random-2 by 100 Elo or more (H0: by 0 Elo or less \
             rather than 100 or more)\n",
        );
    let json = result(&dir);
    assert_eq!(json["verdict"], "H0");
    assert_eq!(
        (json["candidate"].as_str(), json["baseline"].as_str()),
        (Some("random"), Some("random-2"))
    );
    assert!(json["llr"].as_f64().unwrap() <= json["bounds"][0].as_f64().unwrap());
}

/// A cap too small to decide: exit 11, "undecided", every scheduled pair played and counted;
/// a rerun with a higher cap goes on from there, not from the start; a lower one plays nothing.
#[test]
fn a_test_stopped_by_its_cap_is_undecided_and_a_higher_cap_goes_on() {
    let dir = temp_dir("sprt_cap");
    let args = ["builtin:greedy", "builtin:greedy", "--seed", "9"];
    let run = sprt(&dir, &args).args(&["--max-games", "12"]).run();
    run.assert_code(11)
        .assert_stdout_has("undecided after the cap of 12 games");
    // Under a higher cap the test goes on: the status says to run it again, and names shards
    // only where a shard's record file says there are some.
    let copy = dir.join("league.toml");
    let text = std::fs::read_to_string(&copy).unwrap();
    std::fs::write(&copy, text.replace("max_games = 12", "max_games = 100")).unwrap();
    let status = || multiversi("sprt").arg("--status").arg(&dir).run();
    let alone = status();
    alone.assert_code(11);
    assert!(
        alone
            .stdout()
            .ends_with("verdict: not decided yet: run the test again to go on\n"),
        "{}",
        alone.stdout()
    );
    std::fs::write(dir.join("games-2-of-2.jsonl"), "").unwrap();
    status()
        .assert_code(11)
        .assert_stdout_has("(or wait for the other shards)");
    std::fs::remove_file(dir.join("games-2-of-2.jsonl")).unwrap();
    std::fs::write(&copy, text).unwrap();
    let json = result(&dir);
    assert_eq!(
        (json["verdict"].as_str(), json["games"].as_u64()),
        (Some("undecided"), Some(12))
    );
    let run = sprt(&dir, &args).args(&["--max-games", "20"]).run();
    run.assert_code(11)
        .assert_stderr_has("up to 8 game(s) to play (12 recorded before)");
    assert_eq!(result(&dir)["games"], 20);
    assert_eq!(records_by_index(&dir).len(), 20);
    // A cap lowered below what was played plays nothing and says both figures.
    let run = sprt(&dir, &args).args(&["--max-games", "8"]).run();
    run.assert_code(11)
        .assert_stdout_has("undecided after 20 games, more than the cap of 8");
    assert_eq!(records_by_index(&dir).len(), 20);
}

/// The records are what a test counts, not its claim files: when games of pairs marked played
/// are lost from the records (a damaged line, a record file cut short or removed), the next run
/// plays them again instead of leaving the pairs out for good.
#[test]
fn games_lost_from_the_records_after_their_pair_was_marked_played_are_played_again() {
    let args = [
        "builtin:greedy",
        "builtin:greedy",
        "--seed",
        "9",
        "--max-games",
        "12",
    ];
    let dir = temp_dir("sprt_lost");
    sprt(&dir, &args).run().assert_code(11);
    assert_eq!(result(&dir)["games"], 12);
    let records = dir.join("games.jsonl");
    type Damage = fn(&str) -> Option<String>;
    let damages: [(&str, Damage); 3] = [
        ("a damaged line", |text| {
            let mut lines: Vec<&str> = text.lines().collect();
            lines[2] = "{\"not\": a record";
            Some(lines.join("\n") + "\n")
        }),
        ("a cut file", |text| {
            let lines: Vec<&str> = text.lines().collect();
            Some(lines[..lines.len() - 3].join("\n") + "\n")
        }),
        ("a removed file", |_| None),
    ];
    for (what, damage) in damages {
        let text = std::fs::read_to_string(&records).unwrap();
        match damage(&text) {
            Some(damaged) => std::fs::write(&records, damaged).unwrap(),
            None => std::fs::remove_file(&records).unwrap(),
        }
        let run = sprt(&dir, &args).run();
        run.assert_code(11)
            .assert_stderr_has("marked played in")
            .assert_stderr_has("they are played again");
        assert_eq!(result(&dir)["games"], 12, "after {what}: {}", run.stderr());
        let held: usize = std::fs::read_to_string(&records)
            .unwrap()
            .lines()
            .filter(|l| serde_json::from_str::<GameRecord>(l).is_ok())
            .count();
        assert!(held >= 12, "after {what}: {held} records");
    }
    // Whole again: a further run finds nothing to reopen and plays nothing.
    let run = sprt(&dir, &args).run();
    run.assert_code(11);
    assert!(!run.stderr().contains("marked played"), "{}", run.stderr());
}

/// `kill -9` in the middle of a test, then the same command again: every game recorded before
/// the kill is kept as it was, none is recorded twice, the pairs counted before the kill count
/// the same afterwards, and the end is a pure function of the records (`--status` says the
/// same). (A pair cut in half is completed by a fresh process of each bot, so its second game
/// need not be the one an uninterrupted run would have played.)
#[test]
fn a_test_killed_and_run_again_loses_nothing_and_counts_nothing_twice() {
    let args = [
        "builtin:greedy",
        "builtin:random",
        "builtin:random",
        "--elo1",
        "20",
        "--seed",
        "11",
        "--players",
        "3",
    ];
    let dir = temp_dir("sprt_killed");
    let mut running = sprt(&dir, &args).spawn();
    let records = dir.join("games.jsonl");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&records).map_or(0, |t| t.lines().count()) < 9 {
        assert!(std::time::Instant::now() < deadline, "no games recorded");
        std::thread::sleep(Duration::from_millis(5));
    }
    running.signal(libc::SIGKILL);
    running.wait();
    let before = records_by_index(&dir);
    let status = multiversi("sprt")
        .arg("--status")
        .arg(&dir)
        .arg("--json")
        .run();
    status.assert_code(11);
    let partial: serde_json::Value = serde_json::from_str(&status.stdout()).unwrap();
    assert_eq!(partial["verdict"], "continue");
    let counted = partial["history"].as_array().unwrap().len();
    assert!(counted >= 2, "{counted} pairs counted before the kill");

    sprt(&dir, &args)
        .run()
        .assert_ok()
        .assert_stderr_has(&format!("({} recorded before)", before.len()));
    let after = records_by_index(&dir);
    for (index, record) in &before {
        assert_eq!(&after[index], record, "game {index} kept as it was");
    }
    let end = result(&dir);
    assert_eq!(end["verdict"], "H1");
    let units = end["units"].as_u64().unwrap();
    assert!(
        (0..2 * units).all(|i| after.contains_key(&i)),
        "every counted game recorded"
    );
    assert_eq!(
        end["history"].as_array().unwrap()[..counted],
        partial["history"].as_array().unwrap()[..],
        "the pairs counted before the kill count the same"
    );
    let status = multiversi("sprt")
        .arg("--status")
        .arg(&dir)
        .arg("--json")
        .run();
    status.assert_ok();
    let from_status: serde_json::Value = serde_json::from_str(&status.stdout()).unwrap();
    assert_eq!(from_status, end);
}

/// Two shards of one test in one directory, at the same time: they share the pairs (each pair
/// played whole by one of them, none twice), each reads the other's records, both stop once the
/// merged test has decided, and `--status` has the verdict of all their games together.
#[test]
fn shards_of_a_test_stop_together_once_the_merged_test_decides() {
    let dir = temp_dir("sprt_shards");
    let args = [
        "builtin:greedy",
        "builtin:random",
        "--elo1",
        "30",
        "--seed",
        "13",
    ];
    let one = sprt(&dir, &args)
        .args(&["--shard", "1/2", "--concurrency", "1"])
        .spawn();
    let two = sprt(&dir, &args)
        .args(&["--shard", "2/2", "--concurrency", "1"])
        .spawn();
    let (one, two) = (one.finish(), two.finish());
    one.assert_ok();
    two.assert_ok();
    let status = multiversi("sprt")
        .arg("--status")
        .arg(&dir)
        .arg("--json")
        .run();
    status.assert_ok();
    let json: serde_json::Value = serde_json::from_str(&status.stdout()).unwrap();
    assert_eq!(json["verdict"], "H1");
    let records = records_by_index(&dir);
    // Both played (records_by_index checked that no game is in two files), and every pair was
    // played whole by one shard.
    for i in 1..=2 {
        let own = read_records(&dir.join(format!("games-{i}-of-2.jsonl")));
        assert!(!own.is_empty(), "shard {i} played");
        for r in &own {
            let twin = r.schedule.as_ref().unwrap().index ^ 1;
            if let Some(t) = records.get(&twin) {
                assert!(
                    own.iter().any(|o| o.game == t.game),
                    "pair of {} split",
                    r.game
                );
            }
        }
    }
    let units = json["units"].as_u64().unwrap();
    // Neither ran on alone to the cap of 10,000 pairs: beyond the decision only the games in
    // progress and those of the quarter second it takes to read the other's file.
    let played = records.len() as u64 / 2;
    assert!(
        played <= units + 40,
        "{played} pairs played for {units} counted"
    );
}

/// What a person can get wrong: hypotheses the wrong way round, a cap below a pair, a
/// directory started with other options, a damaged directory for --status.
#[test]
fn bad_options_and_a_changed_test_are_refused_with_what_is_wrong() {
    let dir = temp_dir("sprt_bad");
    sprt(
        &dir,
        &[
            "builtin:greedy",
            "builtin:random",
            "--elo0",
            "10",
            "--elo1",
            "5",
        ],
    )
    .run()
    .assert_code(2)
    .assert_stderr_has("elo1");
    sprt(
        &dir,
        &["builtin:greedy", "builtin:random", "--max-games", "1"],
    )
    .run()
    .assert_code(2)
    .assert_stderr_has("--max-games 1");
    sprt(
        &dir,
        &["builtin:greedy", "builtin:greedy", "--alpha", "1.5"],
    )
    .run()
    .assert_code(2)
    .assert_stderr_has("alpha");
    // A negative probability is a value out of range, not an unknown option.
    sprt(
        &dir,
        &["builtin:greedy", "builtin:random", "--beta", "-0.1"],
    )
    .run()
    .assert_code(2)
    .assert_stderr_has("--beta -0.1 must be between 0 and 1");
    // So is an infinite one, and each option is named in the command line's words.
    sprt(
        &dir,
        &["builtin:greedy", "builtin:random", "--elo0", "-inf"],
    )
    .run()
    .assert_code(2)
    .assert_stderr_has("--elo0 -inf is not a rating difference");
    sprt(
        &dir,
        &[
            "builtin:greedy",
            "builtin:random",
            "--alpha",
            "0.6",
            "--beta",
            "0.5",
        ],
    )
    .run()
    .assert_code(2)
    .assert_stderr_has("--alpha + --beta must be below 1 (they add up to 1.1)");
    sprt(
        &dir,
        &["builtin:greedy", "builtin:random", "--name", "1=my+bot"],
    )
    .run()
    .assert_code(2)
    .assert_stderr_has("--name 1=my+bot");
    let args = [
        "builtin:greedy",
        "builtin:random",
        "--max-games",
        "4",
        "--seed",
        "1",
    ];
    sprt(&dir, &args).run().assert_code(11);
    sprt(
        &dir,
        &[
            "builtin:greedy",
            "builtin:random",
            "--max-games",
            "4",
            "--seed",
            "1",
            "--elo1",
            "20",
        ],
    )
    .run()
    .assert_code(2)
    .assert_stderr_has("holds a sequential test started with another config")
    .assert_stderr_has("sprt.elo1 was 10.0, now 20.0")
    .assert_stderr_has("Only a changed cap");
    // Other bots in the same directory: another test, said as such.
    sprt(
        &dir,
        &[
            "builtin:random",
            "builtin:greedy",
            "--max-games",
            "4",
            "--seed",
            "1",
        ],
    )
    .run()
    .assert_code(2)
    .assert_stderr_has("holds the test of greedy against random, not of random against greedy");
    let empty = temp_dir("sprt_bad_status");
    multiversi("sprt")
        .arg("--status")
        .arg(&empty)
        .run()
        .assert_code(3)
        .assert_stderr_has("league.toml");
}

/// The same test from a league config (`format = "sprt"`): the config's bots, the [sprt] keys.
#[test]
fn a_league_config_with_format_sprt_runs_the_test() {
    let dir = temp_dir("sprt_league");
    let config = dir.join("test.toml");
    std::fs::write(
        &config,
        "name = \"v2-test\"\nformat = \"sprt\"\nseed = 4\nplayers = [3, 4]\nopening = 2\n\
         move_ms = 2000\n[sprt]\ncandidate = \"v2\"\nbaseline = \"v1\"\nelo1 = 50\n\
         [[bot]]\nname = \"v1\"\ncommand = \"builtin:random\"\n\
         [[bot]]\nname = \"v2\"\ncommand = \"builtin:greedy\"\n\
         [[bot]]\nname = \"pool-a\"\ncommand = \"builtin:random\"\n\
         [[bot]]\nname = \"pool-b\"\ncommand = \"builtin:greedy\"\n",
    )
    .unwrap();
    let out = dir.join("out");
    multiversi("league")
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .timeout(Duration::from_secs(120))
        .run()
        .assert_ok()
        .assert_stdout_has("verdict: v2 is better than v1");
    let json = result(&out);
    assert_eq!(json["verdict"], "H1");
    let sizes: std::collections::BTreeSet<usize> = records_by_index(&out)
        .values()
        .map(|r| r.seats.len())
        .collect();
    assert_eq!(sizes, [3, 4].into_iter().collect(), "both table sizes");
    // A league config without the keys of the test is refused.
    std::fs::write(&config, "name = \"t\"\nformat = \"sprt\"\n").unwrap();
    multiversi("league")
        .arg(&config)
        .run()
        .assert_code(2)
        .assert_stderr_has("[sprt]");
}

/// A shard killed in the middle of a pair while another shard plays on: the other takes the
/// pair over (its claim is no longer locked), so the complete prefix the test counts is not
/// held up; every pair up to the cap is counted, none played twice.
#[test]
fn a_pair_left_by_a_killed_shard_is_taken_over_by_a_running_one() {
    let dir = temp_dir("sprt_takeover");
    let args = [
        "builtin:greedy",
        "builtin:greedy",
        "--seed",
        "3",
        "--max-games",
        "300",
        "--concurrency",
        "1",
    ];
    let mut one = sprt(&dir, &args).args(&["--shard", "1/2"]).spawn();
    let two = sprt(&dir, &args).args(&["--shard", "2/2"]).spawn();
    let first = dir.join("games-1-of-2.jsonl");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&first).map_or(0, |t| t.lines().count()) < 5 {
        assert!(
            std::time::Instant::now() < deadline,
            "shard 1 recorded nothing"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    one.signal(libc::SIGKILL);
    one.wait();
    two.finish().assert_code(11);
    let records = records_by_index(&dir);
    assert_eq!(records.len(), 300, "every game of the cap played once");
    let status = multiversi("sprt")
        .arg("--status")
        .arg(&dir)
        .arg("--json")
        .run();
    let json: serde_json::Value = serde_json::from_str(&status.stdout()).unwrap();
    assert_eq!(
        (
            json["verdict"].as_str(),
            json["units"].as_u64(),
            json["waiting_games"].as_u64()
        ),
        (Some("undecided"), Some(150), Some(0))
    );
}

/// Records of another test under the same name (another seed) appended to a test's records are
/// not its games: `--status` and a resume count what they counted before, a resume plays the
/// pairs those records stand in the place of, a warning says so once a file, and the file keeps
/// every line it held, the other test's too.
#[test]
fn another_tests_records_under_the_same_name_are_ignored_said_once_and_left_in_place() {
    let (dir, other) = (temp_dir("sprt_foreign"), temp_dir("sprt_foreign_other"));
    let args = |seed: &'static str, cap: &'static str| {
        [
            "builtin:greedy",
            "builtin:random",
            "--seed",
            seed,
            "--max-games",
            cap,
        ]
    };
    sprt(&dir, &args("1", "10")).run().assert_code(11);
    let before = result(&dir);
    assert_eq!(before["units"], 5);
    sprt(&other, &args("2", "12")).run().assert_code(11);
    let records = dir.join("games.jsonl");
    let mut both = std::fs::read(&records).unwrap();
    both.extend(std::fs::read(other.join("games.jsonl")).unwrap());
    std::fs::write(&records, &both).unwrap();
    let warning = "12 record(s) of run 'greedy-vs-random' are not games of this test's schedule";

    let status = multiversi("sprt")
        .arg("--status")
        .arg(&dir)
        .arg("--json")
        .run();
    status.assert_code(11);
    let json: serde_json::Value = serde_json::from_str(&status.stdout()).unwrap();
    assert_eq!(
        (&json["units"], &json["llr"], &json["waiting_games"]),
        (&before["units"], &before["llr"], &before["waiting_games"])
    );
    assert_eq!(
        status.stderr().matches(warning).count(),
        1,
        "{}",
        status.stderr()
    );
    status.assert_stderr_has("its seed is");

    // The resume plays its own sixth pair, which the other test's records do not stand for.
    let resumed = sprt(&dir, &args("1", "12")).run();
    resumed
        .assert_code(11)
        .assert_stderr_has("up to 2 game(s) to play");
    assert_eq!(
        resumed.stderr().matches(warning).count(),
        1,
        "{}",
        resumed.stderr()
    );
    assert_eq!(result(&dir)["units"], 6);
    let now = std::fs::read(&records).unwrap();
    assert!(
        now.starts_with(&both),
        "the lines the file held are left as they were"
    );
    let own: Vec<GameRecord> = read_records(&records)
        .into_iter()
        .filter(|r| r.schedule.as_ref().is_some_and(|s| s.index >= 10))
        .collect();
    // Its own pair 6, after the other test's (whose seed differs).
    assert_eq!(own.len(), 4);
    assert_ne!(own[0].seed, own[2].seed);
    assert_eq!(own[2].seed, own[3].seed);
}

/// A test of the instant bots that stops undecided at its cap of four games (exit 11).
const SHORT_TEST: [&str; 6] = [
    "builtin:greedy",
    "builtin:random",
    "--seed",
    "1",
    "--max-games",
    "4",
];

/// `--status` says what a resume would: a record file's damaged lines are named in a warning and
/// counted in the JSON, and they change nothing the test counts.
#[test]
fn the_status_of_a_test_says_its_damaged_lines() {
    let dir = temp_dir("sprt_status_damaged");
    let args = SHORT_TEST;
    sprt(&dir, &args).run().assert_code(11);
    let status = |json: bool| {
        let command = multiversi("sprt").arg("--status").arg(&dir);
        let run = if json { command.arg("--json") } else { command }.run();
        run.assert_code(11);
        run
    };
    let clean = status(true);
    assert!(!clean.stderr().contains("damaged"), "{}", clean.stderr());
    let before: serde_json::Value = serde_json::from_str(&clean.stdout()).unwrap();
    assert_eq!(before["damaged_lines"], 0);
    let records = dir.join("games.jsonl");
    let mut text = std::fs::read_to_string(&records).unwrap();
    text += "not a record\n{\"format\":\"multiversi-game\",\"ver";
    std::fs::write(&records, &text).unwrap();
    let warning = format!(
        "{} holds 2 damaged line(s), which replay and standings skip",
        records.display()
    );
    let damaged = status(true);
    damaged.assert_stderr_has(&warning);
    let after: serde_json::Value = serde_json::from_str(&damaged.stdout()).unwrap();
    assert_eq!(after["damaged_lines"], 2);
    assert_eq!(
        (&after["llr"], &after["units"]),
        (&before["llr"], &before["units"])
    );
    status(false).assert_stderr_has(&warning);
}

/// A test is not started in a directory that holds something else, a standings folder or a
/// league: it would overwrite their files. It exits 2 with what is there and leaves it as it
/// was; a directory a test left before writing its config (its locks, an empty record file) is
/// still its own. `league` refuses the same.
#[test]
fn a_directory_that_holds_something_else_is_refused_and_left_as_it_was() {
    let dir = temp_dir("sprt_foreign_dir");
    let standings = dir.join("standings");
    std::fs::create_dir_all(&standings).unwrap();
    std::fs::write(standings.join("standings.json"), "{\"mine\": 1}\n").unwrap();
    let args = ["builtin:greedy", "builtin:random", "--max-games", "4"];
    sprt(&standings, &args)
        .run()
        .assert_code(2)
        .assert_stderr_has("is not the directory of a sequential test")
        .assert_stderr_has("'standings.json'");
    assert_eq!(
        std::fs::read_to_string(standings.join("standings.json")).unwrap(),
        "{\"mine\": 1}\n"
    );
    assert!(!standings.join("league.toml").exists());
    // A league's directory is no test's.
    let config = dir.join("league.toml");
    std::fs::write(
        &config,
        "name = \"club\"\nseed = 1\nplayers = 3\n[[bot]]\nname = \"a\"\ncommand = \"builtin:random\"\n\
         [[bot]]\nname = \"b\"\ncommand = \"builtin:random\"\n[[bot]]\nname = \"c\"\ncommand = \"builtin:greedy\"\n",
    )
    .unwrap();
    let league_dir = dir.join("league");
    multiversi("league")
        .arg(&config)
        .arg("--out")
        .arg(&league_dir)
        .run()
        .assert_ok();
    let held = std::fs::read(league_dir.join("games.jsonl")).unwrap();
    sprt(&league_dir, &args)
        .run()
        .assert_code(2)
        .assert_stderr_has("holds a league (club), not a sequential test");
    assert_eq!(std::fs::read(league_dir.join("games.jsonl")).unwrap(), held);
    // And the other way round, and a league into the standings folder.
    let test_dir = dir.join("test");
    sprt(&test_dir, &args).run().assert_code(11);
    for (out, words) in [
        (
            &test_dir,
            "holds a sequential test (greedy-vs-random), not a league",
        ),
        (&standings, "is not the directory of a league"),
    ] {
        multiversi("league")
            .arg(&config)
            .arg("--out")
            .arg(out)
            .run()
            .assert_code(2)
            .assert_stderr_has(words);
    }
    // What a test leaves before its config is written is its own: the test starts there.
    let early = dir.join("early");
    std::fs::create_dir_all(&early).unwrap();
    std::fs::write(early.join("run.lock"), "").unwrap();
    std::fs::write(early.join("games.jsonl"), "").unwrap();
    sprt(&early, &args).run().assert_code(11);
    assert!(early.join("league.toml").is_file());
    // A file given as the directory: refused as a wrong option, the file as it was.
    let file = dir.join("afile");
    std::fs::write(&file, "x\n").unwrap();
    sprt(&file, &args)
        .run()
        .assert_code(2)
        .assert_stderr_has("is a file, not a directory");
    multiversi("league")
        .arg(&config)
        .arg("--out")
        .arg(&file)
        .run()
        .assert_code(2)
        .assert_stderr_has("is a file, not a directory");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x\n");
}

/// A second record of one of the test's games with other contents (the same id and place, an
/// edited result, say) is not counted: the first read counts, in the test and in `standings`
/// alike, and both say so.
#[test]
fn a_second_record_of_a_game_with_other_contents_counts_nowhere() {
    let dir = temp_dir("sprt_same_place");
    let args = SHORT_TEST;
    sprt(&dir, &args).run().assert_code(11);
    let before = result(&dir);
    let records = dir.join("games.jsonl");
    let mut edited = read_records(&records)[0].clone();
    edited.ranking.reverse();
    edited.result = multiversi::rules::Outcome::Win {
        winner: edited.ranking[0][0],
    };
    let mut text = std::fs::read_to_string(&records).unwrap();
    text += &(serde_json::to_string(&edited).unwrap() + "\n");
    std::fs::write(&records, &text).unwrap();
    let status = multiversi("sprt")
        .arg("--status")
        .arg(&dir)
        .arg("--json")
        .run();
    status.assert_code(11).assert_stderr_has(&format!(
        "game {} is recorded twice with different contents",
        edited.game
    ));
    let json: serde_json::Value = serde_json::from_str(&status.stdout()).unwrap();
    assert_eq!(
        (&json["llr"], &json["unit_counts"]),
        (&before["llr"], &before["unit_counts"])
    );
    let standings = multiversi("standings").arg(&records).run();
    standings
        .assert_ok()
        .assert_stderr_has("another record of the place of game");
    assert!(
        standings.stdout().contains("4 games in 2 deals"),
        "{}",
        standings.stdout()
    );
}

/// The standings a test writes at its end count the games the test counts: another test's
/// records under the same name in its record file are left out, said in one warning and counted
/// in `other_runs`.
#[test]
fn a_tests_final_standings_count_only_its_own_games() {
    let (dir, other) = (temp_dir("sprt_own_standings"), temp_dir("sprt_own_other"));
    let args = |seed: &'static str| {
        [
            "builtin:greedy",
            "builtin:random",
            "--seed",
            seed,
            "--max-games",
            "4",
        ]
    };
    sprt(&dir, &args("1")).run().assert_code(11);
    let clean = read_json(&dir.join("standings.json"));
    assert_eq!(clean["games"], 4);
    assert!(clean.get("other_runs").is_none(), "{clean}");
    sprt(&other, &args("2")).run().assert_code(11);
    let records = dir.join("games.jsonl");
    let mut both = std::fs::read(&records).unwrap();
    both.extend(std::fs::read(other.join("games.jsonl")).unwrap());
    std::fs::write(&records, &both).unwrap();

    let again = sprt(&dir, &args("1")).run();
    again
        .assert_code(11)
        .assert_stdout_has("Standings of all 4 game(s) in ");
    let warning = "the standings count only this test's own games and leave out 4 record(s) in \
                   its directory: 4 of run 'greedy-vs-random' that are not games of its schedule \
                   (the first, game ";
    assert_eq!(
        again.stderr().matches(warning).count(),
        1,
        "{}",
        again.stderr()
    );
    let json = read_json(&dir.join("standings.json"));
    assert_eq!(
        (&json["games"], &json["other_runs"]),
        (&4.into(), &4.into())
    );
    let mut own = json.clone();
    own.as_object_mut().unwrap().remove("other_runs");
    assert_eq!(own, clean);
}

/// A test resumed after NEW's script was edited would count games of two programs as one: it
/// is refused, with the file named, and nothing is played or changed; the same file unchanged
/// goes on. A league in the same case warns and plays on.
#[test]
fn a_test_resumed_after_a_bot_file_changed_is_refused_and_a_league_warns() {
    let dir = temp_dir("sprt_bot_file");
    let script = dir.join("new.sh");
    let body = format!(
        "#!/bin/sh\nexec {} bot greedy\n",
        shell_word(env!("CARGO_BIN_EXE_multiversi"))
    );
    std::fs::write(&script, &body).unwrap();
    let out = dir.join("test");
    let new = bot_cmd(&["sh", utf8(&script)]);
    let args = |cap: &'static str| {
        [
            new.clone(),
            "builtin:greedy".to_string(),
            "--seed".into(),
            "3".into(),
            "--max-games".into(),
            cap.into(),
        ]
    };
    let run = |cap| {
        let words = args(cap);
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        sprt(&out, &words).run()
    };
    run("4").assert_code(11);
    // Unchanged: the test goes on.
    run("6")
        .assert_code(11)
        .assert_stderr_has("up to 2 game(s) to play (4 recorded before)");
    std::fs::write(&script, format!("{body}# tuned\n")).unwrap();
    let records = std::fs::read(out.join("games.jsonl")).unwrap();
    let refused = run("8");
    refused.assert_code(2).assert_stderr_has(&format!(
        "holds a test whose 6 recorded game(s) were played by another version of its bots: {} \
         (bot new) has changed",
        utf8(&script)
    ));
    assert_eq!(std::fs::read(out.join("games.jsonl")).unwrap(), records);
    // The way out the message gives, for a change that does not change the bot's play.
    std::fs::remove_file(out.join("bot-files.json")).unwrap();
    run("8")
        .assert_code(11)
        .assert_stderr_has("up to 2 game(s) to play (6 recorded before)");

    let league_dir = dir.join("league");
    std::fs::create_dir_all(&league_dir).unwrap();
    let config = league_dir.join("league.toml");
    let bot = |name: &str, command: &str| {
        format!(
            "[[bot]]\nname = \"{name}\"\ncommand = {}\n",
            toml_string(command)
        )
    };
    let league = |rounds: u32| {
        std::fs::write(
            &config,
            format!(
                "name = \"l\"\nseed = 1\nplayers = 3\nrounds = {rounds}\nmove_ms = 2000\n{}{}{}",
                bot("s", &new),
                bot("g", "builtin:greedy"),
                bot("r", "builtin:random")
            ),
        )
        .unwrap();
        multiversi("league")
            .arg(&config)
            .arg("--out")
            .arg(league_dir.join("out"))
            .timeout(Duration::from_secs(120))
            .run()
    };
    league(1).assert_code(0);
    std::fs::write(&script, format!("{body}# tuned again\n")).unwrap();
    let warned = league(2);
    warned.assert_code(0).assert_stderr_has(&format!(
        "warning: {} (bot s) has changed since the first games in ",
        utf8(&script)
    ));
    assert_eq!(
        read_records(&league_dir.join("out").join("games.jsonl")).len(),
        12
    );
    // Edited back, the file is as it was: the games played meanwhile are still of the other
    // version, and that is still said.
    std::fs::write(&script, format!("{body}# tuned\n")).unwrap();
    league(3).assert_code(0).assert_stderr_has(
        "warning: bot s played some of its games with another version of its files",
    );
}

/// A bot that never answers stops the test with exit 4, and the verdict line says so rather
/// than inviting a run of the same command again.
#[test]
fn a_test_stopped_by_a_bot_that_never_answers_says_why_it_has_no_verdict() {
    let dir = temp_dir("sprt_never_answers");
    let quits = dir.join("quits.py");
    std::fs::write(&quits, "raise SystemExit(1)\n").unwrap();
    let new = bot_cmd(&["python3", utf8(&quits)]);
    let run = sprt(&dir.join("test"), &[&new, "builtin:random"]).run();
    run.assert_code(4)
        .assert_stdout_has("verdict: not decided: a bot never answered start")
        .assert_stderr_has("never answered start")
        // Its record file is empty, not damaged.
        .assert_stderr_has("warning: no standings written: no game in ");
    assert!(!run
        .stdout()
        .contains("run the test again to go on (or wait"));
}
