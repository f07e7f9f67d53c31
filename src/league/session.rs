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
    };
    let end = if what == "match" {
        "match_end"
    } else {
        "league_end"
    };
    watch.event(|| json!({"type": end, "table": finished.table.json()}));
    watch.human(&finished.table.text());
    if let Some(file) = &run.record {
        crate::stderr_line!(
            "multiversi: {} game(s) recorded in {}, which now holds {} game(s)",
            finished.games,
            file.path().display(),
            file.lines()
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
        let bot = &run.bots[silent.bot];
        let tail = silent.fault.stderr_tail.trim_end();
        let tail: Vec<&str> = tail.lines().rev().take(10).collect();
        let tail: Vec<String> = tail
            .into_iter()
            .rev()
            .map(|l| format!("  | {}", crate::text::visible(l)))
            .collect();
        crate::stderr_line!(
            "multiversi: bot {} ({}) never answered start: {}{}\n  hint: check that the \
             command starts the bot (run it by hand and paste a start message from \
             protocol/PROTOCOL.md); a wrong path often starts an interpreter that exits at once",
            crate::text::visible(&bot.name),
            crate::text::visible(&bot.command.join(" ")),
            crate::text::visible(&silent.fault.detail),
            if tail.is_empty() {
                String::new()
            } else {
                format!("; the end of its stderr:\n{}", tail.join("\n"))
            }
        );
    }
    if !finished.silent.is_empty() && run.silent == runner::SilentBots::Stop {
        return Err(fail(
            exit::BOT_START,
            format!(
                "stopped after {} game(s): a bot never answered start (--keep-going plays on)",
                finished.games
            ),
        ));
    }
    if finished.skipped > 0 {
        crate::stderr_line!(
            "multiversi: {} game(s) with a bot that never answered start were left out; run \
             the {what} again to play them once it is fixed",
            finished.skipped
        );
    }
    Ok(())
}
