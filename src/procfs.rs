//! What the kernel says about a process in `/proc/PID/stat`: the one reader of that file, and
//! of the lists of a thread's children beside it.
//!
//! Two parts of the referee need it: the sweep for processes that left a bot's group
//! (`process::sweep_strays`, which needs parent, group and state) and the CPU limit per game
//! (`limits`, which needs the CPU time used). Both read the same line, whose second field (the
//! command name) may contain spaces and parentheses, so the parsing is in one place, below both,
//! and tested once. Hand-written rather than the `procfs` crate: four fields of one file do not
//! warrant a dependency of that size.

use nix::unistd::{sysconf, SysconfVar};

/// What the referee needs from `/proc/PID/stat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    pub pid: i32,
    /// The parent's pid.
    pub ppid: i32,
    /// The process group.
    pub pgid: i32,
    /// Exited but not yet reaped.
    pub zombie: bool,
    /// CPU time used (user and system) in clock ticks (`cpu_seconds` converts it).
    pub cpu_ticks: u64,
}

impl Stat {
    /// The CPU time used, in seconds.
    pub fn cpu_seconds(&self) -> f64 {
        let ticks = sysconf(SysconfVar::CLK_TCK).ok().flatten().unwrap_or(100);
        self.cpu_ticks as f64 / ticks.max(1) as f64
    }
}

/// Reads one process's line; None when the process is gone (or `/proc` is not there). Also
/// readable while the process is a zombie.
pub fn stat(pid: i32) -> Option<Stat> {
    parse_stat(
        pid,
        &std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?,
    )
}

/// CPU seconds (user and system) a process has used.
pub fn cpu_seconds(pid: i32) -> Option<f64> {
    stat(pid).map(|s| s.cpu_seconds())
}

/// Parses the line of process `pid`. The command name (field 2) may contain spaces and
/// parentheses, so the fields are read after its last `)`.
pub fn parse_stat(pid: i32, text: &str) -> Option<Stat> {
    let (_, rest) = text.rsplit_once(')')?;
    // `rest` starts at field 3 (state): field N of the file is `fields[N - 3]`.
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3).copied();
    // Fields 14 and 15: utime and stime.
    let ticks = |n: usize| field(n)?.parse::<u64>().ok();
    Some(Stat {
        pid,
        ppid: field(4)?.parse().ok()?,
        pgid: field(5)?.parse().ok()?,
        zombie: field(3)? == "Z",
        cpu_ticks: ticks(14)?.checked_add(ticks(15)?)?,
    })
}

/// Every process this referee can see (a process that exits during the scan is simply missing).
pub fn all_processes() -> Vec<Stat> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter_map(stat)
        .collect()
}

/// This process's children, from `/proc/self/task/TID/children` of each of its threads (a child
/// is listed under the thread that started it, or under the one it was re-parented to): a
/// dozen small files instead of a line of every process on the machine, which a sweep at every
/// bot's end would otherwise read (1-2 ms each). None where the kernel has no such lists
/// (built without `CONFIG_PROC_CHILDREN`): then only `all_processes` can tell.
///
/// The kernel builds a list as it is read; a child that exits meanwhile may make it skip
/// another child of the same thread. A sweep that misses one meets it at the next sweep.
pub fn own_children() -> Option<Vec<i32>> {
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    let mut listed = false;
    let mut pids = Vec::new();
    for task in tasks.flatten() {
        // A thread that ended since the directory was read has no list: skip it.
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            listed = true;
            pids.extend(
                text.split_ascii_whitespace()
                    .filter_map(|w| w.parse::<i32>().ok()),
            );
        }
    }
    listed.then_some(pids)
}

/// The live processes of a process group (a bot's leader and the helpers still in its group).
pub fn group_members(pgid: i32) -> Vec<i32> {
    all_processes()
        .into_iter()
        .filter(|p| p.pgid == pgid && !p.zombie)
        .map(|p| p.pid)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line as the kernel writes it, with `name` as the command and the given state, parent,
    /// group, utime and stime.
    fn line(name: &str, state: &str, ppid: i32, pgid: i32, utime: u64, stime: u64) -> String {
        format!("42 ({name}) {state} {ppid} {pgid} 9 0 -1 4194560 100 0 0 0 {utime} {stime} 0 0 20 0 1 0 5")
    }

    #[test]
    fn fields_after_a_command_name_with_spaces_and_parentheses() {
        let p = parse_stat(42, &line("a) Z (b", "S", 7, 9, 150, 25)).unwrap();
        assert_eq!(
            p,
            Stat {
                pid: 42,
                ppid: 7,
                pgid: 9,
                zombie: false,
                cpu_ticks: 175
            }
        );
        assert!(parse_stat(42, &line("x", "Z", 1, 2, 0, 0)).unwrap().zombie);
        // Cut short anywhere before stime: nothing is made up.
        assert!(parse_stat(42, "42 (x) S 7 9 9 0 -1").is_none());
        assert!(parse_stat(42, "42 (x) S").is_none());
        assert!(parse_stat(42, "42 x S 7 9").is_none());
    }

    #[test]
    fn this_process_is_seen_in_its_own_group() {
        let me = std::process::id() as i32;
        let mine = stat(me).unwrap();
        let (parent, group) = (
            nix::unistd::getppid().as_raw(),
            nix::unistd::getpgrp().as_raw(),
        );
        assert_eq!((mine.pid, mine.ppid, mine.pgid), (me, parent, group));
        assert!(!mine.zombie);
        assert!(group_members(group).contains(&me));
    }

    #[test]
    fn children_started_by_any_thread_are_listed_as_the_full_scan_sees_them() {
        let Some(_) = own_children() else {
            // A kernel without the lists: the sweep scans every process instead.
            return;
        };
        let here = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let there = std::thread::spawn(|| std::process::Command::new("sleep").arg("5").spawn())
            .join()
            .unwrap()
            .unwrap();
        let listed = own_children().unwrap();
        let me = std::process::id() as i32;
        let scanned: Vec<i32> = all_processes()
            .iter()
            .filter(|p| p.ppid == me)
            .map(|p| p.pid)
            .collect();
        for mut child in [here, there] {
            let pid = child.id() as i32;
            assert!(listed.contains(&pid), "{pid} not in {listed:?}");
            assert!(scanned.contains(&pid));
            child.kill().unwrap();
            child.wait().unwrap();
            assert!(!own_children().unwrap().contains(&pid));
        }
    }
}
