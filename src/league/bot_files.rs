//! The files a league's or a test's bots are made of, remembered by a digest of their contents
//! in the directory (`bot-files.json`), so that a run resumed after a bot was edited says so.
//!
//! A resumed run plays on with the games already recorded. When a bot's command is the same but
//! the script or program it names was edited meanwhile, those games are of another program: a
//! sequential test would weigh two versions of NEW as one and give a verdict on neither, so it
//! refuses to go on; a league warns that its standings mix the versions, as an organiser may
//! have replaced a bot on purpose.
//!
//! What is remembered is every word of a bot's command that names a regular file (relative to
//! the bot's working directory): `mybot.py` in `python3 mybot.py`, `./bot`, `bot.jar`. A program
//! found on PATH (`python3`) is not: an interpreter's upgrade is no new bot. Neither are files a
//! bot opens by itself (a module it imports, its weights): the README says so.

use crate::exit::{self, fail};
use crate::run::BotSpec;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The file in a league's or a test's directory.
pub const FILE_NAME: &str = "bot-files.json";

/// Per bot name, per file as its command names it: the file's size and digest, as
/// `SIZE:FNV1A64`; and the bots of a league that played on after a file of theirs changed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotFiles {
    pub bots: BTreeMap<String, BTreeMap<String, String>>,
    /// Bots whose games in the directory were played by more than one version of their files:
    /// said at every run from then on, whatever the files hold later (a file edited back does
    /// not undo the games played meanwhile).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub mixed: BTreeSet<String>,
}

/// What `check` found.
#[derive(Debug, Default)]
pub struct Found {
    /// What changed in the files of bots that have games, one phrase each, with the bot.
    pub changed: Vec<(String, String)>,
    /// Bots that played on after such a change at an earlier run, whose files match now.
    pub mixed_before: Vec<String>,
}

/// The words of a bot's command that name a regular file, with the path each is read at.
fn named_files(spec: &BotSpec) -> Vec<(String, PathBuf)> {
    if spec.builtin || spec.remote.is_some() {
        return Vec::new();
    }
    spec.argv
        .iter()
        .enumerate()
        // The program itself only by a path: a bare name is looked up on PATH.
        .filter(|(i, word)| *i > 0 || word.contains('/'))
        .map(|(_, word)| {
            let path = match &spec.dir {
                Some(dir) if Path::new(word).is_relative() => dir.join(word),
                _ => PathBuf::from(word),
            };
            (word.clone(), path)
        })
        .filter(|(_, path)| path.is_file())
        .collect()
}

/// A file's size and the FNV-1a digest of its bytes: enough to tell an edited file from the
/// same one (it is no defence against someone who means to fool it).
fn digest(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut size: u64 = 0;
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let n = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        for &byte in &buffer[..n] {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        size += n as u64;
    }
    Ok(format!("{size}:{hash:016x}"))
}

impl BotFiles {
    /// The files of these bots as they are now. A file that cannot be read is left out: the bot
    /// will fail to start, and say why, where it matters.
    pub fn of(bots: &[BotSpec]) -> BotFiles {
        let mut out = BotFiles::default();
        // Each file read once: bots often share one (an interpreter's script with options, or
        // one program playing under several names).
        let mut read: HashMap<PathBuf, Option<String>> = HashMap::new();
        for spec in bots {
            let files: BTreeMap<String, String> = named_files(spec)
                .into_iter()
                .filter_map(|(word, path)| {
                    let digest = read
                        .entry(path)
                        .or_insert_with_key(|path| digest(path).ok())
                        .clone()?;
                    Some((word, digest))
                })
                .collect();
            if !files.is_empty() {
                out.bots.insert(spec.name.clone(), files);
            }
        }
        out
    }

    /// What changed in the files of the bots that have games (`played`) since `self` was
    /// remembered, one phrase each, such as `mybot.py (bot mybot) has changed`.
    pub fn changes(&self, now: &BotFiles, played: &HashSet<String>) -> Vec<(String, String)> {
        let empty = BTreeMap::new();
        let mut changes = Vec::new();
        for (bot, before) in &self.bots {
            if !played.contains(bot) {
                continue;
            }
            let after = now.bots.get(bot).unwrap_or(&empty);
            for (file, digest) in before {
                match after.get(file) {
                    Some(d) if d == digest => {}
                    Some(_) => {
                        changes.push((bot.clone(), format!("{file} (bot {bot}) has changed")))
                    }
                    None => changes.push((bot.clone(), format!("{file} (bot {bot}) is gone"))),
                }
            }
        }
        changes
    }

    /// What to remember from now on: the files a played bot's games were played with, and for
    /// any other bot its files as they are now.
    fn merged(&self, now: &BotFiles, played: &HashSet<String>) -> BotFiles {
        let mut out = now.clone();
        out.mixed = self.mixed.clone();
        for (bot, files) in &self.bots {
            if played.contains(bot) {
                out.bots.insert(bot.clone(), files.clone());
            }
        }
        out
    }
}

/// Reads the directory's remembered files (none before the first run, or in a directory from
/// a build without them), compares them with `bots` as they are now, and remembers the files
/// of bots that have no games yet. Says what changed in the bots that have games (`played`);
/// with `playing_on` (a league that plays games now), remembers those bots as mixed.
pub fn check(
    out: &Path,
    bots: &[BotSpec],
    played: &HashSet<String>,
    playing_on: bool,
) -> Result<Found> {
    let path = out.join(FILE_NAME);
    let before: BotFiles = match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| {
            fail(
                exit::BAD_INPUT,
                format!(
                    "{}: damaged: {e} (remove it to go on without checking the bots' files)",
                    path.display()
                ),
            )
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => BotFiles::default(),
        Err(e) => {
            return Err(fail(
                exit::BAD_INPUT,
                format!("{}: cannot read: {e}", path.display()),
            ))
        }
    };
    let now = BotFiles::of(bots);
    let changed = before.changes(&now, played);
    let mut keep = before.merged(&now, played);
    let mixed_before: Vec<String> = before
        .mixed
        .iter()
        .filter(|bot| !changed.iter().any(|(b, _)| b == *bot))
        .cloned()
        .collect();
    if playing_on {
        keep.mixed
            .extend(changed.iter().map(|(bot, _)| bot.clone()));
    }
    if keep != before {
        let text = serde_json::to_string_pretty(&keep).unwrap_or_default() + "\n";
        crate::files::write_atomically(&path, |w| w.write_all(text.as_bytes()))?;
    }
    Ok(Found {
        changed,
        mixed_before,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(entries: &[(&str, &str, &str)]) -> BotFiles {
        let mut out = BotFiles::default();
        for (bot, file, digest) in entries {
            out.bots
                .entry(bot.to_string())
                .or_default()
                .insert(file.to_string(), digest.to_string());
        }
        out
    }

    #[test]
    fn only_the_files_of_bots_with_games_are_held_to_what_they_were() {
        let before = files(&[
            ("a", "a.py", "1:x"),
            ("b", "b.py", "1:y"),
            ("c", "c", "1:z"),
        ]);
        let now = files(&[
            ("a", "a.py", "2:x"),
            ("b", "b.py", "1:y"),
            ("c", "c", "2:z"),
        ]);
        let played: HashSet<String> = ["a", "b"].iter().map(|s| s.to_string()).collect();
        let phrases = |c: Vec<(String, String)>| c.into_iter().map(|(_, p)| p).collect::<Vec<_>>();
        assert_eq!(
            phrases(before.changes(&now, &played)),
            ["a.py (bot a) has changed"]
        );
        // c has no game: its new file is remembered; a keeps the file its games were played with.
        let kept = before.merged(&now, &played);
        assert_eq!(kept.bots["a"]["a.py"], "1:x");
        assert_eq!(kept.bots["c"]["c"], "2:z");
        let gone = files(&[("b", "b.py", "1:y")]);
        assert_eq!(
            phrases(before.changes(&gone, &played)),
            ["a.py (bot a) is gone"]
        );
    }

    #[test]
    fn a_digest_tells_an_edit_from_the_same_bytes() {
        let dir = std::env::temp_dir().join(format!("multiversi-bot-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bot.py");
        std::fs::write(&path, "print('a')\n").unwrap();
        let first = digest(&path).unwrap();
        std::fs::write(&path, "print('a')\n").unwrap();
        assert_eq!(digest(&path).unwrap(), first);
        std::fs::write(&path, "print('b')\n").unwrap();
        assert_ne!(digest(&path).unwrap(), first);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
