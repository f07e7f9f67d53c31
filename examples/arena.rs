//! A small in-process arena for developing the built-in engines: plays engines against each other
//! directly on `Position`, without the protocol, rotating seats, and prints each entrant's wins.
//! The referee's `multiversi match` is the real measurement; this is for quick experiments.
//!
//! cargo run --release --example arena -- GAMES MOVE_MS PLAYERS BOARD anti|normal NAME NAME NAME [NAME]
//!
//! The first name is the entrant under test; the others fill the remaining seats. Games are
//! rotated so the entrant sits in every seat equally often.

use multiversi::bots::mcts::{Mcts, Params};
use multiversi::bots::{engine, Engine};
use multiversi::rules::{BoardKind, Outcome, Position, Rules};
use std::time::{Duration, Instant};

/// A built-in engine by name, or an MCTS variant written `mcts:C:DISC_SHARE` for tuning.
fn make(name: &str, seed: u64) -> Box<dyn Engine> {
    if let Some(rest) = name.strip_prefix("mcts:") {
        let v: Vec<f32> = rest
            .split(':')
            .map(|x| x.parse().expect("number"))
            .collect();
        let params = Params {
            uct_c: v[0],
            disc_share: v[1],
        };
        return Box::new(Mcts::with_params(seed, params));
    }
    engine(name, seed).expect("engine name")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 8 {
        eprintln!("usage: arena GAMES MOVE_MS PLAYERS BOARD anti|normal NAME NAME NAME [NAME]");
        std::process::exit(2);
    }
    let games: usize = args[0].parse().expect("games");
    let move_ms: u64 = args[1].parse().expect("move ms");
    let players: u32 = args[2].parse().expect("players");
    let board: BoardKind = args[3].parse().expect("board");
    let anti = args[4] == "anti";
    let names: Vec<String> = args[5..].to_vec();
    assert_eq!(names.len(), players as usize, "one name per seat");
    let rules = Rules::new(players, board, anti).expect("rules");
    let (mut wins, mut draws, mut late, mut slowest) = (0usize, 0usize, 0usize, Duration::ZERO);
    for g in 0..games {
        let hero_seat = g % players as usize;
        // Seat s plays names[(s - hero_seat) mod n]: the entrant under test moves to seat g mod n.
        let seat_names: Vec<&str> = (0..players as usize)
            .map(|s| names[(s + players as usize - hero_seat) % players as usize].as_str())
            .collect();
        let mut bots: Vec<_> = seat_names
            .iter()
            .enumerate()
            .map(|(s, n)| make(n, (g * 10 + s) as u64 + 1))
            .collect();
        for (s, b) in bots.iter_mut().enumerate() {
            b.new_game(&rules, s);
        }
        let mut pos = Position::new(rules.clone());
        while !pos.is_over() {
            let seat = pos.to_move();
            let started = Instant::now();
            // As `multiversi bot` does: the engine gets 80% of the move time as its deadline.
            let deadline = started + Duration::from_millis(move_ms * 8 / 10);
            let sq = bots[seat].choose(&pos, deadline);
            let took = started.elapsed();
            if seat == hero_seat {
                slowest = slowest.max(took);
                if took > Duration::from_millis(move_ms * 8 / 10) {
                    eprintln!("slow move at ply {}: {} ms", pos.ply(), took.as_millis());
                }
            }
            if took > Duration::from_millis(move_ms) {
                late += 1;
            }
            pos.play(sq).expect("engine played an illegal move");
        }
        let outcome = pos.outcome().expect("over");
        match outcome {
            Outcome::Win { winner } if winner == hero_seat => wins += 1,
            Outcome::Draw => draws += 1,
            _ => {}
        }
        eprintln!(
            "game {g}: seats {seat_names:?} scores {:?} {outcome:?}",
            pos.scores()
        );
    }
    println!(
        "{} vs {:?}: {wins} wins, {draws} draws of {games} ({:.0}% wins); late moves {late}; slowest {} ms",
        names[0],
        &names[1..],
        100.0 * wins as f64 / games as f64,
        slowest.as_millis()
    );
}
