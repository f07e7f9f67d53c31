//! Processes the tests start or that bots start: none may outlive a test.

use std::path::Path;
use std::time::{Duration, Instant};

/// Whether a process is gone (or a zombie that can do nothing more while it waits for a reaper).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

/// Checks that every process a scripted bot wrote down in `pids` (one pid a line) is gone,
/// allowing a moment for the kernel to finish killing them.
#[track_caller]
pub fn assert_no_process_left(pids: &Path) {
    let text = std::fs::read_to_string(pids).unwrap_or_default();
    let pids: Vec<u32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
    assert!(!pids.is_empty(), "the scripted bots wrote no pids");
    let until = Instant::now() + Duration::from_secs(3);
    for pid in pids {
        while !gone(pid) {
            assert!(Instant::now() < until, "process {pid} is still running");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
