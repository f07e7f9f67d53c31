//! How a run's end becomes what the user reads last and the documented exit code: the games
//! recorded, a write that failed, an interruption, bots that never answered `start`.

use super::plan::{BotSpec, Run, SilentBots};
use super::workers::Summary;
use crate::exit::{self, fail};
use anyhow::Result;

/// The summary and the exit code of a finished run (the table was printed by its sink).
pub fn conclude(run: &Run, finished: &Summary, what: &str) -> Result<()> {
    // A match that recorded nothing leaves no empty record file behind.
    let removed = what == "match"
        && finished.games == 0
        && run.record.as_ref().is_some_and(|f| f.remove_if_unused());
    if let Some(file) = run.record.as_ref().filter(|_| !removed) {
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
    notes(run, finished);
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
    // A match stops with one message: which bot never answered, why, and that it stopped.
    let one_message = run.silent == SilentBots::Stop && finished.silent.len() == 1;
    if !one_message {
        for silent in &finished.silent {
            crate::stderr_line!("{}", never_answered(&run.bots[silent.bot], &silent.fault));
        }
    }
    if finished.silent.is_empty() && run.left_out.bots.is_empty() {
        return Ok(());
    }
    let silent_names = bot_names(run, finished.silent.iter().map(|s| s.bot));
    match run.silent {
        SilentBots::PlayOn => Ok(()),
        SilentBots::Stop => {
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
            // Only a match can play on without a bot; a sequential test needs both of its own.
            let play_on = if what == "match" {
                "--keep-going plays on and records such games)"
            } else {
                "fix it and run again)"
            };
            let stopped =
                format!("stopped: {silent_names} never answered start{recorded}{play_on}");
            match finished.silent.first().filter(|_| one_message) {
                Some(silent) => {
                    let why = never_answered(&run.bots[silent.bot], &silent.fault);
                    let why = why.strip_prefix("multiversi: ").unwrap_or(&why);
                    Err(fail(exit::BOT_START, format!("{stopped}\n  {why}")))
                }
                None => Err(fail(exit::BOT_START, stopped)),
            }
        }
        SilentBots::LeaveOut => {
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

/// The notes at a run's end on what bots did that is no fault but costs them, and that nothing
/// else says (only a log, if any, has it), one per bot and kind:
/// - a bot that ended by itself between games and was started again: a bot meant to play game
///   after game in one process (PROTOCOL.md) that exits after each one pays its startup each game;
/// - a bot that wrote to its stderr faster than the referee reads it: it waited on its stderr,
///   which made its moves slower, unless a move was late for it (its fault then said so).
fn notes(run: &Run, finished: &Summary) {
    let restarted = |n: u64| {
        format!(
            "ended between games and was started again for {n} game(s): a bot is kept for the \
             next game, so after end it should go on reading stdin until it closes (PROTOCOL.md, \
             \"The sequence\"); each restart costs its startup"
        )
    };
    let flooded = |n: u64| {
        format!(
            "wrote to its stderr faster than the referee reads it ({} MiB a second) in {n} \
             game(s), and waited on it: its move times include those waits; write less there",
            crate::process::STDERR_RATE_MIB
        )
    };
    note_each(run, &finished.restarted, restarted);
    note_each(run, &finished.stderr_held_back, flooded);
}

/// One note for each bot with a count above 0 in `counts`, in `words`.
fn note_each(run: &Run, counts: &[u64], words: impl Fn(u64) -> String) {
    for (bot, &n) in counts.iter().enumerate().filter(|(_, &n)| n > 0) {
        crate::stderr_line!(
            "multiversi: note: bot {} {}",
            crate::text::visible(&run.bots[bot].name),
            words(n)
        );
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
fn never_answered(bot: &BotSpec, fault: &crate::record::FaultRecord) -> String {
    let tail = fault.stderr_tail.trim_end();
    let tail: Vec<&str> = tail.lines().rev().take(10).collect();
    let tail: Vec<String> = tail
        .into_iter()
        .rev()
        .map(|l| format!("  | {}", crate::text::visible(l)))
        .collect();
    // A bot still running at the startup limit was not a wrong path: it is slow to start or
    // its `ready` sits in an unflushed buffer.
    let hint = if fault.detail.contains("remote bot") && fault.detail.contains("is not connected") {
        "hint: a remote bot plays only while its owner runs multiversi connect HOST:PORT \
         --token-file FILE -- COMMAND on their machine (README, \"Bots over the network\"); \
         running the league again plays the games it missed"
    } else if fault.kind == crate::record::FaultKind::Timeout {
        "hint: it was running but sent no ready line in time: does it flush stdout after each \
         line? Python buffers stdout when it is a pipe: print(..., flush=True), or run it with \
         python3 -u. A bot that needs long to start (a JVM, loading a model) needs a longer startup \
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
