//! The standings as tables on a terminal: the full report of `multiversi standings` and the quick
//! table a match or league shows while it runs, from one implementation of the bots' table so
//! the two never drift apart. Bot names are shown through `text::visible`.

use super::few_deals_note;
use crate::standings::Standings;
use crate::text::{pad_end, visible};
use std::fmt::Write as _;

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
    let _ = write!(
        out,
        "{:>3}  {}  {:>6}",
        "#",
        pad_end("bot", width),
        "rating"
    );
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
        let _ = write!(
            out,
            "{:>3}  {}  {:>6.0}",
            b.rank,
            pad_end(name, width),
            b.rating
        );
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
        let (mean_ms, max_ms) = t.times_shown();
        let _ = write!(
            out,
            "  {:>5}  {:>7.2}  {:>5}  {:>5}  {:>6}  {:>5.2}  {:>5.1}  {:>6}  {:>8}  {:>8}",
            t.games,
            t.points,
            t.wins,
            t.draws,
            t.losses,
            t.mean_place(),
            t.mean_discs(),
            t.fault_total(),
            mean_ms,
            max_ms,
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
    let _ = write!(out, "{:>3}  {}", "#", pad_end("bot", width));
    for i in 0..names.len() {
        let _ = write!(out, "  {:>4}", i + 1);
    }
    out.push('\n');
    for (a, name) in names.iter().enumerate() {
        let _ = write!(out, "{:>3}  {}", a + 1, pad_end(name, width));
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
    if s.same_place > 0 {
        let n = s.same_place;
        let _ = write!(
            line,
            "; {n} record{} in the place of a game read before, not counted",
            plural(n)
        );
    }
    if s.other_runs > 0 {
        let n = s.other_runs;
        let _ = write!(line, "; {n} record{} of other runs left out", plural(n));
    }
    line
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::standings::report::tests::standings;

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
}
