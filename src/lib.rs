//! multiversi: a referee and match runner for Reversi for three or four players.

pub mod cli;
pub mod rng;
pub mod rules;
