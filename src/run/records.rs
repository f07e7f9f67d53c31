//! The record file as the runner writes it: one complete line per game, each written whole (the
//! lines of a batch with one write), and forced to disk before its game is reported as finished, so that a crash
//! or a `kill -9` never loses or damages a game already reported as finished.
//!
//! The runner commits in groups (see `workers`): one thread writes the lines of the games that
//! ended, then forces all of them to disk with one `fdatasync` (`sync`), and only then reports
//! them. A game's line is serialised by the worker that played it (`Line::of`), so that the
//! writer does nothing but write.

use crate::record::{GameRecord, MoveRecord, OwnGames, Schedule, ScheduleRef, Whose, FORMAT};
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, IoSlice, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// An append-only JSON Lines file shared by the workers.
pub struct RecordFile {
    path: PathBuf,
    state: Mutex<Appender>,
    /// A second handle on the same file, to force data to disk without holding the lock.
    sync: File,
    /// The file did not exist before this run opened it.
    created: bool,
}

struct Appender {
    file: File,
    /// The file ended without a newline (a line cut off by a crash): the next game starts on a
    /// line of its own, so that the damaged line stays the only damaged one.
    needs_newline: bool,
    /// The games the file holds: whole records, not a damaged line.
    games: u64,
    /// Lines that are not a whole record (cut off by a kill, or not a game at all).
    damaged: u64,
}

impl RecordFile {
    /// Opens (creating) a record file for appending and counts the games it already holds.
    pub fn open(path: &Path) -> std::io::Result<RecordFile> {
        // A device or a FIFO cannot hold games to count, resume or sync (/dev/null refuses the
        // sync after the first game; reading a FIFO to count its games waits forever).
        if let Ok(meta) = std::fs::metadata(path) {
            if !meta.is_file() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "not a regular file: games are kept in a file (to keep none, leave the \
                     option out)",
                ));
            }
        }
        let created = !path.exists();
        let mut file = File::options()
            .create(true)
            .append(true)
            .read(true)
            .open(path)?;
        let len = file.metadata()?.len();
        let mut needs_newline = false;
        if len > 0 {
            let mut last = [0u8; 1];
            file.seek(SeekFrom::Start(len - 1))?;
            file.read_exact(&mut last)?;
            needs_newline = last[0] != b'\n';
        }
        let (games, damaged) = count_games(path)?;
        let sync = file.try_clone()?;
        Ok(RecordFile {
            path: path.to_path_buf(),
            state: Mutex::new(Appender {
                file,
                needs_newline,
                games,
                damaged,
            }),
            sync,
            created,
        })
    }

    /// Removes the file if this run created it and wrote nothing into it (a match that stopped
    /// before any game was recorded leaves no empty file behind). Returns whether it did.
    pub fn remove_if_unused(&self) -> bool {
        let empty = std::fs::metadata(&self.path).is_ok_and(|m| m.len() == 0);
        self.created && empty && std::fs::remove_file(&self.path).is_ok()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many games the file holds now: the whole records, not a line cut off by a kill.
    pub fn games(&self) -> u64 {
        self.state.lock().map_or(0, |s| s.games)
    }

    /// How many lines of the file are not a whole record (`replay` and `standings` skip them).
    pub fn damaged(&self) -> u64 {
        self.state.lock().map_or(0, |s| s.damaged)
    }

    /// Appends one game as one line with a single write, then forces it to disk. A write that
    /// fails leaves the file as it was.
    pub fn append(&self, record: &mut GameRecord) -> std::io::Result<()> {
        if let (_, Some(e)) = self.write_lines(&[&Line::of(record)?]) {
            return Err(e);
        }
        self.sync()
    }

    /// Appends several games' lines, in order, with one write for all of them where the file
    /// takes them, without forcing them to disk: a game is not safe until a `sync` after this
    /// write has returned. A batch of the writer thread costs one system call and one update of
    /// the file's times instead of one a game. Returns how many of the lines the file
    /// now holds whole, and the error that stopped the rest: a write that fails half-way keeps
    /// the lines written whole before it and takes back the part of the next.
    pub fn write_lines(&self, lines: &[&Line]) -> (usize, Option<std::io::Error>) {
        let mut state = match self.state.lock() {
            Ok(state) => state,
            Err(_) => {
                return (
                    0,
                    Some(std::io::Error::other("a worker panicked while writing")),
                )
            }
        };
        // A write that fails half-way (disk full, a file size limit) must not leave half a
        // line: the next game appended, by this run or a later one, would be glued to it.
        let before = match state.file.metadata() {
            Ok(metadata) => metadata.len(),
            Err(e) => return (0, Some(e)),
        };
        let newline = usize::from(state.needs_newline);
        let mut parts: Vec<&[u8]> = Vec::with_capacity(lines.len() + 1);
        if newline == 1 {
            parts.push(b"\n");
        }
        parts.extend(lines.iter().map(|line| &line.bytes[..]));
        let (bytes, failed) = write_all_vectored(&mut state.file, &parts);
        let Some(e) = failed else {
            state.needs_newline = false;
            state.games += lines.len() as u64;
            return (lines.len(), None);
        };
        // The lines that went out whole stay; the rest of the write is taken back.
        let (whole, kept) = whole_lines(newline, lines.iter().map(|l| l.bytes.len()), bytes);
        let _ = state.file.set_len(before + kept as u64);
        if kept > 0 {
            state.needs_newline = false;
        }
        state.games += whole as u64;
        (whole, Some(e))
    }

    /// Forces every line written so far to disk. `fdatasync`, not `fsync`: an append changes
    /// the file's size, which `fdatasync` writes too (the data could not be read back without
    /// it), and it skips only what a reader does not need, such as the modification time.
    /// Taken on a handle of its own, so that it holds no lock while the disk works.
    pub fn sync(&self) -> std::io::Result<()> {
        self.sync.sync_data()
    }
}

/// Of a write of `newline` (0 or 1) newline bytes and then lines of these lengths, cut off after
/// `bytes`: how many lines went out whole, and how many bytes those and the newline are.
fn whole_lines(
    newline: usize,
    lengths: impl Iterator<Item = usize>,
    bytes: usize,
) -> (usize, usize) {
    if bytes < newline {
        return (0, 0);
    }
    let (mut whole, mut kept) = (0, newline);
    for length in lengths {
        if kept + length > bytes {
            break;
        }
        kept += length;
        whole += 1;
    }
    (whole, kept)
}

/// Writes every byte of `parts`, in as few `writev` calls as the file takes them; returns how
/// many bytes were written, and the error that stopped the rest.
fn write_all_vectored(file: &mut impl Write, parts: &[&[u8]]) -> (usize, Option<std::io::Error>) {
    // `writev` takes at most IOV_MAX (1,024 on Linux) slices a call.
    const MOST: usize = 1024;
    let (mut written, mut next, mut within) = (0, 0, 0);
    while next < parts.len() {
        let slices: Vec<IoSlice<'_>> = std::iter::once(&parts[next][within..])
            .chain(parts[next + 1..].iter().copied())
            .take(MOST)
            .map(IoSlice::new)
            .collect();
        match file.write_vectored(&slices) {
            Ok(0) => return (written, Some(std::io::ErrorKind::WriteZero.into())),
            Ok(mut n) => {
                written += n;
                // Past the slices written whole, into the one the write stopped in.
                while next < parts.len() && n >= parts[next].len() - within {
                    n -= parts[next].len() - within;
                    next += 1;
                    within = 0;
                }
                within += n;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return (written, Some(e)),
        }
    }
    (written, None)
}

/// One game's record as the line the file will hold: serialised beforehand (by the worker that
/// played the game, in parallel with the others) so that writing it is a single write.
pub struct Line {
    bytes: Vec<u8>,
}

thread_local! {
    /// Where this thread serialises a record, kept from one game to the next.
    static SERIALISED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Line {
    /// The record serialised into a buffer the thread keeps, then copied into a line of exactly
    /// its length. A line waits for its group's sync, with its game's record, in the memory of
    /// the worker that played it; a serialiser's growing buffer (a few KB more than the line,
    /// freed later by another thread) left holes in that memory that nothing of that size
    /// filled again, and over a long run they added up to most of what the referee held.
    ///
    /// The moves, most of a line, are written by `MoveRecord::write_all_json`, the rest by
    /// serde: the moves are taken out of the record for serde to write an empty array, which
    /// they then fill (and put back). The line is the same, byte for byte, as serde's of the
    /// whole record; a test checks it.
    pub fn of(record: &mut GameRecord) -> std::io::Result<Line> {
        let moves = std::mem::take(&mut record.moves);
        let line = SERIALISED.with_borrow_mut(|buffer| {
            buffer.clear();
            serde_json::to_writer(&mut *buffer, &*record)?;
            let rest = buffer.len();
            // The first `"moves":[]` is the record's own: a quote inside a string is escaped,
            // and no object inside a record has a key of that name.
            let Some(at) = memchr::memmem::find(buffer, EMPTY_MOVES) else {
                return Err(std::io::Error::other("a record without its moves"));
            };
            let at = at + EMPTY_MOVES.len() - 2;
            MoveRecord::write_all_json(&moves, buffer)?;
            let mut bytes = Vec::with_capacity(buffer.len() + 1);
            bytes.extend_from_slice(&buffer[..at]);
            bytes.extend_from_slice(&buffer[rest..]);
            bytes.extend_from_slice(&buffer[at + 2..rest]);
            bytes.push(b'\n');
            Ok(Line { bytes })
        });
        record.moves = moves;
        line
    }
}

/// What serde writes for a record's moves when there are none.
const EMPTY_MOVES: &[u8] = b"\"moves\":[]";

/// Counts the games (lines that are a whole record) and the damaged lines of a file. A record
/// is told by its `format` alone: what else is wrong with it is for `replay --verify` to say,
/// and a full parse of every line would slow down opening a league's large file.
fn count_games(path: &Path) -> std::io::Result<(u64, u64)> {
    let mut reader = std::io::BufReader::new(File::open(path)?);
    let (mut games, mut damaged) = (0, 0);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            return Ok((games, damaged));
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Format>(&buf) {
            Ok(Format { format }) if format == FORMAT => games += 1,
            _ => damaged += 1,
        }
    }
}

/// The one field that tells a game record from any other line.
#[derive(serde::Deserialize)]
struct Format {
    format: String,
}

/// Only the parts of a record the runner reads back: where the game sits, how long it took,
/// who played, and what tells it from another run's game of the same name (its seed).
#[derive(serde::Deserialize)]
struct Placed {
    schedule: Option<ScheduleRef>,
    #[serde(default)]
    game: String,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    duration_ms: u64,
    #[serde(default)]
    seats: Vec<Seated>,
}

#[derive(serde::Deserialize)]
struct Seated {
    name: String,
}

/// The games of one run found in record files.
#[derive(Default, Debug)]
pub struct Recorded {
    /// Their schedule indices.
    pub indices: HashSet<u64>,
    /// Their total duration, for estimates.
    pub total_ms: u64,
    /// The names of the bots that played them.
    pub bots: HashSet<String>,
}

/// The records of a file that bear the run's name but are not games of its schedule (another
/// run of the same name wrote them): ignored, and left as they are.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ignored {
    pub records: u64,
    /// The first of them, and why it is not the schedule's game.
    pub first: Option<(String, String)>,
}

impl Ignored {
    pub fn add(&mut self, game: &str, why: &str) {
        self.records += 1;
        if self.first.is_none() {
            self.first = Some((game.to_string(), why.to_string()));
        }
    }

    /// The warning, one for a file however many records it ignores: how many, the first and
    /// why, and what becomes of them. `whose` is the reader: "this test's", "this league's".
    pub fn warning(&self, path: &Path, run: &str, whose: &str) -> Option<String> {
        let (game, why) = self.first.as_ref()?;
        Some(format!(
            "multiversi: warning: {}: {} record(s) of run '{run}' are not games of {whose} \
             schedule (the first, game {game}: {why}): another run of that name wrote them. They \
             are ignored: not counted, the schedule's own games in their places are played, and \
             the file is left as it is",
            path.display(),
            self.records,
        ))
    }
}

/// Adds the games of run `run` recorded in `path` (a missing file holds none). A damaged line
/// (cut off by a kill) is not a finished game and is skipped: that game is played again. A
/// game recorded twice (which the runner never does) counts once, the first. With `schedule`,
/// a record of the run that is not the schedule's game at its index (`Schedule::mismatch`) is
/// not a finished game either (`OwnGames::whose`): it is returned among the ignored ones, and
/// its index is played.
pub fn finished(
    path: &Path,
    run: &str,
    schedule: Option<&dyn Schedule>,
    into: &mut Recorded,
) -> std::io::Result<Ignored> {
    let mut ignored = Ignored::default();
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(ignored),
        Err(e) => return Err(e),
    };
    let mut reader = std::io::BufReader::new(file);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            return Ok(ignored);
        }
        if let Ok(Placed {
            schedule: Some(place),
            game,
            seed,
            duration_ms,
            seats,
        }) = serde_json::from_slice::<Placed>(&buf)
        {
            if place.run != run {
                continue;
            }
            if let Some(schedule) = schedule {
                let names: Vec<&str> = seats.iter().map(|s| s.name.as_str()).collect();
                let own = OwnGames { run, schedule };
                match own.whose(Some(&place), seed, &names) {
                    Whose::Own => {}
                    Whose::OtherRun => continue,
                    Whose::NotScheduled(why) => {
                        ignored.add(&game, &why);
                        continue;
                    }
                }
            }
            if into.indices.insert(place.index) {
                into.total_ms += duration_ms;
                into.bots.extend(seats.into_iter().map(|s| s.name));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_cut_off_keeps_only_the_lines_that_went_out_whole() {
        let lengths = || [10, 20, 5].into_iter();
        assert_eq!(whole_lines(0, lengths(), 35), (3, 35));
        assert_eq!(whole_lines(0, lengths(), 34), (2, 30));
        assert_eq!(whole_lines(0, lengths(), 9), (0, 0));
        // With the newline that ends a line cut off by an earlier run first.
        assert_eq!(whole_lines(1, lengths(), 11), (1, 11));
        assert_eq!(whole_lines(1, lengths(), 10), (0, 1));
        assert_eq!(whole_lines(1, lengths(), 0), (0, 0));
    }

    /// Takes at most `room` bytes a call, from its first slices, until `left` runs out.
    struct Trickle {
        taken: Vec<u8>,
        room: usize,
        left: usize,
    }

    impl Write for Trickle {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.write_vectored(&[IoSlice::new(bytes)])
        }
        fn write_vectored(&mut self, slices: &[IoSlice<'_>]) -> std::io::Result<usize> {
            if self.left == 0 {
                return Err(std::io::Error::other("full"));
            }
            let mut n = 0;
            for slice in slices {
                let take = slice.len().min(self.room - n).min(self.left - n);
                self.taken.extend_from_slice(&slice[..take]);
                n += take;
            }
            self.left -= n;
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_vectored_write_goes_on_where_each_short_write_stopped() {
        let parts: [&[u8]; 4] = [b"\n", b"abc\n", b"", b"defgh\n"];
        for room in 1..12 {
            let mut out = Trickle {
                taken: Vec::new(),
                room,
                left: usize::MAX,
            };
            let (n, failed) = write_all_vectored(&mut out, &parts);
            assert_eq!((n, failed.is_none()), (11, true), "room {room}");
            assert_eq!(out.taken, b"\nabc\ndefgh\n", "room {room}");
        }
        let mut out = Trickle {
            taken: Vec::new(),
            room: 3,
            left: 7,
        };
        let (n, failed) = write_all_vectored(&mut out, &parts);
        assert_eq!((n, failed.is_some()), (7, true));
        assert_eq!(out.taken, b"\nabc\nde");
    }

    /// The line of a game is what serde writes for the whole record, byte for byte, although
    /// its moves are written by hand; and the record keeps its moves.
    #[test]
    fn a_line_is_what_serde_writes_for_the_whole_record() {
        use crate::rules::{BoardKind, Square};
        use crate::standings::game_on;
        let boards = [
            (BoardKind::Eight, 4, false, ""),
            (BoardKind::Ten, 3, true, "c3"),
            (BoardKind::Octagon, 4, false, ""),
        ];
        let mut records: Vec<GameRecord> = (1u64..=9)
            .zip(boards.iter().cycle())
            .map(|(seed, &(board, players, anti, blocked))| {
                let fault = (seed % 3 == 0).then_some((1, seed as u32 * 4));
                game_on(board, players, anti, blocked, seed, fault)
            })
            .collect();
        let mut odd = records[0].clone();
        // A name that spells the key the moves are put after; a square beyond every name; a
        // time that is not a number; and a record without moves.
        odd.seats[0].name = "\"moves\":[] {\"moves\":[]}".into();
        odd.moves[1].flips.push(Square::new(40, 120));
        odd.moves[2].square = Square::new(27, 3);
        odd.moves[3].ms = f64::NAN;
        odd.moves[4].ms = 1e-7;
        odd.moves[5].ply = u32::MAX;
        records.push(odd);
        let mut empty = records[1].clone();
        empty.moves.clear();
        records.push(empty);
        let kinds: HashSet<_> = records
            .iter()
            .flat_map(|r| &r.moves)
            .map(|m| m.kind)
            .collect();
        assert_eq!(kinds.len(), 2, "both kinds of move are written");
        for mut record in records {
            let mut expected = serde_json::to_vec(&record).unwrap();
            expected.push(b'\n');
            let before = format!("{record:?}");
            let line = Line::of(&mut record).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&line.bytes),
                String::from_utf8_lossy(&expected)
            );
            assert_eq!(format!("{record:?}"), before);
        }
    }

    #[test]
    fn lines_written_together_read_back_as_the_games_in_order() {
        let dir = std::env::temp_dir().join(format!("multiversi-batch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.jsonl");
        let game = |n: u32| format!(r#"{{"format":"multiversi-game","version":1,"game":"g{n}"}}"#);
        // A line cut off by a killed run: the first game written goes on a line of its own.
        let cut = r#"{"format":"multiversi-game","version":1,"ga"#;
        std::fs::write(&path, format!("{}\n{cut}", game(0))).unwrap();
        let file = RecordFile::open(&path).unwrap();
        let lines: Vec<Line> = (1..=3)
            .map(|n| Line {
                bytes: format!("{}\n", game(n)).into_bytes(),
            })
            .collect();
        let (whole, failed) = file.write_lines(&lines.iter().collect::<Vec<_>>());
        assert_eq!((whole, failed.is_none()), (3, true));
        assert_eq!(file.games(), 4);
        let text = std::fs::read_to_string(&path).unwrap();
        let expected = format!(
            "{}\n{cut}\n{}\n{}\n{}\n",
            game(0),
            game(1),
            game(2),
            game(3)
        );
        assert_eq!(text, expected);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_cut_off_line_is_not_counted_as_a_game() {
        let dir = std::env::temp_dir().join(format!("multiversi-records-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.jsonl");
        let game = r#"{"format":"multiversi-game","version":1,"game":"g1"}"#;
        let cut = r#"{"format":"multiversi-game","version":1,"ga"#;
        std::fs::write(&path, format!("{game}\n\n{game}\n{cut}")).unwrap();
        let file = RecordFile::open(&path).unwrap();
        assert_eq!((file.games(), file.damaged()), (2, 1));
        std::fs::write(&path, format!("{game}\nnot a record\n[1]\n{cut}\n{game}\n")).unwrap();
        let file = RecordFile::open(&path).unwrap();
        assert_eq!((file.games(), file.damaged()), (2, 3));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A schedule of deals of two seatings, bots "a" and "b" exchanged, deal d seeded with d.
    struct Pairs;

    impl Schedule for Pairs {
        fn at(&self, index: u64) -> Option<crate::record::Scheduled> {
            let names = if index % 2 == 0 {
                ["a", "b"]
            } else {
                ["b", "a"]
            };
            Some(crate::record::Scheduled {
                deal: index / 2,
                seating: (index % 2) as u32,
                seed: Some(index / 2),
                names: names.iter().map(|n| n.to_string()).collect(),
            })
        }
    }

    #[test]
    fn a_record_that_is_not_the_schedules_game_at_its_index_is_not_finished() {
        let dir = std::env::temp_dir().join(format!("multiversi-finished-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.jsonl");
        let line = |game: &str, run: &str, index: u64, deal: u64, seed: u64, names: [&str; 2]| {
            format!(
                "{{\"format\":\"multiversi-game\",\"game\":\"{game}\",\"seed\":{seed},\
                 \"seats\":[{{\"name\":\"{}\"}},{{\"name\":\"{}\"}}],\"schedule\":\
                 {{\"run\":\"{run}\",\"index\":{index},\"deal\":{deal},\"seating\":{}}}}}\n",
                names[0],
                names[1],
                index % 2
            )
        };
        let text = [
            line("own", "t", 0, 0, 0, ["a", "b"]),
            line("seed", "t", 1, 0, 7, ["b", "a"]),
            line("bots", "t", 2, 1, 1, ["a", "c"]),
            line("deal", "t", 3, 0, 1, ["b", "a"]),
            line("other-run", "u", 4, 2, 9, ["x", "y"]),
            line("own-too", "t", 5, 2, 2, ["b", "a"]),
        ]
        .concat();
        std::fs::write(&path, text).unwrap();
        let mut unchecked = Recorded::default();
        let none = finished(&path, "t", None, &mut unchecked).unwrap();
        assert_eq!(none, Ignored::default());
        assert_eq!(unchecked.indices, HashSet::from([0, 1, 2, 3, 5]));
        let mut checked = Recorded::default();
        let ignored = finished(&path, "t", Some(&Pairs), &mut checked).unwrap();
        assert_eq!(checked.indices, HashSet::from([0, 5]));
        assert_eq!(ignored.records, 3);
        assert_eq!(
            ignored.first,
            Some((
                "seed".to_string(),
                "its seed is 7, the schedule's 0".to_string()
            ))
        );
        let warning = ignored.warning(&path, "t", "this test's").unwrap();
        assert!(
            warning.contains("3 record(s) of run 't' are not games of this test's"),
            "{warning}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
