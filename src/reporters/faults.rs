//! Fault messages on stderr: why a bot lost, in words a bot author can act on
//! (`crate::explain`). Real problems must not scroll away behind repeats: a bot that makes the
//! same mistake in every game (debug output on stdout, say) gets its hint and stderr once; later
//! repeats are counted — the progress line shows the count, a summary line every half minute
//! names what came again, and the run ends with a line per bot that faulted.
//!
//! A fault in a game that a Ctrl-C then abandons is not recorded: the end says so, rather than
//! leave a message about a game that does not exist.

use super::progress::clear_progress;
use crate::record::FaultKind;
use crate::run::events::{Event, Flow, Sink};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

/// How often repeats are summed up while the run goes on.
const SUMMARY_EVERY: Duration = Duration::from_secs(30);

pub struct FaultMessages {
    /// Faults explained in full so far, by bot, kind and detail.
    told: HashSet<String>,
    /// Per bot (by name), how many faults of each kind in this run.
    per_bot: BTreeMap<String, BTreeMap<&'static str, u64>>,
    /// Repeats not yet summed up: (bot, kind) → count.
    unsummed: BTreeMap<(String, &'static str), u64>,
    last_summary: Instant,
    /// Games with a fault that have not ended (yet), with the bot and kind of each fault.
    open: HashMap<String, Vec<(String, &'static str)>>,
    /// Faults in games that ended unrecorded (a bot in them never answered `start`), and how
    /// many such games: not in the per-bot counts, which are the records'.
    unrecorded: (u64, u64),
}

impl Default for FaultMessages {
    fn default() -> FaultMessages {
        FaultMessages {
            told: HashSet::new(),
            per_bot: BTreeMap::new(),
            unsummed: BTreeMap::new(),
            last_summary: Instant::now(),
            open: HashMap::new(),
            unrecorded: (0, 0),
        }
    }
}

impl FaultMessages {
    /// Faults so far in this run.
    pub fn total(&self) -> u64 {
        self.per_bot.values().flat_map(|k| k.values()).sum()
    }

    fn summarise_repeats(&mut self) {
        if self.unsummed.is_empty() {
            return;
        }
        let parts: Vec<String> = self
            .unsummed
            .iter()
            .map(|((bot, kind), n)| format!("{} {kind} ×{n}", crate::text::visible(bot)))
            .collect();
        crate::stderr_line!(
            "{}multiversi: the same faults again since: {}",
            clear_progress(),
            parts.join(", ")
        );
        self.unsummed.clear();
    }
}

fn kind_word(kind: FaultKind) -> &'static str {
    crate::explain::kind_name(kind)
}

impl Sink for FaultMessages {
    fn event(&mut self, event: &Event) -> Flow {
        match event {
            Event::Faulted {
                game, fault, bot, ..
            } => {
                let kind = kind_word(fault.kind);
                *self
                    .per_bot
                    .entry(bot.name.clone())
                    .or_default()
                    .entry(kind)
                    .or_default() += 1;
                self.open
                    .entry(game.clone())
                    .or_default()
                    .push((bot.name.clone(), kind));
                let key = format!("{}\0{kind}\0{}", bot.name, fault.detail);
                if self.told.insert(key) {
                    let faulted = crate::explain::FaultedBot {
                        name: &bot.name,
                        log: bot.log.as_deref(),
                        builtin: bot.builtin,
                        remote: bot.remote,
                        log_full: bot.log_full,
                    };
                    let message = crate::explain::fault_message(game, &faulted, fault);
                    crate::stderr_text!("{}{message}", clear_progress());
                } else {
                    *self.unsummed.entry((bot.name.clone(), kind)).or_default() += 1;
                }
            }
            Event::GameEnded {
                record, recorded, ..
            } => {
                let faults = self.open.remove(&record.game).unwrap_or_default();
                if !recorded && !faults.is_empty() {
                    self.unrecorded.0 += faults.len() as u64;
                    self.unrecorded.1 += 1;
                    for (bot, kind) in faults {
                        if let Some(kinds) = self.per_bot.get_mut(&bot) {
                            if let Some(n) = kinds.get_mut(kind) {
                                *n = n.saturating_sub(1);
                                if *n == 0 {
                                    kinds.remove(kind);
                                }
                            }
                            if kinds.is_empty() {
                                self.per_bot.remove(&bot);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        Flow::Continue
    }

    fn tick(&mut self) {
        if self.last_summary.elapsed() >= SUMMARY_EVERY {
            self.summarise_repeats();
            self.last_summary = Instant::now();
        }
    }

    fn finish(&mut self) {
        if crate::process::interrupted() && !self.open.is_empty() {
            let mut games: Vec<&String> = self.open.keys().collect();
            games.sort();
            let games: Vec<String> = games
                .iter()
                .map(|g| crate::text::visible(g).into_owned())
                .collect();
            crate::stderr_line!(
                "{}multiversi: the faults above in game(s) {} are not recorded: the interruption \
                 abandoned those games (a league or a sequential test run again plays them again)",
                clear_progress(),
                games.join(", ")
            );
            return;
        }
        // Repeats are in the per-bot summary below; no separate line for them.
        self.unsummed.clear();
        let (faults, games) = self.unrecorded;
        let aside = (faults > 0).then(|| {
            format!(
                "{faults} fault(s) in {games} game(s) not recorded (a bot in them never answered \
                 start) are not counted"
            )
        });
        if self.per_bot.is_empty() {
            if let Some(aside) = aside {
                crate::stderr_line!("{}multiversi: {aside}", clear_progress());
            }
            return;
        }
        let lines: Vec<String> = self
            .per_bot
            .iter()
            .map(|(bot, kinds)| {
                let total: u64 = kinds.values().sum();
                let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
                format!(
                    "  {}: {total} ({})",
                    crate::text::visible(bot),
                    kinds.join(", ")
                )
            })
            .collect();
        crate::stderr_line!(
            "{}multiversi: faults in this run, by bot (each kind explained above the first \
             time):\n{}{}",
            clear_progress(),
            lines.join("\n"),
            aside.map_or(String::new(), |a| format!("\n  ({a})"))
        );
    }
}
