//! The progress line on stderr: games done, games per second and the time left — one line
//! redrawn in place on a terminal, a plain line every half minute otherwise (a log file of a
//! long run).

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
    started: Instant,
    last: Instant,
    live: bool,
    plain: bool,
    drawn: bool,
}

impl Progress {
    /// A progress line for `total` games; `enabled` false draws nothing.
    pub fn new(total: u64, enabled: bool) -> Progress {
        let tty = std::io::stderr().is_terminal();
        Progress {
            total,
            done: 0,
            skipped: 0,
            started: Instant::now(),
            last: Instant::now(),
            live: enabled && tty && {
                LIVE_PROGRESS.store(true, Ordering::SeqCst);
                true
            },
            plain: enabled && !tty,
            drawn: false,
        }
    }

    fn line(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64();
        let rate = self.done as f64 / secs.max(1e-9);
        let left = self.total.saturating_sub(self.done + self.skipped);
        let eta = if self.done > 0 {
            format_duration(left as f64 / rate)
        } else {
            "?".into()
        };
        format!(
            "{}/{} games  {:.1} games/s  ETA {eta}",
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
