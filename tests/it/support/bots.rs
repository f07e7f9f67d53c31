//! The scripted test bots of `tests/bots/` and what they write down.

use super::shell::{bot_cmd, utf8};
use std::path::Path;

/// The path of a test bot script under `tests/bots/`, as a word for `bot_cmd`.
pub fn test_bot(script: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/bots")
        .join(script);
    utf8(&path).to_string()
}

/// The command line of `tests/bots/bad.py`, which writes its pid to `pids` and misbehaves as
/// `mode` says from its turn `turn` on (`arg` is the mode's parameter; empty, none is given).
pub fn bad_bot(pids: &Path, mode: &str, turn: u32, arg: &str) -> String {
    let (script, turn) = (test_bot("bad.py"), turn.to_string());
    let mut words = vec!["python3", &script, utf8(pids), mode, &turn];
    if !arg.is_empty() {
        words.push(arg);
    }
    bot_cmd(&words)
}

/// The command of `tests/bots/probe.py`, which writes its pid to `dir/pids` and everything it
/// is sent to `dir/LOG`, with its options (`delay=100`, `fault=late`, …), one word each.
pub fn probe(dir: &Path, log: &str, options: &[&str]) -> String {
    let (script, pids, log) = (test_bot("probe.py"), dir.join("pids"), dir.join(log));
    let mut words = vec!["python3", &script, utf8(&pids), utf8(&log)];
    words.extend(options);
    bot_cmd(&words)
}

/// One event a probe bot wrote down.
#[derive(Debug, serde::Deserialize)]
pub struct ProbeEvent {
    pub pid: u32,
    /// Wall clock, seconds since the epoch.
    pub t: f64,
    pub event: String,
    pub msg: Option<serde_json::Value>,
}

/// Everything a probe bot wrote down in `dir/LOG`, in order.
pub fn probe_log(dir: &Path, log: &str) -> Vec<ProbeEvent> {
    std::fs::read_to_string(dir.join(log))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a probe log line"))
        .collect()
}

/// Wall-clock seconds since the epoch, as the probe bot writes them.
pub fn now_secs() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("a clock after 1970")
        .as_secs_f64()
}
