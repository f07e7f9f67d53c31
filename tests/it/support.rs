//! Small helpers shared by the integration tests.

use std::process::{Command, Output};

/// The multiversi binary built for these tests.
pub fn multiversi() -> Command {
    Command::new(env!("CARGO_BIN_EXE_multiversi"))
}

/// Runs multiversi with arguments and returns its output.
pub fn run(args: &[&str]) -> Output {
    multiversi()
        .args(args)
        .output()
        .expect("multiversi binary runs")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A fresh, empty directory for one test's files, under the cargo target dir (so that test runs
/// leave nothing in the system's temporary directory); each test uses its own name.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Every game of a record file.
pub fn read_records(path: &std::path::Path) -> Vec<multiversi::record::GameRecord> {
    let text = std::fs::read_to_string(path).expect("record file");
    text.lines()
        .map(|l| serde_json::from_str(l).expect("record line parses"))
        .collect()
}

/// A path as one word of a bot command: the referee splits commands like a shell, so a path
/// with a space (or a quote) in it must be quoted to stay one argument.
pub fn quote(path: &std::path::Path) -> String {
    let text = path.to_str().expect("a UTF-8 path");
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A test bot script under `tests/bots/`, quoted for a bot command.
pub fn test_bot(script: &str) -> String {
    quote(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/bots")
            .join(script),
    )
}

/// The command of `tests/bots/probe.py`, which writes its pid to `dir/pids` and everything it
/// is sent to `dir/LOG`, with its options (`delay=100`, `fault=late`, …).
pub fn probe(dir: &std::path::Path, log: &str, options: &str) -> String {
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
pub fn probe_log(dir: &std::path::Path, log: &str) -> Vec<ProbeEvent> {
    std::fs::read_to_string(dir.join(log))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a probe log line"))
        .collect()
}

/// A child process that is killed (and reaped) when the test lets go of it, also when the test
/// fails half-way: a failing test leaves nothing running.
pub struct KillOnDrop(pub std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl std::ops::Deref for KillOnDrop {
    type Target = std::process::Child;
    fn deref(&self) -> &std::process::Child {
        &self.0
    }
}

impl std::ops::DerefMut for KillOnDrop {
    fn deref_mut(&mut self) -> &mut std::process::Child {
        &mut self.0
    }
}

/// Wall-clock seconds since the epoch, as the probe bot writes them.
pub fn now_secs() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("a clock after 1970")
        .as_secs_f64()
}

/// The columns of a match's or league's results table (the standings' quick table), in order;
/// `ready as` is the rest of the line.
pub const TABLE_COLUMNS: [&str; 13] = [
    "#", "bot", "rating", "games", "points", "wins", "draws", "losses", "place", "discs", "faults",
    "mean ms", "max ms",
];

/// A bot's row of a results table, by column (`TABLE_COLUMNS`, and `ready as`); None when no row
/// is the bot's.
pub fn table_row(
    table: &str,
    bot: &str,
) -> Option<std::collections::BTreeMap<&'static str, String>> {
    table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < TABLE_COLUMNS.len() || fields[1] != bot {
            return None;
        }
        let mut row: std::collections::BTreeMap<&'static str, String> = TABLE_COLUMNS
            .iter()
            .zip(&fields)
            .map(|(&column, &value)| (column, value.to_string()))
            .collect();
        row.insert("ready as", fields[TABLE_COLUMNS.len()..].join(" "));
        Some(row)
    })
}
