//! Time discipline shared by the search engines.
//!
//! The deadline an engine gets is the referee's limit for this move (`multiversi bot` passes 80%
//! of the move time). Between the engine's answer and the referee's clock lie the protocol's
//! pipes, the process scheduler and, on a busy machine, everything else that runs there. On the
//! shared development machine (load 5-10 on two cores) answers were seen to reach the referee
//! up to ~90 ms after the search stopped — even `greedy`, which thinks for a tenth of a
//! millisecond, once took 88 ms — and a move that arrives late loses the game. That delay does
//! not grow with the move time, so an engine keeps a fixed `MARGIN` unused and otherwise uses
//! `SHARE` of the time left: at 100 ms per move it searches about 10 ms (measured to be about as strong
//! against `greedy` and `random` as 24 ms), at 1 s per move 600 ms.

use crate::rules::{Position, Square};
use std::time::{Duration, Instant};

/// Fraction of the remaining time a search may use.
pub const SHARE: f64 = 0.75;
/// Time always left unused before the deadline, for the answer to reach the referee.
pub const MARGIN: Duration = Duration::from_millis(70);

/// When a search that starts at `now` must stop to answer safely before `deadline`.
pub fn stop_time(now: Instant, deadline: Instant) -> Instant {
    let left = deadline.saturating_duration_since(now);
    let share = left.mul_f64(SHARE);
    let budget = share.min(left.saturating_sub(MARGIN));
    now + budget
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
    fn stops_early_with_a_margin() {
        let now = Instant::now();
        let stop = stop_time(now, now + Duration::from_millis(100));
        assert_eq!(stop - now, Duration::from_millis(30));
        let stop = stop_time(now, now + Duration::from_millis(80));
        assert_eq!(stop - now, Duration::from_millis(10));
        let stop = stop_time(now, now + Duration::from_millis(60));
        assert_eq!(stop, now);
        // A deadline already past: stop at once.
        assert_eq!(stop_time(now, now), now);
        let stop = stop_time(now, now + Duration::from_secs(10));
        assert_eq!(stop - now, Duration::from_millis(7500));
    }
}
