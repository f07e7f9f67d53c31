//! Leagues: many bots, fair seatings, games in parallel, resumable. A layer on top of one game
//! (`crate::referee`): the schedule says which games exist, the runner plays them on several
//! workers and records them, and `match` is a league with one line-up.

pub mod bot_files;
pub mod command;
pub mod config;
pub mod run_lock;
pub mod schedule;
pub mod sprt;
pub mod sprt_command;
