//! A bot's stderr, drained by a thread of its own into a capped tail (for fault records) and
//! the bot's log. A bot that writes a lot of diagnostics must never block on a full pipe while
//! the referee waits for its move, and must not make the referee's memory grow either; one that
//! floods is read at `STDERR_RATE`, so it cannot keep a core busy.

use super::log::BotLog;
use std::collections::VecDeque;
use std::io::{self, Read};
use std::process::ChildStderr;
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How much of a bot's stderr is kept in memory for fault records.
pub const STDERR_TAIL_BYTES: usize = 4096;

/// The drained stderr of one bot process, as the referee sees it.
pub(super) struct Stderr {
    sink: Arc<Mutex<StderrSink>>,
    /// Set, and told, by the drainer when the bot's stderr has ended. Told rather than looked
    /// at now and then: a bot's shutdown waits for it, and a look every millisecond left the
    /// CPU idle for most of one at every shutdown (its drainer ends within microseconds of the
    /// bot), a millisecond per bot of every deal a league starts and of every `--restart` game.
    done: Arc<(Mutex<bool>, Condvar)>,
}

impl Stderr {
    /// Starts the thread that drains `stderr` (named after the bot's group `pgid`).
    pub(super) fn drain(stderr: ChildStderr, log: Option<BotLog>, pgid: i32) -> io::Result<Stderr> {
        let sink = Arc::new(Mutex::new(StderrSink {
            tail: VecDeque::new(),
            log,
            hurry: false,
            held_back: None,
        }));
        let done = Arc::new((Mutex::new(false), Condvar::new()));
        let (thread_sink, thread_done) = (Arc::clone(&sink), Arc::clone(&done));
        thread::Builder::new()
            .name(format!("stderr-{pgid}"))
            .spawn(move || {
                drain_stderr(stderr, thread_sink);
                let (ended, told) = &*thread_done;
                *ended.lock().unwrap_or_else(|e| e.into_inner()) = true;
                told.notify_all();
            })?;
        Ok(Stderr { sink, done })
    }

    /// Waits up to `max` for the stderr to end.
    pub(super) fn settle(&self, max: Duration) {
        let (ended, told) = &*self.done;
        let ended = ended.lock().unwrap_or_else(|e| e.into_inner());
        let _ = told.wait_timeout_while(ended, max, |ended| !*ended);
    }

    /// The last `max` bytes, as text of at most `max` bytes: bytes that are not UTF-8 become
    /// U+FFFD, three bytes each, so the text is cut again, at a character's start.
    pub(super) fn tail(&self, max: usize) -> String {
        let sink = match self.sink.lock() {
            Ok(sink) => sink,
            Err(poisoned) => poisoned.into_inner(),
        };
        let skip = sink.tail.len().saturating_sub(max);
        let bytes: Vec<u8> = sink.tail.iter().skip(skip).copied().collect();
        let text = String::from_utf8_lossy(&bytes);
        let mut start = text.len().saturating_sub(max);
        while !text.is_char_boundary(start) {
            start += 1;
        }
        text[start..].to_string()
    }

    /// Whether the bot's stderr was being read at the flood rate (`STDERR_RATE`) at `at`: the
    /// bot was then writing to it faster than that, and waiting on its own full pipe. A flood
    /// that goes on is read in pauses of a fraction of a millisecond each, so the last one
    /// ends within `HELD_BACK_SLACK` of any moment during it; what an earlier flood left in the
    /// pipe is read within milliseconds, and does not count for a later moment.
    pub(super) fn held_back_at(&self, at: Instant) -> bool {
        self.held_back()
            .is_some_and(|until| until + HELD_BACK_SLACK >= at)
    }

    /// Whether the bot's stderr was read at the flood rate at some time since `since` (a game's
    /// start): it then waited on its stderr at times, and its answers' times include that.
    pub(super) fn held_back_since(&self, since: Instant) -> bool {
        self.held_back().is_some_and(|until| until >= since)
    }

    /// Until when the drainer last held off reading (see `StderrSink::held_back`).
    fn held_back(&self) -> Option<Instant> {
        match self.sink.lock() {
            Ok(sink) => sink.held_back,
            Err(poisoned) => poisoned.into_inner().held_back,
        }
    }

    /// The bot is ending: its last stderr is read at once, not at the flood rate.
    pub(super) fn hurry(&self) {
        if let Ok(mut sink) = self.sink.lock() {
            sink.hurry = true;
        }
    }
}

/// The captured end of a bot's stderr, and its log.
struct StderrSink {
    tail: VecDeque<u8>,
    log: Option<BotLog>,
    /// Set once the bot is being killed: what is left in the pipe is read at full speed.
    hurry: bool,
    /// Until when the drainer last held off reading, the bot's stderr over its rate.
    held_back: Option<Instant>,
}

impl StderrSink {
    fn push(&mut self, bytes: &[u8]) {
        let keep = bytes.len().min(STDERR_TAIL_BYTES);
        let over = (self.tail.len() + keep).saturating_sub(STDERR_TAIL_BYTES);
        self.tail.drain(..over);
        self.tail.extend(&bytes[bytes.len() - keep..]);
        if let Some(log) = &self.log {
            log.write(bytes);
        }
    }
}

/// How fast a bot's stderr is read once `STDERR_BURST` bytes have gone through at full speed,
/// in bytes per second. Far more than any diagnostics need; a bot that writes faster blocks on
/// its own full pipe instead of keeping a core of the referee (and of itself) busy, which would
/// slow the other bots of the game.
const STDERR_RATE: f64 = STDERR_RATE_MIB as f64 * 1024.0 * 1024.0;
/// `STDERR_RATE` in MiB a second, as messages say it.
pub const STDERR_RATE_MIB: u32 = 8;
/// How close to a moment the drainer must have held off reading for the bot to count as held
/// back at that moment (see `Stderr::held_back_at`).
const HELD_BACK_SLACK: Duration = Duration::from_millis(20);
/// How much stderr is read at full speed before the rate applies.
const STDERR_BURST: f64 = 1024.0 * 1024.0;

fn drain_stderr(mut stderr: std::process::ChildStderr, sink: Arc<Mutex<StderrSink>>) {
    // 4 KB a read: diagnostics come in lines, and a flood is read at `STDERR_RATE` anyway. The
    // buffer is on this thread's stack, which glibc keeps resident for the next thread once
    // this one ends: 16 KB here made every kept stack 12 KB larger.
    let mut chunk = [0u8; 4096];
    // A token bucket: `allowance` bytes may be read now; it refills at `STDERR_RATE`.
    let mut allowance = STDERR_BURST;
    let mut last = Instant::now();
    loop {
        match stderr.read(&mut chunk) {
            Ok(0) => return,
            Ok(n) => {
                let now = Instant::now();
                let refill = now.duration_since(last).as_secs_f64() * STDERR_RATE;
                allowance = (allowance + refill).min(STDERR_BURST) - n as f64;
                last = now;
                let pause =
                    (allowance < 0.0).then(|| Duration::from_secs_f64(-allowance / STDERR_RATE));
                let hurry = match sink.lock() {
                    Ok(mut sink) => {
                        sink.push(&chunk[..n]);
                        if let Some(pause) = pause.filter(|_| !sink.hurry) {
                            sink.held_back = Some(now + pause);
                        }
                        sink.hurry
                    }
                    Err(_) => true,
                };
                if let Some(pause) = pause.filter(|_| !hurry) {
                    thread::sleep(pause);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}
