//! `--events`: every game's start, moves, faults and end as one JSON object per line on stdout,
//! flushed at once for live dashboards (the fields are documented in README, "Events").

use crate::run::events::{Event, Flow, Interest, Sink};
use serde_json::json;
use std::io::Write;

#[derive(Default)]
pub struct JsonLines;

/// Writes one event line to stdout and flushes it.
pub fn emit(value: &serde_json::Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{value}").and_then(|()| out.flush());
}

/// An event as its JSON line says it; None for an event that has no line (`Skipped`).
pub fn value(event: &Event) -> Option<serde_json::Value> {
    Some(match event {
        Event::GameStarted {
            game,
            seats,
            rules,
            rows,
        } => json!({"type": "game_start", "game": game, "rules": rules,
                "seats": seats, "rows": rows}),
        Event::Moved {
            game,
            played: m,
            rows,
            scores,
        } => json!({"type": "move", "game": game, "ply": m.ply, "seat": m.seat,
                "square": m.square, "kind": m.kind, "flips": m.flips, "ms": m.ms,
                "rows": rows, "scores": scores}),
        Event::Faulted {
            game, fault, ms, ..
        } => json!({"type": "fault", "game": game, "fault": fault, "ms": ms}),
        Event::GameEnded {
            record, recorded, ..
        } => json!({"type": "game_end", "game": record.game, "result": record.result,
                "scores": record.scores, "ranking": record.ranking, "rows": record.final_rows,
                "faults": record.faults.len(), "recorded": recorded}),
        Event::Skipped(_) => return None,
    })
}

impl Sink for JsonLines {
    fn interest(&self) -> Interest {
        Interest { moves: true }
    }

    fn event(&mut self, event: &Event) -> Flow {
        if let Some(value) = value(event) {
            emit(&value);
        }
        Flow::Continue
    }
}
