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

use crate::exit::{self, fail};
use anyhow::Result;
use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};
use std::fs::File;
use std::path::Path;

/// The directory's locks, held until this is dropped (the end of the run).
pub struct RunLock {
    _held: Vec<Flock<File>>,
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
            let mine = format!("run-of-{n}.lock");
            match take(out, &mine, FlockArg::LockSharedNonblock)? {
                Some(lock) => held.push(lock),
                None => return Err(busy("another run of this league")),
            }
            for other in shard_counts(out)? {
                if other == n {
                    continue;
                }
                // Free when nobody holds it shared: take it and let go at once.
                let name = format!("run-of-{other}.lock");
                if take(out, &name, FlockArg::LockExclusiveNonblock)?.is_none() {
                    return Err(busy(&format!("a run with --shard I/{other}")));
                }
            }
        }
    }
    Ok(RunLock { _held: held })
}

/// Opens (creating it) and locks one lock file; None when another process holds it.
fn take(out: &Path, name: &str, how: FlockArg) -> Result<Option<Flock<File>>> {
    let path = out.join(name);
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| {
            fail(
                exit::OUTPUT,
                format!("{}: cannot open: {e}", path.display()),
            )
        })?;
    match Flock::lock(file, how) {
        Ok(lock) => Ok(Some(lock)),
        Err((_, Errno::EWOULDBLOCK)) => Ok(None),
        Err((_, e)) => Err(fail(
            exit::OUTPUT,
            format!("{}: cannot lock: {e}", path.display()),
        )),
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
}
