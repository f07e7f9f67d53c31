//! The starter bots of `bots/` (Python, JavaScript, C, Rust) as the tests run them: the C and
//! Rust bots built once per test run into `CARGO_TARGET_TMPDIR`.

use super::shell::{bot_cmd, utf8};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The repository's root (the checkout the tests were built from).
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn build_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("starter-bots")
}

/// Runs a build command and panics with its output if it fails.
fn build(mut command: Command, what: &str) {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run the {what} build ({command:?}): {e}"));
    assert!(
        out.status.success(),
        "{what} build failed: {command:?}\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The C bot, compiled once per test run, with warnings as errors.
fn c_bot() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        std::fs::create_dir_all(build_dir()).unwrap();
        let bin = build_dir().join("starter-c");
        let mut gcc = Command::new("gcc");
        gcc.args(["-O2", "-std=c99", "-Wall", "-Wextra", "-Werror", "-o"])
            .arg(&bin)
            .arg(repo().join("bots/c/starter.c"));
        build(gcc, "C starter bot");
        bin
    })
}

/// The Rust bot, built by cargo as the standalone crate it is (its own lock file, its own target
/// directory inside this test run's temporary directory).
fn rust_bot() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let target = build_dir().join("rust-target");
        let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        cargo
            .args([
                "build",
                "--release",
                "--locked",
                "--quiet",
                "--manifest-path",
            ])
            .arg(repo().join("bots/rust/Cargo.toml"))
            .arg("--target-dir")
            .arg(&target)
            .env_remove("CARGO_TARGET_DIR");
        build(cargo, "Rust starter bot");
        target.join("release/multiversi-starter")
    })
}

/// A starter bot: its expected `ready` name, the command that runs it, and the same as one BOT
/// argument of `multiversi match` (run from the repository root).
pub struct Bot {
    pub name: &'static str,
    pub command: Vec<PathBuf>,
    pub arg: String,
}

pub fn bot(language: &str) -> Bot {
    let path = |p: &str| repo().join(p);
    match language {
        "python" => Bot {
            name: "starter-python",
            command: vec!["python3".into(), path("bots/python/starter.py")],
            arg: "python3 bots/python/starter.py".into(),
        },
        "js" => Bot {
            name: "starter-js",
            command: vec!["node".into(), path("bots/js/starter.js")],
            arg: "node bots/js/starter.js".into(),
        },
        "c" => Bot {
            name: "starter-c",
            command: vec![c_bot().to_path_buf()],
            arg: bot_cmd(&[utf8(c_bot())]),
        },
        "rust" => Bot {
            name: "starter-rust",
            command: vec![rust_bot().to_path_buf()],
            arg: bot_cmd(&[utf8(rust_bot())]),
        },
        _ => unreachable!(),
    }
}
