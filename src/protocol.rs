//! The wire protocol between the referee and bots (documented in `protocol/PROTOCOL.md`, with a
//! JSON Schema per message under `protocol/schema/`). One JSON object per line, with a `type`.
//!
//! A bot's line is parsed here into a `Reply` and nothing more: a move on the wire is a square
//! *name*; whether that square is a legal move is the rules' business (`Position::play`), so a
//! bad line (malformed) and a bad move (illegal) are different faults with different reasons.

use crate::record::FaultKind;
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

/// Bot → referee, as parsed from the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Ready {
        name: Option<String>,
        version: Option<String>,
    },
    /// A move: a well-formed square name, not yet checked against the board.
    Move { square: Square },
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
}

/// Parses one line from a bot (without its newline). The error says what is wrong, for the
/// fault record.
pub fn parse_reply(line: &[u8]) -> Result<Reply, String> {
    let text = std::str::from_utf8(line)
        .map_err(|e| format!("not UTF-8 (invalid byte at offset {})", e.valid_up_to()))?;
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
        }),
        Some(serde_json::Value::String(t)) if t == "move" => {
            let square =
                optional_string("square", raw.square)?.ok_or("a move needs a 'square' field")?;
            let square: Square = square.parse().map_err(|e| format!("{e}"))?;
            Ok(Reply::Move { square })
        }
        Some(serde_json::Value::String(t)) => {
            Err(format!("unknown message type '{}'", truncate(&t, 40)))
        }
        Some(_) => Err("field 'type' must be a string".into()),
    }
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
                square: "d3".parse().unwrap()
            })
        );
        assert_eq!(
            parse_reply(br#"{"type":"ready"}"#),
            Ok(Reply::Ready {
                name: None,
                version: None
            })
        );
        assert_eq!(
            parse_reply(br#"{"type":"ready","name":"x","version":"2"}"#),
            Ok(Reply::Ready {
                name: Some("x".into()),
                version: Some("2".into())
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
        assert!(err(br#"{"type":"move","square":"zz"}"#).contains("not a square name"));
        assert!(err(br#"{"type":7}"#).contains("must be a string"));
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
    fn truncation_counts_characters() {
        assert_eq!(truncate("héllo", 3), "hél…");
        assert_eq!(truncate("abc", 3), "abc");
    }
}
