//! A bot's log file (`--log-dir`): a person debugging a bot reads its stderr there, beside the
//! referee's notes on it and, when asked, the protocol lines both ways. Kept apart from the
//! process because one log outlives every process started for the bot in a run.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// How much goes to a bot's log file at most, for all its processes in a run together.
pub const STDERR_LOG_CAP: u64 = 1 << 20;

/// A bot's log file (`--log-dir`): its stderr, the referee's notes on it (games, faults) and,
/// with `--log-protocol`, every protocol line in both directions with the time. One log serves
/// every process started for the bot during a run, so its cap holds per bot, not per start.
#[derive(Clone, Debug)]
pub struct BotLog {
    inner: Arc<Mutex<LogFile>>,
    /// Whether protocol lines are kept too (`--log-protocol`).
    pub(super) protocol: bool,
    path: std::path::PathBuf,
}

#[derive(Debug)]
struct LogFile {
    /// None once the cap is reached (or a write failed).
    file: Option<File>,
    written: u64,
}

impl BotLog {
    /// Opens (creates or appends to) the log at `path`; `protocol` also logs protocol lines.
    pub fn open(path: &Path, protocol: bool) -> io::Result<BotLog> {
        let file = File::options().create(true).append(true).open(path)?;
        Ok(BotLog {
            inner: Arc::new(Mutex::new(LogFile {
                file: Some(file),
                written: 0,
            })),
            protocol,
            path: path.to_path_buf(),
        })
    }

    /// Where the log is, to tell a person.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends bytes, up to the cap; past it, one note says so and nothing more is written.
    pub(super) fn write(&self, bytes: &[u8]) {
        let mut log = match self.inner.lock() {
            Ok(log) => log,
            Err(poisoned) => poisoned.into_inner(),
        };
        let room = STDERR_LOG_CAP.saturating_sub(log.written) as usize;
        let n = bytes.len().min(room);
        let Some(file) = log.file.as_mut() else {
            return;
        };
        // A failing log must not stop the game: the log is a convenience, the record is the
        // product.
        let ok = file.write_all(&bytes[..n]).is_ok();
        if ok && n < bytes.len() {
            let _ = writeln!(file, "\n[multiversi: log capped at {STDERR_LOG_CAP} bytes]");
        }
        log.written += n as u64;
        if !ok || n < bytes.len() {
            log.file = None;
        }
    }

    /// A protocol line, `>` to the bot or `<` from it, after the UTC time of day to the
    /// millisecond, when protocol lines are kept.
    pub(super) fn protocol_line(&self, direction: char, line: &[u8]) {
        if !self.protocol {
            return;
        }
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let mut entry = format!("[multiversi {}] {direction} ", time_of_day()).into_bytes();
        entry.extend_from_slice(line);
        entry.push(b'\n');
        self.write(&entry);
    }
}

/// The UTC time of day as `HH:MM:SS.mmm`.
fn time_of_day() -> String {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let ms = since.as_millis() % 86_400_000;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}
