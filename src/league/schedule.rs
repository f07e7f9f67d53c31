//! The schedule: which bots play together, on which board, in which seats. A pure function of
//! the league's shape and seed, so that every run, every shard and every resumed run agrees on it.
//!
//! A schedule is built of **deals**: k bots, a board, and a seed that draws the deal's random
//! blocked squares and opening. Every deal is played in all k! **seatings**, so each bot meets
//! every seat and every neighbour order equally often.
//!
//! Game identity: a deal's `number` is computed from *what* the deal is (its bots' places in the
//! bot list, its round, its board), not from where it falls in the list. Adding a bot at the end
//! of the list, or adding rounds, therefore leaves every existing deal's number, seed and games as
//! they were: a resumed league skips them and plays only what is new.

use crate::rng::Rng;
use crate::run::seating::{factorial, mix};
use crate::run::{GameIds, IdNumber};

/// The most bots a league may list: keeps deal numbers within 64 bits.
pub const MAX_BOTS: usize = 256;
/// The most rounds a league may ask for.
pub const MAX_ROUNDS: u32 = 4096;
/// The most boards a league may list (each board kind at most once).
pub const MAX_BOARDS: u64 = 3;
/// A sampled round may draw the same bots twice; each draw of one set gets its own number, and
/// numbers have room for this many draws of one set in a round.
const MAX_REPEATS: u64 = 16;
/// The most deals a sampled round may draw (per game size): the league lists every deal.
pub const MAX_SAMPLE: u64 = 100_000;
/// Seatings of one deal are numbered within this span of game indices (4! = 24).
pub const SEATING_SPAN: u64 = 24;

/// The shape of a schedule: everything in a league's config that decides which games exist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// How many bots the league lists.
    pub bots: usize,
    /// Gauntlet: the bots (by place in the list) that sit in every game; empty for a round robin.
    pub candidates: Vec<usize>,
    /// Players per game: 3, 4 or both.
    pub sizes: Vec<usize>,
    /// How many boards (the deal's `board` indexes the league's list of boards).
    pub boards: usize,
    pub rounds: u32,
    /// Deals per round and game size drawn at random (balanced) instead of every combination.
    pub sample: Option<u64>,
    pub seed: u64,
}

/// k bots on one board, to be played in every seating.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deal {
    /// Stable identity (see the module's documentation); not a count.
    pub number: u64,
    pub round: u32,
    /// Earlier draws of the same bots in this round (only a sampled round draws a set twice).
    pub repeat: u64,
    /// The bots, by their place in the league's list, ascending.
    pub bots: Vec<usize>,
    pub board: usize,
    /// Draws the deal's blocked squares and opening, and seeds its built-in bots.
    pub seed: u64,
}

impl Deal {
    /// How many seatings (k!).
    pub fn seatings(&self) -> u32 {
        factorial(self.bots.len())
    }

    /// A game's id as a person can say it and find it: the league, the round, the bots by their
    /// place in the league's list, the board, the seating (`club-r1-1.2.3.4-8x8-s05`), with
    /// `xN` after the round for a set of bots a sampled round drew again. As unique as the
    /// game's index, and as stable: nothing in it changes when bots or rounds are added.
    pub fn game_id(&self, league: &str, board: &str, seating: u32) -> String {
        let ids = self.game_ids(league, board);
        format!("{}{:02}", ids.prefix, seating + 1)
    }

    /// How the runner names the deal's games (`game_id`): the same id, made when a game is
    /// played rather than kept for every game of the schedule.
    pub fn game_ids(&self, league: &str, board: &str) -> GameIds {
        let bots: Vec<String> = self.bots.iter().map(|b| (b + 1).to_string()).collect();
        let again = match self.repeat {
            0 => String::new(),
            n => format!("x{n}"),
        };
        GameIds {
            prefix: format!(
                "{league}-r{}{again}-{}-{board}-s",
                self.round + 1,
                bots.join(".")
            ),
            number: IdNumber::Seating,
            width: 2,
        }
    }

    /// The schedule-wide index of one of the deal's games.
    pub fn game_index(&self, seating: u32) -> u64 {
        self.number * SEATING_SPAN + seating as u64
    }
}

/// n choose k, saturating.
fn choose(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    let mut r: u64 = 1;
    for i in 0..k {
        r = r.saturating_mul(n - i) / (i + 1);
    }
    r
}

/// The rank of an ascending set in colexicographic order: sets of the first m elements rank
/// before any set that contains element m, so appending bots never changes an existing rank.
pub fn colex_rank(set: &[usize]) -> u64 {
    set.iter()
        .enumerate()
        .map(|(i, &c)| choose(c as u64, i as u64 + 1))
        .sum()
}

/// Every k-subset of 0..n in colex order.
fn subsets(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    if k > n {
        return out;
    }
    let mut set: Vec<usize> = (0..k).collect();
    loop {
        out.push(set.clone());
        // Colex successor: raise the first element that can rise, reset those before it.
        let mut i = 0;
        while i < k
            && (if i + 1 < k {
                set[i] + 1 == set[i + 1]
            } else {
                set[i] + 1 == n
            })
        {
            i += 1;
        }
        if i == k {
            return out;
        }
        set[i] += 1;
        for (j, slot) in set.iter_mut().enumerate().take(i) {
            *slot = j;
        }
    }
}

impl Shape {
    /// The pool bots (every bot that is not a candidate).
    fn pool(&self) -> Vec<usize> {
        (0..self.bots)
            .filter(|b| !self.candidates.contains(b))
            .collect()
    }

    /// The bot sets of one round and game size, as (set, repeat) with repeat counting earlier
    /// draws of the same set in this round (only a sample can draw a set twice). A sample that
    /// would draw one set more often than deal numbers have room for is refused, not numbered
    /// twice.
    fn sets(&self, round: u32, k: usize) -> Result<Vec<(Vec<usize>, u64)>, String> {
        let pool = self.pool();
        let free = k.saturating_sub(self.candidates.len());
        if free == 0 || free > pool.len() {
            return Ok(Vec::new());
        }
        let with_candidates = |part: &[usize]| {
            let mut set: Vec<usize> = part.iter().map(|&i| pool[i]).collect();
            set.extend(&self.candidates);
            set.sort_unstable();
            set
        };
        let Some(deals) = self.sample else {
            return Ok(subsets(pool.len(), free)
                .iter()
                .map(|part| (with_candidates(part), 0))
                .collect());
        };
        let mut rng = Rng::new(mix(self.seed, ((round as u64) << 8) | k as u64));
        let mut count = vec![0u64; pool.len()];
        let mut draws_of: std::collections::HashMap<Vec<usize>, u64> = Default::default();
        let mut drawn: Vec<(Vec<usize>, u64)> = Vec::new();
        for _ in 0..self.balanced_sample(deals, free) {
            // The least-used pool bots first, ties broken at random: every bot ends within one
            // game of every other, and level when the sample size allows.
            let mut order: Vec<usize> = (0..pool.len()).collect();
            let keys: Vec<u64> = (0..pool.len()).map(|_| rng.next_u64()).collect();
            order.sort_by_key(|&i| (count[i], keys[i]));
            let mut part: Vec<usize> = order[..free].to_vec();
            part.sort_unstable();
            for &i in &part {
                count[i] += 1;
            }
            let set = with_candidates(&part);
            let draws = draws_of.entry(set.clone()).or_insert(0);
            let repeat = *draws;
            *draws += 1;
            if repeat >= MAX_REPEATS {
                let names: Vec<String> = set.iter().map(|b| (b + 1).to_string()).collect();
                return Err(format!(
                    "sample = {deals}: round {} would draw the bots {} ({k} players) more than \
                     {MAX_REPEATS} times, and a round draws one set of bots at most \
                     {MAX_REPEATS} times (there are {} different sets of {k} here): lower \
                     sample, or ask for more rounds instead (each round draws anew)",
                    round + 1,
                    names.join("."),
                    choose(pool.len() as u64, free as u64),
                ));
            }
            drawn.push((set, repeat));
        }
        Ok(drawn)
    }

    /// The sample size rounded up so that every pool bot plays equally often.
    pub fn balanced_sample(&self, deals: u64, free: usize) -> u64 {
        let n = self.pool().len() as u64;
        if n == 0 || free == 0 {
            return 0;
        }
        let step = n / gcd(n, free as u64);
        deals.div_ceil(step) * step
    }

    /// Every deal, in playing order: round by round, so that a league stopped early has played
    /// its bots evenly. Fails only for a sample that draws one set too often (`sets`).
    pub fn deals(&self) -> Result<Vec<Deal>, String> {
        let mut deals = Vec::new();
        for round in 0..self.rounds {
            for &k in &self.sizes {
                for (set, repeat) in self.sets(round, k)? {
                    for board in 0..self.boards {
                        let slot = round as u64 * MAX_REPEATS + repeat;
                        let number =
                            ((colex_rank(&set) * (MAX_ROUNDS as u64 * MAX_REPEATS) + slot) * 2
                                + (k == 4) as u64)
                                * MAX_BOARDS
                                + board as u64;
                        deals.push(Deal {
                            number,
                            round,
                            repeat,
                            bots: set.clone(),
                            board,
                            seed: mix(self.seed, number),
                        });
                    }
                }
            }
        }
        Ok(deals)
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Shard `i` of `n` (from 1): every n-th deal of the list, so that shards are disjoint, together
/// the whole schedule, and of nearly equal size.
pub fn shard(deals: Vec<Deal>, i: u32, n: u32) -> Vec<Deal> {
    deals
        .into_iter()
        .enumerate()
        .filter(|(p, _)| *p as u64 % n as u64 == (i - 1) as u64)
        .map(|(_, d)| d)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn shape(bots: usize) -> Shape {
        Shape {
            bots,
            candidates: vec![],
            sizes: vec![4],
            boards: 1,
            rounds: 1,
            sample: None,
            seed: 7,
        }
    }

    #[test]
    fn round_robin_is_every_subset_once() {
        let deals = shape(6).deals().unwrap();
        assert_eq!(deals.len(), 15);
        let sets: HashSet<Vec<usize>> = deals.iter().map(|d| d.bots.clone()).collect();
        assert_eq!(sets.len(), 15);
        let numbers: HashSet<u64> = deals.iter().map(|d| d.number).collect();
        assert_eq!(numbers.len(), 15);
        for b in 0..6 {
            assert_eq!(deals.iter().filter(|d| d.bots.contains(&b)).count(), 10);
        }
    }

    #[test]
    fn adding_bots_and_rounds_keeps_every_deal() {
        let before = shape(5).deals().unwrap();
        let mut grown = shape(7);
        grown.rounds = 2;
        grown.sizes = vec![3, 4];
        let mut grown_both = shape(5);
        grown_both.sizes = vec![3, 4];
        for bigger in [
            grown.deals().unwrap(),
            Shape {
                rounds: 3,
                ..shape(5)
            }
            .deals()
            .unwrap(),
        ] {
            for d in &before {
                assert!(bigger.contains(d), "{d:?} lost");
            }
        }
        // Numbers never collide across sizes, rounds and boards.
        let mut many = shape(9);
        many.sizes = vec![3, 4];
        many.rounds = 3;
        many.boards = 3;
        let deals = many.deals().unwrap();
        let numbers: HashSet<u64> = deals.iter().map(|d| d.number).collect();
        assert_eq!(numbers.len(), deals.len());
        assert_eq!(deals.len(), (84 + 126) * 3 * 3);
    }

    #[test]
    fn gauntlet_puts_candidates_in_every_game() {
        let mut s = shape(6);
        s.candidates = vec![2];
        s.sizes = vec![3, 4];
        let deals = s.deals().unwrap();
        assert_eq!(deals.len(), 10 + 10); // C(5,2) + C(5,3)
        assert!(deals.iter().all(|d| d.bots.contains(&2)));
    }

    #[test]
    fn samples_are_balanced_and_seeded() {
        let mut s = shape(10);
        s.sample = Some(12); // rounded up to 15: 15 * 4 = 60 = 6 games for each of 10 bots
        s.rounds = 2;
        let deals = s.deals().unwrap();
        assert_eq!(deals.len(), 30);
        for b in 0..10 {
            let n = deals
                .iter()
                .filter(|d| d.round == 0 && d.bots.contains(&b))
                .count();
            assert_eq!(n, 6);
        }
        assert_eq!(deals, s.deals().unwrap());
        s.seed = 8;
        assert_ne!(deals, s.deals().unwrap());
        let numbers: HashSet<u64> = deals.iter().map(|d| d.number).collect();
        assert_eq!(numbers.len(), deals.len());
    }

    #[test]
    fn a_sample_that_would_draw_one_set_too_often_is_refused_not_numbered_twice() {
        // Four bots, four players: one set, drawn at every deal of the sample.
        let mut s = shape(4);
        s.sample = Some(MAX_REPEATS);
        let deals = s.deals().unwrap();
        let numbers: HashSet<u64> = deals.iter().map(|d| d.number).collect();
        assert_eq!(numbers.len(), MAX_REPEATS as usize);
        s.sample = Some(MAX_REPEATS + 1);
        let e = s.deals().unwrap_err();
        assert!(
            e.contains("would draw the bots 1.2.3.4 (4 players) more than 16"),
            "{e}"
        );
        // The largest sample allowed, among enough bots, is drawn (once quadratic, it hung).
        let mut big = shape(64);
        big.sample = Some(MAX_SAMPLE);
        assert_eq!(big.deals().unwrap().len(), MAX_SAMPLE as usize);
    }

    #[test]
    fn shards_are_disjoint_and_complete() {
        let all = shape(8).deals().unwrap();
        let mut seen = Vec::new();
        for i in 1..=3 {
            let part = shard(all.clone(), i, 3);
            assert!(part.len() >= all.len() / 3);
            seen.extend(part);
        }
        seen.sort_by_key(|d| d.number);
        let mut sorted = all.clone();
        sorted.sort_by_key(|d| d.number);
        assert_eq!(seen, sorted);
    }

    #[test]
    fn colex_subsets() {
        let sets = subsets(5, 3);
        assert_eq!(sets.len(), 10);
        for (i, s) in sets.iter().enumerate() {
            assert_eq!(colex_rank(s), i as u64);
        }
    }
}

#[cfg(test)]
mod id_tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn game_ids_are_readable_and_unique_even_when_a_sample_draws_a_set_again() {
        let shape = Shape {
            bots: 5,
            candidates: vec![],
            sizes: vec![3, 4],
            boards: 2,
            rounds: 3,
            sample: Some(40),
            seed: 11,
        };
        let boards = ["8x8", "10x10"];
        let deals = shape.deals().unwrap();
        assert!(
            deals.iter().any(|d| d.repeat > 0),
            "the sample draws some set twice"
        );
        let mut ids = HashSet::new();
        for d in &deals {
            for s in 0..d.seatings() {
                assert!(ids.insert(d.game_id("club", boards[d.board], s)));
            }
        }
        let d = Deal {
            number: 0,
            round: 0,
            repeat: 0,
            bots: vec![0, 1, 2, 3],
            board: 0,
            seed: 0,
        };
        assert_eq!(d.game_id("club", "8x8", 4), "club-r1-1.2.3.4-8x8-s05");
        let again = Deal {
            repeat: 2,
            round: 1,
            ..d
        };
        assert_eq!(
            again.game_id("club", "octagon", 0),
            "club-r2x2-1.2.3.4-octagon-s01"
        );
    }
}
