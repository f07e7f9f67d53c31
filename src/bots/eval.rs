//! The evaluation shared by the search engines: what a position is worth to one seat.
//!
//! Only first place counts in this game (a tie for first is a draw for the whole table), so a
//! seat's value is its own heuristic score minus the best heuristic score among the other seats
//! still in the game: being far ahead of the last player is worth nothing if someone else leads.
//!
//! The board's shape comes from its `playable` set, so the same code knows the corners of the
//! 8×8 board, the cut corners of the Octagon and the new corners that blocked squares make: a
//! square is *anchored* when, on each of its four lines (row, column, two diagonals), one of its
//! two neighbours is off the board. A disc is flipped only when it lies between two squares of one
//! line, so a disc on an anchored square can never be flipped: these are the corners of any shape.

use crate::rules::bitboard::{neighbours, shift};
use crate::rules::{Bits, Board, Outcome};

/// A won final position is worth this much (plus the margin), a lost one minus this much; every
/// heuristic value lies far inside, so search always prefers a sure win and avoids a sure loss.
pub const WIN: i32 = 1_000_000;

/// Where the board's strong and weak squares are, computed once per search from its shape.
#[derive(Clone, Copy, Debug)]
pub struct Shape<B: Bits> {
    pub playable: B,
    /// Squares whose disc can never be flipped (corners of whatever shape the board has).
    pub anchored: B,
    /// Squares with at least one line cut by the edge (edges), anchored squares excluded.
    pub edges: B,
    pub anti: bool,
}

impl<B: Bits> Shape<B> {
    pub fn new(board: &Board<B>, anti: bool) -> Shape<B> {
        let playable = board.playable;
        let mut anchored = B::ZERO;
        let mut edges = B::ZERO;
        for sq in playable.iter() {
            let bit = B::bit(sq);
            // Lines as pairs of opposite directions: E-W, S-N, SE-NW, SW-NE.
            let cut = [(0, 1), (2, 3), (4, 7), (5, 6)]
                .iter()
                .filter(|&&(a, b)| {
                    (shift(bit, a) & playable).is_empty() || (shift(bit, b) & playable).is_empty()
                })
                .count();
            if cut == 4 {
                anchored |= bit;
            } else if cut > 0 {
                edges |= bit;
            }
        }
        Shape {
            playable,
            anchored,
            edges,
            anti,
        }
    }

    /// Squares next to an anchored square that is still empty: a disc there tends to hand that
    /// corner to the next player (the X- and C-squares of Othello).
    #[inline]
    pub fn danger(&self, board: &Board<B>) -> B {
        let open_corners = self.anchored & !board.occupied;
        neighbours(open_corners) & self.playable & !self.anchored
    }

    /// The heuristic score of each seat: higher is better for that seat, in either variant.
    pub fn seat_scores(&self, board: &Board<B>) -> [i32; 4] {
        let danger = self.danger(board);
        let filled = board.occupied.count() as i32;
        let total = self.playable.count().max(1) as i32;
        // Discs matter little early (they change hands all the time) and decide the game late.
        let disc_weight = 1 + 12 * filled / total;
        let mut out = [0i32; 4];
        for (seat, value) in out.iter_mut().enumerate().take(board.players as usize) {
            let own = board.discs[seat];
            let discs = own.count() as i32;
            let corners = (own & self.anchored).count() as i32;
            let edges = (own & self.edges).count() as i32;
            let risky = (own & danger).count() as i32;
            let mobility = board.flipping_moves_of(seat).count() as i32;
            *value = if self.anti {
                // Anti-Reversi: every disc counts against its owner, an unflippable one for good;
                // sitting next to an open corner invites an opponent to take it (and its discs).
                -disc_weight * discs - 30 * corners - 3 * edges + 6 * risky + 4 * mobility
            } else {
                disc_weight * discs + 40 * corners + 5 * edges - 15 * risky + 4 * mobility
            };
        }
        out
    }

    /// The heuristic value of a position that is not over, for `seat`: its score minus the best
    /// score of another seat still in the game.
    pub fn value(&self, board: &Board<B>, seat: usize) -> i32 {
        let scores = self.seat_scores(board);
        relative(&scores, board, seat)
    }
}

/// A seat's score minus the best score among the other seats still in the game.
#[inline]
pub fn relative<B: Bits>(scores: &[i32; 4], board: &Board<B>, seat: usize) -> i32 {
    let best_other = (0..board.players as usize)
        .filter(|&s| s != seat && board.out & (1 << s) == 0)
        .map(|s| scores[s])
        .max()
        .unwrap_or(0);
    scores[seat] - best_other
}

/// The outcome of a finished board among the seats still in the game, as the referee decides it.
pub fn outcome<B: Bits>(board: &Board<B>, anti: bool) -> Outcome {
    let scores = board.scores();
    let eligible: Vec<bool> = (0..board.players as usize)
        .map(|s| board.out & (1 << s) == 0)
        .collect();
    Outcome::decide(&scores, anti, &eligible)
}

/// The exact value of a finished board for `seat`: a win is worth `WIN` plus the lead, a draw
/// (for the whole table) zero, a loss `-WIN` plus the (negative) distance to the winner. A draw
/// therefore always beats a loss, and a bigger win or a smaller loss breaks ties.
pub fn terminal_value<B: Bits>(board: &Board<B>, anti: bool, seat: usize) -> i32 {
    let own = board.discs[seat].count() as i32;
    let others = (0..board.players as usize)
        .filter(|&s| s != seat && board.out & (1 << s) == 0)
        .map(|s| board.discs[s].count() as i32);
    let margin = if anti {
        others.min().map_or(0, |best| best - own)
    } else {
        others.max().map_or(0, |best| own - best)
    };
    match outcome(board, anti) {
        Outcome::Win { winner } if winner == seat => WIN + margin,
        Outcome::Draw => 0,
        Outcome::Win { .. } => -WIN + margin.min(-1),
    }
}

/// MCTS rewards for a finished board: 1 for the winner, an equal share for every seat still in the
/// game when the table draws, 0 otherwise.
pub fn rewards<B: Bits>(board: &Board<B>, anti: bool) -> [f32; 4] {
    let mut r = [0.0f32; 4];
    match outcome(board, anti) {
        Outcome::Win { winner } => r[winner] = 1.0,
        Outcome::Draw => {
            let seats: Vec<usize> = (0..board.players as usize)
                .filter(|&s| board.out & (1 << s) == 0)
                .collect();
            let share = 1.0 / seats.len().max(1) as f32;
            for s in seats {
                r[s] = share;
            }
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{BoardKind, Position, Rules, Square};

    fn shape_of(position: &Position) -> Shape<u128> {
        Shape::new(position.large_board().unwrap(), false)
    }

    #[test]
    fn corners_of_every_shape_are_anchored() {
        let p8 = Position::new(Rules::new(4, BoardKind::Eight, false).unwrap());
        let s8 = Shape::new(p8.small_board().unwrap(), false);
        assert_eq!(s8.anchored, 1 | 1 << 7 | 1 << 56 | 1 << 63);
        assert_eq!(s8.edges.count(), 24);

        let oct = Position::new(Rules::new(4, BoardKind::Octagon, false).unwrap());
        let s = shape_of(&oct);
        // The octagon's cut corners leave two anchored squares at each corner (c1 and a3, ...).
        let names: Vec<String> = s
            .anchored
            .iter()
            .map(|i| Square::from_index(i, 10).to_string())
            .collect();
        assert_eq!(
            names,
            ["c1", "h1", "a3", "j3", "a8", "j8", "c10", "h10"].map(String::from)
        );

        // A blocked square makes its neighbours on the edge into corners.
        let blocked = Rules::with_blocked(
            3,
            BoardKind::Ten,
            false,
            vec!["b1".parse().unwrap(), "a2".parse().unwrap()],
        )
        .unwrap();
        let s = shape_of(&Position::new(blocked));
        assert!(s.anchored.has(0), "a1 is anchored");
        assert!(s.anchored.has(2), "c1 is anchored next to the blocked b1");
    }

    #[test]
    fn terminal_values_rank_win_draw_loss() {
        let rules = Rules::new(3, BoardKind::Eight, false).unwrap();
        let mut rows = vec!["BBBBBBBB".to_string(); 8];
        rows[7] = "WWWWRRRN".to_string();
        let p = Position::from_rows(rules.clone(), &rows, 0, 60).unwrap();
        let b = p.small_board().unwrap();
        assert!(b.is_over());
        assert!(terminal_value(b, false, 0) > WIN);
        assert!(terminal_value(b, false, 1) < -WIN / 2);
        assert_eq!(rewards(b, false), [1.0, 0.0, 0.0, 0.0]);
        // Anti-Reversi: the fewest discs win (Red has 3).
        assert!(terminal_value(b, true, 2) > WIN);
        assert!(terminal_value(b, true, 0) < -WIN / 2);

        let mut rows = vec!["NNNNNNNN".to_string(); 8];
        rows[0] = "BBBBWWWW".to_string();
        let p = Position::from_rows(rules, &rows, 0, 60).unwrap();
        let b = p.small_board().unwrap();
        assert_eq!(terminal_value(b, false, 2), 0, "a draw for the whole table");
        let r = rewards(b, false);
        assert!((r[2] - 1.0 / 3.0).abs() < 1e-6);
    }
}
