//! Standings and ratings: pure functions of game records.
//!
//! Each record is summarised as it is read (`games`) and added to sums that grow with the bots and
//! deals, not the games (`aggregate`); from those come the counts per bot, seat and pair (`tally`
//! computes the same game by game, the measure the sums are tested against), the
//! Plackett–Luce rating with bootstrap intervals (`rating`) and an online Weng–Lin cross-check
//! (`weng_lin`). `compute` puts it all together in rank order; `report` prints and writes it
//! (terminal, JSON, CSV, HTML); `input` reads record files; `command` is `multiversi standings`.
//!
//! A league calls it like this:
//! ```no_run
//! use multiversi::standings::{self, Games, Options};
//! # fn finished_games() -> Vec<multiversi::record::GameRecord> { vec![] }
//! let mut games = Games::new();
//! for record in finished_games() {
//!     games.add(&record).ok();
//! }
//! let table = standings::compute(&games, &Options::quick()).unwrap();
//! print!("{}", standings::report::terminal(&table, false));
//! ```

mod aggregate;
mod by_ordinal;
pub mod command;
mod compact;
pub mod game_list;
pub mod games;
pub mod input;
mod lean;
pub mod rating;
pub mod report;
pub mod tally;
pub mod weng_lin;

pub use game_list::{GameLine, GameList};
pub use games::{Added, GameSummary, Games, NameClash};
/// Whole games as the referee records them, for tests elsewhere.
#[cfg(test)]
pub(crate) use lean::tests::game_on;
pub use tally::{BotTally, Meeting, SeatTally};

/// What to compute.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Bootstrap replicates for the intervals (0: none).
    pub replicates: u32,
    /// Seed of the bootstrap.
    pub seed: u64,
    /// The bot whose rating is 0; None puts the mean at 0.
    pub anchor: Option<String>,
}

impl Default for Options {
    /// What `multiversi standings` does: 200 replicates, seed 1, mean 0.
    fn default() -> Self {
        Options {
            replicates: 200,
            seed: 1,
            anchor: None,
        }
    }
}

impl Options {
    /// No bootstrap: the table and the fitted ratings only, for standings shown while a league
    /// runs.
    pub fn quick() -> Options {
        Options {
            replicates: 0,
            ..Options::default()
        }
    }
}

/// The fewest deals a bot must have played in for its bootstrap interval to be shown. The
/// bootstrap resamples whole deals; a bot seen in one deal has the same games in every replicate
/// it is drawn into, so its interval shows only how the other bots' ratings move, and with two to
/// four deals there are only a handful of different resamples of its games: such an interval
/// looks tight and means nothing. Its rating rests on few games and is rough.
pub const MIN_DEALS: u32 = 5;

/// One bot's line of the standings.
#[derive(Clone, Debug, PartialEq)]
pub struct BotStanding {
    /// 1 = best rating.
    pub rank: usize,
    pub name: String,
    pub tally: BotTally,
    /// Plackett–Luce rating on the Elo-like scale.
    pub rating: f64,
    /// Its 95% bootstrap interval (None: no bootstrap, the anchor bot, or fewer than `MIN_DEALS`
    /// deals).
    pub interval: Option<(f64, f64)>,
    /// The deals it played in.
    pub deals: u32,
    pub weng_lin: weng_lin::WengLin,
    /// Likelihood that this bot is stronger than the next one down (None for the last bot,
    /// without a bootstrap, or when either bot played in fewer than `MIN_DEALS` deals).
    pub superiority_next: Option<f64>,
}

impl BotStanding {
    /// Whether it played in too few deals for a meaningful interval (`MIN_DEALS`).
    pub fn too_few_deals(&self) -> bool {
        self.deals < MIN_DEALS
    }

    /// Why its interval is not shown although intervals were asked for: "seen in only 1 deal".
    pub fn interval_note(&self, options: &Options) -> Option<String> {
        (options.replicates > 0 && self.too_few_deals()).then(|| {
            let plural = if self.deals == 1 { "" } else { "s" };
            format!("seen in only {} deal{plural}", self.deals)
        })
    }
}

/// Everything the reports show. Bots are in rank order, and so are the rows and columns of the
/// head-to-head and superiority matrices.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    pub games: usize,
    pub deals: usize,
    /// Lines of the record files that could not be read and were skipped (set by the reader).
    pub damaged_lines: usize,
    /// Games read twice and counted once (set by the reader).
    pub duplicates: usize,
    /// Records not counted because a game read before holds their place in their schedule.
    pub same_place: usize,
    /// Records not counted because they are not the games of the run whose standings these are
    /// (a league's or a test's at its end: `command::Only`); 0 for any records' standings.
    pub other_runs: usize,
    pub options: Options,
    /// Bootstrap replicates actually drawn (0 with fewer than two deals).
    pub replicates: u32,
    pub bots: Vec<BotStanding>,
    pub seats: Vec<SeatTally>,
    pub head_to_head: Vec<Vec<Meeting>>,
    pub superiority: Vec<Vec<Option<f64>>>,
    /// Every game, for the game list of the HTML page: its number, id and seats' bots (as ranks
    /// in `bots`, from 0) with their places.
    pub game_list: GameList,
}

/// Computes the standings of the games. Fails only when the anchor bot is not among them.
pub fn compute(games: &Games, options: &Options) -> Result<Standings, String> {
    let list = games.sums.list.clone().unwrap_or_default();
    compute_with(games, options, list)
}

/// `compute` for games not needed after it: the HTML page's list of games, which grows with
/// the games, is moved into the standings rather than copied.
pub fn compute_owned(mut games: Games, options: &Options) -> Result<Standings, String> {
    let list = games.sums.list.take().unwrap_or_default();
    compute_with(&games, options, list)
}

fn compute_with(games: &Games, options: &Options, list: GameList) -> Result<Standings, String> {
    let c = games.sums.canonical(&games.names, &games.runs);
    // Sums with their deals merged have nothing to resample.
    debug_assert!(c.prepared.deals.len() == games.deals as usize || options.replicates == 0);
    let ratings = |anchor| {
        rating::fit_prepared(
            &c.prepared,
            &rating::RatingOptions {
                replicates: options.replicates,
                seed: options.seed,
                anchor,
                ..rating::RatingOptions::default()
            },
        )
    };
    assemble(
        Parts {
            names: &c.names,
            tallies: &c.tallies,
            deals_played: &c.deals_played,
            online: &c.online,
            seats: c.seats.clone(),
            head_to_head: &c.head_to_head,
            games: games.count() as usize,
            deals: games.deals as usize,
        },
        options,
        ratings,
        list,
        &c.renumber,
    )
}

/// What the standings are made of, bots indexed like `names` (in schedule order).
struct Parts<'a> {
    names: &'a [String],
    tallies: &'a [BotTally],
    deals_played: &'a [u32],
    online: &'a [weng_lin::WengLin],
    seats: Vec<SeatTally>,
    head_to_head: &'a [Vec<Meeting>],
    games: usize,
    deals: usize,
}

/// The standings from their parts: the anchor found, the ratings fitted (`fit`, given the
/// anchor's index), bots put in rank order with the matrices to match, and the games listed with
/// bots as ranks (`list`, in reading order, renumbered in place: `renumber[bot]` is the index in
/// the parts of a bot as `list` numbers it).
fn assemble(
    parts: Parts,
    options: &Options,
    fit: impl FnOnce(Option<u32>) -> rating::Ratings,
    mut list: GameList,
    renumber: &[u32],
) -> Result<Standings, String> {
    let names = parts.names;
    let n = names.len();
    let anchor = match &options.anchor {
        None => None,
        Some(name) => match names.iter().position(|b| b == name) {
            Some(i) => Some(i as u32),
            None => {
                return Err(format!(
                    "anchor bot '{}' played none of these games (bots: {})",
                    crate::text::visible(name),
                    names
                        .iter()
                        .map(|n| crate::text::visible(n).into_owned())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
        },
    };
    let tallies = parts.tallies;
    let fitted = fit(anchor);
    let online = parts.online;
    let deals = parts.deals_played;
    let meaningful = |bot: usize| deals[bot] >= MIN_DEALS;
    let superiority: Vec<Vec<Option<f64>>> = fitted
        .superiority
        .iter()
        .enumerate()
        .map(|(a, row)| {
            row.iter()
                .enumerate()
                .map(|(b, &x)| x.filter(|_| meaningful(a) && meaningful(b)))
                .collect()
        })
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        fitted.rating[b]
            .total_cmp(&fitted.rating[a])
            .then(tallies[b].points.total_cmp(&tallies[a].points))
            .then(names[a].cmp(&names[b]))
    });
    let mut rank_of = vec![0u32; n];
    for (rank, &bot) in order.iter().enumerate() {
        rank_of[bot] = rank as u32;
    }
    let bots = order
        .iter()
        .enumerate()
        .map(|(rank, &bot)| BotStanding {
            rank: rank + 1,
            name: names[bot].clone(),
            tally: tallies[bot].clone(),
            rating: fitted.rating[bot],
            interval: fitted.interval[bot].filter(|_| meaningful(bot)),
            deals: deals[bot],
            weng_lin: online[bot],
            superiority_next: order.get(rank + 1).and_then(|&next| superiority[bot][next]),
        })
        .collect();
    // The page lists the games as read, like the replay viewer it links to.
    list.renumber(renumber.iter().map(|&bot| rank_of[bot as usize]).collect());
    Ok(Standings {
        games: parts.games,
        deals: parts.deals,
        damaged_lines: 0,
        duplicates: 0,
        same_place: 0,
        other_runs: 0,
        options: options.clone(),
        replicates: fitted.replicates,
        bots,
        seats: parts.seats,
        head_to_head: reorder(parts.head_to_head, &order),
        superiority: reorder(&superiority, &order),
        game_list: list,
    })
}

/// The standings computed game by game from every game's summary in schedule order, as they
/// were before the sums: the measure `compute` must agree with, figure for figure.
#[cfg(test)]
pub(crate) fn compute_game_by_game(games: &Games, options: &Options) -> Result<Standings, String> {
    let games = &games.in_schedule_order();
    let n = games.names.len();
    let tallies = tally::bots(&games.games, n);
    let online = weng_lin::ratings(&games.games, n);
    let deals = tally::deals(&games.games, n);
    let pairs = tally::head_to_head(&games.games, n);
    let mut by_number: Vec<&GameSummary> = games.games.iter().collect();
    by_number.sort_by_key(|g| g.number);
    let mut list = GameList::default();
    for g in by_number {
        list.push_game(g);
    }
    let same: Vec<u32> = (0..n as u32).collect();
    let fit = |anchor| {
        rating::fit(
            &games.games,
            n,
            games.deals as usize,
            &rating::RatingOptions {
                replicates: options.replicates,
                seed: options.seed,
                anchor,
                ..rating::RatingOptions::default()
            },
        )
    };
    assemble(
        Parts {
            names: &games.names,
            tallies: &tallies,
            deals_played: &deals,
            online: &online,
            seats: tally::seats(&games.games),
            head_to_head: &pairs,
            games: games.games.len(),
            deals: games.deals as usize,
        },
        options,
        fit,
        list,
        &same,
    )
}

/// A square matrix with rows and columns put in `order`.
fn reorder<T: Copy>(m: &[Vec<T>], order: &[usize]) -> Vec<Vec<T>> {
    order
        .iter()
        .map(|&a| order.iter().map(|&b| m[a][b]).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::games::tests::record;
    use super::*;
    use crate::rules::Outcome;

    #[test]
    fn bots_come_in_rating_order_with_matrices_to_match() {
        let mut games = Games::new();
        // c always first, a second, b last.
        for i in 0..6 {
            let mut r = record(
                &["a", "b", "c"],
                &[2, 1, 3],
                &[&[2], &[0], &[1]],
                Outcome::Win { winner: 2 },
            );
            r.game = format!("g{i}");
            games.add(&r).unwrap();
        }
        let s = compute(&games, &Options::default()).unwrap();
        let names: Vec<&str> = s.bots.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, vec!["c", "a", "b"]);
        assert_eq!(s.bots[0].rank, 1);
        assert_eq!(s.bots[0].tally.wins, 6);
        assert_eq!(s.head_to_head[0][1].above, 6);
        assert_eq!(s.head_to_head[1][0].above, 0);
        assert_eq!(s.superiority[0][1], Some(1.0));
        assert_eq!(s.bots[0].superiority_next, Some(1.0));
        assert_eq!(s.bots[2].superiority_next, None);
        assert_eq!((s.games, s.deals, s.replicates), (6, 6, 200));
        assert_eq!(
            s.game_list.iter().next().unwrap().seats(),
            [(1, 2.0, false), (2, 3.0, false), (0, 1.0, false)]
        );
        assert!(s.bots[0].weng_lin.mu > s.bots[2].weng_lin.mu);
    }

    /// The games of a small league, scheduled: deal d has the games 6d..6d+5, and the bots'
    /// finishing orders vary from game to game so that the online rating depends on their order.
    fn league_games() -> Vec<crate::record::GameRecord> {
        let bots = ["a", "b", "c", "d"];
        (0..24u64)
            .map(|i| {
                let seated = [
                    bots[i as usize % 4],
                    bots[(i as usize + 1) % 4],
                    bots[(i as usize * 3 + 2) % 4],
                ];
                let seated = if seated[2] == seated[0] || seated[2] == seated[1] {
                    [seated[0], seated[1], bots[(i as usize + 2) % 4]]
                } else {
                    seated
                };
                let winner = (i * 7 % 3) as usize;
                let ranking: Vec<Vec<usize>> = (0..3).map(|k| vec![(winner + k) % 3]).collect();
                let ranking: Vec<&[usize]> = ranking.iter().map(Vec::as_slice).collect();
                let mut scores = [10, 10, 10];
                scores[winner] = 30;
                scores[(winner + 1) % 3] = 20;
                let mut r = record(&seated, &scores, &ranking, Outcome::Win { winner });
                r.game = format!("g{i}");
                super::games::tests::scheduled(r, "league", i, i / 6)
            })
            .collect()
    }

    #[test]
    fn standings_do_not_depend_on_the_order_games_are_read_in() {
        let records = league_games();
        let mut in_order = Games::new();
        for r in &records {
            in_order.add(r).unwrap();
        }
        // As shards 2 and 1 of 2 merged, each shard's games in the order they finished.
        let mut shuffled = Games::new();
        for r in records
            .iter()
            .filter(|r| r.schedule.as_ref().unwrap().deal % 2 == 1)
            .rev()
        {
            shuffled.add(r).unwrap();
        }
        for r in records
            .iter()
            .filter(|r| r.schedule.as_ref().unwrap().deal % 2 == 0)
            .rev()
        {
            shuffled.add(r).unwrap();
        }
        assert_ne!(
            in_order.names, shuffled.names,
            "the bots are met in another order"
        );
        let a = compute(&in_order, &Options::default()).unwrap();
        let b = compute(&shuffled, &Options::default()).unwrap();
        assert_eq!(a.bots, b.bots);
        assert_eq!(a.superiority, b.superiority);
        assert_eq!(a.head_to_head, b.head_to_head);
        assert_eq!(a.seats, b.seats);
        // The online rating would tell the two orders apart if it saw them as read.
        let online_a = |g: &Games| {
            let a = g.names.iter().position(|n| n == "a").unwrap();
            super::weng_lin::ratings(&g.games, g.names.len())[a]
        };
        assert_ne!(online_a(&in_order), online_a(&shuffled));
    }

    /// A run's own games kept by their ordinals in its schedule (`Games::of_one_schedule`, as a
    /// league's standings at its end read them) give exactly the standings that the same games
    /// give kept by key, duplicates and second games of one place told apart alike.
    #[test]
    fn games_kept_by_ordinal_give_the_standings_of_games_kept_by_key() {
        use crate::standings::games::Digest;
        let mut own: Vec<_> = varied_records(false)
            .into_iter()
            .filter(|r| r.seed.is_none() && r.schedule.as_ref().is_some_and(|s| s.run == "L"))
            .collect();
        assert_eq!(own.len(), 72);
        // A copy of a game read twice, and another game in the place of one.
        own.push(own[5].clone());
        let mut other = own[9].clone();
        other.duration_ms += 1;
        own.push(other);
        // The schedule numbers its games in the order of their indices, leaving gaps: index i is
        // game i of 100.
        let (mut by_key, mut by_ordinal) = (Games::new(), Games::of_one_schedule(100));
        let mut added = Vec::new();
        for r in &own {
            let moves = super::games::played(r);
            let digest = Digest::of(&super::games::Facts::of(r, &moves));
            let index = r.schedule.as_ref().unwrap().index;
            let a = by_key.add_digest(digest.clone(), |id| id.to_string());
            let b = by_ordinal.add_at_ordinal(digest, index, |id| id.to_string());
            assert_eq!(a, b, "game {}", r.game);
            added.push(a.unwrap());
        }
        assert_eq!(
            added
                .iter()
                .filter(|a| matches!(a, Added::Duplicate(_)))
                .count(),
            1
        );
        assert_eq!(
            added
                .iter()
                .filter(|a| matches!(a, Added::SamePlace(_)))
                .count(),
            1
        );
        let options = Options {
            replicates: 20,
            ..Options::default()
        };
        let a = compute(&by_key, &options).unwrap();
        let b = compute(&by_ordinal, &options).unwrap();
        assert_eq!(a, b);
        // The online rating is in the table, and it depends on the order of the games: the
        // one by ordinal replays them in schedule order as the one by key does.
        assert!(a.bots.iter().any(|bot| bot.weng_lin.mu != 25.0));
        // A game without an ordinal, or past the schedule, is refused and changes nothing.
        let r = &own[0];
        let moves = super::games::played(r);
        let digest = Digest::of(&super::games::Facts::of(r, &moves));
        let mut fresh = Games::of_one_schedule(100);
        assert!(fresh
            .add_digest(digest.clone(), |id| id.to_string())
            .is_err());
        let past = fresh.add_at_ordinal(digest, 100, |id| id.to_string());
        assert!(past.unwrap_err().contains("schedule of 100 games"));
        assert_eq!((fresh.count(), fresh.names.len(), fresh.deals), (0, 0, 0));
    }

    /// A varied set of records: three runs (two sharing a name, not a seed), games outside any
    /// schedule, 3- and 4-player games, shared places of 2 (and with `all_ties` of 3 and 4),
    /// draws with disqualified seats, move times. `exact`: times and shares that add up exactly
    /// in binary (so that the game-by-game sums, made in another order, are exact too).
    fn varied_records(all_ties: bool) -> Vec<crate::record::GameRecord> {
        use crate::record::FaultKind;
        use crate::rng::Rng;
        use crate::standings::games::tests::{fault, mv, scheduled};
        let pool = ["a", "b", "c", "d", "e", "f", "g"];
        let mut rng = Rng::new(7);
        let mut out = Vec::new();
        let runs = [("L", None), ("L", Some(5)), ("K", Some(1))];
        for (r, &(run, seed)) in runs.iter().enumerate() {
            for deal in 0..12u64 {
                let players = 3 + (deal as usize + r) % 2;
                let mut bots: Vec<&str> = pool.to_vec();
                for k in 0..players {
                    let j = k + rng.below((pool.len() - k) as u64) as usize;
                    bots.swap(k, j);
                }
                for seating in 0..6u64 {
                    let index = deal * 6 + seating;
                    let mut seated = bots[..players].to_vec();
                    seated.rotate_left(seating as usize % players);
                    let mut g = game(&mut rng, &seated, all_ties);
                    g.game = format!("{run}-{r}-{index}");
                    g.seed = seed;
                    out.push(scheduled(g, run, index, deal));
                }
            }
        }
        for i in 0..10 {
            let seated = [pool[i % 7], pool[(i + 2) % 7], pool[(i + 4) % 7]];
            let mut g = game(&mut rng, &seated, all_ties);
            g.game = format!("plain-{i}");
            out.push(g);
        }
        // Disqualifications and draws.
        for (i, g) in out.iter_mut().enumerate() {
            if i % 9 == 4 {
                let seat = g
                    .ranking
                    .last()
                    .and_then(|p| p.first().copied())
                    .unwrap_or(0);
                g.faults.push(fault(seat, FaultKind::Timeout));
            }
            if i % 13 == 6 && g.faults.is_empty() {
                g.result = Outcome::Draw;
            }
            // A point shared by 3 is not exact in binary: a third seat disqualified.
            let sharing = g.seats.len() - g.faults.len();
            if !all_ties && matches!(g.result, Outcome::Draw) && sharing == 3 {
                let out = g
                    .ranking
                    .iter()
                    .rev()
                    .flatten()
                    .copied()
                    .find(|&s| !g.faults.iter().any(|f| f.seat == s));
                if let Some(seat) = out {
                    g.faults.push(fault(seat, FaultKind::Crash));
                }
            }
        }
        // Read in an order far from the schedule's.
        for i in (1..out.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            out.swap(i, j);
        }
        return out;

        fn game(rng: &mut Rng, seated: &[&str], all_ties: bool) -> crate::record::GameRecord {
            let n = seated.len();
            let mut seats: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                seats.swap(i, j);
            }
            // Places: groups of sizes drawn so that ties come up often.
            let mut ranking: Vec<Vec<usize>> = Vec::new();
            let mut i = 0;
            while i < n {
                let most = if all_ties { n - i } else { 2.min(n - i) };
                let size = if rng.below(3) == 0 {
                    1 + rng.below(most as u64) as usize
                } else {
                    1
                };
                ranking.push(seats[i..i + size].to_vec());
                i += size;
            }
            let mut scores = vec![0u32; n];
            for (place, group) in ranking.iter().enumerate() {
                for &seat in group {
                    scores[seat] = 40 - 5 * place as u32;
                }
            }
            let ranking_refs: Vec<&[usize]> = ranking.iter().map(Vec::as_slice).collect();
            let winner = ranking[0][0];
            let mut r = super::games::tests::record(
                seated,
                &scores,
                &ranking_refs,
                if ranking[0].len() == 1 {
                    Outcome::Win { winner }
                } else {
                    Outcome::Draw
                },
            );
            for ply in 0..(4 + rng.below(8) as u32) {
                let ms = if all_ties {
                    rng.below(100_000) as f64 / 1000.0
                } else {
                    rng.below(64) as f64 / 8.0
                };
                r.moves.push(mv(ply, ply as usize % n, ms));
            }
            r
        }
    }

    /// The sums give what the standings were game by game: every figure equal where the game by
    /// game sums are exact in binary too, and the same files written where they are not (shared
    /// places of 3 and 4, a point shared by 3, times in thousandths).
    #[test]
    fn the_sums_give_the_figures_of_the_games_one_by_one() {
        for all_ties in [false, true] {
            let mut games = Games::new();
            for r in varied_records(all_ties) {
                games.add(&r).unwrap();
            }
            assert!(games.deals > 36 && games.names.len() == 7);
            for options in [
                Options::default(),
                Options::quick(),
                Options {
                    anchor: Some("c".into()),
                    seed: 9,
                    replicates: 50,
                },
            ] {
                let sums = compute(&games, &options).unwrap();
                let one_by_one = compute_game_by_game(&games, &options).unwrap();
                if !all_ties {
                    assert_eq!(sums.bots, one_by_one.bots);
                    assert_eq!(sums.seats, one_by_one.seats);
                    assert_eq!(sums.head_to_head, one_by_one.head_to_head);
                    assert_eq!(sums.superiority, one_by_one.superiority);
                    assert_eq!(sums.game_list, one_by_one.game_list);
                    assert_eq!(sums, one_by_one);
                }
                assert_eq!(report::json(&sums), report::json(&one_by_one));
                assert_eq!(report::csv(&sums), report::csv(&one_by_one));
                assert_eq!(
                    report::terminal(&sums, true),
                    report::terminal(&one_by_one, true)
                );
                assert_eq!(
                    report::html::page(&sums, Some("games.html")),
                    report::html::page(&one_by_one, Some("games.html"))
                );
                assert!(sums.bots.iter().any(|b| b.interval.is_some()) || options.replicates == 0);
            }
        }
    }

    /// A run's table merges the deals' stages (it has no bootstrap): the same quick standings as
    /// sums kept per deal, ratings equal but for the last bits of their additions' order.
    #[test]
    fn the_tables_merged_deals_give_the_quick_standings_of_deals_kept_apart() {
        for all_ties in [false, true] {
            let (mut apart, mut merged) = (Games::new(), Games::for_table());
            for r in varied_records(all_ties) {
                apart.add(&r).unwrap();
                merged.add(&r).unwrap();
            }
            let options = Options::quick();
            let (apart, merged) = (
                compute(&apart, &options).unwrap(),
                compute(&merged, &options).unwrap(),
            );
            assert!(apart.deals > 36);
            assert_eq!(merged.deals, apart.deals);
            assert_eq!(merged.bots.len(), apart.bots.len());
            for (m, a) in merged.bots.iter().zip(&apart.bots) {
                assert_eq!((&m.name, m.rank, m.deals), (&a.name, a.rank, a.deals));
                assert_eq!(m.tally, a.tally);
                assert!(
                    (m.rating - a.rating).abs() < 1e-9,
                    "{} {}",
                    m.rating,
                    a.rating
                );
            }
            // Some bot is seen in fewer deals than another, so the deals are counted per bot.
            assert!(apart.bots.iter().any(|b| b.deals != apart.bots[0].deals));
            assert_eq!(
                report::quick(&merged, &[]),
                report::quick(&apart, &[]),
                "all ties: {all_ties}"
            );
        }
    }

    #[test]
    fn an_unknown_anchor_is_refused() {
        let mut games = Games::new();
        games
            .add(&record(
                &["a", "b", "c"],
                &[2, 1, 3],
                &[&[2], &[0], &[1]],
                Outcome::Win { winner: 2 },
            ))
            .unwrap();
        let options = Options {
            anchor: Some("zz".into()),
            ..Options::default()
        };
        let e = compute(&games, &options).unwrap_err();
        assert!(e.contains("'zz'") && e.contains("a, b, c"), "{e}");
        let options = Options {
            anchor: Some("b".into()),
            ..Options::default()
        };
        let s = compute(&games, &options).unwrap();
        assert_eq!(s.bots.iter().find(|b| b.name == "b").unwrap().rating, 0.0);
    }
}
