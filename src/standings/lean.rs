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
//!
//! Most of a line is its moves, and the referee writes them in one compact form: those are read
//! by hand (`compact`), and only the rest of the line by serde_json.

use super::compact;
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
///
/// When the moves are in the referee's compact form (`compact::moves`), they are read by hand
/// and the rest of the line, with `[]` in their place, by serde_json: the JSON before and after
/// them is the same, and so is where they stand in it (the record's own `moves`), so the same
/// record comes out as from the whole line, only sooner. Otherwise the whole line is read here.
pub fn digest(line: &[u8], scratch: &mut Scratch) -> Option<Digest> {
    if let Some(at) = compact::moves(line, &mut scratch.moves) {
        let rest = &mut scratch.rest;
        rest.clear();
        rest.extend_from_slice(&line[..at.start]);
        rest.extend_from_slice(b"[]");
        rest.extend_from_slice(&line[at.end..]);
        // The moves are ASCII: the line is UTF-8 if the rest is.
        let record = std::str::from_utf8(rest)
            .ok()
            .and_then(|text| serde_json::from_str::<Record>(text).ok());
        // Another top-level `moves` would have been refused as a field given twice.
        if let Some(r) = record.filter(|r| r.moves.is_empty()) {
            let moves = &scratch.moves;
            return boil(&r, &moves.played, &moves.flips);
        }
    }
    let r: Record = serde_json::from_str(std::str::from_utf8(line).ok()?).ok()?;
    let (moves, flips): (Vec<Played>, Vec<usize>) = r
        .moves
        .iter()
        .map(|m| {
            let played = Played {
                seat: m.seat,
                square: m.square,
                ms: m.ms,
            };
            (played, m.flips.0)
        })
        .unzip();
    boil(&r, &moves, &flips)
}

/// What a reading thread keeps from line to line: room for the compact moves, and for the line
/// without them.
#[derive(Default)]
pub struct Scratch {
    moves: compact::Moves,
    rest: Vec<u8>,
}

/// The digest of a record read with its moves (and how many flipped discs each lists), after the
/// checks `read_line` makes.
fn boil(r: &Record, moves: &[Played], flips: &[usize]) -> Option<Digest> {
    if r.format != FORMAT || r.version != VERSION {
        return None;
    }
    let squares = moves.iter().map(|m| m.square);
    check_usable(&r.rules, squares.zip(flips.iter().copied())).ok()?;
    Some(Digest::of(&Facts {
        game: &r.game,
        started: &r.started,
        duration_ms: r.duration_ms,
        players: r.rules.players,
        seed: r.seed,
        seats: &r.seats,
        moves,
        faults: &r.faults,
        scores: &r.scores,
        result: r.result,
        ranking: &r.ranking,
        opening: r.opening,
        schedule: r.schedule.as_ref(),
    }))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::record::{FaultKind, GameRecord, MoveRecord};
    use crate::replay::read::read_line;
    use crate::rules::{ranking, BoardKind, Colour, Position};
    use crate::standings::games::{played, tests::mv};

    /// What the whole reading gives for a line, boiled down as the standings boil it.
    fn whole(line: &str) -> Result<Digest, String> {
        let record = read_line(line.as_bytes())?;
        let moves = played(&record);
        Ok(Digest::of(&Facts::of(&record, &moves)))
    }

    /// The lean reading of a line, with room of its own.
    fn lean(line: &str) -> Option<Digest> {
        digest(line.as_bytes(), &mut Scratch::default())
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
        let taken = lean(&line).expect("the lean reading takes a good line");
        assert_eq!(Ok(taken), whole(&line));
        // Escapes in the strings it drops, fields in another order, unknown fields.
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        let mut object = value.as_object().unwrap().clone();
        object.insert("initial_rows".into(), serde_json::json!(["..\"..\\u00e9"]));
        object.insert("extra".into(), serde_json::json!({"x": [1, 2]}));
        let moves = object.remove("moves").unwrap();
        object.insert("moves".into(), moves);
        let line = serde_json::to_string(&object).unwrap();
        assert_eq!(Ok(lean(&line).unwrap()), whole(&line));
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
            assert!(lean(line).is_none(), "taken: {line}");
            // The whole reading refuses it too, with its reason.
            assert!(whole(line).is_err(), "{line}");
        }
        // A field given twice: only the whole reading takes it (the last copy counts).
        let twice = line.replacen('{', "{\"game\":\"first\",", 1);
        assert!(lean(&twice).is_none());
        assert!(whole(&twice).is_ok());
    }

    /// A game played to its end under these rules by moves drawn from `seed`, recorded as the
    /// referee records it: the times rounded to the microsecond, some of them 0, and with
    /// `fault`, a seat disqualified at a ply, its turns skipped from then on.
    pub(crate) fn game_on(
        board: BoardKind,
        players: u32,
        anti: bool,
        blocked: &str,
        seed: u64,
        mut fault: Option<(Seat, u32)>,
    ) -> GameRecord {
        let blocked = crate::rules::parse_square_list(blocked).unwrap();
        let rules = Rules::with_blocked(players, board, anti, blocked).unwrap();
        let mut position = Position::new(rules.clone());
        let initial_rows = position.rows();
        let mut state = seed;
        let mut draw = move |n: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize % n
        };
        let (mut moves, mut faults) = (Vec::new(), Vec::new());
        while !position.is_over() {
            let ply = moves.len() as u32;
            if let Some((seat, at)) = fault.take_if(|&mut (_, at)| at == ply) {
                if position.remove_seat(seat) {
                    let mut f = crate::standings::games::tests::fault(seat, FaultKind::Timeout);
                    (f.ply, f.detail) = (at, "no reply within 1000 ms".into());
                    faults.push(f);
                    continue;
                }
            }
            let (legal, _) = position.legal_moves();
            if legal.is_empty() {
                break;
            }
            let played = position.play(legal[draw(legal.len())]).unwrap();
            let ms = match draw(4) {
                0 => 0.0,
                1 => draw(1000) as f64 / 1000.0,
                _ => draw(10_000_000) as f64 / 1000.0,
            };
            moves.push(MoveRecord {
                ply,
                seat: played.seat,
                square: played.square,
                kind: played.kind,
                flips: played.flips,
                ms,
            });
        }
        let scores = position.scores();
        let eligible = position.in_game();
        let names = ["alpha", "b\"ot\\", "ç-3", "delta"];
        GameRecord {
            format: FORMAT.into(),
            version: VERSION,
            game: format!("run-r1-{seed}"),
            started: "2026-12-01T10:00:00Z".into(),
            duration_ms: 100 + seed,
            seed: Some(seed),
            seats: (0..players as usize)
                .map(|seat| SeatRecord {
                    seat,
                    colour: Colour::of_seat(seat),
                    name: names[seat].into(),
                    command: vec!["./bot".into(), format!("--seat={seat}")],
                    ready: None,
                    restarted: false,
                })
                .collect(),
            initial_rows,
            moves,
            faults,
            final_rows: position.rows(),
            result: Outcome::decide(&scores, anti, &eligible),
            ranking: ranking(&scores, anti, &eligible),
            scores,
            opening: (seed % 3) as u32,
            schedule: Some(ScheduleRef {
                run: "run".into(),
                index: seed,
                deal: seed / 6,
                seating: (seed % 6) as u32,
            }),
            rules,
        }
    }

    /// The lean reading of a line, checked against the whole reading: a line it takes, the
    /// whole reading takes too, to the same digest.
    fn agrees(line: &str, scratch: &mut Scratch) -> Option<Digest> {
        let taken = digest(line.as_bytes(), scratch);
        match (&taken, whole(line)) {
            (Some(taken), Ok(whole)) => assert_eq!(*taken, whole, "{line}"),
            (Some(_), Err(e)) => panic!("taken, but the whole reading says: {e}: {line}"),
            (None, _) => {}
        }
        taken
    }

    #[test]
    fn the_compact_moves_give_what_the_whole_reading_gives() {
        use BoardKind::{Eight, Octagon, Ten};
        let rules = [
            (Eight, 4, false, ""),
            (Eight, 3, true, "a1,h8"),
            (Ten, 4, false, "c3,h8"),
            (Ten, 3, false, ""),
            (Octagon, 4, true, ""),
            (Octagon, 3, false, "e2"),
        ];
        // One room for every line, as a reading thread keeps it.
        let mut scratch = Scratch::default();
        let mut compact_moves = compact::Moves::default();
        let (mut seen, mut tried) = (0, 0);
        for (seed, &(board, players, anti, blocked)) in (1u64..).zip(rules.iter().cycle()).take(24)
        {
            let fault = (seed % 4 == 0).then_some(((seed % 3) as Seat, (seed * 5 % 40) as u32));
            let record = game_on(board, players, anti, blocked, seed, fault);
            let line = serde_json::to_string(&record).unwrap();
            // The referee's own line: its moves read by hand, exactly.
            assert!(compact::moves(line.as_bytes(), &mut compact_moves).is_some());
            assert_eq!(compact_moves.played, played(&record));
            let flips: Vec<usize> = record.moves.iter().map(|m| m.flips.len()).collect();
            assert_eq!(compact_moves.flips, flips);
            let taken = agrees(&line, &mut scratch).expect("a referee's line is taken");
            assert!(taken.game.is_ok(), "{:?}", taken.game);
            seen += record.faults.len();

            // Lines the compact reading gives up on, and some it takes: every one that is
            // taken, whichever way, gives the whole reading's digest.
            let first = &record.moves[0];
            let square = format!("\"square\":\"{}\"", first.square);
            let ply = format!("{{\"ply\":{},", first.ply);
            let moves_at = line.find(",\"moves\":[").unwrap();
            let variants = [
                line.replace(",\"ms\":", ", \"ms\": "),
                line.replacen(&square, "\"square\":\"\\u0061\\u0031\"", 1),
                line.replacen(
                    &square,
                    &square.to_uppercase().replace("SQUARE", "square"),
                    1,
                ),
                line.replacen(&ply, "{\"ply\":0,\"extra\":[1],", 1),
                line.replacen(&ply, "{\"ply\":4294967296,", 1),
                line.replacen(&ply, "{\"ply\":00,", 1),
                line.replacen(&square, "\"square\":\"a27\"", 1),
                line.replacen(&square, "\"square\":\"z26\"", 1),
                line.replacen(",\"seat\":", ",\"seat\":99999999999", 1),
                line.replacen(",\"seat\":", ",\"seat\":-", 1),
                line.replacen('{', "{\"extra\":{\"moves\":[]},", 1),
                line.replacen('{', "{\"x\\\"moves\":[1],", 1),
                line.replacen(",\"moves\":[", ",\"moves\":[ ", 1),
                line.replacen(",\"moves\":[", ",\"moves\": [", 1),
                line.replacen(",\"moves\":[", ",\"moves\":{", 1),
                format!(
                    "{}{}",
                    &line[..moves_at],
                    &line[line.find(",\"faults\"").unwrap()..]
                ),
                line.replace("\"kind\":\"flipping\"", "\"kind\":\"placing\""),
                line.replace("\"kind\":\"placing\"", "\"kind\":\"Placing\""),
                line.replacen("\"flips\":[\"", "\"flips\":[\"A", 1),
                line.replacen("],\"ms\":", "] ,\"ms\":", 1),
                line.replacen("}]", "}] ", 1),
                line.replacen("}]", "},]", 1),
                line.replacen("}]", "}", 1),
            ];
            for variant in variants.iter().filter(|v| **v != line) {
                tried += 1;
                agrees(variant, &mut scratch);
            }
            // Times of every form a number can take: each read as serde_json reads it.
            for ms in [
                1e-7,
                0.1 + 0.2,
                123456789012.5,
                1e15,
                1e16,
                5e-324,
                0.001,
                7.0,
            ] {
                let mut odd = record.clone();
                for m in odd.moves.iter_mut().step_by(3) {
                    m.ms = ms;
                }
                agrees(&serde_json::to_string(&odd).unwrap(), &mut scratch)
                    .expect("taken, whatever the times");
            }
            for ms in [
                "1.5e-3", "1E2", "2.50", "0.0000", "-0.0", "-1.5", "1.", ".5",
            ] {
                let at = format!(",\"ms\":{}}}", serde_json::to_string(&first.ms).unwrap());
                let text = line.replacen(&at, &format!(",\"ms\":{ms}}}"), 1);
                assert_ne!(text, line);
                agrees(&text, &mut scratch);
            }
            // The moves given twice at the top: only the whole reading takes the line.
            let twice = line.replacen('{', "{\"moves\":[],", 1);
            assert!(agrees(&twice, &mut scratch).is_none());
            assert!(whole(&twice).is_ok());
        }
        assert!(seen > 0, "some games had a fault");
        assert!(tried > 24 * 20, "{tried} variants");
    }
}
