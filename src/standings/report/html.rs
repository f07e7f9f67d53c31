//! `standings.html`: one self-contained page (styles and the plot inline, no script, nothing
//! fetched) with the table, the ratings and their intervals as an SVG plot, the head-to-head,
//! superiority and seat tables, and every game linked into the replay viewer
//! (`games.html#game=N`, written beside it).

use super::summary_line;
use crate::record::FaultKind;
use crate::standings::Standings;
use crate::text::visible;
use std::fmt::Write as _;

/// Text for HTML: control characters made visible (`text::visible`), then `& < > " '` escaped.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in visible(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = r#"
:root { color-scheme: light dark; --line: #8884; --muted: #888; --good: #2a9d4a; --bad: #c0392b; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { font-size: 1.15em; margin-top: 2em; }
p.note { color: var(--muted); margin-top: 0; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { padding: .2em .55em; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th { font-weight: 600; } td.name, th.name { text-align: left; }
table.matrix td { text-align: center; min-width: 3.2em; } table.matrix td.name { text-align: left; }
.scroll { overflow-x: auto; }
svg text { font: 12px system-ui, sans-serif; fill: currentColor; }
svg .axis { stroke: var(--muted); stroke-width: 1; } svg .grid { stroke: var(--line); stroke-width: 1; }
svg .interval { stroke: #3572b0; stroke-width: 3; stroke-linecap: round; } svg .point { fill: #3572b0; }
details summary { cursor: pointer; }
"#;

/// The page. `viewer` is the file name of the replay viewer to link games to (None: no links).
pub fn page(s: &Standings, viewer: Option<&str>) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail, and the page is text.
    let _ = page_to(&mut out, s, viewer);
    String::from_utf8_lossy(&out).into_owned()
}

/// `page`, written to `out` as it is made: a league's list of games is the bulk of the page, and
/// is not held in memory whole.
pub fn page_to(
    out: &mut dyn std::io::Write,
    s: &Standings,
    viewer: Option<&str>,
) -> std::io::Result<()> {
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    h.push_str("<title>multiversi standings</title>\n<style>");
    h.push_str(STYLE);
    h.push_str("</style>\n</head>\n<body>\n<h1>Standings</h1>\n");
    let _ = writeln!(h, "<p class=\"note\">{}</p>", esc(&summary_line(s)));
    if let Some(note) = super::few_deals_note(s) {
        let _ = writeln!(h, "<p class=\"note\" id=\"few-deals\">{}</p>", esc(&note));
    }
    table(&mut h, s);
    h.push_str("<h2 id=\"ratings\">Ratings and their 95% intervals</h2>\n");
    h.push_str(
        "<p class=\"note\">Plackett–Luce fit to every game's finishing order; 400 points are odds \
         of 10 to 1. The bars are bootstrap intervals over deals.</p>\n",
    );
    plot(&mut h, s);
    head_to_head(&mut h, s);
    superiority(&mut h, s);
    seats(&mut h, s);
    games(out, &mut h, s, viewer)?;
    h.push_str("</body>\n</html>\n");
    out.write_all(h.as_bytes())
}

fn table(h: &mut String, s: &Standings) {
    h.push_str("<div class=\"scroll\"><table id=\"standings\">\n<tr><th>#</th><th class=\"name\">bot</th><th>rating</th><th>95% interval</th><th title=\"online Weng–Lin rating, μ±σ\">Weng–Lin</th><th>games</th><th>points</th><th>wins</th><th>draws</th><th>losses</th><th title=\"mean finishing place\">place</th><th title=\"mean discs at the end\">discs</th>");
    h.push_str("<th title=\"disqualifications, by kind\">faults</th>");
    h.push_str("<th>mean ms</th><th>max ms</th><th title=\"likelihood of superiority over the next bot down\">LOS</th></tr>\n");
    for b in &s.bots {
        let t = &b.tally;
        let interval = match (b.interval, b.interval_note(&s.options)) {
            (Some((lo, hi)), _) => format!("{lo:.0} … {hi:.0}"),
            (None, Some(note)) => format!(
                "<span class=\"few\" title=\"{}: too few deals for a meaningful interval\">– ({note})</span>",
                esc(&note)
            ),
            (None, None) => "–".into(),
        };
        let los = b
            .superiority_next
            .map_or("–".into(), |x| format!("{:.0}%", 100.0 * x));
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"name\">{}</td><td>{:.0}</td><td>{}</td><td>{:.1}±{:.1}</td><td>{}</td><td>{:.2}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.1}</td>",
            b.rank,
            esc(&b.name),
            b.rating,
            interval,
            b.weng_lin.mu,
            b.weng_lin.sigma,
            t.games,
            t.points,
            t.wins,
            t.draws,
            t.losses,
            t.mean_place(),
            t.mean_discs()
        );
        let kinds: Vec<String> = FaultKind::ALL
            .iter()
            .zip(t.faults)
            .filter(|&(_, n)| n > 0)
            .map(|(kind, n)| format!("{n} {kind}"))
            .collect();
        let _ = write!(
            h,
            "<td>{}</td>",
            if kinds.is_empty() {
                "0".to_string()
            } else {
                kinds.join(", ")
            }
        );
        let (mean_ms, max_ms) = t.times_shown();
        let _ = writeln!(h, "<td>{mean_ms}</td><td>{max_ms}</td><td>{los}</td></tr>");
    }
    h.push_str("</table></div>\n");
}

/// Ratings as points with their intervals as bars, one row per bot, best at the top.
fn plot(h: &mut String, s: &Standings) {
    let (label, width, row, top) = (170.0, 760.0, 24.0, 30.0);
    let values = s.bots.iter().flat_map(|b| {
        let (lo, hi) = b.interval.unwrap_or((b.rating, b.rating));
        [lo, hi, b.rating]
    });
    let (mut min, mut max) = values.fold((0.0f64, 0.0f64), |(a, b), x| (a.min(x), b.max(x)));
    let pad = ((max - min) * 0.05).max(10.0);
    min -= pad;
    max += pad;
    // Grid lines every 50, 100, 200, … points: about 4 to 10 of them.
    let step = [25.0, 50.0, 100.0, 200.0, 250.0, 500.0, 1000.0]
        .into_iter()
        .find(|st| (max - min) / st <= 10.0)
        .unwrap_or(2000.0);
    let plot_w = width - label - 20.0;
    let x = |r: f64| label + (r - min) / (max - min) * plot_w;
    let height = top + row * s.bots.len() as f64 + 10.0;
    let _ = writeln!(
        h,
        "<svg id=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"ratings with 95% intervals\">"
    );
    let mut tick = (min / step).ceil() * step;
    while tick <= max {
        let tx = x(tick);
        let class = if tick == 0.0 { "axis" } else { "grid" };
        let _ = writeln!(
            h,
            "<line class=\"{class}\" x1=\"{tx:.1}\" y1=\"{}\" x2=\"{tx:.1}\" y2=\"{height}\"/><text x=\"{tx:.1}\" y=\"{}\" text-anchor=\"middle\">{tick:.0}</text>",
            top - 8.0,
            top - 12.0
        );
        tick += step;
    }
    for (i, b) in s.bots.iter().enumerate() {
        let y = top + row * (i as f64 + 0.5);
        let _ = write!(
            h,
            "<g><title>{}: {:.0}{}</title><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}. {}</text>",
            esc(&b.name),
            b.rating,
            b.interval
                .map_or(String::new(), |(lo, hi)| format!(" ({lo:.0} to {hi:.0})")),
            label - 8.0,
            y,
            b.rank,
            esc(&b.name)
        );
        if let Some((lo, hi)) = b.interval {
            let _ = write!(
                h,
                "<line class=\"interval\" x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\"/>",
                x(lo),
                x(hi)
            );
        }
        let _ = writeln!(
            h,
            "<circle class=\"point\" cx=\"{:.1}\" cy=\"{y:.1}\" r=\"5\"/></g>",
            x(b.rating)
        );
    }
    h.push_str("</svg>\n");
}

/// A colour from red (0) over neutral (0.5) to green (1), faint, for a share in a cell.
fn shade(share: f64) -> String {
    let alpha = ((share - 0.5).abs() * 0.9).min(0.45);
    let (r, g, b) = if share >= 0.5 {
        (42, 157, 74)
    } else {
        (192, 57, 43)
    };
    format!("background: rgba({r},{g},{b},{alpha:.2})")
}

fn matrix_head(h: &mut String, s: &Standings, id: &str) {
    let _ = write!(
        h,
        "<div class=\"scroll\"><table class=\"matrix\" id=\"{id}\">\n<tr><th>#</th><th class=\"name\">bot</th>"
    );
    for b in &s.bots {
        let _ = write!(h, "<th title=\"{}\">{}</th>", esc(&b.name), b.rank);
    }
    h.push_str("</tr>\n");
}

fn head_to_head(h: &mut String, s: &Standings) {
    h.push_str("<h2 id=\"head-to-head\">Head to head</h2>\n<p class=\"note\">How often the row's bot finished above the column's in the games both played; a shared place counts half. Hover for the counts.</p>\n");
    matrix_head(h, s, "h2h");
    for (a, row) in s.head_to_head.iter().enumerate() {
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"name\">{}</td>",
            a + 1,
            esc(&s.bots[a].name)
        );
        for (b, m) in row.iter().enumerate() {
            match m.score() {
                Some(x) if a != b => {
                    let _ = write!(
                        h,
                        "<td style=\"{}\" title=\"{} above {} in {} of {} games, below in {}, level in {}\">{:.0}%</td>",
                        shade(x),
                        esc(&s.bots[a].name),
                        esc(&s.bots[b].name),
                        m.above,
                        m.games,
                        m.below(),
                        m.tied,
                        100.0 * x
                    );
                }
                _ => h.push_str("<td></td>"),
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table></div>\n");
}

fn superiority(h: &mut String, s: &Standings) {
    h.push_str("<h2 id=\"superiority\">Likelihood of superiority</h2>\n");
    if s.replicates == 0 {
        h.push_str("<p class=\"note\">None: it comes from the bootstrap, and there was none (no replicates asked, or fewer than two deals).</p>\n");
        return;
    }
    let _ = writeln!(
        h,
        "<p class=\"note\">The share of {} bootstrap replicates in which the row's rating is above the column's. Bots adjacent in the ranking are next to the diagonal.</p>",
        s.replicates
    );
    matrix_head(h, s, "los");
    for (a, row) in s.superiority.iter().enumerate() {
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"name\">{}</td>",
            a + 1,
            esc(&s.bots[a].name)
        );
        for x in row {
            match x {
                Some(x) => {
                    let _ = write!(h, "<td style=\"{}\">{:.0}%</td>", shade(*x), 100.0 * x);
                }
                None => h.push_str("<td></td>"),
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table></div>\n");
}

fn seats(h: &mut String, s: &Standings) {
    h.push_str("<h2 id=\"seats\">Seats</h2>\n<p class=\"note\">Results by seat (0 moves first) for each game size: the seat bias. A fair seat wins 1/k of the games.</p>\n");
    h.push_str("<table id=\"seat-table\">\n<tr><th>players</th><th>seat</th><th>games</th><th>wins</th><th>win %</th><th>draws</th><th>points</th><th>place</th></tr>\n");
    for t in &s.seats {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>{}</td><td>{:.2}</td><td>{:.2}</td></tr>",
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
    h.push_str("</table>\n");
}

/// The list of games; what `h` holds so far, and then the rows in pieces, are written to `out`.
fn games(
    out: &mut dyn std::io::Write,
    h: &mut String,
    s: &Standings,
    viewer: Option<&str>,
) -> std::io::Result<()> {
    let _ = writeln!(
        h,
        "<h2 id=\"games\">Games</h2>\n<details{}><summary>{} games{}</summary>",
        if s.game_list.len() <= 200 {
            " open"
        } else {
            ""
        },
        s.game_list.len(),
        if viewer.is_some() {
            ": each number opens the game in the replay viewer"
        } else {
            ""
        }
    );
    h.push_str("<table id=\"game-list\">\n<tr><th>game</th><th class=\"name\">id</th><th class=\"name\">seats in move order: bot (place)</th><th class=\"name\">result</th></tr>\n");
    for g in &s.game_list {
        let number = match viewer {
            Some(file) => format!(
                "<a href=\"{}#game={}\">{}</a>",
                esc(file),
                g.number,
                g.number
            ),
            None => g.number.to_string(),
        };
        let seats: Vec<String> = g
            .seats()
            .iter()
            .map(|&(bot, place, out)| {
                format!(
                    "{} ({}{})",
                    esc(&s.bots[bot as usize].name),
                    place,
                    if out { ", disqualified" } else { "" }
                )
            })
            .collect();
        let result = match g.winner {
            Some(bot) => format!("{} wins", esc(&s.bots[bot as usize].name)),
            None => "draw".to_string(),
        };
        let _ = writeln!(
            h,
            "<tr><td>{number}</td><td class=\"name\">{}</td><td class=\"name\">{}</td><td class=\"name\">{result}</td></tr>",
            esc(&g.id),
            seats.join(", ")
        );
        if h.len() >= 1 << 16 {
            out.write_all(h.as_bytes())?;
            h.clear();
        }
    }
    h.push_str("</table>\n</details>\n");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::FaultKind;
    use crate::rules::Outcome;
    use crate::standings::games::tests::{fault, record};
    use crate::standings::{compute, Games, Options};

    #[test]
    fn the_page_escapes_names_and_links_every_game() {
        let mut games = Games::new();
        let evil = "<script>alert(1)</script>\x1b[2J";
        // Five games, five deals: enough for intervals.
        for i in 0..5 {
            let mut r = record(
                &["alpha", evil, "gamma"],
                &[5, 3, 1],
                &[&[0], &[1], &[2]],
                Outcome::Win { winner: 0 },
            );
            r.game = format!("g{i}");
            if i == 2 {
                r.faults.push(fault(2, FaultKind::Crash));
            }
            games.add(&r).unwrap();
        }
        let s = compute(&games, &Options::default()).unwrap();
        let page = page(&s, Some("games.html"));
        assert!(
            !page.contains("<script"),
            "no script at all, least of all a bot's"
        );
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;\\u{1b}[2J"));
        for n in 1..=3 {
            assert!(page.contains(&format!("<a href=\"games.html#game={n}\">{n}</a>")));
        }
        assert!(page.contains("<svg id=\"plot\""));
        assert_eq!(page.matches("<circle class=\"point\"").count(), 3);
        assert_eq!(page.matches("<line class=\"interval\"").count(), 3);
        assert!(!page.contains("few-deals"));
        // With three deals, no bot has a meaningful interval: none is drawn, and the page says
        // why.
        let mut few = Games::new();
        for g in games.games.iter().take(3) {
            let mut r = record(
                &["alpha", "beta", "gamma"],
                &[5, 3, 1],
                &[&[0], &[1], &[2]],
                Outcome::Win { winner: 0 },
            );
            r.game = g.id.clone();
            few.add(&r).unwrap();
        }
        let few_page = super::page(&compute(&few, &Options::default()).unwrap(), None);
        assert_eq!(few_page.matches("<line class=\"interval\"").count(), 0);
        assert_eq!(few_page.matches("– (seen in only 3 deals)").count(), 3);
        assert!(few_page.contains("id=\"few-deals\""));
        assert!(page.contains("gamma (3, disqualified)"));
        assert!(page.contains("alpha wins"));
        assert!(page.contains("<td>1 crash</td>"));
        // Nothing is fetched: no source attribute, no link out (the SVG namespace is a name).
        assert!(!page.contains("src=") && !page.contains("href=\"http"));
        assert!(!page.contains("https://"));
        let no_links = super::page(&s, None);
        assert!(!no_links.contains("<a href"));
    }
}
