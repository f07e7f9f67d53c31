//! What `match` and `league` do around the runner: the process-wide safety nets (signal
//! handlers, subreaper, watchdog), the results table, and how the run's end becomes an exit code.

use super::records::RecordFile;
use super::runner::{self, Finished, Run};
use crate::exit::{self, fail};
use crate::process::{become_subreaper, install_signal_handlers, Guard};
use anyhow::Result;
use serde_json::json;
use std::path::{Path, PathBuf};

/// This program, which built-in bots and the watchdog run as.
pub fn this_program() -> Result<PathBuf> {
    std::env::current_exe()
        .map_err(|e| fail(exit::BOT_START, format!("cannot find this program: {e}")))
}

/// The number of cores, or 1 when it cannot be told.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Checks `--concurrency` (default: the number of cores) and warns above the number of cores.
pub fn concurrency(asked: Option<usize>) -> Result<usize> {
    let cores = cores();
    let n = asked.unwrap_or(cores);
    if n == 0 {
        return Err(fail(
            exit::USAGE,
            "--concurrency 0: play at least one game at a time",
        ));
    }
    if n > 256 {
        return Err(fail(
            exit::USAGE,
            format!("--concurrency {n}: at most 256 games at a time"),
        ));
    }
    if n > cores {
        crate::stderr_line!(
            "multiversi: warning: --concurrency {n} is more than the {cores} cores: bots will \
             share cores, and a bot's time then depends on what runs beside it"
        );
    }
    Ok(n)
}

/// Opens a record file for appending; `what` names the option or file for the error.
pub fn open_records(path: &Path, what: &str) -> Result<RecordFile> {
    RecordFile::open(path).map_err(|e| {
        fail(
            exit::OUTPUT,
            format!("{what} {}: cannot open: {e}", path.display()),
        )
    })
}

/// Plays the run with every safety net up, prints the table and the summary, and turns the end
/// of the run into the documented exit code. `what` is `match` or `league`.
pub fn play(run: &Run, what: &str) -> Result<()> {
    install_signal_handlers();
    // Before any bot starts: helpers that leave their bot's group then stay within reach.
    if let Err(e) = become_subreaper() {
        crate::stderr_line!(
            "multiversi: cannot become a child subreaper ({e}): a helper that leaves its bot's \
             process group may outlive the {what}"
        );
    }
    let exe = this_program()?;
    let guard = Guard::start(&exe, &["guard"])
        .map_err(|e| fail(exit::BOT_START, format!("cannot start the watchdog: {e}")))?;
    let finished = runner::run(run);
    drop(guard);
    report(run, &finished, what)
}

/// The table, the summary and the exit code of a finished run.
pub fn report(run: &Run, finished: &Finished, what: &str) -> Result<()> {
    let watch = runner::Watch {
        show: run.show,
        events: run.events,
        seated: Vec::new(),
        colour: false,
        told: Default::default(),
    };
    let end = if what == "match" {
        "match_end"
    } else {
        "league_end"
    };
    watch.event(|| json!({"type": end, "table": finished.table.json()}));
    watch.human(&finished.table.text());
    if let Some(file) = &run.record {
        let damaged = match file.damaged() {
            0 => String::new(),
            n => format!(" and {n} damaged line(s), which replay and standings skip"),
        };
        crate::stderr_line!(
            "multiversi: {} game(s) recorded in {}, which now holds {} game(s){damaged}",
            finished.games,
            file.path().display(),
            file.games()
        );
    }
    if let Some(message) = &finished.write_error {
        return Err(fail(exit::OUTPUT, message.clone()));
    }
    if finished.interrupted {
        return Err(fail(
            exit::INTERRUPTED,
            format!(
                "interrupted after {} finished game(s), which are kept",
                finished.games
            ),
        ));
    }
    for silent in &finished.silent {
        crate::stderr_line!("{}", never_answered(&run.bots[silent.bot], &silent.fault));
    }
    if finished.silent.is_empty() && run.left_out.bots.is_empty() {
        return Ok(());
    }
    let silent_names = bot_names(run, finished.silent.iter().map(|s| s.bot));
    match run.silent {
        runner::SilentBots::PlayOn => Ok(()),
        runner::SilentBots::Stop => {
            let its = if finished.silent.len() == 1 {
                "its"
            } else {
                "their"
            };
            let k = finished.not_recorded;
            let recorded = match finished.games {
                0 => format!(
                    ", so no game was recorded (the {k} game(s) played without {its} answer are \
                     left out; "
                ),
                n => format!(
                    "; the {n} game(s) before were recorded, not the {k} played without {its} \
                     answer ("
                ),
            };
            Err(fail(
                exit::BOT_START,
                format!(
                    "stopped: {silent_names} never answered start{recorded}--keep-going plays on \
                     and records such games)"
                ),
            ))
        }
        runner::SilentBots::LeaveOut => {
            let bots: Vec<usize> = run
                .left_out
                .bots
                .iter()
                .copied()
                .chain(finished.silent.iter().map(|s| s.bot))
                .collect();
            let games = run.left_out.games + finished.not_recorded + finished.skipped;
            let it = if bots.len() == 1 { "it" } else { "them" };
            Err(fail(
                exit::BOT_START,
                format!(
                    "left out {}: the {games} game(s) with {it} are not recorded, every other \
                     game was; fix {it} and run the {what} again to play those games",
                    bot_names(run, bots.into_iter())
                ),
            ))
        }
    }
}

/// `bot a`, `bots a and b`, `bots a, b and c`.
fn bot_names(run: &Run, bots: impl Iterator<Item = usize>) -> String {
    let names: Vec<String> = bots
        .map(|b| crate::text::visible(&run.bots[b].name).into_owned())
        .collect();
    match names.as_slice() {
        [one] => format!("bot {one}"),
        [rest @ .., last] => format!("bots {} and {last}", rest.join(", ")),
        [] => "no bot".into(),
    }
}

/// What a bot that never answered `start` did (its fault and the end of its stderr), and the
/// likely cause.
fn never_answered(bot: &runner::BotSpec, fault: &crate::record::FaultRecord) -> String {
    let tail = fault.stderr_tail.trim_end();
    let tail: Vec<&str> = tail.lines().rev().take(10).collect();
    let tail: Vec<String> = tail
        .into_iter()
        .rev()
        .map(|l| format!("  | {}", crate::text::visible(l)))
        .collect();
    // A bot still running at the startup limit was not a wrong path: it is slow to start or
    // its `ready` sits in an unflushed buffer.
    let hint = if fault.kind == crate::record::FaultKind::Timeout {
        "hint: it was running but sent no ready line in time: does it flush stdout after each \
         line? A bot that needs long to start (a JVM, loading a model) needs a longer startup \
         limit (--startup-ms; startup_ms in a league config)"
    } else {
        "hint: check that the command starts the bot (run it by hand and paste a start message \
         from protocol/PROTOCOL.md); a wrong path often starts an interpreter that exits at once"
    };
    format!(
        "multiversi: bot {} ({}) never answered start: {}{}\n  {hint}",
        crate::text::visible(&bot.name),
        crate::text::visible(&bot.command.join(" ")),
        crate::text::visible(&fault.detail),
        if tail.is_empty() {
            String::new()
        } else {
            format!("; the end of its stderr:\n{}", tail.join("\n"))
        }
    )
}
