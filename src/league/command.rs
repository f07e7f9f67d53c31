//! `multiversi league CONFIG.toml`: the config becomes a schedule, the league directory says
//! which of its games are finished, and the runner plays the rest.
//!
//! The league directory holds `league.toml` (the config the league was started with, written
//! atomically) and the records: `games.jsonl`, or `games-I-of-N.jsonl` for shard I of N, so that
//! shards may share one directory. Every record file in it counts when deciding what is
//! finished, so a game is never played twice, whichever shard or run played it. Bots' logs go to
//! `logs/`, or `logs/shard-I-of-N/` for a shard, for the same reason.

use super::config::{ConfigError, LeagueConfig, EXAMPLE};
use super::schedule::{self, Deal, Shape};
use crate::exit::{self, fail};
use crate::files::write_atomically;
use crate::protocol::TimeControl;
use crate::record::{OwnGames, Schedule, Scheduled};
use crate::referee::random_opening;
use crate::rules::Rules;
use crate::run::lineup::{bot_spec, set_logs};
use crate::run::records::{self, Recorded};
use crate::run::seating::seating;
use crate::run::setup as session;
use crate::run::{BotSpec, DealGames, DealPlan, LeftOut, Run, SilentBots};
use anyhow::Result;
use clap::Args;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct LeagueArgs {
    /// The league's config (TOML; `--example` prints a commented one).
    #[arg(value_name = "CONFIG", required_unless_present = "example")]
    pub config: Option<PathBuf>,
    /// Print an example config and exit.
    #[arg(long)]
    pub example: bool,
    /// Print the schedule's size and an estimate of the time it takes, and exit.
    #[arg(long)]
    pub dry_run: bool,
    /// The league directory (default: the config's `out`, else league-NAME).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Games played at once (default: the config's `concurrency`, else the number of cores).
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,
    /// Keep each of the games played at once, its bots included, on one CPU of its own: on a
    /// machine (a virtual one above all) where waking an idle CPU is slow, quick bots play
    /// several times faster. Only for bots that think on one thread and not on the others' time.
    #[arg(long)]
    pub pin_cpus: bool,
    /// Play only the I-th of N disjoint slices of the schedule (I from 1 to N), recorded in
    /// DIR/games-I-of-N.jsonl: one task of a cluster job array.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Accept the config's remote bots over TCP on ADDR (HOST:PORT, e.g. 0.0.0.0:7700); see
    /// README, "Bots over the network".
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// How long a game waits for a remote bot that is not connected, in seconds, counted from
    /// the first game that misses it.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub remote_wait: f64,
    /// Serve the league live on ADDR (HOST:PORT, e.g. 127.0.0.1:8080; port 0: any free one): the
    /// standings, the games and every running game's board, read-only; see README, "Watching a
    /// league live".
    #[arg(long, value_name = "ADDR")]
    pub web: Option<String>,
}

/// Parses `I/N` with 1 ≤ I ≤ N.
pub fn parse_shard(text: &str) -> Result<(u32, u32)> {
    let bad = || {
        fail(
            exit::USAGE,
            format!("--shard {text}: expected I/N with 1 <= I <= N, e.g. --shard 2/8"),
        )
    };
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (u32, u32) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if i == 0 || n == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The record file of a shard (or of the whole league).
pub fn records_name(shard: Option<(u32, u32)>) -> String {
    match shard {
        Some((i, n)) => format!("games-{i}-of-{n}.jsonl"),
        None => "games.jsonl".into(),
    }
}

/// Where the bots' logs of a shard (or of the whole league) go. Shards running at once give their
/// bots the same names, so each shard has a directory of its own: a log holds one run's lines,
/// never two shards' interleaved.
pub fn logs_dir(out: &Path, shard: Option<(u32, u32)>) -> PathBuf {
    let logs = out.join("logs");
    match shard {
        Some((i, n)) => logs.join(format!("shard-{i}-of-{n}")),
        None => logs,
    }
}

/// Where and how a league is played, as the command line says.
pub struct Place<'a> {
    pub out: &'a Path,
    pub shard: Option<(u32, u32)>,
    pub concurrency: Option<usize>,
    pub dry_run: bool,
    /// Where remote bots connect (`--listen`), and how long a game waits for one.
    pub listen: Option<String>,
    pub remote_wait: f64,
    /// Where the live view is served (`--web`).
    pub web: Option<String>,
    /// Each worker and its bots on one CPU (`--pin-cpus`).
    pub pin_cpus: bool,
}

/// Takes an exclusive lock on a league's record file, held until the returned handle is
/// dropped (the end of the run, or the process's death: the kernel releases it).
pub fn lock_records(out: &Path, records: &Path) -> Result<std::fs::File> {
    std::fs::create_dir_all(out).map_err(|e| {
        fail(
            exit::OUTPUT,
            format!("{}: cannot create the league directory: {e}", out.display()),
        )
    })?;
    let file = std::fs::File::options()
        .create(true)
        .append(true)
        .open(records)
        .map_err(|e| {
            fail(
                exit::OUTPUT,
                format!("{}: cannot open: {e}", records.display()),
            )
        })?;
    // SAFETY: flock on a descriptor this function owns; no memory is shared.
    let rc = unsafe {
        libc::flock(
            std::os::fd::AsRawFd::as_raw_fd(&file),
            libc::LOCK_EX | libc::LOCK_NB,
        )
    };
    if rc != 0 {
        let e = std::io::Error::last_os_error();
        return Err(fail(
            exit::OUTPUT,
            if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                format!(
                    "{}: another multiversi run (a league or a test) is writing to it; two runs \
                     on one record file would play the same games twice. Wait for it to end, or \
                     stop it",
                    records.display()
                )
            } else {
                format!("{}: cannot lock: {e}", records.display())
            },
        ));
    }
    Ok(file)
}

/// Every record file in a league directory: `games.jsonl` and `games-I-of-N.jsonl`.
pub fn record_files(out: &Path) -> Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(out) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(fail(
                exit::BAD_INPUT,
                format!("{}: cannot read the league directory: {e}", out.display()),
            ))
        }
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("games") && n.ends_with(".jsonl"))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// The first entry of a directory without `league.toml` that a league or a test did not leave
/// there, quoted; None if there is none (a missing or empty directory, or one where a run
/// stopped, or another shard is, after taking its locks and before writing `league.toml`: its
/// lock files, empty record files and the temporary file `league.toml` is written to). A league
/// writes its standings and a test `sprt.json` into its directory, so one started in another
/// program's directory (a `standings --out`, say) would overwrite them.
fn foreign_entry(out: &Path) -> Option<String> {
    let entries = std::fs::read_dir(out).ok()?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let lock = name == "run.lock"
                || name
                    .strip_prefix("run-of-")
                    .and_then(|n| n.strip_suffix(".lock"))
                    .is_some_and(|n| n.parse::<u32>().is_ok());
            // `league.toml` being written whole by a shard starting beside this one.
            let copy_written = name.starts_with(".league.toml.tmp-");
            let empty_records = name.starts_with("games")
                && name.ends_with(".jsonl")
                && e.metadata().is_ok_and(|m| m.is_file() && m.len() == 0);
            !(lock || copy_written || empty_records)
        })
        .map(|e| format!("'{}'", e.file_name().to_string_lossy()))
        .collect();
    names.sort();
    let first = names.first()?.clone();
    Some(match names.len() {
        1 => first,
        n => format!("{first} and {} other entries", n - 1),
    })
}

/// The names of the bots with a game of league `run` in the directory's record files; None when
/// they cannot be read (then every bot counts as having games).
fn bots_with_games(out: &Path, run: &str) -> Option<HashSet<String>> {
    let mut finished = Recorded::default();
    for file in record_files(out).ok()? {
        // Unchecked: a bot named in any game of the run's name is taken to have games, so that
        // a changed command is refused rather than missed.
        records::finished(&file, run, None, &mut finished).ok()?;
    }
    Some(finished.bots)
}

/// A league's schedule as its records are checked against it (`Schedule`): the game at an
/// index is seating `index` mod 24 of the deal numbered `index` / 24, with that deal's seed and
/// its bots in that seating's order.
/// Its games are numbered from 0 in the order of their indices (`ordinal`): the deals by number,
/// each deal's seatings in order.
struct LeagueSchedule<'a> {
    config: &'a LeagueConfig,
    /// Each deal by its number, with the ordinal of its first game.
    deals: HashMap<u64, (&'a Deal, u64)>,
    games: u64,
}

impl<'a> LeagueSchedule<'a> {
    fn new(config: &'a LeagueConfig, all: &'a [Deal]) -> LeagueSchedule<'a> {
        let mut by_number: Vec<&Deal> = all.iter().collect();
        by_number.sort_by_key(|d| d.number);
        let mut deals = HashMap::with_capacity(all.len());
        let mut games = 0;
        for d in by_number {
            deals.insert(d.number, (d, games));
            games += d.seatings() as u64;
        }
        LeagueSchedule {
            config,
            deals,
            games,
        }
    }

    /// The deal of the game at `index`, its seating, and the game's ordinal.
    fn find(&self, index: u64) -> Option<(&'a Deal, u32, u64)> {
        let &(deal, first) = self.deals.get(&(index / schedule::SEATING_SPAN))?;
        let s = (index % schedule::SEATING_SPAN) as u32;
        (s < deal.seatings()).then_some((deal, s, first + s as u64))
    }
}

impl Schedule for LeagueSchedule<'_> {
    fn games(&self) -> Option<u64> {
        Some(self.games)
    }

    fn ordinal(&self, index: u64) -> Option<u64> {
        self.find(index).map(|(_, _, ordinal)| ordinal)
    }

    fn at(&self, index: u64) -> Option<Scheduled> {
        let (deal, s, _) = self.find(index)?;
        let names = seating(deal.bots.len(), s)
            .into_iter()
            .map(|i| self.config.bots[deal.bots[i]].name.clone())
            .collect();
        Some(Scheduled {
            deal: deal.number,
            seating: s,
            seed: Some(deal.seed),
            names,
        })
    }
}

/// Keeps the config a league directory was started with (`league.toml`), written whole.
pub fn write_copy(out: &Path, config: &LeagueConfig) -> Result<()> {
    std::fs::create_dir_all(out).map_err(|e| {
        fail(
            exit::OUTPUT,
            format!("{}: cannot create the league directory: {e}", out.display()),
        )
    })?;
    let copy = out.join("league.toml");
    let text = format!(
        "# The config this league directory was started with (kept by multiversi league).\n{}",
        config.to_toml()
    );
    if std::fs::read_to_string(&copy).ok().as_deref() != Some(text.as_str()) {
        write_atomically(&copy, |out| out.write_all(text.as_bytes()))?;
    }
    Ok(())
}

/// The league's shape for the schedule.
fn shape(config: &LeagueConfig) -> Shape {
    Shape {
        bots: config.bots.len(),
        candidates: config.candidate_places(),
        sizes: config.sizes(),
        boards: config.boards.len(),
        rounds: config.rounds,
        sample: config.sample,
        seed: config.seed,
    }
}

/// A deal's games still to play, with their rules and opening. `run` is the league's name,
/// shared by every deal.
fn deal_plan(
    config: &LeagueConfig,
    deal: &Deal,
    finished: &Recorded,
    run: &Arc<str>,
) -> Result<DealPlan> {
    let k = deal.bots.len();
    let setup = config.setup(&config.boards[deal.board], k, deal.seed);
    let rules = Rules::from_setup(&setup).map_err(|e| fail(exit::USAGE, e.to_string()))?;
    let opening = random_opening(
        &rules,
        config.opening,
        crate::run::seating::mix(deal.seed, u64::MAX),
    );
    let games = DealGames::seatings(deal.game_index(0), k, |s, index| {
        debug_assert_eq!(index, deal.game_index(s));
        !finished.indices.contains(&index)
    });
    Ok(DealPlan {
        bots: deal.bots.clone(),
        rules,
        seed: deal.seed,
        opening,
        run: Arc::clone(run),
        number: deal.number,
        ids: deal.game_ids(&config.name, &config.boards[deal.board]),
        games,
    })
}

/// Runs `multiversi league`.
pub fn run_league(args: &LeagueArgs) -> Result<()> {
    if args.example {
        return print_stdout(EXAMPLE);
    }
    let Some(path) = &args.config else {
        return Err(fail(exit::USAGE, "give a config file (or --example)"));
    };
    let config = LeagueConfig::load(path).map_err(|e| match e {
        ConfigError::Unreadable(m) => fail(exit::BAD_INPUT, m),
        ConfigError::Invalid(m) => fail(exit::USAGE, m),
    })?;
    let shard = args.shard.as_deref().map(parse_shard).transpose()?;
    let out = args
        .out
        .clone()
        .or_else(|| config.out.clone())
        .unwrap_or_else(|| PathBuf::from(format!("league-{}", config.name)));
    let place = Place {
        out: &out,
        shard,
        concurrency: args.concurrency,
        dry_run: args.dry_run,
        listen: args.listen.clone(),
        remote_wait: args.remote_wait,
        web: args.web.clone(),
        pin_cpus: args.pin_cpus,
    };
    play_config(&config, &place)
}

/// Plays a checked config in its directory: refuses a directory started with another config,
/// then plays what is not yet recorded (a league's schedule, or a sequential test).
pub fn play_config(config: &LeagueConfig, place: &Place) -> Result<()> {
    let (out, shard) = (place.out.to_path_buf(), place.shard);
    check_addresses(place)?;
    if out.exists() && !out.is_dir() {
        return Err(fail(
            exit::USAGE,
            format!(
                "{} is a file, not a directory: give --out a directory (new, or one this {} \
                 was started in)",
                out.display(),
                if config.sprt.is_some() {
                    "test"
                } else {
                    "league"
                }
            ),
        ));
    }
    let copy = out.join("league.toml");
    match std::fs::read_to_string(&copy) {
        Ok(text) => {
            let old = LeagueConfig::parse_copy(&text)
                .map_err(|e| fail(exit::BAD_INPUT, format!("{}: damaged: {e}", copy.display())))?;
            // A league's directory is no test's, and a test's no league's: either would
            // overwrite the other's files, and the long list of every key that differs would
            // hide that.
            let kind = |c: &LeagueConfig| {
                if c.format == "sprt" {
                    "a sequential test"
                } else {
                    "a league"
                }
            };
            if kind(&old) != kind(config) {
                return Err(fail(
                    exit::USAGE,
                    format!(
                        "{} holds {} ({}), not {}: give --out a new or empty directory",
                        out.display(),
                        kind(&old),
                        old.name,
                        kind(config)
                    ),
                ));
            }
            // A test of other bots is another test, whatever else differs.
            if let (Some(was), Some(now)) = (&old.sprt, &config.sprt) {
                if (&was.candidate, &was.baseline) != (&now.candidate, &now.baseline) {
                    return Err(fail(
                        exit::USAGE,
                        format!(
                            "{} holds the test of {} against {}, not of {} against {}: give \
                             --out another directory (by default, one is named after the bots)",
                            out.display(),
                            was.candidate,
                            was.baseline,
                            now.candidate,
                            now.baseline
                        ),
                    ));
                }
            }
            // The records are read only if a bot's command, cwd or env changed.
            let played = std::cell::OnceCell::new();
            let has_games = |name: &str| {
                played
                    .get_or_init(|| bots_with_games(&out, &config.name))
                    .as_ref()
                    .map_or(true, |bots: &HashSet<String>| bots.contains(name))
            };
            if let Some(changes) = config.change_from(&old, has_games) {
                let (what, keeps) = if config.sprt.is_some() {
                    (
                        "a sequential test",
                        "Only a changed cap (max_games, --max-games) keeps its games",
                    )
                } else {
                    (
                        "a league",
                        "Only adding bots at the end and adding rounds keep its games",
                    )
                };
                return Err(fail(
                    exit::USAGE,
                    format!(
                        "{} holds {what} started with another config: {changes}. {keeps}; undo \
                         the change or use another --out",
                        out.display()
                    ),
                ));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(other) = foreign_entry(&out) {
                // A shard started beside this one may have written it since.
                if copy.exists() {
                    return play_config(config, place);
                }
                let what = if config.sprt.is_some() {
                    "a sequential test"
                } else {
                    "a league"
                };
                return Err(fail(
                    exit::USAGE,
                    format!(
                        "{} is not the directory of {what} (it has no league.toml) and is not \
                         empty: it holds {other}, which {what} started there could overwrite. \
                         Give --out a new or empty directory",
                        out.display()
                    ),
                ));
            }
        }
        // A file where --out needs a directory (`--out afile/sub`): the directory cannot be
        // made, an output failure, as it is for `standings --out`.
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => {
            return Err(fail(
                exit::OUTPUT,
                format!("cannot create {}: {e}", out.display()),
            ))
        }
        Err(e) => {
            return Err(fail(
                exit::BAD_INPUT,
                format!("{}: cannot read: {e}", copy.display()),
            ))
        }
    }

    let remote_bots: Vec<usize> = (0..config.bots.len())
        .filter(|&i| config.bots[i].remote.is_some())
        .collect();
    match (&place.listen, remote_bots.first()) {
        (None, Some(&first)) if !place.dry_run => {
            return Err(fail(
                exit::USAGE,
                format!(
                    "bot {} is remote: give --listen ADDR, the address its client connects to",
                    config.bots[first].name
                ),
            ))
        }
        (Some(address), None) => {
            return Err(fail(
                exit::USAGE,
                format!(
                    "--listen {address}: no bot in the config is remote (remote = \"sha256:…\")"
                ),
            ))
        }
        _ => {}
    }
    if !(place.remote_wait.is_finite() && (0.0..=86400.0).contains(&place.remote_wait)) {
        return Err(fail(
            exit::USAGE,
            format!(
                "--remote-wait {}: give a number of seconds from 0 to 86400",
                place.remote_wait
            ),
        ));
    }

    let exe = session::this_program()?;
    let mut bots: Vec<BotSpec> = Vec::new();
    let mut left_out: Vec<usize> = Vec::new();
    for (i, b) in config.bots.iter().enumerate() {
        if b.remote.is_some() {
            bots.push(crate::run::lineup::remote_spec(&b.name));
            continue;
        }
        let mut spec = bot_spec(&b.command, Some(&b.name), &exe, b.cwd.clone())
            .map_err(|e| fail(exit::USAGE, format!("bot {}: command: {e}", b.name)))?;
        spec.env = b.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        spec.limits = config.limits;
        if !spec.builtin {
            if let Some(problem) = crate::explain::program_problem(&spec.argv, b.cwd.as_deref()) {
                // A sequential test needs every bot: it stops instead, and says so.
                let left = if config.format == "sprt" {
                    ""
                } else {
                    "\n  (left out of this run)"
                };
                crate::stderr_line!("multiversi: bot {}: {problem}{left}", b.name);
                left_out.push(i);
            }
        }
        bots.push(spec);
    }

    if config.format == "sprt" {
        if let Some(&first) = remote_bots.first() {
            return Err(fail(
                exit::USAGE,
                format!(
                    "bot {} is remote: a sequential test plays only bots it starts itself",
                    config.bots[first].name
                ),
            ));
        }
        return super::sprt::run(config, place, bots, left_out);
    }
    let all = shape(config)
        .deals()
        .map_err(|e| fail(exit::USAGE, format!("the league's config: {e}")))?;
    let total_games: u64 = all.iter().map(|d| d.seatings() as u64).sum();
    // A shard's own deals; the whole schedule's (not a copy of them) when not sharded.
    let sharded = shard.map(|(i, n)| schedule::shard(all.clone(), i, n));
    let mine: &[Deal] = sharded.as_deref().unwrap_or(&all);
    // One run at a time per record file: two runs on one directory (or a shard started twice,
    // as a requeued array task can be) would each play the games the other is playing.
    let _lock = if place.dry_run {
        None
    } else {
        Some((
            super::run_lock::lock(&out, shard)?,
            lock_records(&out, &out.join(records_name(shard)))?,
        ))
    };
    // A record of the league's name that is not the schedule's game at its index (another
    // league of the same name, with another seed or other bots, wrote it) does not make that
    // game finished: it is said once a file, and the game is played.
    let own = LeagueSchedule::new(config, &all);
    let mut finished = Recorded::default();
    for file in record_files(&out)? {
        let ignored =
            records::finished(&file, &config.name, Some(&own), &mut finished).map_err(|e| {
                fail(
                    exit::BAD_INPUT,
                    format!("{}: cannot read: {e}", file.display()),
                )
            })?;
        if let Some(warning) = ignored.warning(&file, &config.name, "this league's") {
            crate::stderr_line!("{warning}");
        }
    }
    let mut deals = Vec::new();
    let mut skipped = 0u64;
    let run_name: Arc<str> = config.name.as_str().into();
    for deal in mine {
        let plan = deal_plan(config, deal, &finished, &run_name)?;
        if deal.bots.iter().any(|b| left_out.contains(b)) {
            skipped += plan.games.len() as u64;
            continue;
        }
        if !plan.games.is_empty() {
            deals.push(plan);
        }
    }
    let to_play: u64 = deals.iter().map(|d| d.games.len() as u64).sum();
    let concurrency = session::concurrency(place.concurrency.or(config.concurrency))?;
    let at_once = AtOnce {
        concurrency,
        deals: deals.len(),
        shared: deals
            .iter()
            .filter(|d| d.games.len() >= 2 && !d.bots.iter().any(|&b| bots[b].builtin))
            .count(),
    };
    let time = TimeControl {
        move_ms: config.move_ms,
        clock_ms: config.clock_ms,
        increment_ms: config.increment_ms,
        startup_ms: config.startup_ms,
    };

    if place.dry_run {
        return print_stdout(&dry_run(
            config,
            &all,
            mine,
            total_games,
            to_play,
            &finished,
            at_once,
            shard,
        ));
    }

    write_copy(&out, config)?;
    let found = super::bot_files::check(&out, &bots, &finished.bots, to_play > 0)?;
    let mut said: Vec<String> = found.changed.into_iter().map(|(_, p)| p).collect();
    if !said.is_empty() {
        said = vec![format!(
            "{} since the first games in {} were played",
            said.join(", "),
            out.display()
        )];
    }
    said.extend(found.mixed_before.iter().map(|bot| {
        format!("bot {bot} played some of its games with another version of its files")
    }));
    if !said.is_empty() {
        crate::stderr_line!(
            "multiversi: warning: {}: the standings count every version of a bot as one bot \
             (remove {} to take the files as they are now and stop this warning)",
            said.join("; "),
            out.join(super::bot_files::FILE_NAME).display()
        );
    }
    let logs = logs_dir(&out, shard);
    std::fs::create_dir_all(&logs).map_err(|e| {
        fail(
            exit::OUTPUT,
            format!("{}: cannot create: {e}", logs.display()),
        )
    })?;
    set_logs(&mut bots, &logs, false)?;
    let mut lobby = match &place.listen {
        Some(address) => Some(listen(
            address,
            config,
            &remote_bots,
            concurrency,
            Duration::from_secs_f64(place.remote_wait),
            &out,
        )?),
        None => None,
    };
    if let Some(lobby) = &lobby {
        for (place, &i) in remote_bots.iter().enumerate() {
            bots[i].remote = Some(crate::remote::RemoteRef {
                remotes: lobby.remotes(),
                bot: place,
            });
        }
    }
    let record_path = out.join(records_name(shard));
    let record = session::open_records(&record_path, "league records")?;
    crate::stderr_line!(
        "multiversi: league {}: {to_play} game(s) to play{} ({} finished before), {}{}; records \
         in {}",
        config.name,
        match shard {
            Some((i, n)) => format!(" in shard {i}/{n}"),
            None => String::new(),
        },
        finished.indices.len(),
        at_once.words(),
        if place.pin_cpus {
            ", each on a CPU of its own"
        } else {
            ""
        },
        record_path.display()
    );
    let run = Run {
        bots,
        deals,
        time,
        grace: Duration::from_millis(config.grace_ms),
        concurrency,
        pin_cpus: place.pin_cpus,
        restart: false,
        record: Some(record),
        silent: SilentBots::LeaveOut,
        left_out: LeftOut {
            bots: left_out,
            games: skipped,
        },
        claims: None,
    };
    if skipped > 0 {
        crate::stderr_line!(
            "multiversi: {skipped} game(s) with a bot left out are not played this time"
        );
    }
    let web = match &place.web {
        Some(address) => Some(watch(
            address,
            format!("league {}", config.name),
            &run,
            &out,
            &record_path,
        )?),
        None => None,
    };
    let played =
        crate::reporters::play_reported(&run, "league", false, false, config.standings_every, web);
    if let Some(lobby) = lobby.as_mut() {
        // Goodbye only when the league is over: a run that stops early (Ctrl-C, a write error)
        // is resumed by running it again, and its clients, still trying, play on then.
        match &played {
            Ok(()) => lobby.close(),
            Err(_) => lobby.stop(),
        }
    }
    // The plan and the finished set are not needed for the standings, which read the records
    // and check them against the schedule (its deals, far fewer than the games): let them go
    // first, so that the run's peak memory is not their sum.
    drop((run, sharded, finished));
    crate::heap::trim();
    write_standings(
        &out,
        OwnGames {
            run: &config.name,
            schedule: &own,
        },
        "this league's",
    );
    played
}

/// Refuses an address given to `--web` or `--listen` that cannot be listened on (taken, not
/// this machine's, not an address) before anything is written into the directory: bound once
/// here and let go at once; the run binds it again when it starts serving.
fn check_addresses(place: &Place) -> Result<()> {
    if place.dry_run {
        return Ok(());
    }
    for (option, address) in [("--web", &place.web), ("--listen", &place.listen)] {
        if let Some(address) = address {
            std::net::TcpListener::bind(address.as_str()).map_err(|e| {
                fail(
                    exit::USAGE,
                    format!(
                        "{option} {address}: cannot listen: {e}{}",
                        if e.kind() == std::io::ErrorKind::InvalidInput {
                            " (give HOST:PORT, such as 127.0.0.1:8080)"
                        } else {
                            ""
                        }
                    ),
                )
            })?;
        }
    }
    Ok(())
}

/// How many games a run plays at once: its concurrency. Workers with no deal left to start
/// share the games of a deal in play (`crate::run`), except a deal with a built-in bot, whose
/// games one worker plays one after another: with fewer deals left than workers, all of them
/// with a built-in bot, fewer games are played at once.
#[derive(Clone, Copy)]
struct AtOnce {
    concurrency: usize,
    deals: usize,
    /// The deals whose games several workers may share.
    shared: usize,
}

impl AtOnce {
    fn games(self) -> usize {
        if self.shared > 0 {
            self.concurrency
        } else {
            self.concurrency.min(self.deals).max(1)
        }
    }

    /// "4 at a time", or why fewer.
    fn words(self) -> String {
        if self.deals > 0 && self.deals < self.concurrency && self.shared == 0 {
            format!(
                "{} at a time (concurrency {}, but the games of a deal with a built-in bot are \
                 played one after another, and only {} deal(s) are left to play)",
                self.games(),
                self.concurrency,
                self.deals
            )
        } else {
            format!("{} at a time", self.concurrency)
        }
    }
}

/// Opens the lobby for the league's remote bots on `address`, logging to `remote.log` in the
/// league directory, and says where it listens; an address beyond this machine gets a warning,
/// since the connections are not encrypted.
fn listen(
    address: &str,
    config: &LeagueConfig,
    remote_bots: &[usize],
    concurrency: usize,
    wait: Duration,
    out: &Path,
) -> Result<crate::remote::Lobby> {
    let mut hashes = Vec::new();
    for &i in remote_bots {
        let bot = &config.bots[i];
        let hash = bot
            .remote
            .as_deref()
            .map(crate::remote::TokenHash::parse)
            .transpose()
            .map_err(|e| fail(exit::USAGE, format!("bot {}: remote: {e}", bot.name)))?;
        if let Some(hash) = hash {
            hashes.push((bot.name.clone(), hash));
        }
    }
    let log = out.join("remote.log");
    let lobby = crate::remote::Lobby::listen(
        address,
        crate::remote::LobbyConfig {
            bots: hashes,
            sessions: concurrency,
            wait,
        },
        Some(&log),
    )
    .map_err(|e| {
        fail(
            exit::USAGE,
            format!("--listen {address}: cannot listen: {e}"),
        )
    })?;
    let bound = lobby.address();
    let names: Vec<&str> = remote_bots
        .iter()
        .map(|&i| config.bots[i].name.as_str())
        .collect();
    crate::stderr_line!(
        "multiversi: listening on {bound} for remote bot(s) {}; connections are logged in {}",
        names.join(", "),
        log.display()
    );
    if !crate::remote::is_loopback(&bound) {
        crate::stderr_line!(
            "multiversi: warning: {bound} can be reached from other machines, and the \
             connections are not encrypted: the tokens and the games cross the network in the \
             clear. Put a TLS-terminating proxy in front (README, \"Bots over the network\")"
        );
    }
    Ok(lobby)
}

/// Starts the live view of a run on `address` (`--web`) and says where; an address beyond this
/// machine gets a warning, since anyone who can reach it can watch.
pub fn watch(
    address: &str,
    title: String,
    run: &Run,
    out: &Path,
    record_path: &Path,
) -> Result<crate::reporters::web::Web> {
    let mut records = record_files(out)?;
    if !records.iter().any(|r| r == record_path) {
        records.push(record_path.to_path_buf());
    }
    let setup = crate::reporters::web::Setup {
        title,
        bots: run.bots.iter().map(|b| b.name.clone()).collect(),
        games: run.total_games(),
        records,
    };
    let web = crate::reporters::web::Web::start(address, setup, Default::default())
        .map_err(|e| fail(exit::USAGE, format!("--web {address}: cannot listen: {e}")))?;
    let bound = web.address();
    crate::stderr_line!("multiversi: watch it live at http://{bound}/");
    if !crate::remote::is_loopback(&bound) {
        crate::stderr_line!(
            "multiversi: warning: http://{bound}/ can be reached from other machines: anyone who \
             reaches it can watch the games and read their records, in the clear. Serve on \
             loopback behind a TLS proxy to choose who sees it (README, \"Watching a league \
             live\")"
        );
    }
    Ok(web)
}

/// The standings of the run's games in the league directory (all shards), written beside the
/// records (standings.json, .csv, .html and the games' viewer) and printed; also after an
/// interruption, since finished games are kept. Only the records `own` takes for the run's games
/// count, as its resume counts them: another run's records in the directory (of the same name
/// and another seed, or copied in) are left out with a warning (`whose`: "this league's"). A
/// failure here is a warning: the games are safe on disk and `multiversi standings` can compute
/// the same again.
pub fn write_standings(out: &Path, own: OwnGames, whose: &str) {
    let files = match record_files(out) {
        Ok(files) if !files.is_empty() => files,
        _ => return,
    };
    let options = crate::standings::Options::default();
    let output = crate::standings::command::Output {
        dir: out,
        viewer: true,
    };
    let only = crate::standings::command::Only { own, whose };
    match crate::standings::command::from_files(&files, &options, false, Some(output), Some(only)) {
        Ok(standings) => {
            // A closed stdout is no reason to say more: the files are written.
            let _ = print_stdout(&format!(
                "\nStandings of all {} game(s) in {}:\n{}",
                standings.games,
                out.display(),
                crate::standings::report::terminal(&standings, false)
            ));
        }
        Err(e) => crate::stderr_line!("multiversi: warning: no standings written: {e:#}"),
    }
}

/// Writes to stdout; a reader that went away ends the command quietly (`exit::stdout_error`).
pub fn print_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(exit::stdout_error)
}

/// What `--dry-run` prints: the schedule's size, each bot's share, and the time it may take.
#[allow(clippy::too_many_arguments)]
fn dry_run(
    config: &LeagueConfig,
    all: &[Deal],
    mine: &[Deal],
    total_games: u64,
    to_play: u64,
    finished: &Recorded,
    at_once: AtOnce,
    shard: Option<(u32, u32)>,
) -> String {
    let mut out = String::new();
    let sizes: Vec<String> = config.sizes().iter().map(|k| k.to_string()).collect();
    out += &format!(
        "league {}: {} bots, {} players, {} board(s), {} round(s), {}{}\n",
        config.name,
        config.bots.len(),
        sizes.join(" and "),
        config.boards.len(),
        config.rounds,
        config.format,
        match config.sample {
            Some(n) => format!(", {n} sampled deal(s) per round and size (balanced)"),
            None => String::new(),
        }
    );
    out += &format!(
        "{} deals, each in all its seatings (3! = 6, 4! = 24): {total_games} games\n",
        all.len()
    );
    if let Some((i, n)) = shard {
        let games: u64 = mine.iter().map(|d| d.seatings() as u64).sum();
        out += &format!("shard {i}/{n}: {} deals, {games} games\n", mine.len());
    }
    out += &format!(
        "finished: {}; to play now: {to_play}\n",
        finished.indices.len()
    );
    for (i, bot) in config.bots.iter().enumerate() {
        let games: u64 = all
            .iter()
            .filter(|d| d.bots.contains(&i))
            .map(|d| d.seatings() as u64)
            .sum();
        out += &format!("  {:<20} {games} games\n", bot.name);
    }
    let per_game_ms = if finished.indices.is_empty() {
        // At worst every move takes its whole limit, plus the start handshake.
        let side = config
            .boards
            .iter()
            .filter_map(|b| b.parse::<crate::rules::BoardKind>().ok())
            .map(|b| b.squares().count() as u64)
            .max()
            .unwrap_or(64);
        let moves = side.saturating_sub(4 + config.opening as u64);
        let move_ms = config
            .clock_ms
            .map_or(config.move_ms, |c| config.move_ms.min(c / moves.max(1)));
        moves * move_ms
    } else {
        finished.total_ms / finished.indices.len() as u64
    };
    let secs = to_play as f64 * per_game_ms as f64 / 1000.0 / at_once.games() as f64;
    out += &format!(
        "estimated time: {}, {} ({})\n",
        crate::reporters::progress::format_duration(secs),
        at_once.words(),
        if finished.indices.is_empty() {
            "at most: every move taking its whole time limit".to_string()
        } else {
            format!(
                "from the {} finished games' mean duration",
                finished.indices.len()
            )
        }
    );
    out
}
