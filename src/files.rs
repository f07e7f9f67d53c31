//! Files written whole or not at all: the standings, a league's kept config, the sequential
//! test's report. Beneath every layer that writes such a file, so that there is one way to do it.

use crate::exit::{self, fail};
use anyhow::Result;
use std::io::Write;
use std::path::Path;

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
    use std::path::PathBuf;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("multiversi-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
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
