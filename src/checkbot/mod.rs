//! `multiversi check-bot`: before a league, a bot author learns whether the bot speaks the
//! protocol. One bot process is put through short games from constructed positions (every
//! board, 3 and 4 players, Anti-Reversi, blocked squares, only placing moves, no discs left, the
//! last empty square) and whole games from every seat against built-in `random` bots, all in one
//! process as a match would keep it; then its stdin is closed. The evidence becomes a checklist
//! (`report`): one line per check, and for a failure the exact lines sent and what came back.
//!
//! Each exchange is judged exactly as the referee judges it (same line cap, same parser, same
//! legality gate, same deadlines from the moment a message is written), because the point is to
//! predict what a match will do with the bot. Where the referee stops waiting at the limit, the
//! checker waits a little longer, only to tell a slow bot from a silent one. A bot that fails an
//! exchange is killed and started afresh for the next one, as the referee would.
//!
//! The files, one job each: `resolve` (the bot from the words typed), `positions` (the constructed
//! positions) and `whole_games` (the seats of the whole games), `ask` (one exchange, judged by the
//! connection), `checker` (the exchanges, which gather the evidence), `verdicts` (the evidence
//! judged, the checklist in order), `report` (the checklist printed); this file wires them.

mod ask;
mod checker;
mod positions;
mod report;
mod resolve;
mod verdicts;
mod whole_games;

use crate::connection::{shut_down_all, Connection};
use crate::exit::{self, fail};
use crate::process::{become_subreaper, install_signal_handlers, Guard};
use crate::protocol::TimeControl;
use crate::rng::Rng;
use crate::run::lineup;
use anyhow::Result;
use checker::Checker;
use clap::Args;
use report::{Counts, Report, Times};
use resolve::resolve_command;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct CheckBotArgs {
    /// The bot: a program and its arguments (put `--` before them), or one argument split like a
    /// BOT of `match`, or builtin:NAME.
    #[arg(
        value_name = "COMMAND",
        required = true,
        num_args = 1..,
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub command: Vec<String>,
    /// Whether COMMAND came after `--` (clap takes the `--` away; `cli` sets this from the raw
    /// command line). After `--` the words are the argument list as given, so a single word is a
    /// program, taken whole even with a space in its path, and never split like a BOT of `match`.
    #[arg(skip)]
    pub after_dashes: bool,
    /// The most one move may take, in milliseconds (as `match --move-ms`).
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub move_ms: u64,
    /// Time for the bot to answer start with ready, in milliseconds (as `match --startup-ms`).
    #[arg(long, default_value_t = 10000, value_name = "MS")]
    pub startup_ms: u64,
    /// Time the bot has to exit after its stdin is closed, in milliseconds.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub grace_ms: u64,
    /// Seed of the positions, the games and the opponents: the same seed sends the same messages.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Working directory of the bot.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Print the result as one JSON object instead of the checklist (see README).
    #[arg(long)]
    pub json: bool,
    /// The OS limits of `match` (see README, "Running unknown bots"), for the bot checked: its
    /// crashes then name the limit it ran into, as a league's records will.
    #[command(flatten)]
    pub limits: crate::limits::Limits,
}

/// Runs `multiversi check-bot`.
pub fn run(args: &CheckBotArgs) -> Result<()> {
    if args.move_ms == 0 || args.startup_ms == 0 {
        return Err(fail(
            exit::USAGE,
            "--move-ms and --startup-ms must be at least 1",
        ));
    }
    args.limits
        .check(|key| format!("--limit-{}", key.replace('_', "-")))
        .map_err(|e| fail(exit::USAGE, e))?;
    if let Some(dir) = &args.cwd {
        if !dir.is_dir() {
            return Err(fail(
                exit::BAD_INPUT,
                format!("--cwd {}: not a directory", dir.display()),
            ));
        }
    }
    let exe = std::env::current_exe()
        .map_err(|e| fail(exit::BOT_START, format!("cannot find this program: {e}")))?;
    let mut rng = Rng::new(args.seed);
    let mut bot = resolve_command(&args.command, args.after_dashes, &exe, rng.next_u64())?;
    bot.dir = args.cwd.clone();
    bot.limits = args.limits;
    let argv = bot.argv.clone();
    // The slips `match` catches before starting anything, in its words.
    if !bot.builtin {
        if let Some(problem) = crate::explain::program_problem(&bot.argv, bot.dir.as_deref()) {
            return Err(fail(exit::BOT_START, problem));
        }
    }
    install_signal_handlers();
    if let Err(e) = become_subreaper() {
        use std::io::Write;
        // A closed stderr is no reason to stop the check.
        let _ = writeln!(
            std::io::stderr(),
            "multiversi: cannot become a child subreaper ({e}): a helper that leaves the bot's \
             process group may outlive the check"
        );
    }
    // As in a match: the bot stays out of the referee's ends of the built-in bots' pipes.
    let _ = crate::process::shield_from_bots();
    let _guard = Guard::start(&exe, &["guard"])
        .map_err(|e| fail(exit::BOT_START, format!("cannot start the watchdog: {e}")))?;
    let mut players = vec![Connection::new(bot)];
    for i in 1..4 {
        let mut random =
            lineup::bot_spec("builtin:random", Some(&format!("random-{i}")), &exe, None)
                .map_err(|e| fail(exit::USAGE, e))?;
        random
            .argv
            .extend(["--seed".into(), rng.next_u64().to_string()]);
        players.push(Connection::new(random));
    }
    // A command that cannot be started at all is the person's error, not a failed check.
    players[0].ensure_started(None).map_err(|e| {
        fail(
            exit::BOT_START,
            format!("cannot start {}: {e}", args.command.join(" ")),
        )
    })?;
    if !args.limits.clean_env && std::env::var_os("PYTHONUNBUFFERED").is_some_and(|v| !v.is_empty())
    {
        // The bot inherits it: a Python bot that never flushes passes here, and times out
        // wherever it is not set (a league with --clean-env, another machine).
        crate::stderr_line!(
            "multiversi: note: PYTHONUNBUFFERED is set here, and the bot inherits it: a Python bot \
             that does not flush its output passes here but times out where it is not set; \
             --clean-env checks it without"
        );
    }
    let time = TimeControl {
        move_ms: args.move_ms,
        clock_ms: None,
        increment_ms: 0,
        startup_ms: args.startup_ms,
    };
    let grace = Duration::from_millis(args.grace_ms);
    let mut checker = Checker::new(time, grace, args.seed, players);
    let scenarios = positions::scenarios(args.seed);
    let outcome = checker.run(&scenarios);
    shut_down_all(checker.players.iter_mut().skip(1), grace);
    let Ok(checks) = outcome else {
        return Err(fail(
            exit::INTERRUPTED,
            "interrupted: the check was not finished",
        ));
    };
    let report = Report {
        command: argv,
        seed: args.seed,
        move_ms: args.move_ms,
        startup_ms: args.startup_ms,
        grace_ms: args.grace_ms,
        passed: Counts::of(&checks).all_passed(),
        counts: Counts::of(&checks),
        times: Times::of(&checker.seen.answer_ms, args.move_ms),
        checks,
    };
    let text = if args.json {
        let mut json = serde_json::to_string(&report).unwrap_or_else(|_| "{}".into());
        json.push('\n');
        json
    } else {
        report.text()
    };
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            // A reader that went away (`check-bot ... | head`) still gets the verdict's exit
            // code, quietly.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            Err(e) => return Err(fail(exit::OUTPUT, format!("cannot write the report: {e}"))),
            Ok(()) => {}
        }
    }
    // Not a check of the protocol, but what an author should hear: only this bot starts
    // processes here (the other seats are built-in bots), so these were its own.
    let left = crate::process::strays_killed();
    if left > 0 {
        crate::stderr_line!(
            "multiversi: note: the bot left {left} process(es) running outside its process group \
             (a helper started with setsid, or as a daemon), which were killed as it ended: \
             another harness may leave them running; end them when the bot exits"
        );
    }
    // A check that could not run is no pass: exit 1 unless every check ran and passed.
    if report.counts.all_passed() {
        Ok(())
    } else {
        Err(fail(exit::CHECK_FAILED, report.counts.verdict()))
    }
}
