//! What the runner tells the world while it plays, and the sinks that listen.
//!
//! The workers never print: each game's start, moves, faults and end become an `Event`, sent to
//! the main thread, which hands it to every `Sink` in turn (the progress line, the fault
//! messages, the running table, `--show`, `--events`, a sequential test that decides when to
//! stop). A new way to watch a run is a new sink; the runner does not change.
//!
//! Events arrive in the order each worker sent them, so one game's events are in order; games
//! played by different workers interleave. A game's `GameEnded` comes after its record is on
//! disk: a sink that counts it may rely on the record file holding it.

use crate::record::{FaultRecord, GameRecord, MoveRecord, SeatRecord};
use crate::rules::Rules;
use std::path::PathBuf;

/// What a fault message says of the bot in a seat.
#[derive(Clone, Debug, Default)]
pub struct SeatedBot {
    pub name: String,
    /// Its log file, when the run keeps logs.
    pub log: Option<PathBuf>,
    /// Its log's cap in bytes (`STDERR_LOG_CAP`), when the log had reached it as the event was
    /// sent: the log then holds the start of its stderr, not the whole of it.
    pub log_full: Option<u64>,
    /// A bot built into multiversi (`builtin:NAME`).
    pub builtin: bool,
    /// A bot over the network: its log holds the referee's notes only, its stderr stays on its
    /// owner's machine.
    pub remote: bool,
}

/// One thing that happened in a run.
#[derive(Clone, Debug)]
pub enum Event {
    /// Every bot of a game has answered `start` (or been disqualified trying).
    GameStarted {
        game: String,
        seats: Vec<SeatRecord>,
        rules: Rules,
        rows: Vec<String>,
    },
    /// A move was played (by a bot, or by the referee in a deal's opening), and the board after it.
    Moved {
        game: String,
        played: MoveRecord,
        rows: Vec<String>,
        scores: Vec<u32>,
    },
    /// A bot was disqualified. `ms`: from the message it failed to answer to the fault being
    /// noticed, when it owed an answer.
    Faulted {
        game: String,
        fault: FaultRecord,
        ms: Option<f64>,
        bot: SeatedBot,
    },
    /// A game ended. `bots[seat]` is the run's bot in that seat. `recorded` is false for a game
    /// with a bot that never answered `start` (not recorded, not counted); when true and the run
    /// keeps records, the record is on disk.
    GameEnded {
        record: Box<GameRecord>,
        bots: Vec<usize>,
        recorded: bool,
    },
    /// Games that will not be played (a deal with a bot left out, or the run stopping early).
    Skipped(u64),
}

/// Which events a sink wants. Move-by-move events cost a copy of the board per move, so the
/// runner makes them only when some sink asks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Interest {
    /// `GameStarted` and `Moved`.
    pub moves: bool,
}

/// What a sink asks of the run after an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// Start no more games: the games being played finish and are recorded, the rest are
    /// skipped. (A sequential test that has decided.)
    Stop,
}

/// A listener of the run's events. Called on the main thread only, so a sink keeps plain state.
pub trait Sink {
    fn interest(&self) -> Interest {
        Interest::default()
    }
    fn event(&mut self, event: &Event) -> Flow;
    /// Called about four times a second while the run goes on, between events.
    fn tick(&mut self) {}
    /// The run is over (or was interrupted): clear what is drawn, print what is due at the end.
    fn finish(&mut self) {}
}
