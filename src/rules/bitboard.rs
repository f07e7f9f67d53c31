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
//!
//! Why `u128` stays the layout of the large boards: a shift of a `u128` by a constant is two
//! instructions (`shld` and `shl`), and a layout of two `u64` words with the even rows in one and
//! the odd rows in the other (which makes a vertical step a swap of the words) measured no faster
//! for move generation, while it would give up the plain row-major bit order that iteration, the
//! ray tables and the bots rely on. What made the large boards slow was elsewhere: finding the
//! highest square of a `u128` by a variable 128-bit shift, branches in `flips`, software bit
//! counting, a move generation for every move at the last ply, and line fills done one `u128`
//! direction after another (see `perft`, `perft_two` and `wide`).
//!
//! Measured with `bench/perft.sh` (leaves per CPU second against the C Othello anchor in the same
//! run, the median of three, on a shared 2-core AMD EPYC with a load average of about 5), 10×10,
//! the Octagon and 8×8 went from 0.85×, 0.87× and 2.56× the anchor to 1.60×, 1.60× and 3.06×
//! (1.62×, 1.50× and 3.13× in another run) with the last changes: counting most replies of the
//! last ply in bulk (`perft_two`), and the large boards' line fills in AVX2 registers, two `u128`
//! boards to a register (`wide`). By instruction counts (`valgrind --tool=cachegrind`, 10×10), the bulk count alone takes 28 %
//! fewer instructions at perft 9 but only 9 % fewer at perft 10, whose last but one ply is one
//! where half the moves flip a disc of the replying seat and are counted one by one; what
//! makes up the rest is the vector fills, which cachegrind cannot weigh against scalar code.
//! Finding the moves that flip a disc of the replying seat without the bulk count saves 2 % of
//! the instructions at perft 9 (and was measured no faster earlier and left out then). Counting
//! in bulk also the moves after which the replier has one flipping move or none (all but the
//! ones that leave it none) takes 3.5 % fewer instructions at 10×10 perft 10.

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
    /// For a single square, every square below it (lower bit numbers); empty on an empty set.
    fn below(self) -> Self;
    /// For a single square, every square above it (higher bit numbers); empty on an empty set.
    fn above(self) -> Self;
    /// Wrapping addition. Adding a square to the start of a run of set bits carries through the
    /// run and lands on the square after it: `flipping_moves` finds a whole direction that way.
    fn plus(self, other: Self) -> Self;
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
    fn below(self) -> u64 {
        self.saturating_sub(1)
    }
    #[inline(always)]
    fn above(self) -> u64 {
        // Minus twice the square: every bit above it; 0 stays 0.
        (self << 1).wrapping_neg()
    }
    #[inline(always)]
    fn plus(self, other: u64) -> u64 {
        self.wrapping_add(other)
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
        // A table, not `1 << (127 - leading_zeros)`: a variable shift of a `u128` is a dozen
        // instructions with conditional moves, and `flips` needs four of these per move.
        HIGHEST_128[self.leading_zeros() as usize]
    }
    #[inline(always)]
    fn below(self) -> u128 {
        self.saturating_sub(1)
    }
    #[inline(always)]
    fn above(self) -> u128 {
        // Minus twice the square: every bit above it; 0 stays 0.
        (self << 1).wrapping_neg()
    }
    #[inline(always)]
    fn plus(self, other: u128) -> u128 {
        self.wrapping_add(other)
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

/// `HIGHEST_128[n]`: the bit a `u128` with `n` leading zeros has highest (none for `n` = 128).
static HIGHEST_128: [u128; 129] = {
    let mut table = [0u128; 129];
    let mut n = 0;
    while n < 128 {
        table[n] = 1 << (127 - n);
        n += 1;
    }
    table
};

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
/// This is the hot path of perft and search. What keeps it short:
/// - `other` is masked once per direction instead of masking every shift: a line that moves
///   sideways can only run through the inner columns, so with the edge columns removed from
///   `other`, a bit that wraps round an edge lands on nothing and dies in the next `&`; vertical
///   lines need no mask because nothing lies above or below the grid.
/// - East (towards higher bits along a row) is one addition: own discs shifted onto the first
///   square of a run of `other` discs carry through the run and land on the square after it.
/// - The other directions are filled by doubling (Kogge–Stone) rather than one step at a time:
///   runs of up to 8 enclosed discs (10×10) take 3 doubling steps instead of 7 single ones, the
///   two directions of a line share the doubled runs, and the directions are independent, so
///   they overlap in the processor.
/// - The landing squares of all directions are kept to the empty ones once, at the end.
#[inline(always)]
pub fn flipping_moves<B: Bits>(own: B, other: B, empty: B) -> B {
    let s = B::SIDE;
    let inner = other & B::INNER_COLS;
    let east = inner.plus((own << 1) & inner);
    (east
        | line_ends_west(own, inner)
        | line_ends_both_ways(own, other, s)
        | line_ends_both_ways(own, inner, s + 1)
        | line_ends_both_ways(own, inner, s - 1))
        & empty
}

/// The squares one step beyond each line of `pass` squares that runs towards lower bits by
/// `step` from an `own` square, and the same towards higher bits: the squares a move could go
/// to, before keeping the empty ones. `pass` must already exclude any square a line cannot run
/// through in this direction (see `flipping_moves`).
#[inline(always)]
fn line_ends_both_ways<B: Bits>(own: B, pass: B, step: u32) -> B {
    let (up, down) = line_ends_split(own, pass, step);
    up | down
}

/// `line_ends_both_ways` with the two directions apart: the line ends towards higher bits, then
/// those towards lower bits.
#[inline(always)]
fn line_ends_split<B: Bits>(own: B, pass: B, step: u32) -> (B, B) {
    // up, down: the `pass` squares reachable from `own` through `pass` squares only.
    let mut up = (own << step) & pass;
    let mut down = (own >> step) & pass;
    up |= (up << step) & pass; // lines of up to 2
    down |= (down >> step) & pass;
    // pass2_*: squares that end 2 `pass` squares in a row, counted from below (up) or above.
    let pass2_up = pass & (pass << step);
    let pass2_down = pass2_up >> step;
    up |= (up << (2 * step)) & pass2_up; // up to 4
    down |= (down >> (2 * step)) & pass2_down;
    if B::SIDE > 8 {
        let pass4_up = pass2_up & (pass2_up << (2 * step));
        let pass4_down = pass4_up >> (3 * step);
        up |= (up << (4 * step)) & pass4_up; // up to 8 = SIDE - 2
        down |= (down >> (4 * step)) & pass4_down;
    } else {
        up |= (up << (2 * step)) & pass2_up; // up to 6 = SIDE - 2
        down |= (down >> (2 * step)) & pass2_down;
    }
    (up << step, down >> step)
}

/// For each line through a square (E–W, S–N, SE–NW, SW–NE, the directions of `LINES`), the
/// squares one step beyond a run of at least one `other` square that starts next to a `src`
/// square: in the line's first direction, then in its second.
#[inline(always)]
fn line_ends_all<B: Bits>(src: B, other: B) -> [(B, B); 4] {
    let s = B::SIDE;
    let inner = other & B::INNER_COLS;
    [
        line_ends_split(src, inner, 1),
        line_ends_split(src, other, s),
        line_ends_split(src, inner, s + 1),
        line_ends_split(src, inner, s - 1),
    ]
}

/// The four lines through a square as pairs of opposite directions (as in `shift`), the first of
/// each pair towards higher bits: E–W, S–N, SE–NW, SW–NE.
const LINES: [(usize, usize); 4] = [(0, 1), (2, 3), (4, 7), (5, 6)];

/// The flipping moves of `own`, and among them those that would flip at least one disc of
/// `guarded` (some of the `other` discs).
///
/// A move flips a `guarded` disc when one of its lines does, and a line holds a `guarded` disc
/// exactly when it is a line of `other` discs but not one of `other` discs without the
/// `guarded` ones: so each direction is filled twice, and the two fills compared.
#[inline(always)]
pub fn flipping_moves_guarding<B: Bits>(own: B, other: B, guarded: B, empty: B) -> (B, B) {
    let plain = other & !guarded;
    let (all, through_plain) = (line_ends_all(own, other), line_ends_all(own, plain));
    let mut moves = B::ZERO;
    let mut flip_guarded = B::ZERO;
    for (line, plain_line) in all.iter().zip(through_plain.iter()) {
        moves |= line.0 | line.1;
        flip_guarded |= (line.0 & !plain_line.0) | (line.1 & !plain_line.1);
    }
    (moves & empty, flip_guarded & empty)
}

/// `line_ends_both_ways` for west only (east is the addition in `flipping_moves`).
#[inline(always)]
fn line_ends_west<B: Bits>(own: B, pass: B) -> B {
    let mut x = (own >> 1) & pass;
    x |= (x >> 1) & pass;
    let pass2 = pass & (pass >> 1);
    x |= (x >> 2) & pass2;
    if B::SIDE > 8 {
        let pass4 = pass2 & (pass2 >> 2);
        x |= (x >> 4) & pass4;
    } else {
        x |= (x >> 2) & pass2;
    }
    x >> 1
}

/// The discs that a disc placed on `sq` flips: every line of `other` closed by `own`.
///
/// Branch-free: along each direction, the nearest square on the ray from `sq` that is not an
/// `other` disc (an own disc, an empty, blocked or missing square) is found with one bit trick,
/// and the line up to it flips if it is an own disc; `below` and `above` of the empty set are
/// empty, so "it is not an own disc" needs no test. Walking the line square by square costs as
/// much as generating all moves, mostly in mispredicted branches, and so did a test per
/// direction (which line of a move flips is as good as random).
#[inline(always)]
pub fn flips<B: Bits>(own: B, other: B, sq: u32) -> B {
    let mut all = B::ZERO;
    // Directions towards higher bits (E, S, SE, SW): the nearest square is the lowest bit.
    for dir in [0, 2, 4, 5] {
        let ray = B::ray(sq, dir);
        let stop = (ray & !other).lowest();
        all |= ray & (stop & own).below();
    }
    // Directions towards lower bits (W, N, NE, NW): the nearest square is the highest bit.
    for dir in [1, 3, 6, 7] {
        let ray = B::ray(sq, dir);
        let stop = (ray & !other).highest();
        all |= ray & (stop & own).above();
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

impl MoveKind {
    /// The word records and messages spell the kind with, as serde writes it (a test checks).
    pub const fn as_str(self) -> &'static str {
        match self {
            MoveKind::Flipping => "flipping",
            MoveKind::Placing => "placing",
        }
    }
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
///
/// On x86-64 processors that have them (all from the last fifteen years), perft runs in a copy
/// of the same code compiled for the bit-counting and bit-manipulation instructions (`popcnt`,
/// `lzcnt`, `tzcnt`, `andn`, `blsi`, ...): the baseline x86-64 that the binary is built for
/// counts the bits of a `u64` with a dozen instructions instead of one. The large boards, where
/// the processor has AVX2, run in a third copy whose line fills work on four `u128` boards at
/// once (`wide`). The binary itself still runs on any x86-64 processor: the processor is asked
/// at run time.
pub fn perft<B: Bits>(board: &Board<B>, depth: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if has_bit_instructions() {
            let any: &dyn std::any::Any = board;
            if let (Some(large), Some(avx2)) =
                (any.downcast_ref::<Board<u128>>(), wide::Avx2::detect())
            {
                // SAFETY: `avx2` exists, so the processor has AVX2, and it has the rest of the
                // features `perft_avx2` is compiled for (`has_bit_instructions`).
                return unsafe { perft_avx2(large, depth, avx2) };
            }
            // SAFETY: the processor has every feature `perft_bit_instructions` is compiled for.
            return unsafe { perft_bit_instructions(board, depth) };
        }
    }
    perft_portable(board, depth)
}

/// Whether this processor has the instructions `perft_bit_instructions` is compiled for.
#[cfg(target_arch = "x86_64")]
fn has_bit_instructions() -> bool {
    std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
}

/// `perft` compiled for the bit instructions (every function it calls is inlined into it).
///
/// # Safety
/// Only call this on a processor that has `popcnt`, `lzcnt`, `bmi1` and `bmi2`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2")]
unsafe fn perft_bit_instructions<B: Bits>(board: &Board<B>, depth: u32) -> u64 {
    // SAFETY: the caller made sure of the features; recursing keeps them.
    perft_node(board, depth, Scalar, |child, d| unsafe {
        perft_bit_instructions(child, d)
    })
}

/// `perft` on a large board compiled for AVX2 and the bit instructions, with the line fills of
/// `wide`.
///
/// # Safety
/// Only call this on a processor that has `popcnt`, `lzcnt`, `bmi1` and `bmi2` (AVX2 is
/// vouched for by `avx2`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,lzcnt,bmi1,bmi2")]
unsafe fn perft_avx2(board: &Board<u128>, depth: u32, avx2: wide::Avx2) -> u64 {
    // SAFETY: the caller made sure of the features; recursing keeps them.
    perft_node(board, depth, avx2, |child, d| unsafe {
        perft_avx2(child, d, avx2)
    })
}

/// `perft` for any processor.
fn perft_portable<B: Bits>(board: &Board<B>, depth: u32) -> u64 {
    perft_node(board, depth, Scalar, perft_portable)
}

/// The line fills perft needs, done one way or another: `Scalar` on whole words, or four boards
/// at a time in vector registers (`wide::Avx2`). Every way gives the same sets.
trait Fills<B: Bits>: Copy {
    /// `flipping_moves`.
    fn moves(self, own: B, other: B, empty: B) -> B;
    /// `flipping_moves_guarding`.
    fn moves_guarding(self, own: B, other: B, guarded: B, empty: B) -> (B, B);
    /// The flipping moves of `own` (`before`); the number of moves that a disc of another colour
    /// opens for `own`, summed over the squares of `keep` (empty squares; see `perft_two`); and
    /// the squares where such a disc opens at least one.
    fn replies_in_bulk(self, own: B, other: B, empty: B, keep: B) -> (B, u64, B);
}

/// `Fills` on whole words.
#[derive(Clone, Copy)]
struct Scalar;

impl<B: Bits> Fills<B> for Scalar {
    #[inline(always)]
    fn moves(self, own: B, other: B, empty: B) -> B {
        flipping_moves(own, other, empty)
    }

    #[inline(always)]
    fn moves_guarding(self, own: B, other: B, guarded: B, empty: B) -> (B, B) {
        flipping_moves_guarding(own, other, guarded, empty)
    }

    #[inline(always)]
    fn replies_in_bulk(self, own: B, other: B, empty: B, keep: B) -> (B, u64, B) {
        let lines = line_ends_all(own, other);
        let before = lines
            .iter()
            .fold(B::ZERO, |acc, line| acc | line.0 | line.1)
            & empty;
        // `targets`: the empty squares that a new line can make a new move.
        let targets = empty & !before;
        let target_lines = line_ends_all(targets, other);
        let mut opened = 0;
        let mut opening = B::ZERO;
        for (i, &(up, down)) in LINES.iter().enumerate() {
            // A square is in `own_up` when the nearest square beyond the other discs, in the
            // `down` direction, is an own disc (the run of other discs may be empty: the placed
            // disc is one); likewise for the rest.
            let own_up = lines[i].0 | shift(own, up);
            let own_down = lines[i].1 | shift(own, down);
            let target_up = target_lines[i].0 | shift(targets, up);
            let target_down = target_lines[i].1 | shift(targets, down);
            // The two cases are exclusive: the nearest square on one side is own or empty.
            let line = keep & ((own_up & target_down) | (own_down & target_up));
            opened += line.count() as u64;
            opening |= line;
        }
        (before, opened, opening)
    }
}

/// One node of perft; `recurse` counts a child's subtree (it stays in the caller's compiled copy).
#[inline(always)]
fn perft_node<B: Bits, F: Fills<B>>(
    board: &Board<B>,
    depth: u32,
    fills: F,
    recurse: impl Fn(&Board<B>, u32) -> u64,
) -> u64 {
    match depth {
        0 => 1,
        1 => legal_moves(board, fills).0.count() as u64,
        2 => perft_two(board, fills),
        _ => {
            let (moves, kind) = legal_moves(board, fills);
            let mut nodes = 0;
            for sq in moves.iter() {
                let flipped = match kind {
                    MoveKind::Flipping => board.flips(sq),
                    MoveKind::Placing => B::ZERO,
                };
                let mut child = *board;
                child.play_unchecked(sq, flipped);
                nodes += recurse(&child, depth - 1);
            }
            nodes
        }
    }
}

/// `Board::legal_moves` with the fills of `fills`.
#[inline(always)]
fn legal_moves<B: Bits, F: Fills<B>>(board: &Board<B>, fills: F) -> (B, MoveKind) {
    let own = board.discs[board.to_move as usize];
    let flipping = fills.moves(own, board.occupied ^ own, board.empty());
    if flipping.is_empty() {
        (board.placing_moves(), MoveKind::Placing)
    } else {
        (flipping, MoveKind::Flipping)
    }
}

/// perft(2): the number of legal replies summed over the legal moves. Most of perft's time is
/// spent here, so it counts the replies of most moves in bulk, without a loop over the moves.
///
/// Most moves (from five in ten to nine in ten, depending on the ply) flip no disc of the seat
/// that replies (the moves that do are found by `flipping_moves_guarding`). After such a move,
/// nothing changes for that seat but one more disc of another colour on the square played, so
/// its replies are its flipping moves before the move (`before`), without that square, plus the
/// moves that the new disc opens: on each line through the square, the nearest square beyond
/// the other discs on one side is an own disc and the one on the other side an empty square not
/// already in `before`. Whether a square opens such a move along a given line is, for every
/// square at once, the intersection of two line fills (from the replier's discs, and from those
/// empty squares), so the sum of the reply counts over all these moves is a handful of bit
/// counts (`Fills::replies_in_bulk`). Left out are the moves after which the replier has no
/// flipping move (`before` is empty or only the square played, and the move opens nothing):
/// its replies are then the placing moves.
///
/// Those moves, and the moves that flip a disc of the replier, are counted one by one: the
/// replies are the placing moves in the first case, generated afresh in the second.
#[inline(always)]
fn perft_two<B: Bits, F: Fills<B>>(board: &Board<B>, fills: F) -> u64 {
    let mover = board.to_move as usize;
    // The same seat replies after every move; it is the mover only when everyone else is out.
    let next = board.next_seat(board.to_move) as usize;
    if next == mover {
        return perft_two_alone(board, fills);
    }
    let own = board.discs[mover];
    let other = board.occupied ^ own;
    let next_own = board.discs[next];
    let next_other = board.occupied ^ next_own;
    let empty_before = board.empty();
    let (mut moves, mut flip_next) = fills.moves_guarding(own, other, next_own, empty_before);
    if moves.is_empty() {
        moves = board.placing_moves();
        flip_next = B::ZERO;
    }
    let keep = moves & !flip_next;
    let (before, opened, opening) = fills.replies_in_bulk(next_own, next_other, empty_before, keep);
    let count_before = before.count() as u64;
    // The moves of `keep` after which the replier would have no flipping move: its replies are
    // then the placing moves, which the bulk count does not count.
    let stuck = match count_before {
        0 => keep & !opening,
        1 => keep & before & !opening,
        _ => B::ZERO,
    };
    let bulk = keep & !stuck;
    let mut nodes = bulk.count() as u64 * count_before - (bulk & before).count() as u64 + opened;
    let one_by_one = flip_next | stuck;
    let mut rest = one_by_one;
    while !rest.is_empty() {
        let sq = rest.first();
        let placed = rest.lowest();
        rest = rest.without_first();
        let occupied = board.occupied | placed;
        let empty = board.playable & !occupied;
        let replies = if (flip_next & placed).is_empty() {
            B::ZERO
        } else {
            let next_own = next_own & !flips(own, other, sq);
            fills.moves(next_own, occupied ^ next_own, empty)
        };
        nodes += reply_count(replies, empty, occupied);
    }
    nodes
}

/// The replies a seat has with flipping moves `replies`: those, or when there are none, its
/// placing moves (every empty square next to a disc).
#[inline(always)]
fn reply_count<B: Bits>(replies: B, empty: B, occupied: B) -> u64 {
    if replies.is_empty() {
        (empty & neighbours(occupied)).count() as u64
    } else {
        replies.count() as u64
    }
}

/// `perft_two` when every other seat is out, so that the mover replies to itself.
#[inline(always)]
fn perft_two_alone<B: Bits, F: Fills<B>>(board: &Board<B>, fills: F) -> u64 {
    let (moves, kind) = legal_moves(board, fills);
    let own = board.discs[board.to_move as usize];
    let other = board.occupied ^ own;
    let mut nodes = 0;
    for sq in moves.iter() {
        let placed = B::bit(sq);
        let flipped = match kind {
            MoveKind::Flipping => flips(own, other, sq),
            MoveKind::Placing => B::ZERO,
        };
        let occupied = board.occupied | placed;
        let empty = board.playable & !occupied;
        let own = own | placed | flipped;
        let replies = fills.moves(own, occupied ^ own, empty);
        nodes += reply_count(replies, empty, occupied);
    }
    nodes
}

#[cfg(target_arch = "x86_64")]
mod wide;

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
        assert_eq!((1u128 << 80).below().count(), 80);
        assert_eq!((1u128 << 80).above().count(), 47);
        assert_eq!((1u64 << 63).above(), 0);
        assert_eq!((1u64 << 5).below(), 0b11111);
        assert_eq!(0u64.below() | 0u64.above(), 0);
        assert_eq!(0u128.below() | 0u128.above(), 0);
        for n in [0, 1, 63, 64, 99, 127] {
            assert_eq!((1u128 << n | 1).highest(), 1 << n);
        }
    }

    #[test]
    fn every_compiled_copy_of_perft_agrees() {
        use crate::rules::{BoardKind, Position, Rules};
        for board in BoardKind::ALL {
            for players in [3, 4] {
                let pos = Position::new(Rules::new(players, board, false).unwrap());
                let (small, large) = (pos.small_board(), pos.large_board());
                for depth in 1..=5 {
                    let (fast, portable) = match (small, large) {
                        (Some(b), _) => (perft(b, depth), perft_portable(b, depth)),
                        (_, Some(b)) => (perft(b, depth), perft_portable(b, depth)),
                        _ => unreachable!(),
                    };
                    assert_eq!(fast, portable, "{board} {players} players depth {depth}");
                    // On a processor with AVX2, `perft` takes the large boards to `perft_avx2`:
                    // the copy for the bit instructions alone is checked here.
                    #[cfg(target_arch = "x86_64")]
                    if let (Some(b), true) = (large, has_bit_instructions()) {
                        // SAFETY: the processor has the features, as just asked.
                        let bits = unsafe { perft_bit_instructions(b, depth) };
                        assert_eq!(bits, portable, "{board} {players} players depth {depth}");
                    }
                }
            }
        }
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
