//! Figures for the SPRT ("Is my new version better?" in README.md), three ways:
//!
//! ```text
//! cargo run --release --example sprt -- simulate [--quick] [--tests N] [--elo0 E] [--elo1 E] ...
//! cargo run --release --example sprt -- records FILE... --pair X:Y [--pair X:Y ...]
//! cargo run --release --example sprt -- engines --pairs N --move-ms MS --players K C B FIELD...
//! ```
//!
//! `simulate` runs whole sequential tests on the synthetic Plackett–Luce table of
//! `multiversi::sprt::sim` (no processes) and prints the measured error rates and test lengths,
//! paired against unpaired: `bench/sprt.sh` runs it. `records` measures, in real league records
//! (deals played in all seatings), how much a twin pair varies compared with single games for two
//! bots X and Y, and how correlated the pairs of one deal are: the numbers the simulated table is
//! sized by. `engines` plays twin pairs of built-in engines in this process (no referee, no
//! time faults) from random openings and measures the same for them.

use clap::{Parser, Subcommand};
use multiversi::bots::engine;
use multiversi::record::GameRecord;
use multiversi::rng::Rng;
use multiversi::rules::{ranking, BoardKind, Position, Rules, Seat};
use multiversi::sprt::gsprt::{elo_of_score, Hypotheses};
use multiversi::sprt::sim::{self, Design, Experiment, Measured, Model, PairsPerDeal};
use multiversi::sprt::units::head_to_head;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(about = "Figures for the SPRT: simulated tests, and twin-pair variances of real games")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Whole sequential tests on the synthetic table: error rates and games, paired and unpaired.
    Simulate(SimulateArgs),
    /// Twin-pair variances of two bots in league records whose deals were played in all seatings.
    Records {
        files: Vec<PathBuf>,
        /// Two bots' names, X:Y (repeatable).
        #[arg(long = "pair", required = true)]
        pairs: Vec<String>,
    },
    /// Plays twin pairs of built-in engines in-process from random openings.
    Engines(EnginesArgs),
}

#[derive(clap::Args)]
struct SimulateArgs {
    /// Tiny sizes that finish in seconds (100 tests, elo1 = 40).
    #[arg(long)]
    quick: bool,
    /// Tests per design and hypothesis (default 1000; 100 with --quick).
    #[arg(long)]
    tests: Option<u32>,
    #[arg(long, default_value_t = 0.0)]
    elo0: f64,
    /// Default 10; 40 with --quick.
    #[arg(long)]
    elo1: Option<f64>,
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads (the figures do not depend on them).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// `measured`, `decisive` or `both`.
    #[arg(long, default_value = "both")]
    model: String,
}

#[derive(clap::Args)]
struct EnginesArgs {
    /// Twin pairs to play.
    #[arg(long, default_value_t = 100)]
    pairs: u32,
    #[arg(long, default_value_t = 20)]
    move_ms: u64,
    #[arg(long, default_value_t = 3)]
    players: u32,
    /// Random moves before the engines take over, the same in a game and its twin.
    #[arg(long, default_value_t = 4)]
    opening: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The candidate, the baseline, then the field bots the other seats are drawn from.
    #[arg(required = true, num_args = 3..)]
    bots: Vec<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Simulate(args) => simulate(&args),
        Command::Records { files, pairs } => records(&files, &pairs),
        Command::Engines(args) => engines(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("sprt: {message}");
            ExitCode::from(2)
        }
    }
}

// ---- simulate -------------------------------------------------------------------------------

fn simulate(args: &SimulateArgs) -> Result<(), String> {
    let tests = args.tests.unwrap_or(if args.quick { 100 } else { 1000 });
    let elo1 = args.elo1.unwrap_or(if args.quick { 40.0 } else { 10.0 });
    let h = Hypotheses::new(args.elo0, elo1, args.alpha, args.beta).map_err(|e| e.to_string())?;
    let models: Vec<(&str, Model)> = match args.model.as_str() {
        "measured" => vec![("measured", Model::measured())],
        "decisive" => vec![("decisive", Model::decisive())],
        "both" => vec![
            ("measured", Model::measured()),
            ("decisive", Model::decisive()),
        ],
        other => return Err(format!("--model {other}: measured, decisive or both")),
    };
    let draws = if args.quick { 2_000 } else { 20_000 };
    let spread_games = if args.quick { 20_000 } else { 200_000 };
    let bounds = h.bounds();
    println!(
        "SPRT elo0 {} elo1 {} alpha {} beta {}: LLR bounds ({:.3}, {:.3}); {tests} tests per row, seed {}",
        h.elo0, h.elo1, h.alpha, h.beta, bounds.lower, bounds.upper, args.seed
    );
    let started = Instant::now();
    for (name, model) in &models {
        model.check()?;
        println!();
        println!(
            "model '{name}': field {:?}; tables of {:?}; seat advantage 3p {:?}, 4p {:?}; \
             opening effect sd {} per seat, {} per bot; ties {}%",
            model.field,
            model.sizes,
            model.seats_3,
            model.seats_4,
            model.opening_seat_sd,
            model.opening_bot_sd,
            100.0 * model.tie_rate
        );
        let s = sim::spread(model, 0.0, spread_games, &mut Rng::new(args.seed));
        let effects: Vec<String> = s
            .deal_design_effect
            .iter()
            .map(|(k, e)| format!("{k}p {e:.2}"))
            .collect();
        println!(
            "  at Δ = 0: variance per game {:.4}, per pair {:.4}: a paired game is worth 1/{:.3} unpaired ones; \
             deals in all seatings, design effect {}",
            s.game_variance,
            s.pair_variance,
            s.paired_ratio(),
            effects.join(", ")
        );
        let d0 = sim::strength_for_elo(model, h.elo0, draws, args.seed);
        let d1 = sim::strength_for_elo(model, h.elo1, draws, args.seed);
        println!(
            "  on the test's scale elo0 = {} and elo1 = {} are strength differences {d0:.2} and {d1:.2} \
             in the model (seats and openings pull the head-to-head towards ½)",
            h.elo0, h.elo1
        );
        println!(
            "  {:<56} {:>7} {:>16} {:>9} {:>6} {:>18} {:>9} {:>9}",
            "design", "Δ", "accept H1", "accept H0", "undec", "mean games", "median", "90%"
        );
        let designs = [
            Design::Paired(PairsPerDeal::One),
            Design::Unpaired,
            Design::Paired(PairsPerDeal::AllSeatings),
            Design::PairsAsUnits(PairsPerDeal::AllSeatings),
        ];
        let mut results: Vec<(Design, f64, Measured)> = Vec::new();
        for design in designs {
            for (elo, delta, salt) in [(h.elo0, d0, 0u64), (h.elo1, d1, 1)] {
                let e = Experiment {
                    model,
                    design,
                    delta,
                    hypotheses: &h,
                    tests,
                    max_games: 5_000_000,
                    seed: args.seed ^ (salt << 32),
                };
                let m = sim::measure(&e, args.threads);
                println!(
                    "  {:<56} {:>7} {:>7.1}% ± {:>4.1} {:>8.1}% {:>6} {:>18} {:>9} {:>9}",
                    design.describe(),
                    format!("{elo}"),
                    100.0 * m.accept_h1_rate(),
                    100.0 * m.rate_error(),
                    100.0 * m.accepted_h0 as f64 / m.tests as f64,
                    m.undecided,
                    format!("{:.0} ± {:.0}", m.mean_games, m.mean_games_error),
                    m.median_games,
                    m.p90_games
                );
                results.push((design, elo, m));
            }
        }
        let find = |d: Design, elo: f64| {
            results
                .iter()
                .find(|(dd, e, _)| *dd == d && *e == elo)
                .map(|(_, _, m)| m.clone())
        };
        let paired = Design::Paired(PairsPerDeal::One);
        let (Some(p0), Some(p1), Some(u0), Some(u1)) = (
            find(paired, h.elo0),
            find(paired, h.elo1),
            find(Design::Unpaired, h.elo0),
            find(Design::Unpaired, h.elo1),
        ) else {
            continue;
        };
        // The ratio of two independent means, with its standard error by the delta method.
        let ratio = |p: &Measured, u: &Measured| {
            let r = p.mean_games / u.mean_games;
            let e = r
                * ((p.mean_games_error / p.mean_games).powi(2)
                    + (u.mean_games_error / u.mean_games).powi(2))
                .sqrt();
            (r, e)
        };
        let ((r0, e0), (r1, e1)) = (ratio(&p0, &u0), ratio(&p1, &u1));
        println!(
            "  paired / unpaired mean games: {r0:.3} ± {e0:.3} at elo0, {r1:.3} ± {e1:.3} at elo1 (goal: at most 0.80) -> {}",
            if r0.max(r1) <= 0.8 { "met" } else { "not met" }
        );
        for (label, m0, m1) in [("paired", &p0, &p1), ("unpaired", &u0, &u1)] {
            let fpr = m0.accept_h1_rate();
            let power = m1.accept_h1_rate();
            println!(
                "  {label}: false positives {:.1}% (goal: at most {:.1}%) {}, power {:.1}% (goal: at least {:.1}%) {}",
                100.0 * fpr,
                100.0 * (h.alpha + 0.02),
                if fpr <= h.alpha + 0.02 { "ok" } else { "FAILED" },
                100.0 * power,
                100.0 * (1.0 - h.beta - 0.02),
                if power >= 1.0 - h.beta - 0.02 { "ok" } else { "FAILED" },
            );
        }
        if let (Some(w0), Some(c0)) = (
            find(Design::PairsAsUnits(PairsPerDeal::AllSeatings), h.elo0),
            find(Design::Paired(PairsPerDeal::AllSeatings), h.elo0),
        ) {
            println!(
                "  deals in all seatings: false positives {:.1}% with the deal as the unit, {:.1}% with its pairs counted as independent",
                100.0 * c0.accept_h1_rate(),
                100.0 * w0.accept_h1_rate()
            );
        }
    }
    println!();
    println!(
        "{:.1} s on {} thread(s)",
        started.elapsed().as_secs_f64(),
        args.threads
    );
    Ok(())
}

// ---- variance of real games ------------------------------------------------------------------

/// The pairs of one deal: (X's score against Y in a game, X's score in its twin).
type DealPairs = Vec<(f64, f64)>;

fn variance(xs: impl Iterator<Item = f64> + Clone) -> f64 {
    let n = xs.clone().count() as f64;
    let mean = xs.clone().sum::<f64>() / n;
    xs.map(|x| (x - mean).powi(2)).sum::<f64>() / n
}

/// 2·var(pair) / var(game), and the deals' design effect (var(deal mean)·pairs / var(pair)),
/// for deals of equal size.
fn figures(deals: &[&DealPairs]) -> (f64, f64, Option<f64>) {
    let games = deals
        .iter()
        .flat_map(|d| d.iter().flat_map(|&(a, b)| [a, b]));
    let pairs = deals
        .iter()
        .flat_map(|d| d.iter().map(|&(a, b)| (a + b) / 2.0));
    let ratio = 2.0 * variance(pairs.clone()) / variance(games.clone());
    let per_deal = deals.first().map_or(0, |d| d.len());
    let effect = (per_deal > 1).then(|| {
        let means = deals
            .iter()
            .map(|d| d.iter().map(|&(a, b)| (a + b) / 2.0).sum::<f64>() / d.len() as f64);
        variance(means) * per_deal as f64 / variance(pairs.clone())
    });
    let mean = games.clone().sum::<f64>() / games.count() as f64;
    (mean, ratio, effect)
}

/// Prints the figures of deals of twin pairs with 95% bootstrap intervals over the deals.
fn report(label: &str, deals: &[DealPairs]) {
    if deals.len() < 2 {
        println!("{label}: fewer than 2 deals");
        return;
    }
    let all: Vec<&DealPairs> = deals.iter().collect();
    let (mean, ratio, effect) = figures(&all);
    let mut rng = Rng::new(1);
    let mut ratios = Vec::new();
    let mut effects = Vec::new();
    for _ in 0..1000 {
        let sample: Vec<&DealPairs> = (0..deals.len())
            .map(|_| &deals[rng.below(deals.len() as u64) as usize])
            .collect();
        let (_, r, e) = figures(&sample);
        if r.is_finite() {
            ratios.push(r);
        }
        if let Some(e) = e.filter(|e| e.is_finite()) {
            effects.push(e);
        }
    }
    let interval = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        (at(0.025), at(0.975))
    };
    let (lo, hi) = interval(&mut ratios);
    let pairs: usize = deals.iter().map(|d| d.len()).sum();
    print!(
        "{label}: {} games, {pairs} pairs in {} deals; score {:.3} ({:+.0} Elo); 2·var(pair)/var(game) {ratio:.3} [{lo:.3}, {hi:.3}]",
        2 * pairs,
        deals.len(),
        mean,
        elo_of_score(mean.clamp(1e-6, 1.0 - 1e-6))
    );
    match effect {
        Some(e) if !effects.is_empty() => {
            let (lo, hi) = interval(&mut effects);
            println!(", deal design effect {e:.2} [{lo:.2}, {hi:.2}]");
        }
        _ => println!(),
    }
}

fn records(files: &[PathBuf], pairs: &[String]) -> Result<(), String> {
    let read = multiversi::replay::read::read_files(files).map_err(|e| e.to_string())?;
    if !read.damaged.is_empty() {
        eprintln!("sprt: {} damaged line(s) skipped", read.damaged.len());
    }
    // Deals by (run, deal).
    let mut deals: BTreeMap<(String, u64), Vec<&GameRecord>> = BTreeMap::new();
    for loaded in &read.games {
        if let Some(s) = &loaded.record.schedule {
            deals
                .entry((s.run.clone(), s.deal))
                .or_default()
                .push(&loaded.record);
        }
    }
    for pair in pairs {
        let Some((x, y)) = pair.split_once(':') else {
            return Err(format!("--pair {pair}: two names, X:Y"));
        };
        // Per table size, the deals' twin pairs.
        let mut by_size: BTreeMap<usize, Vec<DealPairs>> = BTreeMap::new();
        for games in deals.values() {
            let names = |g: &GameRecord| -> Vec<String> {
                g.seats.iter().map(|s| s.name.clone()).collect()
            };
            let mut found = DealPairs::new();
            for g in games {
                let n = names(g);
                let (Some(a), Some(b)) =
                    (n.iter().position(|s| s == x), n.iter().position(|s| s == y))
                else {
                    continue;
                };
                if a > b {
                    continue;
                }
                let mut swapped = n.clone();
                swapped.swap(a, b);
                let Some(twin) = games.iter().find(|t| names(t) == swapped) else {
                    continue;
                };
                let score = |g: &GameRecord, a: Seat, b: Seat| {
                    head_to_head(&g.ranking, a, b).map(|h| h as f64 / 2.0)
                };
                if let (Some(first), Some(second)) = (score(g, a, b), score(twin, b, a)) {
                    found.push((first, second));
                }
            }
            if !found.is_empty() {
                by_size.entry(games[0].seats.len()).or_default().push(found);
            }
        }
        if by_size.is_empty() {
            println!("{x} vs {y}: no twin pairs in these records");
        }
        for (players, mut list) in by_size {
            // Deals of the usual size only, so that the design effect compares like with like.
            let usual = list.iter().map(|d| d.len()).max().unwrap_or(0);
            list.retain(|d| d.len() == usual);
            report(&format!("{x} vs {y}, {players} players"), &list);
        }
    }
    Ok(())
}

// ---- engines ---------------------------------------------------------------------------------

fn engines(args: &EnginesArgs) -> Result<(), String> {
    let k = args.players as usize;
    if !(3..=4).contains(&k) {
        return Err(format!("--players {k}: 3 or 4"));
    }
    let (candidate, baseline, field) = (&args.bots[0], &args.bots[1], &args.bots[2..]);
    if field.len() < k - 2 {
        return Err(format!(
            "{} field bots cannot fill {} seats",
            field.len(),
            k - 2
        ));
    }
    for name in &args.bots {
        if engine(name, 0).is_none() {
            return Err(format!("'{name}' is not a built-in engine"));
        }
    }
    let rules = Rules::new(args.players, BoardKind::Eight, false).map_err(|e| e.to_string())?;
    let mut rng = Rng::new(args.seed);
    let mut pairs = Vec::new();
    let started = Instant::now();
    for p in 0..args.pairs {
        // The field bots and the opening of this pair.
        let mut pool: Vec<&String> = field.iter().collect();
        let mut bots = vec![candidate, baseline];
        for _ in 0..k - 2 {
            bots.push(pool.swap_remove(rng.below(pool.len() as u64) as usize));
        }
        let mut start = Position::new(rules.clone());
        for _ in 0..args.opening {
            if start.is_over() {
                break;
            }
            let (moves, _) = start.legal_moves();
            let Some(&square) = moves.get(rng.below(moves.len().max(1) as u64) as usize) else {
                break;
            };
            start.play(square).map_err(|e| format!("opening: {e:?}"))?;
        }
        // A random seating (bots[seating[s]] in seat s) and its twin.
        let mut seating: Vec<usize> = (0..k).collect();
        for i in (1..k).rev() {
            seating.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let twin: Vec<usize> = seating
            .iter()
            .map(|&b| match b {
                0 => 1,
                1 => 0,
                other => other,
            })
            .collect();
        let mut score = [0.0; 2];
        for (g, seating) in [&seating, &twin].into_iter().enumerate() {
            let names: Vec<&str> = seating.iter().map(|&b| bots[b].as_str()).collect();
            let seed = rng.next_u64();
            let ranking = play(&rules, &start, &names, args.move_ms, seed)?;
            let c = seating.iter().position(|&b| b == 0).unwrap_or(0);
            let b = seating.iter().position(|&b| b == 1).unwrap_or(1);
            score[g] = head_to_head(&ranking, c, b).unwrap_or(1) as f64 / 2.0;
        }
        pairs.push(vec![(score[0], score[1])]);
        if (p + 1) % 10 == 0 {
            eprintln!("{} pairs, {:.0} s", p + 1, started.elapsed().as_secs_f64());
        }
    }
    report(
        &format!(
            "{candidate} vs {baseline}, {k} players, field {field:?}, {} ms per move, {}-move openings",
            args.move_ms, args.opening
        ),
        &pairs,
    );
    Ok(())
}

/// One in-process game from `start` with these engines by seat; the ranking by discs.
fn play(
    rules: &Rules,
    start: &Position,
    names: &[&str],
    move_ms: u64,
    seed: u64,
) -> Result<Vec<Vec<Seat>>, String> {
    let mut bots = Vec::new();
    for (s, name) in names.iter().enumerate() {
        let mut bot = engine(name, seed.wrapping_add(s as u64))
            .ok_or_else(|| format!("'{name}' is not a built-in engine"))?;
        bot.new_game(rules, s);
        bots.push(bot);
    }
    let mut position = start.clone();
    while !position.is_over() {
        let seat = position.to_move();
        // As `multiversi bot` does: the engine gets 80% of the move time as its deadline.
        let deadline = Instant::now() + Duration::from_millis(move_ms * 8 / 10);
        let square = bots[seat].choose(&position, deadline);
        position
            .play(square)
            .map_err(|e| format!("{} played an illegal move: {e:?}", names[seat]))?;
    }
    Ok(ranking(
        &position.scores(),
        rules.anti,
        &vec![true; names.len()],
    ))
}
