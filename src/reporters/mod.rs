//! Reporters: the sinks that turn a run's events (`crate::run::events`) into what a person or a
//! program sees — the progress line, fault messages, the running table, `--show` boards and the
//! `--events` JSON lines, and the live view in a browser (`web`, `--web`). The runner knows none
//! of them; a front-end picks the ones it wants.

pub mod faults;
pub mod json;
pub mod progress;
pub mod show;
pub mod table;
pub mod web;

use crate::record::GameRecord;
use std::io::Write;

/// Where text for a person goes: stdout, or stderr when stdout carries `--events` JSON lines.
#[derive(Clone, Copy, Debug)]
pub struct Human {
    pub to_stderr: bool,
}

impl Human {
    pub fn print(&self, text: &str) {
        if self.to_stderr {
            crate::stderr_text!("{text}");
        } else {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
        }
    }
}

/// `NAME (Colour) wins` or `draw`.
pub fn describe_result(record: &GameRecord) -> String {
    match record.result {
        crate::rules::Outcome::Win { winner } => format!(
            "{} ({}) wins",
            crate::text::visible(&record.seats[winner].name),
            record.seats[winner].colour
        ),
        crate::rules::Outcome::Draw => "draw".into(),
    }
}

/// What `match` and `league` show of a run: fault messages and the running table always, the
/// progress line unless boards or events are printed, `--show` boards and `--events` lines when
/// asked.
pub struct Standard {
    pub progress: progress::Progress,
    pub faults: faults::FaultMessages,
    pub table: table::TableSink,
    pub show: Option<show::Show>,
    pub json: Option<json::JsonLines>,
    pub web: Option<web::Web>,
}

impl Standard {
    /// `names`: the run's bots; `total`: its games; `end`: the type of the JSON end event
    /// (`match_end`, `league_end`); `table_every`: print the table every so many games (0: only
    /// at the end).
    pub fn new(
        names: Vec<String>,
        total: u64,
        show: bool,
        events: bool,
        table_every: u64,
        end: &'static str,
    ) -> Standard {
        let human = Human { to_stderr: events };
        Standard {
            progress: progress::Progress::new(total, !show && !events),
            faults: faults::FaultMessages::default(),
            table: table::TableSink::new(names, human, table_every, events.then_some(end)),
            show: show.then(|| show::Show::new(human)),
            json: events.then(json::JsonLines::default),
            web: None,
        }
    }

    /// The sinks, in the order they hear each event.
    pub fn sinks(&mut self) -> Vec<&mut dyn crate::run::events::Sink> {
        // The progress line first: it is cleared before anything after it prints, and at the end
        // before the table.
        let mut sinks: Vec<&mut dyn crate::run::events::Sink> = vec![&mut self.progress];
        if let Some(json) = self.json.as_mut() {
            sinks.push(json);
        }
        if let Some(show) = self.show.as_mut() {
            sinks.push(show);
        }
        sinks.push(&mut self.faults);
        sinks.push(&mut self.table);
        if let Some(web) = self.web.as_mut() {
            sinks.push(web);
        }
        sinks
    }
}

/// Plays `run` with the standard reporters and every safety net, and returns its end as the
/// documented exit code: what `match` and `league` do. `what` names the run (`match`,
/// `league`); `web`, the live view when one was asked for.
pub fn play_reported(
    run: &crate::run::Run,
    what: &'static str,
    show: bool,
    events: bool,
    table_every: u64,
    web: Option<web::Web>,
) -> anyhow::Result<()> {
    let end = if what == "match" {
        "match_end"
    } else {
        "league_end"
    };
    let names = run.bots.iter().map(|b| b.name.clone()).collect();
    let mut reporters = Standard::new(names, run.total_games(), show, events, table_every, end);
    reporters.web = web;
    let summary = crate::run::guarded::play(run, what, &mut reporters.sinks())?;
    crate::run::ending::conclude(run, &summary, what)
}
