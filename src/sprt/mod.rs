//! "Is my new version better?": a sequential probability ratio test of a candidate C against a
//! baseline B at tables of 3 or 4 players, pure functions of game records.
//!
//! **Design.** C and B sit at the same table; the other seats are filled from a field of other
//! bots. Every game is played twice, as a **twin pair**: the second game exchanges C and B and
//! keeps everything else (the other bots in their seats, the board, blocked squares and opening).
//! A pair therefore meets the same position from both sides, and whatever the seats and the
//! opening give one side they give the other in the twin: the pair's score varies less than two
//! unrelated games, so the test needs fewer games (the simulation in `sim` measures how many).
//!
//! **The statistic** of a game is C's head-to-head result against B: 1 if C finishes above B,
//! ½ if they share a place, 0 if below (`units::head_to_head`). Under the Plackett–Luce model the
//! standings fit, its expectation is 1/(1 + 10^(−Δ/400)) for a rating difference Δ whatever the
//! other bots at the table, so the hypotheses elo0 and elo1 are on the scale the standings print.
//!
//! **The independent unit is the deal**: every game that shares an opening, a board and the
//! bots in the other seats. Its games are correlated (a position that suits C better than B
//! suits it in every seating of that deal), so they are scored together: a unit's score is the
//! mean of its games. A deal of one twin pair (the schedule this module is designed for: each
//! pair gets its own opening and fillers) is a unit of 2 games, scored 0, ¼, ½, ¾ or 1, and the
//! counts of those five values are the pentanomial counts of fishtest and fastchess. A deal played
//! in more seatings (say all k!/2 pairs, to balance seats) is one unit of all its games; counting
//! its pairs as independent units understates the variance and raises the error rates, which the
//! simulation shows.
//!
//! **The test** (`gsprt`) is the generalized SPRT on the empirical distribution of unit scores:
//! the maximum-likelihood log-likelihood ratio of mean s1 against mean s0, with Wald's bounds.
//! `estimate` gives the Elo difference with a 95% interval and the likelihood of superiority;
//! `state` turns records into units (complete units only, the longest complete prefix of the
//! schedule) and keeps the test's state, a pure function of the records; `sim` is a synthetic
//! Plackett–Luce game model with seat and opening effects that measures the test's error rates
//! and length, paired and unpaired.
//!
//! A front-end feeds it records as they are written:
//! ```
//! use multiversi::sprt::{Hypotheses, Setup, SprtState, Verdict};
//! # fn finished_games() -> Vec<multiversi::record::GameRecord> { vec![] }
//! let setup = Setup {
//!     run: "sprt-new-old".into(),
//!     candidate: "new".into(),
//!     baseline: "old".into(),
//!     games_per_unit: 2,
//!     hypotheses: Hypotheses::new(0.0, 10.0, 0.05, 0.05).unwrap(),
//! };
//! let mut state = SprtState::new(setup).unwrap();
//! for record in finished_games() {
//!     if let Err(e) = state.add(&record) {
//!         eprintln!("multiversi: warning: {e}");
//!     }
//!     if state.verdict() != Verdict::Continue {
//!         break;
//!     }
//! }
//! print!("{}", state.report().text());
//! ```

pub mod estimate;
pub mod gsprt;
pub mod sim;
pub mod state;
pub mod units;

pub use estimate::EloEstimate;
pub use gsprt::{Bounds, Hypotheses, HypothesesError, Verdict};
pub use state::{Added, FieldResult, Opponent, RecordError, Report, Setup, SetupError, SprtState};
pub use units::UnitCounts;

#[cfg(test)]
mod tests;
