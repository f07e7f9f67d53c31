//! From the words a person wrote (`python3 bots/mine.py`, `builtin:greedy`) to bots the runner
//! can start, with names that tell them apart in tables and records.

use super::plan::BotSpec;
use crate::bots;
use crate::limits::Limits;
use crate::process::{split_command, BotLog};
use std::path::{Path, PathBuf};

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
        let argv = vec![
            exe.to_string_lossy().into_owned(),
            "bot".into(),
            builtin.into(),
        ];
        let mut bot = plain(name.unwrap_or(builtin), vec![spec.to_string()], argv, dir);
        bot.builtin = true;
        return Ok(bot);
    }
    let argv = split_command(spec)?;
    let name = name.map_or_else(|| crate::names::command_name(&argv), str::to_string);
    Ok(plain(&name, argv.clone(), argv, dir))
}

/// A bot from words as a person gave them: one word is a BOT as `match` takes it (a command line
/// split like a shell would, or `builtin:NAME`); several words, or words that came after `--`
/// (`as_given`), are the argument list itself (`check-bot -- python3 my bot.py`, `check-bot --
/// "/opt/my bots/bot"`: one program, its path taken whole). `builtin:NAME` is a built-in bot
/// either way.
pub fn from_words(
    words: &[String],
    as_given: bool,
    name: Option<&str>,
    exe: &Path,
    dir: Option<PathBuf>,
) -> Result<BotSpec, String> {
    match words {
        [] => Err("no command given".into()),
        [word] if !as_given || word.starts_with("builtin:") => bot_spec(word, name, exe, dir),
        _ => {
            let name = name.map_or_else(|| crate::names::command_name(words), str::to_string);
            Ok(plain(&name, words.to_vec(), words.to_vec(), dir))
        }
    }
}

/// A bot over the network, before its lobby is known: its recorded command says so
/// (`remote:NAME`), and it has nothing to start.
pub fn remote_spec(name: &str) -> BotSpec {
    plain(name, vec![format!("remote:{name}")], Vec::new(), None)
}

/// A bot recorded as `command` and started as `argv`, with no environment, log, limits or lobby
/// yet: the front-ends set those after the line-up is known.
fn plain(name: &str, command: Vec<String>, argv: Vec<String>, dir: Option<PathBuf>) -> BotSpec {
    BotSpec {
        name: name.to_string(),
        command,
        argv,
        builtin: false,
        dir,
        env: Vec::new(),
        log: None,
        limits: Limits::default(),
        remote: None,
    }
}

/// `names::assign` for the bots of a run: their names so far (from `builtin:NAME` or the
/// command) made distinct, `given[i]` taking precedence for bot i; with the bots whose automatic
/// name a given one took (`names::Yielded`), for the front-end to say.
pub fn assign_names(
    bots: &[BotSpec],
    given: &[Option<String>],
) -> Result<(Vec<String>, Vec<crate::names::Yielded>), String> {
    let automatic: Vec<String> = bots.iter().map(|b| b.name.clone()).collect();
    let commands: Vec<Option<Vec<String>>> = bots
        .iter()
        .map(|b| (!b.builtin).then(|| b.argv.clone()))
        .collect();
    crate::names::assign_noting(&automatic, &commands, given)
}

/// Names are how tables tell bots apart: bots whose commands give the same name are told apart by
/// a word of their commands, else numbered (`random-2`); see `crate::names`.
pub fn distinct_names(bots: &mut [BotSpec]) {
    let none = vec![None; bots.len()];
    // Without given names, assigning cannot fail.
    if let Ok((names, _)) = assign_names(bots, &none) {
        for (bot, name) in bots.iter_mut().zip(names) {
            bot.name = name;
        }
    }
}

/// A name made safe for a file name, and cut to 100 characters: a name may be any length, a
/// file name at most 255 bytes, and the bot's number in its log's name keeps the logs apart.
pub fn file_safe(name: &str) -> String {
    name.chars()
        .take(100)
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
                format!("cannot open the bot log {}: {e}", path.display()),
            )
        })?;
        p.log = Some(log);
    }
    Ok(())
}

/// A game id no other run shares: the run's start time (UTC, to the second), a random tag that
/// tells apart runs started in the same second, and the game's number.
pub fn run_stamp() -> String {
    let stamp = crate::record::rfc3339(std::time::SystemTime::now())
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

    /// A name of any length makes a log's file name the file system takes (at most 255 bytes).
    #[test]
    fn a_name_is_made_a_short_safe_file_name() {
        assert_eq!(file_safe("v2/bot é"), "v2_bot__");
        let long = file_safe(&"ń".repeat(300));
        assert_eq!(long, "_".repeat(100));
        let dir = std::env::temp_dir().join(format!("multiversi-logname-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut bots = vec![plain(&"n".repeat(300), vec!["x".into()], Vec::new(), None)];
        set_logs(&mut bots, &dir, false).expect("a log with a long name opens");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn stamps_differ_within_a_second() {
        let stamps: std::collections::HashSet<String> = (0..50).map(|_| run_stamp()).collect();
        assert_eq!(stamps.len(), 50);
    }
}
