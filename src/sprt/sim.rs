//! A synthetic experiment that measures the test: Plackett–Luce players at tables of 3 and 4
//! with a seat advantage and opening effects, games drawn from a seed, whole sequential tests run
//! to their decision. Pure functions: no processes, no clock; the same seed gives the same
//! figures.
//!
//! **The game model.** A deal seats the candidate C (rating Δ), the baseline B (rating 0) and
//! k − 2 field bots drawn without replacement from `Model::field`, at k = 3 or 4 seats. Each seat
//! has a fixed advantage (`seats_3`, `seats_4`: moving first is worth something), and each deal
//! draws an **opening**: an effect per seat (`opening_seat_sd`: the opening gives that seat a good
//! or a bad position) and an effect per bot (`opening_bot_sd`: the position suits that bot's
//! play or not). All of a deal's games share its opening, which is exactly why a game and its
//! twin are correlated: the seat effects cancel between them (C and B exchange seats), the bot
//! effects do not (they follow the bot) and are shared by every pair of the deal. In a game the
//! bot in seat s has strength γ = 10^((rating + seat advantage + opening seat effect + opening bot
//! effect)/400), the finishing order is drawn from the Plackett–Luce model (first place with
//! probability γ/Σγ, then second among the rest, …), and each two neighbouring places are shared
//! with probability `tie_rate` (equal disc counts).
//!
//! **Designs.** `Paired`: deals of twin pairs, the unit is the deal (`PairsPerDeal::One`: a deal
//! is one pair, pentanomial counts; `AllSeatings`: a deal is played in all k! seatings, k!/2
//! pairs, one unit). `PairsAsUnits`: the same deals, each pair counted as an independent unit,
//! which is wrong when a deal has several pairs. `Unpaired`: every game its own deal with C and
//! B in random seats, a trinomial test game by game — what a test that ignores pairing does.

use super::gsprt::{score_of_elo, Hypotheses, Verdict};
use super::units::UnitCounts;
use crate::rng::Rng;
use crate::rules::Seat;

/// The synthetic players and table.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Ratings of the field bots that fill the other seats (at least 2).
    pub field: Vec<f64>,
    /// Table sizes, drawn uniformly per deal (3, 4, or both).
    pub sizes: Vec<usize>,
    /// Rating points each seat adds at a 3-player table, in move order.
    pub seats_3: Vec<f64>,
    /// The same at a 4-player table.
    pub seats_4: Vec<f64>,
    /// Standard deviation of the points an opening gives each seat (shared by a deal's games).
    pub opening_seat_sd: f64,
    /// Standard deviation of the points an opening gives each bot (shared by a deal's games).
    pub opening_bot_sd: f64,
    /// The chance that two neighbouring places are shared.
    pub tie_rate: f64,
}

impl Model {
    /// The table as measured in real games: 1,920 league games of the instant built-in bots
    /// (`greedy`, `random`, two of each) on 8×8 with 4-move random openings, every deal in all
    /// seatings (README, "Is my new version better?"). The seat advantages are the measured
    /// first-place shares per seat on the Elo-like scale (the last seats to move are the
    /// strongest), the opening effects are sized so that the simulated game, pair and deal
    /// variances match the measured ones (pairing saves about 4–7% of games; the 12 pairs of a
    /// 4-player deal are correlated), and ties are as frequent as measured. The field spans weak to
    /// strong bots.
    pub fn measured() -> Model {
        Model {
            field: vec![-300.0, -150.0, 0.0, 100.0, 250.0],
            sizes: vec![3, 4],
            seats_3: vec![-39.0, 6.0, 33.0],
            seats_4: vec![-41.0, -26.0, 40.0, 27.0],
            opening_seat_sd: 50.0,
            opening_bot_sd: 25.0,
            tie_rate: 0.05,
        }
    }

    /// The same table where openings decide much more of a game: an opening's effect on a seat
    /// has a standard deviation of 150 rating points instead of 50. Not measured here: a scenario
    /// for bots that turn a good position into a win far more reliably than `greedy` and
    /// `random` do, the situation in which pairing pays (fishtest's experience with unbalanced
    /// opening books).
    pub fn decisive() -> Model {
        Model {
            opening_seat_sd: 150.0,
            ..Model::measured()
        }
    }

    fn seats(&self, players: usize) -> &[f64] {
        if players == 3 {
            &self.seats_3
        } else {
            &self.seats_4
        }
    }

    /// Whether the model can be played: sizes of 3 or 4, enough field bots, a seat advantage per
    /// seat, finite effects and a tie rate in [0, 1).
    pub fn check(&self) -> Result<(), String> {
        if self.sizes.is_empty() || self.sizes.iter().any(|&k| k != 3 && k != 4) {
            return Err(format!("table sizes {:?}: 3 or 4 players", self.sizes));
        }
        let most = self.sizes.iter().copied().max().unwrap_or(4);
        if self.field.len() < most - 2 {
            return Err(format!(
                "{} field bots cannot fill {} seats",
                self.field.len(),
                most - 2
            ));
        }
        if self.seats_3.len() != 3 || self.seats_4.len() != 4 {
            return Err("one seat advantage per seat: 3 and 4 of them".into());
        }
        let numbers = self
            .field
            .iter()
            .chain(&self.seats_3)
            .chain(&self.seats_4)
            .chain([&self.opening_seat_sd, &self.opening_bot_sd]);
        if numbers.into_iter().any(|x| !x.is_finite()) {
            return Err("every rating and effect must be a finite number".into());
        }
        if !(self.tie_rate >= 0.0 && self.tie_rate < 1.0) {
            return Err(format!("tie rate {} is not in [0, 1)", self.tie_rate));
        }
        Ok(())
    }
}

/// How many twin pairs a deal holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairsPerDeal {
    /// One pair per deal, each with its own opening and field: units of 2 games.
    One,
    /// Every seating: k!/2 pairs (3 at 3 players, 12 at 4), one opening and field for all.
    AllSeatings,
}

/// How games are scheduled and counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Design {
    /// Twin pairs; the unit is the deal.
    Paired(PairsPerDeal),
    /// Twin pairs, each counted as an independent unit even when its deal holds others.
    PairsAsUnits(PairsPerDeal),
    /// Single games, C and B in random seats, each game its own deal.
    Unpaired,
}

impl Design {
    pub fn describe(&self) -> &'static str {
        match self {
            Design::Paired(PairsPerDeal::One) => "paired: a deal is one twin pair (pentanomial)",
            Design::Paired(PairsPerDeal::AllSeatings) => {
                "paired: a deal in all seatings, the deal is the unit"
            }
            Design::PairsAsUnits(PairsPerDeal::One) => "pairs as units, one pair per deal",
            Design::PairsAsUnits(PairsPerDeal::AllSeatings) => {
                "deals in all seatings, each pair counted alone (wrong)"
            }
            Design::Unpaired => "unpaired: single games, random seats (trinomial)",
        }
    }

    /// The games of one unit, as the counts see it: a common lattice for every table size.
    fn games_per_unit(&self, model: &Model) -> u32 {
        match self {
            Design::Unpaired => 1,
            Design::PairsAsUnits(_) | Design::Paired(PairsPerDeal::One) => 2,
            Design::Paired(PairsPerDeal::AllSeatings) => {
                // 6 divides 24: a 3-player deal's half points are scaled up by 4.
                if model.sizes.contains(&4) {
                    24
                } else {
                    6
                }
            }
        }
    }
}

/// One deal: who plays, and what its opening gives each seat and bot.
#[derive(Clone, Debug)]
struct Deal {
    players: usize,
    /// By bot: 0 is C, 1 is B, then the field bots.
    ratings: [f64; 4],
    /// By bot: what the opening gives it.
    bot_effect: [f64; 4],
    /// By seat: the fixed seat advantage.
    seat_advantage: [f64; 4],
    /// By seat: what the opening gives it.
    seat_effect: [f64; 4],
}

impl Deal {
    /// The Plackett–Luce strength of each seat in a seating (`seating[s]`: the bot in seat s);
    /// `sign` −1 takes the opening's effects with the opposite sign, its mirror image in
    /// distribution.
    fn gamma(&self, seating: &[usize; 4], sign: f64) -> [f64; 4] {
        let scale = std::f64::consts::LN_10 / 400.0;
        let mut gamma = [0.0; 4];
        for s in 0..self.players {
            let b = seating[s];
            let points = self.ratings[b]
                + self.seat_advantage[s]
                + sign * (self.bot_effect[b] + self.seat_effect[s]);
            gamma[s] = (points * scale).exp();
        }
        gamma
    }
}

/// A number in [0, 1) with 53 random bits.
fn uniform(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut Rng) -> f64 {
    let u = 1.0 - uniform(rng); // (0, 1]
    let v = uniform(rng);
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

fn draw_deal(model: &Model, delta: f64, rng: &mut Rng) -> Deal {
    let players = model.sizes[rng.below(model.sizes.len() as u64) as usize];
    let mut ratings = [0.0; 4];
    ratings[0] = delta;
    // The field bots: a partial Fisher–Yates shuffle of the field's indices.
    let mut field: Vec<usize> = (0..model.field.len()).collect();
    for i in 0..players - 2 {
        let j = i + rng.below((field.len() - i) as u64) as usize;
        field.swap(i, j);
        ratings[2 + i] = model.field[field[i]];
    }
    let mut deal = Deal {
        players,
        ratings,
        bot_effect: [0.0; 4],
        seat_advantage: [0.0; 4],
        seat_effect: [0.0; 4],
    };
    deal.seat_advantage[..players].copy_from_slice(model.seats(players));
    for s in 0..players {
        deal.seat_effect[s] = model.opening_seat_sd * normal(rng);
        deal.bot_effect[s] = model.opening_bot_sd * normal(rng);
    }
    deal
}

/// A random seating: `seating[s]` is the bot in seat s.
fn random_seating(players: usize, rng: &mut Rng) -> [usize; 4] {
    let mut seating = [0, 1, 2, 3];
    for i in (1..players).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        seating.swap(i, j);
    }
    seating
}

/// The twin: C and B exchanged, everyone else in place.
fn twin(seating: &[usize; 4]) -> [usize; 4] {
    let mut t = *seating;
    for b in t.iter_mut() {
        *b = match *b {
            0 => 1,
            1 => 0,
            other => other,
        };
    }
    t
}

/// Every seating of k bots in which C sits before B: one of each twin pair.
fn pair_seatings(players: usize) -> Vec<[usize; 4]> {
    let mut out = Vec::new();
    let mut seating = [0, 1, 2, 3];
    permute(&mut seating, 0, players, &mut out);
    out.retain(|s| {
        let c = s.iter().position(|&b| b == 0);
        let b = s.iter().position(|&b| b == 1);
        c < b
    });
    out
}

fn permute(a: &mut [usize; 4], i: usize, k: usize, out: &mut Vec<[usize; 4]>) {
    if i == k {
        out.push(*a);
        return;
    }
    for j in i..k {
        a.swap(i, j);
        permute(a, i + 1, k, out);
        a.swap(i, j);
    }
}

/// The finishing order of one game of a deal in a seating: per seat its place group (0 first;
/// seats that share a place share a group).
fn finish(model: &Model, deal: &Deal, seating: &[usize; 4], rng: &mut Rng) -> [usize; 4] {
    let k = deal.players;
    let gamma = deal.gamma(seating, 1.0);
    // Drawn place by place: the next place goes to a seat still in with chance γ / Σγ.
    let mut left = [true; 4];
    let mut group = [0usize; 4];
    let mut current = 0;
    for place in 0..k {
        let total: f64 = (0..k).filter(|&s| left[s]).map(|s| gamma[s]).sum();
        let mut x = uniform(rng) * total;
        let mut pick = None;
        for s in (0..k).filter(|&s| left[s]) {
            pick = Some(s);
            x -= gamma[s];
            if x < 0.0 {
                break;
            }
        }
        let Some(pick) = pick else { break };
        if place > 0 && uniform(rng) >= model.tie_rate {
            current += 1;
        }
        left[pick] = false;
        group[pick] = current;
    }
    group
}

/// One game: C's half points against B (2 above, 1 shared, 0 below).
fn play(model: &Model, deal: &Deal, seating: &[usize; 4], rng: &mut Rng) -> u32 {
    let group = finish(model, deal, seating, rng);
    let k = deal.players;
    let c = seating[..k].iter().position(|&b| b == 0).unwrap_or(0);
    let b = seating[..k].iter().position(|&b| b == 1).unwrap_or(1);
    match group[c].cmp(&group[b]) {
        std::cmp::Ordering::Less => 2,
        std::cmp::Ordering::Equal => 1,
        std::cmp::Ordering::Greater => 0,
    }
}

/// C's expected half points against B in one game with these seat strengths, exactly: the sum
/// over every finishing order (at most 4! = 24) of its Plackett–Luce probability times C's
/// expected half points in it, where C and B g places apart share a place with chance tᵍ (every
/// boundary between them merged).
fn expected_half_points(gamma: &[f64; 4], k: usize, c: Seat, b: Seat, tie_rate: f64) -> f64 {
    fn walk(
        gamma: &[f64; 4],
        k: usize,
        left: &mut [bool; 4],
        position: &mut [usize; 4],
        depth: usize,
        chance: f64,
        ends: (Seat, Seat, f64),
    ) -> f64 {
        let (c, b, t) = ends;
        if depth == k {
            let gap = position[c].abs_diff(position[b]) as i32;
            let shared = t.powi(gap);
            return chance
                * if position[c] < position[b] {
                    2.0 - shared
                } else {
                    shared
                };
        }
        let total: f64 = (0..k).filter(|&s| left[s]).map(|s| gamma[s]).sum();
        let mut sum = 0.0;
        for s in 0..k {
            if left[s] {
                left[s] = false;
                position[s] = depth;
                sum += walk(
                    gamma,
                    k,
                    left,
                    position,
                    depth + 1,
                    chance * gamma[s] / total,
                    ends,
                );
                left[s] = true;
            }
        }
        sum
    }
    walk(
        gamma,
        k,
        &mut [true; 4],
        &mut [0; 4],
        0,
        1.0,
        (c, b, tie_rate),
    )
}

/// C's expected game score against B under the model at strength difference `delta`: what the
/// statistic's expectation really is once seats and openings play their part (they pull it
/// towards ½ from 1/(1 + 10^(−delta/400))). An average over `draws` deals, each taken exactly
/// over finishing orders and ties, in a random seating and its twin, with the opening and its
/// mirror image: precise, and the same for the same seed.
pub fn expected_score(model: &Model, delta: f64, draws: u64, seed: u64) -> f64 {
    let mut rng = Rng::new(seed);
    let mut sum = 0.0;
    for _ in 0..draws {
        let deal = draw_deal(model, delta, &mut rng);
        let seating = random_seating(deal.players, &mut rng);
        for seating in [seating, twin(&seating)] {
            let k = deal.players;
            let c = seating[..k].iter().position(|&b| b == 0).unwrap_or(0);
            let b = seating[..k].iter().position(|&b| b == 1).unwrap_or(1);
            for sign in [1.0, -1.0] {
                let gamma = deal.gamma(&seating, sign);
                sum += expected_half_points(&gamma, k, c, b, model.tie_rate);
            }
        }
    }
    sum / (8 * draws.max(1)) as f64
}

/// The strength difference at which the test's statistic has the expected score of `elo`, so
/// that a simulated test at "Δ = elo1" is one whose true value on the test's scale is elo1:
/// the root of `expected_score(d) = 1/(1 + 10^(−elo/400))`, by the Illinois method on the same
/// draws throughout (a smooth, increasing function of d). 0 for 0: C and B are then alike.
pub fn strength_for_elo(model: &Model, elo: f64, draws: u64, seed: u64) -> f64 {
    if elo == 0.0 {
        return 0.0;
    }
    let target = score_of_elo(elo);
    let f = |d: f64| expected_score(model, d, draws, seed) - target;
    // Seats and openings only ever shrink the difference: the root lies beyond elo itself.
    let (mut lo, mut hi) = if elo > 0.0 { (0.0, elo) } else { (elo, 0.0) };
    let (mut f_lo, mut f_hi) = (f(lo), f(hi));
    for _ in 0..60 {
        if f_lo <= 0.0 && f_hi >= 0.0 {
            break;
        }
        if elo > 0.0 {
            (lo, f_lo) = (hi, f_hi);
            hi *= 2.0;
            f_hi = f(hi);
        } else {
            (hi, f_hi) = (lo, f_lo);
            lo *= 2.0;
            f_lo = f(lo);
        }
    }
    let mut side = 0;
    let mut x = 0.5 * (lo + hi);
    for _ in 0..100 {
        x = (lo * f_hi - hi * f_lo) / (f_hi - f_lo);
        let fx = f(x);
        if fx.abs() < 1e-12 || hi - lo < 1e-9 {
            break;
        }
        if fx < 0.0 {
            (lo, f_lo) = (x, fx);
            if side == -1 {
                f_hi *= 0.5;
            }
            side = -1;
        } else {
            (hi, f_hi) = (x, fx);
            if side == 1 {
                f_lo *= 0.5;
            }
            side = 1;
        }
    }
    x
}

/// How one sequential test ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestOutcome {
    /// `Continue` if it reached `max_games` undecided.
    pub verdict: Verdict,
    pub games: u64,
    pub units: u64,
}

/// Plays one sequential test to its decision (or `max_games`), checking the LLR after every unit.
pub fn run_test(
    model: &Model,
    design: Design,
    delta: f64,
    hypotheses: &Hypotheses,
    max_games: u64,
    rng: &mut Rng,
) -> TestOutcome {
    let (s0, s1) = hypotheses.scores();
    let bounds = hypotheses.bounds();
    let g = design.games_per_unit(model);
    let mut counts = UnitCounts::new(g);
    let mut games = 0u64;
    // Counts one unit and says whether the test is over.
    let count = |counts: &mut UnitCounts, half_points: u32| -> Option<Verdict> {
        counts.add(half_points);
        match bounds.verdict(counts.llr(s0, s1)) {
            Verdict::Continue => None,
            v => Some(v),
        }
    };
    let all_seatings = [pair_seatings(3), pair_seatings(4)];
    while games < max_games {
        let deal = draw_deal(model, delta, rng);
        let seatings: Vec<[usize; 4]> = match design {
            Design::Unpaired => {
                games += 1;
                let h = play(model, &deal, &random_seating(deal.players, rng), rng);
                if let Some(verdict) = count(&mut counts, h) {
                    return outcome(verdict, games, &counts);
                }
                continue;
            }
            Design::Paired(PairsPerDeal::One) | Design::PairsAsUnits(PairsPerDeal::One) => {
                vec![random_seating(deal.players, rng)]
            }
            Design::Paired(PairsPerDeal::AllSeatings)
            | Design::PairsAsUnits(PairsPerDeal::AllSeatings) => {
                all_seatings[deal.players - 3].clone()
            }
        };
        let mut deal_half_points = 0;
        for seating in &seatings {
            let pair = play(model, &deal, seating, rng) + play(model, &deal, &twin(seating), rng);
            games += 2;
            if let Design::PairsAsUnits(_) = design {
                if let Some(verdict) = count(&mut counts, pair) {
                    return outcome(verdict, games, &counts);
                }
            }
            deal_half_points += pair;
        }
        if let Design::Paired(_) = design {
            // On the common lattice: a deal of fewer games than a unit's is scaled up.
            let scale = g / (2 * seatings.len() as u32);
            if let Some(verdict) = count(&mut counts, deal_half_points * scale) {
                return outcome(verdict, games, &counts);
            }
        }
    }
    outcome(Verdict::Continue, games, &counts)
}

fn outcome(verdict: Verdict, games: u64, counts: &UnitCounts) -> TestOutcome {
    TestOutcome {
        verdict,
        games,
        units: counts.units(),
    }
}

/// Many tests of one design at one true rating difference.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    pub tests: u32,
    pub accepted_h1: u32,
    pub accepted_h0: u32,
    /// Tests that reached the game cap undecided.
    pub undecided: u32,
    /// Mean games to a decision (undecided tests count with the cap).
    pub mean_games: f64,
    /// Its standard error (the games' standard deviation over √tests).
    pub mean_games_error: f64,
    /// The median and the 90th percentile of the games.
    pub median_games: u64,
    pub p90_games: u64,
}

impl Measured {
    /// The share of tests that accepted H1: the false-positive rate at Δ = elo0, the power at
    /// Δ = elo1.
    pub fn accept_h1_rate(&self) -> f64 {
        self.accepted_h1 as f64 / self.tests.max(1) as f64
    }

    /// The binomial standard error of `accept_h1_rate`.
    pub fn rate_error(&self) -> f64 {
        let p = self.accept_h1_rate();
        (p * (1.0 - p) / self.tests.max(1) as f64).sqrt()
    }
}

/// What one experiment runs: a design at one strength difference, `tests` times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Experiment<'a> {
    pub model: &'a Model,
    pub design: Design,
    /// The model's strength difference of C over B (see `strength_for_elo`).
    pub delta: f64,
    pub hypotheses: &'a Hypotheses,
    pub tests: u32,
    /// A test still undecided after this many games stops and counts as undecided.
    pub max_games: u64,
    pub seed: u64,
}

/// Runs the experiment's tests on `threads` threads. Test i is seeded by the i-th draw of a
/// generator seeded with the experiment's seed, so the figures do not depend on the threads.
pub fn measure(experiment: &Experiment, threads: usize) -> Measured {
    let e = experiment;
    let mut seeder = Rng::new(e.seed);
    let seeds: Vec<u64> = (0..e.tests).map(|_| seeder.next_u64()).collect();
    let run = |seed: &u64| {
        run_test(
            e.model,
            e.design,
            e.delta,
            e.hypotheses,
            e.max_games,
            &mut Rng::new(*seed),
        )
    };
    let threads = threads.clamp(1, seeds.len().max(1));
    let chunk = seeds.len().div_ceil(threads).max(1);
    let outcomes: Vec<TestOutcome> = std::thread::scope(|scope| {
        let handles: Vec<_> = seeds
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(run).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    summarize(&outcomes)
}

fn summarize(outcomes: &[TestOutcome]) -> Measured {
    let count = |v: Verdict| outcomes.iter().filter(|o| o.verdict == v).count() as u32;
    let mut games: Vec<u64> = outcomes.iter().map(|o| o.games).collect();
    games.sort_unstable();
    let at = |q: f64| {
        games
            .get(((games.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(0)
    };
    let n = games.len().max(1) as f64;
    let mean = games.iter().sum::<u64>() as f64 / n;
    let variance = games
        .iter()
        .map(|&g| (g as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    Measured {
        tests: outcomes.len() as u32,
        accepted_h1: count(Verdict::AcceptH1),
        accepted_h0: count(Verdict::AcceptH0),
        undecided: count(Verdict::Continue),
        mean_games: mean,
        mean_games_error: (variance / n).sqrt(),
        median_games: at(0.5),
        p90_games: at(0.9),
    }
}

/// How much the statistic varies, and how much pairing and deals change that.
#[derive(Clone, Debug, PartialEq)]
pub struct Spread {
    /// The variance of one game's score, C and B in random seats (what an unpaired test sees).
    pub game_variance: f64,
    /// The variance of a twin pair's score (one pair per deal).
    pub pair_variance: f64,
    /// Per table size, for deals played in all seatings: the variance of the deal's mean pair
    /// score times its number of pairs, over the variance of one pair's score. 1 when the
    /// pairs of a deal are independent; above 1 they are correlated, and counting them as
    /// independent units understates the variance by that factor.
    pub deal_design_effect: Vec<(usize, f64)>,
}

impl Spread {
    /// The share of games a paired test needs compared with an unpaired one (both test lengths
    /// grow with the variance per game): 2·var(pair) / var(game).
    pub fn paired_ratio(&self) -> f64 {
        2.0 * self.pair_variance / self.game_variance
    }
}

/// Measures the spread over `n` games, pairs, and deals of each table size.
pub fn spread(model: &Model, delta: f64, n: u64, rng: &mut Rng) -> Spread {
    let (_, game_variance) = game_score(model, delta, n, rng);
    let (_, pair_variance) = pair_score(model, delta, n, rng);
    let mut deal_design_effect = Vec::new();
    for &players in &model.sizes {
        let sized = Model {
            sizes: vec![players],
            ..model.clone()
        };
        let seatings = pair_seatings(players);
        let mut pairs = UnitCounts::new(2);
        let mut deals = UnitCounts::new(seatings.len() as u32 * 2);
        for _ in 0..n.div_ceil(seatings.len() as u64) {
            let deal = draw_deal(&sized, delta, rng);
            let mut sum = 0;
            for seating in &seatings {
                let h = play(model, &deal, seating, rng) + play(model, &deal, &twin(seating), rng);
                pairs.add(h);
                sum += h;
            }
            deals.add(sum);
        }
        let (Some(vp), Some(vd)) = (pairs.sample_variance(), deals.sample_variance()) else {
            continue;
        };
        deal_design_effect.push((players, vd * seatings.len() as f64 / vp));
    }
    Spread {
        game_variance,
        pair_variance,
        deal_design_effect,
    }
}

/// The mean and the variance of C's game score against B over `games` single games with random
/// seats: what the statistic's expectation really is under the model (seat and opening effects
/// pull it a little towards ½ from 1/(1 + 10^(−Δ/400))), and the spread an unpaired test sees.
pub fn game_score(model: &Model, delta: f64, games: u64, rng: &mut Rng) -> (f64, f64) {
    let mut counts = UnitCounts::new(1);
    for _ in 0..games {
        let deal = draw_deal(model, delta, rng);
        counts.add(play(model, &deal, &random_seating(deal.players, rng), rng));
    }
    (
        counts.mean().unwrap_or(0.5),
        counts.sample_variance().unwrap_or(0.0),
    )
}

/// The mean and the variance of twin-pair scores (one pair per deal): with `game_score`'s
/// variance, the share of games pairing saves, 1 − 2·var(pair) / var(game).
pub fn pair_score(model: &Model, delta: f64, pairs: u64, rng: &mut Rng) -> (f64, f64) {
    let mut counts = UnitCounts::new(2);
    for _ in 0..pairs {
        let deal = draw_deal(model, delta, rng);
        let seating = random_seating(deal.players, rng);
        counts.add(play(model, &deal, &seating, rng) + play(model, &deal, &twin(&seating), rng));
    }
    (
        counts.mean().unwrap_or(0.5),
        counts.sample_variance().unwrap_or(0.0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sprt::gsprt::elo_of_score;

    fn plain(field: Vec<f64>, sizes: Vec<usize>) -> Model {
        Model {
            field,
            sizes,
            seats_3: vec![0.0; 3],
            seats_4: vec![0.0; 4],
            opening_seat_sd: 0.0,
            opening_bot_sd: 0.0,
            tie_rate: 0.0,
        }
    }

    #[test]
    fn the_models_check_and_bad_ones_do_not() {
        assert_eq!(Model::measured().check(), Ok(()));
        assert_eq!(Model::decisive().check(), Ok(()));
        let mut m = Model::measured();
        m.sizes = vec![5];
        assert!(m.check().is_err());
        let mut m = Model::measured();
        m.field = vec![0.0];
        assert!(m.check().unwrap_err().contains("cannot fill 2 seats"));
        let mut m = Model::measured();
        m.tie_rate = 1.0;
        assert!(m.check().is_err());
        let mut m = Model::measured();
        m.opening_bot_sd = f64::NAN;
        assert!(m.check().is_err());
    }

    #[test]
    fn seatings_and_twins() {
        assert_eq!(pair_seatings(3).len(), 3);
        assert_eq!(pair_seatings(4).len(), 12);
        let mut all: Vec<[usize; 4]> = pair_seatings(4)
            .iter()
            .flat_map(|s| [*s, twin(s)])
            .collect();
        all.sort();
        all.dedup();
        assert_eq!(
            all.len(),
            24,
            "a pair seating and its twin cover every seating once"
        );
        assert_eq!(twin(&[2, 0, 3, 1]), [2, 1, 3, 0]);
        let mut rng = Rng::new(3);
        for _ in 0..100 {
            let mut s = random_seating(3, &mut rng);
            assert_eq!(s[3], 3);
            s[..3].sort();
            assert_eq!(s, [0, 1, 2, 3]);
        }
    }

    #[test]
    fn plackett_luce_head_to_head_ignores_the_other_seats() {
        // Without seat or opening effects or ties, C's chance to finish above B is
        // 1/(1 + 10^(−Δ/400)) whoever fills the table: the property the hypotheses rest on.
        let mut rng = Rng::new(11);
        let n = 200_000;
        for (field, sizes) in [
            (vec![-300.0, 400.0], vec![4]),
            (vec![0.0, 0.0, 0.0], vec![3]),
            (vec![500.0, 600.0, -200.0], vec![3, 4]),
        ] {
            let (mean, _) = game_score(&plain(field, sizes), 100.0, n, &mut rng);
            let expected = score_of_elo(100.0);
            let error = (expected * (1.0 - expected) / n as f64).sqrt();
            assert!(
                (mean - expected).abs() < 4.0 * error,
                "{mean} vs {expected}"
            );
        }
    }

    #[test]
    fn places_go_by_strength() {
        // C, B and one field bot with strengths 3, 1, 2 (ratings 400·log10 of them), plus seat
        // advantages that make seat 2 twice as strong: in seating C, B, field the strengths are
        // 3, 1, 4. First place: 3/8, 1/8, 4/8; C above B: 3/4 whatever the field bot does.
        let mut model = plain(vec![400.0 * 2f64.log10()], vec![3]);
        model.seats_3 = vec![0.0, 0.0, 400.0 * 2f64.log10()];
        let mut rng = Rng::new(5);
        let deal = draw_deal(&model, 400.0 * 3f64.log10(), &mut rng);
        let n = 200_000;
        let mut first = [0u32; 3];
        let mut above = 0;
        for _ in 0..n {
            let group = finish(&model, &deal, &[0, 1, 2, 3], &mut rng);
            first[group[..3].iter().position(|&g| g == 0).unwrap()] += 1;
            // Without ties the groups are the places 0, 1, 2.
            let mut sorted = group[..3].to_vec();
            sorted.sort();
            assert_eq!(sorted, vec![0, 1, 2]);
            above += (group[0] < group[1]) as u32;
        }
        for (seat, expected) in [3.0 / 8.0, 1.0 / 8.0, 4.0 / 8.0].into_iter().enumerate() {
            let share = first[seat] as f64 / n as f64;
            assert!(
                (share - expected).abs() < 0.005,
                "seat {seat}: {share} vs {expected}"
            );
        }
        assert!((above as f64 / n as f64 - 0.75).abs() < 0.005);
    }

    #[test]
    fn pairing_removes_the_seat_effects_from_the_variance() {
        // Big seat effects and nothing else: a single game is close to a coin toss decided by the
        // seats, while a twin pair nearly always splits. 2·var(pair) is the variance per game of
        // a paired test.
        let mut model = plain(vec![0.0, 0.0], vec![4]);
        model.seats_4 = vec![300.0, 100.0, -100.0, -300.0];
        model.opening_seat_sd = 200.0;
        let mut rng = Rng::new(8);
        let (game_mean, game_var) = game_score(&model, 0.0, 50_000, &mut rng);
        let (pair_mean, pair_var) = pair_score(&model, 0.0, 25_000, &mut rng);
        assert!((game_mean - 0.5).abs() < 0.01 && (pair_mean - 0.5).abs() < 0.01);
        assert!(game_var > 0.24, "{game_var}");
        assert!(2.0 * pair_var < 0.6 * game_var, "{pair_var} vs {game_var}");
        // Opening effects that follow the bot are shared by the twins and do not cancel.
        let mut bots = plain(vec![0.0, 0.0], vec![4]);
        bots.opening_bot_sd = 200.0;
        let (_, game_var) = game_score(&bots, 0.0, 50_000, &mut rng);
        let (_, pair_var) = pair_score(&bots, 0.0, 25_000, &mut rng);
        assert!(2.0 * pair_var > 1.2 * game_var, "{pair_var} vs {game_var}");
    }

    #[test]
    fn the_exact_expectation_agrees_with_played_games() {
        // No seats, openings or ties: the Plackett–Luce head-to-head, exactly.
        let flat = plain(vec![-100.0, 300.0, 0.0], vec![3, 4]);
        for d in [0.0, 35.0, -120.0] {
            assert!((expected_score(&flat, d, 200, 1) - score_of_elo(d)).abs() < 1e-12);
        }
        // With everything: within the noise of 400,000 played games.
        let model = Model::measured();
        let exact = expected_score(&model, 40.0, 20_000, 3);
        let (played, variance) = game_score(&model, 40.0, 400_000, &mut Rng::new(4));
        let error = (variance / 400_000.0).sqrt();
        assert!(
            (exact - played).abs() < 4.0 * error,
            "{exact} vs {played} ± {error}"
        );
        // Seats and openings pull the score towards ½.
        assert!(exact > 0.5 && exact < score_of_elo(40.0));
    }

    #[test]
    fn the_strength_for_an_elo_gives_that_elo() {
        let model = Model::measured();
        for elo in [10.0, -25.0, 60.0] {
            let d = strength_for_elo(&model, elo, 5_000, 7);
            let reached = elo_of_score(expected_score(&model, d, 5_000, 7));
            assert!(
                (reached - elo).abs() < 1e-6,
                "{elo}: d {d} reaches {reached}"
            );
            assert!(
                d.abs() > elo.abs(),
                "the model shrinks differences: {d} for {elo}"
            );
        }
        assert_eq!(strength_for_elo(&model, 0.0, 5_000, 7), 0.0);
        // Without seats and openings the two scales are one.
        let flat = plain(vec![0.0, 0.0], vec![4]);
        assert!((strength_for_elo(&flat, 30.0, 100, 1) - 30.0).abs() < 1e-6);
    }

    #[test]
    fn ties_give_half_points() {
        let mut model = plain(vec![0.0, 0.0], vec![4]);
        model.tie_rate = 0.5;
        let mut rng = Rng::new(2);
        let deal = draw_deal(&model, 0.0, &mut rng);
        let n = 40_000;
        let shared = (0..n)
            .filter(|_| play(&model, &deal, &[0, 1, 2, 3], &mut rng) == 1)
            .count();
        // C and B share a place when no boundary between them is kept. Over the orders of 4 equal
        // bots, C and B are 1, 2 or 3 places apart with chances 1/2, 1/3, 1/6; every boundary
        // between them is merged with chance ½: ½·½ + ⅓·¼ + ⅙·⅛ = 0.354.
        let expected = 0.5 * 0.5 + 0.25 / 3.0 + 0.125 / 6.0;
        let share = shared as f64 / n as f64;
        assert!((share - expected).abs() < 0.01, "{share} vs {expected}");
    }

    #[test]
    fn a_test_is_a_function_of_its_seed() {
        let model = Model::measured();
        let h = Hypotheses::new(0.0, 40.0, 0.05, 0.05).unwrap();
        let design = Design::Paired(PairsPerDeal::One);
        let a = run_test(&model, design, 20.0, &h, 100_000, &mut Rng::new(9));
        let b = run_test(&model, design, 20.0, &h, 100_000, &mut Rng::new(9));
        assert_eq!(a, b);
        assert_ne!(a.verdict, Verdict::Continue);
        assert_eq!(a.games, 2 * a.units);
        // A cap stops a test undecided.
        let capped = run_test(&model, design, 20.0, &h, 10, &mut Rng::new(9));
        assert_eq!(capped.verdict, Verdict::Continue);
        assert_eq!(capped.games, 10);
        // Units of all seatings: 6 or 24 games each.
        let all = run_test(
            &model,
            Design::Paired(PairsPerDeal::AllSeatings),
            20.0,
            &h,
            100_000,
            &mut Rng::new(4),
        );
        assert!(all.games >= 6 * all.units && all.games <= 24 * all.units);
    }

    #[test]
    fn an_experiment_does_not_depend_on_the_threads() {
        let model = Model::decisive();
        let h = Hypotheses::new(0.0, 80.0, 0.05, 0.05).unwrap();
        let e = Experiment {
            model: &model,
            design: Design::Unpaired,
            delta: 40.0,
            hypotheses: &h,
            tests: 30,
            max_games: 100_000,
            seed: 12,
        };
        let one = measure(&e, 1);
        assert_eq!(one, measure(&e, 3));
        assert_eq!(one.tests, 30);
        assert_eq!(one.accepted_h1 + one.accepted_h0 + one.undecided, 30);
        assert!(one.median_games <= one.p90_games);
    }

    #[test]
    fn deals_of_all_seatings_are_correlated_by_the_bot_effects() {
        let mut rng = Rng::new(21);
        let mut model = plain(vec![0.0, 0.0], vec![4]);
        model.opening_bot_sd = 100.0;
        let s = spread(&model, 0.0, 20_000, &mut rng);
        let (players, effect) = s.deal_design_effect[0];
        assert_eq!(players, 4);
        assert!(effect > 2.0, "{s:?}");
        // Without opening effects the 12 pairs of a deal are independent.
        let s = spread(&plain(vec![0.0, 0.0], vec![4]), 0.0, 20_000, &mut rng);
        assert!((s.deal_design_effect[0].1 - 1.0).abs() < 0.15, "{s:?}");
        assert!((s.paired_ratio() - 1.0).abs() < 0.05, "{s:?}");
    }

    #[test]
    fn error_rates_hold_on_a_small_experiment() {
        // Wide hypotheses so that the tests are short: the false-positive rate at elo0 stays near
        // alpha and the power at elo1 near 1 − beta, paired and unpaired. 400 tests: a standard
        // error of about 1.1 points at 5%.
        let model = Model::measured();
        let h = Hypotheses::new(0.0, 60.0, 0.05, 0.05).unwrap();
        let d1 = strength_for_elo(&model, 60.0, 5_000, 1);
        for design in [Design::Paired(PairsPerDeal::One), Design::Unpaired] {
            let experiment = |delta, seed| Experiment {
                model: &model,
                design,
                delta,
                hypotheses: &h,
                tests: 400,
                max_games: 1_000_000,
                seed,
            };
            let null = measure(&experiment(0.0, 1), 2);
            assert!(null.accept_h1_rate() <= 0.05 + 0.035, "{design:?} {null:?}");
            assert_eq!(null.undecided, 0);
            let alternative = measure(&experiment(d1, 2), 1);
            assert!(
                alternative.accept_h1_rate() >= 0.95 - 0.035,
                "{design:?} {alternative:?}"
            );
        }
    }
}
