//! What the units say about the rating difference, besides the test: an Elo estimate with a 95%
//! interval and the likelihood of superiority. Both come from the units' mean score and its
//! standard error, the units being independent by construction (see `super`); neither is the
//! test's decision, which is the LLR's alone.

use super::gsprt::elo_of_score;
use std::f64::consts::LN_10;

/// The 97.5% quantile of the standard normal distribution: a 95% interval is ±1.96 standard
/// errors.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// A rating difference with its 95% interval, on the Elo-like scale the standings print.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct EloEstimate {
    pub elo: f64,
    pub low: f64,
    pub high: f64,
}

/// The Elo difference of a mean score over `n` units whose scores have sample variance
/// `variance` (divided by n − 1), with a 95% interval from the delta method: the mean's standard
/// error √(variance/n) times the slope of the Elo curve at the mean,
/// d elo/d s = 400 / (ln 10 · s(1 − s)).
///
/// None for fewer than two units, for a mean of 0 or 1, where the difference is infinite, and
/// while every unit has scored the same (no variance yet: an interval of width 0 would claim a
/// certainty that two equal pairs do not give).
pub fn elo_estimate(mean: f64, variance: f64, n: u64) -> Option<EloEstimate> {
    if n < 2 || !(mean > 0.0 && mean < 1.0) || variance <= 0.0 {
        return None;
    }
    // + 0.0 turns a −0 (a mean of exactly ½) into 0.
    let elo = elo_of_score(mean) + 0.0;
    let slope = 400.0 / (LN_10 * mean * (1.0 - mean));
    let half = Z_95 * (variance / n as f64).sqrt() * slope;
    Some(EloEstimate {
        elo,
        low: elo - half,
        high: elo + half,
    })
}

/// The likelihood of superiority: the chance that the candidate's true expected score is above
/// ½ (it is the stronger), Φ((x̄ − ½) / √(variance/n)) in the normal approximation of the mean.
/// None for fewer than two units. Zero variance puts all the weight on the mean: 1, 0, or ½.
pub fn likelihood_of_superiority(mean: f64, variance: f64, n: u64) -> Option<f64> {
    if n < 2 {
        return None;
    }
    let error = (variance / n as f64).sqrt();
    if error == 0.0 {
        return Some(match mean.partial_cmp(&0.5) {
            Some(std::cmp::Ordering::Greater) => 1.0,
            Some(std::cmp::Ordering::Less) => 0.0,
            _ => 0.5,
        });
    }
    Some(normal_cdf((mean - 0.5) / error))
}

/// The standard normal distribution function, Φ(x) = ½ erfc(−x/√2).
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The complementary error function, by the Chebyshev fit of Numerical Recipes (`erfcc`): a
/// relative error below 1.2·10⁻⁷ everywhere, plenty for a percentage, and no dependency.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_cdf_matches_tabulated_values() {
        // The fit is good to about 1e-7.
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(Z_95) - 0.975).abs() < 1e-7);
        assert!((normal_cdf(-1.0) - 0.158_655_253_9).abs() < 1e-7);
        assert!((normal_cdf(1.644_853_6) - 0.95).abs() < 1e-7);
        assert!((normal_cdf(3.0) - 0.998_650_101_97).abs() < 1e-7);
        assert!(normal_cdf(-40.0) >= 0.0 && normal_cdf(-40.0) < 1e-12);
        assert!((normal_cdf(40.0) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_interval_is_the_delta_method_by_hand() {
        // Mean 0.6 over 100 units of sample variance 0.04: standard error 0.02; the slope of the
        // Elo curve at 0.6 is 400 / (ln 10 · 0.24) = 723.8241; the estimate is
        // −400·log₁₀(2/3) = 70.4365 ± 1.96 · 0.02 · 723.8241 = ± 28.3731.
        let e = elo_estimate(0.6, 0.04, 100).unwrap();
        assert!((e.elo - 70.4365).abs() < 1e-4, "{e:?}");
        assert!((e.high - e.elo - 28.3731).abs() < 1e-3, "{e:?}");
        assert!((e.elo - e.low - 28.3731).abs() < 1e-3, "{e:?}");
        // An even score is 0 and its interval is symmetric around it.
        let e = elo_estimate(0.5, 0.1, 50).unwrap();
        assert_eq!(e.elo, 0.0);
        assert!((e.low + e.high).abs() < 1e-9);
        // Four times the units halve the interval.
        let wide = elo_estimate(0.55, 0.1, 100).unwrap();
        let narrow = elo_estimate(0.55, 0.1, 400).unwrap();
        assert!(((wide.high - wide.low) / (narrow.high - narrow.low) - 2.0).abs() < 1e-9);
    }

    #[test]
    fn no_estimate_without_two_units_or_at_the_extremes() {
        assert_eq!(elo_estimate(0.6, 0.04, 1), None);
        assert_eq!(elo_estimate(1.0, 0.0, 10), None);
        assert_eq!(elo_estimate(0.0, 0.0, 10), None);
        assert_eq!(elo_estimate(0.5, 0.0, 10), None, "no variance, no interval");
        let even = elo_estimate(0.5, 0.1, 10).unwrap();
        assert!(even.elo == 0.0 && even.elo.is_sign_positive(), "not -0");
        assert_eq!(likelihood_of_superiority(0.6, 0.04, 1), None);
    }

    #[test]
    fn superiority_from_the_standard_error() {
        // Mean 0.52, standard error 0.01: two errors above ½, Φ(2) = 0.97725.
        let los = likelihood_of_superiority(0.52, 0.01, 100).unwrap();
        assert!((los - 0.977_249_868).abs() < 1e-6, "{los}");
        assert!((likelihood_of_superiority(0.5, 0.2, 30).unwrap() - 0.5).abs() < 1e-7);
        let below = likelihood_of_superiority(0.48, 0.01, 100).unwrap();
        assert!((below + los - 1.0).abs() < 1e-7);
        assert_eq!(likelihood_of_superiority(0.7, 0.0, 5), Some(1.0));
        assert_eq!(likelihood_of_superiority(0.3, 0.0, 5), Some(0.0));
        assert_eq!(likelihood_of_superiority(0.5, 0.0, 5), Some(0.5));
    }
}
