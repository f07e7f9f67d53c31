//! Schedule primitives every front-end shares: the k! seatings of k bots, and seeds mixed from
//! numbers, so that a match, a league and a sequential test seat and seed games the same way.

use crate::rng::Rng;

pub fn factorial(k: usize) -> u32 {
    (1..=k as u32).product()
}

/// Seating `s` of k bots (0 ≤ s < k!): `order[seat]` is the place of the bot in that seat within
/// the deal's bot list. The first k seatings are the k rotations of the list (bot r in seat 0 of
/// seating r), so a short match still rotates every bot through the first seat.
pub fn seating(k: usize, s: u32) -> Vec<usize> {
    let rotation = s as usize % k;
    let mut rank = s as usize / k;
    // The rank-th permutation (in lexicographic order) of 1..k after a fixed 0.
    let mut rest: Vec<usize> = (1..k).collect();
    let mut base = vec![0];
    for left in (1..k).rev() {
        let block = factorial(left - 1) as usize;
        base.push(rest.remove(rank / block));
        rank %= block;
    }
    (0..k).map(|seat| base[(seat + rotation) % k]).collect()
}

/// Mixes two numbers into a seed (SplitMix64 of their combination).
pub fn mix(a: u64, b: u64) -> u64 {
    Rng::new(a ^ b.wrapping_mul(0x9e37_79b9_7f4a_7c15)).next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn seatings_are_all_permutations_and_start_with_rotations() {
        for k in [3, 4] {
            let all: HashSet<Vec<usize>> = (0..factorial(k)).map(|s| seating(k, s)).collect();
            assert_eq!(all.len(), factorial(k) as usize);
            for r in 0..k as u32 {
                let expected: Vec<usize> = (0..k).map(|seat| (seat + r as usize) % k).collect();
                assert_eq!(seating(k, r), expected);
            }
            // Every bot sits in every seat, and after every other bot, equally often.
            for bot in 0..k {
                for seat in 0..k {
                    let n = all.iter().filter(|o| o[seat] == bot).count();
                    assert_eq!(n, factorial(k - 1) as usize);
                }
            }
        }
    }
}
