//! The simple results table the runner keeps as games finish: per bot its games, wins, draws,
//! losses, discs, faults and move times. Counted incrementally, so a long run keeps no games in
//! memory.

use crate::record::GameRecord;
use crate::rules::Outcome;
use serde_json::json;

/// Per-bot totals.
#[derive(Default, Clone, Debug)]
pub struct Tally {
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub discs: u64,
    pub faults: u32,
    pub moves: u64,
    pub total_ms: f64,
    pub max_ms: f64,
    /// What the bot called itself in its last `ready` (name and version).
    pub ready: Option<crate::record::ReadyInfo>,
}

/// Adds one game: `bots[seat]` is the table row of the bot in that seat. Moves the referee played
/// as the opening belong to nobody.
pub fn tally(tallies: &mut [Tally], bots: &[usize], record: &GameRecord) {
    for (seat, &i) in bots.iter().enumerate() {
        let t = &mut tallies[i];
        t.games += 1;
        if let Some(ready) = record.seats.get(seat).and_then(|s| s.ready.clone()) {
            t.ready = Some(ready);
        }
        let faulted = record.faults.iter().any(|f| f.seat == seat);
        match record.result {
            Outcome::Win { winner } if winner == seat => t.wins += 1,
            Outcome::Draw if !faulted => t.draws += 1,
            _ => t.losses += 1,
        }
        t.discs += record.scores.get(seat).copied().unwrap_or(0) as u64;
        t.faults += faulted as u32;
        for m in record
            .moves
            .iter()
            .skip(record.opening as usize)
            .filter(|m| m.seat == seat)
        {
            t.moves += 1;
            t.total_ms += m.ms;
            t.max_ms = t.max_ms.max(m.ms);
        }
    }
}

pub fn table_json(names: &[&str], tallies: &[Tally]) -> serde_json::Value {
    names
        .iter()
        .zip(tallies)
        .map(|(name, t)| {
            json!({"bot": name, "games": t.games, "wins": t.wins, "draws": t.draws,
                "losses": t.losses, "discs": t.discs, "faults": t.faults,
                "mean_ms": t.total_ms / t.moves.max(1) as f64, "max_ms": t.max_ms,
                "ready": t.ready})
        })
        .collect()
}

/// The results table: per bot its wins, draws, losses, discs per game, faults, its mean and
/// slowest move time, and what it called itself in `ready` (so that a bot named after its file
/// can still be recognised by the name its author gave it).
pub fn table(names: &[&str], tallies: &[Tally]) -> String {
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(3)
        .max(3);
    let mut out = format!(
        "{:<width$}  {:>5}  {:>5}  {:>5}  {:>6}  {:>10}  {:>6}  {:>8}  {:>8}  ready as\n",
        "bot", "games", "wins", "draws", "losses", "discs/game", "faults", "mean ms", "max ms"
    );
    for (name, t) in names.iter().zip(tallies) {
        out += &format!(
            "{:<width$}  {:>5}  {:>5}  {:>5}  {:>6}  {:>10.1}  {:>6}  {:>8.2}  {:>8.2}  {}\n",
            crate::text::visible(name),
            t.games,
            t.wins,
            t.draws,
            t.losses,
            t.discs as f64 / t.games.max(1) as f64,
            t.faults,
            t.total_ms / t.moves.max(1) as f64,
            t.max_ms,
            ready_text(t.ready.as_ref())
        );
    }
    out
}

/// `name version` from a bot's `ready`, shortened and made visible (the bot chose it); `-` when
/// it never sent one.
fn ready_text(ready: Option<&crate::record::ReadyInfo>) -> String {
    let Some(r) = ready else {
        return "-".into();
    };
    let said = [r.name.as_deref(), r.version.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    crate::text::visible(&crate::protocol::truncate(&said, 40)).into_owned()
}
