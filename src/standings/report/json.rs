//! `standings.json`: the document described in protocol/STANDINGS.md, for programs. Versioned,
//! and built from structs of its own rather than from `Standings`, so that the file's shape
//! changes only when the document's version does.

use super::round;
use crate::record::FaultKind;
use crate::standings::{Standings, MIN_DEALS};
use serde::Serialize;

/// The `format` field of `standings.json`.
pub const FORMAT: &str = "multiversi-standings";
/// Its version.
pub const VERSION: u32 = 1;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Serialize)]
struct Json<'a> {
    format: &'static str,
    version: u32,
    games: usize,
    deals: usize,
    damaged_lines: usize,
    duplicates: usize,
    /// Absent when 0, so that the file of records without any is as it was.
    #[serde(skip_serializing_if = "is_zero")]
    same_place: usize,
    /// Absent when 0: always in the standings of any records, which count every run's.
    #[serde(skip_serializing_if = "is_zero")]
    other_runs: usize,
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

/// A bot's disqualifications, by kind: an object with one count per kind, keyed by its word
/// (`FaultKind::as_str`) in the order of `FaultKind::ALL`.
struct FaultsJson([u32; FaultKind::ALL.len()]);

impl Serialize for FaultsJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (kind, n) in FaultKind::ALL.iter().zip(self.0) {
            map.serialize_entry(kind.as_str(), &n)?;
        }
        map.end()
    }
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
                faults: FaultsJson(t.faults),
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
        same_place: s.same_place,
        other_runs: s.other_runs,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::standings::report::tests::standings;

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
        let kinds: Vec<&String> = c["faults"].as_object().unwrap().keys().collect();
        let mut words: Vec<&str> = FaultKind::ALL.iter().map(|k| k.as_str()).collect();
        words.sort_unstable();
        assert_eq!(kinds, words, "one count per kind, under its word");
        // The document lists them in the order of `FaultKind::ALL`, as it always has.
        let text = json(&s);
        let at = |w: &str| text.find(&format!("\"{w}\": ")).unwrap();
        assert!(at("timeout") < at("crash") && at("crash") < at("malformed"));
        assert!(at("malformed") < at("illegal"));
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
}
