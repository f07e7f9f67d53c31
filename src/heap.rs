//! The allocator's free memory, handed back to the system where glibc would keep it.
//!
//! glibc's malloc keeps what a thread frees in that thread's arena, pages in the middle of it
//! included, for the thread to use again. Over a long run the workers' arenas hold some hundreds
//! of KB that no one uses again, and a league's standings at its end would add to them; a trim
//! now and then returns the free pages. One arena for every thread (`M_ARENA_MAX` 1) was tried
//! too: it saved 0.6–1.0 MB over a 10,080-game league, but pinned `match --concurrency 2`
//! played about 7 % fewer games a second, its workers sharing the arena's lock and free lists
//! (README, "Memory of a long league").
//!
//! Elsewhere than glibc this does nothing: other allocators keep no arenas of this kind.

use std::sync::atomic::{AtomicU64, Ordering};

/// Games between two trims while a run plays. A trim walks the free lists and calls `madvise`
/// for each free page range, and the pages are faulted in again when they are used: after every
/// deal it cost `match` 6–8 % of its games a second with instant bots; every 200 games its cost
/// is below what a run varies by.
pub const TRIM_EVERY: u64 = 200;

/// Games finished since the process began, counted by every worker.
static FINISHED: AtomicU64 = AtomicU64::new(0);

/// Hands the allocator's free memory back to the system: a walk over the free lists and some
/// `madvise` calls.
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
