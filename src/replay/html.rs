//! `replay --html`: one self-contained HTML file (styles, script and data inline, nothing fetched)
//! so a game can be mailed, attached to an issue or opened offline. The viewer itself lives in
//! `viewer.html`; the games go in as JSON inside a `<script type="application/json">` element.

use super::read::Loaded;
use crate::exit::{self, fail};
use anyhow::Result;
use std::path::Path;

/// The viewer page, with two placeholders: the title and the data.
const TEMPLATE: &str = include_str!("viewer.html");
const DATA_MARK: &str = "/*@DATA@*/null";
const TITLE_MARK: &str = "@TITLE@";

/// Makes JSON safe inside a `<script>` element: no `</script>` or `<!--` can appear once every
/// `<`, `>` and `&` is written as a JSON `\u` escape, which parses back to the same string.
/// U+2028 and U+2029 are escaped too, for older script parsers.
pub fn script_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page for these games, opening at `ply` (after that many moves) or at the start.
pub fn render(games: &[&Loaded], ply: Option<u32>) -> String {
    let data = serde_json::json!({
        "ply": ply,
        "games": games
            .iter()
            .map(|g| {
                let mut record = serde_json::json!(g.record);
                // A JavaScript number holds integers exactly only up to 2^53, and a seed is
                // shown to reproduce a match: it goes in as a string.
                if let Some(seed) = g.record.seed {
                    record["seed"] = seed.to_string().into();
                }
                serde_json::json!({"source": g.source.to_string(), "record": record})
            })
            .collect::<Vec<_>>(),
    });
    let title = match games {
        [one] => format!("multiversi replay · game {}", one.record.game),
        _ => format!("multiversi replay · {} games", games.len()),
    };
    TEMPLATE
        .replacen(TITLE_MARK, &html_escape(&title), 1)
        .replacen(DATA_MARK, &script_safe(&data.to_string()), 1)
}

/// The viewer written one game at a time, so that a league's thousands of games go to disk
/// without being held in memory: `start`, then `game` for each game in order (the viewer numbers
/// them from 1 in that order, as `#game=N` links do), then `finish`.
pub struct Streaming<W: std::io::Write> {
    out: W,
    games: usize,
    after_data: &'static str,
}

impl<W: std::io::Write> Streaming<W> {
    pub fn start(mut out: W, title: &str) -> std::io::Result<Streaming<W>> {
        let (before, after) = TEMPLATE.split_once(DATA_MARK).unwrap_or((TEMPLATE, ""));
        out.write_all(
            before
                .replacen(TITLE_MARK, &html_escape(title), 1)
                .as_bytes(),
        )?;
        out.write_all(b"{\"ply\":null,\"games\":[")?;
        Ok(Streaming {
            out,
            games: 0,
            after_data: after,
        })
    }

    pub fn game(
        &mut self,
        source: &str,
        record: &crate::record::GameRecord,
    ) -> std::io::Result<()> {
        if self.games > 0 {
            self.out.write_all(b",")?;
        }
        let entry = serde_json::json!({"source": source, "record": record});
        self.out
            .write_all(script_safe(&entry.to_string()).as_bytes())?;
        self.games += 1;
        Ok(())
    }

    /// Ends the page and hands back the writer (to flush or sync it).
    pub fn finish(mut self) -> std::io::Result<W> {
        self.out.write_all(b"]}")?;
        self.out.write_all(self.after_data.as_bytes())?;
        Ok(self.out)
    }
}

/// Writes the viewer; a file that cannot be written exits 5 with the path.
pub fn write(out: &Path, games: &[&Loaded], ply: Option<u32>) -> Result<()> {
    std::fs::write(out, render(games, ply))
        .map_err(|e| fail(exit::OUTPUT, format!("cannot write {}: {e}", out.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_safe_json_still_parses_to_the_same_value() {
        let value = serde_json::json!({"text": "</script><!-- & \u{2028} >"});
        let safe = script_safe(&value.to_string());
        assert!(!safe.contains('<') && !safe.contains('>') && !safe.contains('&'));
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, value);
    }

    /// A game record without moves, enough for the page.
    const SAMPLE: &str = r#"{"format":"multiversi-game","version":1,"game":"g1","started":"2026-11-29T20:02:53Z","duration_ms":1,"rules":{"players":4,"board":"8x8","anti":false,"blocked":[]},"seed":1,"seats":[{"seat":0,"colour":"black","name":"a","command":["a"],"ready":null},{"seat":1,"colour":"white","name":"b","command":["b"],"ready":null},{"seat":2,"colour":"red","name":"c","command":["c"],"ready":null},{"seat":3,"colour":"green","name":"d","command":["d"],"ready":null}],"initial_rows":["........","........","........","...BW...","...GR...","........","........","........"],"moves":[],"faults":[],"final_rows":["........","........","........","...BW...","...GR...","........","........","........"],"scores":[1,1,1,1],"result":{"kind":"draw"},"ranking":[[0,1,2,3]]}"#;

    #[test]
    fn seeds_above_2_53_go_in_as_exact_strings() {
        let mut record = crate::replay::read::read_line(SAMPLE.as_bytes()).unwrap();
        record.seed = Some(11140139307897113782);
        let loaded = Loaded {
            source: crate::replay::read::Source {
                path: "g.jsonl".into(),
                line: 1,
            },
            record,
        };
        let page = render(&[&loaded], None);
        assert!(page.contains("\"seed\":\"11140139307897113782\""));
    }

    #[test]
    fn streaming_gives_the_same_data_as_render() {
        let game = crate::replay::read::Loaded {
            source: crate::replay::read::Source {
                path: "g.jsonl".into(),
                line: 1,
            },
            record: crate::standings::games::tests::record(
                &["a", "b", "c"],
                &[3, 2, 1],
                &[&[0], &[1], &[2]],
                crate::rules::Outcome::Win { winner: 0 },
            ),
        };
        let data = |page: &str| -> serde_json::Value {
            let start = page.find("application/json\">").unwrap() + "application/json\">".len();
            let end = start + page[start..].find("</script>").unwrap();
            serde_json::from_str(&page[start..end]).unwrap()
        };
        let rendered = render(&[&game, &game], None);
        let mut streaming = Streaming::start(Vec::new(), "t").unwrap();
        for g in [&game, &game] {
            streaming.game(&g.source.to_string(), &g.record).unwrap();
        }
        let streamed = String::from_utf8(streaming.finish().unwrap()).unwrap();
        assert_eq!(data(&streamed), data(&rendered));
        assert!(streamed.contains("<title>t</title>"));
        assert_eq!(
            streamed.len() - "t".len(),
            rendered.len() - "multiversi replay · 2 games".len()
        );
    }

    #[test]
    fn template_has_each_placeholder_once() {
        assert_eq!(TEMPLATE.matches(DATA_MARK).count(), 1);
        assert_eq!(TEMPLATE.matches(TITLE_MARK).count(), 1);
    }
}
