//! The standings for people and for machines: a terminal table, `standings.json` (versioned, see
//! protocol/STANDINGS.md), `standings.csv` (one line per bot) and `standings.html` (`html`).

pub mod html;

use super::games::{fault_name, FAULT_KINDS};
use super::Standings;
use crate::text::visible;
use serde::Serialize;
use std::fmt::Write as _;

/// The `format` field of `standings.json`.
pub const FORMAT: &str = "multiversi-standings";
/// Its version.
pub const VERSION: u32 = 1;

fn interval_text(interval: Option<(f64, f64)>) -> String {
    match interval {
        Some((lo, hi)) => format!("[{lo:.0}, {hi:.0}]"),
        None => "-".into(),
    }
}

fn percent(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{:.0}%", 100.0 * x))
}

/// The terminal table, best first; with `full`, the seat bias, head-to-head and superiority
/// tables follow. Bot names are shown through `text::visible`.
pub fn terminal(s: &Standings, full: bool) -> String {
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
    let _ = writeln!(
        out,
        "{:>3}  {:<width$}  {:>6}  {:>13}  {:>11}  {:>5}  {:>7}  {:>5}  {:>5}  {:>6}  {:>5}  {:>5}  {:>6}  {:>8}  {:>8}  {:>5}",
        "#", "bot", "rating", "95% interval", "Weng-Lin", "games", "points", "wins", "draws",
        "losses", "place", "discs", "faults", "mean ms", "max ms", "LOS"
    );
    for (b, name) in s.bots.iter().zip(&names) {
        let t = &b.tally;
        let _ = writeln!(
            out,
            "{:>3}  {:<width$}  {:>6.0}  {:>13}  {:>11}  {:>5}  {:>7.2}  {:>5}  {:>5}  {:>6}  {:>5.2}  {:>5.1}  {:>6}  {:>8.2}  {:>8.2}  {:>5}",
            b.rank,
            name,
            b.rating,
            interval_text(b.interval),
            format!("{:.1}±{:.1}", b.weng_lin.mu, b.weng_lin.sigma),
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
            percent(b.superiority_next),
        );
    }
    let _ = writeln!(out, "{}", summary_line(s));
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
            100.0 * t.wins as f64 / t.games.max(1) as f64,
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
    let mut line = format!(
        "{} games in {} deals; rating: Plackett-Luce, Elo-like scale, {anchor}; interval: {}",
        s.games,
        s.deals,
        if s.replicates > 0 {
            format!(
                "bootstrap over deals, {} replicates, seed {}",
                s.replicates, s.options.seed
            )
        } else {
            "none".into()
        }
    );
    let plural = |n: usize| if n == 1 { "" } else { "s" };
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
}

#[derive(Serialize)]
struct BotJson<'a> {
    rank: usize,
    bot: &'a str,
    rating: f64,
    interval: Option<[f64; 2]>,
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
faults_malformed,faults_illegal,moves,mean_ms,max_ms";

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
/// value (no interval, no next bot).
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
