//! The standings for people and for machines: a terminal table, `standings.json` (versioned, see
//! protocol/STANDINGS.md), `standings.csv` (one line per bot) and `standings.html` (`html`).

pub mod html;

use super::games::{fault_name, FAULT_KINDS};
use super::{Standings, MIN_DEALS};
use crate::text::visible;
use serde::Serialize;
use std::fmt::Write as _;

/// The `format` field of `standings.json`.
pub const FORMAT: &str = "multiversi-standings";
/// Its version.
pub const VERSION: u32 = 1;

fn percent(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{:.0}%", 100.0 * x))
}

/// The columns of the bots' table besides the counts every table has.
struct Columns<'a> {
    /// The 95% interval, the Weng–Lin cross-check and the likelihood of superiority: the
    /// `standings` command's table.
    ratings: bool,
    /// What each bot called itself in `ready`, by rank: the table of a running match or league.
    ready: Option<&'a [String]>,
}

/// The bots' table, best first: one implementation for `standings` and for the table a match or
/// league shows as it runs. Bot names are shown through `text::visible`.
fn bot_table(s: &Standings, columns: &Columns) -> String {
    let names: Vec<String> = s
        .bots
        .iter()
        .map(|b| visible(&b.name).into_owned())
        .collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(3)
        .max(3);
    let mut out = String::new();
    let _ = write!(out, "{:>3}  {:<width$}  {:>6}", "#", "bot", "rating");
    if columns.ratings {
        let _ = write!(out, "  {:>13}  {:>11}", "95% interval", "Weng-Lin");
    }
    let _ = write!(
        out,
        "  {:>5}  {:>7}  {:>5}  {:>5}  {:>6}  {:>5}  {:>5}  {:>6}  {:>8}  {:>8}",
        "games",
        "points",
        "wins",
        "draws",
        "losses",
        "place",
        "discs",
        "faults",
        "mean ms",
        "max ms"
    );
    if columns.ratings {
        let _ = write!(out, "  {:>5}", "LOS");
    }
    if columns.ready.is_some() {
        out.push_str("  ready as");
    }
    out.push('\n');
    for (i, (b, name)) in s.bots.iter().zip(&names).enumerate() {
        let t = &b.tally;
        let _ = write!(out, "{:>3}  {:<width$}  {:>6.0}", b.rank, name, b.rating);
        if columns.ratings {
            let interval = match (b.interval, b.interval_note(&s.options)) {
                (Some((lo, hi)), _) => format!("[{lo:.0}, {hi:.0}]"),
                (None, Some(_)) => {
                    let plural = if b.deals == 1 { "" } else { "s" };
                    format!("({} deal{plural})", b.deals)
                }
                (None, None) => "-".into(),
            };
            let weng_lin = format!("{:.1}±{:.1}", b.weng_lin.mu, b.weng_lin.sigma);
            let _ = write!(out, "  {interval:>13}  {weng_lin:>11}");
        }
        let _ = write!(
            out,
            "  {:>5}  {:>7.2}  {:>5}  {:>5}  {:>6}  {:>5.2}  {:>5.1}  {:>6}  {:>8.2}  {:>8.2}",
            t.games,
            t.points,
            t.wins,
            t.draws,
            t.losses,
            t.mean_place(),
            t.mean_discs(),
            t.fault_total(),
            t.mean_ms(),
            t.max_ms,
        );
        if columns.ratings {
            let _ = write!(out, "  {:>5}", percent(b.superiority_next));
        }
        if let Some(ready) = columns.ready {
            let _ = write!(out, "  {}", ready.get(i).map_or("-", String::as_str));
        }
        out.push('\n');
    }
    out
}

/// The table a match or league shows while it runs and at its end: ratings fitted without a
/// bootstrap (`Options::quick`), the counts, and what each bot called itself in `ready` (by
/// rank, shown as given: the caller makes it visible).
pub fn quick(s: &Standings, ready: &[String]) -> String {
    let mut out = bot_table(
        s,
        &Columns {
            ratings: false,
            ready: Some(ready),
        },
    );
    let anchor = match &s.options.anchor {
        Some(name) => format!("{} is 0", visible(name)),
        None => "mean 0".into(),
    };
    let _ = writeln!(
        out,
        "{} game{} in {} deal{}; rating: Plackett-Luce, Elo-like scale, {anchor} (95% \
         intervals: multiversi standings)",
        s.games,
        if s.games == 1 { "" } else { "s" },
        s.deals,
        if s.deals == 1 { "" } else { "s" },
    );
    out
}

/// The terminal table of `multiversi standings`, best first; with `full`, the seat bias,
/// head-to-head and superiority tables follow. Bot names are shown through `text::visible`.
pub fn terminal(s: &Standings, full: bool) -> String {
    let names: Vec<String> = s
        .bots
        .iter()
        .map(|b| visible(&b.name).into_owned())
        .collect();
    let mut out = bot_table(
        s,
        &Columns {
            ratings: true,
            ready: None,
        },
    );
    let _ = writeln!(out, "{}", summary_line(s));
    if let Some(note) = few_deals_note(s) {
        let _ = writeln!(out, "{note}");
    }
    if !full {
        return out;
    }
    let _ = writeln!(out, "\nSeats (0 moves first):");
    let _ = writeln!(
        out,
        "{:>7}  {:>4}  {:>5}  {:>5}  {:>6}  {:>5}  {:>7}  {:>5}",
        "players", "seat", "games", "wins", "win %", "draws", "points", "place"
    );
    for t in &s.seats {
        let _ = writeln!(
            out,
            "{:>7}  {:>4}  {:>5}  {:>5}  {:>6.1}  {:>5}  {:>7.2}  {:>5.2}",
            t.players,
            t.seat,
            t.games,
            t.wins,
            t.win_percent(),
            t.draws,
            t.points,
            t.mean_place()
        );
    }
    let _ = writeln!(
        out,
        "\nHead to head: how often the row's bot finished above the column's (a shared place counts half):"
    );
    matrix(&mut out, &names, |a, b| {
        s.head_to_head[a][b]
            .score()
            .map(|x| format!("{:.0}%", 100.0 * x))
    });
    if s.replicates > 0 {
        let _ = writeln!(
            out,
            "\nLikelihood of superiority: the share of {} bootstrap replicates in which the row's rating is above the column's:",
            s.replicates
        );
        matrix(&mut out, &names, |a, b| {
            s.superiority[a][b].map(|x| format!("{:.0}%", 100.0 * x))
        });
    }
    out
}

/// A square table of the bots, rows and columns in rank order, columns headed by rank.
fn matrix(out: &mut String, names: &[String], cell: impl Fn(usize, usize) -> Option<String>) {
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(3)
        .max(3);
    let _ = write!(out, "{:>3}  {:<width$}", "#", "bot");
    for i in 0..names.len() {
        let _ = write!(out, "  {:>4}", i + 1);
    }
    out.push('\n');
    for (a, name) in names.iter().enumerate() {
        let _ = write!(out, "{:>3}  {:<width$}", a + 1, name);
        for b in 0..names.len() {
            let text = if a == b {
                "".into()
            } else {
                cell(a, b).unwrap_or_else(|| "-".into())
            };
            let _ = write!(out, "  {text:>4}");
        }
        out.push('\n');
    }
}

/// One line under the table: how much it rests on and how the rating is anchored.
pub fn summary_line(s: &Standings) -> String {
    let anchor = match &s.options.anchor {
        Some(name) => format!("{} is 0", visible(name)),
        None => "mean 0".into(),
    };
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let mut line = format!(
        "{} game{} in {} deal{}; rating: Plackett-Luce, Elo-like scale, {anchor}; interval: {}",
        s.games,
        plural(s.games),
        s.deals,
        plural(s.deals),
        if s.replicates > 0 {
            format!(
                "bootstrap over deals, {} replicates, seed {}",
                s.replicates, s.options.seed
            )
        } else {
            "none".into()
        }
    );
    if s.damaged_lines > 0 {
        let n = s.damaged_lines;
        let _ = write!(line, "; {n} damaged line{} skipped", plural(n));
    }
    if s.duplicates > 0 {
        let n = s.duplicates;
        let _ = write!(line, "; {n} game{} read twice, counted once", plural(n));
    }
    line
}

/// Why some bots have no interval although intervals were asked for, or None.
pub fn few_deals_note(s: &Standings) -> Option<String> {
    let few: Vec<String> = s
        .bots
        .iter()
        .filter(|b| b.interval_note(&s.options).is_some())
        .map(|b| visible(&b.name).into_owned())
        .collect();
    if few.is_empty() {
        return None;
    }
    Some(format!(
        "no meaningful 95% interval for a bot seen in fewer than {MIN_DEALS} deals ({}): the \
         bootstrap resamples whole deals, so it cannot tell how such a bot's rating would vary; \
         that rating rests on few games",
        few.join(", ")
    ))
}

#[derive(Serialize)]
struct Json<'a> {
    format: &'static str,
    version: u32,
    games: usize,
    deals: usize,
    damaged_lines: usize,
    duplicates: usize,
    rating: RatingJson<'a>,
    bots: Vec<BotJson<'a>>,
    seats: Vec<SeatJson>,
    head_to_head: Vec<PairJson<'a>>,
    superiority: MatrixJson<'a>,
}

#[derive(Serialize)]
struct RatingJson<'a> {
    model: &'static str,
    scale: &'static str,
    anchor: Option<&'a str>,
    prior: &'static str,
    ties: &'static str,
    replicates: u32,
    seed: u64,
    min_deals: u32,
}

#[derive(Serialize)]
struct BotJson<'a> {
    rank: usize,
    bot: &'a str,
    rating: f64,
    interval: Option<[f64; 2]>,
    deals: u32,
    note: Option<String>,
    weng_lin: WengLinJson,
    superiority_next: Option<f64>,
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    points: f64,
    mean_discs: f64,
    mean_place: f64,
    faults: FaultsJson,
    moves: u64,
    mean_ms: f64,
    max_ms: f64,
}

#[derive(Serialize)]
struct WengLinJson {
    mu: f64,
    sigma: f64,
}

#[derive(Serialize)]
struct FaultsJson {
    timeout: u32,
    crash: u32,
    malformed: u32,
    illegal: u32,
}

#[derive(Serialize)]
struct SeatJson {
    players: u8,
    seat: u8,
    games: u32,
    wins: u32,
    draws: u32,
    points: f64,
    mean_place: f64,
}

#[derive(Serialize)]
struct PairJson<'a> {
    bot: &'a str,
    other: &'a str,
    games: u32,
    above: u32,
    below: u32,
    tied: u32,
}

#[derive(Serialize)]
struct MatrixJson<'a> {
    bots: Vec<&'a str>,
    matrix: &'a [Vec<Option<f64>>],
}

/// Rounds to a fixed number of decimals, so the files do not carry float noise.
fn round(x: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (x * f).round() / f
}

/// `standings.json`: the document described in protocol/STANDINGS.md.
pub fn json(s: &Standings) -> String {
    let bots = s
        .bots
        .iter()
        .map(|b| {
            let t = &b.tally;
            BotJson {
                rank: b.rank,
                bot: &b.name,
                rating: round(b.rating, 2),
                interval: b.interval.map(|(lo, hi)| [round(lo, 2), round(hi, 2)]),
                deals: b.deals,
                note: b.interval_note(&s.options),
                weng_lin: WengLinJson {
                    mu: round(b.weng_lin.mu, 4),
                    sigma: round(b.weng_lin.sigma, 4),
                },
                superiority_next: b.superiority_next.map(|x| round(x, 4)),
                games: t.games,
                wins: t.wins,
                draws: t.draws,
                losses: t.losses,
                points: round(t.points, 4),
                mean_discs: round(t.mean_discs(), 4),
                mean_place: round(t.mean_place(), 4),
                faults: FaultsJson {
                    timeout: t.faults[0],
                    crash: t.faults[1],
                    malformed: t.faults[2],
                    illegal: t.faults[3],
                },
                moves: t.moves,
                mean_ms: round(t.mean_ms(), 3),
                max_ms: round(t.max_ms, 3),
            }
        })
        .collect();
    let mut pairs = Vec::new();
    for (a, row) in s.head_to_head.iter().enumerate() {
        for (b, m) in row.iter().enumerate() {
            if a != b && m.games > 0 {
                pairs.push(PairJson {
                    bot: &s.bots[a].name,
                    other: &s.bots[b].name,
                    games: m.games,
                    above: m.above,
                    below: m.below(),
                    tied: m.tied,
                });
            }
        }
    }
    let superiority: Vec<Vec<Option<f64>>> = s
        .superiority
        .iter()
        .map(|row| row.iter().map(|x| x.map(|x| round(x, 4))).collect())
        .collect();
    let doc = Json {
        format: FORMAT,
        version: VERSION,
        games: s.games,
        deals: s.deals,
        damaged_lines: s.damaged_lines,
        duplicates: s.duplicates,
        rating: RatingJson {
            model: "plackett-luce",
            scale: "elo: 400 * log10(strength)",
            anchor: s.options.anchor.as_deref(),
            prior: "one virtual win and one virtual loss per bot against a bot of strength 1",
            ties: "every order of a shared place counts, with equal weight",
            replicates: s.replicates,
            seed: s.options.seed,
            min_deals: MIN_DEALS,
        },
        bots,
        seats: s
            .seats
            .iter()
            .map(|t| SeatJson {
                players: t.players,
                seat: t.seat,
                games: t.games,
                wins: t.wins,
                draws: t.draws,
                points: round(t.points, 4),
                mean_place: round(t.mean_place(), 4),
            })
            .collect(),
        head_to_head: pairs,
        superiority: MatrixJson {
            bots: s.bots.iter().map(|b| b.name.as_str()).collect(),
            matrix: &superiority,
        },
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// The CSV header: one column per field of a bot's line.
pub const CSV_HEADER: &str = "rank,bot,rating,rating_low,rating_high,weng_lin_mu,weng_lin_sigma,\
superiority_next,games,wins,draws,losses,points,mean_discs,mean_place,faults_timeout,faults_crash,\
faults_malformed,faults_illegal,moves,mean_ms,max_ms,deals,note";

/// A CSV field (RFC 4180): quoted when it holds a comma, quote or line break. A name that a
/// spreadsheet would take for a formula (starting with = + - @) gets a leading apostrophe.
fn csv_field(text: &str) -> String {
    let text = if text.starts_with(['=', '+', '-', '@']) {
        format!("'{text}")
    } else {
        text.to_string()
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// `standings.csv`: a header and one line per bot, best first; empty fields where there is no
/// value (no interval, no next bot, no note).
pub fn csv(s: &Standings) -> String {
    let opt = |x: Option<f64>, d: i32| x.map_or(String::new(), |x| round(x, d).to_string());
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for b in &s.bots {
        let t = &b.tally;
        let fields = [
            b.rank.to_string(),
            csv_field(&b.name),
            round(b.rating, 2).to_string(),
            opt(b.interval.map(|i| i.0), 2),
            opt(b.interval.map(|i| i.1), 2),
            round(b.weng_lin.mu, 4).to_string(),
            round(b.weng_lin.sigma, 4).to_string(),
            opt(b.superiority_next, 4),
            t.games.to_string(),
            t.wins.to_string(),
            t.draws.to_string(),
            t.losses.to_string(),
            round(t.points, 4).to_string(),
            round(t.mean_discs(), 4).to_string(),
            round(t.mean_place(), 4).to_string(),
            t.faults[0].to_string(),
            t.faults[1].to_string(),
            t.faults[2].to_string(),
            t.faults[3].to_string(),
            t.moves.to_string(),
            round(t.mean_ms(), 3).to_string(),
            round(t.max_ms, 3).to_string(),
            b.deals.to_string(),
            csv_field(&b.interval_note(&s.options).unwrap_or_default()),
        ];
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// The names of the fault kinds in the order of the tallies' counts.
pub fn fault_names() -> [&'static str; 4] {
    FAULT_KINDS.map(fault_name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::FaultKind;
    use crate::rules::Outcome;
    use crate::standings::games::tests::{fault, record};
    use crate::standings::{compute, Games, Options};

    fn standings() -> Standings {
        let mut games = Games::new();
        let mut g = record(
            &["a,1", "=b", "c\x1b[2J"],
            &[5, 3, 1],
            &[&[0], &[1], &[2]],
            Outcome::Win { winner: 0 },
        );
        g.faults.push(fault(2, FaultKind::Crash));
        games.add(&g).unwrap();
        let mut g2 = record(
            &["=b", "a,1", "c\x1b[2J"],
            &[4, 4, 1],
            &[&[0, 1], &[2]],
            Outcome::Draw,
        );
        g2.game = "2".into();
        games.add(&g2).unwrap();
        compute(&games, &Options::default()).unwrap()
    }

    #[test]
    fn the_terminal_shows_names_visibly() {
        let s = standings();
        let text = terminal(&s, true);
        assert!(!text.contains('\x1b'));
        assert!(text.contains("c\\u{1b}[2J"));
        assert!(text.contains("2 games in 2 deals"));
        assert!(text.contains("Head to head"));
        let first = text.lines().nth(1).unwrap();
        assert!(first.contains("a,1"), "{first}");
    }

    #[test]
    fn intervals_are_withheld_for_bots_seen_in_too_few_deals() {
        // Two deals: the bootstrap runs, but no bot's interval means anything.
        let s = standings();
        assert!(s.replicates > 0);
        assert!(s.bots.iter().all(|b| b.deals == 2 && b.interval.is_none()));
        assert!(s.bots.iter().all(|b| b.superiority_next.is_none()));
        let text = terminal(&s, false);
        let first = text.lines().nth(1).unwrap();
        assert!(first.contains("(2 deals)"), "{text}");
        assert!(
            text.contains("no meaningful 95% interval for a bot seen in fewer than 5 deals"),
            "{text}"
        );
        let v: serde_json::Value = serde_json::from_str(&json(&s)).unwrap();
        assert_eq!(v["rating"]["min_deals"], 5);
        assert_eq!(v["bots"][0]["deals"], 2);
        assert_eq!(v["bots"][0]["note"], "seen in only 2 deals");
        assert!(v["bots"][0]["interval"].is_null());
        let csv = csv(&s);
        assert!(
            csv.lines()
                .nth(1)
                .unwrap()
                .ends_with(",2,seen in only 2 deals"),
            "{csv}"
        );
        // Without a bootstrap nothing was asked for, and there is nothing to explain.
        let mut none = s.clone();
        none.options.replicates = 0;
        assert!(few_deals_note(&none).is_none());
        assert!(!terminal(&none, false).contains("deals)"));
        // Five deals or more: intervals and no note.
        let mut games = Games::new();
        for i in 0..5 {
            let mut g = record(
                &["a", "b", "c"],
                &[5, 3, 1],
                &[&[i % 3], &[(i + 1) % 3], &[(i + 2) % 3]],
                Outcome::Win { winner: i % 3 },
            );
            g.game = format!("g{i}");
            games.add(&g).unwrap();
        }
        let s = compute(&games, &Options::default()).unwrap();
        assert!(s.bots.iter().all(|b| b.deals == 5 && b.interval.is_some()));
        assert!(few_deals_note(&s).is_none());
    }

    #[test]
    fn the_quick_table_has_ready_and_no_intervals() {
        let s = standings();
        let ready = vec!["A 1.0".to_string(), "-".into(), "C".into()];
        let text = quick(&s, &ready);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].ends_with("  ready as"), "{text}");
        assert!(
            !lines[0].contains("interval") && !lines[0].contains("LOS"),
            "{text}"
        );
        assert!(
            lines[1].contains("a,1") && lines[1].ends_with("  A 1.0"),
            "{text}"
        );
        assert!(lines[3].ends_with("  C"), "{text}");
        assert!(
            lines[4].starts_with("2 games in 2 deals; rating: Plackett-Luce"),
            "{text}"
        );
    }

    #[test]
    fn json_holds_the_numbers() {
        let s = standings();
        let v: serde_json::Value = serde_json::from_str(&json(&s)).unwrap();
        assert_eq!(v["format"], FORMAT);
        assert_eq!(v["version"], 1);
        assert_eq!(v["games"], 2);
        let a = &v["bots"][0];
        assert_eq!(a["bot"], "a,1");
        assert_eq!(
            (a["wins"].as_u64(), a["draws"].as_u64()),
            (Some(1), Some(1))
        );
        // A win, and a third of the point of a draw shared by three seats.
        assert_eq!(a["points"], 1.3333);
        assert_eq!(a["mean_place"], 1.25);
        let c = &v["bots"][2];
        assert_eq!(c["faults"]["crash"], 1);
        assert_eq!(c["points"], 0.3333);
        let pair = v["head_to_head"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["bot"] == "a,1" && p["other"] == "=b")
            .unwrap();
        assert_eq!(
            (
                pair["games"].as_u64(),
                pair["above"].as_u64(),
                pair["tied"].as_u64()
            ),
            (Some(2), Some(1), Some(1))
        );
        assert_eq!(v["superiority"]["bots"].as_array().unwrap().len(), 3);
    }

    #[test]
    fn csv_quotes_and_defuses_names() {
        let s = standings();
        let text = csv(&s);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], CSV_HEADER);
        assert_eq!(lines.len(), 4);
        assert!(lines[1].starts_with("1,\"a,1\","), "{}", lines[1]);
        assert!(lines[2].starts_with("2,'=b,"), "{}", lines[2]);
        assert_eq!(
            lines[1].split(',').count(),
            CSV_HEADER.split(',').count() + 1
        );
        assert_eq!(csv_field("x\"y"), "\"x\"\"y\"");
        assert_eq!(csv_field("x\"y,"), "\"x\"\"y,\"");
    }
}
