//! Helpers shared by the integration tests' modules. Anything more than one module uses lives
//! here, by what it is for; a module's own helpers stay in that module. Every test runs the
//! multiversi binary through `command` (`multiversi("match")…run()`), and builds every bot command
//! line with `shell::bot_cmd`, so that a path with a space stays one word.
//!
//! - `command`: running the multiversi binary (arguments, directory, environment, input, a
//!   watchdog), and its status and output with assertions that show the command line;
//! - `shell`: words for the command lines multiversi splits like a shell (bot commands), for
//!   `sh` and for league configs;
//! - `bots`: the scripted test bots of `tests/bots/` and what they write down;
//! - `records`: reading game records back, and the checks every recorded game must pass;
//! - `samples`: game records generated with the rules engine, for replay and standings;
//! - `processes`: no process a test or a bot started may outlive the test;
//! - `pty`: pseudo-terminals;
//! - `starters`: the starter bots of `bots/`, built once per test run;
//! - `tables`: the results table of `match` and `league`, by column.

mod bots;
mod command;
mod processes;
mod pty;
mod records;
pub mod samples;
mod shell;
mod starters;
mod tables;

pub use bots::*;
pub use command::*;
pub use processes::*;
pub use pty::*;
pub use records::*;
pub use shell::*;
pub use starters::*;
pub use tables::*;

use std::path::{Path, PathBuf};

/// A fresh, empty directory for one test's files, under the cargo target dir (so that test runs
/// leave nothing in the system's temporary directory); each test uses its own name.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A JSON file a run wrote (`standings.json`, `sprt.json`), read whole.
pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
