//! `multiversi match`: one line-up of 3 or 4 bots, played as a league with one line-up. The
//! games are the line-up's seatings in turn (the first k are the k rotations, then every other
//! order), run by the same runner as a league (`crate::run`).

use crate::bots;
use crate::exit::{self, fail};
use crate::explain;
use crate::names;
use crate::protocol::TimeControl;
use crate::rng::Rng;
use crate::rules::{Rules, Setup};
use crate::run::lineup::{bot_spec, run_stamp, set_logs};
use crate::run::seating::factorial;
use crate::run::setup as session;
use crate::run::{BotSpec, DealGames, DealPlan, GameIds, IdNumber, LeftOut, Run, SilentBots};
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Three or four bots: each a command line (one argument, split like a shell would, no shell
    /// run) or builtin:NAME. Without any, four built-in bots play.
    #[arg(value_name = "BOT")]
    pub bots: Vec<String>,
    /// Number of players: that many built-in bots when no BOT is given (3 or 4); with BOTs given,
    /// it must match their number.
    #[arg(long)]
    pub players: Option<u32>,
    #[command(flatten)]
    pub board: crate::options::BoardArgs,
    /// Seed for random blocked squares and built-in bots (default: drawn from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Number of games; seats rotate from game to game, then take every other order.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub games: u32,
    /// Games played at once (default: the number of cores; more makes bots share cores, which
    /// is unfair to bots that think on their opponents' time).
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,
    /// Keep each of the games played at once, its bots included, on one CPU of its own: on a
    /// machine (a virtual one above all) where waking an idle CPU is slow, quick bots play
    /// several times faster. Only for bots that think on one thread and not on the others' time.
    #[arg(long)]
    pub pin_cpus: bool,
    /// Play on when a bot never answers `start` (by default the match stops: exit 4).
    #[arg(long)]
    pub keep_going: bool,
    #[command(flatten)]
    pub time: crate::options::TimeArgs,
    /// Append each finished game to this JSON Lines file.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Keep each bot's stderr in DIR/botN-NAME.log (capped at 1 MiB per bot for the match).
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,
    /// With --log-dir: also keep every protocol line, both ways, with the time, in the bot's log.
    #[arg(long, requires = "log_dir")]
    pub log_protocol: bool,
    /// Print the board after every move.
    #[arg(long)]
    pub show: bool,
    /// Write a live JSON Lines stream of game and move events on stdout (the table goes to stderr).
    #[arg(long)]
    pub events: bool,
    /// Start every bot afresh for each game instead of keeping it alive between games.
    #[arg(long)]
    pub restart: bool,
    /// The name of bot N (counted from 1) in the table, records and logs, e.g. --name 1=mybot;
    /// may repeat. Without it a bot is named after its command; a bot whose name from its
    /// command it takes is numbered (greedy-2), with a note on stderr.
    #[arg(long, value_name = "N=NAME")]
    pub name: Vec<String>,
    /// Working directory of bot N (counted from 1), e.g. --cwd 2=bots/mine; may repeat.
    #[arg(long, value_name = "N=DIR")]
    pub cwd: Vec<String>,
    /// Time a bot gets to exit after its stdin is closed, before SIGTERM and SIGKILL.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub grace_ms: u64,
    #[command(flatten)]
    pub limits: crate::limits::Limits,
}

/// A validated match.
struct MatchConfig {
    bots: Vec<BotSpec>,
    setup: Setup,
    seed: u64,
    games: u32,
    time: TimeControl,
    record: Option<PathBuf>,
    concurrency: usize,
    pin_cpus: bool,
    show: bool,
    events: bool,
    restart: bool,
    grace: Duration,
}

impl MatchArgs {
    fn config(&self) -> Result<MatchConfig> {
        // The range first: with bots given, a count off the range is no count of bots to give.
        if let Some(players) = self.players.filter(|p| !(3..=4).contains(p)) {
            return Err(fail(
                exit::USAGE,
                format!("--players {players}: this game is for 3 or 4 players"),
            ));
        }
        let specs: Vec<String> = if self.bots.is_empty() {
            bots::default_lineup(self.players.unwrap_or(4) as usize)
                .iter()
                .map(|name| format!("builtin:{name}"))
                .collect()
        } else {
            if let Some(players) = self.players.filter(|&p| p as usize != self.bots.len()) {
                return Err(fail(
                    exit::USAGE,
                    format!(
                        "--players {players} but {} bots given: give one bot per player",
                        self.bots.len()
                    ),
                ));
            }
            self.bots.clone()
        };
        if let Some(message) = explain::forgotten_quotes(
            &specs,
            &explain::options_after(&specs, "match"),
            &explain::program(),
            "match",
        ) {
            return Err(fail(exit::USAGE, message));
        }
        if !(3..=4).contains(&specs.len()) {
            return Err(fail(
                exit::USAGE,
                format!(
                    "{} bots given: a game needs 3 or 4 (quote each bot's command as one argument, \
                     e.g. \"python3 bot.py\")",
                    specs.len()
                ),
            ));
        }
        if self.games == 0 {
            return Err(fail(exit::USAGE, "--games 0: play at least one game"));
        }
        self.time.check()?;
        self.limits
            .check(|key| format!("--limit-{}", key.replace('_', "-")))
            .map_err(|e| fail(exit::USAGE, e))?;
        let seed = self.seed.unwrap_or_else(Rng::fresh_seed);
        let setup = self.board.setup(specs.len() as u32, seed);
        Rules::from_setup(&setup).map_err(|e| fail(exit::USAGE, e.to_string()))?;
        let dirs = crate::options::bot_dirs(&self.cwd, specs.len())?;
        let exe = session::this_program()?;
        let mut bots = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let mut bot = bot_spec(spec, None, &exe, dirs[i].clone())
                .map_err(|e| fail(exit::USAGE, format!("bot {}: {e}", i + 1)))?;
            bot.limits = self.limits;
            if !bot.builtin {
                if let Some(problem) = explain::program_problem(&bot.argv, dirs[i].as_deref()) {
                    return Err(fail(exit::BOT_START, format!("bot {}: {problem}", i + 1)));
                }
            }
            bots.push(bot);
        }
        // Names are how the table tells bots apart: `--name`, else from the command, made distinct.
        let given = names::parse_given(&self.name, bots.len()).map_err(|e| fail(exit::USAGE, e))?;
        let (distinct, yielded) =
            crate::run::lineup::assign_names(&bots, &given).map_err(|e| fail(exit::USAGE, e))?;
        for y in &yielded {
            crate::stderr_line!("{}", y.note(&distinct[y.bot]));
        }
        for (bot, name) in bots.iter_mut().zip(distinct) {
            bot.name = name;
        }
        if let Some(dir) = &self.log_dir {
            std::fs::create_dir_all(dir).map_err(|e| {
                fail(
                    exit::OUTPUT,
                    format!("--log-dir {}: cannot create: {e}", dir.display()),
                )
            })?;
            set_logs(&mut bots, dir, self.log_protocol)?;
        }
        // Boards printed move by move from several games at once could not be read.
        let concurrency = if self.show {
            1
        } else {
            session::concurrency(self.concurrency)?
        };
        // Seats rotate from game to game: only whole rotations seat every bot equally often.
        let players = bots.len() as u32;
        if self.games > players && self.games % players != 0 {
            crate::stderr_line!(
                "multiversi: note: {} games of {players} players: some bots sit in some seats \
                 more often than others (with a multiple of {players} games each bot sits in \
                 each seat equally often; with a multiple of {}, in every order equally often)",
                self.games,
                if players == 3 { 6 } else { 24 }
            );
        }
        Ok(MatchConfig {
            bots,
            setup,
            seed,
            games: self.games,
            time: self.time.control(),
            record: self.record.clone(),
            concurrency,
            pin_cpus: self.pin_cpus,
            show: self.show,
            events: self.events,
            restart: self.restart,
            grace: Duration::from_millis(self.grace_ms),
        })
    }
}

/// The match's games as deals of one line-up: deal d holds games d·k! to (d+1)·k! − 1, one per
/// seating, with its own random blocked squares (if asked) drawn from the seed plus d.
fn deals(config: &MatchConfig, run: &str) -> Result<Vec<DealPlan>> {
    let k = config.bots.len();
    let per_deal = factorial(k);
    let mut deals = Vec::new();
    let run_name: Arc<str> = run.into();
    for d in 0..config.games.div_ceil(per_deal) {
        let mut setup = config.setup.clone();
        setup.seed = config.seed.wrapping_add(d as u64);
        let rules = Rules::from_setup(&setup).map_err(|e| fail(exit::USAGE, e.to_string()))?;
        let first = (d * per_deal) as u64;
        let games = DealGames::seatings(first, k, |_, g| g < config.games as u64);
        deals.push(DealPlan {
            bots: (0..k).collect(),
            rules,
            seed: setup.seed,
            opening: Vec::new(),
            run: Arc::clone(&run_name),
            number: d as u64,
            ids: GameIds {
                prefix: format!("{run}-"),
                number: IdNumber::Index,
                width: 4,
            },
            games,
        });
    }
    Ok(deals)
}

/// Runs `multiversi match`.
pub fn run_match(args: &MatchArgs) -> Result<()> {
    let config = args.config()?;
    let record = match &config.record {
        Some(path) => Some(session::open_records(path, "--record")?),
        None => None,
    };
    let run_id = run_stamp();
    let run = Run {
        deals: deals(&config, &run_id)?,
        bots: config.bots,
        time: config.time,
        grace: config.grace,
        concurrency: config.concurrency,
        pin_cpus: config.pin_cpus,
        restart: config.restart,
        record,
        silent: if args.keep_going {
            SilentBots::PlayOn
        } else {
            SilentBots::Stop
        },
        // A bot whose command cannot work stops the match before it starts (`config`).
        left_out: LeftOut::default(),
        claims: None,
    };
    crate::reporters::play_reported(&run, "match", config.show, config.events, 0, None)
}
