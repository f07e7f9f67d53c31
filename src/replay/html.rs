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
    fn template_has_each_placeholder_once() {
        assert_eq!(TEMPLATE.matches(DATA_MARK).count(), 1);
        assert_eq!(TEMPLATE.matches(TITLE_MARK).count(), 1);
    }
}
