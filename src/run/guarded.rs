//! A run with every process-wide safety net up: signal handlers (Ctrl-C kills every bot's group
//! and ends the run), the child subreaper (a helper that leaves its bot's group stays within
//! reach), and the watchdog process that kills the bots if the referee itself is killed.

use super::events::Sink;
use super::plan::Run;
use super::setup::this_program;
use super::workers::{self, Summary};
use crate::exit::{self, fail};
use crate::process::{become_subreaper, install_signal_handlers, shield_from_bots, Guard};
use anyhow::Result;

/// Plays the run with every safety net up. `what` (`match`, `league`) names the run in messages.
pub fn play(run: &Run, what: &str, sinks: &mut [&mut dyn Sink]) -> Result<Summary> {
    install_signal_handlers();
    // Before any bot starts: helpers that leave their bot's group then stay within reach.
    if let Err(e) = become_subreaper() {
        crate::stderr_line!(
            "multiversi: cannot become a child subreaper ({e}): a helper that leaves its bot's \
             process group may outlive the {what}"
        );
    }
    if let Err(e) = shield_from_bots() {
        crate::stderr_line!(
            "multiversi: cannot keep the bots out of the referee's files ({e}): a bot may write \
             into the other bots' pipes"
        );
    }
    let exe = this_program()?;
    let guard = Guard::start(&exe, &["guard"])
        .map_err(|e| fail(exit::BOT_START, format!("cannot start the watchdog: {e}")))?;
    let summary = workers::run(run, sinks);
    drop(guard);
    Ok(summary)
}
