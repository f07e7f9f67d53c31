//! The command line: options are parsed and validated into a config first, then run. Every
//! failure maps to one documented exit code (see README.md, "Exit codes").

use crate::exit::{self, fail};
use crate::options::BoardArgs;
use crate::rules::Position;
use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use std::io::Write;
use std::time::Instant;

#[derive(Parser, Debug)]
#[command(
    name = "multiversi",
    version,
    about = "Referee and match runner for Reversi for three or four players"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Count move sequences from the start position (a correctness and speed check).
    Perft(PerftArgs),
    /// Play games between bot programs and record them (see README, "Running matches").
    Match(Box<crate::matches::MatchArgs>),
    /// Play a league: many bots, every seating, games in parallel, resumable (README, "Leagues").
    League(crate::league::command::LeagueArgs),
    /// Is NEW better than OLD? A sequential test (SPRT) that plays twin pairs until it decides
    /// (see README, "Is my new version better?"). Exit 0: better; 10: not better; 11: no verdict.
    Sprt(Box<crate::league::sprt_command::SprtArgs>),
    /// Run a built-in bot speaking the bot protocol on stdin/stdout.
    Bot(BotArgs),
    /// Put one bot through the protocol's situations and print a checklist (see README,
    /// "Checking a bot"): multiversi check-bot [OPTIONS] -- COMMAND [ARGS...]
    CheckBot(crate::checkbot::CheckBotArgs),
    /// Show recorded games again: in the terminal, as an HTML viewer, or verified by the rules.
    Replay(crate::replay::ReplayArgs),
    /// Standings and ratings from record files (see README, "Standings and ratings").
    Standings(crate::standings::command::StandingsArgs),
    /// Play in a league over the network: run your bot here, relayed to the league's server
    /// (README, "Bots over the network"): multiversi connect HOST:PORT --token-file F -- COMMAND
    Connect(crate::connect::ConnectArgs),
    /// Print a fresh token for a remote bot and the config lines that hold its hash.
    Token(crate::connect::TokenArgs),
    /// The benchmark's instant bot (first legal move, no JSON parsing); see bench/referee.sh.
    #[command(hide = true)]
    BenchBot,
    /// The match's watchdog: kills the bots' process groups when the referee dies.
    #[command(hide = true)]
    Guard,
}

#[derive(Args, Debug)]
pub struct BotArgs {
    /// Which built-in bot.
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(crate::bots::NAMES))]
    pub name: String,
    /// Seed for the bot's random choices (default: drawn from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Think at most this long per move, whatever the referee allows: a handicapped copy of
    /// the bot (a search engine with less time), for testing with `multiversi sprt`.
    #[arg(long, value_name = "MS")]
    pub think_ms: Option<u64>,
}

fn run_bot(args: &BotArgs) -> Result<()> {
    let seed = args.seed.unwrap_or_else(crate::rng::Rng::fresh_seed);
    crate::bots::serve::serve(&args.name, seed, args.think_ms).map_err(|e| fail(exit::BAD_INPUT, e))
}

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Number of players (3 or 4).
    #[arg(long, default_value_t = 4)]
    pub players: u32,
    #[command(flatten)]
    pub board: BoardArgs,
    /// Seed for --blocked-random.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Largest depth; every depth from 1 is printed.
    pub depth: u32,
}

fn run_perft(args: &PerftArgs) -> Result<()> {
    let rules = args.board.rules(args.players, args.seed)?;
    let position = Position::new(rules);
    let mut out = std::io::stdout().lock();
    let started = Instant::now();
    // The rate is measured on the last depth alone, so that it compares with a perft program that
    // runs a single depth; the total time is printed as well.
    let (mut leaves, mut last_secs) = (0, 0.0);
    for depth in 1..=args.depth {
        let depth_started = Instant::now();
        leaves = position.perft(depth);
        last_secs = depth_started.elapsed().as_secs_f64();
        // A reader that went away (`perft 7 | head -1`) ends it quietly (`exit::stdout_error`).
        writeln!(out, "{depth} {leaves}")
            .and_then(|()| out.flush())
            .map_err(exit::stdout_error)?;
    }
    crate::stderr_line!(
        "perft {}: {} leaves in {:.3} s, {:.1} M leaves/s (depths 1-{} took {:.3} s)",
        args.depth,
        leaves,
        last_secs,
        leaves as f64 / last_secs.max(1e-9) / 1e6,
        args.depth,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Perft(args) => run_perft(&args),
        Command::Match(args) => crate::matches::run_match(&args),
        Command::League(args) => crate::league::command::run_league(&args),
        Command::Sprt(args) => crate::league::sprt_command::run(&args),
        Command::Bot(args) => run_bot(&args),
        Command::CheckBot(args) => crate::checkbot::run(&args),
        Command::Guard => {
            crate::process::run_guard();
            Ok(())
        }
        Command::Replay(args) => crate::replay::run(&args),
        Command::Standings(args) => crate::standings::command::run(&args),
        Command::Connect(args) => crate::connect::run_connect(&args),
        Command::Token(args) => crate::connect::run_token(&args),
        Command::BenchBot => {
            crate::bots::serve::serve_instant().map_err(|e| fail(exit::BAD_INPUT, e))
        }
    }
}

/// Whether `words`, the last arguments of the command line, came right after a `--`: clap takes
/// the `--` away, but it tells a program's path (taken whole) from a line to split.
fn after_dashes(raw: &[std::ffi::OsString], words: &[String]) -> bool {
    let Some(before) = raw.len().checked_sub(words.len() + 1) else {
        return false;
    };
    raw[before] == "--"
        && raw[before + 1..]
            .iter()
            .zip(words)
            .all(|(r, w)| r.to_str() == Some(w.as_str()))
}

/// Parses the command line, runs it, prints any error and returns the exit code.
pub fn main() -> i32 {
    crate::process::ignore_file_size_signal();
    let raw: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let mut cli = match Cli::try_parse_from(&raw) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
        }
    };
    match &mut cli.command {
        Command::CheckBot(args) => args.after_dashes = after_dashes(&raw, &args.command),
        Command::Connect(args) => args.after_dashes = after_dashes(&raw, &args.command),
        _ => {}
    }
    // A panic is a bug: the default hook has printed where, and the exit code says "internal
    // error" rather than Rust's 101, which no table of ours explains.
    let Ok(result) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cli))) else {
        return exit::INTERNAL;
    };
    match result {
        Ok(()) => exit::OK,
        Err(e) => {
            let code = exit::code_of(&e);
            // An empty message means there is nothing to say (a closed output pipe).
            // A closed stderr (`... 2>&1 >/dev/null | true`) must not panic: the exit code
            // still tells what happened.
            if code == exit::INTERNAL {
                crate::stderr_line!("multiversi: internal error (a bug: please report it): {e:#}");
            } else if !e.to_string().is_empty() {
                crate::stderr_line!("multiversi: {e:#}");
            }
            code
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> (Vec<std::ffi::OsString>, Vec<String>) {
        let raw: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        let Command::CheckBot(check) = Cli::try_parse_from(&raw).unwrap().command else {
            panic!("not check-bot: {args:?}");
        };
        (raw, check.command)
    }

    #[test]
    fn words_after_dashes_are_told_from_a_line_to_split() {
        for (args, expected) in [
            (&["mv", "check-bot", "--", "/opt/my bots/bot"][..], true),
            (
                &["mv", "check-bot", "--json", "--", "python3", "a b.py"],
                true,
            ),
            (&["mv", "check-bot", "python3 bot.py"], false),
            (
                &["mv", "check-bot", "--seed", "3", "./bot", "--fast"],
                false,
            ),
            (
                &["mv", "check-bot", "--cwd", "d", "./bot", "--", "x"],
                false,
            ),
        ] {
            let (raw, words) = parse(args);
            assert_eq!(after_dashes(&raw, &words), expected, "{args:?}");
        }
    }
}
