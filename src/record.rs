//! Game records: the product's memory. One JSON object per finished game, one game per line
//! (JSON Lines), appended and flushed as each game ends so that a crash or a kill never damages
//! what was already written. The format is documented in `protocol/RECORD.md` and versioned.

use crate::rules::{Colour, MoveKind, Outcome, Rules, Seat, Square};
use serde::{Deserialize, Serialize};

/// The `format` field of every record line.
pub const FORMAT: &str = "multiversi-game";
/// The version of the record format this build writes and reads.
pub const VERSION: u32 = 1;

/// One complete game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    pub format: String,
    pub version: u32,
    pub game: String,
    /// UTC start time, RFC 3339 (`2026-11-29T11:30:00Z`).
    pub started: String,
    pub duration_ms: u64,
    pub rules: Rules,
    /// The seed that drew random blocked squares and seeded built-in bots, when there was one.
    pub seed: Option<u64>,
    pub seats: Vec<SeatRecord>,
    pub initial_rows: Vec<String>,
    pub moves: Vec<MoveRecord>,
    pub faults: Vec<FaultRecord>,
    pub final_rows: Vec<String>,
    pub scores: Vec<u32>,
    pub result: Outcome,
    /// Places, best first; seats that share a place are listed together. Disqualified seats come
    /// after every other seat.
    pub ranking: Vec<Vec<Seat>>,
}

/// Who sat where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatRecord {
    pub seat: Seat,
    pub colour: Colour,
    /// The name the referee gave the bot (from its command or `builtin:NAME`).
    pub name: String,
    /// The command line as an argument list.
    pub command: Vec<String>,
    /// What the bot said of itself in its `ready` message, if it got that far.
    pub ready: Option<ReadyInfo>,
}

#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ReadyInfo {
    pub name: Option<String>,
    pub version: Option<String>,
}

/// One move as played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveRecord {
    pub ply: u32,
    pub seat: Seat,
    pub square: Square,
    pub kind: MoveKind,
    pub flips: Vec<Square>,
    /// Milliseconds from the turn message written to the reply line read.
    pub ms: f64,
}

/// What went wrong with a bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// No reply line before the deadline.
    Timeout,
    /// End of output or process exit.
    Crash,
    /// A line that is not UTF-8, not JSON, of the wrong shape or type, or over the length cap.
    Malformed,
    /// A well-formed move the rules refuse.
    Illegal,
}

/// A fault: the bot was disqualified at this ply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FaultRecord {
    pub seat: Seat,
    pub kind: FaultKind,
    /// The ply at which the fault happened (the number of moves played before it).
    pub ply: u32,
    /// A human-readable explanation (the engine's reason for an illegal move, the exit status of a
    /// crash, the parse error of a malformed line).
    pub detail: String,
    /// The offending text, truncated.
    pub text: Option<String>,
    /// The end of the bot's stderr, truncated.
    pub stderr_tail: String,
}
