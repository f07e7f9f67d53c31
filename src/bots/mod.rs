//! Bots built into the binary. Each is an `Engine`; `multiversi bot NAME` wraps one in the
//! protocol loop so that it is a bot process like any other, and the referee cannot tell it apart
//! from a bot written in another language.

pub mod brs;
pub mod eval;
pub mod mcts;
pub mod serve;
pub mod time;

use crate::rng::Rng;
use crate::rules::{MoveKind, Position, Rules, Seat, Square};
use std::time::Instant;

/// A move-choosing engine.
pub trait Engine: Send {
    /// Called before each game.
    fn new_game(&mut self, _rules: &Rules, _seat: Seat) {}
    /// Chooses a legal move for the player to move in `position` (which is not over), answering
    /// before `deadline`.
    fn choose(&mut self, position: &Position, deadline: Instant) -> Square;
}

/// Names of the built-in bots, for help texts and errors.
pub const NAMES: &[&str] = &["random", "greedy", "brs", "brs+", "mcts", "best"];

/// The bots of `multiversi match` when none are given: the strongest engine against the other
/// search engine and the two simple bots, so that a first match shows what the built-ins can do.
pub fn default_lineup(players: usize) -> Vec<&'static str> {
    let all = ["best", "brs+", "greedy", "random"];
    if players == 3 {
        vec!["best", "greedy", "random"]
    } else {
        all[..players.min(4)].to_vec()
    }
}

/// A built-in engine by name, seeded so that its games can be repeated (the search engines stop
/// by the clock, so theirs repeat only as far as the time they get does).
pub fn engine(name: &str, seed: u64) -> Option<Box<dyn Engine>> {
    match name {
        "random" => Some(Box::new(RandomBot(Rng::new(seed)))),
        "greedy" => Some(Box::new(GreedyBot(Rng::new(seed)))),
        "brs" => Some(Box::new(brs::Brs::new(seed, false))),
        "brs+" => Some(Box::new(brs::Brs::new(seed, true))),
        "mcts" => Some(Box::new(mcts::Mcts::new(seed))),
        // The strongest engine by bench/strength.sh (see README.md, "Built-in bots").
        "best" => Some(Box::new(mcts::Mcts::new(seed))),
        _ => None,
    }
}

/// Plays a uniformly random legal move.
pub struct RandomBot(pub Rng);

impl Engine for RandomBot {
    fn choose(&mut self, position: &Position, _deadline: Instant) -> Square {
        let (moves, _) = position.legal_moves();
        moves[self.0.below(moves.len() as u64) as usize]
    }
}

/// Plays the move that flips the most discs, breaking ties at random.
pub struct GreedyBot(pub Rng);

impl Engine for GreedyBot {
    fn choose(&mut self, position: &Position, _deadline: Instant) -> Square {
        let (moves, kind) = position.legal_moves();
        if kind == MoveKind::Placing {
            return moves[self.0.below(moves.len() as u64) as usize];
        }
        let flips: Vec<usize> = moves
            .iter()
            .map(|&sq| position.check(sq).map_or(0, |m| m.flips.len()))
            .collect();
        let best = flips.iter().copied().max().unwrap_or(0);
        let best_moves: Vec<Square> = moves
            .iter()
            .zip(&flips)
            .filter(|&(_, &n)| n == best)
            .map(|(&sq, _)| sq)
            .collect();
        best_moves[self.0.below(best_moves.len() as u64) as usize]
    }
}
