//! The standings for people and for machines, one module per format: the terminal tables
//! (`terminal`: `multiversi standings` and the quick table a match or league shows as it runs),
//! `standings.json` (`json`, versioned, see protocol/STANDINGS.md), `standings.csv` (`csv`, one
//! line per bot) and `standings.html` (`html`). What the formats share (rounding, the note on
//! intervals withheld) is here, so that they say the same thing.

pub mod csv;
pub mod html;
pub mod json;
pub mod terminal;

pub use csv::{csv, CSV_HEADER};
pub use json::{json, FORMAT, VERSION};
pub use terminal::{quick, summary_line, terminal};

use super::{Standings, MIN_DEALS};
use crate::text::visible;

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

/// Rounds to a fixed number of decimals, so the files do not carry float noise.
fn round(x: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (x * f).round() / f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::FaultKind;
    use crate::rules::Outcome;
    use crate::standings::games::tests::{fault, record};
    use crate::standings::{compute, Games, Options};

    pub fn standings() -> Standings {
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
}
