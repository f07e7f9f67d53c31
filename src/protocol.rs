//! The wire protocol between the referee and bots (documented in `protocol/PROTOCOL.md`, with a
//! JSON Schema per message under `protocol/schema/`). One JSON object per line, with a `type`.
//!
//! A bot's line is parsed here into a `Reply` and nothing more: a move on the wire is a square
//! *name*; whether that square is a legal move is the rules' business (`Position::play`), so a
//! bad line (malformed) and a bad move (illegal) are different faults with different reasons.

use crate::record::{FaultKind, MoveRecord};
use crate::rules::{Colour, MoveKind, Outcome, Rules, Seat, Square};
use serde::{Deserialize, Serialize};

/// The protocol version sent in every `start` message.
pub const PROTOCOL_VERSION: u32 = 1;
/// The longest line a bot may send, in bytes without the newline. Longer is a malformed fault.
pub const MAX_LINE_BYTES: usize = 16384;
/// How much offending text a fault record keeps.
pub const MAX_FAULT_TEXT: usize = 200;

/// The time control, as sent to bots in `start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControl {
    /// The most one move may take.
    pub move_ms: u64,
    /// Each player's clock for the whole game, if the game has one.
    pub clock_ms: Option<u64>,
    /// Added to a player's clock after each of its moves.
    pub increment_ms: u64,
    /// The time to answer `start` with `ready`.
    pub startup_ms: u64,
}

/// A player as listed in `start`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerInfo {
    pub seat: Seat,
    pub colour: Colour,
    pub name: String,
}

/// A move as reported to other bots in `turn.moves`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireMove {
    pub ply: u32,
    pub seat: Seat,
    pub square: Square,
}

/// A fault as reported to bots in `end.faults`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireFault {
    pub seat: Seat,
    pub kind: FaultKind,
    pub ply: u32,
}

/// Referee → bot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ToBot {
    Start {
        protocol: u32,
        game: String,
        seat: Seat,
        colour: Colour,
        players: Vec<PlayerInfo>,
        rules: Rules,
        size: u8,
        rows: Vec<String>,
        time: TimeControl,
    },
    Turn {
        game: String,
        ply: u32,
        seat: Seat,
        rows: Vec<String>,
        moves: Vec<WireMove>,
        legal: Vec<Square>,
        kind: MoveKind,
        time_ms: u64,
        clocks_ms: Vec<Option<u64>>,
        /// Seats disqualified so far: their turns are skipped.
        #[serde(default)]
        out: Vec<Seat>,
        /// How long this seat's previous move in this game took by the referee's clock (from
        /// sending its turn to reading its move), `None` before its first move. What a bot
        /// measures itself misses the time its turn and its answer spend in pipes and waiting
        /// for the processor; this is the whole of it, as the time limit counts it.
        #[serde(default)]
        last_move_ms: Option<f64>,
    },
    End {
        game: String,
        result: Outcome,
        scores: Vec<u32>,
        rows: Vec<String>,
        faults: Vec<WireFault>,
    },
}

impl ToBot {
    /// The message as one line, `\n` included.
    pub fn to_line(&self) -> Vec<u8> {
        // Serialising these plain types cannot fail; an empty object would be a bug caught by tests.
        let mut line = serde_json::to_vec(self).unwrap_or_else(|_| b"{}".to_vec());
        line.push(b'\n');
        line
    }
}

/// Everything a `turn` message says, borrowed from the referee's state.
pub struct TurnView<'a> {
    /// The game id as a JSON string (`json_string`): escaped once for a whole game.
    pub game: &'a [u8],
    pub ply: u32,
    pub seat: Seat,
    /// The board's squares row by row, `side` to a row (`Position::cells_into`): the rows are
    /// written from these, with no string per row.
    pub cells: &'a [u8],
    pub side: usize,
    /// The moves this seat has not been told of, as recorded: their ply, seat and square go out.
    pub moves: &'a [MoveRecord],
    pub legal: &'a [Square],
    pub kind: MoveKind,
    pub time_ms: u64,
    pub clocks_ms: &'a [Option<u64>],
    pub out: &'a [Seat],
    pub last_move_ms: Option<f64>,
}

/// A text as a JSON string, quotes and escapes included, as serde writes it.
pub fn json_string(text: &str) -> Vec<u8> {
    // Writing a string into a Vec cannot fail.
    serde_json::to_vec(text).unwrap_or_else(|_| b"\"\"".to_vec())
}

fn push_number(line: &mut Vec<u8>, n: u64) {
    // Plies, seats and most limits have one or two digits.
    if n < 10 {
        line.push(b'0' + n as u8);
        return;
    }
    if n < 100 {
        line.extend_from_slice(&[b'0' + (n / 10) as u8, b'0' + (n % 10) as u8]);
        return;
    }
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    line.extend_from_slice(&digits[i..]);
}

impl TurnView<'_> {
    /// The `turn` line, byte for byte what serialising `ToBot::Turn` gives (a test checks it),
    /// written by hand into `line`: this is the referee's work on every move, and the generic
    /// serialiser took longer than the pipe round trip it feeds.
    pub fn write_line(&self, line: &mut Vec<u8>) {
        line.clear();
        line.extend_from_slice(b"{\"type\":\"turn\",\"game\":");
        line.extend_from_slice(self.game);
        line.extend_from_slice(b",\"ply\":");
        push_number(line, self.ply as u64);
        line.extend_from_slice(b",\"seat\":");
        push_number(line, self.seat as u64);
        line.extend_from_slice(b",\"rows\":[");
        if self.side > 0 {
            for (i, row) in self.cells.chunks(self.side).enumerate() {
                if i > 0 {
                    line.push(b',');
                }
                // Rows hold only the board letters `BWRGN.#-`: nothing to escape.
                line.push(b'"');
                line.extend_from_slice(row);
                line.push(b'"');
            }
        }
        line.extend_from_slice(b"],\"moves\":[");
        for (i, m) in self.moves.iter().enumerate() {
            if i > 0 {
                line.push(b',');
            }
            line.extend_from_slice(b"{\"ply\":");
            push_number(line, m.ply as u64);
            line.extend_from_slice(b",\"seat\":");
            push_number(line, m.seat as u64);
            line.extend_from_slice(b",\"square\":");
            m.square.push_json(line);
            line.push(b'}');
        }
        line.extend_from_slice(b"],\"legal\":[");
        for (i, &sq) in self.legal.iter().enumerate() {
            if i > 0 {
                line.push(b',');
            }
            sq.push_json(line);
        }
        line.extend_from_slice(match self.kind {
            MoveKind::Flipping => b"],\"kind\":\"flipping\",\"time_ms\":",
            MoveKind::Placing => b"],\"kind\":\"placing\",\"time_ms\":",
        });
        push_number(line, self.time_ms);
        line.extend_from_slice(b",\"clocks_ms\":[");
        for (i, clock) in self.clocks_ms.iter().enumerate() {
            if i > 0 {
                line.push(b',');
            }
            match clock {
                Some(ms) => push_number(line, *ms),
                None => line.extend_from_slice(b"null"),
            }
        }
        line.extend_from_slice(b"],\"out\":[");
        for (i, &seat) in self.out.iter().enumerate() {
            if i > 0 {
                line.push(b',');
            }
            push_number(line, seat as u64);
        }
        line.extend_from_slice(b"],\"last_move_ms\":");
        match self.last_move_ms {
            // serde_json's own digits for an f64, written straight into the line (writing into
            // a Vec cannot fail; a finite f64 always serialises).
            Some(ms) if ms.is_finite() => {
                let _ = serde_json::to_writer(&mut *line, &ms);
            }
            _ => line.extend_from_slice(b"null"),
        }
        line.extend_from_slice(b"}\n");
    }
}

/// Bot → referee, as parsed from the wire.
///
/// `game` and `ply` are the answer's echo: which `start` or `turn` the bot says it answers. They
/// are optional (added to version 1), and judged against what is due by the connection
/// (`crate::connection::judge_ready`, `judge_move`), because only the echo tells an answer to
/// this turn from a late second answer to an earlier one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Ready {
        name: Option<String>,
        version: Option<String>,
        /// The game id of the `start` it answers, if the bot says.
        game: Option<String>,
    },
    /// A move: a well-formed square name, not yet checked against the board.
    Move {
        square: Square,
        /// The ply of the `turn` it answers, if the bot says.
        ply: Option<u64>,
    },
    /// A move whose square is a string that names no square at all (`aa1`, `d0`, `""`). Like a
    /// square name off this board (`z9`), it is the rules that refuse it: an illegal move, not a
    /// malformed line. The text is the bot's, unchecked.
    UnknownSquare { square: String, ply: Option<u64> },
}

/// The shape of a bot's message before its fields are checked. Unknown fields are ignored so
/// that bots may add their own (comments, evaluations) without breaking anything. Deserialised
/// directly, without building a map of the whole object: this runs on every move.
#[derive(Deserialize)]
struct RawReply {
    #[serde(rename = "type")]
    kind: Option<serde_json::Value>,
    name: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
    square: Option<serde_json::Value>,
    game: Option<serde_json::Value>,
    ply: Option<serde_json::Value>,
}

/// The usual well-formed reply, read without allocating; anything else takes the slow path,
/// which finds the words for what is wrong (a `ply` that is not a non-negative integer fails
/// here, and is worded there).
#[derive(Deserialize)]
struct QuickReply<'a> {
    #[serde(rename = "type", borrow)]
    kind: &'a str,
    #[serde(borrow)]
    square: Option<&'a str>,
    #[serde(borrow)]
    name: Option<&'a str>,
    #[serde(borrow)]
    version: Option<&'a str>,
    #[serde(borrow)]
    game: Option<&'a str>,
    ply: Option<u64>,
}

/// Parses one line from a bot (without its newline). The error says what is wrong, for the
/// fault record.
pub fn parse_reply(line: &[u8]) -> Result<Reply, String> {
    match plain_move(line) {
        Some(reply) => Ok(reply),
        None => parse_reply_json(line),
    }
}

/// The move as the built-in bots and most others write it, `{"type":"move","square":"d3",
/// "ply":12}` or the same without `ply`, recognised byte by byte: what serde makes of exactly
/// these bytes, for a fraction of the work on every move. Any other line, however slightly
/// different (a space, another order, an escape, a leading zero), is left to serde.
fn plain_move(line: &[u8]) -> Option<Reply> {
    let rest = line.strip_prefix(b"{\"type\":\"move\",\"square\":\"")?;
    let close = memchr::memchr(b'"', rest)?;
    let (name, rest) = (&rest[..close], &rest[close + 1..]);
    if name.is_empty() || name.len() > 4 || !name.iter().all(u8::is_ascii_alphanumeric) {
        return None;
    }
    let ply = if rest == b"}" {
        None
    } else {
        let digits = rest.strip_prefix(b",\"ply\":")?.strip_suffix(b"}")?;
        // At most 19 digits always fit a u64; JSON allows no leading zero.
        if digits.is_empty()
            || digits.len() > 19
            || !digits.iter().all(u8::is_ascii_digit)
            || (digits[0] == b'0' && digits.len() > 1)
        {
            return None;
        }
        Some(
            digits
                .iter()
                .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')),
        )
    };
    let name = std::str::from_utf8(name).ok()?;
    Some(match name.parse() {
        Ok(square) => Reply::Move { square, ply },
        Err(_) => Reply::UnknownSquare {
            square: name.to_string(),
            ply,
        },
    })
}

/// `parse_reply` for any line, through serde.
fn parse_reply_json(line: &[u8]) -> Result<Reply, String> {
    let text = std::str::from_utf8(line)
        .map_err(|e| format!("not UTF-8 (invalid byte at offset {})", e.valid_up_to()))?;
    if let Ok(quick) = serde_json::from_str::<QuickReply>(text) {
        match (quick.kind, quick.square) {
            ("move", Some(square)) => {
                let ply = quick.ply;
                return Ok(match square.parse() {
                    Ok(square) => Reply::Move { square, ply },
                    Err(_) => Reply::UnknownSquare {
                        square: square.to_string(),
                        ply,
                    },
                });
            }
            ("ready", _) => {
                return Ok(Reply::Ready {
                    name: quick.name.map(str::to_string),
                    version: quick.version.map(str::to_string),
                    game: quick.game.map(str::to_string),
                })
            }
            _ => {}
        }
    }
    let raw: RawReply = serde_json::from_str(text).map_err(|e| match e.classify() {
        serde_json::error::Category::Data if text.trim_start().starts_with('{') => {
            format!("wrong shape: {e}")
        }
        serde_json::error::Category::Data => "not a JSON object".to_string(),
        _ => format!("not JSON: {e}"),
    })?;
    let optional_string = |field: &str, v: Option<serde_json::Value>| match v {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("field '{field}' must be a string")),
    };
    match raw.kind {
        None => Err("no 'type' field".into()),
        Some(serde_json::Value::String(t)) if t == "ready" => Ok(Reply::Ready {
            name: optional_string("name", raw.name)?,
            version: optional_string("version", raw.version)?,
            game: optional_string("game", raw.game)?,
        }),
        Some(serde_json::Value::String(t)) if t == "move" => {
            let ply = match raw.ply {
                None | Some(serde_json::Value::Null) => None,
                Some(serde_json::Value::Number(n)) if n.is_u64() => n.as_u64(),
                Some(_) => return Err("field 'ply' must be a non-negative integer".into()),
            };
            let square =
                optional_string("square", raw.square)?.ok_or("a move needs a 'square' field")?;
            Ok(match square.parse::<Square>() {
                Ok(square) => Reply::Move { square, ply },
                Err(_) => Reply::UnknownSquare { square, ply },
            })
        }
        Some(serde_json::Value::String(t)) => {
            Err(format!("unknown message type '{}'", truncate(&t, 40)))
        }
        Some(_) => Err("field 'type' must be a string".into()),
    }
}

/// The reason a move to a square that names nothing is illegal, worded as the rules word a
/// square off the board (`illegal move z9: the square is not on the board`).
pub fn unknown_square(square: &str) -> String {
    format!(
        "illegal move {}: {}",
        truncate(square, 40),
        crate::rules::IllegalReason::OffBoard
    )
}

/// At most `max` characters of a text, with `…` when cut.
pub fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((i, _)) => format!("{}…", &text[..i]),
    }
}

/// Offending bytes as text for a fault record: lossy UTF-8, truncated.
pub fn fault_text(bytes: &[u8]) -> String {
    truncate(&String::from_utf8_lossy(bytes), MAX_FAULT_TEXT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_parse_with_reasons() {
        assert_eq!(
            parse_reply(br#"{"type":"move","square":"d3","eval":0.5}"#),
            Ok(Reply::Move {
                square: "d3".parse().unwrap(),
                ply: None
            })
        );
        assert_eq!(
            parse_reply(br#"{"type":"ready"}"#),
            Ok(Reply::Ready {
                name: None,
                version: None,
                game: None
            })
        );
        assert_eq!(
            parse_reply(br#"{"type":"ready","name":"x","version":"2"}"#),
            Ok(Reply::Ready {
                name: Some("x".into()),
                version: Some("2".into()),
                game: None
            })
        );
        let err = |line: &[u8]| parse_reply(line).unwrap_err();
        assert!(err(b"\xff\xfe").contains("not UTF-8"));
        assert!(err(b"d3").contains("not JSON"));
        assert!(err(b"[1]").contains("not a JSON object"));
        assert!(err(br#"{"square":"d3"}"#).contains("no 'type'"));
        assert!(err(br#"{"type":"mov","square":"d3"}"#).contains("unknown message type 'mov'"));
        assert!(err(br#"{"type":"move"}"#).contains("needs a 'square'"));
        assert!(err(br#"{"type":"move","square":3}"#).contains("must be a string"));
        // A string that names no square is a move the rules refuse, like one off the board.
        for square in ["zz", "aa1", "d0", "", "d 3"] {
            let line = format!(r#"{{"type":"move","square":"{square}"}}"#);
            assert_eq!(
                parse_reply(line.as_bytes()),
                Ok(Reply::UnknownSquare {
                    square: square.into(),
                    ply: None
                })
            );
        }
        // The slow path (an escape in the line) gives the same answer.
        assert_eq!(
            parse_reply(br#"{"type":"move","square":"a\u0041"}"#),
            Ok(Reply::UnknownSquare {
                square: "aA".into(),
                ply: None
            })
        );
        assert!(err(br#"{"type":7}"#).contains("must be a string"));
    }

    #[test]
    fn the_echo_of_a_turn_or_start_is_read_on_both_paths() {
        let d3: Square = "d3".parse().unwrap();
        assert_eq!(
            parse_reply(br#"{"type":"move","square":"d3","ply":12}"#),
            Ok(Reply::Move {
                square: d3,
                ply: Some(12)
            })
        );
        // An escape sends the line down the slow path: the same answer.
        assert_eq!(
            parse_reply(br#"{"type":"mo\u0076e","ply":0,"square":"d3"}"#),
            Ok(Reply::Move {
                square: d3,
                ply: Some(0)
            })
        );
        assert_eq!(
            parse_reply(br#"{"type":"move","square":"zz","ply":7}"#),
            Ok(Reply::UnknownSquare {
                square: "zz".into(),
                ply: Some(7)
            })
        );
        // `null` is no echo, as for the other optional fields.
        assert_eq!(
            parse_reply(br#"{"type":"move","square":"d3","ply":null}"#),
            Ok(Reply::Move {
                square: d3,
                ply: None
            })
        );
        for game in [r#""g-1""#, r#""g\u002d1""#] {
            let line = format!(r#"{{"type":"ready","name":"x","game":{game}}}"#);
            assert_eq!(
                parse_reply(line.as_bytes()),
                Ok(Reply::Ready {
                    name: Some("x".into()),
                    version: None,
                    game: Some("g-1".into())
                })
            );
        }
        // A ply that is not a non-negative integer, and a game that is not a string, are
        // malformed, with words that say which field.
        for ply in [
            "-1",
            "1.5",
            "12.0",
            "\"12\"",
            "true",
            "[12]",
            "1e2",
            "18446744073709551616",
        ] {
            let line = format!(r#"{{"type":"move","square":"d3","ply":{ply}}}"#);
            let e = parse_reply(line.as_bytes()).unwrap_err();
            assert_eq!(e, "field 'ply' must be a non-negative integer", "{line}");
        }
        let e = parse_reply(br#"{"type":"ready","game":7}"#).unwrap_err();
        assert_eq!(e, "field 'game' must be a string");
    }

    #[test]
    fn messages_have_the_documented_shape() {
        let end = ToBot::End {
            game: "g".into(),
            result: Outcome::Win { winner: 2 },
            scores: vec![1, 2, 3],
            rows: vec![],
            faults: vec![WireFault {
                seat: 1,
                kind: FaultKind::Timeout,
                ply: 13,
            }],
        };
        let line = String::from_utf8(end.to_line()).unwrap();
        assert_eq!(
            line,
            "{\"type\":\"end\",\"game\":\"g\",\"result\":{\"kind\":\"win\",\"winner\":2},\
             \"scores\":[1,2,3],\"rows\":[],\"faults\":[{\"seat\":1,\"kind\":\"timeout\",\"ply\":13}]}\n"
        );
    }

    #[test]
    fn the_hand_written_turn_is_what_serde_writes() {
        let sq = |s: &str| s.parse::<Square>().unwrap();
        let rows: Vec<String> = vec!["..#".into(), "-BN".into()];
        let cells = rows.concat().into_bytes();
        let moved = |ply, seat, square| MoveRecord {
            ply,
            seat,
            square,
            kind: MoveKind::Flipping,
            flips: vec![sq("b2")],
            ms: 1.5,
        };
        let moves = [moved(121, 0, sq("j10")), moved(122, 1, sq("a1"))];
        for (kind, clocks, last_move_ms) in [
            (MoveKind::Flipping, vec![None, None, None], None),
            (
                MoveKind::Placing,
                vec![Some(0), Some(12345678901), Some(7)],
                Some(3.97),
            ),
            (MoveKind::Flipping, vec![None, None, None], Some(12.0)),
            (MoveKind::Flipping, vec![None, None, None], Some(0.001)),
        ] {
            let game = "g-\"1\"\u{e9}";
            let view = TurnView {
                game: &json_string(game),
                ply: 123,
                seat: 2,
                cells: &cells,
                side: 3,
                moves: &moves,
                legal: &[sq("c4"), sq("f10")],
                kind,
                time_ms: 1000,
                clocks_ms: &clocks,
                out: &[1, 3],
                last_move_ms,
            };
            let mut line = Vec::new();
            view.write_line(&mut line);
            let serde = ToBot::Turn {
                game: game.into(),
                ply: 123,
                seat: 2,
                rows: rows.clone(),
                moves: view
                    .moves
                    .iter()
                    .map(|m| WireMove {
                        ply: m.ply,
                        seat: m.seat,
                        square: m.square,
                    })
                    .collect(),
                legal: view.legal.to_vec(),
                kind,
                time_ms: 1000,
                clocks_ms: clocks.clone(),
                out: vec![1, 3],
                last_move_ms,
            }
            .to_line();
            assert_eq!(
                String::from_utf8(line).unwrap(),
                String::from_utf8(serde).unwrap()
            );
        }
        let mut empty = Vec::new();
        TurnView {
            game: b"\"g\"",
            ply: 0,
            seat: 0,
            cells: &[],
            side: 0,
            moves: &[],
            legal: &[],
            kind: MoveKind::Flipping,
            time_ms: 0,
            clocks_ms: &[],
            out: &[],
            last_move_ms: None,
        }
        .write_line(&mut empty);
        assert!(serde_json::from_slice::<ToBot>(&empty).is_ok());
    }

    /// The turn lines of real positions, byte for byte as the referee sent them in games played
    /// (the game id aside): rows with discs of every colour, the neutral disc, blocked and
    /// off-board squares, a seat out, on every board. Built here as the referee builds them.
    #[test]
    fn turn_lines_of_real_positions_are_pinned() {
        use crate::rules::{BoardKind, Position};
        /// Players, board, anti, blocked squares, the moves played, the seat put out and at
        /// which ply, the previous move's time, and the line sent.
        type Game = (u32, BoardKind, bool, &'static str, &'static str);
        type Case = (Game, Option<(u32, Seat)>, f64, &'static str);
        let cases: [Case; 4] = [
            (
                (
                    3,
                    BoardKind::Octagon,
                    false,
                    "",
                    "g7 f7 f4 e7 d7 d6 c5 d5 c7",
                ),
                None,
                0.025,
                r##"{"type":"turn","game":"g","ply":9,"seat":0,"rows":["--......--","-........-","..........",".....R....","..BWRW....","...RWW....","..RWBBB...","..........","-........-","--......--"],"moves":[{"ply":7,"seat":1,"square":"d5"},{"ply":8,"seat":2,"square":"c7"}],"legal":["f3","c4","d4","e4","g5","b7"],"kind":"flipping","time_ms":1000,"clocks_ms":[null,null,null],"out":[],"last_move_ms":0.025}"##,
            ),
            (
                (
                    4,
                    BoardKind::Ten,
                    true,
                    "",
                    "g5 d7 d6 e7 e8 f9 h4 c8 c7 e4 d4 g4 d8 b7 e9 c6 i3 d9 b9 a10",
                ),
                None,
                0.046,
                r##"{"type":"turn","game":"g","ply":20,"seat":0,"rows":["..........","..........","........B.","...RW.GB..","....RGB...","..GBGB....",".WGGB.....","..GWR.....",".G.WWW....","G........."],"moves":[{"ply":17,"seat":1,"square":"d9"},{"ply":18,"seat":2,"square":"b9"},{"ply":19,"seat":3,"square":"a10"}],"legal":["c3","e3","g3","f4","d5","b6","a7","b8","c9","d10","e10"],"kind":"flipping","time_ms":1000,"clocks_ms":[null,null,null,null],"out":[],"last_move_ms":0.046}"##,
            ),
            (
                (
                    4,
                    BoardKind::Eight,
                    false,
                    "a1,c3,h3,f6,a8",
                    "f4 g5 c5 h6 d6 e3 f5 d2 e2 d3 f3 b5 c4 g3 g6 d7 d8 c7 d1 f2 b6 b8 e1 h4 c6 f1 \
                     g2 e8 h1 a6 e6",
                ),
                None,
                0.021,
                r##"{"type":"turn","game":"g","ply":31,"seat":3,"rows":["#..RRW.B","...GWRB.","..#WRBG#","..WGRW.G",".WBBRRG.","WWWWR#RG","..WG....","#W.BG..."],"moves":[{"ply":28,"seat":0,"square":"h1"},{"ply":29,"seat":1,"square":"a6"},{"ply":30,"seat":2,"square":"e6"}],"legal":["g1","h2","a4","b4","g4","a5","a7","b7","g7","c8"],"kind":"flipping","time_ms":1000,"clocks_ms":[null,null,null,null],"out":[],"last_move_ms":0.021}"##,
            ),
            (
                (
                    4,
                    BoardKind::Eight,
                    false,
                    "",
                    "f6 c6 g7 f4 f5 c3 f7 f3 e7 c4 g5 c5 d8 e3 g4 h7 b3",
                ),
                Some((2, 2)),
                0.027,
                r##"{"type":"turn","game":"g","ply":17,"seat":3,"rows":["........","........",".WG.WW..","..WGGGG.","..GWWWW.","..W..B..","....BBBB","...B...."],"moves":[{"ply":15,"seat":0,"square":"h7"},{"ply":16,"seat":1,"square":"b3"}],"legal":["d2","e2","f2","g2","a3","b4","h5","d6","e6","g6","h6","b7","c7","f8","h8"],"kind":"flipping","time_ms":1000,"clocks_ms":[null,null,null,null],"out":[2],"last_move_ms":0.027}"##,
            ),
        ];
        for ((players, board, anti, blocked, moves), out, last_move_ms, expected) in cases {
            let blocked = crate::rules::parse_square_list(blocked).unwrap();
            let rules = Rules::with_blocked(players, board, anti, blocked).unwrap();
            let mut position = Position::new(rules);
            let mut played: Vec<MoveRecord> = Vec::new();
            for square in moves.split_whitespace() {
                if let Some((ply, seat)) = out {
                    if position.ply() == ply {
                        position.remove_seat(seat);
                    }
                }
                let ply = position.ply();
                let m = position.play(square.parse().unwrap()).unwrap();
                played.push(MoveRecord {
                    ply,
                    seat: m.seat,
                    square: m.square,
                    kind: m.kind,
                    flips: m.flips,
                    ms: 0.5,
                });
            }
            let seat = position.to_move();
            // What this seat has not been told of: the moves since its own last one.
            let seen = played
                .iter()
                .rposition(|m| m.seat == seat)
                .map_or(0, |i| i + 1);
            let mut cells = Vec::new();
            position.cells_into(&mut cells);
            let mut legal = Vec::new();
            let kind = position.legal_moves_into(&mut legal);
            let n = players as usize;
            let out: Vec<Seat> = out.map(|(_, seat)| seat).into_iter().collect();
            let mut line = Vec::new();
            TurnView {
                game: &json_string("g"),
                ply: position.ply(),
                seat,
                cells: &cells,
                side: position.rules().side() as usize,
                moves: &played[seen..],
                legal: &legal,
                kind,
                time_ms: 1000,
                clocks_ms: &vec![None; n],
                out: &out,
                last_move_ms: Some(last_move_ms),
            }
            .write_line(&mut line);
            assert_eq!(String::from_utf8(line).unwrap(), format!("{expected}\n"));
        }
    }

    /// The byte-by-byte reading of the usual move says what serde says of the same bytes, and
    /// leaves every other line to serde.
    #[test]
    fn the_plain_move_is_read_as_serde_reads_it() {
        let mut lines: Vec<String> = Vec::new();
        let squares = [
            "a1", "d3", "j10", "h8", "z9", "aa1", "d0", "A1", "k11", "a", "1", "abcd",
        ];
        let plies = [
            "0",
            "7",
            "123",
            "9999999999999999999",
            "18446744073709551615",
            "18446744073709551616",
            "012",
            "-1",
            "1.0",
            "1e2",
            "",
            "null",
            "\"3\"",
        ];
        for square in squares {
            lines.push(format!(r#"{{"type":"move","square":"{square}"}}"#));
            for ply in plies {
                lines.push(format!(
                    r#"{{"type":"move","square":"{square}","ply":{ply}}}"#
                ));
            }
        }
        for near in [
            r#"{"type":"move","square":"d3","ply":1} "#,
            r#"{"type":"move","square":"d3","ply":1}x"#,
            r#"{"type":"move","square":"d3","ply":1,"ply":2}"#,
            r#"{"type":"move","square":"d3"}}"#,
            r#"{"type":"move","square":"d3",}"#,
            r#"{"type":"move","square":"d\u0033"}"#,
            r#"{"type":"move","square":"d3"#,
            r#"{"type":"move","square":""}"#,
            r#"{"type":"move","square":"abcde"}"#,
            r#"{"type":"move","square":"d3","ply":12"#,
            r#"{"type":"move","square":"d3" ,"ply":12}"#,
            r#"{"type":"move","square":"d3","ply": 12}"#,
        ] {
            lines.push(near.to_string());
        }
        let mut plain = 0;
        for line in &lines {
            let bytes = line.as_bytes();
            let json = parse_reply_json(bytes);
            if let Some(reply) = plain_move(bytes) {
                plain += 1;
                assert_eq!(Ok(reply), json, "{line}");
            }
            assert_eq!(parse_reply(bytes), json, "{line}");
        }
        // The usual lines are read by hand: every square with a ply of up to 19 digits.
        assert_eq!(plain, squares.len() * 5, "{plain}");
    }

    #[test]
    fn escaped_replies_take_the_slow_path_and_still_parse() {
        assert_eq!(
            parse_reply(br#"{"type":"ready","name":"a\"b"}"#),
            Ok(Reply::Ready {
                name: Some("a\"b".into()),
                version: None,
                game: None
            })
        );
        assert_eq!(
            parse_reply(br#"{"type":"mo\u0076e","square":"d3"}"#),
            Ok(Reply::Move {
                square: "d3".parse().unwrap(),
                ply: None
            })
        );
    }

    #[test]
    fn truncation_counts_characters() {
        assert_eq!(truncate("héllo", 3), "hél…");
        assert_eq!(truncate("abc", 3), "abc");
    }
}
