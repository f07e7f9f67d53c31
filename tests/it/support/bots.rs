//! The scripted test bots of `tests/bots/` and what they write down.

use super::shell::quote;
use std::path::Path;

/// A test bot script under `tests/bots/`, quoted for a bot command.
pub fn test_bot(script: &str) -> String {
    quote(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/bots")
            .join(script),
    )
}

/// The command line of `tests/bots/bad.py`, which writes its pid to `pids` and misbehaves as
/// `mode` says from its turn `turn` on (`arg` is the mode's parameter).
pub fn bad_bot(pids: &Path, mode: &str, turn: u32, arg: &str) -> String {
    format!(
        "python3 {} {} {mode} {turn} {arg}",
        test_bot("bad.py"),
        quote(pids)
    )
}

/// The command of `tests/bots/probe.py`, which writes its pid to `dir/pids` and everything it
/// is sent to `dir/LOG`, with its options (`delay=100`, `fault=late`, …).
pub fn probe(dir: &Path, log: &str, options: &str) -> String {
    format!(
        "python3 {} {} {} {options}",
        test_bot("probe.py"),
        quote(&dir.join("pids")),
        quote(&dir.join(log))
    )
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
