//! From the words a person wrote (`python3 bots/mine.py`, `builtin:greedy`) to bots the runner
//! can start, with names that tell them apart in tables and records.

use super::runner::BotSpec;
use crate::bots;
use crate::limits::Limits;
use crate::process::{split_command, BotLog};
use std::path::{Path, PathBuf};

/// A friendly name for a bot command: `builtin:greedy` is `greedy`; `python3 bots/mine.py` is
/// `mine`; `./target/release/best --depth 3` is `best`. A sandbox prefix is skipped:
/// `bwrap … -- python3 mine.py` is `mine` too.
pub fn bot_name(argv: &[String]) -> String {
    const SANDBOXES: &[&str] = &["bwrap", "firejail", "nsjail", "prlimit", "systemd-run"];
    let program = argv
        .first()
        .map_or("", |p| p.rsplit('/').next().unwrap_or(p));
    if SANDBOXES.contains(&program) {
        if let Some(end) = argv.iter().position(|a| a == "--") {
            if end + 1 < argv.len() {
                return bot_name(&argv[end + 1..]);
            }
        }
    }
    const INTERPRETERS: &[&str] = &[
        "python", "python3", "node", "nodejs", "java", "ruby", "perl", "sh", "bash", "deno", "bun",
        "pypy3", "env", "php", "lua",
    ];
    let stem = |s: &str| {
        let base = s.rsplit('/').next().unwrap_or(s);
        match base.rsplit_once('.') {
            Some((stem, _)) if !stem.is_empty() => stem.to_string(),
            _ => base.to_string(),
        }
    };
    let first = argv.first().map(String::as_str).unwrap_or("bot");
    let base = first.rsplit('/').next().unwrap_or(first);
    if (INTERPRETERS.contains(&base) || base.starts_with("python"))
        && !argv.iter().any(|a| a == "-c" || a == "-e")
    {
        if let Some(script) = argv[1..].iter().find(|a| !a.starts_with('-')) {
            return stem(script);
        }
    }
    stem(first)
}

/// A bot from its command line or `builtin:NAME`; `exe` is this program, which built-in bots run
/// as. The name is `name` if given, else taken from the command. Errors say what is wrong.
pub fn bot_spec(
    spec: &str,
    name: Option<&str>,
    exe: &Path,
    dir: Option<PathBuf>,
) -> Result<BotSpec, String> {
    if let Some(builtin) = spec.strip_prefix("builtin:") {
        if !bots::NAMES.contains(&builtin) {
            return Err(format!(
                "no built-in bot named '{builtin}' (choose from {})",
                bots::NAMES.join(", ")
            ));
        }
        return Ok(BotSpec {
            name: name.unwrap_or(builtin).to_string(),
            command: vec![spec.to_string()],
            argv: vec![
                exe.to_string_lossy().into_owned(),
                "bot".into(),
                builtin.into(),
            ],
            builtin: true,
            dir,
            env: Vec::new(),
            log: None,
            limits: Limits::default(),
        });
    }
    let argv = split_command(spec)?;
    Ok(BotSpec {
        name: name.map_or_else(|| bot_name(&argv), str::to_string),
        command: argv.clone(),
        argv,
        builtin: false,
        dir,
        env: Vec::new(),
        log: None,
        limits: Limits::default(),
    })
}

/// Names are how tables tell bots apart: the second `random` becomes `random-2`.
pub fn distinct_names(bots: &mut [BotSpec]) {
    let given: Vec<String> = bots.iter().map(|p| p.name.clone()).collect();
    for (i, p) in bots.iter_mut().enumerate() {
        let before = given[..i].iter().filter(|&n| *n == given[i]).count();
        if before > 0 {
            p.name = format!("{}-{}", given[i], before + 1);
        }
    }
}

/// A name made safe for a file name.
pub fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Keeps each bot's stderr in `dir/botN-NAME.log` (and, with `protocol`, its protocol lines),
/// opening every log now: one that cannot be opened is output that cannot be written (exit 5),
/// found before any bot starts. One log serves all of a bot's processes in the run.
pub fn set_logs(bots: &mut [BotSpec], dir: &Path, protocol: bool) -> anyhow::Result<()> {
    for (i, p) in bots.iter_mut().enumerate() {
        let path = dir.join(format!("bot{}-{}.log", i + 1, file_safe(&p.name)));
        let log = BotLog::open(&path, protocol).map_err(|e| {
            crate::exit::fail(
                crate::exit::OUTPUT,
                format!("--log-dir: cannot open {}: {e}", path.display()),
            )
        })?;
        p.log = Some(log);
    }
    Ok(())
}

/// A game id no other run shares: the run's start time (UTC, to the second), a random tag that
/// tells apart runs started in the same second, and the game's number.
pub fn run_stamp() -> String {
    let stamp = crate::referee::rfc3339(std::time::SystemTime::now())
        .replace(['-', ':'], "")
        .replace('T', "-")
        .trim_end_matches('Z')
        .to_string();
    let tag = crate::rng::Rng::fresh_seed() & 0xffff_ffff;
    format!("{stamp}-{tag:08x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_commands() {
        let v = |s: &str| split_command(s).unwrap();
        assert_eq!(bot_name(&v("python3 bots/mine.py --fast")), "mine");
        assert_eq!(bot_name(&v("./target/release/best --depth 3")), "best");
        assert_eq!(bot_name(&v("node starter/js/bot.js")), "bot");
        assert_eq!(bot_name(&v("java -jar x.jar")), "x");
        assert_eq!(bot_name(&v("sh -c 'exec ./x'")), "sh");
        assert_eq!(
            bot_name(&v(
                "bwrap --ro-bind / / --unshare-all -- python3 bots/mine.py"
            )),
            "mine"
        );
        assert_eq!(bot_name(&v("/usr/bin/bwrap --ro-bind / /")), "bwrap");
    }

    #[test]
    fn stamps_differ_within_a_second() {
        let stamps: std::collections::HashSet<String> = (0..50).map(|_| run_stamp()).collect();
        assert_eq!(stamps.len(), 50);
    }
}
