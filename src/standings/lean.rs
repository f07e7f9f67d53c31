//! The standings' lean reading of a record line: the same JSON parser and the same field types as
//! `GameRecord`, but without building what the standings never use. The board rows are checked
//! to be text and dropped; each move keeps who played it, where and how long it took, its flipped
//! discs checked to be squares and counted, not kept. Reading a record file is almost all of what
//! `multiversi standings` costs, and most of a record is its moves.
//!
//! The lean reading only ever takes a line, never refuses one: a line it does not take as it is
//! (damaged, of another format or version, with a field given twice, with rules or sizes that
//! `replay::read::check_usable` refuses) goes to `replay::read::read_line`, which reads it whole
//! or says why not in the words `multiversi replay` uses. A line it takes, `read_line` takes too:
//! the fields are the same, of the same types, in the same order (serde also reads a struct from
//! a JSON array, field by field), and the same checks follow. So the standings count, refuse and
//! report exactly the lines they would if every line were read whole.

use super::games::{Digest, Facts, Played};
use crate::record::{FaultRecord, ScheduleRef, SeatRecord, FORMAT, VERSION};
use crate::replay::read::check_usable;
use crate::rules::{MoveKind, Outcome, Rules, Seat, Square};
use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::Deserialize;

/// A record, field for field as `GameRecord` reads it except `initial_rows`, `moves` and
/// `final_rows`. Some fields are read only to be checked.
#[derive(Deserialize)]
#[allow(dead_code)]
struct Record {
    format: String,
    version: u32,
    game: String,
    started: String,
    duration_ms: u64,
    rules: Rules,
    seed: Option<u64>,
    seats: Vec<SeatRecord>,
    initial_rows: Vec<Text>,
    moves: Vec<Move>,
    faults: Vec<FaultRecord>,
    final_rows: Vec<Text>,
    scores: Vec<u32>,
    result: Outcome,
    ranking: Vec<Vec<Seat>>,
    #[serde(default)]
    opening: u32,
    #[serde(default)]
    schedule: Option<ScheduleRef>,
}

/// A move, field for field as `MoveRecord` reads it except `flips`.
#[derive(Deserialize)]
#[allow(dead_code)]
struct Move {
    ply: u32,
    seat: Seat,
    square: Square,
    kind: MoveKind,
    flips: Squares,
    ms: f64,
}

/// A JSON string, checked and dropped (where `GameRecord` has a `String`).
struct Text;

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        struct Checked;
        impl Visitor<'_> for Checked {
            type Value = Text;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E>(self, _: &str) -> Result<Text, E> {
                Ok(Text)
            }
        }
        d.deserialize_str(Checked)
    }
}

/// A list of square names, each checked, counted and dropped (where `MoveRecord` has a
/// `Vec<Square>`).
struct Squares(usize);

impl<'de> Deserialize<'de> for Squares {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Squares, D::Error> {
        struct Counted;
        impl<'de> Visitor<'de> for Counted {
            type Value = Squares;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence of squares")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Squares, A::Error> {
                let mut n = 0;
                while seq.next_element::<Square>()?.is_some() {
                    n += 1;
                }
                Ok(Squares(n))
            }
        }
        d.deserialize_seq(Counted)
    }
}

/// The digest of a line (see `games::Digest`), if the lean reading takes it; None sends the line
/// to `read_line`.
pub fn digest(line: &[u8]) -> Option<Digest> {
    let text = std::str::from_utf8(line).ok()?;
    let r: Record = serde_json::from_str(text).ok()?;
    if r.format != FORMAT || r.version != VERSION {
        return None;
    }
    check_usable(&r.rules, r.moves.iter().map(|m| (m.square, m.flips.0))).ok()?;
    let moves: Vec<Played> = r
        .moves
        .iter()
        .map(|m| Played {
            seat: m.seat,
            square: m.square,
            ms: m.ms,
        })
        .collect();
    Some(Digest::of(&Facts {
        game: &r.game,
        started: &r.started,
        duration_ms: r.duration_ms,
        players: r.rules.players,
        seed: r.seed,
        seats: &r.seats,
        moves: &moves,
        faults: &r.faults,
        scores: &r.scores,
        result: r.result,
        ranking: &r.ranking,
        opening: r.opening,
        schedule: r.schedule.as_ref(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::read::read_line;
    use crate::standings::games::{played, tests::mv};

    /// What the whole reading gives for a line, boiled down as the standings boil it.
    fn whole(line: &str) -> Result<Digest, String> {
        let record = read_line(line.as_bytes())?;
        let moves = played(&record);
        Ok(Digest::of(&Facts::of(&record, &moves)))
    }

    fn a_record() -> String {
        use crate::rules::Outcome;
        let mut r = crate::standings::games::tests::record(
            &["a", "b", "c"],
            &[3, 2, 1],
            &[&[0], &[1], &[2]],
            Outcome::Win { winner: 0 },
        );
        r.moves = vec![mv(0, 0, 0.5), mv(1, 1, 1.25), mv(2, 2, 7.0), mv(3, 0, 4.0)];
        r.moves[2].flips = vec!["b2".parse().unwrap(), "c3".parse().unwrap()];
        r.opening = 1;
        r.initial_rows = vec!["........".into(); 8];
        serde_json::to_string(&r).unwrap()
    }

    #[test]
    fn a_good_line_gives_the_digest_of_the_whole_reading() {
        let line = a_record();
        let lean = digest(line.as_bytes()).expect("the lean reading takes a good line");
        assert_eq!(Ok(lean), whole(&line));
        // Escapes in the strings it drops, fields in another order, unknown fields.
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        let mut object = value.as_object().unwrap().clone();
        object.insert("initial_rows".into(), serde_json::json!(["..\"..\\u00e9"]));
        object.insert("extra".into(), serde_json::json!({"x": [1, 2]}));
        let moves = object.remove("moves").unwrap();
        object.insert("moves".into(), moves);
        let line = serde_json::to_string(&object).unwrap();
        assert_eq!(Ok(digest(line.as_bytes()).unwrap()), whole(&line));
    }

    #[test]
    fn a_line_it_does_not_take_is_left_to_the_whole_reading() {
        let line = a_record();
        let bad = [
            line[..line.len() / 2].to_string(),
            line.replace("\"flips\":[\"b2\"", "\"flips\":[\"zz9\""),
            line.replace("\"flips\":[]", "\"flips\":{}"),
            line.replace("\"initial_rows\":[\"........\"", "\"initial_rows\":[8"),
            line.replace("\"kind\":\"placing\"", "\"kind\":\"jumping\""),
            line.replace("\"version\":1", "\"version\":2"),
            line.replace("\"players\":3", "\"players\":5"),
            line.replace("\"ms\":0.5", "\"ms\":\"0.5\""),
            "[1, 2]".to_string(),
        ];
        for line in &bad {
            assert!(digest(line.as_bytes()).is_none(), "taken: {line}");
            // The whole reading refuses it too, with its reason.
            assert!(whole(line).is_err(), "{line}");
        }
        // A field given twice: only the whole reading takes it (the last copy counts).
        let twice = line.replacen('{', "{\"game\":\"first\",", 1);
        assert!(digest(twice.as_bytes()).is_none());
        assert!(whole(&twice).is_ok());
    }
}
