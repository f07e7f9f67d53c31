//! The fast core: one bitboard per colour, move generation by shifting whole boards at once.
//!
//! A `u64` holds the 8×8 board and a `u128` the 10×10 and Octagon boards (bit = row × side + col).
//! The code is generic over the two so that the 8×8 board runs on plain 64-bit words while the
//! larger boards share every line of logic. Off-board and blocked squares are simply never in the
//! `playable` set: no disc ever stands there, so lines break there exactly as at the edge.
//!
//! A flipping move for the player to move is the classic Othello move with "own" = that player's
//! discs and "opponent" = every other disc (other colours and neutral alike), which is why a
//! two-player move generator carries over unchanged.

use std::fmt::Debug;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Shl, Shr};

/// A set of squares on a square board of side `SIDE`, as the bits of an unsigned integer.
pub trait Bits:
    Copy
    + Eq
    + Default
    + Debug
    + std::hash::Hash
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
    + Send
    + Sync
    + 'static
{
    const ZERO: Self;
    const SIDE: u32;
    /// Every square of the SIDE × SIDE grid (the bits above it are never set).
    const FULL: Self;
    /// `FULL` without the first (leftmost) column: the mask after any shift towards the right.
    const NOT_FIRST_COL: Self;
    /// `FULL` without the last column: the mask after any shift towards the left.
    const NOT_LAST_COL: Self;
    /// `FULL` without the first and the last column: the squares a line can run through in any
    /// direction that moves sideways.
    const INNER_COLS: Self;

    fn bit(i: u32) -> Self;
    fn count(self) -> u32;
    /// Index of the lowest set bit; meaningless on an empty set.
    fn first(self) -> u32;

    #[inline(always)]
    fn is_empty(self) -> bool {
        self == Self::ZERO
    }

    #[inline(always)]
    fn has(self, i: u32) -> bool {
        !(self & Self::bit(i)).is_empty()
    }

    /// The squares, lowest index first.
    #[inline(always)]
    fn iter(self) -> BitIter<Self> {
        BitIter(self)
    }
}

const fn grid_u64(side: u32, skip_col: u32) -> u64 {
    let mut m = 0u64;
    let mut i = 0;
    while i < side * side {
        if i % side != skip_col {
            m |= 1 << i;
        }
        i += 1;
    }
    m
}

const fn grid_u128(side: u32, skip_col: u32) -> u128 {
    let mut m = 0u128;
    let mut i = 0;
    while i < side * side {
        if i % side != skip_col {
            m |= 1 << i;
        }
        i += 1;
    }
    m
}

impl Bits for u64 {
    const ZERO: u64 = 0;
    const SIDE: u32 = 8;
    const FULL: u64 = grid_u64(8, u32::MAX);
    const NOT_FIRST_COL: u64 = grid_u64(8, 0);
    const NOT_LAST_COL: u64 = grid_u64(8, 7);
    const INNER_COLS: u64 = grid_u64(8, 0) & grid_u64(8, 7);

    #[inline(always)]
    fn bit(i: u32) -> u64 {
        1 << i
    }
    #[inline(always)]
    fn count(self) -> u32 {
        self.count_ones()
    }
    #[inline(always)]
    fn first(self) -> u32 {
        self.trailing_zeros()
    }
}

impl Bits for u128 {
    const ZERO: u128 = 0;
    const SIDE: u32 = 10;
    const FULL: u128 = grid_u128(10, u32::MAX);
    const NOT_FIRST_COL: u128 = grid_u128(10, 0);
    const NOT_LAST_COL: u128 = grid_u128(10, 9);
    const INNER_COLS: u128 = grid_u128(10, 0) & grid_u128(10, 9);

    #[inline(always)]
    fn bit(i: u32) -> u128 {
        1 << i
    }
    #[inline(always)]
    fn count(self) -> u32 {
        self.count_ones()
    }
    #[inline(always)]
    fn first(self) -> u32 {
        self.trailing_zeros()
    }
}

/// Iterates the squares of a set, lowest index first.
pub struct BitIter<B>(B);

impl<B: Bits> Iterator for BitIter<B> {
    type Item = u32;
    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        if self.0.is_empty() {
            return None;
        }
        let i = self.0.first();
        self.0 ^= B::bit(i);
        Some(i)
    }
}

/// Moves a set one step in direction `dir` (0..8: E, W, S, N, SE, SW, NE, NW), dropping squares
/// that would leave the grid or wrap around to the other side.
#[inline(always)]
pub fn shift<B: Bits>(b: B, dir: usize) -> B {
    let s = B::SIDE;
    match dir {
        0 => (b << 1) & B::NOT_FIRST_COL,
        1 => (b >> 1) & B::NOT_LAST_COL,
        2 => (b << s) & B::FULL,
        3 => b >> s,
        4 => (b << (s + 1)) & B::NOT_FIRST_COL,
        5 => (b << (s - 1)) & B::NOT_LAST_COL,
        6 => (b >> (s - 1)) & B::NOT_FIRST_COL,
        _ => (b >> (s + 1)) & B::NOT_LAST_COL,
    }
}

/// Every square next to (along a side or a corner) a square of `b`.
#[inline(always)]
pub fn neighbours<B: Bits>(b: B) -> B {
    let horizontal = b | shift(b, 0) | shift(b, 1);
    horizontal | shift(horizontal, 2) | shift(horizontal, 3)
}

/// The empty squares where `own` encloses at least one line of `other`: the flipping moves.
///
/// This is the hot path of perft and search. Two things keep it short:
/// - `other` is masked once per direction instead of masking every shift: a line that moves
///   sideways can only run through the inner columns, so with the edge columns removed from
///   `other`, a bit that wraps round an edge lands on nothing and dies in the next `&`; vertical
///   lines need no mask because nothing lies above or below the grid.
/// - Each direction is filled by doubling (Kogge–Stone) rather than one step at a time: runs of
///   up to 8 enclosed discs (10×10) take 3 doubling steps instead of 7 single ones, and the
///   steps of the eight directions are independent, so they overlap in the processor.
#[inline(always)]
pub fn flipping_moves<B: Bits>(own: B, other: B, empty: B) -> B {
    let s = B::SIDE;
    let inner = other & B::INNER_COLS;
    line_ends::<B, true>(own, inner, empty, 1)
        | line_ends::<B, false>(own, inner, empty, 1)
        | line_ends::<B, true>(own, other, empty, s)
        | line_ends::<B, false>(own, other, empty, s)
        | line_ends::<B, true>(own, inner, empty, s + 1)
        | line_ends::<B, false>(own, inner, empty, s + 1)
        | line_ends::<B, true>(own, inner, empty, s - 1)
        | line_ends::<B, false>(own, inner, empty, s - 1)
}

/// The squares of `empty` that end a line of `pass` discs starting next to `own`, in the
/// direction of a shift by `step` bits (towards higher bits if `UP`). `pass` must already exclude
/// any square a line cannot run through in this direction (see `flipping_moves`).
#[inline(always)]
fn line_ends<B: Bits, const UP: bool>(own: B, pass: B, empty: B, step: u32) -> B {
    let sh = |b: B, n: u32| if UP { b << n } else { b >> n };
    // x: the `pass` squares reachable from `own` through `pass` squares only.
    let mut x = sh(own, step) & pass;
    x |= sh(x, step) & pass; // lines of up to 2
                             // pass2 (pass4): squares where 2 (4) `pass` squares end in a row.
    let pass2 = pass & sh(pass, step);
    x |= sh(x, 2 * step) & pass2; // up to 4
    if B::SIDE > 8 {
        let pass4 = pass2 & sh(pass2, 2 * step);
        x |= sh(x, 4 * step) & pass4; // up to 8 = SIDE - 2
    } else {
        x |= sh(x, 2 * step) & pass2; // up to 6 = SIDE - 2
    }
    sh(x, step) & empty
}

/// The discs that a disc placed on `sq` flips: every line of `other` closed by `own`.
#[inline(always)]
pub fn flips<B: Bits>(own: B, other: B, sq: u32) -> B {
    let start = B::bit(sq);
    let mut all = B::ZERO;
    for dir in 0..8 {
        let mut line = B::ZERO;
        let mut x = shift(start, dir);
        while !(x & other).is_empty() {
            line |= x;
            x = shift(x, dir);
        }
        if !(x & own).is_empty() {
            all |= line;
        }
    }
    all
}

/// Whether the legal moves of a position are flipping moves or, when there are none, placing moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MoveKind {
    Flipping,
    Placing,
}

/// Index of the neutral disc in `Board::discs`; seats are 0..4.
pub const NEUTRAL: usize = 4;

/// A game position on one board size, without names or options: the hot type for perft and search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board<B: Bits> {
    /// Discs of seats 0..4 (seat 3 empty with three players), then the neutral discs.
    pub discs: [B; 5],
    pub occupied: B,
    /// Squares of the board's shape that are not blocked.
    pub playable: B,
    pub players: u8,
    pub to_move: u8,
    /// Seats whose turns are skipped (disqualified by the referee); normally none.
    pub out: u8,
}

impl<B: Bits> Board<B> {
    #[inline(always)]
    pub fn empty(&self) -> B {
        self.playable & !self.occupied
    }

    /// Flipping moves of the player to move.
    #[inline(always)]
    pub fn flipping_moves(&self) -> B {
        self.flipping_moves_of(self.to_move as usize)
    }

    #[inline(always)]
    pub fn flipping_moves_of(&self, seat: usize) -> B {
        let own = self.discs[seat];
        flipping_moves(own, self.occupied ^ own, self.empty())
    }

    /// Empty squares touching any disc: the placing moves, when no flipping move exists.
    #[inline(always)]
    pub fn placing_moves(&self) -> B {
        self.empty() & neighbours(self.occupied)
    }

    /// The legal moves of the player to move and their kind. Empty exactly when the game is over.
    #[inline(always)]
    pub fn legal_moves(&self) -> (B, MoveKind) {
        let flipping = self.flipping_moves();
        if flipping.is_empty() {
            (self.placing_moves(), MoveKind::Placing)
        } else {
            (flipping, MoveKind::Flipping)
        }
    }

    /// The game ends when no empty square touches a disc.
    #[inline(always)]
    pub fn is_over(&self) -> bool {
        self.placing_moves().is_empty()
    }

    /// Discs the player to move would flip by placing on `sq`.
    #[inline(always)]
    pub fn flips(&self, sq: u32) -> B {
        let own = self.discs[self.to_move as usize];
        flips(own, self.occupied ^ own, sq)
    }

    /// Places a disc of the player to move on `sq`, flips `flipped`, and passes the turn. The
    /// caller has checked legality: this is the inner loop of perft and search.
    #[inline(always)]
    pub fn play_unchecked(&mut self, sq: u32, flipped: B) {
        let mover = self.to_move as usize;
        if !flipped.is_empty() {
            for (i, d) in self.discs.iter_mut().enumerate() {
                if i != mover {
                    *d &= !flipped;
                }
            }
        }
        let placed = B::bit(sq);
        self.discs[mover] |= placed | flipped;
        self.occupied |= placed;
        self.to_move = self.next_seat(self.to_move);
    }

    /// The seat after `seat` in move order, skipping seats that are out.
    #[inline(always)]
    pub fn next_seat(&self, seat: u8) -> u8 {
        let mut s = seat;
        for _ in 0..self.players {
            s = if s + 1 == self.players { 0 } else { s + 1 };
            if self.out & (1 << s) == 0 {
                return s;
            }
        }
        seat
    }

    /// Each seat's number of discs of its own colour.
    pub fn scores(&self) -> Vec<u32> {
        (0..self.players as usize)
            .map(|s| self.discs[s].count())
            .collect()
    }
}

/// Counts the move sequences of exactly `depth` moves (leaves counted in bulk at the last ply).
pub fn perft<B: Bits>(board: &Board<B>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (moves, kind) = board.legal_moves();
    if depth == 1 {
        return moves.count() as u64;
    }
    let mut nodes = 0;
    for sq in moves.iter() {
        let flipped = match kind {
            MoveKind::Flipping => board.flips(sq),
            MoveKind::Placing => B::ZERO,
        };
        let mut child = *board;
        child.play_unchecked(sq, flipped);
        nodes += perft(&child, depth - 1);
    }
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_cover_the_grid() {
        assert_eq!(<u64 as Bits>::FULL, u64::MAX);
        assert_eq!(<u64 as Bits>::NOT_FIRST_COL, 0xfefe_fefe_fefe_fefe);
        assert_eq!(<u128 as Bits>::FULL.count_ones(), 100);
        assert_eq!(<u128 as Bits>::NOT_LAST_COL.count_ones(), 90);
        assert!(!<u128 as Bits>::NOT_FIRST_COL.has(0));
        assert!(!<u128 as Bits>::NOT_FIRST_COL.has(90));
        assert!(<u128 as Bits>::NOT_FIRST_COL.has(99));
    }

    #[test]
    fn shifts_do_not_wrap() {
        // The last square of row 0 moved east does not appear at the start of row 1.
        assert_eq!(shift(<u128 as Bits>::bit(9), 0), 0);
        assert_eq!(shift(<u128 as Bits>::bit(10), 1), 0);
        assert_eq!(shift(<u128 as Bits>::bit(99), 2), 0);
        assert_eq!(shift(<u64 as Bits>::bit(63), 4), 0);
        assert_eq!(neighbours(<u64 as Bits>::bit(0)).count(), 4);
        assert_eq!(neighbours(<u128 as Bits>::bit(55)).count(), 9);
    }
}
