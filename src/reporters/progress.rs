//! The progress line on stderr: games done, games per second and the time left — one line
//! redrawn in place on a terminal, a plain line every half minute otherwise (a log file of a
//! long run).
//!
//! Hand-written rather than drawn with `indicatif`, on purpose. What the terminal case needs is
//! one line rewritten in place (`\r`, the line, `\x1b[K`: no clearing of the screen, so no
//! flicker) at most five times a second, and every other line on stderr (fault messages, table
//! warnings, the sequential test's notes, written by other sinks through `stderr_line!`) starting
//! with `clear_progress()` so that it prints above the line, which the next tick draws again.
//! `indicatif` does this too (`ProgressBar::suspend`/`println`), but only for what is written
//! through the bar: every one of those writers would have to reach a shared bar instead of
//! asking one flag, and the plain half-minute line for a log file would stay ours anyway. For
//! that it would add five crates to build (`indicatif`, `console`, `unicode-width`,
//! `portable-atomic`, `unit-prefix`) and about 13 s of CPU to a clean build (`cargo build -j1` of
//! an empty crate depending on `indicatif = "0.18"`: 12.8 s user and 1.5 s system, `libc`, which
//! this crate builds anyway, included) for the same bytes on the terminal.

use crate::run::events::{Event, Flow, Sink};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Set while a progress line is drawn on the terminal: other lines on stderr clear it first.
static LIVE_PROGRESS: AtomicBool = AtomicBool::new(false);

/// What starts a line on stderr: a clearing of the progress line when one is drawn.
pub fn clear_progress() -> &'static str {
    if LIVE_PROGRESS.load(Ordering::SeqCst) {
        "\r\x1b[K"
    } else {
        ""
    }
}

pub struct Progress {
    total: u64,
    done: u64,
    skipped: u64,
    /// Faults so far: the count that keeps repeats in view (they are not printed one by one).
    faults: u64,
    started: Instant,
    last: Instant,
    live: bool,
    plain: bool,
    drawn: bool,
    /// Said instead of the time left (a sequential test's LLR: it may stop long before).
    note: Option<String>,
}

impl Progress {
    /// A progress line for `total` games; `enabled` false draws nothing.
    pub fn new(total: u64, enabled: bool) -> Progress {
        let tty = std::io::stderr().is_terminal();
        Progress {
            total,
            done: 0,
            skipped: 0,
            faults: 0,
            started: Instant::now(),
            last: Instant::now(),
            live: enabled && tty && {
                LIVE_PROGRESS.store(true, Ordering::SeqCst);
                true
            },
            plain: enabled && !tty,
            drawn: false,
            note: None,
        }
    }

    /// Puts `note` where the time left would be.
    pub fn set_note(&mut self, note: String) {
        self.note = Some(note);
    }

    fn line(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64();
        let rate = self.done as f64 / secs.max(1e-9);
        let left = self.total.saturating_sub(self.done + self.skipped);
        let eta = match &self.note {
            Some(note) => note.clone(),
            None if self.done > 0 => format!("ETA {}", format_duration(left as f64 / rate)),
            None => "ETA ?".into(),
        };
        let faults = match self.faults {
            0 => String::new(),
            1 => "  1 fault".into(),
            n => format!("  {n} faults"),
        };
        format!(
            "{}/{} games  {:.1} games/s  {eta}{faults}",
            self.done, self.total, rate
        )
    }
}

impl Sink for Progress {
    fn event(&mut self, event: &Event) -> Flow {
        match event {
            Event::GameEnded { recorded: true, .. } => {
                self.done += 1;
                self.tick();
            }
            Event::GameEnded {
                recorded: false, ..
            } => self.skipped += 1,
            Event::Skipped(n) => self.skipped += n,
            Event::Faulted { .. } => self.faults += 1,
            _ => {}
        }
        Flow::Continue
    }

    fn tick(&mut self) {
        let now = Instant::now();
        if self.live && now - self.last >= Duration::from_millis(200) {
            crate::stderr_text!("\r\x1b[K{}", self.line());
            let _ = std::io::stderr().flush();
            self.drawn = true;
            self.last = now;
        } else if self.plain && now - self.last >= Duration::from_secs(30) {
            crate::stderr_line!("multiversi: {}", self.line());
            self.last = now;
        }
    }

    fn finish(&mut self) {
        if self.drawn {
            crate::stderr_text!("\r\x1b[K");
        }
        LIVE_PROGRESS.store(false, Ordering::SeqCst);
    }
}

/// `1h02m`, `3m05s`, `12s`.
pub fn format_duration(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s / 60 % 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{FaultKind, FaultRecord};

    #[test]
    fn the_line_counts_games_and_faults() {
        let mut p = Progress::new(10, false);
        assert!(p.line().starts_with("0/10 games"), "{}", p.line());
        assert!(!p.line().contains("fault"));
        let fault = Event::Faulted {
            game: "g".into(),
            fault: FaultRecord {
                seat: 0,
                kind: FaultKind::Crash,
                ply: 0,
                detail: "exited".into(),
                text: None,
                stderr_tail: String::new(),
            },
            ms: None,
            bot: Default::default(),
        };
        p.event(&fault);
        assert!(p.line().ends_with("  1 fault"), "{}", p.line());
        p.event(&fault);
        p.event(&Event::Skipped(3));
        assert!(p.line().ends_with("  2 faults"), "{}", p.line());
        assert_eq!(format_duration(3725.0), "1h02m");
        assert_eq!(format_duration(185.0), "3m05s");
    }
}
