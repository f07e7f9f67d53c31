//! `multiversi standings`: records from real matches of deterministic bots, merged; every count in
//! standings.json and standings.csv checked against the same counts worked out here from the
//! records directly; damaged lines, duplicates, exit codes, the rating's anchor, the HTML page.

use crate::support::samples;
use crate::support::*;
use multiversi::record::GameRecord;
use multiversi::rules::Outcome;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Plays three matches into two record files: four bots of two kinds (8x8, 4 players, one deal
/// of the 24 seatings' first 8), three bots on the octagon (three deals of 6 seatings), and one
/// with a bot that plays an illegal move at its second turn.
fn play(dir: &Path) -> (PathBuf, PathBuf) {
    let a = dir.join("a.jsonl");
    let b = dir.join("b.jsonl");
    let pids = dir.join("pids");
    let bad = bot_cmd(&["python3", &test_bot("bad.py"), utf8(&pids), "illegal", "2"]);
    let runs: [(&Path, Vec<&str>); 3] = [
        (
            &a,
            vec![
                "--seed",
                "11",
                "--games",
                "8",
                "builtin:greedy",
                "builtin:random",
                "builtin:greedy",
                "builtin:random",
            ],
        ),
        (
            &b,
            vec![
                "--seed",
                "12",
                "--games",
                "18",
                "--board",
                "octagon",
                "builtin:random",
                "builtin:greedy",
                "builtin:random",
            ],
        ),
        (
            &b,
            vec![
                "--seed",
                "13",
                "--games",
                "3",
                &bad,
                "builtin:greedy",
                "builtin:random",
            ],
        ),
    ];
    for (file, args) in runs {
        multiversi("match")
            .args(&["--move-ms", "2000"])
            .record(file)
            .args(&args)
            .ok();
    }
    (a, b)
}

/// Per bot, the table's numbers worked out from the records alone.
#[derive(Default, Debug)]
struct Expected {
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    points: f64,
    discs: f64,
    places: f64,
    faults: BTreeMap<String, u64>,
    moves: u64,
    total_ms: f64,
    max_ms: f64,
}

fn expected(records: &[GameRecord]) -> BTreeMap<String, Expected> {
    let mut out: BTreeMap<String, Expected> = BTreeMap::new();
    for r in records {
        let out_of_game = |seat: usize| r.faults.iter().any(|f| f.seat == seat);
        let in_game = (0..r.seats.len()).filter(|&s| !out_of_game(s)).count();
        for (seat, s) in r.seats.iter().enumerate() {
            let e = out.entry(s.name.clone()).or_default();
            e.games += 1;
            match r.result {
                Outcome::Win { winner } if winner == seat => {
                    e.wins += 1;
                    e.points += 1.0;
                }
                Outcome::Draw if !out_of_game(seat) => {
                    e.draws += 1;
                    e.points += 1.0 / in_game as f64;
                }
                _ => e.losses += 1,
            }
            e.discs += r.scores[seat] as f64;
            // Positions 1..k; seats sharing a place get the mean of the positions they cover.
            let mut position = 0;
            for place in &r.ranking {
                if place.contains(&seat) {
                    e.places += position as f64 + (place.len() as f64 + 1.0) / 2.0;
                }
                position += place.len();
            }
            for f in r.faults.iter().filter(|f| f.seat == seat) {
                let kind = serde_json::to_value(f.kind).unwrap();
                *e.faults
                    .entry(kind.as_str().unwrap().to_string())
                    .or_default() += 1;
            }
            for m in r
                .moves
                .iter()
                .skip(r.opening as usize)
                .filter(|m| m.seat == seat)
            {
                e.moves += 1;
                e.total_ms += m.ms;
                e.max_ms = e.max_ms.max(m.ms);
            }
        }
    }
    out
}

/// Runs `tests/browser/standings.test.mjs` on the output directory in headless Chromium (set up
/// by `.ci/setup-browser`, like the replay viewer's browser test; missing, it fails and says so).
fn browser_check(out_dir: &Path) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    assert!(
        Path::new(&chromium).exists() && dir.join("node_modules/playwright-core").exists(),
        "the standings browser check needs chromium and tests/browser/node_modules: run `bash .ci/setup-browser`"
    );
    let out = std::process::Command::new("node")
        .current_dir(&dir)
        .env("CHROMIUM", &chromium)
        .arg("standings.test.mjs")
        .arg("--dir")
        .arg(out_dir)
        .output()
        .expect("node runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "standings browser check failed:\n{text}"
    );
    assert!(text.contains(" passed, 0 failed"), "{text}");
}

/// The games JSON inside a replay viewer page.
fn viewer_data(page: &str) -> Value {
    let start =
        page.find("type=\"application/json\">").unwrap() + "type=\"application/json\">".len();
    let end = start + page[start..].find("</script>").unwrap();
    serde_json::from_str(&page[start..end]).unwrap()
}

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance
}

#[test]
fn standings_of_merged_matches_match_the_records() {
    let dir = temp_dir("standings-merged");
    let (a, b) = play(&dir);
    let mut records = read_records(&a);
    records.extend(read_records(&b));
    assert_eq!(records.len(), 8 + 18 + 3);
    // A line cut off by a kill, and a file given twice: skipped with a warning, counted once.
    let mut text = std::fs::read_to_string(&b).unwrap();
    let cut = text.lines().next().unwrap()[..100].to_string();
    text.push_str(&cut);
    std::fs::write(&b, text).unwrap();
    let out_dir = dir.join("out");
    let out = multiversi("standings")
        .args(&[
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            a.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
            "--bootstrap",
            "100",
        ])
        .ok();
    let err = out.stderr();
    assert!(
        err.contains(&format!("{}:22: the line ends in the middle", b.display())),
        "{err}"
    );
    assert!(
        err.contains(&format!("{}:1: the same game as game 1", a.display())),
        "{err}"
    );
    // The 8 games of the file given twice: five lines, then a count, not a line for each.
    assert_eq!(err.matches("the same game as game").count(), 5, "{err}");
    assert!(
        err.contains("8 games in all were read twice and counted once"),
        "{err}"
    );

    let json = read_json(&out_dir.join("standings.json"));
    assert_eq!(json["format"], "multiversi-standings");
    assert_eq!(json["version"], 1);
    assert_eq!(json["games"], 29);
    assert_eq!(json["damaged_lines"], 1);
    assert_eq!(json["duplicates"], 8);
    // A match plays deals of k! games: 1 + 3 + 1 deals.
    assert_eq!(json["deals"], 5);

    let want = expected(&records);
    let bots = json["bots"].as_array().unwrap();
    assert_eq!(bots.len(), want.len());
    let mut with_interval = 0;
    for bot in bots {
        let name = bot["bot"].as_str().unwrap();
        let e = &want[name];
        let n = |k: &str| bot[k].as_f64().unwrap();
        assert_eq!(n("games") as u64, e.games, "{name}");
        assert_eq!(n("wins") as u64, e.wins, "{name}");
        assert_eq!(n("draws") as u64, e.draws, "{name}");
        assert_eq!(n("losses") as u64, e.losses, "{name}");
        assert!(close(n("points"), e.points, 1e-4), "{name}");
        assert!(
            close(n("mean_discs"), e.discs / e.games as f64, 1e-4),
            "{name}"
        );
        assert!(
            close(n("mean_place"), e.places / e.games as f64, 1e-4),
            "{name}"
        );
        for kind in ["timeout", "crash", "malformed", "illegal"] {
            let got = bot["faults"][kind].as_u64().unwrap();
            assert_eq!(
                got,
                e.faults.get(kind).copied().unwrap_or(0),
                "{name} {kind}"
            );
        }
        assert_eq!(n("moves") as u64, e.moves, "{name}");
        assert!(
            close(n("mean_ms"), e.total_ms / e.moves as f64, 1e-3),
            "{name}"
        );
        assert!(close(n("max_ms"), e.max_ms, 1e-3), "{name}");
        // An interval only for a bot seen in enough deals (a match's deals: its schedule's).
        let deals: std::collections::BTreeSet<(String, u64)> = records
            .iter()
            .filter(|r| r.seats.iter().any(|s| s.name == name))
            .map(|r| {
                let s = r.schedule.as_ref().unwrap();
                (s.run.clone(), s.deal)
            })
            .collect();
        assert_eq!(bot["deals"].as_u64(), Some(deals.len() as u64), "{name}");
        if deals.len() >= 5 {
            let (lo, hi) = (
                bot["interval"][0].as_f64().unwrap(),
                bot["interval"][1].as_f64().unwrap(),
            );
            assert!(lo <= hi, "{name}: {bot}");
            assert!(bot["note"].is_null(), "{name}: {bot}");
        } else {
            assert!(bot["interval"].is_null(), "{name}: {bot}");
            let note = format!(
                "seen in only {} deal{}",
                deals.len(),
                if deals.len() == 1 { "" } else { "s" }
            );
            assert_eq!(bot["note"], note.as_str(), "{name}: {bot}");
        }
        with_interval += (deals.len() >= 5) as u32;
    }
    // Both kinds are here: greedy and random played in all 5 deals, the others in fewer.
    assert_eq!(with_interval, 2, "{bots:?}");
    assert_eq!(json["rating"]["min_deals"], 5);
    assert_eq!(want["bad"].faults["illegal"], 3);
    // The ratings' mean is 0, and they come best first.
    let ratings: Vec<f64> = bots.iter().map(|b| b["rating"].as_f64().unwrap()).collect();
    assert!(ratings.iter().sum::<f64>().abs() < 0.05, "{ratings:?}");
    assert!(ratings.windows(2).all(|w| w[0] >= w[1]), "{ratings:?}");
    // The bot that is disqualified in every game is last.
    assert_eq!(bots.last().unwrap()["bot"], "bad");

    // Head to head, worked out from the records.
    for pair in json["head_to_head"].as_array().unwrap() {
        let (x, y) = (
            pair["bot"].as_str().unwrap(),
            pair["other"].as_str().unwrap(),
        );
        let (mut games, mut above, mut tied) = (0, 0, 0);
        for r in &records {
            let place = |name: &str| {
                let seat = r.seats.iter().position(|s| s.name == name)?;
                r.ranking.iter().position(|p| p.contains(&seat))
            };
            if let (Some(px), Some(py)) = (place(x), place(y)) {
                games += 1;
                above += (px < py) as u64;
                tied += (px == py) as u64;
            }
        }
        assert_eq!(pair["games"].as_u64(), Some(games), "{x} {y}");
        assert_eq!(pair["above"].as_u64(), Some(above), "{x} {y}");
        assert_eq!(pair["tied"].as_u64(), Some(tied), "{x} {y}");
        assert_eq!(
            pair["below"].as_u64(),
            Some(games - above - tied),
            "{x} {y}"
        );
    }
    // Seats: wins by seat for each game size.
    for seat in json["seats"].as_array().unwrap() {
        let (players, s) = (
            seat["players"].as_u64().unwrap(),
            seat["seat"].as_u64().unwrap() as usize,
        );
        let of_size: Vec<&GameRecord> = records
            .iter()
            .filter(|r| r.seats.len() as u64 == players)
            .collect();
        let wins = of_size
            .iter()
            .filter(|r| r.result == Outcome::Win { winner: s })
            .count();
        assert_eq!(seat["games"].as_u64(), Some(of_size.len() as u64));
        assert_eq!(seat["wins"].as_u64(), Some(wins as u64));
    }

    // The CSV says the same as the JSON, bot by bot.
    let csv = std::fs::read_to_string(out_dir.join("standings.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    for (line, bot) in lines.zip(bots) {
        let fields: BTreeMap<&str, &str> = header.iter().copied().zip(line.split(',')).collect();
        assert_eq!(fields["bot"], bot["bot"].as_str().unwrap());
        for k in ["rating", "games", "wins", "points", "mean_place", "max_ms"] {
            let v: f64 = fields[k].parse().unwrap();
            assert!(close(v, bot[k].as_f64().unwrap(), 1e-9), "{k}: {line}");
        }
        assert_eq!(
            fields["faults_illegal"],
            bot["faults"]["illegal"].to_string()
        );
    }

    // The terminal table lists every bot, best first.
    let table = out.stdout();
    let first = table.lines().nth(1).unwrap();
    assert!(first.contains(bots[0]["bot"].as_str().unwrap()), "{table}");
    assert!(table.contains("29 games in 5 deals"), "{table}");
    // Bots seen in too few deals: no interval, and a note that says why.
    let row = table.lines().find(|l| l.contains(" bad ")).unwrap();
    assert!(row.contains("(1 deal)"), "{table}");
    assert!(
        table.contains("no meaningful 95% interval for a bot seen in fewer than 5 deals"),
        "{table}"
    );

    // The page: every bot, the plot, the tables, and every game linked into the viewer beside
    // it, where game N is the N-th game counted.
    let page = std::fs::read_to_string(out_dir.join("standings.html")).unwrap();
    for bot in bots {
        assert!(page.contains(bot["bot"].as_str().unwrap()));
    }
    assert_eq!(page.matches("<circle class=\"point\"").count(), bots.len());
    for id in ["head-to-head", "superiority", "seats", "games"] {
        assert!(page.contains(&format!("<h2 id=\"{id}\">")), "{id}");
    }
    assert!(!page.contains("<script") && !page.contains("src="));
    let viewer = std::fs::read_to_string(out_dir.join("games.html")).unwrap();
    let data = viewer_data(&viewer);
    let shown = data["games"].as_array().unwrap();
    assert_eq!(shown.len(), 29);
    for (i, game) in shown.iter().enumerate() {
        let n = i + 1;
        let id = game["record"]["game"].as_str().unwrap();
        assert!(
            page.contains(&format!(
                "<a href=\"games.html#game={n}\">{n}</a></td><td class=\"name\">{id}</td>"
            )),
            "game {n} ({id}) is not linked as the viewer's game {n}"
        );
    }
    // The viewer's games are the records read, in order, each once.
    let ids: Vec<&str> = records.iter().map(|r| r.game.as_str()).collect();
    let shown_ids: Vec<&str> = shown
        .iter()
        .map(|g| g["record"]["game"].as_str().unwrap())
        .collect();
    assert_eq!(shown_ids, ids);

    // In a real browser: the page loads clean and its links open the right games.
    browser_check(&out_dir);

    // The same inputs and seed give the same file, byte for byte.
    let again = dir.join("again");
    multiversi("standings")
        .args(&[
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--out",
            again.to_str().unwrap(),
            "--bootstrap",
            "100",
        ])
        .ok();
    let first_json = std::fs::read_to_string(out_dir.join("standings.json")).unwrap();
    let second_json = std::fs::read_to_string(again.join("standings.json")).unwrap();
    // Only the duplicates differ (the file was not given twice this time).
    assert_eq!(
        first_json.replace("\"duplicates\": 8", "\"duplicates\": 0"),
        second_json
    );

    // An anchor moves every rating by the same amount.
    multiversi("standings")
        .args(&[
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--anchor",
            "random",
            "--out",
            dir.join("anchored").to_str().unwrap(),
            "--bootstrap",
            "0",
        ])
        .ok();
    let anchored: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("anchored/standings.json")).unwrap(),
    )
    .unwrap();
    let rating = |doc: &Value, name: &str| {
        doc["bots"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["bot"] == name)
            .unwrap()["rating"]
            .as_f64()
            .unwrap()
    };
    assert_eq!(rating(&anchored, "random"), 0.0);
    let shift = rating(&json, "random");
    for name in want.keys() {
        assert!(
            close(rating(&anchored, name), rating(&json, name) - shift, 0.02),
            "{name}"
        );
    }
    assert!(anchored["bots"][0]["interval"].is_null());
}

#[test]
fn bad_input_gets_its_exit_code() {
    let dir = temp_dir("standings-errors");
    let good = dir.join("good.jsonl");
    multiversi("match")
        .args(&[
            "--seed",
            "3",
            "--games",
            "2",
            "builtin:random",
            "builtin:greedy",
            "builtin:random",
        ])
        .record(&good)
        .ok();
    let damaged = dir.join("damaged.jsonl");
    std::fs::write(&damaged, "{\"format\":\"multiversi-game\"\n").unwrap();

    // --strict: the first damaged line is an error that names it, exit 3, nothing written.
    let out_dir = dir.join("out");
    let out = multiversi("standings")
        .args(&[
            good.to_str().unwrap(),
            damaged.to_str().unwrap(),
            "--strict",
            "--out",
            out_dir.to_str().unwrap(),
        ])
        .run();
    out.assert_code(3);
    out.assert_stderr_has(&format!("{}:1:", damaged.display()));
    assert!(!out_dir.join("standings.json").exists());
    assert!(!out_dir.join("games.html").exists());
    assert_eq!(std::fs::read_dir(&out_dir).unwrap().count(), 0);

    // Nothing readable at all: exit 3.
    let out = multiversi("standings").arg(&damaged).run();
    out.assert_code(3);
    out.assert_stderr_has("no readable game");
    // ... and with --out, what an earlier run wrote there is left as it was, the viewer too.
    multiversi("standings")
        .args(&[good.to_str().unwrap(), "--out", out_dir.to_str().unwrap()])
        .ok();
    let before: Vec<(String, Vec<u8>)> = ["standings.json", "games.html"]
        .iter()
        .map(|f| (f.to_string(), std::fs::read(out_dir.join(f)).unwrap()))
        .collect();
    let out = multiversi("standings")
        .args(&[
            damaged.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ])
        .run();
    out.assert_code(3);
    out.assert_stderr_has("no readable game");
    for (file, bytes) in &before {
        assert!(
            &std::fs::read(out_dir.join(file)).unwrap() == bytes,
            "{file} changed"
        );
    }
    assert_eq!(std::fs::read_dir(&out_dir).unwrap().count(), 4);
    // A missing file: exit 3, named.
    let out = multiversi("standings")
        .args(&[dir.join("nope.jsonl").to_str().unwrap()])
        .run();
    out.assert_code(3);
    assert!(out.stderr().contains("nope.jsonl: no such file"));
    // An anchor that did not play: exit 2.
    let out = multiversi("standings")
        .args(&[good.to_str().unwrap(), "--anchor", "nobody"])
        .run();
    out.assert_code(2);
    out.assert_stderr_has("anchor bot 'nobody'");
    // An output directory that cannot be made: exit 5.
    let out = multiversi("standings")
        .args(&[
            good.to_str().unwrap(),
            "--out",
            good.join("sub").to_str().unwrap(),
        ])
        .run();
    out.assert_code(5);
}

/// A record file with two games and a damaged line, so that `standings` has a warning to print.
fn file_with_a_warning(name: &str) -> PathBuf {
    let path = temp_dir(name).join("games.jsonl");
    samples::write(&path, &samples::sample_games());
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"format\":\"multiversi-game\"\n");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn standings_into_a_closed_pipe_end_quietly() {
    let path = file_with_a_warning("standings-pipe");
    // `multiversi standings … 2>&1 | head`, with head gone before the first byte: both outputs
    // are a pipe whose reader is closed. A write to stderr must not panic (exit 101).
    let pipe = closed_pipe();
    multiversi("standings")
        .arg(&path)
        .stdout_to(pipe.try_clone().unwrap())
        .stderr_to(pipe)
        .run()
        .assert_code(0);
    // Only stdout closed: the warning still reaches stderr, and nothing panics.
    let out = multiversi("standings")
        .arg(&path)
        .stdout_to(closed_pipe())
        .run();
    out.assert_code(0);
    let err = out.stderr();
    assert!(err.contains("line skipped"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains("Broken pipe"), "{err}");
}

#[test]
fn one_name_for_two_commands_is_counted_as_one_bot_with_a_warning() {
    let dir = temp_dir("standings-clash");
    let games = samples::sample_games();
    let a = dir.join("a.jsonl");
    samples::write(&a, &games[..2]);
    // In b, `mybot` is another program that was given the same name.
    let mut other = games[2].clone();
    let seat = other.seats.iter().position(|s| s.name == "mybot").unwrap();
    other.seats[seat].command = vec!["python3".into(), "v2/mybot.py".into()];
    let b = dir.join("b.jsonl");
    samples::write(&b, &[other.clone()]);
    let out = multiversi("standings")
        .args(&[a.to_str().unwrap(), b.to_str().unwrap()])
        .run();
    out.assert_code(0);
    let err = out.stderr();
    let first = games[..2]
        .iter()
        .position(|g| g.seats.iter().any(|s| s.name == "mybot"))
        .unwrap();
    let expected = format!(
        "multiversi: warning: the name 'mybot' was recorded for 2 different commands, and their \
         games are counted as one bot's:\n  builtin:mybot (first in {}:{}, game {})\n  python3 \
         v2/mybot.py (first in {}:1, game {})\n  if they are different bots, give each its own \
         name when it plays (match --name N=NAME",
        a.display(),
        first + 1,
        games[first].game,
        b.display(),
        other.game
    );
    assert!(err.contains(&expected), "{err}");
    // Counted as one bot, as the warning says.
    let table = out.stdout();
    let rows = table
        .lines()
        .take_while(|l| !l.contains(" games in "))
        .filter(|l| l.contains(" mybot "))
        .count();
    assert_eq!(rows, 1, "{table}");
    // The same command everywhere: no warning.
    let out = multiversi("standings")
        .args(&[a.to_str().unwrap(), a.to_str().unwrap()])
        .run();
    assert!(
        !out.stderr().contains("different commands"),
        "{}",
        out.stderr()
    );
}

/// A game of a schedule is played once: a second record of its place (the same run, index and
/// seed) with other contents is not counted, and a warning names it and the game that counts,
/// the first read; a game at the same index of a run of the same name but another seed (another
/// league under the same name) is another game, and counts.
#[test]
fn a_second_record_of_one_place_in_a_schedule_is_not_counted() {
    let dir = temp_dir("standings_same_place");
    let mut records = samples::sample_games();
    for (i, r) in records.iter_mut().enumerate() {
        r.schedule = Some(multiversi::record::ScheduleRef {
            run: "club".into(),
            index: i as u64,
            deal: i as u64,
            seating: 0,
        });
        r.seed = Some(7);
    }
    let mut edited = records[1].clone();
    edited.duration_ms += 1;
    edited.game = "club-edited".into();
    let mut other_seed = records[1].clone();
    other_seed.seed = Some(8);
    other_seed.duration_ms += 2;
    let file = dir.join("games.jsonl");
    let mut all = records.clone();
    all.extend([edited, other_seed]);
    samples::write(&file, &all);
    let out_dir = dir.join("out");
    let run = multiversi("standings")
        .arg(&file)
        .arg("--out")
        .arg(&out_dir)
        .arg("--strict")
        .run();
    run.assert_ok().assert_stderr_has(&format!(
        "{}:6: another record of the place of game 2 in its schedule (the same run, index and \
         seed) with other contents: the first read counts, this one does not",
        file.display()
    ));
    assert!(!run.stderr().contains(":7:"), "{}", run.stderr());
    let json = read_json(&out_dir.join("standings.json"));
    assert_eq!(json["games"], records.len() + 1);
    assert_eq!(json["same_place"], 1);
    assert_eq!(json["duplicates"], 0);
    // Without such records the file has no such field, as before.
    samples::write(&file, &records);
    multiversi("standings")
        .arg(&file)
        .arg("--out")
        .arg(&out_dir)
        .run()
        .assert_ok();
    let json = read_json(&out_dir.join("standings.json"));
    assert!(json.get("same_place").is_none(), "{json}");
}
