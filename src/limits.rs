//! Operating-system limits and a clean environment for bots written by strangers.
//!
//! A league organiser runs code they have not read. The kernel enforces the limits (`setrlimit`
//! in the bot's process between fork and exec); the referee's part is to say afterwards which
//! limit a faulted bot ran into, instead of a bare signal number.
//!
//! The limits and why each is the one it is:
//! - **Memory** is `RLIMIT_DATA`, the bot's private writable memory (heap, anonymous mappings,
//!   thread stacks), not `RLIMIT_AS`: runtimes such as V8, Go and the JVM reserve gigabytes of
//!   address space they never touch and would not even start under an address-space limit.
//!   An allocation past the limit fails; what the bot then does is up to its runtime (Python
//!   raises `MemoryError`, C may crash), so a crash under a memory limit is explained from the
//!   bot's last words on stderr where they name it, and otherwise said to be a possible cause.
//! - **CPU seconds per game** is `RLIMIT_CPU`, which the kernel counts over a process's whole
//!   life, while a bot may be kept alive for many games. So at the start of every game the
//!   referee raises the soft limit of each process in the bot's group to the CPU time it has
//!   used so far, rounded up to a whole second, plus the allowance (`prlimit`; only the soft
//!   limit, which needs no privilege). A bot thus gets at least N and less than N+1 seconds
//!   per game. At the soft limit the kernel sends `SIGXCPU`, which kills a bot that does not
//!   handle it; one that catches it is faulted by the referee when its next answer arrives.
//!   A helper process a bot starts during a game counts on its own, from its own start.
//! - **Open files** is `RLIMIT_NOFILE` (the three standard streams count).
//! - **File size** is `RLIMIT_FSIZE`: a write past it fails, and the kernel sends `SIGXFSZ`,
//!   which kills a bot that does not ignore it. Core dumps are switched off (`RLIMIT_CORE` 0)
//!   under this limit, as a core file would escape it.
//!
//! The clean environment gives a bot `PATH`, `HOME` and `LANG` (the referee's values, `LANG`
//! defaulting to `C.UTF-8`) and nothing else, so that no secret in the organiser's environment
//! (tokens, credentials, paths) reaches code written by someone else.

use crate::procfs;
use clap::Args;
use nix::sys::resource::{getrlimit, setrlimit, Resource};
use serde::{Deserialize, Serialize};
use std::io;

/// The limits and isolation applied to a bot: the limit options of `match` and `check-bot`
/// (see README, "Running unknown bots"; every bot gets the same), and the `limits` keys of a
/// league config (every key optional; a missing limit is no limit).
#[derive(Args, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Memory limit per bot process in MiB: private writable memory (RLIMIT_DATA).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long = "limit-memory-mb", value_name = "MB")]
    pub memory_mb: Option<u64>,
    /// CPU seconds per game per bot process (RLIMIT_CPU, renewed at every game start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long = "limit-cpu-s", value_name = "S")]
    pub cpu_s: Option<u64>,
    /// Open files per bot process, stdin, stdout and stderr included (RLIMIT_NOFILE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long = "limit-files", value_name = "N")]
    pub files: Option<u64>,
    /// Largest file a bot may write, in MiB (RLIMIT_FSIZE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long = "limit-file-size-mb", value_name = "MB")]
    pub file_size_mb: Option<u64>,
    /// Start bots with only PATH, HOME and LANG in their environment.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[arg(long)]
    pub clean_env: bool,
}

/// The largest MiB figure accepted: its bytes still fit the kernel's 64-bit limits.
const MAX_MB: u64 = 1 << 40;
/// Fewer descriptors than this and no program starts at all (stdin, stdout, stderr and the
/// libraries its loader opens).
const MIN_FILES: u64 = 4;

impl Limits {
    /// Checks the values; the error names the limit by `name(key)`, so that the match options
    /// and a league config each report it in their own words.
    pub fn check(&self, name: impl Fn(&str) -> String) -> Result<(), String> {
        for (key, value, max) in [
            ("memory_mb", self.memory_mb, MAX_MB),
            ("cpu_s", self.cpu_s, u32::MAX as u64),
            ("files", self.files, u32::MAX as u64),
            ("file_size_mb", self.file_size_mb, MAX_MB),
        ] {
            match value {
                Some(0) => return Err(format!("{} 0: a limit must be at least 1", name(key))),
                Some(v) if v > max => {
                    return Err(format!("{} {v}: at most {max}", name(key)));
                }
                _ => {}
            }
        }
        if let Some(files) = self.files.filter(|&f| f < MIN_FILES) {
            return Err(format!(
                "{} {files}: a program needs at least {MIN_FILES} open files to start",
                name("files")
            ));
        }
        Ok(())
    }

    /// Whether any OS limit is set (the clean environment aside).
    pub fn any(&self) -> bool {
        self.memory_mb.is_some()
            || self.cpu_s.is_some()
            || self.files.is_some()
            || self.file_size_mb.is_some()
    }

    /// The environment a bot starts with under `clean_env`.
    pub fn clean_environment() -> Vec<(String, String)> {
        let mut env = Vec::new();
        for key in ["PATH", "HOME"] {
            if let Some(value) = std::env::var_os(key) {
                env.push((key.to_string(), value.to_string_lossy().into_owned()));
            }
        }
        let lang = std::env::var("LANG").unwrap_or_else(|_| "C.UTF-8".into());
        env.push(("LANG".into(), lang));
        env
    }

    /// The `setrlimit` calls to make in the child, computed before the fork (the child may only
    /// make async-signal-safe calls).
    pub(crate) fn rlimits(&self) -> ChildLimits {
        const MIB: u64 = 1 << 20;
        let set = [
            self.memory_mb.map(|mb| (Resource::RLIMIT_DATA, mb * MIB)),
            self.cpu_s.map(|s| (Resource::RLIMIT_CPU, s)),
            self.files.map(|n| (Resource::RLIMIT_NOFILE, n)),
            self.file_size_mb
                .map(|mb| (Resource::RLIMIT_FSIZE, mb * MIB)),
            self.file_size_mb.map(|_| (Resource::RLIMIT_CORE, 0)),
        ];
        ChildLimits { items: set }
    }
}

/// Limits to set between fork and exec: a fixed array, so that nothing is allocated there.
#[derive(Clone, Copy, Default)]
pub(crate) struct ChildLimits {
    items: [Option<(Resource, u64)>; 5],
}

impl ChildLimits {
    /// Sets each soft limit, and the hard limit to the same value when it is lower (a
    /// process may lower its own hard limit but not raise it), except for CPU time, whose hard
    /// limit stays where it was so that the referee can renew the soft limit every game.
    ///
    /// Runs in the child between fork and exec: only `getrlimit`/`setrlimit`, which are plain
    /// system calls.
    pub(crate) fn apply(&self) -> io::Result<()> {
        for &(resource, value) in self.items.iter().flatten() {
            let (_, hard) = getrlimit(resource)?;
            let soft = (value as libc::rlim_t).min(hard);
            let hard = if resource == Resource::RLIMIT_CPU {
                hard
            } else {
                soft
            };
            setrlimit(resource, soft, hard)?;
        }
        Ok(())
    }
}

/// What the referee keeps about a running bot's limits. The bot is named by its leader's pid,
/// which is also its process group: this module works on plain processes, and the bot process
/// (`crate::process`) is built on it, not the other way round.
#[derive(Clone, Debug, Default)]
pub(crate) struct Enforced {
    limits: Limits,
    /// The CPU soft limit of the bot's leader process for the current game, in seconds of its
    /// life: reaching it is reaching the per-game allowance.
    cpu_until_s: Option<u64>,
}

impl Enforced {
    pub(crate) fn new(limits: Limits) -> Enforced {
        Enforced {
            limits,
            cpu_until_s: limits.cpu_s,
        }
    }
}

/// Raises a process's CPU soft limit to `until` seconds of its life (the hard limit is kept;
/// the soft limit never goes above it). libc, not nix: nix sets limits only of its own process,
/// and this is another one (`prlimit`).
fn renew_cpu_limit(pid: i32, until: u64) -> io::Result<()> {
    let mut old = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: prlimit on a process of our own bot with valid structs.
    unsafe {
        if libc::prlimit(pid, libc::RLIMIT_CPU, std::ptr::null(), &mut old) != 0 {
            return Err(io::Error::last_os_error());
        }
        let new = libc::rlimit {
            rlim_cur: (until as libc::rlim_t).min(old.rlim_max),
            rlim_max: old.rlim_max,
        };
        if libc::prlimit(pid, libc::RLIMIT_CPU, &new, std::ptr::null_mut()) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The allowance that starts at `used` seconds of a process's life.
fn cpu_until(used: f64, allowance: u64) -> u64 {
    used.ceil() as u64 + allowance
}

/// Words a runtime prints when an allocation fails (Python, C, C++, Rust, Java, Go, Node).
const OUT_OF_MEMORY: &[&str] = &[
    "MemoryError",
    "Cannot allocate memory",
    "out of memory",
    "Out of memory",
    "bad_alloc",
    "memory allocation of",
    "OutOfMemoryError",
    "heap out of memory",
    "ENOMEM",
];

impl Enforced {
    /// Starts the CPU allowance for a new game (see the module's notes) of the bot whose group
    /// `leader` leads. Processes that vanish meanwhile are skipped; a failure to renew is
    /// returned as a note for the bot's log, never fatal: the referee's own check then faults
    /// the bot a game early rather than never.
    pub(crate) fn begin_game(&mut self, leader: i32) -> Vec<String> {
        let mut notes = Vec::new();
        let Some(allowance) = self.limits.cpu_s else {
            return notes;
        };
        for pid in procfs::group_members(leader) {
            let Some(used) = procfs::cpu_seconds(pid) else {
                continue;
            };
            let until = cpu_until(used, allowance);
            if pid == leader {
                self.cpu_until_s = Some(until);
            }
            if let Err(e) = renew_cpu_limit(pid, until) {
                notes.push(format!("cannot renew the CPU limit of process {pid}: {e}"));
            }
        }
        notes
    }

    /// Whether the bot's `leader` has used up this game's CPU allowance: a bot that catches
    /// `SIGXCPU` and answers anyway is faulted on this check. Costs a read of `/proc` only when
    /// a CPU limit is set.
    pub(crate) fn cpu_limit_reached(&self, leader: i32) -> bool {
        let Some(until) = self.cpu_until_s else {
            return false;
        };
        procfs::cpu_seconds(leader).is_some_and(|used| used >= until as f64)
    }

    /// The fault detail of a crashed or silent bot led by `leader`, with the limit it ran into
    /// named first when one explains it. `status` is how the bot ended (None while it still
    /// runs) and `stderr_tail` its last words.
    pub(crate) fn explain(
        &self,
        leader: i32,
        detail: String,
        status: Option<std::process::ExitStatus>,
        stderr_tail: &str,
    ) -> String {
        explain(
            &self.limits,
            detail,
            status.and_then(ending_signal),
            self.cpu_limit_reached(leader),
            stderr_tail,
        )
    }
}

/// The signal that ended a bot: its own, or its child's as a wrapper reports it with exit code
/// 128 + the signal, as shells and sandboxes such as bubblewrap do (the limits are inherited by
/// the program a wrapper starts, so that is where they are met).
fn ending_signal(status: std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal().or_else(|| {
        status
            .code()
            .filter(|&code| code > 128 && code < 128 + 65)
            .map(|code| code - 128)
    })
}

fn cpu_limit_text(allowance: u64) -> String {
    format!("CPU limit of {allowance} s per game reached")
}

/// The explanation itself, apart from the process so that it can be tested on its own.
fn explain(
    limits: &Limits,
    detail: String,
    signal: Option<i32>,
    cpu_spent: bool,
    stderr_tail: &str,
) -> String {
    let says = |words: &[&str]| words.iter().any(|w| stderr_tail.contains(w));
    if let Some(allowance) = limits.cpu_s {
        if signal == Some(libc::SIGXCPU) || cpu_spent {
            return format!("{}: {detail}", cpu_limit_text(allowance));
        }
    }
    if let Some(mb) = limits.file_size_mb {
        if signal == Some(libc::SIGXFSZ) || says(&["File too large", "EFBIG"]) {
            return format!("file size limit of {mb} MB reached: {detail}");
        }
    }
    if let Some(n) = limits.files {
        if says(&["Too many open files", "EMFILE"]) {
            return format!("open files limit of {n} reached: {detail}");
        }
    }
    if let Some(mb) = limits.memory_mb {
        if says(OUT_OF_MEMORY) {
            return format!("memory limit of {mb} MB reached: {detail}");
        }
        if signal.is_some() || detail.starts_with("exited") {
            return format!(
                "{detail}; it ran under a memory limit of {mb} MB and may have reached it"
            );
        }
    }
    detail
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Limits {
        Limits {
            memory_mb: Some(64),
            cpu_s: Some(2),
            files: Some(16),
            file_size_mb: Some(1),
            clean_env: false,
        }
    }

    #[test]
    fn config_keys_and_checks() {
        let limits: Limits =
            serde_json::from_str(r#"{"memory_mb":64,"cpu_s":2,"files":16,"file_size_mb":1}"#)
                .unwrap();
        assert_eq!(limits, all());
        assert_eq!(
            serde_json::from_str::<Limits>("{}").unwrap(),
            Limits::default()
        );
        assert!(serde_json::from_str::<Limits>(r#"{"memory":1}"#).is_err());
        let flag = |k: &str| format!("--limit-{}", k.replace('_', "-"));
        assert_eq!(all().check(flag), Ok(()));
        let zero = Limits {
            cpu_s: Some(0),
            ..all()
        };
        assert_eq!(
            zero.check(flag).unwrap_err(),
            "--limit-cpu-s 0: a limit must be at least 1"
        );
        let few = Limits {
            files: Some(2),
            ..all()
        };
        assert!(few.check(flag).unwrap_err().starts_with("--limit-files 2:"));
        let huge = Limits {
            memory_mb: Some(u64::MAX),
            ..all()
        };
        assert!(huge.check(flag).is_err());
    }

    #[test]
    fn each_limit_is_named_in_the_fault() {
        let d = || "exited (killed by signal 24 (SIGXCPU))".to_string();
        assert_eq!(
            explain(&all(), d(), Some(libc::SIGXCPU), false, ""),
            format!("CPU limit of 2 s per game reached: {}", d())
        );
        assert!(
            explain(&all(), "no move within 5000 ms".into(), None, true, "")
                .starts_with("CPU limit of 2 s per game reached")
        );
        assert!(explain(&all(), d(), Some(libc::SIGXFSZ), false, "")
            .starts_with("file size limit of 1 MB reached"));
        assert!(explain(
            &all(),
            "exited (exit code 1)".into(),
            None,
            false,
            "OSError: [Errno 27] File too large"
        )
        .starts_with("file size limit of 1 MB reached"));
        assert!(explain(
            &all(),
            "exited (exit code 1)".into(),
            None,
            false,
            "OSError: [Errno 24] Too many open files: 'x'"
        )
        .starts_with("open files limit of 16 reached"));
        assert!(explain(
            &all(),
            "exited (exit code 1)".into(),
            None,
            false,
            "MemoryError\n"
        )
        .starts_with("memory limit of 64 MB reached"));
        assert_eq!(
            explain(&all(), "exited (killed by signal 11 (SIGSEGV))".into(), Some(11), false, ""),
            "exited (killed by signal 11 (SIGSEGV)); it ran under a memory limit of 64 MB and may have reached it"
        );
        // Without the limit, the same words explain nothing.
        assert_eq!(
            explain(
                &Limits::default(),
                d(),
                Some(libc::SIGXCPU),
                false,
                "MemoryError"
            ),
            d()
        );
    }

    #[test]
    fn a_wrapper_reports_its_childs_signal_as_128_plus_it() {
        use std::os::unix::process::ExitStatusExt;
        let exited = |code: i32| std::process::ExitStatus::from_raw(code << 8);
        assert_eq!(ending_signal(exited(152)), Some(libc::SIGXCPU));
        assert_eq!(ending_signal(exited(1)), None);
        assert_eq!(
            ending_signal(std::process::ExitStatus::from_raw(libc::SIGXFSZ)),
            Some(libc::SIGXFSZ)
        );
    }

    #[test]
    fn the_cpu_allowance_starts_at_the_next_whole_second() {
        assert_eq!(cpu_until(0.0, 2), 2);
        assert_eq!(cpu_until(3.01, 2), 6);
        assert_eq!(cpu_until(3.0, 2), 5);
    }

    #[test]
    fn the_cpu_time_of_this_process_grows_as_it_computes() {
        // The CPU time of the whole process: test threads running beside this one only add to
        // it, so the lower bound holds however the tests are scheduled.
        let me = std::process::id() as i32;
        let before = procfs::cpu_seconds(me).unwrap();
        let burn = cpu_time_of_thread() + 0.3;
        let mut x = 1u64;
        while cpu_time_of_thread() < burn {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
        let grown = procfs::cpu_seconds(me).unwrap() - before;
        // 0.3 s burnt; the kernel's count is in clock ticks (1/100 s), so allow a few of them.
        assert!(grown >= 0.25, "burnt 0.3 s of CPU, /proc says {grown} s");
    }

    /// This thread's CPU time, from a clock independent of `/proc`.
    fn cpu_time_of_thread() -> f64 {
        use nix::time::{clock_gettime, ClockId};
        let t = clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID).unwrap();
        t.tv_sec() as f64 + t.tv_nsec() as f64 / 1e9
    }
}
