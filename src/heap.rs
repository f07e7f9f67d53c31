//! The allocator's memory, handed back to the system where glibc would keep it.
//!
//! glibc's malloc gives each thread that allocates concurrently an arena of its own (up to eight
//! per core) and keeps what a thread frees in that thread's arena, pages in the middle of it
//! included, for the thread to use again. A run's workers, the writer and the stderr drains each
//! then hold some hundreds of KB that no one uses again, and a long league's peak memory is
//! their sum. The referee allocates little on any hot path (a game's record, a line), so one
//! arena shared by every thread costs no measurable speed (see README, "Memory of a long
//! league"), and a trim now and then returns the free pages in its middle.
//!
//! Elsewhere than glibc these do nothing: other allocators keep no per-thread arenas of this kind.

use std::sync::atomic::{AtomicU64, Ordering};

/// Games between two trims while a run plays. A trim walks the free lists and calls `madvise`
/// for each free page range: after every deal it cost `match` 6–8 % of its games a second with
/// instant bots; every 200 games its cost is below what a run varies by.
pub const TRIM_EVERY: u64 = 200;

/// Games finished since the run began, counted by every worker.
static FINISHED: AtomicU64 = AtomicU64::new(0);

/// One arena for every thread. Must be called before a second thread allocates: the setting
/// applies to arenas made after it.
pub fn one_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes a setting of the allocator; called before any thread but
    // this one exists, it races with nothing.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// Hands the allocator's free memory back to the system: cheap, a walk over the free lists and
/// some `madvise` calls.
pub fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory the allocator holds free; it touches no live
    // allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Counts `games` more finished games and trims once every [`TRIM_EVERY`] of them, whichever
/// thread crosses the mark.
pub fn finished(games: u64) {
    let before = FINISHED.fetch_add(games, Ordering::Relaxed);
    if before / TRIM_EVERY != (before + games) / TRIM_EVERY {
        trim();
    }
}
