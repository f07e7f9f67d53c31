//! Checks every front-end makes before a run: this program (which built-in bots and the
//! watchdog run as), the number of games at a time, the record file.

use super::records::RecordFile;
use crate::exit::{self, fail};
use anyhow::Result;
use std::path::{Path, PathBuf};

/// This program, which built-in bots and the watchdog run as.
pub fn this_program() -> Result<PathBuf> {
    std::env::current_exe()
        .map_err(|e| fail(exit::BOT_START, format!("cannot find this program: {e}")))
}

/// The number of cores, or 1 when it cannot be told.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Checks `--concurrency` (default: the number of cores) and warns above the number of cores.
pub fn concurrency(asked: Option<usize>) -> Result<usize> {
    let cores = cores();
    let n = asked.unwrap_or(cores);
    if n == 0 {
        return Err(fail(
            exit::USAGE,
            "--concurrency 0: play at least one game at a time",
        ));
    }
    if n > 256 {
        return Err(fail(
            exit::USAGE,
            format!("--concurrency {n}: at most 256 games at a time"),
        ));
    }
    if n > cores {
        crate::stderr_line!(
            "multiversi: warning: --concurrency {n} is more than the {cores} {}: bots will \
             share cores, and a bot's time then depends on what runs beside it",
            if cores == 1 { "core" } else { "cores" }
        );
    }
    Ok(n)
}

/// Opens a record file for appending; `what` names the option or file for the error.
pub fn open_records(path: &Path, what: &str) -> Result<RecordFile> {
    RecordFile::open(path).map_err(|e| {
        fail(
            exit::OUTPUT,
            format!("{what} {}: cannot open: {e}", path.display()),
        )
    })
}
