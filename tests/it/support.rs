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
