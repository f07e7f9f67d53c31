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
    /// How many of the first `moves` the referee played itself (a league's random opening) before
    /// the bots took over; 0, and then not written, when the bots played every move.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub opening: u32,
    /// The game's place in the schedule it was played from (a league, or a match, which is a
    /// league with one line-up); absent in records written before schedules existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<ScheduleRef>,
}

pub(crate) fn is_zero(n: &u32) -> bool {
    *n == 0
}

pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}

/// Where a game sits in a schedule. Standings group games by deal (the same bots, board, opening
/// and blocked squares played in every seating) to bootstrap over deals; a resumed league skips
/// every `index` its records already hold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduleRef {
    /// The run's name: the league's name, or the match's id.
    pub run: String,
    /// The game's place in the whole schedule, from 0.
    pub index: u64,
    /// The deal the game belongs to, from 0.
    pub deal: u64,
    /// Which seating of the deal, from 0 (a deal of k bots has k! seatings).
    pub seating: u32,
}

/// A game as its run's own schedule has it at one index: what tells it from a game of another
/// run that shares the run's name (started with another seed, or with other bots), which would
/// otherwise pass for the game at that index (its id too is the same). Cheap to check, so that
/// every reader that counts a run's games checks it: a resumed run's finished set and a
/// sequential test's state must agree on which records are the run's, or a pair that one of
/// them takes for played and the other refuses is never completed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scheduled {
    pub deal: u64,
    pub seating: u32,
    /// The deal's seed, as the record's `seed` holds it.
    pub seed: Option<u64>,
    /// The bots' names, seat by seat.
    pub names: Vec<String>,
}

/// A run's schedule, asked about one index at a time.
pub trait Schedule: Send + Sync {
    /// The game at `index`, or None when the schedule has no game there.
    fn at(&self, index: u64) -> Option<Scheduled>;

    /// How many games the schedule holds, when it numbers them from 0 in the order of their
    /// indices (`ordinal`): then a reader of its games can keep what it needs per game by that
    /// number (the standings a league writes at its end). None for a schedule that does not.
    fn games(&self) -> Option<u64> {
        None
    }

    /// The number from 0 of the game at `index` among the schedule's games in the order of their
    /// indices, below `games()`; None where the schedule has no game, or numbers none.
    fn ordinal(&self, _index: u64) -> Option<u64> {
        None
    }

    /// Why a record of the run at `place`, with its `seed` and the names in its seats, is not
    /// the schedule's game there; None when it is.
    fn mismatch(&self, place: &ScheduleRef, seed: Option<u64>, names: &[&str]) -> Option<String> {
        let Some(own) = self.at(place.index) else {
            return Some(format!("the schedule has no game {}", place.index));
        };
        if (place.deal, place.seating) != (own.deal, own.seating) {
            return Some(format!(
                "game {} of the schedule is seating {} of deal {}, not seating {} of deal {}",
                place.index, own.seating, own.deal, place.seating, place.deal
            ));
        }
        if seed != own.seed {
            let word = |s: Option<u64>| s.map_or("none".to_string(), |s| s.to_string());
            return Some(format!(
                "its seed is {}, the schedule's {}",
                word(seed),
                word(own.seed)
            ));
        }
        if names.len() != own.names.len() || names.iter().zip(&own.names).any(|(a, b)| a != b) {
            return Some(format!(
                "its seats hold {}, the schedule's {}",
                names.join(", "),
                own.names.join(", ")
            ));
        }
        None
    }
}

/// What a record is to a run that counts its own games: one of them, or why not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Whose {
    /// The run's game: of its name, and the schedule's game at its index.
    Own,
    /// Another run's, by its name, or of no schedule at all (a plain match's).
    OtherRun,
    /// It bears the run's name but is not the schedule's game at its index (another run of
    /// that name wrote it), and why (`Schedule::mismatch`).
    NotScheduled(String),
}

/// A run's own games, as every reader that counts them tells them from the other records in
/// its directory: the resume's finished set, a sequential test's state and the standings the
/// run writes at its end all ask `whose`, so that none of them counts a record another takes
/// for another run's.
#[derive(Clone, Copy)]
pub struct OwnGames<'a> {
    /// The run's name (`schedule.run` of its records).
    pub run: &'a str,
    pub schedule: &'a dyn Schedule,
}

impl OwnGames<'_> {
    /// Whose a record is, from its place in a schedule, its seed and the names in its seats.
    pub fn whose(&self, place: Option<&ScheduleRef>, seed: Option<u64>, names: &[&str]) -> Whose {
        match place {
            Some(place) if place.run == self.run => {
                match self.schedule.mismatch(place, seed, names) {
                    None => Whose::Own,
                    Some(why) => Whose::NotScheduled(why),
                }
            }
            _ => Whose::OtherRun,
        }
    }
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
    /// Whether the bot, kept alive from its previous game, had ended by itself since and was
    /// started again (or, remote, a new connection taken) for this game: a reader of the record
    /// learns that this game's process is not the one of the game before. Not written when
    /// false, so records of bots that stay alive look as before.
    #[serde(default, skip_serializing_if = "is_false")]
    pub restarted: bool,
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

impl MoveRecord {
    /// Appends a record's `moves` array, byte for byte what serde writes for it (a test checks),
    /// but written by hand: the keys and square names are plain ASCII that serde would still
    /// scan for characters to escape, one string at a time, and a game has some 600 of them, which
    /// made that scan most of what writing a game's record cost (`valgrind --tool=callgrind`).
    /// Numbers go through serde, which has nothing to scan in them.
    pub fn write_all_json(moves: &[MoveRecord], out: &mut Vec<u8>) -> serde_json::Result<()> {
        out.push(b'[');
        for (i, m) in moves.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"ply\":");
            serde_json::to_writer(&mut *out, &m.ply)?;
            out.extend_from_slice(b",\"seat\":");
            serde_json::to_writer(&mut *out, &m.seat)?;
            out.extend_from_slice(b",\"square\":");
            m.square.push_json(out);
            out.extend_from_slice(b",\"kind\":\"");
            out.extend_from_slice(m.kind.as_str().as_bytes());
            out.extend_from_slice(b"\",\"flips\":[");
            for (j, &flip) in m.flips.iter().enumerate() {
                if j > 0 {
                    out.push(b',');
                }
                flip.push_json(out);
            }
            out.extend_from_slice(b"],\"ms\":");
            serde_json::to_writer(&mut *out, &m.ms)?;
            out.push(b'}');
        }
        out.push(b']');
        Ok(())
    }
}

/// What went wrong with a bot. Its words (`timeout`, `crash`, `malformed`, `illegal`) are
/// written once, in `as_str`: records (through serde, which reads and writes the same words),
/// `--events`, the bot logs, the fault messages and the standings all spell a kind with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

impl FaultKind {
    /// Every kind, in the order the standings count them (`index` is a kind's place here).
    pub const ALL: [FaultKind; 4] = [
        FaultKind::Timeout,
        FaultKind::Crash,
        FaultKind::Malformed,
        FaultKind::Illegal,
    ];

    /// The words of `ALL`, for the message about a word that is none of them.
    const WORDS: [&'static str; 4] = [
        FaultKind::ALL[0].as_str(),
        FaultKind::ALL[1].as_str(),
        FaultKind::ALL[2].as_str(),
        FaultKind::ALL[3].as_str(),
    ];

    /// The kind as records, `--events` and `protocol/PROTOCOL.md` spell it.
    pub const fn as_str(self) -> &'static str {
        match self {
            FaultKind::Timeout => "timeout",
            FaultKind::Crash => "crash",
            FaultKind::Malformed => "malformed",
            FaultKind::Illegal => "illegal",
        }
    }

    /// The kind a word spells, if it spells one.
    pub fn from_word(word: &str) -> Option<FaultKind> {
        FaultKind::ALL.into_iter().find(|k| k.as_str() == word)
    }

    /// The kind's place in `ALL`: the column of its count in the standings.
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl std::fmt::Display for FaultKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for FaultKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for FaultKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let word = String::deserialize(deserializer)?;
        FaultKind::from_word(&word)
            .ok_or_else(|| serde::de::Error::unknown_variant(&word, &FaultKind::WORDS))
    }
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

/// A UTC time as RFC 3339 with seconds (`2026-11-29T11:30:00Z`), as records and run ids write it.
pub fn rfc3339(t: std::time::SystemTime) -> String {
    humantime::format_rfc3339_seconds(t).to_string()
}

#[cfg(test)]
mod time_tests {
    #[test]
    fn times_are_utc_rfc3339_to_the_second() {
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_795_951_800_999);
        assert_eq!(super::rfc3339(t), "2026-11-29T11:30:00Z");
        assert_eq!(
            super::rfc3339(std::time::UNIX_EPOCH),
            "1970-01-01T00:00:00Z"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_kinds_are_read_and_written_in_their_words() {
        for (i, kind) in FaultKind::ALL.into_iter().enumerate() {
            assert_eq!(kind.index(), i);
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
            assert_eq!(kind.to_string(), kind.as_str());
            assert_eq!(serde_json::from_str::<FaultKind>(&json).unwrap(), kind);
            assert_eq!(FaultKind::from_word(kind.as_str()), Some(kind));
        }
        let e = serde_json::from_str::<FaultKind>("\"Timeout\"").unwrap_err();
        assert!(
            e.to_string()
                .contains("expected one of `timeout`, `crash`, `malformed`, `illegal`"),
            "{e}"
        );
        assert!(serde_json::from_str::<FaultKind>("3").is_err());
    }
}
