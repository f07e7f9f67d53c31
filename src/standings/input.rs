//! Reading record files for the standings: line by line, each record added to the sums and
//! dropped at once, so that memory does not grow with the size of the files. Lines
//! are read as `multiversi replay` reads them (`replay::read::read_line`); a damaged line — cut off
//! by a kill, not a record, inconsistent — is skipped with a warning naming its file and line, or
//! with `strict` is an error (exit 3). Optionally every game counted is also streamed into a
//! replay viewer, in the same order, so that game N of the standings is `#game=N` there.

use super::games::{Added, Games};
use crate::exit::{self, fail};
use crate::replay::html::Streaming;
use crate::replay::read::{cannot_read, read_line, Damaged, Source};
use anyhow::Result;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

/// What reading the files gave.
#[derive(Debug)]
pub struct Read {
    pub games: Games,
    /// Lines skipped, with why.
    pub damaged: Vec<Damaged>,
    /// Lines holding a game already counted from an earlier line, with the first copy's number.
    pub duplicates: Vec<(Source, u32)>,
}

/// Reads the files in order. A file that cannot be opened or read is an error (exit 3) naming
/// it; so is a damaged line when `strict`. With `viewer`, each game counted is written to it.
/// `listed`: whether the games are kept for the HTML page's list of games.
pub fn read_files<W: Write>(
    paths: &[PathBuf],
    strict: bool,
    mut viewer: Option<&mut Streaming<W>>,
    listed: bool,
) -> Result<Read> {
    let games = Games::new();
    let mut read = Read {
        games: if listed {
            games
        } else {
            games.without_game_list()
        },
        damaged: Vec::new(),
        duplicates: Vec::new(),
    };
    for path in paths {
        let cannot = |e: std::io::Error| cannot_read(path, e);
        let mut file = BufReader::new(std::fs::File::open(path).map_err(cannot)?);
        let mut line = Vec::new();
        for number in 1.. {
            line.clear();
            if file.read_until(b'\n', &mut line).map_err(cannot)? == 0 {
                break;
            }
            let source = Source {
                path: path.clone(),
                line: number,
            };
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let outcome = read_line(text).and_then(|record| {
                let added = read
                    .games
                    .add_from(&record, || format!("{source}, game {}", record.game))
                    .map_err(|e| format!("inconsistent record: {e}"))?;
                Ok((record, added))
            });
            match outcome {
                Ok((record, Added::Counted(_))) => {
                    if let Some(v) = viewer.as_deref_mut() {
                        v.game(&source.to_string(), &record).map_err(|e| {
                            fail(exit::OUTPUT, format!("cannot write the replay viewer: {e}"))
                        })?;
                    }
                }
                Ok((_, Added::Duplicate(first))) => read.duplicates.push((source, first)),
                Err(message) => {
                    let damaged = Damaged { source, message };
                    if strict {
                        return Err(fail(exit::BAD_INPUT, format!("{damaged} (--strict)")));
                    }
                    read.damaged.push(damaged);
                }
            }
        }
    }
    Ok(read)
}

/// Writes a file through a temporary file in the same directory and a rename, so that a failure
/// half-way never leaves a half-written report where the last good one was. The temporary file's
/// name is this writer's own (a tag drawn from the clock and the process id, and a count within
/// the process): two writers of one file at once (the shards of a league finishing together in
/// one directory, perhaps on two machines sharing it, where process ids can be the same) must
/// not write into, or rename away, each other's temporary file; the last rename wins, and each
/// file is whole.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let count = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tag = crate::rng::Rng::fresh_seed();
    let temp = path.with_file_name(format!(".{name}.tmp-{tag:016x}-{count}"));
    let cannot = |e: std::io::Error| {
        fail(
            exit::OUTPUT,
            format!("cannot write {}: {e}", path.display()),
        )
    };
    let result = (|| {
        let file = std::fs::File::create(&temp)?;
        let mut out = std::io::BufWriter::new(file);
        write(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.map_err(cannot)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Outcome;
    use crate::standings::games::tests::record;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "multiversi-standings-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn line(game: &str) -> String {
        let mut r = record(
            &["a", "b", "c"],
            &[3, 2, 1],
            &[&[0], &[1], &[2]],
            Outcome::Win { winner: 0 },
        );
        r.game = game.into();
        serde_json::to_string(&r).unwrap() + "\n"
    }

    #[test]
    fn damaged_lines_are_skipped_or_refused_and_duplicates_counted_once() {
        let dir = temp("damaged");
        let one = dir.join("one.jsonl");
        let cut = line("g2");
        std::fs::write(&one, line("g1") + "\n" + &cut[..cut.len() / 2]).unwrap();
        let two = dir.join("two.jsonl");
        std::fs::write(&two, line("g3") + "not json\n" + &line("g1")).unwrap();
        let paths = vec![one.clone(), two.clone()];
        let read = read_files::<Vec<u8>>(&paths, false, None, false).unwrap();
        assert_eq!(read.games.games.len(), 2);
        let damaged: Vec<String> = read.damaged.iter().map(|d| d.source.to_string()).collect();
        assert_eq!(
            damaged,
            vec![
                format!("{}:3", one.display()),
                format!("{}:2", two.display())
            ]
        );
        assert!(read.damaged[0].message.contains("cut off"));
        assert_eq!(read.duplicates.len(), 1);
        assert_eq!(read.duplicates[0].0.line, 3);
        assert_eq!(read.duplicates[0].1, 1);

        let e = read_files::<Vec<u8>>(&paths, true, None, false).unwrap_err();
        let f = e.downcast_ref::<crate::exit::Failure>().unwrap();
        assert_eq!(f.code, exit::BAD_INPUT);
        assert!(
            f.message.contains(&format!("{}:3", one.display())),
            "{}",
            f.message
        );

        let e =
            read_files::<Vec<u8>>(&[dir.join("missing.jsonl")], false, None, false).unwrap_err();
        assert!(e.to_string().contains("missing.jsonl: no such file"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_viewer_gets_the_counted_games_in_order() {
        let dir = temp("viewer");
        let file = dir.join("g.jsonl");
        std::fs::write(&file, line("g1") + &line("g2") + &line("g1")).unwrap();
        let mut viewer = Streaming::start(Vec::new(), "t").unwrap();
        read_files(&[file], false, Some(&mut viewer), false).unwrap();
        let page = String::from_utf8(viewer.finish().unwrap()).unwrap();
        let g1 = page.find("\"game\":\"g1\"").unwrap();
        let g2 = page.find("\"game\":\"g2\"").unwrap();
        assert!(g1 < g2);
        assert_eq!(page.matches("\"game\":\"g1\"").count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn writing_atomically_leaves_the_old_file_on_failure() {
        let dir = temp("atomic");
        let path = dir.join("standings.json");
        write_atomically(&path, |out| out.write_all(b"first")).unwrap();
        let failed = write_atomically(&path, |out| {
            out.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Two writers of one file at once, as two shards of a league that finish together write the
    /// standings of one directory: each writes its own temporary file, so neither finds its file
    /// renamed away by the other ("No such file or directory"), and the file is one writer's whole.
    #[test]
    fn two_writers_of_one_file_at_once_both_succeed() {
        let dir = temp("atomic-twice");
        let path = dir.join("games.html");
        let mut inner = None;
        let outer = write_atomically(&path, |out| {
            out.write_all(b"outer, first half; ")?;
            // The other writer starts and finishes while this one is half-way.
            inner = Some(write_atomically(&path, |o| o.write_all(b"inner, whole")));
            out.write_all(b"outer, second half")
        });
        assert!(inner.unwrap().is_ok());
        assert!(outer.is_ok(), "{outer:?}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "outer, first half; outer, second half"
        );
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
