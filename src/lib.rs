//! multiversi: a referee and match runner for Reversi for three or four players.
//!
//! `print!`, `println!`, `eprint!` and `eprintln!` are refused: they panic (exit 101) when the
//! reader of stdout or stderr has gone (`multiversi perft 7 | head -1`). Stdout is written with
//! errors mapped by `exit::stdout_error` (a closed pipe ends the command quietly), stderr through
//! `stderr_line!` and `stderr_text!`, which never panic.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod bots;
pub mod checkbot;
pub mod cli;
pub mod connect;
pub mod connection;
pub mod exit;
pub mod explain;
pub mod files;
pub mod heap;
pub mod interpreters;
pub mod league;
pub mod limits;
pub mod matches;
pub mod names;
pub mod options;
pub mod process;
pub mod procfs;
pub mod protocol;
pub mod record;
pub mod referee;
pub mod remote;
pub mod render;
pub mod replay;
pub mod reporters;
pub mod rng;
pub mod rules;
pub mod run;
pub mod sprt;
pub mod standings;
pub mod text;
