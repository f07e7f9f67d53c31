//! The line fills of the large boards in AVX2 vector registers: one 256-bit register holds two
//! `u128` boards, so the eight directions of a fill are four registers that advance together.
//!
//! On a `u128`, every shift of a fill is two or three instructions (`shld`, `shl`, a copy) and
//! every `&` and `|` two, while a 256-bit register does the same for two boards in one
//! instruction each; a shift of both 128-bit halves is three (each 64-bit lane shifted, plus the
//! bits that cross from the low lane to the high one), with the step of each half's own
//! direction. A fill of all eight directions takes about half the instructions of the `u128`
//! one. `flips` and `moves_through` stay on whole words: they look up one ray per direction,
//! and a lowest or highest square does not cross 64-bit lanes cheaply.
//!
//! The registers pair the lines of `LINES`: E–W with S–N in one pair, SE–NW with SW–NE in the
//! other; in each pair one register goes towards higher bits and one towards lower bits.

use super::{Bits, Fills};
use std::arch::x86_64::*;

/// Proof that the processor has AVX2: only `detect` makes one.
#[derive(Clone, Copy)]
pub(super) struct Avx2(());

impl Avx2 {
    pub(super) fn detect() -> Option<Avx2> {
        std::arch::is_x86_feature_detected!("avx2").then_some(Avx2(()))
    }
}

impl Fills<u128> for Avx2 {
    #[inline(always)]
    fn moves(self, own: u128, other: u128, empty: u128) -> u128 {
        // SAFETY: an `Avx2` exists only on a processor with AVX2 (`Avx2::detect`).
        unsafe { moves(own, other, empty) }
    }

    #[inline(always)]
    fn moves_guarding(self, own: u128, other: u128, guarded: u128, empty: u128) -> (u128, u128) {
        // SAFETY: as in `moves`.
        unsafe { moves_guarding(own, other, guarded, empty) }
    }

    #[inline(always)]
    fn replies_in_bulk(self, own: u128, other: u128, empty: u128, keep: u128) -> (u128, u64) {
        // SAFETY: as in `moves`.
        unsafe { replies_in_bulk(own, other, empty, keep) }
    }
}

/// The steps of a pair of lines, first line in the low half: `k` the step in each 64-bit lane,
/// `c` 64 - `k` (the shift of the bits that cross lanes); `k2`, `k3`, `k4` and their `c` the
/// doubled steps.
#[derive(Clone, Copy)]
struct Steps {
    k: [__m256i; 4],
    c: [__m256i; 4],
}

#[inline]
#[target_feature(enable = "avx2")]
fn steps(first: i64, second: i64) -> Steps {
    let k = |m: i64| _mm256_set_epi64x(second * m, second * m, first * m, first * m);
    let c = |m: i64| {
        _mm256_set_epi64x(
            64 - second * m,
            64 - second * m,
            64 - first * m,
            64 - first * m,
        )
    };
    Steps {
        k: [k(1), k(2), k(3), k(4)],
        c: [c(1), c(2), c(3), c(4)],
    }
}

/// Two boards in one register, `low` in the low half.
#[inline]
#[target_feature(enable = "avx2")]
fn pair(low: u128, high: u128) -> __m256i {
    _mm256_set_epi64x(
        (high >> 64) as i64,
        high as i64,
        (low >> 64) as i64,
        low as i64,
    )
}

/// The union of a register's two boards.
#[inline]
#[target_feature(enable = "avx2")]
fn union(v: __m256i) -> u128 {
    let x = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    (_mm_extract_epi64::<0>(x) as u64 as u128) | (_mm_extract_epi64::<1>(x) as u64 as u128) << 64
}

#[inline]
#[target_feature(enable = "avx2")]
fn or(a: __m256i, b: __m256i) -> __m256i {
    _mm256_or_si256(a, b)
}

#[inline]
#[target_feature(enable = "avx2")]
fn and(a: __m256i, b: __m256i) -> __m256i {
    _mm256_and_si256(a, b)
}

/// Both boards shifted towards higher bits by step `m` (index into `Steps`).
#[inline]
#[target_feature(enable = "avx2")]
fn up(x: __m256i, s: &Steps, m: usize) -> __m256i {
    // The low lane's top bits move into the high lane; the low lane of `bslli` is zero.
    or(
        _mm256_sllv_epi64(x, s.k[m]),
        _mm256_srlv_epi64(_mm256_bslli_epi128::<8>(x), s.c[m]),
    )
}

/// Both boards shifted towards lower bits by step `m`.
#[inline]
#[target_feature(enable = "avx2")]
fn down(x: __m256i, s: &Steps, m: usize) -> __m256i {
    or(
        _mm256_srlv_epi64(x, s.k[m]),
        _mm256_sllv_epi64(_mm256_bsrli_epi128::<8>(x), s.c[m]),
    )
}

/// `line_ends_split` of the scalar code for both boards of a register pair at once (the large
/// boards' version: lines of up to 8 pass squares). Also returns the zero-length ends: `src`
/// shifted one step each way, unmasked.
#[inline]
#[target_feature(enable = "avx2")]
fn ends(src: __m256i, pass: __m256i, s: &Steps) -> [__m256i; 4] {
    let src_up = up(src, s, 0);
    let src_down = down(src, s, 0);
    let mut u = and(src_up, pass);
    let mut d = and(src_down, pass);
    u = or(u, and(up(u, s, 0), pass));
    d = or(d, and(down(d, s, 0), pass));
    let pass2_up = and(pass, up(pass, s, 0));
    let pass2_down = down(pass2_up, s, 0);
    u = or(u, and(up(u, s, 1), pass2_up));
    d = or(d, and(down(d, s, 1), pass2_down));
    let pass4_up = and(pass2_up, up(pass2_up, s, 1));
    let pass4_down = down(pass4_up, s, 2);
    u = or(u, and(up(u, s, 3), pass4_up));
    d = or(d, and(down(d, s, 3), pass4_down));
    [up(u, s, 0), down(d, s, 0), src_up, src_down]
}

/// The register pairs: (E–W, S–N) and (SE–NW, SW–NE), with the squares their lines run through
/// (`other`, without the edge columns for the lines that move sideways).
struct Lines {
    straight: [__m256i; 4],
    diagonal: [__m256i; 4],
}

#[inline]
#[target_feature(enable = "avx2")]
fn lines(src: u128, other: u128) -> Lines {
    let inner = other & <u128 as Bits>::INNER_COLS;
    let side = <u128 as Bits>::SIDE as i64;
    let src = pair(src, src);
    Lines {
        straight: ends(src, pair(inner, other), &steps(1, side)),
        diagonal: ends(src, pair(inner, inner), &steps(side + 1, side - 1)),
    }
}

#[inline]
#[target_feature(enable = "avx2")]
fn moves(own: u128, other: u128, empty: u128) -> u128 {
    let l = lines(own, other);
    union(or(
        or(l.straight[0], l.straight[1]),
        or(l.diagonal[0], l.diagonal[1]),
    )) & empty
}

#[inline]
#[target_feature(enable = "avx2")]
fn moves_guarding(own: u128, other: u128, guarded: u128, empty: u128) -> (u128, u128) {
    let all = lines(own, other);
    let plain = lines(own, other & !guarded);
    let moves = or(
        or(all.straight[0], all.straight[1]),
        or(all.diagonal[0], all.diagonal[1]),
    );
    // `andnot(a, b)` is `!a & b`.
    let hit = or(
        or(
            _mm256_andnot_si256(plain.straight[0], all.straight[0]),
            _mm256_andnot_si256(plain.straight[1], all.straight[1]),
        ),
        or(
            _mm256_andnot_si256(plain.diagonal[0], all.diagonal[0]),
            _mm256_andnot_si256(plain.diagonal[1], all.diagonal[1]),
        ),
    );
    (union(moves) & empty, union(hit) & empty)
}

#[inline]
#[target_feature(enable = "avx2")]
fn replies_in_bulk(own: u128, other: u128, empty: u128, keep: u128) -> (u128, u64) {
    let l = lines(own, other);
    let before = union(or(
        or(l.straight[0], l.straight[1]),
        or(l.diagonal[0], l.diagonal[1]),
    )) & empty;
    if before.count_ones() < 2 {
        return (before, 0);
    }
    let targets = empty & !before;
    let t = lines(targets, other);
    let keep = pair(keep, keep);
    // As in the scalar `replies_in_bulk`: an own disc on one side, a target on the other; the
    // zero-length ends (`src` shifted once) masked as `shift` masks them.
    let opened = |ends: &[__m256i; 4], target: &[__m256i; 4], up_mask: __m256i, down_mask| {
        let own_up = or(ends[0], and(ends[2], up_mask));
        let own_down = or(ends[1], and(ends[3], down_mask));
        let target_up = or(target[0], and(target[2], up_mask));
        let target_down = or(target[1], and(target[3], down_mask));
        and(keep, or(and(own_up, target_down), and(own_down, target_up)))
    };
    let not_first = <u128 as Bits>::NOT_FIRST_COL;
    let not_last = <u128 as Bits>::NOT_LAST_COL;
    let full = <u128 as Bits>::FULL;
    // Masks of `shift`: E, S up and W, N down; SE, SW up and NW, NE down.
    let straight = opened(
        &l.straight,
        &t.straight,
        pair(not_first, full),
        pair(not_last, full),
    );
    let diagonal = opened(
        &l.diagonal,
        &t.diagonal,
        pair(not_first, not_last),
        pair(not_last, not_first),
    );
    (before, count(straight) + count(diagonal))
}

/// The number of set bits of a register.
#[inline]
#[target_feature(enable = "avx2")]
fn count(v: __m256i) -> u64 {
    let x = _mm256_castsi256_si128(v);
    let y = _mm256_extracti128_si256::<1>(v);
    (_mm_extract_epi64::<0>(x) as u64).count_ones() as u64
        + (_mm_extract_epi64::<1>(x) as u64).count_ones() as u64
        + (_mm_extract_epi64::<0>(y) as u64).count_ones() as u64
        + (_mm_extract_epi64::<1>(y) as u64).count_ones() as u64
}
