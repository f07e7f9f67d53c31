//! `sprt.html`: the test on one page that needs no script and no network — the report, the LLR
//! against its bounds over the games, and the Elo estimate with its 95% interval over the games,
//! drawn as inline SVG.

use super::state::{Point, Report};

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 260.0;
const LEFT: f64 = 56.0;
const BOTTOM: f64 = 28.0;
const TOP: f64 = 12.0;
const RIGHT: f64 = 12.0;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A chart's axes: games on x from 0 to `games`, values on y from `low` to `high`.
struct Frame {
    games: f64,
    low: f64,
    high: f64,
}

impl Frame {
    fn x(&self, games: f64) -> f64 {
        LEFT + (WIDTH - LEFT - RIGHT) * games / self.games.max(1.0)
    }

    fn y(&self, value: f64) -> f64 {
        let span = (self.high - self.low).max(1e-9);
        TOP + (HEIGHT - TOP - BOTTOM) * (self.high - value.clamp(self.low, self.high)) / span
    }

    /// The frame, a grid line at each of `ticks` with its label, and the games axis.
    fn axes(&self, ticks: &[f64], label: &str) -> String {
        let mut svg = format!(
            "<rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>",
            WIDTH - LEFT - RIGHT,
            HEIGHT - TOP - BOTTOM
        );
        for &t in ticks {
            let y = self.y(t);
            svg += &format!(
                "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#eee\"/>\
                 <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"11\">{}</text>",
                WIDTH - RIGHT,
                LEFT - 4.0,
                y + 4.0,
                trim(t)
            );
        }
        for i in 0..=4 {
            let g = self.games * i as f64 / 4.0;
            svg += &format!(
                "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\">{}</text>",
                self.x(g),
                HEIGHT - 10.0,
                g.round()
            );
        }
        svg += &format!(
            "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">games · {}</text>",
            WIDTH - RIGHT,
            HEIGHT - 0.0,
            escape(label)
        );
        svg
    }

    fn polyline(&self, points: &[(f64, f64)], colour: &str) -> String {
        let coords: Vec<String> = points
            .iter()
            .map(|&(g, v)| format!("{:.1},{:.1}", self.x(g), self.y(v)))
            .collect();
        format!(
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\" points=\"{}\"/>",
            coords.join(" ")
        )
    }

    fn level(&self, value: f64, colour: &str, name: &str) -> String {
        let y = self.y(value);
        format!(
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"{colour}\" \
             stroke-dasharray=\"5 4\"/><text x=\"{}\" y=\"{:.1}\" font-size=\"11\" \
             fill=\"{colour}\">{}</text>",
            WIDTH - RIGHT,
            LEFT + 4.0,
            y - 3.0,
            escape(name)
        )
    }
}

/// `12`, `2.94`, `-0.5`.
fn trim(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn svg(body: String, title: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" \
         width=\"{WIDTH}\" height=\"{HEIGHT}\" role=\"img\" aria-label=\"{}\">{body}</svg>",
        escape(title)
    )
}

/// The LLR over the games, between its two bounds.
fn llr_chart(report: &Report, history: &[Point]) -> String {
    let (lower, upper) = (report.bounds.lower, report.bounds.upper);
    let extreme = history.iter().map(|p| p.llr.abs()).fold(0.0, f64::max);
    let reach = upper.max(-lower).max(extreme.min(3.0 * upper));
    let frame = Frame {
        games: history.last().map_or(1.0, |p| p.games as f64),
        low: -reach * 1.05,
        high: reach * 1.05,
    };
    let mut body = frame.axes(&[lower, 0.0, upper], "LLR");
    body += &frame.level(upper, "#2a7", "accept H1 (better)");
    body += &frame.level(lower, "#c33", "accept H0 (not better)");
    let mut points = vec![(0.0, 0.0)];
    points.extend(history.iter().map(|p| (p.games as f64, p.llr)));
    body += &frame.polyline(&points, "#236");
    svg(body, "the log-likelihood ratio over the games")
}

/// The Elo estimate over the games, with its 95% interval as a band.
fn elo_chart(report: &Report, history: &[Point]) -> String {
    let estimates: Vec<(f64, f64, f64, f64)> = history
        .iter()
        .filter_map(|p| p.elo.map(|e| (p.games as f64, e.elo, e.low, e.high)))
        .filter(|(_, e, l, h)| e.is_finite() && l.is_finite() && h.is_finite())
        .collect();
    // The first few units give intervals hundreds of Elo wide: the view follows the last half.
    let tail = &estimates[estimates.len() / 2..];
    let h = &report.hypotheses;
    let (mut low, mut high) = (h.elo0.min(h.elo1), h.elo0.max(h.elo1));
    for &(_, e, l, hi) in tail {
        low = low.min(l).min(e);
        high = high.max(hi).max(e);
    }
    let pad = (high - low).max(10.0) * 0.1;
    let frame = Frame {
        games: history.last().map_or(1.0, |p| p.games as f64),
        low: low - pad,
        high: high + pad,
    };
    let mut body = frame.axes(&[h.elo0, h.elo1], "Elo difference, 95% interval");
    body += &frame.level(h.elo1, "#2a7", "elo1");
    body += &frame.level(h.elo0, "#c33", "elo0");
    if !estimates.is_empty() {
        let mut band: Vec<String> = estimates
            .iter()
            .map(|&(g, _, _, hi)| format!("{:.1},{:.1}", frame.x(g), frame.y(hi)))
            .collect();
        band.extend(
            estimates
                .iter()
                .rev()
                .map(|&(g, _, l, _)| format!("{:.1},{:.1}", frame.x(g), frame.y(l))),
        );
        body += &format!(
            "<polygon fill=\"#bcd\" fill-opacity=\"0.6\" stroke=\"none\" points=\"{}\"/>",
            band.join(" ")
        );
        let line: Vec<(f64, f64)> = estimates.iter().map(|&(g, e, _, _)| (g, e)).collect();
        body += &frame.polyline(&line, "#236");
    }
    svg(
        body,
        "the Elo estimate with its 95% interval over the games",
    )
}

/// The whole page.
pub fn page(report: &Report, history: &[Point]) -> String {
    let title = format!("sprt {} vs {}", report.candidate, report.baseline);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title>\
         <style>body{{font-family:sans-serif;max-width:760px;margin:1em auto;padding:0 1em}}\
         pre{{background:#f6f6f6;padding:.6em;white-space:pre-wrap}}</style></head><body>\
         <h1>{t}</h1><pre id=\"report\">{report}</pre>\
         <h2>Log-likelihood ratio</h2><p>The test stops when the LLR reaches a bound.</p>{llr}\
         <h2>Elo difference</h2><p>{c} − {b}, with its 95% interval, after each counted pair.</p>\
         {elo}<p>The games of each twin pair are counted together, only complete pairs and only \
         the run of them from the start of the schedule; standings.html beside this page has the \
         ratings of every bot.</p></body></html>\n",
        t = escape(&title),
        report = escape(&report.text()),
        llr = llr_chart(report, history),
        elo = elo_chart(report, history),
        c = escape(&report.candidate),
        b = escape(&report.baseline),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sprt::{Hypotheses, Setup, SprtState};

    #[test]
    fn the_page_plots_every_counted_pair_and_escapes_names() {
        let setup = Setup {
            run: "r".into(),
            candidate: "<new>".into(),
            baseline: "old&1".into(),
            games_per_unit: 2,
            hypotheses: Hypotheses::new(0.0, 10.0, 0.05, 0.05).unwrap(),
        };
        let state = SprtState::new(setup).unwrap();
        let empty = page(&state.report(), state.history());
        assert!(empty.contains("&lt;new&gt;") && !empty.contains("<new>"));
        assert!(empty.contains("old&amp;1"));
        let history: Vec<Point> = (1..=30)
            .map(|u| Point {
                games: 2 * u,
                llr: 0.1 * u as f64,
                elo: Some(crate::sprt::EloEstimate {
                    elo: 5.0,
                    low: -20.0,
                    high: 30.0,
                }),
            })
            .collect();
        let page = page(&state.report(), &history);
        // The LLR line holds the origin and one point per pair.
        let llr = page.split("<polyline").nth(1).unwrap();
        let points = llr
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(points.split(' ').count(), 31);
        assert!(page.contains("<polygon"), "the interval band");
    }
}
