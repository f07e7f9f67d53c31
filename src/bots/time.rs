//! Time discipline shared by the search engines.
//!
//! Between an engine's answer and the referee's clock lie the protocol's pipes, the process
//! scheduler and, on a busy machine, everything else that runs there; a move that arrives late
//! loses the game. Two things keep answers in time, at every move limit from 20 ms up:
//!
//! - `stop_time`: a search keeps a margin that grows with the time it has (40% of it, up to
//!   `MARGIN_CAP`) and uses at most `SHARE` of it. A fixed margin (it was 70 ms) left nothing to
//!   search below about 90 ms per move, so `best` played instantly there and lost to `random`; a
//!   margin in proportion keeps it searching (about 10 ms at 20 ms per move, 24 ms at 50, 48 ms
//!   at 100), and the cap keeps long limits for searching (600 ms at 1 s per move).
//! - `Latency`: the bot measures how late its own answers go out compared with when its search
//!   was told to stop, and learns from each turn's `last_move_ms` how much longer the referee
//!   counted for its previous move than it saw itself (pipes, waiting for the processor), and
//!   moves its deadline earlier by twice the worst of both seen recently. On an idle machine that
//!   is a fraction of a millisecond; on a loaded one (answers were seen up to ~90 ms late at load
//!   5–10 on two cores) the margin grows with what the bot actually sees, and shrinks again
//!   slowly when the machine calms down. Each game starts with a probe of how long the bot waits
//!   for the processor after a short sleep, so that the first move of a game on a loaded machine
//!   is not played as if it were idle.

use crate::rules::{Position, Square};
use std::time::{Duration, Instant};

/// Fraction of the time left a search may use at most.
pub const SHARE: f64 = 0.75;
/// Fraction of the time left always kept unused, for the answer to reach the referee.
pub const MARGIN_SHARE: f64 = 0.4;
/// Sleeps of `Latency::probe`.
const PROBES: u32 = 5;
/// The margin never needs to be more than this: beyond it, the time is better spent searching.
pub const MARGIN_CAP: Duration = Duration::from_millis(70);

/// When a search that starts at `now` must stop to answer safely before `deadline`.
pub fn stop_time(now: Instant, deadline: Instant) -> Instant {
    let left = deadline.saturating_duration_since(now);
    let margin = left.mul_f64(MARGIN_SHARE).min(MARGIN_CAP);
    let budget = left.mul_f64(SHARE).min(left.saturating_sub(margin));
    now + budget
}

/// What this bot has seen of the time its moves take beyond its own search, decaying by `DECAY`
/// per move so that one stall does not cost the rest of the game:
///
/// - `late`: the worst recent delay between the moment a search was told to stop and the moment
///   its answer was written (a search that overran its check, a preempted process);
/// - `outside`: the worst recent time the referee counted for a move beyond what the bot itself
///   saw between reading the turn and writing the answer (the turn's `last_move_ms` minus that):
///   the pipes both ways and the waits for the processor before the bot reads its turn and
///   before the referee reads the answer. Nothing else shows a bot that time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Latency {
    late: Duration,
    outside: Duration,
    /// Reading the last turn to writing its answer, to set against the referee's figure.
    answered_in: Option<Duration>,
}

impl Latency {
    /// Kept from one move's observation to the next.
    pub const DECAY: f64 = 0.9;

    /// Notes one answer: the turn was read at `received`, the search was to stop at `planned`,
    /// the answer went out at `answered`.
    pub fn observe(&mut self, received: Instant, planned: Instant, answered: Instant) {
        let late = answered.saturating_duration_since(planned);
        self.late = late.max(self.late.mul_f64(Self::DECAY));
        self.answered_in = Some(answered.saturating_duration_since(received));
    }

    /// Notes what the referee measured for this bot's previous move (`last_move_ms` of a turn).
    pub fn referee_saw(&mut self, last_move_ms: Option<f64>) {
        let (Some(ms), Some(own)) = (last_move_ms, self.answered_in.take()) else {
            return;
        };
        if !(ms.is_finite() && ms >= 0.0) {
            return;
        }
        let outside = Duration::from_secs_f64(ms / 1000.0).saturating_sub(own);
        self.outside = outside.max(self.outside.mul_f64(Self::DECAY));
    }

    /// A new game: the referee's figures are per game, so the last answer of the previous game
    /// is not set against the first figure of this one.
    pub fn new_game(&mut self) {
        self.answered_in = None;
    }

    /// Measures how long this process waits for the processor once it may run again, by
    /// sleeping a millisecond a few times and noting how much longer each sleep took. That wait
    /// is part of `outside`, which the referee's figures show only from a bot's second move on;
    /// on a loaded machine it is tens of milliseconds. Done at the start of each game, where
    /// there is time for it.
    pub fn probe(&mut self) {
        const NAP: Duration = Duration::from_millis(1);
        for _ in 0..PROBES {
            let before = Instant::now();
            std::thread::sleep(NAP);
            let woke = Instant::now();
            self.outside = self
                .outside
                .max(woke.saturating_duration_since(before + NAP));
        }
    }

    /// Time to take off a move's deadline: twice the worst recent delays.
    pub fn margin(&self) -> Duration {
        (self.late + self.outside) * 2
    }
}

/// Some legal move, for the cases a search has nothing better (it never happens in a game that
/// is not over, but an engine must not panic on a referee's position).
pub fn legal_fallback(position: &Position) -> Square {
    let (moves, _) = position.legal_moves();
    moves.first().copied().unwrap_or(Square::new(0, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_margin_fits_the_budget() {
        let now = Instant::now();
        let searched = |ms: u64| stop_time(now, now + Duration::from_millis(ms)) - now;
        // A short limit keeps 40% for the answer's way back, and searches the rest.
        assert_eq!(searched(16), Duration::from_micros(9_600));
        assert_eq!(searched(40), Duration::from_millis(24));
        assert_eq!(searched(80), Duration::from_millis(48));
        assert_eq!(searched(160), Duration::from_millis(96));
        // The margin stops growing at 70 ms; a long limit searches for three quarters.
        assert_eq!(searched(800), Duration::from_millis(600));
        assert_eq!(searched(10_000), Duration::from_millis(7500));
        // A deadline already past: stop at once.
        assert_eq!(stop_time(now, now), now);
        assert_eq!(stop_time(now, now - Duration::from_millis(1)), now);
    }

    #[test]
    fn latency_grows_with_late_answers_and_decays() {
        let now = Instant::now();
        let ms = Duration::from_millis;
        let mut latency = Latency::default();
        assert_eq!(latency.margin(), Duration::ZERO);
        latency.observe(now, now, now + ms(10));
        assert_eq!(latency.margin(), ms(20));
        // An early answer leaves the estimate to decay.
        latency.observe(now, now, now - ms(1));
        assert_eq!(latency.margin(), ms(18));
        latency.observe(now, now, now + ms(30));
        assert_eq!(latency.margin(), ms(60));
    }

    #[test]
    fn the_referees_figure_shows_the_time_outside_the_bot() {
        let now = Instant::now();
        let ms = Duration::from_millis;
        let mut latency = Latency::default();
        // Read at `now`, answered 8 ms later exactly when planned; the referee counted 13 ms.
        latency.observe(now, now + ms(8), now + ms(8));
        latency.referee_saw(Some(13.0));
        assert_eq!(latency.margin(), ms(10));
        // A figure with no answer of this bot's to set against (first move, or seen twice)
        // changes nothing, and neither does a nonsensical one.
        latency.referee_saw(Some(500.0));
        latency.observe(now, now + ms(8), now + ms(8));
        latency.referee_saw(Some(f64::NAN));
        assert_eq!(latency.margin(), ms(10));
        // The previous game's last answer is not set against a new game's figures.
        latency.observe(now, now + ms(8), now + ms(8));
        latency.new_game();
        latency.referee_saw(Some(500.0));
        assert_eq!(latency.margin(), ms(10));
        // A quick move decays it.
        latency.observe(now, now + ms(8), now + ms(8));
        latency.referee_saw(Some(8.0));
        assert_eq!(latency.margin(), ms(9));
    }
}
