//! A bot's log file (`--log-dir`): a person debugging a bot reads its stderr there, beside the
//! referee's notes on it and, when asked, the protocol lines both ways. Kept apart from the
//! process because one log outlives every process started for the bot in a run.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// How much goes to a bot's log file at most, for all its processes in a run together.
pub const STDERR_LOG_CAP: u64 = 1 << 20;

/// How much of the referee's notes a log takes past `STDERR_LOG_CAP`: a bot that filled its log
/// with stderr still has its later games and faults noted, which is what a person reading the
/// log after a fault message looks for; bounded, so that a bot faulting in every game of a long
/// league cannot grow it without end.
pub const NOTES_PAST_CAP: u64 = 64 << 10;

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
    /// None once a write failed, or the notes past the cap are used up too.
    file: Option<File>,
    written: u64,
    /// The cap has been reached: only the referee's notes are written, up to `NOTES_PAST_CAP`.
    capped: bool,
    /// Bytes of notes written past the cap.
    notes_past_cap: u64,
}

impl LogFile {
    /// Writes what of `bytes` fits in `room`: how much that was, or None when the log is closed
    /// or the write failed, which closes it. A failing log must not stop the game: the log is
    /// a convenience, the record is the product.
    fn put(&mut self, bytes: &[u8], room: u64) -> Option<usize> {
        let n = bytes.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        let file = self.file.as_mut()?;
        if file.write_all(&bytes[..n]).is_err() {
            self.file = None;
            return None;
        }
        Some(n)
    }

    /// A line of the referee's about the log itself.
    fn mark(&mut self, what: &str) {
        if let Some(file) = self.file.as_mut() {
            let _ = writeln!(file, "\n[multiversi: {what}]");
        }
    }
}

impl BotLog {
    /// Opens (creates or appends to) the log at `path`; `protocol` also logs protocol lines.
    pub fn open(path: &Path, protocol: bool) -> io::Result<BotLog> {
        let file = File::options().create(true).append(true).open(path)?;
        Ok(BotLog {
            inner: Arc::new(Mutex::new(LogFile {
                file: Some(file),
                written: 0,
                capped: false,
                notes_past_cap: 0,
            })),
            protocol,
            path: path.to_path_buf(),
        })
    }

    /// Where the log is, to tell a person.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends bytes (the bot's stderr, protocol lines), up to the cap; past it, one note says
    /// so and only the referee's notes are written (`note`).
    pub(super) fn write(&self, bytes: &[u8]) {
        let mut log = self.lock();
        if log.capped {
            return;
        }
        let room = STDERR_LOG_CAP.saturating_sub(log.written);
        let Some(n) = log.put(bytes, room) else {
            return;
        };
        log.written += n as u64;
        if n < bytes.len() {
            log.mark(&format!(
                "log capped at {STDERR_LOG_CAP} bytes: from here on only the referee's notes, up \
                 to {NOTES_PAST_CAP} bytes of them"
            ));
            log.capped = true;
        }
    }

    /// Appends a note of the referee's: within the cap as any other bytes; past it, up to
    /// `NOTES_PAST_CAP` more.
    pub(super) fn note(&self, bytes: &[u8]) {
        let mut log = self.lock();
        if !log.capped {
            drop(log);
            return self.write(bytes);
        }
        let room = NOTES_PAST_CAP.saturating_sub(log.notes_past_cap);
        let Some(n) = log.put(bytes, room) else {
            return;
        };
        log.notes_past_cap += n as u64;
        if n < bytes.len() {
            log.mark("notes capped too");
            log.file = None;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LogFile> {
        match self.inner.lock() {
            Ok(log) => log,
            Err(poisoned) => poisoned.into_inner(),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Past the cap only notes go in, and only up to their own allowance.
    #[test]
    fn past_the_cap_the_log_takes_notes_alone_up_to_their_allowance() {
        let dir = std::env::temp_dir().join(format!("multiversi-logcap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bot1-x.log");
        let log = BotLog::open(&path, false).unwrap();
        log.write(&vec![b'x'; STDERR_LOG_CAP as usize + 10]);
        log.write(b"stderr past the cap\n");
        log.note(b"[multiversi] a note past the cap\n");
        for _ in 0..100 {
            log.note(&[b'n'; 1024]);
        }
        log.note(b"[multiversi] a note past the notes' allowance\n");
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        assert!(!text.contains("stderr past the cap"));
        assert!(text.contains("a note past the cap"));
        assert!(text.contains("notes capped too"));
        assert!(!text.contains("past the notes' allowance"));
        let most = STDERR_LOG_CAP + NOTES_PAST_CAP + 300;
        assert!((text.len() as u64) < most, "{}", text.len());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
