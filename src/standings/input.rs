//! Reading record files for the standings, on every core, with the games added in file order.
//!
//! Reading the records is almost all of what the standings cost, so it is spread over threads.
//! The calling thread (`read_in_order`) reads the files in turn in chunks of whole lines (about
//! `CHUNK` bytes, `Chunks`), numbers them and puts them in one queue. Each worker (`work`) takes
//! the next chunk from the queue, reads its lines and boils each game down to its `Digest` (the
//! record's checks, its fingerprint, each seat's moves and times): with the standings' lean
//! reading (`lean`), or with `replay::read::read_line`, as `multiversi replay` reads a line, for
//! a line the lean reading does not take. For the replay viewer the worker also makes the game's
//! entry (`ViewerJson`): the line itself, made script-safe, when the lean reading took it, and
//! otherwise the record read whole, serialised again; so that writing the viewer in order is a
//! copy. The calling thread takes the results back by their
//! numbers, so in file and line order, and adds each game to the sums (`Games::add_digest`)
//! and, when it counts, copies it into the viewer; when the next result is not
//! ready, it reads a chunk from the queue itself rather than wait. So the thread that also adds
//! every game reads fewer chunks than the others, and none of them waits while work is left.
//!
//! So numbering, duplicates, the reports of damaged lines (a line cut off by a kill, not a
//! record, inconsistent: skipped with a warning naming its file and line, or with `strict` an
//! error, exit 3), a file that cannot be read (exit 3, after the games before it) and the viewer
//! (game N of the standings is `#game=N` there) are exactly as if one thread read the files line
//! by line. At most `OUT_PER_WORKER` chunks per thread are out at a time, their buffers used
//! again, so memory stays bounded whatever the size of the files: each game is added to the sums
//! and dropped.

use super::games::{played, Added, Digest, Facts, Games};
use super::lean;
use crate::exit::{self, fail};
use crate::record::{OwnGames, Whose};
use crate::replay::html::{Streaming, ViewerJson};
use crate::replay::read::{cannot_read, read_line, Damaged, Source};
use anyhow::Result;
use std::io::{Read as _, Write};
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Mutex;

/// About how many bytes of lines a worker is handed at a time (a chunk holds whole lines, so a
/// line longer than this makes a longer chunk). 32 KB rather than 64 KB: the chunks out at a time
/// are a large part of a league's peak memory at its end, and reading is no slower.
const CHUNK: usize = 32 * 1024;
/// Chunks out at a time per reading thread (queued or read and not yet taken back): a worker has
/// its next chunk waiting while this thread adds the games of its last.
const OUT_PER_WORKER: usize = 2;
/// At most this many threads read, however many cores there are.
const MAX_THREADS: usize = 8;

/// What reading the files gave.
#[derive(Debug)]
pub struct Read {
    pub games: Games,
    /// Lines skipped, with why.
    pub damaged: Vec<Damaged>,
    /// Lines holding a game already counted from an earlier line, with the first copy's number.
    pub duplicates: Vec<(Source, u32)>,
    /// Lines holding another game in the place of one already counted (`Added::SamePlace`),
    /// with the first's number: not counted.
    pub same_place: Vec<(Source, u32)>,
    /// With a run's own games only, the records that are not: not counted.
    pub not_own: NotOwn,
}

/// The records left out of a run's own standings (`read_files` given `own`): not its games.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct NotOwn {
    /// Records of runs of other names, or of no schedule.
    pub other_runs: usize,
    /// Records of the run's name that are not its schedule's game at their index.
    pub not_scheduled: usize,
    /// The first of those: where, its game id, and why (`Schedule::mismatch`).
    pub first: Option<(Source, String, String)>,
}

impl NotOwn {
    /// How many records were left out.
    pub fn count(&self) -> usize {
        self.other_runs + self.not_scheduled
    }
}

/// Reads the files in order. A file that cannot be opened or read is an error (exit 3) naming
/// it; so is a damaged line when `strict`. With `viewer`, each game counted is written to it.
/// `listed`: whether the games are kept for the HTML page's list of games. With `own`, only the
/// run's own games count (`OwnGames::whose`, asked by the reading threads): the other records
/// are left out before they are numbered, as if the files did not hold them, and counted in
/// `not_own`.
pub fn read_files<W: Write>(
    paths: &[PathBuf],
    strict: bool,
    viewer: Option<&mut Streaming<W>>,
    listed: bool,
    own: Option<OwnGames>,
) -> Result<Read> {
    // This thread reads chunks too: one worker fewer than cores, none on one core.
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_THREADS)
        - 1;
    let whole = viewer.is_some();
    // Neither channel ever holds more than the chunks out, so that no side waits to send.
    let out = (workers + 1) * OUT_PER_WORKER;
    let (hand, queue) = sync_channel(out);
    let queue = Mutex::new(queue);
    let (done, results) = sync_channel(out);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let (queue, done) = (&queue, done.clone());
            scope.spawn(move || work(queue, done, whole, own));
        }
        drop(done);
        let shared = Shared {
            hand,
            queue: &queue,
            results,
            out,
            own,
        };
        // When this returns, early or not, the channels close and the workers end.
        read_in_order(paths, shared, whole, strict, viewer, listed)
    })
}

/// The channels between this thread and the workers: chunks, numbered in file order, handed to
/// the queue that every reading thread takes from; the results, with the chunks' numbers.
struct Shared<'a> {
    hand: SyncSender<(usize, Chunk)>,
    queue: &'a Queue,
    results: Receiver<(usize, Done)>,
    /// At most this many chunks out at a time.
    out: usize,
    /// Only the run's own games count.
    own: Option<OwnGames<'a>>,
}

/// The chunks waiting to be read, taken by one thread at a time.
type Queue = Mutex<Receiver<(usize, Chunk)>>;

/// Whole lines of one file (by its index in the paths).
struct Chunk {
    file: usize,
    bytes: Vec<u8>,
}

/// A chunk read by a worker: how many lines it held (blank ones too), and what each line that is
/// not blank gave, with its place in the chunk from 0; and its buffer, emptied, to read into again.
struct Done {
    file: usize,
    count: usize,
    read: Vec<(usize, Result<Game, String>)>,
    buffer: Vec<u8>,
}

/// A line read as a game: its digest, and when the viewer is written, the record as the viewer
/// takes it (or why it could not be made); with a run's own games only, whose it is when it is
/// not the run's.
struct Game {
    digest: Digest,
    viewer: Option<std::io::Result<ViewerJson>>,
    not_own: Option<Whose>,
}

/// The files, read one after the other in chunks of whole lines.
struct Chunks<'a> {
    paths: &'a [PathBuf],
    /// The file being read, by its index in `paths`, once it is open.
    file: usize,
    open: Option<std::fs::File>,
    /// The start of a line that the last chunk cut off.
    rest: Vec<u8>,
    /// Buffers given back, to read into again.
    spare: Vec<Vec<u8>>,
}

impl Chunks<'_> {
    /// The next chunk: about `CHUNK` bytes, up to the end of a line; at the end of a file, what
    /// is left (a last line without its line end). None after the last file; an error (exit 3,
    /// naming the file) for a file that cannot be opened or read.
    fn next(&mut self) -> Result<Option<Chunk>> {
        while let Some(path) = self.paths.get(self.file) {
            let cannot = |e| cannot_read(path, e);
            let file = match &mut self.open {
                Some(file) => file,
                None => self.open.insert(std::fs::File::open(path).map_err(cannot)?),
            };
            let mut bytes = self.spare.pop().unwrap_or_default();
            bytes.clear();
            bytes.append(&mut self.rest);
            bytes.reserve_exact(CHUNK);
            loop {
                let before = bytes.len();
                if fill(file, &mut bytes).map_err(cannot)? == 0 {
                    break;
                }
                if let Some(end) = memchr::memrchr(b'\n', &bytes[before..]) {
                    let end = before + end + 1;
                    self.rest.extend_from_slice(&bytes[end..]);
                    bytes.truncate(end);
                    return Ok(Some(Chunk {
                        file: self.file,
                        bytes,
                    }));
                }
            }
            // The end of the file.
            let file = self.file;
            (self.open, self.file) = (None, file + 1);
            if !bytes.is_empty() {
                return Ok(Some(Chunk { file, bytes }));
            }
        }
        Ok(None)
    }
}

/// Reads up to `CHUNK` bytes onto the end of `bytes`, into room for exactly that many; 0 at the
/// end of the file. `read_to_end` would look for the end of the file in a buffer grown to twice
/// its size, and every buffer in the queue would then hold two chunks' room.
fn fill(file: &mut std::fs::File, bytes: &mut Vec<u8>) -> std::io::Result<usize> {
    let start = bytes.len();
    bytes.resize(start + CHUNK, 0);
    let mut got = 0;
    while got < CHUNK {
        match file.read(&mut bytes[start + got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                bytes.truncate(start);
                return Err(e);
            }
        }
    }
    bytes.truncate(start + got);
    Ok(got)
}

/// A worker: reads the lines of each chunk it takes from the queue and hands the results back,
/// until no more chunks come or the results are no longer wanted. `whole`: keep each whole
/// record. `own`: only the run's own games count.
fn work(queue: &Queue, done: SyncSender<(usize, Done)>, whole: bool, own: Option<OwnGames>) {
    let mut scratch = lean::Scratch::default();
    loop {
        // The queue is held only while waiting for a chunk, not while reading it.
        let next = match queue.lock() {
            Ok(chunks) => chunks.recv(),
            Err(_) => return,
        };
        let Ok((number, chunk)) = next else { return };
        if done
            .send((number, read_chunk(chunk, whole, own, &mut scratch)))
            .is_err()
        {
            return;
        }
    }
}

/// Reads the lines of a chunk.
fn read_chunk(
    Chunk { file, mut bytes }: Chunk,
    whole: bool,
    own: Option<OwnGames>,
    scratch: &mut lean::Scratch,
) -> Done {
    let lines = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    let (mut count, mut read) = (0, Vec::new());
    // The line ends found with a vectorised search: a loop over every byte was a seventh of
    // what the standings cost.
    let ends = memchr::memchr_iter(b'\n', lines).chain(std::iter::once(lines.len()));
    let mut start = 0;
    for (i, end) in ends.enumerate() {
        let line = &lines[start..end];
        start = end + 1;
        count = i + 1;
        let text = line.strip_suffix(b"\r").unwrap_or(line);
        if !text.iter().all(u8::is_ascii_whitespace) {
            read.push((i, read_game(text, whole, own, scratch)));
        }
    }
    bytes.clear();
    Done {
        file,
        count,
        read,
        buffer: bytes,
    }
}

/// One line read as a game, or why it is not one (in `read_line`'s words).
fn read_game(
    text: &[u8],
    whole: bool,
    own: Option<OwnGames>,
    scratch: &mut lean::Scratch,
) -> Result<Game, String> {
    let mut game = match lean::digest(text, scratch) {
        Some(digest) => {
            // A line the lean reading takes reads whole to the same record: the viewer copies
            // it.
            let viewer = match (&digest.game, whole) {
                (Ok(game), true) => Some(ViewerJson::of_line(text, game.seed)),
                _ => None,
            };
            Game {
                digest,
                viewer,
                not_own: None,
            }
        }
        None => {
            let record = read_line(text)?;
            let moves = played(&record);
            Game {
                digest: Digest::of(&Facts::of(&record, &moves)),
                viewer: whole.then(|| ViewerJson::of(&record)),
                not_own: None,
            }
        }
    };
    if let (Some(own), Ok(boiled)) = (own, &game.digest.game) {
        let names: Vec<&str> = boiled.seats.iter().map(|s| s.bot.name.as_str()).collect();
        game.not_own = Some(own.whose(boiled.schedule.as_ref(), boiled.seed, &names))
            .filter(|w| *w != Whose::Own);
    }
    Ok(game)
}

/// Reads the files into chunks, queues them, takes the results back in their order (reading
/// chunks from the queue itself while the next result is not ready) and adds their games.
fn read_in_order<W: Write>(
    paths: &[PathBuf],
    shared: Shared,
    whole: bool,
    strict: bool,
    mut viewer: Option<&mut Streaming<W>>,
    listed: bool,
) -> Result<Read> {
    // A run's own games, of a schedule that numbers its games, are kept by those numbers.
    let ordinals = shared.own.and_then(|own| own.schedule.games());
    let games = match ordinals {
        Some(n) => Games::of_one_schedule(n),
        None => Games::new(),
    };
    let mut read = Read {
        games: if listed {
            games
        } else {
            games.without_game_list()
        },
        damaged: Vec::new(),
        duplicates: Vec::new(),
        same_place: Vec::new(),
        not_own: NotOwn::default(),
    };
    let mut chunks = Chunks {
        paths,
        file: 0,
        open: None,
        rest: Vec::new(),
        spare: Vec::new(),
    };
    // Results come back in any order: those that came before their turn, by chunk number.
    let mut early = std::collections::BTreeMap::new();
    let mut scratch = lean::Scratch::default();
    let (mut handed, mut taken) = (0, 0);
    // A file that could not be read: the error, once the games before it are added.
    let mut failed = None;
    // The file being added, and the number of the first line of the next chunk.
    let (mut current, mut next_line) = (0, 1);
    loop {
        while failed.is_none() && handed - taken < shared.out {
            match chunks.next() {
                Ok(Some(chunk)) => {
                    // The queue never holds more than the chunks out: this does not wait.
                    if shared.hand.send((handed, chunk)).is_err() {
                        break;
                    }
                    handed += 1;
                }
                Ok(None) => break,
                Err(e) => failed = Some(e),
            }
        }
        if taken == handed {
            break;
        }
        let Some(done) = next_result(&shared, &mut early, taken, whole, &mut scratch) else {
            // A worker that is gone has panicked, which ends the scope.
            break;
        };
        taken += 1;
        if done.file != current {
            (current, next_line) = (done.file, 1);
        }
        for (i, outcome) in done.read {
            let source = Source {
                path: paths[done.file].clone(),
                line: next_line + i,
            };
            // Not the run's game: as if the file did not hold it.
            if let Ok(Game {
                not_own: Some(whose),
                digest,
                ..
            }) = &outcome
            {
                let left = &mut read.not_own;
                match whose {
                    Whose::NotScheduled(why) => {
                        left.not_scheduled += 1;
                        if left.first.is_none() {
                            let id = digest.game.as_ref().map_or("", |g| g.id.as_str());
                            left.first = Some((source, id.to_string(), why.clone()));
                        }
                    }
                    _ => left.other_runs += 1,
                }
                continue;
            }
            let outcome = outcome.and_then(|game| {
                let origin = |id: &str| format!("{source}, game {id}");
                let ordinal = ordinals.and(game.digest.game.as_ref().ok()).and_then(|g| {
                    let index = g.schedule.as_ref()?.index;
                    shared.own?.schedule.ordinal(index)
                });
                let added = match ordinal {
                    Some(ordinal) => read.games.add_at_ordinal(game.digest, ordinal, origin),
                    None => read.games.add_digest(game.digest, origin),
                }
                .map_err(|e| format!("inconsistent record: {e}"))?;
                Ok((game.viewer, added))
            });
            match outcome {
                Ok((made, Added::Counted(_))) => {
                    if let (Some(v), Some(made)) = (viewer.as_deref_mut(), made) {
                        made.and_then(|json| v.game_json(&source.to_string(), &json))
                            .map_err(|e| {
                                fail(exit::OUTPUT, format!("cannot write the replay viewer: {e}"))
                            })?;
                    }
                }
                Ok((_, Added::Duplicate(first))) => read.duplicates.push((source, first)),
                Ok((_, Added::SamePlace(first))) => read.same_place.push((source, first)),
                Err(message) => {
                    let damaged = Damaged { source, message };
                    if strict {
                        return Err(fail(exit::BAD_INPUT, format!("{damaged} (--strict)")));
                    }
                    read.damaged.push(damaged);
                }
            }
        }
        next_line += done.count;
        chunks.spare.push(done.buffer);
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(read),
    }
}

/// The result of chunk `number`: one that came back early, or the next to come back; while none
/// has come, a chunk from the queue read here (any chunk: its result is kept in `early` until its
/// turn). None if no result can come (the workers are gone).
fn next_result(
    shared: &Shared,
    early: &mut std::collections::BTreeMap<usize, Done>,
    number: usize,
    whole: bool,
    scratch: &mut lean::Scratch,
) -> Option<Done> {
    loop {
        if let Some(done) = early.remove(&number) {
            return Some(done);
        }
        if let Ok((n, done)) = shared.results.try_recv() {
            early.insert(n, done);
            continue;
        }
        // A worker holding the queue is taking its next chunk, or waiting for one when the
        // queue is empty: either way a result is coming, and this thread waits for it.
        let mine = match shared.queue.try_lock() {
            Ok(chunks) => chunks.try_recv().ok(),
            Err(_) => None,
        };
        let (n, done) = match mine {
            Some((n, chunk)) => (n, read_chunk(chunk, whole, shared.own, scratch)),
            None => shared.results.recv().ok()?,
        };
        early.insert(n, done);
    }
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

    /// What reading the files line by line gives, the way the standings read them before the
    /// chunks and the workers: each damaged line and duplicate by its line, and the games
    /// counted by their ids.
    type Figures = (Vec<(String, String)>, Vec<(String, u32)>, Vec<String>);

    fn line_by_line(paths: &[PathBuf]) -> Figures {
        let (mut damaged, mut duplicates) = (Vec::new(), Vec::new());
        let mut games = Games::new();
        for path in paths {
            let bytes = std::fs::read(path).unwrap();
            let bytes = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
            for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
                let at = format!("{}:{}", path.display(), i + 1);
                let text = line.strip_suffix(b"\r").unwrap_or(line);
                if text.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let added = read_line(text).and_then(|r| {
                    games
                        .add(&r)
                        .map_err(|e| format!("inconsistent record: {e}"))
                });
                match added {
                    Ok(Added::Counted(_)) => {}
                    Ok(Added::Duplicate(first)) => duplicates.push((at, first)),
                    Ok(Added::SamePlace(_)) => panic!("{at}: no two games share a place here"),
                    Err(message) => damaged.push((at, message)),
                }
            }
        }
        let ids = games.games.iter().map(|g| g.id.clone()).collect();
        (damaged, duplicates, ids)
    }

    fn figures(read: &Read) -> Figures {
        (
            read.damaged
                .iter()
                .map(|d| (d.source.to_string(), d.message.clone()))
                .collect(),
            read.duplicates
                .iter()
                .map(|(source, first)| (source.to_string(), *first))
                .collect(),
            read.games.games.iter().map(|g| g.id.clone()).collect(),
        )
    }

    #[test]
    fn chunks_read_on_every_core_give_what_reading_line_by_line_gives() {
        let dir = temp("chunks");
        // Enough lines for several chunks, of every kind: damaged, inconsistent, blank, with a
        // carriage return, duplicates near and far, a line longer than a chunk, and at the end
        // a line cut off without its line end.
        let mut text = String::new();
        for i in 0..600 {
            let game = format!("g{i}");
            match i % 50 {
                7 => text.push_str("not json\n"),
                11 => text.push_str(" \r\n"),
                13 => text.push_str(&line("g12")),
                17 => text.push_str(&line("g1")),
                19 => text.push_str(&line(&game).replace("\"scores\":[3,2,1]", "\"scores\":[3]")),
                23 => text.push_str(&line(&game).replace('\n', "\r\n")),
                29 if i == 229 => {
                    let pad = "x".repeat(CHUNK + 1000);
                    text.push_str(&line(&game).replacen('{', &format!("{{\"pad\":\"{pad}\","), 1));
                }
                _ => text.push_str(&line(&game)),
            }
        }
        assert!(text.len() > 4 * CHUNK);
        let cut = line("last");
        text.push_str(&cut[..cut.len() / 2]);
        let one = dir.join("one.jsonl");
        std::fs::write(&one, &text).unwrap();
        let two = dir.join("two.jsonl");
        std::fs::write(&two, text.replace("\"g3\"", "\"h3\"")).unwrap();
        let empty = dir.join("empty.jsonl");
        std::fs::write(&empty, "").unwrap();
        let paths = vec![one.clone(), empty, two];

        let read = read_files::<Vec<u8>>(&paths, false, None, false, None).unwrap();
        let expected = line_by_line(&paths);
        assert_eq!(figures(&read), expected);
        // Every kind of line was met: damaged ones, duplicates from both files.
        let (damaged, duplicates, ids) = &expected;
        assert!(damaged.iter().any(|(_, m)| m.contains("not valid JSON")));
        assert!(damaged
            .iter()
            .any(|(_, m)| m.starts_with("inconsistent record")));
        assert!(damaged.iter().any(|(_, m)| m.contains("cut off")));
        assert!(duplicates
            .iter()
            .any(|(at, _)| at.starts_with(&*one.to_string_lossy())));
        assert!(ids.contains(&"g229".to_string()) && ids.contains(&"h3".to_string()));
        // The viewer's way (whole records) gives the same.
        let mut viewer = Streaming::start(Vec::new(), "t").unwrap();
        let whole = read_files(&paths, false, Some(&mut viewer), false, None).unwrap();
        assert_eq!(figures(&whole), expected);

        // With --strict, the first damaged line is the error.
        let e = read_files::<Vec<u8>>(&paths, true, None, false, None).unwrap_err();
        let first = &expected.0[0];
        assert!(
            e.to_string()
                .starts_with(&format!("{}: {}", first.0, first.1)),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
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
        let read = read_files::<Vec<u8>>(&paths, false, None, false, None).unwrap();
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

        let e = read_files::<Vec<u8>>(&paths, true, None, false, None).unwrap_err();
        let f = e.downcast_ref::<crate::exit::Failure>().unwrap();
        assert_eq!(f.code, exit::BAD_INPUT);
        assert!(
            f.message.contains(&format!("{}:3", one.display())),
            "{}",
            f.message
        );

        let e = read_files::<Vec<u8>>(&[dir.join("missing.jsonl")], false, None, false, None)
            .unwrap_err();
        assert!(e.to_string().contains("missing.jsonl: no such file"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_viewer_gets_the_counted_games_in_order() {
        let dir = temp("viewer");
        let file = dir.join("g.jsonl");
        std::fs::write(&file, line("g1") + &line("g2") + &line("g1")).unwrap();
        let mut viewer = Streaming::start(Vec::new(), "t").unwrap();
        read_files(&[file], false, Some(&mut viewer), false, None).unwrap();
        let page = String::from_utf8(viewer.finish().unwrap()).unwrap();
        let g1 = page.find("\"game\":\"g1\"").unwrap();
        let g2 = page.find("\"game\":\"g2\"").unwrap();
        assert!(g1 < g2);
        assert_eq!(page.matches("\"game\":\"g1\"").count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
