//! `multiversi match`: starts the bots, plays the games with seats rotating from game to game,
//! keeps bots alive between games (restarting one only after it faulted, or every game with
//! `--restart`), writes each game's record the moment it ends, and prints the results table.

use crate::bots;
use crate::exit::{self, fail};
use crate::explain;
use crate::process::{
    become_subreaper, install_signal_handlers, interrupted, split_command, sweep_strays, BotLog,
    Guard,
};
use crate::protocol::TimeControl;
use crate::record::{FaultRecord, GameRecord, SeatRecord};
use crate::referee::{play_game, GameSetup, Observer, Player};
use crate::rng::Rng;
use crate::rules::{Outcome, Position, Rules, Setup};
use anyhow::Result;
use clap::Args;
use serde_json::json;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
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
    /// Number of games; seats rotate from game to game.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub games: u32,
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
    /// Append each finished game to this JSON Lines file.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Keep each bot's stderr in DIR/botN-NAME.log (capped at 1 MiB per bot).
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
    /// Working directory of bot N (counted from 1), e.g. --cwd 2=bots/mine; may repeat.
    #[arg(long, value_name = "N=DIR")]
    pub cwd: Vec<String>,
    /// Time a bot gets to exit after its stdin is closed, before SIGTERM and SIGKILL.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub grace_ms: u64,
    #[command(flatten)]
    pub limits: crate::limits::LimitArgs,
}

/// A validated match.
struct MatchConfig {
    /// This program, which built-in bots and the watchdog run as.
    exe: PathBuf,
    players: Vec<Player>,
    setup: Setup,
    seed: u64,
    games: u32,
    time: TimeControl,
    record: Option<PathBuf>,
    show: bool,
    events: bool,
    restart: bool,
    grace: Duration,
}

/// Per-bot totals for the results table.
#[derive(Default, Clone)]
struct Tally {
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    discs: u64,
    faults: u32,
    moves: u64,
    total_ms: f64,
    max_ms: f64,
}

/// A friendly name for a bot command: `builtin:greedy` is `greedy`; `python3 bots/mine.py` is
/// `mine`; `./target/release/best --depth 3` is `best`. A sandbox prefix is skipped:
/// `bwrap … -- python3 mine.py` is `mine` too.
fn bot_name(argv: &[String]) -> String {
    const SANDBOXES: &[&str] = &["bwrap", "firejail", "nsjail", "prlimit", "systemd-run"];
    let program = argv
        .first()
        .map_or("", |p| p.rsplit('/').next().unwrap_or(p));
    if SANDBOXES.contains(&program) {
        if let Some(end) = argv.iter().position(|a| a == "--") {
            if end + 1 < argv.len() {
                return bot_name(&argv[end + 1..]);
            }
        }
    }
    const INTERPRETERS: &[&str] = &[
        "python", "python3", "node", "nodejs", "java", "ruby", "perl", "sh", "bash", "deno", "bun",
        "pypy3", "env", "php", "lua",
    ];
    let stem = |s: &str| {
        let base = s.rsplit('/').next().unwrap_or(s);
        match base.rsplit_once('.') {
            Some((stem, _)) if !stem.is_empty() => stem.to_string(),
            _ => base.to_string(),
        }
    };
    let first = argv.first().map(String::as_str).unwrap_or("bot");
    let base = first.rsplit('/').next().unwrap_or(first);
    if (INTERPRETERS.contains(&base) || base.starts_with("python"))
        && !argv.iter().any(|a| a == "-c" || a == "-e")
    {
        if let Some(script) = argv[1..].iter().find(|a| !a.starts_with('-')) {
            return stem(script);
        }
    }
    stem(first)
}

impl MatchArgs {
    fn config(&self) -> Result<MatchConfig> {
        let specs: Vec<String> = if self.bots.is_empty() {
            let players = self.players.unwrap_or(4);
            if !(3..=4).contains(&players) {
                return Err(fail(
                    exit::USAGE,
                    format!("--players {players}: this game is for 3 or 4 players"),
                ));
            }
            bots::default_lineup(players as usize)
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
        if let Some(message) = explain::forgotten_quotes(&specs, &explain::options_after(&specs)) {
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
        if self.move_ms == 0 {
            return Err(fail(exit::USAGE, "--move-ms 0: a move needs some time"));
        }
        if self.clock_ms == Some(0) {
            return Err(fail(exit::USAGE, "--clock-ms 0: a clock needs some time"));
        }
        self.limits
            .limits()
            .check(|key| format!("--limit-{}", key.replace('_', "-")))
            .map_err(|e| fail(exit::USAGE, e))?;
        let seed = self.seed.unwrap_or_else(Rng::fresh_seed);
        let setup = self.board.setup(specs.len() as u32, seed);
        Rules::from_setup(&setup).map_err(|e| fail(exit::USAGE, e.to_string()))?;
        let mut dirs: Vec<Option<PathBuf>> = vec![None; specs.len()];
        for item in &self.cwd {
            let bad = || {
                fail(
                    exit::USAGE,
                    format!(
                        "--cwd {item}: expected N=DIR with N a bot number from 1 to {}",
                        specs.len()
                    ),
                )
            };
            let (n, dir) = item.split_once('=').ok_or_else(bad)?;
            let n: usize = n.trim().parse().map_err(|_| bad())?;
            if n == 0 || n > specs.len() {
                return Err(bad());
            }
            let dir = PathBuf::from(dir);
            if !dir.is_dir() {
                return Err(fail(
                    exit::BAD_INPUT,
                    format!("--cwd {item}: {} is not a directory", dir.display()),
                ));
            }
            dirs[n - 1] = Some(dir);
        }
        let exe = std::env::current_exe()
            .map_err(|e| fail(exit::BOT_START, format!("cannot find this program: {e}")))?;
        let mut players = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let (name, command, argv) = if let Some(name) = spec.strip_prefix("builtin:") {
                if !bots::NAMES.contains(&name) {
                    return Err(fail(
                        exit::USAGE,
                        format!(
                            "bot {}: no built-in bot named '{name}' (choose from {})",
                            i + 1,
                            bots::NAMES.join(", ")
                        ),
                    ));
                }
                let bot_seed = Rng::new(seed ^ (i as u64 + 1)).next_u64();
                let argv = vec![
                    exe.to_string_lossy().into_owned(),
                    "bot".into(),
                    name.into(),
                    "--seed".into(),
                    bot_seed.to_string(),
                ];
                (name.to_string(), vec![spec.clone()], argv)
            } else {
                let argv = split_command(spec)
                    .map_err(|e| fail(exit::USAGE, format!("bot {}: {e}", i + 1)))?;
                if let Some(problem) = explain::program_problem(&argv, dirs[i].as_deref()) {
                    return Err(fail(exit::BOT_START, format!("bot {}: {problem}", i + 1)));
                }
                (bot_name(&argv), argv.clone(), argv)
            };
            players.push(Player {
                name,
                command,
                argv,
                dir: dirs[i].clone(),
                log: None,
                process: None,
                limits: self.limits.limits(),
            });
        }
        // Names are how the table tells bots apart: the second `random` is `random-2`.
        let given: Vec<String> = players.iter().map(|p| p.name.clone()).collect();
        for (i, p) in players.iter_mut().enumerate() {
            let before = given[..i].iter().filter(|&n| *n == given[i]).count();
            if before > 0 {
                p.name = format!("{}-{}", given[i], before + 1);
            }
        }
        if let Some(dir) = &self.log_dir {
            std::fs::create_dir_all(dir).map_err(|e| {
                fail(
                    exit::OUTPUT,
                    format!("--log-dir {}: cannot create: {e}", dir.display()),
                )
            })?;
            for (i, p) in players.iter_mut().enumerate() {
                let safe: String = p
                    .name
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect();
                let path = dir.join(format!("bot{}-{safe}.log", i + 1));
                p.log = Some(BotLog::open(&path, self.log_protocol).map_err(|e| {
                    fail(
                        exit::OUTPUT,
                        format!("--log-dir: cannot open {}: {e}", path.display()),
                    )
                })?);
            }
        }
        Ok(MatchConfig {
            exe,
            players,
            setup,
            seed,
            games: self.games,
            time: TimeControl {
                move_ms: self.move_ms,
                clock_ms: self.clock_ms,
                increment_ms: self.increment_ms,
                startup_ms: self.startup_ms,
            },
            record: self.record.clone(),
            show: self.show,
            events: self.events,
            restart: self.restart,
            grace: Duration::from_millis(self.grace_ms),
        })
    }
}

/// Prints boards and events as the game runs.
struct Watch {
    show: bool,
    events: bool,
    /// Per seat of the game being played, the bot's name and log file, for fault messages.
    seated: Vec<(String, Option<PathBuf>)>,
}

impl Watch {
    /// Events go to stdout as one JSON object per line, flushed at once for live dashboards.
    /// The event is built only when events are on: this runs on every move.
    fn event(&self, value: impl FnOnce() -> serde_json::Value) {
        if self.events {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", value()).and_then(|()| out.flush());
        }
    }

    /// Human output goes to stdout, or to stderr when stdout carries events.
    fn human(&self, text: &str) {
        if self.events {
            eprint!("{text}");
        } else {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
        }
    }
}

impl Observer for Watch {
    fn game_started(&mut self, game: &str, seats: &[SeatRecord], position: &Position) {
        self.event(|| {
            json!({"type": "game_start", "game": game, "rules": position.rules(),
            "seats": seats, "rows": position.rows()})
        });
        if self.show {
            let names: Vec<String> = seats
                .iter()
                .map(|s| format!("{} {}", s.colour, s.name))
                .collect();
            self.human(&format!("game {game}: {}\n{position}\n", names.join(", ")));
        }
    }

    fn moved(&mut self, game: &str, m: &crate::record::MoveRecord, position: &Position) {
        self.event(|| {
            json!({"type": "move", "game": game, "ply": m.ply, "seat": m.seat,
            "square": m.square, "kind": m.kind, "flips": m.flips, "ms": m.ms,
            "rows": position.rows(), "scores": position.scores()})
        });
        if self.show {
            self.human(&format!(
                "ply {} {} {} ({} flipped, {:.1} ms)\n{position}\n",
                m.ply,
                crate::rules::Colour::of_seat(m.seat),
                m.square,
                m.flips.len(),
                m.ms
            ));
        }
    }

    fn faulted(&mut self, game: &str, f: &FaultRecord, ms: Option<f64>) {
        self.event(|| json!({"type": "fault", "game": game, "fault": f, "ms": ms}));
        // Faults are always worth a message on stderr: they are why a bot lost.
        let (name, log) = self.seated.get(f.seat).cloned().unwrap_or_default();
        let bot = explain::FaultedBot {
            name: &name,
            log: log.as_deref(),
        };
        eprint!("{}", explain::fault_message(game, &bot, f));
    }
}

/// Runs `multiversi match`.
pub fn run_match(args: &MatchArgs) -> Result<()> {
    let mut config = args.config()?;
    install_signal_handlers();
    let mut record_file = match &config.record {
        Some(path) => Some(
            File::options()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| {
                    fail(
                        exit::OUTPUT,
                        format!("--record {}: cannot open: {e}", path.display()),
                    )
                })?,
        ),
        None => None,
    };
    // Before any bot starts: helpers that leave their bot's group then stay within reach.
    if let Err(e) = become_subreaper() {
        eprintln!(
            "multiversi: cannot become a child subreaper ({e}): a helper that leaves its bot's \
             process group may outlive the match"
        );
    }
    let _guard = Guard::start(&config.exe, &["guard"])
        .map_err(|e| fail(exit::BOT_START, format!("cannot start the watchdog: {e}")))?;
    // Every bot must start before any game begins: a wrong command is an error, not a fault.
    for (i, p) in config.players.iter_mut().enumerate() {
        p.ensure_started().map_err(|e| {
            fail(
                exit::BOT_START,
                format!("bot {} ({}): cannot start: {e}", i + 1, p.command.join(" ")),
            )
        })?;
    }
    let mut watch = Watch {
        show: config.show,
        events: config.events,
        seated: Vec::new(),
    };
    let n = config.players.len();
    let mut tallies = vec![Tally::default(); n];
    let stamp = crate::referee::rfc3339(std::time::SystemTime::now())
        .replace(['-', ':'], "")
        .replace('T', "-")
        .trim_end_matches('Z')
        .to_string();
    for g in 0..config.games {
        if interrupted() {
            break;
        }
        if config.restart && g > 0 {
            for p in &mut config.players {
                if let Some(process) = p.process.take() {
                    process.shutdown(config.grace);
                }
            }
        }
        let mut setup = config.setup.clone();
        setup.seed = config.seed.wrapping_add(g as u64);
        let rules = Rules::from_setup(&setup).map_err(|e| fail(exit::USAGE, e.to_string()))?;
        let order: Vec<usize> = (0..n).map(|seat| (seat + g as usize) % n).collect();
        let game = GameSetup {
            game: format!("{stamp}-{:04}", g + 1),
            rules,
            seed: Some(setup.seed),
            time: config.time,
        };
        watch.seated = order
            .iter()
            .map(|&i| {
                (
                    config.players[i].name.clone(),
                    config.players[i]
                        .log
                        .as_ref()
                        .map(|l| l.path().to_path_buf()),
                )
            })
            .collect();
        let Ok(record) = play_game(&game, &mut config.players, &order, &mut watch) else {
            break;
        };
        if let Some(file) = record_file.as_mut() {
            write_record(file, &record).map_err(|e| {
                fail(
                    exit::OUTPUT,
                    format!(
                        "--record {}: cannot write game {}: {e}",
                        config
                            .record
                            .as_ref()
                            .map_or(String::new(), |p| p.display().to_string()),
                        record.game
                    ),
                )
            })?;
        }
        tally(&mut tallies, &order, &record);
        watch.event(|| {
            json!({"type": "game_end", "game": record.game, "result": record.result,
            "scores": record.scores, "ranking": record.ranking, "rows": record.final_rows,
            "faults": record.faults.len()})
        });
        if config.show {
            watch.human(&format!(
                "game {}: {} (scores {:?})\n\n",
                record.game,
                describe_result(&record),
                record.scores
            ));
        }
    }
    if interrupted() {
        // The signal handler has killed every group; dropping the players reaps them.
        config.players.clear();
        sweep_strays(None);
        let played: u32 = tallies.iter().map(|t| t.games).sum::<u32>() / n as u32;
        return Err(fail(
            exit::INTERRUPTED,
            format!("interrupted after {played} finished game(s), which are kept"),
        ));
    }
    for p in &mut config.players {
        if let Some(process) = p.process.as_mut() {
            process.close_stdin();
        }
    }
    for p in &mut config.players {
        if let Some(process) = p.process.take() {
            process.shutdown(config.grace);
        }
    }
    // Each shutdown swept after its bot; this catches anything left over from the whole match.
    sweep_strays(None);
    let names: Vec<&str> = config.players.iter().map(|p| p.name.as_str()).collect();
    watch.event(|| json!({"type": "match_end", "table": table_json(&names, &tallies)}));
    watch.human(&table(&names, &tallies));
    Ok(())
}

fn describe_result(record: &GameRecord) -> String {
    match record.result {
        Outcome::Win { winner } => format!(
            "{} ({}) wins",
            record.seats[winner].name, record.seats[winner].colour
        ),
        Outcome::Draw => "draw".into(),
    }
}

/// Appends one game as one line and forces it to disk, so a later crash cannot lose it.
fn write_record(file: &mut File, record: &GameRecord) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(record)?;
    line.push(b'\n');
    file.write_all(&line)?;
    file.flush()?;
    file.sync_data()
}

fn tally(tallies: &mut [Tally], order: &[usize], record: &GameRecord) {
    for (seat, &i) in order.iter().enumerate() {
        let t = &mut tallies[i];
        t.games += 1;
        let faulted = record.faults.iter().any(|f| f.seat == seat);
        match record.result {
            Outcome::Win { winner } if winner == seat => t.wins += 1,
            Outcome::Draw if !faulted => t.draws += 1,
            _ => t.losses += 1,
        }
        t.discs += record.scores[seat] as u64;
        t.faults += faulted as u32;
        for m in record.moves.iter().filter(|m| m.seat == seat) {
            t.moves += 1;
            t.total_ms += m.ms;
            t.max_ms = t.max_ms.max(m.ms);
        }
    }
}

fn table_json(names: &[&str], tallies: &[Tally]) -> serde_json::Value {
    names
        .iter()
        .zip(tallies)
        .map(|(name, t)| {
            json!({"bot": name, "games": t.games, "wins": t.wins, "draws": t.draws,
                "losses": t.losses, "discs": t.discs, "faults": t.faults,
                "mean_ms": t.total_ms / t.moves.max(1) as f64, "max_ms": t.max_ms})
        })
        .collect()
}

/// The results table: per bot its wins, draws, losses, discs per game, faults, and its mean and
/// slowest move time.
fn table(names: &[&str], tallies: &[Tally]) -> String {
    let width = names.iter().map(|n| n.len()).max().unwrap_or(3).max(3);
    let mut out = format!(
        "{:<width$}  {:>5}  {:>5}  {:>5}  {:>6}  {:>10}  {:>6}  {:>8}  {:>8}\n",
        "bot", "games", "wins", "draws", "losses", "discs/game", "faults", "mean ms", "max ms"
    );
    for (name, t) in names.iter().zip(tallies) {
        out += &format!(
            "{:<width$}  {:>5}  {:>5}  {:>5}  {:>6}  {:>10.1}  {:>6}  {:>8.2}  {:>8.2}\n",
            name,
            t.games,
            t.wins,
            t.draws,
            t.losses,
            t.discs as f64 / t.games.max(1) as f64,
            t.faults,
            t.total_ms / t.moves.max(1) as f64,
            t.max_ms
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_commands() {
        let v = |s: &str| split_command(s).unwrap();
        assert_eq!(bot_name(&v("python3 bots/mine.py --fast")), "mine");
        assert_eq!(bot_name(&v("./target/release/best --depth 3")), "best");
        assert_eq!(bot_name(&v("node starter/js/bot.js")), "bot");
        assert_eq!(bot_name(&v("java -jar x.jar")), "x");
        assert_eq!(bot_name(&v("sh -c 'exec ./x'")), "sh");
        assert_eq!(
            bot_name(&v(
                "bwrap --ro-bind / / --unshare-all -- python3 bots/mine.py"
            )),
            "mine"
        );
        assert_eq!(bot_name(&v("/usr/bin/bwrap --ro-bind / /")), "bwrap");
    }
}
