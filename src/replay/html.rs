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
            .map(|g| serde_json::json!({"source": g.source.to_string(), "record": g.record}))
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

    #[test]
    fn template_has_each_placeholder_once() {
        assert_eq!(TEMPLATE.matches(DATA_MARK).count(), 1);
        assert_eq!(TEMPLATE.matches(TITLE_MARK).count(), 1);
    }
}
