//! Fault messages on stderr: why a bot lost, in words a bot author can act on
//! (`crate::explain`). A bot that makes the same mistake in every game (debug output on stdout,
//! say) gets its hint and stderr once and a line per later game, not a screenful each time.

use super::progress::clear_progress;
use crate::run::events::{Event, Flow, Sink};
use std::collections::HashSet;

#[derive(Default)]
pub struct FaultMessages {
    /// Faults explained in full so far, by bot, kind and detail.
    told: HashSet<String>,
}

impl Sink for FaultMessages {
    fn event(&mut self, event: &Event) -> Flow {
        let Event::Faulted {
            game, fault, bot, ..
        } = event
        else {
            return Flow::Continue;
        };
        let faulted = crate::explain::FaultedBot {
            name: &bot.name,
            log: bot.log.as_deref(),
            builtin: bot.builtin,
        };
        let message = crate::explain::fault_message(game, &faulted, fault);
        let key = format!("{}\0{:?}\0{}", bot.name, fault.kind, fault.detail);
        if self.told.insert(key) {
            crate::stderr_text!("{}{message}", clear_progress());
        } else {
            let line = message.lines().next().unwrap_or_default();
            crate::stderr_text!(
                "{}{line} (the same fault as before: see the first time above)\n",
                clear_progress()
            );
        }
        Flow::Continue
    }
}
