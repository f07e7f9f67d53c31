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
    /// The set without its lowest square (`x & (x - 1)`): cheaper than clearing a bit by index,
    /// which on a `u128` is a variable 128-bit shift.
    fn without_first(self) -> Self;
    /// The lowest square of the set as a set; empty on an empty set.
    fn lowest(self) -> Self;
    /// The highest square of the set as a set; empty on an empty set.
    fn highest(self) -> Self;
    /// `self - 1` wrapping: for a single square, every square below it.
    fn minus_one(self) -> Self;
    /// The squares beyond `sq`, on the grid, in direction `dir` (as in `shift`).
    fn ray(sq: u32, dir: usize) -> Self;

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
    #[inline(always)]
    fn without_first(self) -> u64 {
        self & self.wrapping_sub(1)
    }
    #[inline(always)]
    fn lowest(self) -> u64 {
        self & self.wrapping_neg()
    }
    #[inline(always)]
    fn highest(self) -> u64 {
        // On an empty set the shift wraps to 0 and the `&` clears the top bit again.
        (1u64 << 63).wrapping_shr(self.leading_zeros()) & self
    }
    #[inline(always)]
    fn minus_one(self) -> u64 {
        self.wrapping_sub(1)
    }
    #[inline(always)]
    fn ray(sq: u32, dir: usize) -> u64 {
        // The masks keep the lookup free of bounds checks; real squares are always in range.
        RAYS_8[sq as usize & 63][dir & 7]
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
    #[inline(always)]
    fn without_first(self) -> u128 {
        self & self.wrapping_sub(1)
    }
    #[inline(always)]
    fn lowest(self) -> u128 {
        self & self.wrapping_neg()
    }
    #[inline(always)]
    fn highest(self) -> u128 {
        // On an empty set the shift wraps to 0 and the `&` clears the top bit again.
        (1u128 << 127).wrapping_shr(self.leading_zeros()) & self
    }
    #[inline(always)]
    fn minus_one(self) -> u128 {
        self.wrapping_sub(1)
    }
    #[inline(always)]
    fn ray(sq: u32, dir: usize) -> u128 {
        // The masks keep the lookup free of bounds checks; real squares are always in range.
        RAYS_10[sq as usize & 127][dir & 7]
    }
}

/// The step of each direction (as in `shift`) in columns and rows.
const STEPS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (-1, 1),
    (1, -1),
    (-1, -1),
];

/// `rays(side)[sq][dir]`: the squares beyond `sq` in direction `dir` on a side × side grid, for
/// every bit index of a `u128` (indices beyond the grid have empty rays).
const fn rays(side: i32) -> [[u128; 8]; 128] {
    let mut table = [[0u128; 8]; 128];
    let mut sq = 0;
    while sq < side * side {
        let mut dir = 0;
        while dir < 8 {
            let (dc, dr) = STEPS[dir];
            let (mut c, mut r) = (sq % side + dc, sq / side + dr);
            while c >= 0 && c < side && r >= 0 && r < side {
                table[sq as usize][dir] |= 1 << (r * side + c);
                c += dc;
                r += dr;
            }
            dir += 1;
        }
        sq += 1;
    }
    table
}

const fn rays_u64(wide: [[u128; 8]; 128]) -> [[u64; 8]; 64] {
    let mut table = [[0u64; 8]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut dir = 0;
        while dir < 8 {
            table[sq][dir] = wide[sq][dir] as u64;
            dir += 1;
        }
        sq += 1;
    }
    table
}

static RAYS_8: [[u64; 8]; 64] = rays_u64(rays(8));
static RAYS_10: [[u128; 8]; 128] = rays(10);

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
        self.0 = self.0.without_first();
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
///
/// Branch-free along each direction: the nearest square on the ray from `sq` that is not an
/// `other` disc (an own disc, an empty, blocked or missing square) is found with one bit trick,
/// and the line up to it flips if it is an own disc. Walking the line square by square costs as
/// much as generating all moves, mostly in mispredicted branches.
#[inline(always)]
pub fn flips<B: Bits>(own: B, other: B, sq: u32) -> B {
    let mut all = B::ZERO;
    // Directions towards higher bits (E, S, SE, SW): the nearest square is the lowest bit.
    for dir in [0, 2, 4, 5] {
        let ray = B::ray(sq, dir);
        let stop = (ray & !other).lowest();
        if !(stop & own).is_empty() {
            all |= ray & stop.minus_one();
        }
    }
    // Directions towards lower bits (W, N, NE, NW): the nearest square is the highest bit.
    for dir in [1, 3, 6, 7] {
        let ray = B::ray(sq, dir);
        let stop = (ray & !other).highest();
        if !(stop & own).is_empty() {
            all |= ray & !(stop | stop.minus_one());
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
        // Clearing the flipped squares from every colour, the mover's included (it has none
        // there), is cheaper than finding the colours they came from.
        for d in self.discs.iter_mut() {
            *d &= !flipped;
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
    match depth {
        0 => 1,
        1 => board.legal_moves().0.count() as u64,
        2 => perft_two(board),
        _ => {
            let (moves, kind) = board.legal_moves();
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
    }
}

/// perft(2): the number of legal replies summed over the legal moves. Most of perft's time is
/// spent here, so instead of building each child position it derives only what the reply count
/// needs (the next seat's discs, the occupied and empty squares) from the move and its flips.
fn perft_two<B: Bits>(board: &Board<B>) -> u64 {
    let (moves, kind) = board.legal_moves();
    let mover = board.to_move as usize;
    // The same seat replies after every move; it is the mover only when everyone else is out.
    let next = board.next_seat(board.to_move) as usize;
    let own = board.discs[mover];
    let other = board.occupied ^ own;
    let mut nodes = 0;
    let mut rest = moves;
    while !rest.is_empty() {
        let sq = rest.first();
        let placed = rest.lowest();
        rest = rest.without_first();
        let flipped = match kind {
            MoveKind::Flipping => flips(own, other, sq),
            MoveKind::Placing => B::ZERO,
        };
        let occupied = board.occupied | placed;
        let next_own = if next == mover {
            own | placed | flipped
        } else {
            board.discs[next] & !flipped
        };
        let empty = board.playable & !occupied;
        let replies = flipping_moves(next_own, occupied ^ next_own, empty);
        nodes += if replies.is_empty() {
            (empty & neighbours(occupied)).count()
        } else {
            replies.count()
        } as u64;
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

    #[test]
    fn single_square_primitives() {
        assert_eq!(0u64.highest(), 0);
        assert_eq!(0u128.highest(), 0);
        assert_eq!(0u128.lowest(), 0);
        assert_eq!((1u64 << 63 | 5).highest(), 1 << 63);
        assert_eq!((1u128 << 99 | 1 << 64 | 6).highest(), 1 << 99);
        assert_eq!((1u128 << 70 | 1 << 99).lowest(), 1 << 70);
        assert_eq!(0b1011u64.without_first(), 0b1010);
        assert_eq!((1u128 << 80).minus_one().count(), 80);
    }

    #[test]
    fn rays_stop_at_the_edges() {
        // From a1 (bit 0): 7 squares east, south and south-east on 8×8, 9 on 10×10, none back.
        for dir in [0, 2, 4] {
            assert_eq!(<u64 as Bits>::ray(0, dir).count(), 7);
            assert_eq!(<u128 as Bits>::ray(0, dir).count(), 9);
        }
        for dir in [1, 3, 5, 6, 7] {
            assert_eq!(<u64 as Bits>::ray(0, dir), 0);
            assert_eq!(<u128 as Bits>::ray(0, dir), 0);
        }
        // From e5 on 10×10 (col 4, row 4) north-east: f4 g3 h2 i1.
        assert_eq!(
            <u128 as Bits>::ray(44, 6),
            1 << 35 | 1 << 26 | 1 << 17 | 1 << 8
        );
        // Every ray agrees with stepping by `shift`.
        for sq in 0..100 {
            for dir in 0..8 {
                let mut walk = 0u128;
                let mut x = shift(<u128 as Bits>::bit(sq), dir);
                while x != 0 {
                    walk |= x;
                    x = shift(x, dir);
                }
                assert_eq!(<u128 as Bits>::ray(sq, dir), walk, "{sq} {dir}");
            }
        }
    }
}
