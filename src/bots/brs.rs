//! Best-Reply Search (Schadd & Winands 2011) with the BRS⁺ refinement (Esser et al. 2014).
//!
//! Paranoid and maxⁿ search with three opponents reach only a few of the searching player's own
//! moves in the time of a turn. BRS lets only the *one* opponent whose reply hurts most move
//! between two moves of the searching player: the tree alternates a max layer (our moves) and a
//! min layer (every move of every opponent, pooled), so alpha-beta prunes as in a two-player game
//! and the search looks further ahead at our own moves. Plain BRS lets the other opponents pass,
//! which this game never allows; BRS⁺ instead has them play the move that move ordering ranks
//! first, so searched positions stay positions that can really occur (disc counts, mobility).
//!
//! Iterative deepening stops at a fraction of the time left (see `time::stop_time`) and the
//! best move of the last finished depth is played (or a better one from an unfinished depth).

use super::eval::{terminal_value, Shape, WIN};
use super::time::{legal_fallback, stop_time};
use super::Engine;
use crate::rng::Rng;
use crate::rules::{Bits, Board, Position, Square};
use std::time::Instant;

/// Best-Reply Search engine; `plus` selects BRS⁺.
pub struct Brs {
    rng: Rng,
    plus: bool,
    /// Deepest iteration finished on the last move (for diagnostics and tests).
    pub last_depth: u32,
}

impl Brs {
    pub fn new(seed: u64, plus: bool) -> Brs {
        Brs {
            rng: Rng::new(seed),
            plus,
            last_depth: 0,
        }
    }
}

impl Engine for Brs {
    fn choose(&mut self, position: &Position, deadline: Instant) -> Square {
        let stop = stop_time(Instant::now(), deadline);
        let anti = position.rules().anti;
        let side = position.rules().side();
        let salt = self.rng.next_u64();
        let found = if let Some(b) = position.small_board() {
            search(b, anti, self.plus, stop, salt)
        } else if let Some(b) = position.large_board() {
            search(b, anti, self.plus, stop, salt)
        } else {
            None
        };
        match found {
            Some((sq, depth)) => {
                self.last_depth = depth;
                Square::from_index(sq, side)
            }
            None => legal_fallback(position),
        }
    }
}

const INF: i32 = WIN * 2;

struct Searcher<B: Bits> {
    shape: Shape<B>,
    root: usize,
    /// Opponents still in the game, in turn order after the searching seat.
    opponents: Vec<usize>,
    plus: bool,
    stop: Instant,
    nodes: u64,
    aborted: bool,
    /// Whether the last iteration stopped anywhere at the depth limit (not only at game ends).
    horizon: bool,
    /// History heuristic: how often a square's move caused a cutoff, weighted by depth.
    history: Vec<i32>,
    /// Small per-search noise in move ordering, so that equal moves vary between seeds.
    salt: u64,
}

/// The legal moves of `seat` (as if it were to move) and whether they flip.
#[inline]
fn moves_of<B: Bits>(board: &Board<B>, seat: usize) -> (B, bool) {
    let flipping = board.flipping_moves_of(seat);
    if flipping.is_empty() {
        (board.placing_moves(), false)
    } else {
        (flipping, true)
    }
}

/// The board after `seat` plays `sq` (turn order then fixed by the caller).
#[inline]
fn play_as<B: Bits>(board: &Board<B>, seat: usize, sq: u32, flipping: bool) -> Board<B> {
    let mut child = *board;
    child.to_move = seat as u8;
    let flipped = if flipping { child.flips(sq) } else { B::ZERO };
    child.play_unchecked(sq, flipped);
    child
}

impl<B: Bits> Searcher<B> {
    /// Static ordering score of a square for the player moving there: corners first, squares that
    /// give a corner away last (inverted for Anti-Reversi, where corners are a burden).
    #[inline]
    fn static_score(&self, sq: u32, danger: B) -> i32 {
        let bit = B::bit(sq);
        let s = if !(self.shape.anchored & bit).is_empty() {
            300
        } else if !(danger & bit).is_empty() {
            -200
        } else if !(self.shape.edges & bit).is_empty() {
            40
        } else {
            0
        };
        if self.shape.anti {
            -s
        } else {
            s
        }
    }

    fn ordered(&self, board: &Board<B>, moves: B, first: Option<u32>) -> Vec<u32> {
        let danger = self.shape.danger(board);
        let mut list: Vec<(i32, u32)> = moves
            .iter()
            .map(|sq| {
                let noise = ((self.salt ^ (sq as u64).wrapping_mul(0x9e37_79b9)) % 7) as i32;
                let key = if Some(sq) == first {
                    i32::MAX
                } else {
                    self.static_score(sq, danger) + self.history[sq as usize] + noise
                };
                (key, sq)
            })
            .collect();
        list.sort_unstable_by_key(|&(key, _)| std::cmp::Reverse(key));
        list.into_iter().map(|(_, sq)| sq).collect()
    }

    /// The move an opponent who is not the best replier plays in BRS⁺: the first by ordering.
    fn default_move(&self, board: &Board<B>, seat: usize) -> Option<(u32, bool)> {
        let (moves, flipping) = moves_of(board, seat);
        if moves.is_empty() {
            return None;
        }
        let danger = self.shape.danger(board);
        let best = moves
            .iter()
            .max_by_key(|&sq| (self.static_score(sq, danger), self.history[sq as usize]))?;
        Some((best, flipping))
    }

    #[inline]
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes & 31 == 0 && Instant::now() >= self.stop {
            self.aborted = true;
        }
        self.aborted
    }

    fn leaf(&mut self, board: &Board<B>, depth: u32) -> Option<i32> {
        if board.is_over() {
            return Some(terminal_value(board, self.shape.anti, self.root));
        }
        if depth == 0 {
            self.horizon = true;
            return Some(self.shape.value(board, self.root));
        }
        None
    }

    /// Our move: the best of the searching seat's moves.
    fn max_node(&mut self, board: &Board<B>, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        if self.tick() {
            return 0;
        }
        if let Some(v) = self.leaf(board, depth) {
            return v;
        }
        let (moves, flipping) = moves_of(board, self.root);
        let mut best = -INF;
        for sq in self.ordered(board, moves, None) {
            let child = play_as(board, self.root, sq, flipping);
            let v = self.min_node(&child, depth - 1, alpha, beta);
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        self.history[sq as usize] += (depth * depth) as i32;
                        break;
                    }
                }
            }
        }
        best
    }

    /// The opponents' layer: the single reply, among all opponents' moves, that is worst for us.
    fn min_node(&mut self, board: &Board<B>, depth: u32, alpha: i32, mut beta: i32) -> i32 {
        if self.tick() {
            return 0;
        }
        if let Some(v) = self.leaf(board, depth) {
            return v;
        }
        let mut best = INF;
        let opponents = self.opponents.clone();
        for (k, &q) in opponents.iter().enumerate() {
            // BRS⁺: the opponents before the replier play their first-ordered moves first.
            let mut before = *board;
            if self.plus {
                for &o in &opponents[..k] {
                    if before.is_over() {
                        break;
                    }
                    if let Some((sq, fl)) = self.default_move(&before, o) {
                        before = play_as(&before, o, sq, fl);
                    }
                }
                if before.is_over() {
                    let v = terminal_value(&before, self.shape.anti, self.root);
                    best = best.min(v);
                    beta = beta.min(v);
                    if alpha >= beta {
                        return best;
                    }
                    continue;
                }
            }
            let (moves, flipping) = moves_of(&before, q);
            for sq in self.ordered(&before, moves, None) {
                let mut child = play_as(&before, q, sq, flipping);
                if self.plus {
                    for &o in &opponents[k + 1..] {
                        if child.is_over() {
                            break;
                        }
                        if let Some((s2, fl)) = self.default_move(&child, o) {
                            child = play_as(&child, o, s2, fl);
                        }
                    }
                }
                child.to_move = self.root as u8;
                let v = self.max_node(&child, depth - 1, alpha, beta);
                if self.aborted {
                    return 0;
                }
                if v < best {
                    best = v;
                    if v < beta {
                        beta = v;
                        if alpha >= beta {
                            self.history[sq as usize] += (depth * depth) as i32;
                            return best;
                        }
                    }
                }
            }
        }
        best
    }
}

/// Iterative deepening at the root. Returns the chosen square and the deepest finished depth, or
/// `None` when the position has no move.
pub fn search<B: Bits>(
    board: &Board<B>,
    anti: bool,
    plus: bool,
    stop: Instant,
    salt: u64,
) -> Option<(u32, u32)> {
    let root = board.to_move as usize;
    let (moves, flipping) = moves_of(board, root);
    if moves.is_empty() {
        return None;
    }
    let first = moves.first();
    if moves.count() == 1 {
        return Some((first, 0));
    }
    let players = board.players as usize;
    let opponents = (1..players)
        .map(|k| (root + k) % players)
        .filter(|&s| board.out & (1 << s) == 0)
        .collect();
    let mut s = Searcher {
        shape: Shape::new(board, anti),
        root,
        opponents,
        plus,
        stop,
        nodes: 0,
        aborted: false,
        horizon: false,
        history: vec![0; (B::SIDE * B::SIDE) as usize],
        salt,
    };
    let mut order = s.ordered(board, moves, None);
    let mut best = order[0];
    let mut finished = 0;
    for depth in 1..=128u32 {
        s.horizon = false;
        let mut alpha = -INF;
        let mut scored: Vec<(i32, u32)> = Vec::with_capacity(order.len());
        let mut iteration_best = None;
        for &sq in &order {
            let child = play_as(board, root, sq, flipping);
            let v = s.min_node(&child, depth - 1, alpha, INF);
            if s.aborted {
                break;
            }
            scored.push((v, sq));
            if v > alpha {
                alpha = v;
                iteration_best = Some(sq);
            }
        }
        if let Some(sq) = iteration_best {
            // Moves are searched best-first, so an unfinished iteration's best is either the
            // previous best or a move proven better than it at this depth.
            best = sq;
        }
        if s.aborted {
            break;
        }
        finished = depth;
        // Best-scoring first for the next iteration; moves that failed low keep their order.
        scored.sort_by_key(|&(v, _)| std::cmp::Reverse(v));
        order = scored.into_iter().map(|(_, sq)| sq).collect();
        if !s.horizon {
            // Every line reached the end of the game: deeper iterations would see nothing new.
            break;
        }
    }
    Some((best, finished))
}
