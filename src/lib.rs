//! multiversi: a referee and match runner for Reversi for three or four players.

pub mod bots;
pub mod cli;
pub mod record;
pub mod rng;
pub mod rules;
