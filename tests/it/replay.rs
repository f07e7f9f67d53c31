//! `multiversi replay` as a user meets it: reading record files, `--verify` on good and damaged
//! records, and the plain-text replay compared with boards the engine computes.

use crate::support::samples::{self, rows_at, sample_games};
use crate::support::*;
use multiversi::record::{FaultKind, FaultRecord};
use multiversi::rules::{BoardKind, Colour, MoveKind, Outcome, Square};

#[test]
fn verify_accepts_every_board_shape_blocked_squares_and_faults() {
    let dir = temp_dir("replay-verify-good");
    let path = dir.join("games.jsonl");
    samples::write(&path, &sample_games());
    let out = multiversi("replay")
        .args(&["--verify", path.to_str().unwrap()])
        .run();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        out.stdout(),
        out.stderr()
    );
    assert_eq!(
        out.stdout(),
        "verified 5 games: 5 hold, 0 do not; 0 damaged lines\n"
    );
}

/// A game found twice (a file given twice) is said, line by line, without failing the check:
/// each copy holds, and the standings count the game once.
#[test]
fn verify_says_which_games_it_found_twice() {
    let dir = temp_dir("replay-verify-twice");
    let path = dir.join("games.jsonl");
    samples::write(&path, &sample_games());
    let p = path.to_str().unwrap();
    let out = multiversi("replay").args(&["--verify", p, p]).run();
    out.assert_code(0);
    let text = out.stdout();
    let first = sample_games()[0].game.clone();
    assert!(
        text.contains(&format!(
            "{p}:1: game {first}: the same game id as at {p}:1 (the standings count it once)"
        )),
        "{text}"
    );
    assert!(
        text.ends_with(
            "verified 10 games: 10 hold, 0 do not; 0 damaged lines; 5 game id(s) found a second \
             time\n"
        ),
        "{text}"
    );
}

#[test]
fn verify_names_the_line_game_ply_and_difference_of_each_problem() {
    let good = sample_games();
    let base = &good[0];
    let mut games = Vec::new();
    // Line 1: good.
    games.push(base.clone());
    // Line 2: an illegal move (onto an occupied square).
    let mut g = base.clone();
    g.game = "illegal".into();
    g.moves[5].square = g.moves[2].square;
    games.push(g);
    // Line 3: a flip missing from a move's list.
    let mut g = base.clone();
    g.game = "flips".into();
    let i = g.moves.iter().position(|m| m.flips.len() >= 2).unwrap();
    let dropped = g.moves[i].flips.pop().unwrap();
    games.push(g);
    // Line 4: final board, scores and result changed.
    let mut g = base.clone();
    g.game = "ending".into();
    let row = &g.final_rows[7];
    let swapped = if row.starts_with('B') { 'W' } else { 'B' };
    g.final_rows[7] = format!("{swapped}{}", &row[1..]);
    g.scores[0] += 1;
    g.result = match g.result {
        Outcome::Win { winner } => Outcome::Win {
            winner: (winner + 1) % 4,
        },
        Outcome::Draw => Outcome::Win { winner: 0 },
    };
    games.push(g);
    // Line 5: a fault for White on its turn after 5 moves, though White's move is recorded.
    let fault = |seat, ply| FaultRecord {
        seat,
        kind: FaultKind::Timeout,
        ply,
        detail: "no reply".into(),
        text: None,
        stderr_tail: String::new(),
    };
    let mut g = base.clone();
    g.game = "fault".into();
    g.faults.push(fault(1, 5));
    games.push(g);
    // Line 7 (after line 6): a fault for Red while it was White's turn holds: the referee
    // disqualifies a bot that writes unasked or dies between its turns when that is noticed.
    let mut spec = samples::Spec::new(4, BoardKind::Eight, 1);
    spec.faults = vec![(2, 5, FaultKind::Malformed)];
    let mut other_turn = samples::game(&spec);
    other_turn.game = "turn".into();
    assert_eq!(other_turn.moves[5].seat, 1, "White moves at ply 5");
    // Line 6: the last move missing.
    let mut g = base.clone();
    g.game = "short".into();
    g.moves.pop();
    games.push(g);
    games.push(other_turn);

    // Line 11: flips listed out of board order.
    let mut g = base.clone();
    g.game = "order".into();
    let j = g.moves.iter().position(|m| m.flips.len() >= 2).unwrap();
    g.moves[j].flips.reverse();
    let reversed = g.moves[j].flips.clone();
    let order = g;

    // Line 8: a move kind, a time, a seat's colour and the ranking changed.
    let mut g = base.clone();
    g.game = "details".into();
    let k = g
        .moves
        .iter()
        .position(|m| m.kind == MoveKind::Flipping)
        .unwrap();
    g.moves[k].kind = MoveKind::Placing;
    g.moves[3].ms = -1.0;
    g.seats[2].colour = Colour::Green;
    g.ranking.reverse();
    games.push(g);
    // Line 9: a game that ends early because only one player is left holds.
    let mut spec = samples::Spec::new(4, BoardKind::Eight, 11);
    spec.faults = vec![
        (0, 0, FaultKind::Crash),
        (2, 1, FaultKind::Timeout),
        (3, 3, FaultKind::Malformed),
    ];
    let early = samples::game(&spec);
    assert_eq!(
        early.moves.len(),
        3,
        "the game stops when one player is left"
    );
    games.push(early.clone());
    // Line 10: the same game going on after that.
    let mut g = early;
    g.game = "too-long".into();
    g.moves.push(multiversi::record::MoveRecord {
        ply: 3,
        seat: 1,
        ..base.moves[0].clone()
    });
    games.push(g);

    games.push(order);

    let dir = temp_dir("replay-verify-bad");
    let path = dir.join("games.jsonl");
    samples::write(&path, &games);
    let p = path.to_str().unwrap();
    let out = multiversi("replay").args(&["--verify", p]).run();
    let text = out.stdout();
    assert_eq!(out.status.code(), Some(1), "{text}{}", out.stderr());
    let expect = [
        format!("{p}:2: game illegal: ply 5: "),
        "the square is occupied".to_string(),
        format!("{p}:3: game flips: ply {i}: "),
        "the record says".to_string(),
        format!("{dropped}"),
        format!("{p}:4: game ending: ply 60: the final board differs: 1 difference: "),
        format!("{p}:4: game ending: ply 60: the scores are"),
        format!("{p}:4: game ending: ply 60: the result is"),
        format!("{p}:5: game fault: ply 5: the record has White (seat 1) moving (it was disqualified earlier), but it is Red (seat 2)'s turn"),
        format!("{p}:6: game short: ply 59: the record ends but the game is not over: "),
        format!("{p}:8: game details: ply {k}: "),
        "is recorded as a placing move but is a flipping move".to_string(),
        format!("{p}:8: game details: ply 3: the move time -1 ms is not a duration"),
        format!("{p}:8: game details: seat entry 2 says seat 2 green, expected seat 2 red"),
        format!("{p}:8: game details: ply 60: the ranking is "),
        format!("{p}:10: game too-long: ply 3: White (seat 1) plays "),
        "but the game was already over: at most one player was left".to_string(),
        format!("{p}:11: game order: ply {j}: "),
        format!(
            "but the record lists them out of board order: {}",
            reversed
                .iter()
                .map(|sq| sq.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        ),
        "verified 11 games: 3 hold, 8 do not; 0 damaged lines".to_string(),
    ];
    for needle in expect {
        assert!(text.contains(&needle), "missing {needle:?} in:\n{text}");
    }
    assert!(!text.contains(&format!("{p}:1:")), "{text}");
    assert!(!text.contains(&format!("{p}:7:")), "{text}");
    assert!(out.stderr().contains("8 of 11 games do not hold"));
}

#[test]
fn a_damaged_line_is_reported_and_the_other_games_still_checked() {
    let games = sample_games();
    let mut text = samples::to_lines(&games[..2]);
    let mut v2 = serde_json::to_value(&games[2]).unwrap();
    v2["version"] = 2.into();
    text.push_str(&format!("{v2}\n"));
    text.push('\n');
    let mut bad = games[3].clone();
    bad.moves[0].square = Square::new(0, 0);
    text.push_str(&samples::to_lines(&[bad]));
    // A crash in the middle of writing the last game.
    let last = samples::to_lines(&games[4..]);
    text.push_str(&last[..last.len() / 2]);
    let dir = temp_dir("replay-verify-damaged");
    let path = dir.join("games.jsonl");
    std::fs::write(&path, text).unwrap();
    let p = path.to_str().unwrap();
    let out = multiversi("replay").args(&["--verify", p]).run();
    let text = out.stdout();
    assert_eq!(out.status.code(), Some(3), "{text}{}", out.stderr());
    assert!(
        text.contains(&format!("{p}:3: record format version 2 is not supported")),
        "{text}"
    );
    assert!(
        text.contains(&format!("{p}:5: game 20261129-113000-0004: ply 0: ")),
        "{text}"
    );
    assert!(
        text.contains(&format!("{p}:6: the line ends in the middle of a record")),
        "{text}"
    );
    assert!(
        text.contains("verified 3 games: 2 hold, 1 do not; 2 damaged lines"),
        "{text}"
    );
}

/// A file with no game in it (empty, or blank lines only) verifies nothing: `--verify` says so and
/// exits 3, as the other readers do, instead of passing it as a record that holds.
#[test]
fn verify_of_a_file_without_games_exits_3() {
    let dir = temp_dir("replay-verify-empty");
    for (name, text) in [("empty.jsonl", ""), ("blank.jsonl", "\n\n  \n")] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let p = path.to_str().unwrap();
        let out = multiversi("replay").args(&["--verify", p]).run();
        assert_eq!(out.status.code(), Some(3), "{name}: {}", out.stderr());
        assert!(
            out.stderr().contains(&format!("no readable game in {p}")),
            "{name}: {}",
            out.stderr()
        );
    }
}

/// A move that flips 22,000 discs cannot be on a board of 64 squares: the line is damaged, and
/// every command that reads it says so with the file and line and exits 3 (it used to panic in
/// the drawing, exit 101, and go through `--html`, `--verify` and `standings` as a game).
#[test]
fn a_move_with_more_flips_than_the_board_has_squares_is_a_damaged_line_everywhere() {
    let mut game = sample_games()[0].clone();
    assert_eq!(game.rules.side(), 8);
    let flip = game.moves[0].flips[0];
    game.moves[0].flips = vec![flip; 22_000];
    let dir = temp_dir("replay-huge-flips");
    let path = dir.join("games.jsonl");
    samples::write(&path, &[game]);
    let p = path.to_str().unwrap();
    let html = dir.join("games.html");
    let out_dir = dir.join("standings");
    let commands: [Vec<&str>; 7] = [
        vec!["replay", p],
        vec!["replay", p, "--ply", "3"],
        vec!["replay", p, "--animate", "--delay", "0"],
        vec!["replay", p, "--html", html.to_str().unwrap()],
        vec!["replay", "--verify", p],
        vec!["standings", p, "--out", out_dir.to_str().unwrap()],
        vec!["standings", "--strict", p],
    ];
    let why = format!(
        "{p}:1: move 1 ({}) lists 22000 flipped discs; the 8x8 board has 64 squares",
        game_square(&path)
    );
    for args in commands {
        let out = multiversi(args[0]).args(&args[1..]).run();
        let text = out.stdout() + &out.stderr();
        assert_eq!(out.status.code(), Some(3), "{args:?}:\n{text}");
        assert!(text.contains(&why), "{args:?}: no {why:?} in:\n{text}");
        assert!(!text.contains("panicked"), "{args:?}:\n{text}");
    }
    assert!(!html.exists(), "no viewer for a file without a game");
}

/// The square of the first move of the only game in a record file, as the record spells it.
fn game_square(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    v["moves"][0]["square"].as_str().unwrap().to_string()
}

/// A bot's name is not bounded by the board: one of 70,000 characters (a record edited by hand,
/// or a bot that named itself at length) is drawn in full by the replay and the standings, where
/// a column as wide as it used to panic.
#[test]
fn a_name_wider_than_any_column_is_drawn_without_panic() {
    let mut game = sample_games()[0].clone();
    game.seats[1].name = "n".repeat(70_000);
    let dir = temp_dir("replay-long-name");
    let path = dir.join("games.jsonl");
    samples::write(&path, &[game]);
    let p = path.to_str().unwrap();
    for args in [
        vec!["replay", p],
        vec!["replay", p, "--ply", "3"],
        vec!["standings", p],
    ] {
        let out = multiversi(args[0]).args(&args[1..]).run();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", out.stderr());
        assert!(out.stdout().contains(&"n".repeat(70_000)), "{args:?}");
    }
}

#[test]
fn missing_files_and_unknown_games_are_named() {
    let out = multiversi("replay").args(&["no/such/records.jsonl"]).run();
    out.assert_code(3);
    out.assert_stderr_has("no/such/records.jsonl: no such file");

    let dir = temp_dir("replay-select");
    let path = dir.join("games.jsonl");
    samples::write(&path, &sample_games()[..2]);
    let p = path.to_str().unwrap();
    for wanted in ["7", "nope"] {
        let out = multiversi("replay").args(&[p, "--game", wanted]).run();
        out.assert_code(2);
        let err = out.stderr();
        assert!(err.contains(&format!("no game '{wanted}'")), "{err}");
        assert!(
            err.contains("1 20261129-113000-0001, 2 20261129-113000-0002"),
            "{err}"
        );
    }
    let out = multiversi("replay")
        .args(&[p, "--game", "2", "--ply", "999"])
        .run();
    out.assert_code(2);
    assert!(out
        .stderr()
        .contains("--ply 999: game 20261129-113000-0002 has"));
    let out = multiversi("replay")
        .args(&[p, "--html", "no/such/dir/out.html"])
        .run();
    out.assert_code(5);
    out.assert_stderr_has("cannot write no/such/dir/out.html");
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let out = multiversi("replay").arg(&empty).run();
    out.assert_code(3);
    out.assert_stderr_has("no readable game");
}

/// The board lines of plain output that follow "Board after move N", as rows of letters.
fn board_after(text: &str, heading: &str) -> Vec<String> {
    let lines = text.lines().skip_while(|l| !l.starts_with(heading)).skip(2);
    let mut rows = Vec::new();
    for line in lines {
        let Some(cells) = line.get(4..) else { break };
        if !line[..4].trim().chars().all(|c| c.is_ascii_digit()) || line[..4].trim().is_empty() {
            break;
        }
        rows.push(cells.split(' ').collect::<String>());
    }
    rows
}

#[test]
fn plain_replay_shows_the_boards_the_engine_computes() {
    let games = sample_games();
    let dir = temp_dir("replay-plain");
    let path = dir.join("games.jsonl");
    samples::write(&path, &games);
    let p = path.to_str().unwrap();
    for (n, rec) in games.iter().enumerate() {
        let total = rec.moves.len();
        for ply in [0, 1, total / 2, total] {
            let out = multiversi("replay")
                .args(&[p, "--game", &(n + 1).to_string(), "--ply", &ply.to_string()])
                .ok();
            let text = out.stdout();
            assert!(!text.contains('\x1b'), "colour codes when piped");
            let heading = format!("Board after move {ply} of {total}");
            assert_eq!(
                board_after(&text, &heading),
                rows_at(rec, ply),
                "game {n} ply {ply}:\n{text}"
            );
            let move_lines = text
                .lines()
                .filter(|l| {
                    l.contains(" ms") && l.trim_start().starts_with(|c: char| c.is_ascii_digit())
                })
                .count();
            assert_eq!(move_lines, ply, "{text}");
            assert_eq!(text.contains("Result: "), ply == total);
        }
    }
    // The octagon with faults: disqualifications shown where they happened, and the result.
    let out = multiversi("replay")
        .args(&[p, "--game", "20261129-113000-0005"])
        .run();
    let text = out.stdout();
    assert!(
        text.contains("✗ White random disqualified after move 5: timeout (test fault of seat 1)"),
        "{text}"
    );
    assert!(
        text.contains("✗ Green mybot disqualified after move 21: illegal move"),
        "{text}"
    );
    assert!(
        text.contains("White 0 (disqualified)") || text.contains("(disqualified)"),
        "{text}"
    );
    assert!(text.contains("Ranking: 1. "), "{text}");
    // A 3-player game shows the neutral disc and its count.
    let out = multiversi("replay")
        .args(&[p, "--game", "2", "--ply", "0"])
        .run();
    let text = out.stdout();
    assert!(text.contains("neutral 1"), "{text}");
    // The octagon's cut corners, the centre and the neutral disc (e6) as the record writes them.
    assert!(text.contains("\n  1 - - . . . . . . - -\n"), "{text}");
    assert!(text.contains("\n  5 . . . . B W . . . .\n"), "{text}");
    assert!(text.contains("\n  6 . . . . N R . . . .\n"), "{text}");
}

/// The referee's opening moves (a league's `opening = N`, the record's `opening` count) are shown
/// as the opening, apart from the bots' play: under a heading of their own, with no bot's name and
/// no time, since no bot chose them or spent time on them; the bots' moves follow under "Moves".
#[test]
fn plain_replay_shows_the_referees_opening_apart_from_play() {
    let mut game = sample_games()[0].clone();
    game.opening = 2;
    let bot = |seat: usize| game.seats[seat].name.clone();
    let (first, third) = (bot(game.moves[0].seat), bot(game.moves[2].seat));
    let dir = temp_dir("replay-referee-moves");
    let path = dir.join("games.jsonl");
    samples::write(&path, &[game.clone()]);
    let p = path.to_str().unwrap();
    let text = multiversi("replay").args(&[p, "--ply", "4"]).ok().stdout();
    assert!(
        text.contains(" · opening of 2 moves by the referee · "),
        "{text}"
    );
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == "Opening: 2 moves played by the referee, not by the bots")
        .unwrap_or_else(|| panic!("no opening heading in:\n{text}"));
    for (i, line) in lines[at + 1..at + 3].iter().enumerate() {
        assert!(line.starts_with(&format!("   {}. ", i + 1)), "{line}");
        assert!(line.contains(" (opening) "), "{line}");
        assert!(!line.contains(" ms") && !line.contains(&first), "{line}");
        assert!(line.contains(&game.moves[i].square.to_string()), "{line}");
    }
    assert_eq!(lines[at + 3], "Moves", "{text}");
    assert!(lines[at + 4].starts_with("   3. "), "{text}");
    assert!(lines[at + 4].contains(&third) && lines[at + 4].ends_with(" ms"));
    assert!(!lines[at + 4].contains("(opening)"));
    // In the middle of the opening, the next move is the referee's too.
    let text = multiversi("replay").args(&[p, "--ply", "1"]).ok().stdout();
    assert!(
        text.contains(" to move, by the referee's opening\n"),
        "{text}"
    );
    // Without an opening, nothing changes: every move is a bot's, with its time.
    game.opening = 0;
    samples::write(&path, &[game]);
    let text = multiversi("replay").args(&[p, "--ply", "4"]).ok().stdout();
    assert!(!text.contains("opening"), "{text}");
    assert!(text.contains("\nMoves\n   1. "), "{text}");
}

#[test]
fn plain_replay_of_a_whole_file_shows_every_game() {
    let games = sample_games();
    let dir = temp_dir("replay-all");
    let path = dir.join("games.jsonl");
    samples::write(&path, &games);
    let out = multiversi("replay").arg(&path).ok();
    let text = out.stdout();
    assert_eq!(text.matches("Result: ").count(), games.len());
    for rec in &games {
        assert!(text.contains(&format!("Game {} (", rec.game)));
    }
}

#[test]
fn animate_prints_every_board_when_piped() {
    let games = sample_games();
    let dir = temp_dir("replay-animate");
    let path = dir.join("games.jsonl");
    samples::write(&path, &games[1..2]);
    let out = multiversi("replay")
        .args(&[path.to_str().unwrap(), "--animate", "--delay", "0"])
        .ok();
    let text = out.stdout();
    let total = games[1].moves.len();
    // One board per position: the start and after each move; each board ends with its discs line.
    assert_eq!(text.matches("Discs: ").count(), total + 1, "{text}");
    assert!(text.starts_with("Game 20261129-113000-0002"));
    assert!(text.lines().nth(3).unwrap().starts_with("Start") || text.contains("\nStart\n"));
}

#[test]
fn real_match_records_verify_and_replay_to_their_final_boards() {
    let dir = temp_dir("replay-real");
    let path = dir.join("match.jsonl");
    let games = samples::real_games(&path);
    assert_eq!(games.len(), 3);
    assert!(
        games[2].faults.iter().any(|f| f.kind == FaultKind::Crash),
        "the game with `false` records its crash"
    );
    let p = path.to_str().unwrap();
    let out = multiversi("replay").args(&["--verify", p]).run();
    assert_eq!(out.status.code(), Some(0), "{}", out.stdout());
    assert_eq!(
        out.stdout(),
        "verified 3 games: 3 hold, 0 do not; 0 damaged lines\n"
    );
    for (n, rec) in games.iter().enumerate() {
        let out = multiversi("replay")
            .args(&[p, "--game", &(n + 1).to_string()])
            .run();
        let total = rec.moves.len();
        let text = out.stdout();
        let heading = format!("Board after move {total} of {total}");
        assert_eq!(board_after(&text, &heading), rec.final_rows, "{text}");
    }
    // One changed square in a real record is caught.
    let mut bad = games[1].clone();
    let m = bad.moves.iter_mut().find(|m| !m.flips.is_empty()).unwrap();
    m.flips.clear();
    let bad_path = dir.join("bad.jsonl");
    samples::write(&bad_path, &[bad]);
    let out = multiversi("replay")
        .args(&["--verify", bad_path.to_str().unwrap()])
        .run();
    assert_eq!(out.status.code(), Some(1), "{}", out.stdout());
    out.assert_stdout_has("by the rules, but the record says nothing");
}

#[test]
fn records_of_faulty_bots_verify() {
    // The referee's scripted misbehaving bot, in two seats at different turns, so that a game
    // has faults at the start and in the middle, of several kinds, and ends with two players.
    let dir = temp_dir("replay-faulty");
    let path = dir.join("games.jsonl");
    // Quoted paths: a checkout whose path holds a space must not turn every bot into one that
    // cannot start (which would still give records that verify).
    let (bad, pids) = (test_bot("bad.py"), dir.join("pids"));
    let bot = |mode: &str, turn: &str| bot_cmd(&["python3", &bad, utf8(&pids), mode, turn]);
    for (a, b) in [
        (bot("illegal", "3"), bot("garbage", "5")),
        (bot("exit-at-once", "1"), bot("spam", "2")),
        (bot("crash", "4"), bot("hang", "2")),
    ] {
        multiversi("match")
            .args(&[
                &a,
                "builtin:random",
                &b,
                "builtin:greedy",
                "--seed",
                "3",
                "--move-ms",
                "300",
                "--grace-ms",
                "100", // `exit-at-once` never answers start: play the game anyway.
                "--keep-going",
            ])
            .record(&path)
            .ok();
    }
    use multiversi::record::FaultKind::*;
    // Each game's faults as (seat, kind): seat 0 and seat 2 are the two scripted bots.
    let expected = [
        [(0, Illegal), (2, Malformed)],
        [(0, Crash), (2, Malformed)],
        [(0, Crash), (2, Timeout)],
    ];
    let records = read_records(&path);
    assert_eq!(records.len(), 3);
    for (r, want) in records.iter().zip(expected) {
        let mut got: Vec<_> = r.faults.iter().map(|f| (f.seat, f.kind)).collect();
        got.sort_by_key(|&(seat, _)| seat);
        assert_eq!(got, want, "{:?}", r.faults);
        assert!(
            r.seats[2].ready.is_some(),
            "the second scripted bot started"
        );
        check_record(r);
    }
    let out = multiversi("replay")
        .args(&["--verify", path.to_str().unwrap()])
        .run();
    assert_eq!(out.status.code(), Some(0), "{}", out.stdout());
    assert!(out.stdout().contains("verified 3 games: 3 hold"));
}

/// Places after a tie are counted as the standings count them: two seats tied for second are
/// followed by the fourth.
#[test]
fn the_ranking_after_a_tie_skips_the_places_the_tie_took() {
    let dir = temp_dir("replay_tied_places");
    let path = dir.join("tie.jsonl");
    let mut game = sample_games().into_iter().next().unwrap();
    assert_eq!(game.seats.len(), 4);
    game.ranking = vec![vec![0], vec![1, 2], vec![3]];
    samples::write(&path, &[game]);
    let out = multiversi("replay").arg(&path).run();
    out.assert_ok();
    let text = out.stdout();
    let line = text
        .lines()
        .find(|l| l.starts_with("Ranking: "))
        .unwrap_or_else(|| panic!("no ranking in {text}"));
    assert!(
        line.contains("  2. White ") && line.contains("  4. Green "),
        "{line}"
    );
    assert!(!line.contains("3. "), "{line}");
}
