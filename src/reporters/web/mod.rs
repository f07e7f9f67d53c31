//! `--web ADDR`: a run watched live in a browser — the standings as they change, the games
//! running and finished, every running game's board move by move, and finished games in the
//! replay viewer. Read-only: nothing a browser sends reaches the run.
//!
//! Two halves, joined by one bounded queue that the run never waits on:
//! - `Web`, a sink of the run's events on the main thread, keeps what the page shows (`Live`)
//!   and hands every change to the web side with a non-blocking `try_send`. When the queue is
//!   full (the web side is starved of CPU), the change is not queued; once there is room again
//!   the sink queues its whole `Live` instead, which replaces the web side's copy. So neither a
//!   browser nor the web side can slow a game: at worst the page skips ahead.
//! - `server`, on a thread of its own, applies the changes to its copy of `Live` and sends each to
//!   the browsers as a server-sent event; a browser that does not keep up misses events and is
//!   sent the whole state again (`snapshot`). It serves only what it generates and the records
//!   of this run's own record files, found by a game's id, never by a path from the request.

mod server;

use crate::record::GameRecord;
use crate::reporters::table::Table;
use crate::run::events::{Event, Flow, Interest, Sink};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub use server::Limits;

/// How many finished games the page lists (the latest); the standings count them all.
const FINISHED_LISTED: usize = 500;
/// Changes waiting for the web side at most; past that the sink sends a snapshot when it can.
const QUEUED: usize = 4096;
/// The standings are computed at most this often (some 30–50 ms for 5,000 games).
const STANDINGS_EVERY: Duration = Duration::from_secs(1);

/// What the page shows, as JSON values: the sink keeps one, the web side a copy that the same
/// changes keep equal.
#[derive(Clone, Debug, Default)]
pub struct Live {
    title: String,
    bots: Vec<String>,
    /// The run's games, and those finished before it (a resumed league).
    total: u64,
    finished_total: u64,
    /// The games being played, by id: rules, seats, board, scores, moves so far, faults.
    running: BTreeMap<String, Value>,
    /// The latest finished games, oldest first.
    finished: VecDeque<Value>,
    standings: Value,
    over: bool,
}

impl Live {
    /// Applies one change (a value of `change_*`, with its `type`).
    pub fn apply(&mut self, change: &Value) {
        let game = change["game"].as_str().unwrap_or_default();
        match change["type"].as_str().unwrap_or_default() {
            "game_start" => {
                let mut state = change.clone();
                if let Some(map) = state.as_object_mut() {
                    map.remove("type");
                    map.insert("ply".into(), 0.into());
                    map.insert("moves".into(), json!([]));
                    map.insert("faults".into(), json!([]));
                }
                self.running.insert(game.to_string(), state);
            }
            "move" => {
                if let Some(state) = self.running.get_mut(game) {
                    state["rows"] = change["rows"].clone();
                    state["scores"] = change["scores"].clone();
                    state["ply"] = (change["ply"].as_u64().unwrap_or(0) + 1).into();
                    let played = json!({"seat": change["seat"], "square": change["square"],
                        "kind": change["kind"], "flips": change["flips"], "ms": change["ms"]});
                    if let Some(moves) = state["moves"].as_array_mut() {
                        moves.push(played);
                    }
                }
            }
            "fault" => {
                if let Some(faults) = self
                    .running
                    .get_mut(game)
                    .and_then(|s| s["faults"].as_array_mut())
                {
                    faults.push(change["fault"].clone());
                }
            }
            "game_end" => {
                self.running.remove(game);
                let mut summary = change.clone();
                if let Some(map) = summary.as_object_mut() {
                    map.remove("type");
                }
                self.finished.push_back(summary);
                while self.finished.len() > FINISHED_LISTED {
                    self.finished.pop_front();
                }
                self.finished_total += 1;
            }
            "standings" => self.standings = change["table"].clone(),
            "over" => {
                self.over = true;
                self.running.clear();
            }
            _ => {}
        }
    }

    /// Everything the page shows, as the first message of a stream (and after a gap).
    pub fn snapshot(&self) -> Value {
        json!({"type": "snapshot", "title": self.title, "bots": self.bots, "total": self.total,
            "finished_total": self.finished_total, "over": self.over,
            "running": self.running.values().collect::<Vec<_>>(),
            "finished": self.finished, "standings": self.standings})
    }
}

/// What the sink hands the web side.
enum Update {
    Change(Value),
    /// The sink's whole state, after changes were dropped for a full queue.
    Snapshot(Box<Live>),
}

/// What the page is about.
pub struct Setup {
    /// `league NAME`, `sprt NAME`.
    pub title: String,
    /// The run's bots, in its order.
    pub bots: Vec<String>,
    /// The games this run plays.
    pub games: u64,
    /// The run's record files (all shards' in its directory), read for the games finished before
    /// it and for the viewer of a finished game. Fixed here: a request names a game by its id.
    pub records: Vec<PathBuf>,
}

/// The live view as a sink of the run's events.
pub struct Web {
    tx: tokio::sync::mpsc::Sender<Update>,
    address: std::net::SocketAddr,
    live: Live,
    table: Table,
    standings_due: bool,
    standings_at: Option<Instant>,
    /// Changes were dropped: the web side is sent a snapshot when the queue has room.
    behind: bool,
}

impl Web {
    /// Binds `address` and starts serving on a thread of its own; an address that cannot be
    /// bound is an error here, before any game.
    pub fn start(address: &str, setup: Setup, limits: Limits) -> std::io::Result<Web> {
        let listener = std::net::TcpListener::bind(address)?;
        let bound = listener.local_addr()?;
        let (tx, rx) = tokio::sync::mpsc::channel(QUEUED);
        let mut table = Table::new(setup.bots.clone());
        let places: HashMap<String, usize> = setup
            .bots
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i))
            .collect();
        let mut live = Live {
            title: setup.title,
            bots: setup.bots,
            total: setup.games,
            ..Live::default()
        };
        // The games already recorded (a resumed league): in the standings and the list. Read a
        // line at a time, so that a large league is never held in memory whole.
        for path in &setup.records {
            let Ok(file) = std::fs::File::open(path) else {
                continue;
            };
            let mut reader = std::io::BufReader::new(file);
            let mut line = Vec::new();
            while matches!(std::io::BufRead::read_until(&mut reader, b'\n', &mut line), Ok(n) if n > 0)
            {
                if let Ok(record) = crate::replay::read::read_line(line.trim_ascii_end()) {
                    table.add(&bots_of(&places, &record), &record);
                    live.apply(&game_end(&record, true));
                }
                line.clear();
            }
        }
        live.total += live.finished_total;
        server::spawn(listener, rx, live.clone(), setup.records, limits)?;
        let mut web = Web::queued(tx, bound, live, table);
        web.standings();
        Ok(web)
    }

    /// The sink alone, handing its changes to `tx`.
    fn queued(
        tx: tokio::sync::mpsc::Sender<Update>,
        address: std::net::SocketAddr,
        live: Live,
        table: Table,
    ) -> Web {
        Web {
            tx,
            address,
            standings_due: live.finished_total > 0,
            live,
            table,
            standings_at: None,
            behind: false,
        }
    }

    /// The address it serves on (the port the system chose for port 0).
    pub fn address(&self) -> std::net::SocketAddr {
        self.address
    }

    /// Keeps a change and hands it on, never waiting.
    fn push(&mut self, change: Value) {
        self.live.apply(&change);
        if self.behind {
            self.catch_up();
        } else if let Err(tokio::sync::mpsc::error::TrySendError::Full(_)) =
            self.tx.try_send(Update::Change(change))
        {
            self.behind = true;
        }
    }

    /// After dropped changes: the whole state instead, once the queue has room.
    fn catch_up(&mut self) {
        if self.tx.capacity() > 0
            && self
                .tx
                .try_send(Update::Snapshot(Box::new(self.live.clone())))
                .is_ok()
        {
            self.behind = false;
        }
    }

    /// The standings, when games ended since the last and a second has passed.
    fn standings(&mut self) {
        let now = Instant::now();
        if !self.standings_due || self.standings_at.is_some_and(|t| now - t < STANDINGS_EVERY) {
            return;
        }
        self.standings_due = false;
        self.standings_at = Some(now);
        let table = self.table.json();
        self.push(json!({"type": "standings", "table": table}));
    }
}

/// The run's bot in each seat of a record, by name (a bot unknown to this run: none).
fn bots_of(places: &HashMap<String, usize>, record: &GameRecord) -> Vec<usize> {
    record
        .seats
        .iter()
        .map(|s| places.get(&s.name).copied().unwrap_or(usize::MAX))
        .collect()
}

/// A finished game as the page lists it.
fn game_end(record: &GameRecord, recorded: bool) -> Value {
    let names: Vec<&str> = record.seats.iter().map(|s| s.name.as_str()).collect();
    json!({"type": "game_end", "game": record.game, "names": names,
        "players": record.rules.players, "board": record.rules.board,
        "result": record.result, "scores": record.scores, "ranking": record.ranking,
        "rows": record.final_rows, "faults": record.faults.len(), "recorded": recorded})
}

impl Sink for Web {
    fn interest(&self) -> Interest {
        Interest { moves: true }
    }

    fn event(&mut self, event: &Event) -> Flow {
        match event {
            Event::GameEnded {
                record,
                bots,
                recorded,
            } => {
                if *recorded {
                    self.table.add(bots, record);
                    self.standings_due = true;
                }
                self.push(game_end(record, *recorded));
                self.standings();
            }
            Event::Skipped(_) => {}
            other => {
                if let Some(change) = super::json::value(other) {
                    self.push(change);
                }
            }
        }
        Flow::Continue
    }

    fn tick(&mut self) {
        if self.behind {
            self.catch_up();
        }
        self.standings();
    }

    fn finish(&mut self) {
        self.standings_at = None;
        self.standings();
        self.push(json!({"type": "over"}));
        // The last changes wait a moment for room (they are the page's final state); the run is
        // over, so this waits for no game.
        for _ in 0..20 {
            if !self.behind {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
            self.catch_up();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(game: &str) -> Value {
        json!({"type": "game_start", "game": game, "rules": {"players": 3},
            "seats": [], "rows": ["...", "..."]})
    }

    fn moved(game: &str, ply: u32) -> Value {
        json!({"type": "move", "game": game, "ply": ply, "seat": ply % 3, "square": "a1",
            "kind": "placing", "flips": [], "ms": 1.0, "rows": [format!("{ply}")],
            "scores": [ply, 0, 0]})
    }

    #[test]
    fn changes_make_the_state_a_snapshot_shows() {
        let mut live = Live::default();
        live.apply(&start("g1"));
        live.apply(&moved("g1", 0));
        live.apply(&moved("g1", 1));
        live.apply(&json!({"type": "fault", "game": "g1", "fault": {"seat": 2}}));
        let s = live.snapshot();
        assert_eq!(s["running"][0]["ply"], 2);
        assert_eq!(s["running"][0]["rows"], json!(["1"]));
        assert_eq!(s["running"][0]["moves"].as_array().unwrap().len(), 2);
        assert_eq!(s["running"][0]["faults"][0]["seat"], 2);
        live.apply(&json!({"type": "game_end", "game": "g1", "names": ["a", "b", "c"]}));
        let s = live.snapshot();
        assert_eq!(s["running"], json!([]));
        assert_eq!(s["finished"][0]["game"], "g1");
        assert_eq!(s["finished_total"], 1);
        // Only the latest are listed; all are counted.
        for i in 0..FINISHED_LISTED + 5 {
            live.apply(&json!({"type": "game_end", "game": format!("x{i}")}));
        }
        assert_eq!(live.finished.len(), FINISHED_LISTED);
        assert_eq!(live.finished_total, FINISHED_LISTED as u64 + 6);
    }

    #[test]
    fn a_full_queue_drops_changes_and_then_sends_the_whole_state() {
        let (tx, mut rx) = tokio::sync::mpsc::channel(4);
        let mut web = Web::queued(
            tx,
            "127.0.0.1:1".parse().unwrap(),
            Live::default(),
            Table::new(vec![]),
        );
        // No one takes anything from the queue: the sink never waits, it falls behind.
        web.push(start("g1"));
        for ply in 0..100 {
            web.push(moved("g1", ply));
        }
        assert!(web.behind);
        // The web side's copy, from what it was handed.
        let mut copy = Live::default();
        let mut drain = |copy: &mut Live| {
            let mut n = 0;
            while let Ok(update) = rx.try_recv() {
                match update {
                    Update::Change(c) => copy.apply(&c),
                    Update::Snapshot(whole) => *copy = *whole,
                }
                n += 1;
            }
            n
        };
        assert_eq!(drain(&mut copy), 4);
        assert_ne!(copy.snapshot(), web.live.snapshot());
        // Room again: the whole state, and the copy is the sink's again.
        web.tick();
        assert!(!web.behind);
        assert_eq!(drain(&mut copy), 1);
        assert_eq!(copy.snapshot(), web.live.snapshot());
        web.push(moved("g1", 100));
        drain(&mut copy);
        assert_eq!(copy.snapshot(), web.live.snapshot());
        assert_eq!(copy.snapshot()["running"][0]["ply"], 101);
    }
}
