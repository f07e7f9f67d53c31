//! `--pin-cpus`: each worker, and every bot it starts, kept on one CPU of its own.
//!
//! Why a run may want it: a game is a relay. The referee writes a turn and sleeps; the bot
//! wakes, answers and sleeps; the referee wakes. When the scheduler wakes the bot on another
//! CPU than the referee's, and that CPU was idle, every hand-off pays for waking a sleeping CPU.
//! On a virtual machine whose idle CPUs halt, that costs tens of microseconds, several times the
//! pipe round trip itself: instant bots then play four to five times slower at concurrency 1
//! than with the game kept on one CPU (`bench/league.sh` prints both). Since only one bot of a
//! game thinks at a time, one CPU a game costs a bot nothing, unless it thinks on several
//! threads or on the others' time; so it is asked for, never the default.
//!
//! A process inherits the CPU set of the thread that starts it, so pinning a worker's thread
//! before it starts any bot pins the bots too (and their helpers, which they start).

use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
use nix::unistd::Pid;

/// The CPUs this process may run on, in order (none when the kernel will not say).
pub fn allowed_cpus() -> Vec<usize> {
    let Ok(set) = sched_getaffinity(Pid::from_raw(0)) else {
        return Vec::new();
    };
    (0..CpuSet::count())
        .filter(|&cpu| set.is_set(cpu).unwrap_or(false))
        .collect()
}

/// Keeps the calling thread, and every process it starts from now on, on `cpu`.
pub fn pin_this_thread(cpu: usize) -> nix::Result<()> {
    let mut set = CpuSet::new();
    set.set(cpu)?;
    // Pid 0 is the calling thread, not the whole process.
    sched_setaffinity(Pid::from_raw(0), &set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_thread_and_the_process_it_starts_run_on_that_cpu_only() {
        let cpus = allowed_cpus();
        assert!(
            !cpus.is_empty(),
            "the kernel names the CPUs this process may use"
        );
        let cpu = *cpus.last().unwrap();
        let child = std::thread::spawn(move || {
            pin_this_thread(cpu).unwrap();
            let mine = allowed_cpus();
            // A process started from the pinned thread reports its own CPU list.
            let out = std::process::Command::new("grep")
                .args(["Cpus_allowed_list", "/proc/self/status"])
                .output()
                .unwrap();
            (mine, String::from_utf8_lossy(&out.stdout).into_owned())
        });
        let (mine, status) = child.join().unwrap();
        assert_eq!(mine, vec![cpu]);
        assert_eq!(
            status.split_whitespace().last(),
            Some(cpu.to_string().as_str())
        );
        // The thread that did not pin itself keeps every CPU.
        assert_eq!(allowed_cpus(), cpus);
    }
}
