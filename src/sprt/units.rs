//! Scores: the candidate's head-to-head result against the baseline in one game, and the counts
//! of unit scores the test works from.
//!
//! A game scores 1 when the candidate finishes above the baseline, ½ when they share a place, 0
//! below; a unit of g games scores the mean of its games. Scores are kept in **half points**
//! (2, 1, 0 per game) so that they are exact integers: a unit's half points run from 0 to 2g and
//! its score is h / (2g). For a twin pair (g = 2) the five values 0, ¼, ½, ¾, 1 are the
//! pentanomial counts of fishtest and fastchess; for single games (g = 1) the trinomial ones.

use super::estimate::{self, EloEstimate};
use super::gsprt;
use crate::rules::Seat;

/// The candidate's result against the baseline in one game, in half points: 2 if the candidate's
/// place in `ranking` (groups of seats, best first, as `GameRecord::ranking`) is better, 1 if they
/// share a place, 0 if it is worse. Under the Plackett–Luce model the chance of 2 is
/// γc / (γc + γb) whoever else is at the table. None if either seat is not in the ranking.
pub fn head_to_head(ranking: &[Vec<Seat>], candidate: Seat, baseline: Seat) -> Option<u32> {
    let place = |seat: Seat| ranking.iter().position(|group| group.contains(&seat));
    let (c, b) = (place(candidate)?, place(baseline)?);
    Some(match c.cmp(&b) {
        std::cmp::Ordering::Less => 2,
        std::cmp::Ordering::Equal => 1,
        std::cmp::Ordering::Greater => 0,
    })
}

/// The mass mixed into every value of the lattice that no unit has scored, as fishtest and
/// fastchess do: it keeps s0 and s1 inside the range of the values seen, so that the LLR exists
/// from the first unit on, and weighs nothing once a few units are in.
pub const PRIOR: f64 = 1e-3;

/// How many units scored each value of the lattice 0, 1/(2g), …, 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitCounts {
    games_per_unit: u32,
    /// `counts[h]`: units with h half points.
    counts: Vec<u64>,
}

impl UnitCounts {
    /// Counts for units of `games_per_unit` games (at least 1).
    pub fn new(games_per_unit: u32) -> UnitCounts {
        let g = games_per_unit.max(1);
        UnitCounts {
            games_per_unit: g,
            counts: vec![0; 2 * g as usize + 1],
        }
    }

    pub fn games_per_unit(&self) -> u32 {
        self.games_per_unit
    }

    /// Adds a unit that scored `half_points` (0 to 2g; more is clamped to 2g).
    pub fn add(&mut self, half_points: u32) {
        let h = half_points.min(2 * self.games_per_unit) as usize;
        self.counts[h] += 1;
    }

    /// `counts()[h]`: the units that scored `value(h)`. For twin pairs: the pentanomial counts of
    /// pair scores 0, ¼, ½, ¾, 1.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// The score of h half points.
    pub fn value(&self, h: usize) -> f64 {
        h as f64 / (2 * self.games_per_unit) as f64
    }

    pub fn units(&self) -> u64 {
        self.counts.iter().sum()
    }

    pub fn games(&self) -> u64 {
        self.units() * self.games_per_unit as u64
    }

    /// (value, count) for every value of the lattice, as observed.
    pub fn observed(&self) -> Vec<(f64, f64)> {
        (0..self.counts.len())
            .map(|h| (self.value(h), self.counts[h] as f64))
            .collect()
    }

    /// (value, count) with `PRIOR` in place of every zero count: what the LLR is computed from.
    pub fn regularized(&self) -> Vec<(f64, f64)> {
        self.observed()
            .into_iter()
            .map(|(a, c)| (a, if c == 0.0 { PRIOR } else { c }))
            .collect()
    }

    /// The mean unit score (None without units).
    pub fn mean(&self) -> Option<f64> {
        let (n, mean, _) = gsprt::moments(&self.observed());
        (n > 0.0).then_some(mean)
    }

    /// The sample variance of the unit scores, divided by n − 1 (None below two units).
    pub fn sample_variance(&self) -> Option<f64> {
        let (n, _, variance) = gsprt::moments(&self.observed());
        (n >= 2.0).then(|| variance * n / (n - 1.0))
    }

    /// The GSPRT log-likelihood ratio of s1 against s0 (`gsprt::llr` on the regularized counts).
    /// 0 without units. With s0 and s1 strictly between 0 and 1, as `Hypotheses` guarantees, the
    /// regularized counts always have values on both sides of them.
    pub fn llr(&self, s0: f64, s1: f64) -> f64 {
        if self.units() == 0 {
            return 0.0;
        }
        gsprt::llr(&self.regularized(), s0, s1).unwrap_or(0.0)
    }

    /// The candidate's Elo advantage with its 95% interval.
    pub fn elo(&self) -> Option<EloEstimate> {
        estimate::elo_estimate(self.mean()?, self.sample_variance()?, self.units())
    }

    /// The likelihood that the candidate is the stronger.
    pub fn likelihood_of_superiority(&self) -> Option<f64> {
        estimate::likelihood_of_superiority(self.mean()?, self.sample_variance()?, self.units())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_to_head_reads_places_from_the_ranking() {
        // Seat 2 first, seats 0 and 3 share second, seat 1 last.
        let ranking = vec![vec![2], vec![0, 3], vec![1]];
        assert_eq!(head_to_head(&ranking, 2, 0), Some(2));
        assert_eq!(head_to_head(&ranking, 0, 2), Some(0));
        assert_eq!(head_to_head(&ranking, 0, 3), Some(1));
        assert_eq!(head_to_head(&ranking, 3, 1), Some(2));
        assert_eq!(head_to_head(&ranking, 1, 3), Some(0));
        assert_eq!(head_to_head(&ranking, 1, 4), None);
    }

    #[test]
    fn pairs_give_pentanomial_counts() {
        let mut c = UnitCounts::new(2);
        // Win + win, win + loss, draw + loss, loss + loss, win + draw.
        for h in [4, 2, 1, 0, 3, 2] {
            c.add(h);
        }
        assert_eq!(c.counts(), &[1, 1, 2, 1, 1]);
        assert_eq!(
            c.observed().iter().map(|&(a, _)| a).collect::<Vec<_>>(),
            vec![0.0, 0.25, 0.5, 0.75, 1.0]
        );
        assert_eq!(c.units(), 6);
        assert_eq!(c.games(), 12);
        assert_eq!(c.mean(), Some(0.5));
        // Deviations −½, −¼, 0, 0, ¼, ½: squares sum to 0.625, over n − 1 = 5.
        assert!((c.sample_variance().unwrap() - 0.125).abs() < 1e-12);
    }

    #[test]
    fn the_prior_fills_only_empty_values() {
        let mut c = UnitCounts::new(1);
        c.add(2);
        c.add(2);
        assert_eq!(
            c.regularized(),
            vec![(0.0, PRIOR), (0.5, PRIOR), (1.0, 2.0)]
        );
        // Two wins already favour H1 but are far from deciding anything.
        let (s0, s1) = (0.5, gsprt::score_of_elo(10.0));
        let llr = c.llr(s0, s1);
        assert!(llr > 0.0 && llr < 0.2, "{llr}");
        assert_eq!(UnitCounts::new(2).llr(s0, s1), 0.0);
        // Clamped: a unit cannot score more than all its games won.
        c.add(7);
        assert_eq!(c.counts(), &[0, 0, 3]);
    }

    #[test]
    fn the_llr_grows_with_evidence() {
        let (s0, s1) = (0.5, gsprt::score_of_elo(20.0));
        let mut c = UnitCounts::new(2);
        let pattern = [4, 3, 2, 2, 1, 3, 2, 4, 0, 3];
        let mut last = 0.0;
        for round in 0..50 {
            for &h in &pattern {
                c.add(h);
            }
            // The pattern's mean is 0.6: every round adds evidence for H1.
            let llr = c.llr(s0, s1);
            assert!(round == 0 || llr > last, "{round}: {llr} after {last}");
            last = llr;
        }
        assert!(last > 10.0);
        let e = c.elo().unwrap();
        assert!((e.elo - gsprt::elo_of_score(0.6)).abs() < 1e-9);
        assert!(e.low < e.elo && e.elo < e.high);
        assert!(c.likelihood_of_superiority().unwrap() > 0.999);
    }
}
