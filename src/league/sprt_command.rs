//! `multiversi sprt NEW OLD [FIELD...]`: the one-line form of a sequential test. The command
//! line becomes a league config of `format = "sprt"` (kept in the test's directory as
//! `league.toml`, like any league's), so that the command and a config file run the same test
//! the same way: resumed by running the same command again, sharded with `--shard`, and read
//! back with `--status`.

use super::command::{parse_shard, play_config, Place};
use super::config::{Blocked, BotConfig, LeagueConfig, Players, SprtKeys};
use crate::exit::{self, fail};
use crate::rng::Rng;
use anyhow::Result;
use clap::Args;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SprtArgs {
    /// The new version (the candidate): a command line (one argument, split like a shell would)
    /// or builtin:NAME.
    #[arg(value_name = "NEW", required_unless_present = "status")]
    pub new: Option<String>,
    /// The old version (the baseline), given the same way.
    #[arg(value_name = "OLD", required_unless_present = "status")]
    pub old: Option<String>,
    /// The bots that fill the other seats, drawn at random for each pair (default:
    /// builtin:greedy and builtin:random).
    #[arg(value_name = "FIELD")]
    pub field: Vec<String>,
    // A value starting with '-' (a negative number, "-inf") is read as the value and refused
    // with its range if it is out of it, not taken for an option.
    /// The null hypothesis: NEW is better than OLD by at most this many Elo.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub elo0: f64,
    /// The alternative: NEW is better by at least this many Elo (the standings' scale).
    #[arg(long, default_value_t = 10.0, allow_hyphen_values = true)]
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds (a false "better").
    #[arg(long, default_value_t = 0.05, allow_hyphen_values = true)]
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds (a missed improvement).
    #[arg(long, default_value_t = 0.05, allow_hyphen_values = true)]
    pub beta: f64,
    /// Stop undecided after this many games.
    #[arg(long, default_value_t = 20_000, value_name = "N")]
    pub max_games: u64,
    /// Players per game: 3, 4, or both (3,4: the sizes take turns).
    #[arg(long, value_delimiter = ',', default_value = "4", value_name = "N")]
    pub players: Vec<u32>,
    #[command(flatten)]
    pub board: crate::options::BoardArgs,
    /// Random legal moves the referee plays before the bots take over, a new opening for each
    /// pair (both games of a pair start from it).
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub opening: u32,
    /// Seed of the schedule (fillers, seats, openings); default: drawn from the clock, or the
    /// one the test's directory was started with.
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub time: crate::options::TimeArgs,
    /// Time a bot gets to exit after its stdin is closed, before SIGTERM and SIGKILL.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub grace_ms: u64,
    /// The name of bot N (1 is NEW, 2 is OLD, 3 on the field), e.g. --name 1=v2; may repeat.
    #[arg(long, value_name = "N=NAME")]
    pub name: Vec<String>,
    /// Working directory of bot N (numbered as for --name), e.g. --cwd 1=bots/v2; may repeat.
    #[arg(long, value_name = "N=DIR")]
    pub cwd: Vec<String>,
    /// The test's directory: its config copy, records, sprt.json, sprt.html and standings
    /// (default: sprt-NEW-vs-OLD). Run the same command again to resume.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Games played at once (default: the number of cores).
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,
    /// Keep each of the games played at once, its bots included, on one CPU of its own: on a
    /// machine (a virtual one above all) where waking an idle CPU is slow, quick bots play
    /// several times faster. Only for bots that think on one thread and not on the others' time.
    #[arg(long)]
    pub pin_cpus: bool,
    /// Play only the pairs of shard I of N (I from 1 to N) into DIR/games-I-of-N.jsonl; the
    /// shards read each other's records and all stop once the merged test has decided.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Print what would be played and exit.
    #[arg(long)]
    pub dry_run: bool,
    /// Serve the test live on ADDR (HOST:PORT; port 0: any free one), read-only; see README,
    /// "Watching a league live".
    #[arg(long, value_name = "ADDR")]
    pub web: Option<String>,
    /// Print the merged state of the test in DIR (every shard's records) and exit with the
    /// verdict's code; starts no bot.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["new", "old", "shard", "dry_run"])]
    pub status: Option<PathBuf>,
    /// With --status: print the result as JSON (as in sprt.json).
    #[arg(long, requires = "status")]
    pub json: bool,
    #[command(flatten)]
    pub limits: crate::limits::Limits,
}

/// A name as a league config takes it: letters, digits, '-', '_' and '.'.
fn config_name(name: &str) -> String {
    let name: String = name
        .chars()
        .map(|c| match c {
            '+' => 'p',
            c if c.is_ascii_alphanumeric() || "-_.".contains(c) => c,
            _ => '_',
        })
        .take(64)
        .collect();
    if name.is_empty() {
        "bot".into()
    } else {
        name
    }
}

impl SprtArgs {
    /// The test as a league config of `format = "sprt"`, checked, and its directory.
    fn config(&self) -> Result<(LeagueConfig, PathBuf)> {
        let (Some(new), Some(old)) = (&self.new, &self.old) else {
            return Err(fail(exit::USAGE, "give NEW and OLD (or --status DIR)"));
        };
        let field: Vec<String> = if self.field.is_empty() {
            vec!["builtin:greedy".into(), "builtin:random".into()]
        } else {
            self.field.clone()
        };
        // The bots as given (without the default field), for a corrected command line.
        let mut given = vec![new.clone(), old.clone()];
        given.extend(self.field.iter().cloned());
        if let Some(message) = crate::explain::forgotten_quotes(
            &given,
            &crate::explain::options_after(&given, "sprt"),
            &crate::explain::program(),
            "sprt",
        ) {
            return Err(fail(exit::USAGE, message));
        }
        let mut words = vec![new.clone(), old.clone()];
        words.extend(field);
        let exe = crate::run::setup::this_program()?;
        let mut specs = Vec::new();
        for (i, word) in words.iter().enumerate() {
            let spec = crate::run::lineup::bot_spec(word, None, &exe, None)
                .map_err(|e| fail(exit::USAGE, format!("bot {}: {e}", i + 1)))?;
            specs.push(spec);
        }
        let given =
            crate::names::parse_given(&self.name, specs.len()).map_err(|e| fail(exit::USAGE, e))?;
        // A name from a command is made fit for the config; a name the person chose is refused
        // rather than changed behind their back.
        for (i, name) in given.iter().enumerate() {
            if let Some(name) = name {
                if config_name(name) != *name {
                    return Err(fail(
                        exit::USAGE,
                        format!(
                            "--name {}={name}: a test's bot names use 1 to 64 letters, digits, \
                             '-', '_' or '.'",
                            i + 1
                        ),
                    ));
                }
            }
        }
        let (names, yielded) =
            crate::run::lineup::assign_names(&specs, &given).map_err(|e| fail(exit::USAGE, e))?;
        let mut names: Vec<String> = names.iter().map(|n| config_name(n)).collect();
        for i in 0..names.len() {
            let mut n = 2;
            let base = names[i].clone();
            while names[..i].contains(&names[i]) {
                names[i] = format!("{base}-{n}");
                n += 1;
            }
        }
        for y in &yielded {
            crate::stderr_line!("{}", y.note(&names[y.bot]));
        }
        let dirs = crate::options::bot_dirs(&self.cwd, words.len())?;
        let mut bots: Vec<BotConfig> = words
            .iter()
            .zip(&names)
            .zip(dirs)
            .map(|((command, name), cwd)| BotConfig {
                name: name.clone(),
                command: command.clone(),
                cwd,
                env: BTreeMap::new(),
                remote: None,
            })
            .collect();
        // A 4-player table needs two field bots: one given plays in both seats, under two names.
        let largest = self.players.iter().copied().max().unwrap_or(4) as usize;
        let given_field = bots.len() - 2;
        if given_field >= 1 {
            let mut copy = 2;
            while bots.len() < largest {
                let first = bots[2].clone();
                bots.push(BotConfig {
                    name: format!("{}-{copy}", first.name),
                    ..first
                });
                copy += 1;
            }
        }
        let test_name = config_name(&format!("{}-vs-{}", names[0], names[1]));
        let out = self
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from(format!("sprt-{test_name}")));
        // Resuming without --seed takes the seed the directory was started with.
        let seed = match self.seed {
            Some(seed) => seed,
            None => std::fs::read_to_string(out.join("league.toml"))
                .ok()
                .and_then(|text| LeagueConfig::parse_copy(&text).ok())
                .map_or_else(Rng::fresh_seed, |old| old.seed),
        };
        let blocked = if self.board.blocked_random > 0 {
            Blocked::Random(self.board.blocked_random)
        } else if !self.board.blocked.trim().is_empty() {
            Blocked::List(
                self.board
                    .blocked
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect(),
            )
        } else {
            Blocked::Word("none".into())
        };
        if !self.board.blocked.trim().is_empty() && self.board.blocked_random > 0 {
            return Err(fail(
                exit::USAGE,
                "--blocked and --blocked-random: a test takes one of them",
            ));
        }
        let players = match self.players.as_slice() {
            [one] => Players::One(*one),
            several => Players::Several(several.to_vec()),
        };
        let config = LeagueConfig {
            name: test_name,
            seed,
            format: "sprt".into(),
            candidates: Vec::new(),
            players,
            boards: vec![self.board.board.clone()],
            anti: self.board.anti,
            blocked,
            rounds: 1,
            opening: self.opening,
            sample: None,
            move_ms: self.time.move_ms,
            clock_ms: self.time.clock_ms,
            increment_ms: self.time.increment_ms,
            startup_ms: self.time.startup_ms,
            grace_ms: self.grace_ms,
            concurrency: None,
            out: None,
            standings_every: 0,
            sprt: Some(SprtKeys {
                candidate: names[0].clone(),
                baseline: names[1].clone(),
                elo0: self.elo0,
                elo1: self.elo1,
                alpha: self.alpha,
                beta: self.beta,
                max_games: self.max_games,
            }),
            limits: self.limits,
            bots,
        };
        // The same checks as a config file's, in the command line's words where they differ.
        let text = config.to_toml();
        let checked = LeagueConfig::parse(&text).map_err(|e| {
            let mut e = e
                .replace("[sprt]: ", "")
                .replace("[sprt] ", "")
                .replace("alpha + beta ", "--alpha + --beta ");
            for key in [
                "max_games",
                "elo0",
                "elo1",
                "alpha",
                "beta",
                "move_ms",
                "clock_ms",
                "increment_ms",
                "startup_ms",
                "grace_ms",
                "players",
            ] {
                e = e.replace(
                    &format!("{key} = "),
                    &format!("--{} ", key.replace('_', "-")),
                );
            }
            fail(exit::USAGE, e)
        })?;
        Ok((checked, out))
    }
}

/// Runs `multiversi sprt`.
pub fn run(args: &SprtArgs) -> Result<()> {
    if let Some(dir) = &args.status {
        return super::sprt::status(dir, args.json);
    }
    let (config, out) = args.config()?;
    let shard = args.shard.as_deref().map(parse_shard).transpose()?;
    let place = Place {
        out: &out,
        shard,
        concurrency: args.concurrency,
        dry_run: args.dry_run,
        listen: None,
        remote_wait: 0.0,
        web: args.web.clone(),
        pin_cpus: args.pin_cpus,
    };
    play_config(&config, &place)
}
