//! Reading record files. A record file is JSON Lines written by the referee one finished game at
//! a time, so the usual damage is a last line cut off by a crash or a kill; that must not cost the
//! games before it. Each line is therefore read on its own: a damaged line is reported with its
//! file and line number and every other line is still read.

use crate::exit::{self, fail};
use crate::record::{GameRecord, FORMAT, VERSION};
use crate::rules::{Rules, Square};
use anyhow::Result;
use std::fmt;
use std::path::{Path, PathBuf};

/// Where a game came from: the file and the 1-based line number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub path: PathBuf,
    pub line: usize,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.path.display(), self.line)
    }
}

/// One game read from a file.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub source: Source,
    pub record: GameRecord,
}

/// A line that could not be read as a game, with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damaged {
    pub source: Source,
    pub message: String,
}

impl fmt::Display for Damaged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.source, self.message)
    }
}

/// Everything read from the files given, in file and line order.
#[derive(Clone, Debug, Default)]
pub struct Records {
    pub games: Vec<Loaded>,
    pub damaged: Vec<Damaged>,
}

/// The error for a record file that cannot be read (exit 3, naming the path): the user asked
/// for it by name.
pub fn cannot_read(path: &Path, e: std::io::Error) -> anyhow::Error {
    let why = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        // A league's directory given for its records: name them.
        _ if path.is_dir() => format!(
            "{e}; give the record files it holds (as {})",
            path.join("games*.jsonl").display()
        ),
        _ => e.to_string(),
    };
    fail(
        exit::BAD_INPUT,
        format!("cannot read record file {}: {why}", path.display()),
    )
}

/// Reads every file. A file that is missing or unreadable is an error (exit 3, naming the path)
/// before anything is shown, because the user asked for it by name; damaged lines are collected.
pub fn read_files(paths: &[PathBuf]) -> Result<Records> {
    let mut records = Records::default();
    for path in paths {
        let bytes = std::fs::read(path).map_err(|e| cannot_read(path, e))?;
        read_lines(path, &bytes, &mut records);
    }
    Ok(records)
}

/// Splits a file's bytes into lines and reads each; blank lines are skipped.
pub fn read_lines(path: &Path, bytes: &[u8], into: &mut Records) {
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let source = Source {
            path: path.to_path_buf(),
            line: i + 1,
        };
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match read_line(line) {
            Ok(record) => into.games.push(Loaded { source, record }),
            Err(message) => into.damaged.push(Damaged { source, message }),
        }
    }
}

/// Reads one line as a game record, or says in a sentence why it is not one.
pub fn read_line(line: &[u8]) -> Result<GameRecord, String> {
    let text = std::str::from_utf8(line)
        .map_err(|e| format!("not UTF-8 text (byte {})", e.valid_up_to() + 1))?;
    // A good line is parsed once, straight into a record; any other goes the long way below,
    // through a JSON value, to say what is wrong with it (the same record comes out of both: a
    // line that only the long way reads, such as one with a field given twice, takes it).
    let record = match serde_json::from_str::<GameRecord>(text) {
        Ok(record) if record.format == FORMAT && record.version == VERSION => record,
        _ => slow_read(text)?,
    };
    check_usable(
        &record.rules,
        record.moves.iter().map(|m| (m.square, m.flips.len())),
    )?;
    Ok(record)
}

/// Refuses a record that no game can have made: rules the engine does not accept (`Rules`
/// deserializes field by field), or lists longer than its board allows. Each move fills an empty
/// square, so a game has at most as many moves as the board has squares, and a move flips fewer
/// discs than that. No referee wrote such a line (it was edited, or written by another program);
/// refusing it here, where it is reported with its file and line, spares everything that reads
/// records (the drawing, the viewer, the standings) sizes that no game has. `moves`: each move's
/// square and how many flipped discs it lists.
pub fn check_usable(
    rules: &Rules,
    moves: impl ExactSizeIterator<Item = (Square, usize)>,
) -> Result<(), String> {
    Rules::with_blocked(
        rules.players as u32,
        rules.board,
        rules.anti,
        rules.blocked.clone(),
    )
    .map_err(|e| format!("invalid rules: {e}"))?;
    let board = rules.board;
    let squares = usize::from(rules.side()).pow(2);
    if moves.len() > squares {
        return Err(format!(
            "{} moves; the {board} board has {squares} squares",
            moves.len()
        ));
    }
    match moves
        .enumerate()
        .find(|(_, (_, flips))| *flips >= squares)
    {
        Some((i, (square, flips))) => Err(format!(
            "move {} ({square}) lists {flips} flipped discs; the {board} board has {squares} squares",
            i + 1,
        )),
        None => Ok(()),
    }
}

/// A line read through a JSON value, checked step by step so that a line that is not a record
/// of this version is refused with a sentence saying why.
fn slow_read(text: &str) -> Result<GameRecord, String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        if e.is_eof() {
            format!(
                "the line ends in the middle of a record (cut off, e.g. by a crash?) after {} characters",
                text.chars().count()
            )
        } else {
            format!("not valid JSON: {e}")
        }
    })?;
    let object = value
        .as_object()
        .ok_or_else(|| "not a JSON object, so not a game record".to_string())?;
    match object.get("format").and_then(|f| f.as_str()) {
        Some(FORMAT) => {}
        Some(other) => return Err(format!("format is '{other}', not '{FORMAT}'")),
        None => {
            return Err(format!(
                "no \"format\":\"{FORMAT}\" field: not a game record"
            ))
        }
    }
    match object.get("version").and_then(|v| v.as_u64()) {
        Some(v) if v == VERSION as u64 => {}
        Some(v) => {
            return Err(format!(
                "record format version {v} is not supported: this build of multiversi reads version {VERSION}"
            ))
        }
        None => return Err("no numeric \"version\" field".to_string()),
    }
    serde_json::from_value(value).map_err(|e| {
        // The value has no positions: for a wrong value, the text read again gives the column,
        // and the key before it names the field. (A missing field's column is the end of its
        // object, after some other key.)
        let serde = e.to_string();
        let field = if serde.starts_with("invalid type") || serde.starts_with("invalid value") {
            serde_json::from_str::<GameRecord>(text)
                .err()
                .and_then(|at| key_before(text, at.column()))
        } else {
            None
        };
        let what = number_words(&serde);
        match field {
            Some(key) => format!("does not match the record format: field \"{key}\": {what}"),
            None => format!("does not match the record format: {what}"),
        }
    })
}

/// The last object key that starts before `column` (1-based, in bytes) of a one-line JSON text.
fn key_before(text: &str, column: usize) -> Option<String> {
    let head = text.get(..column.min(text.len()))?;
    let colon = head.rfind("\":")?;
    let start = head[..colon].rfind('"')? + 1;
    let key = &head[start..colon];
    (!key.is_empty() && key.len() <= 40).then(|| crate::text::visible(key).into_owned())
}

/// serde's words for a number that does not fit a whole-number field, in a bot author's words:
/// a number past 2^64 reads as a floating-point number, and serde names it so.
fn number_words(serde: &str) -> String {
    let Some(rest) = serde.strip_prefix("invalid type: floating point `") else {
        return serde.to_string();
    };
    let Some((number, expected)) = rest.split_once("`, expected ") else {
        return serde.to_string();
    };
    let max = match expected {
        "u8" => u8::MAX as u64,
        "u32" => u32::MAX as u64,
        "u64" => u64::MAX,
        _ => return serde.to_string(),
    };
    format!("{number} where a whole number from 0 to {max} belongs (too large, or with a fraction)")
}

/// Picks the games to show: all of them, or the one `--game` names by id or by 1-based number
/// (in file and line order over all the files given). A game that does not exist is a usage error
/// that lists what does.
pub fn select<'a>(records: &'a Records, game: Option<&str>) -> Result<Vec<&'a Loaded>> {
    let Some(wanted) = game else {
        return Ok(records.games.iter().collect());
    };
    let same_id: Vec<(usize, &Loaded)> = records
        .games
        .iter()
        .enumerate()
        .filter(|(_, g)| g.record.game == wanted)
        .collect();
    match same_id.as_slice() {
        [] => {}
        [(_, found)] => return Ok(vec![found]),
        several => {
            // Records of older versions reused ids across runs: say which games share this one,
            // with the numbers that pick each.
            let listed: Vec<String> = several
                .iter()
                .map(|(i, g)| format!("{} ({}, started {})", i + 1, g.source, g.record.started))
                .collect();
            return Err(fail(
                exit::USAGE,
                format!(
                    "game id '{wanted}' is ambiguous: {} games have it; give the number of one: {}",
                    several.len(),
                    listed.join(", ")
                ),
            ));
        }
    }
    if let Ok(n) = wanted.parse::<usize>() {
        if (1..=records.games.len()).contains(&n) {
            return Ok(vec![&records.games[n - 1]]);
        }
    }
    let total = records.games.len();
    let listed: Vec<String> = records
        .games
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, g)| format!("{} {}", i + 1, g.record.game))
        .collect();
    let more = if total > 10 {
        format!(", … ({total} games)")
    } else {
        String::new()
    };
    let what = if total == 0 {
        "there are no readable games".to_string()
    } else {
        format!(
            "give a number 1..{total} or a game id: {}{more}",
            listed.join(", ")
        )
    };
    Err(fail(exit::USAGE, format!("no game '{wanted}': {what}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Outcome, Square};
    use crate::standings::games::tests::{mv, record};

    fn line(rec: &GameRecord) -> Vec<u8> {
        serde_json::to_vec(rec).unwrap()
    }

    #[test]
    fn a_number_too_large_for_its_field_is_named_with_the_field() {
        let rec = record(
            &["a", "b", "c"],
            &[3, 2, 1],
            &[&[0], &[1], &[2]],
            Outcome::Draw,
        );
        let text = String::from_utf8(line(&rec)).unwrap();
        let key = "\"duration_ms\":";
        let at = text.find(key).unwrap() + key.len();
        let end = at + text[at..].find(',').unwrap();
        for (number, words) in [
            (
                "18446744073709551616",
                "1.8446744073709552e+19 where a whole number from 0 to 18446744073709551615 \
                 belongs (too large, or with a fraction)",
            ),
            (
                "2.5",
                "2.5 where a whole number from 0 to 18446744073709551615 belongs (too large, or \
                 with a fraction)",
            ),
            ("-1", "invalid value: integer `-1`, expected u64"),
            ("\"soon\"", "invalid type: string \"soon\", expected u64"),
        ] {
            let damaged = format!("{}{number}{}", &text[..at], &text[end..]);
            assert_eq!(
                read_line(damaged.as_bytes()).unwrap_err(),
                format!("does not match the record format: field \"duration_ms\": {words}")
            );
        }
        // A missing field is not blamed on the key before the end of its object.
        let without = text.replacen("\"final_rows\":", "\"final_rowz\":", 1);
        let err = read_line(without.as_bytes()).unwrap_err();
        assert!(err.contains("missing field `final_rows`"), "{err}");
        assert!(!err.contains("field \""), "{err}");
    }

    #[test]
    fn a_record_larger_than_its_board_is_refused() {
        let mut rec = record(
            &["a", "b", "c"],
            &[3, 2, 1],
            &[&[0], &[1], &[2]],
            Outcome::Draw,
        );
        rec.moves = (0..64).map(|i| mv(i, i as usize % 3, 1.0)).collect();
        assert!(read_line(&line(&rec)).is_ok(), "64 moves fit an 8x8 board");
        rec.moves.push(mv(64, 1, 1.0));
        assert_eq!(
            read_line(&line(&rec)).unwrap_err(),
            "65 moves; the 8x8 board has 64 squares"
        );
        rec.moves.truncate(3);
        rec.moves[2].flips = vec![Square::new(1, 1); 63];
        assert!(read_line(&line(&rec)).is_ok());
        rec.moves[2].flips.push(Square::new(1, 2));
        assert_eq!(
            read_line(&line(&rec)).unwrap_err(),
            "move 3 (a1) lists 64 flipped discs; the 8x8 board has 64 squares"
        );
    }
}
