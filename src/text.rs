//! Text from bots shown to a person. A bot's name, its bad move, its stderr: all of it is
//! untrusted, and a terminal obeys escape sequences. Everything a bot controls passes through
//! `visible` before it reaches a terminal or a log line meant for people; records keep the raw
//! text (JSON escapes it).

use std::borrow::Cow;
use std::fmt::Write;

/// The text with every control character made visible: `\n`, `\r`, `\t` and `\\` as those
/// escapes, other control characters (C0, DEL, C1) and the bidirectional overrides as `\u{..}`.
/// A line stays one line, and no escape sequence reaches the terminal. Text without any of these
/// is returned as it is, without copying.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `text` followed by spaces up to `width` characters: a column as wide as its widest entry.
/// Columns sized by what a record holds (a bot's name, a move's flips) are padded with this rather
/// than with the formatter's `{:<width$}`, which panics on a width above 65,535, and nothing
/// bounds a name in a record.
pub fn pad_end(text: &str, width: usize) -> String {
    let len = text.chars().count();
    let mut out = String::with_capacity(text.len() + width.saturating_sub(len));
    out.push_str(text);
    out.extend(std::iter::repeat(' ').take(width.saturating_sub(len)));
    out
}

/// Control characters, and the Unicode controls that reorder or hide text on a terminal.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || c == '\\'
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::{pad_end, visible};

    #[test]
    fn padding_counts_characters_and_takes_any_width() {
        assert_eq!(pad_end("é1", 4), "é1  ");
        assert_eq!(pad_end("long", 2), "long");
        assert_eq!(pad_end("", 70_000).len(), 70_000);
    }

    #[test]
    fn plain_text_is_borrowed_unchanged() {
        assert!(matches!(
            visible("greedy 1.0 — é"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn escapes_and_newlines_become_visible() {
        assert_eq!(visible("a\x1b[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(visible("name\nforged line"), "name\\nforged line");
        assert_eq!(visible("x\r\t\u{7f}\u{9b}"), "x\\r\\t\\u{7f}\\u{9b}");
        assert_eq!(visible("a\\u{1b}"), "a\\\\u{1b}");
        assert_eq!(visible("abc\u{202e}def"), "abc\\u{202e}def");
    }
}
