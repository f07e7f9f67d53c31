//! The results table of a run (a match or a league): the standings' quick table, shown every
//! `standings_every` games and at the end. The games are added to the standings' sums
//! (`Games::for_table`: per bot and per deal, nothing kept per game, so that a long league does
//! not grow the referee), and the table is computed from them when it is shown: counts and a
//! Plackett–Luce fit. Without the bootstrap: its
//! replicates would add a fit each to every table shown, growing with the bots, and mid-run
//! intervals are not what the table is for (`multiversi standings`, and a league's end, show
//! them).

use super::progress::clear_progress;
use super::Human;
use crate::record::{GameRecord, ReadyInfo};
use crate::run::events::{Event, Flow, Sink};
use crate::standings::{self, report, Games, Options, Standings};
use serde_json::json;
use std::io::Write;

/// How many different readies of one bot the table remembers, to warn of each once.
const SEEN_READIES: usize = 16;

/// The games a run has finished, and what each bot said in its last `ready`.
#[derive(Clone, Debug)]
pub struct Table {
    /// The run's bots, in their order.
    names: Vec<String>,
    /// What each bot (like `names`) called itself in its last `ready` (name and version).
    ready: Vec<Option<ReadyInfo>>,
    /// Bots whose `ready` said another name or version than in an earlier game of the run: a
    /// bot is meant to stay one version for a league (a remote bot's owner may swap it while it
    /// plays). Each change once, as a line to show.
    changes: Vec<String>,
    /// Per bot, the readies it has answered with so far (the first `SEEN_READIES`): two
    /// processes of one bot that answer differently, playing side by side, are one change, not
    /// one at every game.
    seen: Vec<Vec<ReadyInfo>>,
    games: Games,
}

impl Table {
    /// An empty table of these bots.
    pub fn new(names: Vec<String>) -> Table {
        Table {
            ready: vec![None; names.len()],
            seen: vec![Vec::new(); names.len()],
            changes: Vec::new(),
            names,
            games: Games::for_table(),
        }
    }

    /// Adds one finished game: `bots[seat]` is the run's bot in that seat.
    pub fn add(&mut self, bots: &[usize], record: &GameRecord) {
        for (seat, &bot) in bots.iter().enumerate() {
            if let Some(ready) = record.seats.get(seat).and_then(|s| s.ready.clone()) {
                let (Some(slot), Some(seen)) = (self.ready.get_mut(bot), self.seen.get_mut(bot))
                else {
                    continue;
                };
                let new = !seen.contains(&ready);
                if new && seen.len() < SEEN_READIES {
                    seen.push(ready.clone());
                }
                if let Some(before) = slot.as_ref().filter(|b| new && **b != ready) {
                    self.changes.push(format!(
                        "bot {} answered ready as {} in game {}, and as {} before: its games are \
                         counted as one bot's",
                        crate::text::visible(&self.names[bot]),
                        ready_text(Some(&ready)),
                        crate::text::visible(&record.game),
                        ready_text(Some(before))
                    ));
                }
                *slot = Some(ready);
            }
        }
        // The referee wrote the record, so it fits together; if it ever did not, the table
        // would leave it out rather than stop the run (the record file has it either way).
        let _ = self.games.add(record);
    }

    /// The standings of the games so far, without the bootstrap; None before the first game.
    fn standings(&self) -> Option<Standings> {
        if self.games.count() == 0 {
            return None;
        }
        standings::compute(&self.games, &Options::quick()).ok()
    }

    /// The table for the terminal: the standings' quick table with a `ready as` column (none
    /// before the first game), and a line naming the bots that have not finished a game.
    pub fn text(&self) -> String {
        let mut out = match self.standings() {
            Some(s) => {
                let ready: Vec<String> = s
                    .bots
                    .iter()
                    .map(|b| ready_text(self.ready_of(&b.name)))
                    .collect();
                report::quick(&s, &ready)
            }
            None => String::new(),
        };
        let idle: Vec<String> = self
            .names
            .iter()
            .filter(|n| !self.games.names.contains(n))
            .map(|n| crate::text::visible(n).into_owned())
            .collect();
        // Named only beside bots that did finish games: when none did, the list would name
        // every bot, as if each had failed.
        if idle.len() == self.names.len() {
            out += "no game finished in this run\n";
        } else if !idle.is_empty() {
            out += &format!("no game finished in this run: {}\n", idle.join(", "));
        }
        out
    }

    /// The table for the `match_end` and `league_end` events: per bot, in the run's order, its
    /// counts, rating and rank (null before its first game) and its `ready`.
    pub fn json(&self) -> serde_json::Value {
        let s = self.standings();
        self.names
            .iter()
            .zip(&self.ready)
            .map(|(name, ready)| {
                let b = s
                    .as_ref()
                    .and_then(|s| s.bots.iter().find(|b| b.name == *name));
                let t = b.map(|b| b.tally.clone()).unwrap_or_default();
                json!({"bot": name, "rank": b.map(|b| b.rank),
                    "rating": b.map(|b| (b.rating * 100.0).round() / 100.0),
                    "games": t.games, "wins": t.wins, "draws": t.draws, "losses": t.losses,
                    "points": t.points, "discs": t.discs, "faults": t.fault_total(),
                    "mean_ms": (t.mean_ms() * 1000.0).round() / 1000.0, "max_ms": t.max_ms, "ready": ready})
            })
            .collect()
    }

    /// The changes of `ready` noted since the last call (see `changes`).
    pub fn take_changes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.changes)
    }

    fn ready_of(&self, name: &str) -> Option<&ReadyInfo> {
        let i = self.names.iter().position(|n| n == name)?;
        self.ready[i].as_ref()
    }
}

/// The running table as a sink: every `every` games on stdout, and at the end (with `--events`,
/// the end event first, then the table for a person on stderr).
pub struct TableSink {
    pub table: Table,
    human: Human,
    every: u64,
    games: u64,
    /// The type of the JSON end event, when the run prints events.
    end_event: Option<&'static str>,
}

impl TableSink {
    pub fn new(
        names: Vec<String>,
        human: Human,
        every: u64,
        end_event: Option<&'static str>,
    ) -> TableSink {
        TableSink {
            table: Table::new(names),
            human,
            every,
            games: 0,
            end_event,
        }
    }
}

impl Sink for TableSink {
    fn event(&mut self, event: &Event) -> Flow {
        if let Event::GameEnded {
            record,
            bots,
            recorded: true,
        } = event
        {
            self.table.add(bots, record);
            for change in self.table.take_changes() {
                crate::stderr_line!("{}multiversi: warning: {change}", clear_progress());
            }
            self.games += 1;
            if self.every > 0 && self.games % self.every == 0 {
                let mut out = std::io::stdout().lock();
                let _ = write!(
                    out,
                    "{}after {} games:\n{}\n",
                    clear_progress(),
                    self.games,
                    self.table.text()
                )
                .and_then(|()| out.flush());
            }
        }
        Flow::Continue
    }

    fn finish(&mut self) {
        if let Some(end) = self.end_event {
            super::json::emit(&json!({"type": end, "table": self.table.json()}));
        }
        self.human.print(&self.table.text());
    }
}

/// `name version` from a bot's `ready`, shortened and made visible (the bot chose it); `-` when
/// it never sent one.
fn ready_text(ready: Option<&ReadyInfo>) -> String {
    let Some(r) = ready else {
        return "-".into();
    };
    let said = [r.name.as_deref(), r.version.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    // A `ready` with neither name nor version said nothing to show: words, not a blank.
    if said.is_empty() {
        return "(no name)".into();
    }
    crate::text::visible(&crate::protocol::truncate(&said, 40)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Outcome;
    use crate::standings::games::tests::record;

    fn game(bots: &[&str], winner: usize, id: &str) -> GameRecord {
        let ranking: Vec<Vec<usize>> = (0..bots.len())
            .map(|k| vec![(winner + k) % bots.len()])
            .collect();
        let ranking: Vec<&[usize]> = ranking.iter().map(Vec::as_slice).collect();
        let mut r = record(bots, &[30, 20, 10], &ranking, Outcome::Win { winner });
        r.game = id.into();
        r
    }

    #[test]
    fn the_running_table_is_the_standings_quick_table() {
        let mut table = Table::new(vec!["a".into(), "b".into(), "c".into(), "idle".into()]);
        assert_eq!(table.text(), "no game finished in this run\n");
        let mut first = game(&["a", "b", "c"], 2, "g1");
        first.seats[2].ready = Some(ReadyInfo {
            name: Some("Clever C".into()),
            version: Some("0.3".into()),
        });
        table.add(&[0, 1, 2], &first);
        // a answers with a bare ready (no name, no version) in its second game.
        let mut second = game(&["b", "c", "a"], 1, "g2");
        second.seats[2].ready = Some(ReadyInfo {
            name: None,
            version: None,
        });
        table.add(&[1, 2, 0], &second);
        assert!(table.take_changes().is_empty());
        let text = table.text();
        let lines: Vec<&str> = text.lines().collect();
        // c won both: first, with its ready; b never sent one, a one that says nothing.
        assert!(lines[0].starts_with("  #  bot  rating"), "{text}");
        assert!(lines[0].ends_with("ready as"), "{text}");
        assert!(lines[1].starts_with("  1  c "), "{text}");
        assert!(lines[1].ends_with("  Clever C 0.3"), "{text}");
        let line_of = |bot: &str| {
            lines[2..4]
                .iter()
                .find(|l| l.contains(&format!("  {bot}  ")))
                .copied()
                .unwrap_or_default()
        };
        assert!(line_of("b").ends_with("  -"), "{text}");
        assert!(line_of("a").ends_with("  (no name)"), "{text}");
        assert!(lines[4].starts_with("2 games in 2 deals"), "{text}");
        assert_eq!(lines[5], "no game finished in this run: idle");
        // The same numbers as `multiversi standings` computes from the records.
        let mut games = Games::new();
        games.add(&first).unwrap();
        games.add(&second).unwrap();
        let s = standings::compute(&games, &Options::quick()).unwrap();
        assert_eq!(table.standings().unwrap().bots, s.bots);

        let v = table.json();
        assert_eq!(v[2]["bot"], "c");
        assert_eq!(v[2]["rank"], 1);
        assert_eq!(v[2]["wins"], 2);
        assert_eq!(v[2]["ready"]["name"], "Clever C");
        assert_eq!(v[0]["losses"], 2);
        assert!(v[3]["rank"].is_null() && v[3]["rating"].is_null());
        assert_eq!(v[3]["games"], 0);
    }

    #[test]
    fn a_bot_whose_ready_changes_is_warned_about_once_per_change() {
        let mut table = Table::new(vec!["a".into(), "b".into(), "c".into()]);
        let said = |version: &str| {
            Some(ReadyInfo {
                name: Some("mine".into()),
                version: Some(version.into()),
            })
        };
        // Two processes side by side, one of each version: a change once, not at every game.
        for (id, version) in [
            ("g1", "1"),
            ("g2", "1"),
            ("g3", "2"),
            ("g4", "2"),
            ("g5", "1"),
        ] {
            let mut r = game(&["a", "b", "c"], 0, id);
            r.seats[1].ready = said(version);
            table.add(&[0, 1, 2], &r);
        }
        assert_eq!(
            table.take_changes(),
            [
                "bot b answered ready as mine 2 in game g3, and as mine 1 before: its games are \
              counted as one bot's"
            ]
        );
        assert!(table.take_changes().is_empty());
    }
}
