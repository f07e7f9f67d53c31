//! Running the multiversi binary built for these tests.

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
