//! Monte-Carlo tree search with a maxⁿ tree (Nijssen & Winands 2013).
//!
//! Each node keeps one reward total per seat; selection at a node uses UCT with the rewards of the
//! seat to move there, so every player is modelled as pursuing its own result (maxⁿ), not as
//! ganging up on the searching player (paranoid). Rewards come from finished games only, because
//! only first place counts: 1 for the winner, an equal share for everyone when the table draws
//! (a draw beats a loss), 0 otherwise. Playouts run on bitboards with a light policy — take a
//! corner when there is one, avoid squares next to an open corner — which costs a few shifts per
//! move and makes the playouts far less noisy than uniform ones. Anti-Reversi inverts it.

use super::eval::{rewards, Shape};
use super::time::{legal_fallback, stop_time};
use super::Engine;
use crate::rng::Rng;
use crate::rules::{Bits, Board, Position, Square};
use std::time::Instant;

/// Tunable settings; `Default` is what the built-in `mcts` plays with.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Exploration constant of UCT for rewards in [0, 1].
    pub uct_c: f32,
    /// Share of the reward that comes from the disc count instead of the result: a little of it
    /// tells apart playouts that all end the same way (and prefers big wins and near misses).
    pub disc_share: f32,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            uct_c: 0.35,
            disc_share: 0.0,
        }
    }
}
/// Beyond this many nodes the tree stops growing (playouts go on), bounding memory at long
/// time limits.
const MAX_NODES: usize = 300_000;

/// MCTS engine (maxⁿ backup, UCT selection, corner-aware playouts).
pub struct Mcts {
    rng: Rng,
    params: Params,
    /// Playouts run on the last move (for diagnostics and tests).
    pub last_playouts: u64,
}

impl Mcts {
    pub fn new(seed: u64) -> Mcts {
        Mcts::with_params(seed, Params::default())
    }

    pub fn with_params(seed: u64, params: Params) -> Mcts {
        Mcts {
            rng: Rng::new(seed),
            params,
            last_playouts: 0,
        }
    }
}

impl Engine for Mcts {
    fn choose(&mut self, position: &Position, deadline: Instant) -> Square {
        let stop = stop_time(Instant::now(), deadline);
        let anti = position.rules().anti;
        let side = position.rules().side();
        let found = if let Some(b) = position.small_board() {
            search(b, anti, &self.params, stop, &mut self.rng)
        } else if let Some(b) = position.large_board() {
            search(b, anti, &self.params, stop, &mut self.rng)
        } else {
            None
        };
        match found {
            Some((sq, playouts)) => {
                self.last_playouts = playouts;
                Square::from_index(sq, side)
            }
            None => legal_fallback(position),
        }
    }
}

struct Node<B: Bits> {
    board: Board<B>,
    /// Legal moves not expanded into children yet.
    untried: B,
    flipping: bool,
    /// First child and next sibling, as indices into the node arena (0 = none: the root is
    /// nobody's child).
    first_child: u32,
    next_sibling: u32,
    /// The move that led here from the parent.
    sq: u32,
    visits: u32,
    reward: [f32; 4],
}

impl<B: Bits> Node<B> {
    fn new(board: Board<B>, sq: u32) -> Node<B> {
        let flipping = board.flipping_moves();
        let (untried, flipping) = if flipping.is_empty() {
            (board.placing_moves(), false)
        } else {
            (flipping, true)
        };
        Node {
            board,
            untried,
            flipping,
            first_child: 0,
            next_sibling: 0,
            sq,
            visits: 0,
            reward: [0.0; 4],
        }
    }
}

/// The `n`-th square (lowest first) of a set with more than `n` squares.
#[inline]
fn nth<B: Bits>(set: B, n: u64) -> u32 {
    let mut rest = set;
    for _ in 0..n {
        rest ^= B::bit(rest.first());
    }
    rest.first()
}

#[inline]
fn random_square<B: Bits>(set: B, rng: &mut Rng) -> u32 {
    nth(set, rng.below(set.count() as u64))
}

/// The playout policy: from `moves`, the subset to draw from.
#[inline]
fn preferred<B: Bits>(board: &Board<B>, shape: &Shape<B>, moves: B) -> B {
    let corners = moves & shape.anchored;
    if shape.anti {
        // Corners keep their discs for good: take one only when nothing else is legal.
        let rest = moves & !corners;
        return if rest.is_empty() { moves } else { rest };
    }
    if !corners.is_empty() {
        return corners;
    }
    let safe = moves & !shape.danger(board);
    if safe.is_empty() {
        moves
    } else {
        safe
    }
}

/// Plays the game out with the playout policy and returns each seat's reward.
fn playout<B: Bits>(
    mut board: Board<B>,
    shape: &Shape<B>,
    disc_share: f32,
    rng: &mut Rng,
) -> [f32; 4] {
    loop {
        let flipping = board.flipping_moves();
        let sq = if flipping.is_empty() {
            let placing = board.placing_moves();
            if placing.is_empty() {
                break;
            }
            let sq = random_square(preferred(&board, shape, placing), rng);
            board.play_unchecked(sq, B::ZERO);
            continue;
        } else {
            random_square(preferred(&board, shape, flipping), rng)
        };
        let flipped = board.flips(sq);
        board.play_unchecked(sq, flipped);
    }
    let mut r = rewards(&board, shape.anti);
    if disc_share > 0.0 {
        let total = board.occupied.count().max(1) as f32;
        for (seat, reward) in r.iter_mut().enumerate().take(board.players as usize) {
            let share = board.discs[seat].count() as f32 / total;
            let good = if shape.anti { 1.0 - share } else { share };
            *reward = (1.0 - disc_share) * *reward + disc_share * good;
        }
    }
    r
}

/// Runs MCTS until `stop`; returns the most visited root move and the number of playouts, or
/// `None` when the position has no move.
pub fn search<B: Bits>(
    board: &Board<B>,
    anti: bool,
    params: &Params,
    stop: Instant,
    rng: &mut Rng,
) -> Option<(u32, u64)> {
    let (moves, _) = board.legal_moves();
    if moves.is_empty() {
        return None;
    }
    if moves.count() == 1 {
        return Some((moves.first(), 0));
    }
    let shape = Shape::new(board, anti);
    let mut nodes: Vec<Node<B>> = Vec::with_capacity(4096);
    nodes.push(Node::new(*board, 0));
    let mut path: Vec<usize> = Vec::with_capacity(128);
    let mut playouts = 0u64;
    loop {
        if playouts & 3 == 0 && Instant::now() >= stop {
            break;
        }
        // Selection: descend through fully expanded nodes by UCT for the seat to move.
        path.clear();
        let mut at = 0usize;
        path.push(at);
        while nodes[at].untried.is_empty() && nodes[at].first_child != 0 {
            let seat = nodes[at].board.to_move as usize;
            let log_n = (nodes[at].visits.max(1) as f32).ln();
            let mut child = nodes[at].first_child as usize;
            let mut best = child;
            let mut best_score = f32::NEG_INFINITY;
            while child != 0 {
                let c = &nodes[child];
                let n = c.visits.max(1) as f32;
                let score = c.reward[seat] / n + params.uct_c * (log_n / n).sqrt();
                if score > best_score {
                    best_score = score;
                    best = child;
                }
                child = c.next_sibling as usize;
            }
            at = best;
            path.push(at);
        }
        // Expansion: one untried move, preferring the playout policy's choices.
        if !nodes[at].untried.is_empty() && nodes.len() < MAX_NODES {
            let parent = &nodes[at];
            let sq = random_square(preferred(&parent.board, &shape, parent.untried), rng);
            let mut child_board = parent.board;
            let flipped = if parent.flipping {
                child_board.flips(sq)
            } else {
                B::ZERO
            };
            child_board.play_unchecked(sq, flipped);
            let mut child = Node::new(child_board, sq);
            child.next_sibling = parent.first_child;
            let index = nodes.len();
            nodes.push(child);
            let parent = &mut nodes[at];
            parent.untried ^= B::bit(sq);
            parent.first_child = index as u32;
            at = index;
            path.push(at);
        }
        // Simulation and maxⁿ backup: every node on the path adds every seat's reward.
        let reward = playout(nodes[at].board, &shape, params.disc_share, rng);
        playouts += 1;
        for &i in &path {
            let n = &mut nodes[i];
            n.visits += 1;
            for (total, r) in n.reward.iter_mut().zip(reward) {
                *total += r;
            }
        }
    }
    let mut best = None;
    let mut child = nodes[0].first_child as usize;
    while child != 0 {
        let c = &nodes[child];
        if best.map_or(true, |(v, _)| c.visits > v) {
            best = Some((c.visits, c.sq));
        }
        child = c.next_sibling as usize;
    }
    let sq = best.map_or_else(|| moves.first(), |(_, sq)| sq);
    Some((sq, playouts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{BoardKind, Position, Rules};

    fn position(rows: &[&str], anti: bool) -> Position {
        let rules = Rules::new(4, BoardKind::Eight, anti).unwrap();
        let rows: Vec<String> = rows.iter().map(|r| r.to_string()).collect();
        Position::from_rows(rules, &rows, 0, 20).unwrap()
    }

    #[test]
    fn playouts_take_corners_and_anti_playouts_avoid_them() {
        // Black can take a1 (flipping b2) or play elsewhere.
        let rows = [
            "........", ".W......", "..B.....", "...BW...", "...GR...", "....WB..", "........",
            "........",
        ];
        let normal = position(&rows, false);
        let b = normal.small_board().unwrap();
        let (moves, _) = b.legal_moves();
        assert!(moves.has(0), "a1 is legal");
        assert!(moves.count() > 1);
        let shape = Shape::new(b, false);
        assert_eq!(preferred(b, &shape, moves), 1, "only the corner");

        let anti = position(&rows, true);
        let b = anti.small_board().unwrap();
        let shape = Shape::new(b, true);
        let choice = preferred(b, &shape, moves);
        assert!(!choice.has(0) && choice.count() == moves.count() - 1);
    }
}
