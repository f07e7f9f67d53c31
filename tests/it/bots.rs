//! The built-in engines: legal moves under every rule, answers before the deadline, and a sure
//! win found when one exists.

use multiversi::bots::{engine, Engine, NAMES};
use multiversi::rng::Rng;
use multiversi::rules::{BoardKind, Outcome, Position, Rules, Square};
use std::time::{Duration, Instant};

const SEARCHERS: &[&str] = &["brs", "brs+", "mcts", "best"];

fn rules(players: u32, board: BoardKind, anti: bool, blocked: &[&str]) -> Rules {
    let blocked = blocked.iter().map(|s| s.parse().unwrap()).collect();
    Rules::with_blocked(players, board, anti, blocked).unwrap()
}

/// Plays a whole game with the given engines in the seats, every move through the legality gate,
/// optionally taking a seat out of the game at some ply as the referee does with a faulty bot.
fn play_game(rules: Rules, names: &[&str], move_ms: u64, remove: Option<(u32, usize)>) -> Position {
    let mut bots: Vec<Box<dyn Engine>> = names
        .iter()
        .enumerate()
        .map(|(s, n)| engine(n, s as u64 + 7).unwrap())
        .collect();
    for (s, b) in bots.iter_mut().enumerate() {
        b.new_game(&rules, s);
    }
    let mut pos = Position::new(rules);
    while !pos.is_over() {
        if let Some((ply, seat)) = remove {
            if pos.ply() == ply {
                assert!(pos.remove_seat(seat));
            }
        }
        let seat = pos.to_move();
        let deadline = Instant::now() + Duration::from_millis(move_ms);
        let sq = bots[seat].choose(&pos, deadline);
        if let Err(e) = pos.play(sq) {
            panic!("{} in seat {seat}: {e}\n{pos}", names[seat]);
        }
    }
    pos
}

#[test]
fn every_name_is_an_engine() {
    for name in NAMES {
        assert!(engine(name, 1).is_some(), "{name}");
    }
    for name in SEARCHERS {
        assert!(NAMES.contains(name), "{name} is listed");
    }
    assert!(engine("nonsense", 1).is_none());
}

#[test]
fn engines_play_legal_moves_under_every_rule() {
    let cases = [
        (rules(4, BoardKind::Eight, false, &[]), None),
        (rules(3, BoardKind::Eight, true, &["c3", "f6"]), None),
        (rules(4, BoardKind::Ten, true, &[]), None),
        (rules(3, BoardKind::Ten, false, &["a1", "b2", "e3"]), None),
        (rules(4, BoardKind::Octagon, false, &["c1"]), Some((9, 2))),
        (rules(3, BoardKind::Octagon, true, &[]), None),
        (rules(4, BoardKind::Eight, true, &[]), Some((0, 0))),
    ];
    for (i, (r, remove)) in cases.into_iter().enumerate() {
        // Rotate the engines through the seats so that each meets each rule somewhere.
        let pool = ["brs", "brs+", "mcts", "greedy"];
        let names: Vec<&str> = (0..r.players as usize)
            .map(|s| pool[(s + i) % pool.len()])
            .collect();
        let pos = play_game(r, &names, 80, remove);
        assert!(pos.outcome().is_some());
    }
}

#[test]
fn engines_answer_before_the_deadline() {
    // A busy middle game on the largest board, where there is always more to search.
    let r = rules(4, BoardKind::Ten, false, &[]);
    let mut pos = Position::new(r);
    let mut rng = Rng::new(3);
    for _ in 0..20 {
        let (moves, _) = pos.legal_moves();
        pos.play(moves[rng.below(moves.len() as u64) as usize])
            .unwrap();
    }
    for name in SEARCHERS {
        let mut bot = engine(name, 1).unwrap();
        for budget in [0u64, 60] {
            let started = Instant::now();
            let deadline = started + Duration::from_millis(budget);
            let sq = bot.choose(&pos, deadline);
            // Generous slack for a loaded test machine: this checks that the engine watches the
            // clock at all, not how fast it is.
            let late = Instant::now().saturating_duration_since(deadline);
            assert!(
                late < Duration::from_millis(1000),
                "{name} late by {late:?}"
            );
            assert!(pos.check(sq).is_ok(), "{name} played {sq}");
        }
    }
}

/// A position found by random play where the player to move has exactly two moves, the game ends
/// after one more forced move, and exactly one of the two moves wins.
fn decisive_ending(players: u32, anti: bool, seed: u64) -> (Position, Square) {
    let r = rules(players, BoardKind::Eight, anti, &[]);
    let mut rng = Rng::new(seed);
    for _ in 0..10_000 {
        let mut pos = Position::new(r.clone());
        while pos.rows().concat().matches('.').count() > 2 && !pos.is_over() {
            let (moves, _) = pos.legal_moves();
            pos.play(moves[rng.below(moves.len() as u64) as usize])
                .unwrap();
        }
        let (moves, _) = pos.legal_moves();
        if moves.len() != 2 {
            continue;
        }
        let me = pos.to_move();
        let wins: Vec<bool> = moves
            .iter()
            .map(|&sq| {
                let mut p = pos.clone();
                p.play(sq).unwrap();
                while !p.is_over() {
                    let (m, _) = p.legal_moves();
                    p.play(m[0]).unwrap();
                }
                p.outcome() == Some(Outcome::Win { winner: me })
            })
            .collect();
        if wins[0] != wins[1] {
            let winning = if wins[0] { moves[0] } else { moves[1] };
            return (pos, winning);
        }
    }
    panic!("no decisive ending found");
}

#[test]
fn engines_find_the_winning_final_move() {
    for (players, anti, seed) in [(4, false, 1), (3, false, 2), (4, true, 3), (3, true, 4)] {
        let (pos, winning) = decisive_ending(players, anti, seed);
        for name in SEARCHERS {
            let mut bot = engine(name, 5).unwrap();
            bot.new_game(pos.rules(), pos.to_move());
            let sq = bot.choose(&pos, Instant::now() + Duration::from_millis(200));
            assert_eq!(
                sq, winning,
                "{name}, {players} players, anti {anti}:\n{pos}"
            );
        }
    }
}

#[test]
fn searchers_beat_random_players() {
    // Not a strength measurement (that is bench/strength.sh): a search that plays no better than
    // chance against three random players would show a bug in its evaluation or backup. Over 8
    // games, 5 wins is out of reach for a player at the fair share of 25% (about 3% chance) and
    // all but certain for a working engine (it wins about 95% of such games).
    for name in ["brs+", "mcts"] {
        let mut wins = 0;
        for g in 0..8 {
            let r = rules(4, BoardKind::Eight, false, &[]);
            let mut names = ["random"; 4];
            names[g % 4] = name;
            let pos = play_game(r, &names, 100, None);
            if pos.outcome() == Some(Outcome::Win { winner: g % 4 }) {
                wins += 1;
            }
        }
        assert!(wins >= 5, "{name} won {wins} of 8 against random players");
    }
}

#[test]
fn match_without_bots_puts_the_strongest_engine_in() {
    for players in ["3", "4"] {
        let out = crate::support::multiversi("match")
            .args(&[
                "--players",
                players,
                "--games",
                "1",
                "--move-ms",
                "40",
                "--seed",
                "2",
            ])
            .ok();
        let table = out.stdout();
        for name in ["best", "greedy", "random"] {
            assert!(
                crate::support::table_row(&table, name).is_some(),
                "{name} missing:\n{table}"
            );
        }
    }
}

/// `multiversi bot best --think-ms 5` is a handicapped copy: at 1.5 s per move it answers in a
/// few milliseconds, where the uncapped engine uses most of the second (the threshold sits far
/// between the two, so that a loaded machine cannot move a move across it).
#[test]
fn a_bot_with_think_ms_takes_no_more_than_it_is_given() {
    let dir = crate::support::temp_dir("bots_think_ms");
    let record = dir.join("games.jsonl");
    let bin = env!("CARGO_BIN_EXE_multiversi");
    let capped = crate::support::bot_cmd(&[bin, "bot", "best", "--think-ms", "5"]);
    crate::support::multiversi("match")
        .args(&[&capped, "builtin:best", "builtin:random"])
        .args(&["--move-ms", "1500", "--name", "1=capped"])
        .record(&record)
        .ok();
    let game = &crate::support::read_records(&record)[0];
    let mean = |name: &str| {
        let seat = game.seats.iter().find(|s| s.name == name).unwrap().seat;
        let ms: Vec<f64> = game
            .moves
            .iter()
            .filter(|m| m.seat == seat)
            .map(|m| m.ms)
            .collect();
        ms.iter().sum::<f64>() / ms.len() as f64
    };
    let (capped, full) = (mean("capped"), mean("best"));
    assert!(capped < 300.0, "the capped copy took {capped:.0} ms a move");
    assert!(full > 600.0, "the uncapped engine took {full:.0} ms a move");
}
