//! The generalized sequential probability ratio test on an empirical distribution of unit scores.
//!
//! **What is tested.** Each independent unit (a twin pair, or a whole deal of pairs: see
//! `super`) has a score in [0, 1], its mean of the candidate's head-to-head results against the
//! baseline. The units' scores are draws from an unknown discrete distribution on a known
//! lattice of values; the test is about its expectation s: H0: s = s0 against H1: s = s1, where
//! sᵢ = 1/(1 + 10^(−eloᵢ/400)) is the expected score of a rating difference on the Elo-like scale
//! the standings print.
//!
//! **The statistic** is the generalized log-likelihood ratio (GSPRT): the likelihood of the
//! observed units under the most likely distribution on the same values whose mean is s1, over
//! that under the most likely one whose mean is s0. Given the empirical distribution p̂ on values
//! aᵢ, the most likely distribution with mean s is pᵢ = p̂ᵢ / (1 + θ(aᵢ − s)), where the Lagrange
//! multiplier θ is the root of Σ p̂ᵢ (aᵢ − s) / (1 + θ(aᵢ − s)) = 0 (Van den Bergh, "Comments on
//! Normalized Elo", Proposition 1.1; the same computation fishtest's `LLR_logistic` and
//! fastchess's `getLLR_logistic` make for trinomial and pentanomial counts). The LLR of N units is
//! then N · Σ p̂ᵢ ln(p1ᵢ / p0ᵢ). It needs no model of draws or of the shape of the distribution,
//! and it uses the units' actual variance, which is what pairing makes smaller.
//!
//! **Stopping** (Wald): accept H1 once LLR ≥ ln((1 − β)/α), accept H0 once LLR ≤ ln(β/(1 − α)),
//! else play on. The error rates are then at most about α (accepting H1 when s = s0) and β
//! (accepting H0 when s = s1); checking after every unit overshoots the bounds a little, which
//! only makes them smaller.

use std::fmt;

/// The expected score of a rating difference on the Elo-like scale: 1/(1 + 10^(−elo/400)).
/// Under the Plackett–Luce model it is the probability that the better-rated bot finishes above
/// the other in one game, whatever the other seats hold.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The rating difference whose expected score is `score` (0 < score < 1): −400·log₁₀(1/s − 1).
pub fn elo_of_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The largest |elo0|, |elo1| accepted: beyond it a score is too close to 0 or 1 for a test to
/// mean anything (1000 points are odds of 316 to 1).
pub const MAX_ELO: f64 = 1000.0;

/// The two hypotheses and the error rates asked for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hypotheses {
    /// H0: the candidate is this much stronger than the baseline (often 0).
    pub elo0: f64,
    /// H1: the candidate is this much stronger; elo1 > elo0.
    pub elo1: f64,
    /// The accepted chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The accepted chance of accepting H0 when H1 holds.
    pub beta: f64,
}

/// Why hypotheses cannot be tested; the message names the value.
#[derive(Clone, Debug, PartialEq)]
pub enum HypothesesError {
    /// elo0 or elo1 is not a number, or beyond ±`MAX_ELO`.
    Elo { name: &'static str, value: f64 },
    /// elo0 is not below elo1.
    Order { elo0: f64, elo1: f64 },
    /// alpha or beta is not strictly between 0 and 1.
    Rate { name: &'static str, value: f64 },
    /// alpha + beta ≥ 1 leaves no room between the bounds.
    RatesTooLarge { alpha: f64, beta: f64 },
}

impl fmt::Display for HypothesesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HypothesesError::Elo { name, value } => write!(
                f,
                "{name} = {value} is not a rating difference between -{MAX_ELO} and {MAX_ELO}"
            ),
            HypothesesError::Order { elo0, elo1 } => {
                write!(f, "elo0 = {elo0} must be below elo1 = {elo1}")
            }
            HypothesesError::Rate { name, value } => {
                write!(f, "{name} = {value} must be between 0 and 1 (exclusive)")
            }
            HypothesesError::RatesTooLarge { alpha, beta } => {
                write!(
                    f,
                    "alpha + beta must be below 1 (they add up to {})",
                    alpha + beta
                )
            }
        }
    }
}

impl std::error::Error for HypothesesError {}

impl Hypotheses {
    /// Checked hypotheses.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Hypotheses, HypothesesError> {
        for (name, value) in [("elo0", elo0), ("elo1", elo1)] {
            if !(value.is_finite() && value.abs() <= MAX_ELO) {
                return Err(HypothesesError::Elo { name, value });
            }
        }
        if elo0 >= elo1 {
            return Err(HypothesesError::Order { elo0, elo1 });
        }
        for (name, value) in [("alpha", alpha), ("beta", beta)] {
            // `!(0 < v < 1)` also refuses NaN.
            if !(value > 0.0 && value < 1.0) {
                return Err(HypothesesError::Rate { name, value });
            }
        }
        if alpha + beta >= 1.0 {
            return Err(HypothesesError::RatesTooLarge { alpha, beta });
        }
        Ok(Hypotheses {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The expected scores (s0, s1) of the two hypotheses.
    pub fn scores(&self) -> (f64, f64) {
        (score_of_elo(self.elo0), score_of_elo(self.elo1))
    }

    /// Wald's bounds for the LLR.
    pub fn bounds(&self) -> Bounds {
        Bounds {
            lower: (self.beta / (1.0 - self.alpha)).ln(),
            upper: ((1.0 - self.beta) / self.alpha).ln(),
        }
    }
}

/// Where the LLR stops the test: at or below `lower` H0 is accepted, at or above `upper` H1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub lower: f64,
    pub upper: f64,
}

impl Bounds {
    /// What an LLR says.
    pub fn verdict(&self, llr: f64) -> Verdict {
        if llr >= self.upper {
            Verdict::AcceptH1
        } else if llr <= self.lower {
            Verdict::AcceptH0
        } else {
            Verdict::Continue
        }
    }
}

/// The state of a sequential test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The candidate is better by elo1 rather than elo0: the new version passes.
    AcceptH1,
    /// The candidate is better by no more than elo0: the new version fails.
    AcceptH0,
    /// Not enough evidence either way yet: play more units.
    Continue,
}

impl Verdict {
    /// For people: `H1 accepted`, `H0 accepted`, `continue`.
    pub fn describe(&self) -> &'static str {
        match self {
            Verdict::AcceptH1 => "H1 accepted",
            Verdict::AcceptH0 => "H0 accepted",
            Verdict::Continue => "continue",
        }
    }
}

/// The Lagrange multiplier θ of the most likely distribution with mean `s` on the values of an
/// empirical distribution: the root of f(θ) = Σ wᵢ (aᵢ − s) / (1 + θ(aᵢ − s)) in the interval
/// where every 1 + θ(aᵢ − s) is positive. `pdf` holds (value, weight) pairs; weights need not add
/// up to 1 and values of weight 0 are ignored.
///
/// None when no such distribution exists: `s` is not strictly between the smallest and the
/// largest value of positive weight.
///
/// f falls strictly from +∞ to −∞ over that interval (its derivative is −Σ wᵢ dᵢ²/(1 + θdᵢ)²), so
/// the root is unique; Newton steps from θ = 0 (the root when the empirical mean is s), kept
/// inside a shrinking bracket by bisection, find it to machine precision.
pub fn mle_multiplier(pdf: &[(f64, f64)], s: f64) -> Option<f64> {
    let support = || pdf.iter().filter(|&&(_, w)| w > 0.0);
    let d_max = support()
        .map(|&(a, _)| a - s)
        .fold(f64::NEG_INFINITY, f64::max);
    let d_min = support().map(|&(a, _)| a - s).fold(f64::INFINITY, f64::min);
    if !(d_max > 0.0 && d_min < 0.0) {
        return None;
    }
    let (mut lo, mut hi) = (-1.0 / d_max, -1.0 / d_min);
    let mut theta = 0.0f64;
    for _ in 0..200 {
        let (mut f, mut df) = (0.0, 0.0);
        for &(a, w) in support() {
            let d = a - s;
            let q = 1.0 / (1.0 + theta * d);
            f += w * d * q;
            df -= w * d * d * q * q;
        }
        if f == 0.0 {
            return Some(theta);
        }
        if f > 0.0 {
            lo = theta;
        } else {
            hi = theta;
        }
        let newton = theta - f / df;
        let next = if newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if (next - theta).abs() <= 1e-15 * (1.0 + theta.abs()) {
            return Some(next);
        }
        theta = next;
    }
    Some(theta)
}

/// The generalized log-likelihood ratio of H1 (mean `s1`) against H0 (mean `s0`) for units whose
/// scores are distributed as `pdf`, (value, count) pairs: N · Σ p̂ᵢ ln(p1ᵢ / p0ᵢ) with N the total
/// count, pᵢ = p̂ᵢ/(1 + θ(aᵢ − s)) and θ from `mle_multiplier`. None when s0 or s1 is not strictly
/// inside the range of the values observed (`UnitCounts` mixes in a small prior so that it
/// always is).
pub fn llr(pdf: &[(f64, f64)], s0: f64, s1: f64) -> Option<f64> {
    let theta0 = mle_multiplier(pdf, s0)?;
    let theta1 = mle_multiplier(pdf, s1)?;
    Some(
        pdf.iter()
            .filter(|&&(_, w)| w > 0.0)
            .map(|&(a, w)| w * ((theta0 * (a - s0)).ln_1p() - (theta1 * (a - s1)).ln_1p()))
            .sum(),
    )
}

/// The well-known normal approximation of the same LLR, for comparison:
/// N · (s1 − s0)(2x̄ − s0 − s1) / (2σ²), with x̄ and σ² the mean and variance (divided by N) of
/// the units' scores. It is what a Brownian motion with the units' drift and variance would give,
/// and agrees with the exact LLR when s0, s1 and x̄ are close together (Van den Bergh, "A
/// quadratic approximation of the GSPRT"). None for fewer than one unit or zero variance.
pub fn llr_normal_approximation(pdf: &[(f64, f64)], s0: f64, s1: f64) -> Option<f64> {
    let (n, mean, variance) = moments(pdf);
    (n > 0.0 && variance > 0.0).then(|| n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance))
}

/// Total weight, mean and variance (divided by the total weight) of a weighted distribution.
pub fn moments(pdf: &[(f64, f64)]) -> (f64, f64, f64) {
    let n: f64 = pdf.iter().map(|&(_, w)| w).sum();
    if n <= 0.0 {
        return (0.0, 0.0, 0.0);
    }
    let mean = pdf.iter().map(|&(a, w)| a * w).sum::<f64>() / n;
    let variance = pdf
        .iter()
        .map(|&(a, w)| w * (a - mean).powi(2))
        .sum::<f64>()
        / n;
    (n, mean, variance)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn scores_and_elo_are_inverse_on_the_elo_like_scale() {
        assert_eq!(score_of_elo(0.0), 0.5);
        // 400 points: odds of 10 to 1.
        assert!(close(score_of_elo(400.0), 10.0 / 11.0, 1e-15));
        assert!(close(score_of_elo(-400.0), 1.0 / 11.0, 1e-15));
        for elo in [-700.0, -35.5, 0.0, 5.0, 120.0, 999.0] {
            assert!(close(elo_of_score(score_of_elo(elo)), elo, 1e-9), "{elo}");
        }
    }

    #[test]
    fn bounds_are_walds() {
        let h = Hypotheses::new(0.0, 10.0, 0.05, 0.05).unwrap();
        let b = h.bounds();
        // ln(0.05/0.95) = −ln 19.
        assert!(close(b.lower, -(19f64.ln()), 1e-12));
        assert!(close(b.upper, 19f64.ln(), 1e-12));
        assert!(close(b.upper, 2.944438979, 1e-9));
        let h = Hypotheses::new(-5.0, 5.0, 0.01, 0.1).unwrap();
        let b = h.bounds();
        assert!(close(b.lower, (0.1f64 / 0.99).ln(), 1e-12));
        assert!(close(b.upper, 90f64.ln(), 1e-12));
        assert_eq!(b.verdict(b.upper), Verdict::AcceptH1);
        assert_eq!(b.verdict(b.lower), Verdict::AcceptH0);
        assert_eq!(b.verdict(0.0), Verdict::Continue);
        // ln 90 = 4.49981, ln(0.1/0.99) = −2.29253.
        assert_eq!(b.verdict(4.4998), Verdict::Continue);
        assert_eq!(b.verdict(4.5), Verdict::AcceptH1);
        assert_eq!(b.verdict(-2.2925), Verdict::Continue);
        assert_eq!(b.verdict(-2.2926), Verdict::AcceptH0);
    }

    #[test]
    fn bad_hypotheses_are_refused_with_the_value() {
        let e = Hypotheses::new(5.0, 5.0, 0.05, 0.05).unwrap_err();
        assert_eq!(e.to_string(), "elo0 = 5 must be below elo1 = 5");
        assert!(matches!(
            Hypotheses::new(f64::NAN, 5.0, 0.05, 0.05),
            Err(HypothesesError::Elo { name: "elo0", .. })
        ));
        assert!(matches!(
            Hypotheses::new(0.0, 2000.0, 0.05, 0.05),
            Err(HypothesesError::Elo { name: "elo1", .. })
        ));
        assert!(matches!(
            Hypotheses::new(0.0, 5.0, 0.0, 0.05),
            Err(HypothesesError::Rate { name: "alpha", .. })
        ));
        assert!(matches!(
            Hypotheses::new(0.0, 5.0, 0.05, f64::NAN),
            Err(HypothesesError::Rate { name: "beta", .. })
        ));
        assert_eq!(
            Hypotheses::new(0.0, 5.0, 0.5, 0.5).unwrap_err().to_string(),
            "alpha + beta must be below 1 (they add up to 1)"
        );
    }

    #[test]
    fn two_values_give_the_classical_binomial_sprt() {
        // On values {0, 1} only, the distribution with mean s is Bernoulli(s) itself, so the LLR
        // is Wald's: W ln(s1/s0) + L ln((1 − s1)/(1 − s0)).
        let (w, l) = (37.0f64, 23.0f64);
        let (s0, s1) = (0.5f64, 0.6f64);
        let pdf = [(0.0, l), (1.0, w)];
        let expected = w * (s1 / s0).ln() + l * ((1.0 - s1) / (1.0 - s0)).ln();
        assert!(close(llr(&pdf, s0, s1).unwrap(), expected, 1e-10));
        // A hand-checked number: 37 ln 1.2 + 23 ln 0.8 = 6.745898 − 5.132302.
        assert!(close(expected, 1.613596, 1e-6));
    }

    /// The root of Σ pᵢdᵢ/(1 + θdᵢ) = 0 for three values, from the quadratic the equation becomes
    /// once multiplied by the three denominators: A + Bθ + Cθ² = 0 with A = Σ pᵢdᵢ,
    /// B = Σ pᵢdᵢ(Σ_{j≠i} dⱼ), C = Σ pᵢdᵢ Π_{j≠i} dⱼ; the root inside the allowed interval.
    fn three_value_multiplier(values: [f64; 3], p: [f64; 3], s: f64) -> f64 {
        let d: Vec<f64> = values.iter().map(|a| a - s).collect();
        let sum: f64 = d.iter().sum();
        let a: f64 = (0..3).map(|i| p[i] * d[i]).sum();
        let b: f64 = (0..3).map(|i| p[i] * d[i] * (sum - d[i])).sum();
        let c: f64 = (0..3)
            .map(|i| p[i] * d[i] * (0..3).filter(|&j| j != i).map(|j| d[j]).product::<f64>())
            .sum();
        let (lo, hi) = (-1.0 / d[2], -1.0 / d[0]);
        if c.abs() < 1e-15 {
            // s on the middle value: the equation is linear.
            return -a / b;
        }
        let root = (b * b - 4.0 * a * c).sqrt();
        [(-b + root) / (2.0 * c), (-b - root) / (2.0 * c)]
            .into_iter()
            .find(|&t| t > lo && t < hi)
            .unwrap()
    }

    #[test]
    fn three_values_match_the_closed_form_root() {
        // Losses, draws, wins 1 : 2 : 1 (mean ½), s0 = ½, s1 = 0.6. By hand: the quadratic is
        // 0.024θ² − 0.105θ − 0.1 = 0, whose root in (−2.5, 5/3) is (0.105 − √0.020625)/0.048
        // = −0.804460; θ0 = 0 since the mean is s0; the LLR per unit is
        // −Σ p̂ ln(1 + θ1(a − 0.6)) = −0.040077.
        let values = [0.0, 0.5, 1.0];
        let p = [0.25, 0.5, 0.25];
        let pdf: Vec<(f64, f64)> = values.iter().zip(p).map(|(&a, w)| (a, w)).collect();
        let theta1 = mle_multiplier(&pdf, 0.6).unwrap();
        assert!(close(theta1, (0.105 - 0.020625f64.sqrt()) / 0.048, 1e-12));
        assert!(close(theta1, -0.804460, 1e-6));
        assert_eq!(mle_multiplier(&pdf, 0.5), Some(0.0));
        let per_unit = llr(&pdf, 0.5, 0.6).unwrap();
        assert!(close(per_unit, -0.040077, 1e-6), "{per_unit}");
        // 400 units: 400 times as much.
        let counts: Vec<(f64, f64)> = values
            .iter()
            .zip([100.0, 200.0, 100.0])
            .map(|(&a, w)| (a, w))
            .collect();
        assert!(close(
            llr(&counts, 0.5, 0.6).unwrap(),
            400.0 * per_unit,
            1e-9
        ));

        // Skewed counts and both hypotheses away from the mean: against the quadratic's roots.
        let values = [0.0, 0.5, 1.0];
        let p = [0.2, 0.35, 0.45];
        let pdf: Vec<(f64, f64)> = values.iter().zip(p).map(|(&a, w)| (a, w)).collect();
        for s in [0.3, 0.5, 0.62, 0.9] {
            let t = mle_multiplier(&pdf, s).unwrap();
            assert!(close(t, three_value_multiplier(values, p, s), 1e-10), "{s}");
            // The tilted distribution sums to 1 and has mean s.
            let tilted: Vec<f64> = (0..3).map(|i| p[i] / (1.0 + t * (values[i] - s))).collect();
            assert!(close(tilted.iter().sum(), 1.0, 1e-12));
            assert!(close((0..3).map(|i| tilted[i] * values[i]).sum(), s, 1e-12));
        }
        let (s0, s1) = (0.55, 0.6);
        let (t0, t1) = (
            three_value_multiplier(values, p, s0),
            three_value_multiplier(values, p, s1),
        );
        let expected: f64 = (0..3)
            .map(|i| {
                p[i] * ((1.0 + t0 * (values[i] - s0)).ln() - (1.0 + t1 * (values[i] - s1)).ln())
            })
            .sum();
        assert!(close(llr(&pdf, s0, s1).unwrap(), expected, 1e-12));
    }

    #[test]
    fn the_exact_llr_approaches_the_normal_approximation_on_large_samples() {
        // 20,000 pentanomial pairs, elo0 = 0, elo1 = 5, a true score near the middle.
        let values = [0.0, 0.25, 0.5, 0.75, 1.0];
        let (s0, s1) = (score_of_elo(0.0), score_of_elo(5.0));
        for counts in [
            [1200.0, 4600.0, 8300.0, 4700.0, 1200.0],
            [900.0, 4000.0, 9800.0, 4300.0, 1000.0],
            [2100.0, 3900.0, 7900.0, 4000.0, 2100.0],
        ] {
            let pdf: Vec<(f64, f64)> = values.iter().zip(counts).map(|(&a, w)| (a, w)).collect();
            let exact = llr(&pdf, s0, s1).unwrap();
            let approx = llr_normal_approximation(&pdf, s0, s1).unwrap();
            assert!(
                (exact - approx).abs() < 0.01 * approx.abs().max(1.0),
                "exact {exact}, approximation {approx}"
            );
        }
        // Far apart hypotheses on few units: the two differ, the exact one is the likelihood.
        let pdf = [(0.0, 3.0), (0.5, 2.0), (1.0, 5.0)];
        let (exact, approx) = (
            llr(&pdf, 0.4, 0.8).unwrap(),
            llr_normal_approximation(&pdf, 0.4, 0.8).unwrap(),
        );
        assert!((exact - approx).abs() > 0.05, "{exact} {approx}");
    }

    #[test]
    fn llr_symmetries() {
        let pdf = [
            (0.0, 4.0),
            (0.25, 9.0),
            (0.5, 20.0),
            (0.75, 13.0),
            (1.0, 6.0),
        ];
        let (s0, s1) = (0.5, 0.54);
        let forward = llr(&pdf, s0, s1).unwrap();
        // Swapping the hypotheses flips the sign.
        assert!(close(llr(&pdf, s1, s0).unwrap(), -forward, 1e-12));
        // Mirroring every score (a → 1 − a) and both hypotheses gives the same ratio.
        let mirrored: Vec<(f64, f64)> = pdf.iter().map(|&(a, w)| (1.0 - a, w)).collect();
        assert!(close(
            llr(&mirrored, 1.0 - s0, 1.0 - s1).unwrap(),
            forward,
            1e-12
        ));
        // Equal hypotheses: nothing to tell apart.
        assert!(close(llr(&pdf, 0.52, 0.52).unwrap(), 0.0, 1e-12));
        // An empirical mean at s1 favours H1, at s0 favours H0.
        // The mean, 28/52 = 0.538, is past the midpoint of s0 and s1.
        assert!(forward > 0.0);
        let centred = [(0.0, 1.0), (0.5, 2.0), (1.0, 1.0)];
        assert!(llr(&centred, 0.5, 0.55).unwrap() < 0.0);
    }

    #[test]
    fn no_multiplier_outside_the_observed_range() {
        let pdf = [(0.5, 3.0), (1.0, 2.0), (0.0, 0.0)];
        // The value 0 has no weight, so 0.5 is the smallest value observed.
        assert_eq!(mle_multiplier(&pdf, 0.5), None);
        assert_eq!(mle_multiplier(&pdf, 0.4), None);
        assert!(mle_multiplier(&pdf, 0.6).is_some());
        assert_eq!(llr(&pdf, 0.4, 0.6), None);
        assert_eq!(llr_normal_approximation(&[(0.5, 3.0)], 0.4, 0.6), None);
    }

    #[test]
    fn the_multiplier_is_found_near_the_edge_of_its_interval() {
        // Nearly every unit at 1 and s far below: θ close to its upper limit.
        let pdf = [(0.0, 0.001), (0.5, 0.001), (1.0, 500.0)];
        for s in [0.05, 0.5, 0.95, 0.999] {
            let t = mle_multiplier(&pdf, s).unwrap();
            let f: f64 = pdf
                .iter()
                .map(|&(a, w)| w * (a - s) / (1.0 + t * (a - s)))
                .sum();
            assert!(f.abs() < 1e-6, "s {s}: θ {t}, f {f}");
            assert!(pdf.iter().all(|&(a, _)| 1.0 + t * (a - s) > 0.0));
        }
    }
}
