//! Option groups shared by several subcommands.

use crate::exit::{self, fail};
use crate::rules::{Rules, Setup};
use anyhow::Result;
use clap::Args;

/// Board options shared by every command that sets up a game.
#[derive(Args, Debug, Clone)]
pub struct BoardArgs {
    /// Board: 8x8, 10x10 or octagon.
    #[arg(long, default_value = "8x8")]
    pub board: String,
    /// Anti-Reversi: the fewest discs win.
    #[arg(long)]
    pub anti: bool,
    /// Blocked squares, comma-separated (e.g. c3,f6).
    #[arg(long, default_value = "", value_name = "LIST")]
    pub blocked: String,
    /// Also block N squares drawn at random from the seed.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub blocked_random: u32,
}

impl BoardArgs {
    /// The unvalidated setup these options ask for.
    pub fn setup(&self, players: u32, seed: u64) -> Setup {
        Setup {
            players,
            board: self.board.clone(),
            anti: self.anti,
            blocked: self.blocked.clone(),
            blocked_random: self.blocked_random,
            seed,
        }
    }

    /// Validates the options into rules; errors name the culprit and exit with USAGE.
    pub fn rules(&self, players: u32, seed: u64) -> Result<Rules> {
        Rules::from_setup(&self.setup(players, seed)).map_err(|e| fail(exit::USAGE, e.to_string()))
    }
}

/// The time control's options, shared by `match` and `sprt` (a league's config has the same
/// keys): the four numbers of `TimeControl`.
#[derive(Args, Debug, Clone)]
pub struct TimeArgs {
    /// The most one move may take, in milliseconds.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub move_ms: u64,
    /// Each player's clock for a whole game, in milliseconds (default: no clock).
    #[arg(long, value_name = "MS")]
    pub clock_ms: Option<u64>,
    /// Added to a player's clock after each of its moves, in milliseconds.
    #[arg(long, default_value_t = 0, value_name = "MS")]
    pub increment_ms: u64,
    /// Time for a bot to answer start with ready, in milliseconds.
    #[arg(long, default_value_t = 10000, value_name = "MS")]
    pub startup_ms: u64,
}

impl TimeArgs {
    /// Refuses a limit of 0 (a usage error naming the option).
    pub fn check(&self) -> Result<()> {
        if self.move_ms == 0 {
            return Err(fail(exit::USAGE, "--move-ms 0: a move needs some time"));
        }
        if self.clock_ms == Some(0) {
            return Err(fail(exit::USAGE, "--clock-ms 0: a clock needs some time"));
        }
        if self.startup_ms == 0 {
            return Err(fail(
                exit::USAGE,
                "--startup-ms 0: a bot needs some time to start",
            ));
        }
        Ok(())
    }

    pub fn control(&self) -> crate::protocol::TimeControl {
        crate::protocol::TimeControl {
            move_ms: self.move_ms,
            clock_ms: self.clock_ms,
            increment_ms: self.increment_ms,
            startup_ms: self.startup_ms,
        }
    }
}

/// The `--cwd N=DIR` options of `bots` bots (numbered from 1): each bot's working directory, if
/// given. A wrong item is a usage error; a directory that does not exist is bad input.
pub fn bot_dirs(items: &[String], bots: usize) -> Result<Vec<Option<std::path::PathBuf>>> {
    let mut dirs = vec![None; bots];
    for item in items {
        let bad = || {
            fail(
                exit::USAGE,
                format!("--cwd {item}: expected N=DIR with N a bot number from 1 to {bots}"),
            )
        };
        let (n, dir) = item.split_once('=').ok_or_else(bad)?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if n == 0 || n > bots {
            return Err(bad());
        }
        let dir = std::path::PathBuf::from(dir);
        if !dir.is_dir() {
            return Err(fail(
                exit::BAD_INPUT,
                format!("--cwd {item}: {} is not a directory", dir.display()),
            ));
        }
        dirs[n - 1] = Some(dir);
    }
    Ok(dirs)
}
