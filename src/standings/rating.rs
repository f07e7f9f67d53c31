//! The rating: a Plackett–Luce model fitted to every game's full finishing order at once.
//!
//! **Model.** Each bot i has a strength γᵢ > 0. A game's finishing order is read as a sequence of
//! choices: the first place is drawn from all the seated bots with probability γᵢ / Σγ, the
//! second from those left, and so on. The ratings maximise the likelihood of all the games
//! (Hunter's MM algorithm, "MM algorithms for generalized Bradley–Terry models", 2004), and are
//! reported on an Elo-like scale: rating = 400 · log₁₀ γ, so that 400 points mean odds of 10 to 1
//! between two bots, and shifted so that the mean rating is 0 (or a named anchor bot is 0).
//!
//! **Shared places** (equal discs, a draw for the whole table, several bots disqualified in one
//! game) are counted like a draw in Elo: every order of the bots that share a place counts as a
//! fraction of a game, all orders with equal weight (two bots tied: half a game each way). This is
//! the expected likelihood when the tie is broken at random, and it keeps the MM algorithm as it
//! is. Disqualified bots are last, as the record's ranking puts them.
//!
//! **Prior.** Each bot is also credited with two virtual two-player games against a fixed bot of
//! strength 1 (rating 0 before the shift), one won and one lost. That keeps the rating of a bot
//! that always wins or always loses finite, connects groups of bots that never met, and weighs
//! nothing next to a league's real games.
//!
//! **Intervals.** 95% intervals come from a bootstrap over deals: the deals (a deal is played in
//! every seating, so its games are not independent) are drawn with replacement as often as there
//! are deals, the model is fitted again, and the 2.5% and 97.5% quantiles of each bot's rating over
//! the replicates are its interval. The draws come from a seed, so the same games give the same
//! intervals. The likelihood of superiority of bot a over bot b is the share of replicates in which
//! a's rating is above b's (equal counts half).

use super::games::GameSummary;
use crate::rng::Rng;
use std::collections::HashMap;

/// How to fit and bootstrap.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingOptions {
    /// Bootstrap replicates; 0 gives no intervals and no likelihood of superiority.
    pub replicates: u32,
    /// Seed of the bootstrap's draws.
    pub seed: u64,
    /// The bot whose rating is 0; None puts the mean rating at 0.
    pub anchor: Option<u32>,
    /// Virtual wins (and as many losses) each bot gets against the strength-1 prior bot.
    pub prior: f64,
}

impl Default for RatingOptions {
    fn default() -> Self {
        RatingOptions {
            replicates: 200,
            seed: 1,
            anchor: None,
            prior: 1.0,
        }
    }
}

/// A choice set of one stage of a finishing order: the bots still to be placed, sorted.
pub(crate) type ChoiceSet = Vec<u32>;

/// The sufficient statistics of some games for the Plackett–Luce likelihood: how often (with
/// fractional weights from shared places) each set of bots was a choice set, and how often each
/// bot was chosen. Stages with a single bot left carry no information and are left out.
#[derive(Clone, Debug, Default)]
pub(crate) struct Stages {
    /// (index into the set table, weight), by index
    pub sets: Vec<(u32, f64)>,
    /// (bot, times chosen), by bot
    pub chosen: Vec<(u32, f64)>,
}

/// The games cut into stages once, per deal, so that every bootstrap replicate only adds up
/// weights.
/// The standings make it from their sums as the games are read (`aggregate`); `fit` makes it
/// from game summaries.
pub(crate) struct Prepared {
    pub bots: usize,
    /// Choice sets in order of first appearance (the order the fit adds their terms in).
    pub set_table: Vec<ChoiceSet>,
    pub deals: Vec<Stages>,
    /// Which bots play in each deal.
    pub deal_bots: Vec<Vec<u32>>,
}

fn prepare(games: &[GameSummary], bots: usize, deals: usize) -> Prepared {
    let mut set_index: HashMap<ChoiceSet, u32> = HashMap::new();
    let mut set_table: Vec<ChoiceSet> = Vec::new();
    let mut per_deal: Vec<(HashMap<u32, f64>, HashMap<u32, f64>)> = vec![Default::default(); deals];
    for g in games {
        let (sets, chosen) = &mut per_deal[g.deal as usize];
        for (set, weight, winner) in stages(&g.ranking()) {
            let id = match set_index.get(&set) {
                Some(&id) => id,
                None => {
                    let id = set_table.len() as u32;
                    set_table.push(set.clone());
                    set_index.insert(set, id);
                    id
                }
            };
            *sets.entry(id).or_insert(0.0) += weight;
            *chosen.entry(winner).or_insert(0.0) += weight;
        }
    }
    let mut deal_bots = vec![Vec::new(); deals];
    for g in games {
        let list = &mut deal_bots[g.deal as usize];
        for s in &g.seats {
            if !list.contains(&s.bot) {
                list.push(s.bot);
            }
        }
    }
    let sorted = |m: HashMap<u32, f64>| {
        let mut v: Vec<(u32, f64)> = m.into_iter().collect();
        v.sort_by_key(|&(k, _)| k);
        v
    };
    Prepared {
        bots,
        set_table,
        deals: per_deal
            .into_iter()
            .map(|(sets, chosen)| Stages {
                sets: sorted(sets),
                chosen: sorted(chosen),
            })
            .collect(),
        deal_bots,
    }
}

/// The stages of one finishing order given as groups of bots (best first): every order the
/// shared places allow, each with equal weight; per stage the choice set (sorted), the weight and
/// the bot chosen. A game has at most 4 bots, so at most 24 orders.
fn stages(ranking: &[Vec<u32>]) -> Vec<(ChoiceSet, f64, u32)> {
    let (orders, list) = stage_list(ranking);
    let weight = 1.0 / orders as f64;
    list.into_iter()
        .map(|(set, chosen)| (set, weight, chosen))
        .collect()
}

/// `stages` as the number of orders (each weighs one over it) and per stage the choice set and
/// the bot chosen.
pub(crate) fn stage_list(ranking: &[Vec<u32>]) -> (usize, Vec<(ChoiceSet, u32)>) {
    let mut orders: Vec<Vec<u32>> = vec![Vec::new()];
    for group in ranking {
        let perms = permutations(group);
        orders = orders
            .iter()
            .flat_map(|prefix| {
                perms.iter().map(move |p| {
                    let mut o = prefix.clone();
                    o.extend_from_slice(p);
                    o
                })
            })
            .collect();
    }
    let mut out = Vec::new();
    for order in &orders {
        for t in 0..order.len().saturating_sub(1) {
            let mut set = order[t..].to_vec();
            set.sort_unstable();
            out.push((set, order[t]));
        }
    }
    (orders.len(), out)
}

fn permutations(items: &[u32]) -> Vec<Vec<u32>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

/// Maximum-likelihood strengths (with the prior) by Hunter's MM iteration:
/// γᵢ ← (wᵢ + prior) / (Σ over choice sets S ∋ i of weight(S) / Σ_{k∈S} γ_k + 2·prior / (γᵢ + 1)),
/// where wᵢ is how often i was chosen. The prior bot's fixed strength 1 pins the scale.
fn fit_strengths(
    bots: usize,
    set_table: &[ChoiceSet],
    set_weight: &[f64],
    chosen: &[f64],
    prior: f64,
    start: &[f64],
) -> Vec<f64> {
    let mut gamma = start.to_vec();
    let mut denominator = vec![0.0; bots];
    for _ in 0..100_000 {
        for (i, d) in denominator.iter_mut().enumerate() {
            *d = 2.0 * prior / (gamma[i] + 1.0);
        }
        for (set, &w) in set_table.iter().zip(set_weight) {
            if w == 0.0 {
                continue;
            }
            let sum: f64 = set.iter().map(|&k| gamma[k as usize]).sum();
            for &k in set {
                denominator[k as usize] += w / sum;
            }
        }
        let mut next: Vec<f64> = (0..bots)
            .map(|i| (chosen[i] + prior) / denominator[i])
            .collect();
        rescale_for_prior(&mut next);
        let mut change = 0.0f64;
        for i in 0..bots {
            change = change.max((next[i] / gamma[i]).ln().abs());
            gamma[i] = next[i];
        }
        if change < 1e-10 {
            break;
        }
    }
    gamma
}

/// Multiplies all strengths by the factor the prior prefers. The games alone say nothing about the
/// common scale of the strengths (only ratios matter), so only the weak prior pins it, and MM
/// steps crawl along that direction for tens of thousands of iterations; taking the best scale
/// exactly at every step removes the crawl. The prior's log-likelihood at scale c is
/// Σᵢ log(cγᵢ) − 2·log(cγᵢ + 1) (times the prior weight), whose derivative in log c,
/// Σᵢ (1 − cγᵢ)/(1 + cγᵢ), falls from n to −n: its root is found by bisection in log c.
fn rescale_for_prior(gamma: &mut [f64]) {
    let slope = |log_c: f64| -> f64 {
        let c = log_c.exp();
        gamma.iter().map(|g| (1.0 - c * g) / (1.0 + c * g)).sum()
    };
    let (mut lo, mut hi) = (-700.0f64, 700.0f64);
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if slope(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let c = (0.5 * (lo + hi)).exp();
    for g in gamma.iter_mut() {
        *g *= c;
    }
}

/// Ratings on the Elo-like scale from strengths, shifted to the anchor (only bots in `present`
/// count for the mean).
fn to_ratings(gamma: &[f64], anchor: Option<u32>, present: &[bool]) -> Vec<f64> {
    let raw: Vec<f64> = gamma.iter().map(|g| 400.0 * g.log10()).collect();
    let shift = match anchor {
        Some(a) => raw[a as usize],
        None => {
            let (sum, n) = raw
                .iter()
                .zip(present)
                .filter(|(_, &p)| p)
                .fold((0.0, 0), |(s, n), (r, _)| (s + r, n + 1));
            sum / n.max(1) as f64
        }
    };
    raw.iter().map(|r| r - shift).collect()
}

/// The fitted ratings and what the bootstrap says about them.
#[derive(Clone, Debug, PartialEq)]
pub struct Ratings {
    /// Per bot (indexed like `Games::names`), on the Elo-like scale.
    pub rating: Vec<f64>,
    /// Per bot, the 95% bootstrap interval; None without a bootstrap (no replicates, fewer than
    /// two deals) or for the anchor bot, whose rating is 0 by definition.
    pub interval: Vec<Option<(f64, f64)>>,
    /// `superiority[a][b]`: the share of bootstrap replicates in which a's rating is above b's
    /// (None without a bootstrap, and on the diagonal).
    pub superiority: Vec<Vec<Option<f64>>>,
    /// Replicates actually drawn (0 without a bootstrap).
    pub replicates: u32,
}

/// Fits the ratings of `bots` bots to the games, with intervals from a bootstrap over the `deals`
/// deals.
pub fn fit(games: &[GameSummary], bots: usize, deals: usize, options: &RatingOptions) -> Ratings {
    fit_prepared(&prepare(games, bots, deals), options)
}

/// `fit`, from the games' stages cut per deal.
pub(crate) fn fit_prepared(prepared: &Prepared, options: &RatingOptions) -> Ratings {
    let (bots, deals) = (prepared.bots, prepared.deals.len());
    let counts = vec![1u32; deals];
    let everyone = vec![true; bots];
    let (gamma, _) = fit_counts(prepared, &counts, options.prior, &vec![1.0; bots]);
    let rating = to_ratings(&gamma, options.anchor, &everyone);
    let replicates = if deals >= 2 { options.replicates } else { 0 };
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(replicates as usize); bots];
    let mut superior = vec![vec![(0.0f64, 0u32); bots]; bots];
    let mut rng = Rng::new(options.seed);
    for _ in 0..replicates {
        let mut counts = vec![0u32; deals];
        for _ in 0..deals {
            counts[rng.below(deals as u64) as usize] += 1;
        }
        let (g, present) = fit_counts(prepared, &counts, options.prior, &gamma);
        // An anchor that sits out a replicate leaves nothing to measure from: skip it.
        if let Some(a) = options.anchor {
            if !present[a as usize] {
                continue;
            }
        }
        let r = to_ratings(&g, options.anchor, &present);
        for i in 0..bots {
            if !present[i] {
                continue;
            }
            samples[i].push(r[i]);
            for j in 0..bots {
                if j != i && present[j] {
                    let cell = &mut superior[i][j];
                    cell.0 += match r[i].partial_cmp(&r[j]) {
                        Some(std::cmp::Ordering::Greater) => 1.0,
                        Some(std::cmp::Ordering::Equal) => 0.5,
                        _ => 0.0,
                    };
                    cell.1 += 1;
                }
            }
        }
    }
    let interval = samples
        .iter_mut()
        .enumerate()
        .map(|(i, s)| {
            if s.is_empty() || options.anchor == Some(i as u32) {
                return None;
            }
            s.sort_by(f64::total_cmp);
            Some((quantile(s, 0.025), quantile(s, 0.975)))
        })
        .collect();
    let superiority = superior
        .iter()
        .enumerate()
        .map(|(i, row)| {
            row.iter()
                .enumerate()
                .map(|(j, &(wins, n))| (i != j && n > 0).then(|| wins / n as f64))
                .collect()
        })
        .collect();
    Ratings {
        rating,
        interval,
        superiority,
        replicates,
    }
}

/// Fits the deals taken `counts[d]` times each; also says which bots played at all.
fn fit_counts(p: &Prepared, counts: &[u32], prior: f64, start: &[f64]) -> (Vec<f64>, Vec<bool>) {
    let mut set_weight = vec![0.0; p.set_table.len()];
    let mut chosen = vec![0.0; p.bots];
    let mut present = vec![false; p.bots];
    for (d, &c) in counts.iter().enumerate() {
        if c == 0 {
            continue;
        }
        let c = c as f64;
        for &(set, w) in &p.deals[d].sets {
            set_weight[set as usize] += c * w;
        }
        for &(bot, w) in &p.deals[d].chosen {
            chosen[bot as usize] += c * w;
        }
        for &bot in &p.deal_bots[d] {
            present[bot as usize] = true;
        }
    }
    let gamma = fit_strengths(p.bots, &p.set_table, &set_weight, &chosen, prior, start);
    (gamma, present)
}

/// The q-quantile of sorted values, interpolating between neighbours.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Outcome;
    use crate::standings::games::SeatSummary;

    /// A game summary from a finishing order of groups of bots; each game its own deal.
    fn game(number: u32, deal: u32, ranking: &[&[u32]]) -> GameSummary {
        let mut seats = Vec::new();
        for (g, group) in ranking.iter().enumerate() {
            for &bot in *group {
                seats.push(SeatSummary {
                    bot,
                    score: 0,
                    group: g as u8,
                    place: 0.0,
                    fault: None,
                    moves: 0,
                    total_ms: 0.0,
                    max_ms: 0.0,
                });
            }
        }
        GameSummary {
            number,
            id: number.to_string(),
            deal,
            result: Outcome::Draw,
            seats,
        }
    }

    #[test]
    fn shared_places_become_equally_weighted_orders() {
        // {1, 2} share first, 0 last: orders 1 2 0 and 2 1 0, half a game each.
        let s = stages(&[vec![1, 2], vec![0]]);
        assert_eq!(
            s,
            vec![
                (vec![0, 1, 2], 0.5, 1),
                (vec![0, 2], 0.5, 2),
                (vec![0, 1, 2], 0.5, 2),
                (vec![0, 1], 0.5, 1),
            ]
        );
        // A strict order is one order of weight 1; the last stage (one bot left) is left out.
        assert_eq!(
            stages(&[vec![3], vec![1], vec![2]]),
            vec![(vec![1, 2, 3], 1.0, 3), (vec![1, 2], 1.0, 1)]
        );
        assert_eq!(stages(&[vec![0, 1, 2, 3]]).len(), 24 * 3);
    }

    #[test]
    fn two_bots_satisfy_the_likelihood_equations() {
        // a beats b 3 times of 4. With the prior (one virtual win and one loss each against a bot
        // of strength 1), the maximum solves
        //   γa = (3 + 1) / (4 / (γa + γb) + 2 / (γa + 1)),
        //   γb = (1 + 1) / (4 / (γa + γb) + 2 / (γb + 1)).
        let games: Vec<GameSummary> = (0..4)
            .map(|i| {
                if i < 3 {
                    game(i, i, &[&[0], &[1]])
                } else {
                    game(i, i, &[&[1], &[0]])
                }
            })
            .collect();
        let p = prepare(&games, 2, 4);
        let (g, present) = fit_counts(&p, &[1; 4], 1.0, &[1.0, 1.0]);
        assert_eq!(present, vec![true, true]);
        let (a, b) = (g[0], g[1]);
        assert!((a - 4.0 / (4.0 / (a + b) + 2.0 / (a + 1.0))).abs() < 1e-9);
        assert!((b - 2.0 / (4.0 / (a + b) + 2.0 / (b + 1.0))).abs() < 1e-9);
        // By symmetry of the equations under γ → 1/γ with wins and losses swapped, γa·γb = 1.
        assert!((a * b - 1.0).abs() < 1e-9);
        assert!(a > 1.5 && a < 3.0, "{a}");
        // On the scale: 400·log10 γ, shifted to mean 0, no intervals without a bootstrap.
        let options = RatingOptions {
            replicates: 0,
            ..RatingOptions::default()
        };
        let r = fit(&games, 2, 4, &options);
        assert!((r.rating[0] - 400.0 * a.log10()).abs() < 1e-6);
        assert!((r.rating[0] + r.rating[1]).abs() < 1e-9);
        assert_eq!(r.interval, vec![None, None]);
        assert_eq!(r.replicates, 0);
    }

    #[test]
    fn a_bot_that_always_wins_has_a_finite_rating() {
        let games: Vec<GameSummary> = (0..50).map(|i| game(i, i, &[&[0], &[1], &[2]])).collect();
        let r = fit(&games, 3, 50, &RatingOptions::default());
        assert!(r.rating.iter().all(|x| x.is_finite()));
        assert!(r.rating[0] > r.rating[1] && r.rating[1] > r.rating[2]);
        // The middle bot wins half its stages (against the last) and is near the middle.
        assert!(r.rating[1].abs() < 50.0, "{:?}", r.rating);
        for (i, iv) in r.interval.iter().enumerate() {
            let (lo, hi) = iv.unwrap();
            assert!(lo <= r.rating[i] + 1e-6 && r.rating[i] <= hi + 1e-6);
        }
        assert_eq!(r.superiority[0][1], Some(1.0));
        assert_eq!(r.superiority[1][0], Some(0.0));
        assert_eq!(r.superiority[0][0], None);
    }

    #[test]
    fn the_anchor_bot_is_zero() {
        let games: Vec<GameSummary> = (0..20)
            .map(|i| game(i, i, &[&[i % 3], &[(i + 1) % 3], &[(i + 2) % 3]]))
            .collect();
        let r = fit(
            &games,
            3,
            20,
            &RatingOptions {
                anchor: Some(1),
                ..RatingOptions::default()
            },
        );
        assert_eq!(r.rating[1], 0.0);
        assert_eq!(r.interval[1], None);
        assert!(r.interval[0].is_some() && r.interval[2].is_some());
    }

    #[test]
    fn the_bootstrap_is_deterministic_for_a_seed() {
        let games: Vec<GameSummary> = (0..30)
            .map(|i| {
                let w = i * 7 % 4;
                let rest: Vec<u32> = (0..4).filter(|&b| b != w).collect();
                game(i, i / 3, &[&[w], &rest[..1], &rest[1..]])
            })
            .collect();
        let options = RatingOptions::default();
        let a = fit(&games, 4, 10, &options);
        let b = fit(&games, 4, 10, &options);
        assert_eq!(a, b);
        let c = fit(&games, 4, 10, &RatingOptions { seed: 2, ..options });
        assert_eq!(a.rating, c.rating);
        assert_ne!(a.interval, c.interval);
    }

    /// Draws a Plackett–Luce finishing order: repeatedly pick the next place with probability
    /// proportional to strength.
    fn draw_order(bots: &[u32], gamma: &[f64], rng: &mut Rng) -> Vec<u32> {
        let mut left = bots.to_vec();
        let mut order = Vec::new();
        while !left.is_empty() {
            let total: f64 = left.iter().map(|&b| gamma[b as usize]).sum();
            let mut x = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
            let mut pick = left.len() - 1;
            for (i, &b) in left.iter().enumerate() {
                x -= gamma[b as usize];
                if x < 0.0 {
                    pick = i;
                    break;
                }
            }
            order.push(left.remove(pick));
        }
        order
    }

    #[test]
    fn recovers_known_strengths_from_simulated_games() {
        // Six bots 150 rating points apart, 4-player games of random line-ups.
        let truth: Vec<f64> = (0..6).map(|i| 375.0 - 150.0 * i as f64).collect();
        let gamma: Vec<f64> = truth.iter().map(|r| 10f64.powf(r / 400.0)).collect();
        let mut rng = Rng::new(42);
        let mut games = Vec::new();
        for i in 0..3000u32 {
            let mut bots: Vec<u32> = (0..6).collect();
            for k in 0..4 {
                let j = k + rng.below((6 - k) as u64) as usize;
                bots.swap(k, j);
            }
            let order = draw_order(&bots[..4], &gamma, &mut rng);
            let groups: Vec<&[u32]> = order.chunks(1).collect();
            games.push(game(i, i / 6, &groups));
        }
        let r = fit(&games, 6, 500, &RatingOptions::default());
        for (i, &true_rating) in truth.iter().enumerate() {
            assert!(
                (r.rating[i] - true_rating).abs() < 30.0,
                "bot {i}: fitted {:.1}, true {:.1}",
                r.rating[i],
                true_rating
            );
            let (lo, hi) = r.interval[i].unwrap();
            assert!(hi - lo < 100.0 && lo < r.rating[i] && r.rating[i] < hi);
        }
        // Adjacent bots 150 points apart are told apart with near certainty.
        for i in 0..5 {
            assert!(r.superiority[i][i + 1].unwrap() > 0.95);
        }
    }
}
