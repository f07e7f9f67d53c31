//! `replay --html`: one self-contained HTML file (styles, script and data inline, nothing fetched)
//! so a game can be mailed, attached to an issue or opened offline. The viewer itself lives in
//! `viewer.html`; the games go in as JSON inside a `<script type="application/json">` element.

use super::read::Loaded;
use crate::exit::{self, fail};
use crate::record::GameRecord;
use anyhow::Result;
use std::io::Write as _;
use std::path::Path;

/// The viewer page, with two placeholders: the title and the data.
const TEMPLATE: &str = include_str!("viewer.html");
const DATA_MARK: &str = "/*@DATA@*/null";
const TITLE_MARK: &str = "@TITLE@";

/// Makes JSON safe inside a `<script>` element: no `</script>` or `<!--` can appear once every
/// `<`, `>` and `&` is written as a JSON `\u` escape, which parses back to the same string.
/// U+2028 and U+2029 are escaped too, for older script parsers. The runs between the bytes to
/// escape are copied whole: a league's viewer is tens of megabytes of JSON, and a character at
/// a time was most of its cost.
fn write_script_safe(out: &mut impl std::io::Write, json: &[u8]) -> std::io::Result<()> {
    // Most records hold no U+2028 or U+2029 (E2 80 A8, E2 80 A9 in UTF-8): then only `<`, `>`
    // and `&` are looked for, with a vectorised search instead of a look at every byte.
    let mut from = 0;
    if memchr::memchr(0xE2, json).is_none() {
        for i in memchr::memchr3_iter(b'<', b'>', b'&', json) {
            out.write_all(&json[from..i])?;
            out.write_all(match json[i] {
                b'<' => b"\\u003c",
                b'>' => b"\\u003e",
                _ => b"\\u0026",
            })?;
            from = i + 1;
        }
        return out.write_all(&json[from..]);
    }
    let mut i = 0;
    while i < json.len() {
        let escape: &[u8] = match json[i] {
            b'<' => b"\\u003c",
            b'>' => b"\\u003e",
            b'&' => b"\\u0026",
            0xE2 if json.get(i + 1) == Some(&0x80) && json.get(i + 2) == Some(&0xA8) => b"\\u2028",
            0xE2 if json.get(i + 1) == Some(&0x80) && json.get(i + 2) == Some(&0xA9) => b"\\u2029",
            _ => {
                i += 1;
                continue;
            }
        };
        out.write_all(&json[from..i])?;
        out.write_all(escape)?;
        i += if json[i] == 0xE2 { 3 } else { 1 };
        from = i;
    }
    out.write_all(&json[from..])
}

/// One game's record as the viewer's data holds it: the entry's fields after its source
/// (`"record":…`), already script-safe. Made apart from the page so that the standings'
/// reading threads make it for their games, on every core, while the one thread that writes the
/// page only copies it in order: serialising every record on that thread was most of what the
/// end of a league cost.
pub struct ViewerJson(Vec<u8>);

impl ViewerJson {
    /// A record serialised as the referee writes it, then made an entry as `of_line` makes one.
    pub fn of(record: &GameRecord) -> std::io::Result<ViewerJson> {
        Self::of_line(&serde_json::to_vec(record)?, record.seed)
    }

    /// A record line copied as it is, for a line known to read as a whole record (one the
    /// standings' lean reading took, which `replay::read::read_line` takes too): parsing the
    /// line whole and serialising it again was most of what writing a league's viewer cost. The
    /// page reads it to the same record: the same fields (fields it does not know are left
    /// alone), with the seed, which a JavaScript number cannot hold exactly above 2^53, given
    /// beside it as a string that the page puts in its place (`"seed":"…","record":…`).
    pub fn of_line(line: &[u8], seed: Option<u64>) -> std::io::Result<ViewerJson> {
        let mut safe = Vec::with_capacity(line.len() + line.len() / 64 + 40);
        if let Some(seed) = seed {
            write!(safe, "\"seed\":\"{seed}\",")?;
        }
        safe.extend_from_slice(b"\"record\":");
        write_script_safe(&mut safe, line)?;
        Ok(ViewerJson(safe))
    }
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page for these games, opening at `ply` (after that many moves) or at the start.
pub fn render(games: &[&Loaded], ply: Option<u32>) -> String {
    let title = match games {
        [one] => format!("multiversi replay · game {}", one.record.game),
        _ => format!("multiversi replay · {} games", games.len()),
    };
    let page = || -> std::io::Result<Vec<u8>> {
        let mut page = Streaming::start_at(Vec::new(), &title, ply)?;
        for g in games {
            page.game(&g.source.to_string(), &g.record)?;
        }
        page.finish()
    };
    let page = page().expect("a Vec takes every write, and a record always serialises");
    String::from_utf8(page).expect("the page is UTF-8: the template, JSON and ASCII escapes")
}

/// The viewer written one game at a time, so that a league's thousands of games go to disk
/// without being held in memory: `start`, then `game` for each game in order (the viewer numbers
/// them from 1 in that order, as `#game=N` links do), then `finish`.
pub struct Streaming<W: std::io::Write> {
    out: W,
    games: usize,
    after_data: &'static str,
    /// The head of one game's entry (its source), kept between games for its allocation.
    json: Vec<u8>,
}

impl<W: std::io::Write> Streaming<W> {
    pub fn start(out: W, title: &str) -> std::io::Result<Streaming<W>> {
        Self::start_at(out, title, None)
    }

    /// The page opening at `ply` (after that many moves) of its first game, or at the start.
    fn start_at(mut out: W, title: &str, ply: Option<u32>) -> std::io::Result<Streaming<W>> {
        let (before, after) = TEMPLATE.split_once(DATA_MARK).unwrap_or((TEMPLATE, ""));
        out.write_all(
            before
                .replacen(TITLE_MARK, &html_escape(title), 1)
                .as_bytes(),
        )?;
        match ply {
            Some(ply) => write!(out, "{{\"ply\":{ply},\"games\":[")?,
            None => out.write_all(b"{\"ply\":null,\"games\":[")?,
        }
        Ok(Streaming {
            out,
            games: 0,
            after_data: after,
            json: Vec::new(),
        })
    }

    pub fn game(&mut self, source: &str, record: &GameRecord) -> std::io::Result<()> {
        self.game_json(source, &ViewerJson::of(record)?)
    }

    /// The next game, its record made already: `{"source":…,"record":…}` (see `ViewerJson`).
    pub fn game_json(&mut self, source: &str, record: &ViewerJson) -> std::io::Result<()> {
        if self.games > 0 {
            self.out.write_all(b",")?;
        }
        self.json.clear();
        self.json.extend_from_slice(b"{\"source\":");
        serde_json::to_writer(&mut self.json, source)?;
        self.json.push(b',');
        write_script_safe(&mut self.out, &self.json)?;
        self.out.write_all(&record.0)?;
        self.out.write_all(b"}")?;
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

    /// `write_script_safe` into a string.
    fn script_safe(json: &str) -> String {
        let mut out = Vec::new();
        write_script_safe(&mut out, json.as_bytes()).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn script_safe_json_still_parses_to_the_same_value() {
        let value = serde_json::json!({"text": "</script><!-- & \u{2028} >"});
        let safe = script_safe(&value.to_string());
        assert!(!safe.contains('<') && !safe.contains('>') && !safe.contains('&'));
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn script_safe_escapes_exactly_the_five_characters() {
        let text = "a<b>c&d\u{2028}e\u{2029}f\u{2027}g\u{20ac}h<<\u{2028}\u{2028}é&";
        let expected: String = text
            .chars()
            .map(|c| match c {
                '<' => "\\u003c".to_string(),
                '>' => "\\u003e".to_string(),
                '&' => "\\u0026".to_string(),
                '\u{2028}' => "\\u2028".to_string(),
                '\u{2029}' => "\\u2029".to_string(),
                c => c.to_string(),
            })
            .collect();
        assert_eq!(script_safe(text), expected);
        assert_eq!(script_safe(""), "");
        assert_eq!(script_safe("plain"), "plain");
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

    /// The viewer's data of one entry as the page reads it: an exact seed given beside the
    /// record put in the record's place.
    fn as_the_page_reads(entry: &[u8]) -> serde_json::Value {
        let mut value: serde_json::Value =
            serde_json::from_slice(&[b"{".as_slice(), entry, b"}"].concat()).unwrap();
        if let Some(seed) = value.as_object_mut().unwrap().remove("seed") {
            value["record"]["seed"] = seed;
        }
        value
    }

    #[test]
    fn a_line_copied_reads_as_the_record_serialised_again() {
        let mut record = crate::replay::read::read_line(SAMPLE.as_bytes()).unwrap();
        // Above 2^53; a name that would end the script element; the two line separators.
        record.seed = Some(11140139307897113782);
        record.seats[1].name = "</script><b>&\u{2028}\u{2029}".into();
        for seed in [record.seed, None] {
            record.seed = seed;
            let line = serde_json::to_vec(&record).unwrap();
            let copied = ViewerJson::of_line(&line, seed).unwrap().0;
            let made = ViewerJson::of(&record).unwrap().0;
            for entry in [&copied, &made] {
                assert!(!entry.iter().any(|b| b"<>&".contains(b)));
            }
            assert_eq!(as_the_page_reads(&copied), as_the_page_reads(&made));
        }
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
        let mut game = game;
        // Above 2^53: the viewer would show another seed were it a number.
        game.record.seed = Some(11140139307897113782);
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
        assert!(streamed.contains("\"seed\":\"11140139307897113782\""));
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
