//! `standings.csv`: one line per bot, best first, for spreadsheets; names are quoted and defused
//! so that a bot's name cannot break a line or become a formula.

use super::round;
use crate::standings::Standings;

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
            // In the order of `FaultKind::ALL`, as the header's `faults_*` columns are.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::standings::report::tests::standings;

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
        // The fault columns are the kinds' words, in the order of the counts.
        let faults: Vec<&str> = CSV_HEADER
            .split(',')
            .filter_map(|c| c.strip_prefix("faults_"))
            .collect();
        let words: Vec<&str> = crate::record::FaultKind::ALL
            .iter()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(faults, words);
        assert_eq!(csv_field("x\"y,"), "\"x\"\"y,\"");
    }
}
