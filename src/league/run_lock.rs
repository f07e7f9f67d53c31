//! Which runs may play in one league directory at the same time. Each record file has its own
//! lock (`command::lock_records`), which keeps a file from two writers; but a run without
//! `--shard` and a shard, or shards of different counts (`--shard 1/2` and `--shard 1/3`), write
//! different files and would play the same games, each counted twice by the standings. So every
//! run also locks the directory:
//! - a run without `--shard` holds `run.lock` exclusively;
//! - a shard of N holds `run.lock` shared and `run-of-N.lock` shared, and makes sure that no run
//!   holds `run-of-M.lock` for another M.
//!
//! Each run takes its own locks before it looks at the others', so of two runs that start at the
//! same moment with different shard counts at least one sees the other (both may give up, which
//! is safe). The kernel releases every lock when the process dies: nothing is left to clean up
//! after a crash or `kill -9`, and the lock files stay behind, empty.
//!
//! A run that is refused removes the lock files it created, so that a refusal leaves the
//! directory as it found it, but only a file that nobody else holds: it takes the file's lock
//! exclusively first. A run that opened the file before it was removed and locks it after finds
//! that the directory's file is no longer the one it locked, and takes the one there now
//! (`take`), so that a lock a run holds is always on the file the others look at.

use crate::exit::{self, fail};
use anyhow::Result;
use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};
use std::fs::File;
use std::path::Path;

/// The directory's locks, held until this is dropped (the end of the run).
pub struct RunLock {
    _held: Vec<Held>,
}

/// One lock file, locked, and whether this run created it.
struct Held {
    lock: Flock<File>,
    name: String,
    created: bool,
}

/// Locks `out` for a run of `shard` (None: the whole league); fails with exit 5 when a run that
/// could play the same games holds it.
pub fn lock(out: &Path, shard: Option<(u32, u32)>) -> Result<RunLock> {
    let busy = |what: &str| {
        fail(
            exit::OUTPUT,
            format!(
                "{}: {what} is playing in this directory; together the two runs would play the \
                 same games twice. Wait for it to end or stop it (shards of one count, \
                 --shard I/N with the same N, may run together)",
                out.display()
            ),
        )
    };
    std::fs::create_dir_all(out).map_err(|e| {
        fail(
            exit::OUTPUT,
            format!("{}: cannot create the league directory: {e}", out.display()),
        )
    })?;
    let mut held = Vec::new();
    if let Err(e) = take_all(out, shard, &mut held, busy) {
        let_go(out, held);
        return Err(e);
    }
    Ok(RunLock { _held: held })
}

/// Takes the locks of a run of `shard` into `held`, or says who holds the directory.
fn take_all(
    out: &Path,
    shard: Option<(u32, u32)>,
    held: &mut Vec<Held>,
    busy: impl Fn(&str) -> anyhow::Error,
) -> Result<()> {
    match shard {
        None => match take(out, "run.lock", FlockArg::LockExclusiveNonblock)? {
            Some(lock) => held.push(lock),
            None => return Err(busy("another run of this league")),
        },
        Some((_, n)) => {
            match take(out, "run.lock", FlockArg::LockSharedNonblock)? {
                Some(lock) => held.push(lock),
                None => return Err(busy("a run without --shard")),
            }
            match take(
                out,
                &format!("run-of-{n}.lock"),
                FlockArg::LockSharedNonblock,
            )? {
                Some(lock) => held.push(lock),
                None => return Err(busy("another run of this league")),
            }
            for other in shard_counts(out)? {
                if other != n && !free(out, &format!("run-of-{other}.lock"))? {
                    return Err(busy(&format!("a run with --shard I/{other}")));
                }
            }
        }
    }
    Ok(())
}

/// Opens (creating it if there is none) and locks one lock file; None when another process
/// holds it. A file removed after it was opened and before it was locked (by a refused run,
/// `let_go`) is no lock of the directory's any more: the one there now is taken instead.
fn take(out: &Path, name: &str, how: FlockArg) -> Result<Option<Held>> {
    let path = out.join(name);
    let cannot = |what: &str, e: &dyn std::fmt::Display| {
        fail(
            exit::OUTPUT,
            format!("{}: cannot {what}: {e}", path.display()),
        )
    };
    loop {
        let (file, created) = match File::options().write(true).create_new(true).open(&path) {
            Ok(file) => (file, true),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                match File::options().write(true).open(&path) {
                    Ok(file) => (file, false),
                    // Removed in between: create it again.
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                    Err(e) => return Err(cannot("open", &e)),
                }
            }
            Err(e) => return Err(cannot("open", &e)),
        };
        let lock = match Flock::lock(file, how) {
            Ok(lock) => lock,
            Err((_, Errno::EWOULDBLOCK)) => return Ok(None),
            Err((_, e)) => return Err(cannot("lock", &e)),
        };
        if is_the_file(&lock, &path) {
            return Ok(Some(Held {
                lock,
                name: name.to_string(),
                created,
            }));
        }
    }
}

/// Whether `path` names the file `file` is open on (not removed, nor replaced by another).
fn is_the_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

/// Whether no run holds the lock file `name` (a shard of another count): it is taken
/// exclusively and let go at once. A file that is not there any more is held by nobody; it is
/// not created.
fn free(out: &Path, name: &str) -> Result<bool> {
    let path = out.join(name);
    let file = match File::options().write(true).open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(true),
        Err(e) => {
            return Err(fail(
                exit::OUTPUT,
                format!("{}: cannot open: {e}", path.display()),
            ))
        }
    };
    match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(_) => Ok(true),
        Err((_, Errno::EWOULDBLOCK)) => Ok(false),
        Err((_, e)) => Err(fail(
            exit::OUTPUT,
            format!("{}: cannot lock: {e}", path.display()),
        )),
    }
}

/// Lets go of the locks of a refused run, last taken first, removing each lock file it created
/// that no other run holds (it can be taken exclusively): a refused run leaves nothing of its
/// own behind, and never takes away a file another run holds.
fn let_go(out: &Path, held: Vec<Held>) {
    for held in held.into_iter().rev() {
        if held.created && held.lock.relock(FlockArg::LockExclusiveNonblock).is_ok() {
            let _ = std::fs::remove_file(out.join(&held.name));
        }
    }
}

/// The shard counts that have a lock file in `out`.
fn shard_counts(out: &Path) -> Result<Vec<u32>> {
    let entries = std::fs::read_dir(out)
        .map_err(|e| fail(exit::OUTPUT, format!("{}: cannot read: {e}", out.display())))?;
    Ok(entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name();
            let n = name
                .to_str()?
                .strip_prefix("run-of-")?
                .strip_suffix(".lock")?;
            n.parse().ok()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> std::path::PathBuf {
        let d =
            std::env::temp_dir().join(format!("multiversi-run-lock-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn shards_of_one_count_share_the_directory_and_nothing_else_does() {
        let d = dir("share");
        let a = lock(&d, Some((1, 2))).expect("first shard");
        let b = lock(&d, Some((2, 2))).expect("a shard of the same count");
        assert!(lock(&d, None).is_err(), "a whole run beside shards");
        let e = lock(&d, Some((1, 3)))
            .err()
            .expect("a shard of another count");
        assert!(e.to_string().contains("--shard I/2"), "{e}");
        drop((a, b));
        let whole = lock(&d, Some((1, 3))).expect("free again once the shards ended");
        drop(whole);
        let whole = lock(&d, None).expect("a whole run once every shard ended");
        let e = lock(&d, Some((1, 2)))
            .err()
            .expect("a shard beside a whole run");
        assert!(e.to_string().contains("without --shard"), "{e}");
        assert!(lock(&d, None).is_err(), "two whole runs");
        drop(whole);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_refused_run_removes_the_lock_files_it_created_and_no_other() {
        let d = dir("refused");
        let a = lock(&d, Some((1, 2))).expect("first shard");
        assert!(lock(&d, Some((1, 3))).is_err());
        assert!(!d.join("run-of-3.lock").exists(), "created, and removed");
        assert!(lock(&d, None).is_err());
        assert!(d.join("run.lock").exists() && d.join("run-of-2.lock").exists());
        // A file this run did not create stays, though nobody holds it.
        std::fs::write(d.join("run-of-4.lock"), "").unwrap();
        assert!(lock(&d, Some((1, 4))).is_err());
        assert!(d.join("run-of-4.lock").exists());
        drop(a);
        let b = lock(&d, Some((1, 3))).expect("free once the shard of 2 ended");
        assert!(d.join("run-of-3.lock").exists());
        drop(b);
        let _ = std::fs::remove_dir_all(&d);
    }

    /// A lock file removed after a run opened it and before it locked it is not the lock it
    /// holds: it takes the one the directory has now.
    #[test]
    fn a_lock_file_removed_under_a_run_is_taken_again_from_the_directory() {
        let d = dir("removed");
        let path = d.join("run-of-2.lock");
        std::fs::write(&path, "").unwrap();
        let opened = File::options().write(true).open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(!is_the_file(&opened, &path));
        let held = take(&d, "run-of-2.lock", FlockArg::LockSharedNonblock)
            .unwrap()
            .expect("nobody holds it");
        assert!(held.created && is_the_file(&held.lock, &path));
        let _ = std::fs::remove_dir_all(&d);
    }
}
