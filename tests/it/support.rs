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
