//! Reading record files for the standings: line by line, each record summarised and dropped at
//! once, so that a league's 10,000 games need a few megabytes, not the size of the files. Lines
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
use std::path::PathBuf;

/// What reading the files gave.
#[derive(Debug, Default)]
pub struct Read {
    pub games: Games,
    /// Lines skipped, with why.
    pub damaged: Vec<Damaged>,
    /// Lines holding a game already counted from an earlier line, with the first copy's number.
    pub duplicates: Vec<(Source, u32)>,
}

/// Reads the files in order. A file that cannot be opened or read is an error (exit 3) naming
/// it; so is a damaged line when `strict`. With `viewer`, each game counted is written to it.
pub fn read_files<W: Write>(
    paths: &[PathBuf],
    strict: bool,
    mut viewer: Option<&mut Streaming<W>>,
) -> Result<Read> {
    let mut read = Read::default();
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
        let read = read_files::<Vec<u8>>(&paths, false, None).unwrap();
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

        let e = read_files::<Vec<u8>>(&paths, true, None).unwrap_err();
        let f = e.downcast_ref::<crate::exit::Failure>().unwrap();
        assert_eq!(f.code, exit::BAD_INPUT);
        assert!(
            f.message.contains(&format!("{}:3", one.display())),
            "{}",
            f.message
        );

        let e = read_files::<Vec<u8>>(&[dir.join("missing.jsonl")], false, None).unwrap_err();
        assert!(e.to_string().contains("missing.jsonl: no such file"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_viewer_gets_the_counted_games_in_order() {
        let dir = temp("viewer");
        let file = dir.join("g.jsonl");
        std::fs::write(&file, line("g1") + &line("g2") + &line("g1")).unwrap();
        let mut viewer = Streaming::start(Vec::new(), "t").unwrap();
        read_files(&[file], false, Some(&mut viewer)).unwrap();
        let page = String::from_utf8(viewer.finish().unwrap()).unwrap();
        let g1 = page.find("\"game\":\"g1\"").unwrap();
        let g2 = page.find("\"game\":\"g2\"").unwrap();
        assert!(g1 < g2);
        assert_eq!(page.matches("\"game\":\"g1\"").count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
