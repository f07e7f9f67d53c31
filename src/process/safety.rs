//! Safety nets of the whole referee process, so that no bot process outlives its use, whatever
//! happens to the referee: the registry of live bot process groups, the signal handlers that
//! kill those groups on Ctrl-C, SIGTERM and SIGHUP, the guard process that kills them if the
//! referee itself is killed outright, and the sweep that finds helpers which left their bot's
//! group (the referee being their child subreaper).
//!
//! These are process-wide by nature (a signal handler sees only statics), so they live here,
//! apart from the one bot process (`child`) that registers itself with them.

use crate::procfs;
use nix::errno::Errno;
use nix::sys::prctl;
use nix::sys::signal::{self, killpg, SaFlags, SigAction, SigHandler, SigSet, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag};
use nix::unistd::{getpgid, getpgrp, getpid, Pid};
use std::io::{self, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------------
// Process groups known to the signal handler.

/// Process groups of live bots, so that the signal handler can kill them without locks. Room for
/// every bot of the most concurrent games a run may play (`MAX_LIVE_BOTS`).
static GROUPS: [AtomicI32; MAX_LIVE_BOTS] = [const { AtomicI32::new(0) }; MAX_LIVE_BOTS];
/// The most bots that may run at once (several workers each run one game's bots).
pub const MAX_LIVE_BOTS: usize = 1024;
/// Held while a bot is started until its group is registered, and while a sweep looks for
/// strays: with several workers starting and killing bots at once, a sweep must never take a
/// bot another worker has just started (a child of the referee whose group is not yet listed).
static CHILDREN: Mutex<()> = Mutex::new(());
/// Set by the signal handler; the match loop stops at once when it sees it.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Starts a bot's process (in its own group) and lists its group, under `CHILDREN` so that no
/// sweep meanwhile takes it for a stray. The flag is false when every slot was taken: the
/// caller then kills the bot, since an unlisted bot would be taken for a stray.
pub(super) fn spawn_listed(command: &mut Command) -> io::Result<(Child, bool)> {
    let _listing = CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
    let child = command.spawn()?;
    let listed = register_group(child.id() as i32);
    Ok((child, listed))
}

/// Lists a bot's group; false when every slot is taken.
fn register_group(pgid: i32) -> bool {
    let listed = GROUPS.iter().any(|slot| {
        slot.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    });
    if listed {
        tell_guard(&format!("+{pgid}\n"));
    }
    listed
}

/// Takes a bot's group off the list once it is dead (and tells the guard). Harmless for a group
/// that is not listed.
pub(super) fn unregister_group(pgid: i32) {
    let mut known = false;
    for slot in &GROUPS {
        known |= slot
            .compare_exchange(pgid, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok();
    }
    if known {
        tell_guard(&format!("-{pgid}\n"));
    }
}

// ---------------------------------------------------------------------------------------------
// The guard: kills bot groups if the referee dies without a chance to do it (SIGKILL).

/// The pipe to the guard process, when one runs.
static GUARD: Mutex<Option<ChildStdin>> = Mutex::new(None);

fn tell_guard(line: &str) {
    if let Ok(mut guard) = GUARD.lock() {
        if let Some(pipe) = guard.as_mut() {
            // A few bytes into a pipe the guard drains at once; if the guard is gone, the
            // referee still kills its groups itself on every path it lives through.
            if pipe.write_all(line.as_bytes()).is_err() {
                *guard = None;
            }
        }
    }
}

/// A watchdog process that outlives a killed referee by an instant. The parent-death signal
/// kills each bot leader, but not the helpers a bot may have started; the guard is told every
/// bot's process group and kills the groups still listed when its input ends, which happens
/// when the referee exits for any reason, SIGKILL included.
pub struct Guard {
    child: Child,
}

impl Guard {
    /// Starts `program args…` as the guard (this binary's hidden `guard` command).
    pub fn start(program: &Path, args: &[&str]) -> io::Result<Guard> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own group, so that Ctrl-C at the terminal does not end it before the referee.
            .process_group(0)
            .spawn()?;
        GUARD_PID.store(child.id() as i32, Ordering::SeqCst);
        let pipe = child.stdin.take();
        if let Ok(mut guard) = GUARD.lock() {
            *guard = pipe;
        }
        Ok(Guard { child })
    }
}

impl Drop for Guard {
    /// On a normal end every group is already gone: closing the pipe lets the guard exit.
    fn drop(&mut self) {
        if let Ok(mut guard) = GUARD.lock() {
            *guard = None;
        }
        let _ = self.child.wait();
    }
}

/// The guard's side: reads `+PGID` / `-PGID` lines until its input ends, then kills every
/// group still listed.
pub fn run_guard() {
    // As the referee: a bot of the same user must not write groups into the guard's input.
    let _ = shield_from_bots();
    let mut groups: Vec<i32> = Vec::new();
    let stdin = io::stdin();
    let mut line = String::new();
    let mut input = stdin.lock();
    while matches!(io::BufRead::read_line(&mut input, &mut line), Ok(n) if n > 0) {
        let text = line.trim();
        if let Some(pgid) = text.strip_prefix('+').and_then(|n| n.parse().ok()) {
            groups.push(pgid);
        } else if let Some(pgid) = text.strip_prefix('-').and_then(|n| n.parse::<i32>().ok()) {
            groups.retain(|&g| g != pgid);
        }
        line.clear();
    }
    for pgid in groups {
        if pgid > 1 {
            kill_group(pgid);
        }
    }
}

extern "C" fn on_signal(_sig: libc::c_int) {
    // Only async-signal-safe work here: atomics and killpg.
    INTERRUPTED.store(true, Ordering::SeqCst);
    for slot in &GROUPS {
        let pgid = slot.load(Ordering::SeqCst);
        if pgid > 0 {
            // killpg is async-signal-safe (one system call) and harmless for a group that is gone.
            let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
        }
    }
}

/// Makes SIGINT, SIGTERM and SIGHUP kill every bot group at once and set the interrupted flag,
/// which the match loop checks after every wait. Finished games are already on disk.
pub fn install_signal_handlers() {
    let action = SigAction::new(
        SigHandler::Handler(on_signal),
        SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    for sig in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        // SAFETY: the handler only touches atomics and calls killpg, both async-signal-safe.
        // Setting a handler for these three signals cannot fail.
        let _ = unsafe { signal::sigaction(sig, &action) };
    }
}

/// Makes a write past a file-size limit (`ulimit -f`, a batch system's) fail with EFBIG instead
/// of killing the referee by SIGXFSZ halfway through a record line: a failed write is taken back
/// to the last whole line and reported (exit 5), as for a full disk. The bots get the default
/// back before they start (`restore_for_child`): a bot past its `--limit-file-size-mb` is
/// stopped by the signal, as that limit says.
pub fn ignore_file_size_signal() {
    // SAFETY: setting a signal to be ignored runs no code of ours in a handler.
    let _ = unsafe { signal::signal(Signal::SIGXFSZ, SigHandler::SigIgn) };
}

/// Between fork and exec of a child: gives back the dispositions the referee changed for itself
/// (`ignore_file_size_signal`), which a child would otherwise inherit. Async-signal-safe.
pub fn restore_for_child() -> std::io::Result<()> {
    // SAFETY: signal() is one system call, async-signal-safe, and installs no handler.
    unsafe { signal::signal(Signal::SIGXFSZ, SigHandler::SigDfl) }
        .map(|_| ())
        .map_err(std::io::Error::from)
}

/// Whether a termination signal has arrived.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

// ---------------------------------------------------------------------------------------------
// Descendants that leave their bot's process group.

/// Set once the referee is a child subreaper: only then do orphaned descendants of bots come
/// back to it, so only then is there anything to sweep (and every other child of this process
/// is one it started itself).
static SUBREAPER: AtomicBool = AtomicBool::new(false);
/// The guard's pid: a child of the referee that sweeps leave alone.
static GUARD_PID: AtomicI32 = AtomicI32::new(0);
/// The longest a sweep waits for killed processes to exit and for their orphans to come back
/// to the referee (each takes a moment after SIGKILL).
const SWEEP_LIMIT: Duration = Duration::from_millis(200);

/// Makes the referee a child subreaper: a process a bot starts that leaves the bot's group
/// (`setsid`, `setpgid`, a daemonising double fork) is re-parented to the referee instead of
/// init when its parent dies, so that `sweep_strays` can still find and kill it.
pub fn become_subreaper() -> io::Result<()> {
    prctl::set_child_subreaper(true)?;
    SUBREAPER.store(true, Ordering::SeqCst);
    Ok(())
}

/// Keeps the bots out of the referee's own files: a process that is not dumpable has its
/// `/proc/PID/fd` closed to other processes of the same user (only root, or a process with
/// CAP_SYS_PTRACE, still gets in), so that a bot cannot open the referee's ends of the other
/// bots' pipes and write lines in their name (forging their faults), nor attach to it. A bot's
/// own exec makes it dumpable again: the bots stay open to each other, which only a sandbox or
/// a user per bot prevents (README, "Running unknown bots"); so does a referee run as root.
pub fn shield_from_bots() -> io::Result<()> {
    prctl::set_dumpable(false)?;
    Ok(())
}

/// Kills and reaps the referee's children that are neither the guard nor a bot it still runs,
/// nor a helper still in a running bot's group: processes that left a bot's group and were
/// re-parented to the referee (see `become_subreaper`), with their own groups. Their
/// descendants come back to the referee in turn as they die, so this repeats until a scan
/// finds nothing, for at most `SWEEP_LIMIT`. `killed` is a group that was just killed: its
/// members' orphans appear only as those members exit, so the sweep also waits for them.
///
/// Each stray is reaped by its own pid, never with `waitpid(-1)`, which could take the exit
/// status of a bot that `std::process::Child` still waits for. Each scan holds `CHILDREN`, so no
/// bot of any worker can be between its start and `register_group` meanwhile.
///
/// Returns how many of the strays it killed were running (not zombies already): helpers that
/// outlived their bot, which the bot's log and `check-bot` mention (`strays_killed`).
pub fn sweep_strays(killed: Option<i32>) -> usize {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return 0;
    }
    let mut running: Vec<i32> = Vec::new();
    let (me, my_group) = (getpid().as_raw(), getpgrp().as_raw());
    let guard = GUARD_PID.load(Ordering::SeqCst);
    let until = Instant::now() + SWEEP_LIMIT;
    loop {
        let listing = CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
        let bots: Vec<i32> = GROUPS
            .iter()
            .map(|slot| slot.load(Ordering::SeqCst))
            .filter(|&g| g > 0)
            .collect();
        // Every process on the machine only where the kernel does not list a thread's children.
        let mut procs = None;
        let strays: Vec<(i32, i32)> = match procfs::own_children() {
            Some(children) => children
                .into_iter()
                .filter(|&pid| pid != guard)
                // A child of ours stays (a zombie at worst) until we reap it: its group is known.
                .filter_map(|pid| Some((pid, getpgid(Some(Pid::from_raw(pid))).ok()?.as_raw())))
                .filter(|(_, pgid)| !bots.contains(pgid))
                .collect(),
            None => procs
                .insert(procfs::all_processes())
                .iter()
                .filter(|p| p.ppid == me && p.pid != guard && !bots.contains(&p.pgid))
                .map(|p| (p.pid, p.pgid))
                .collect(),
        };
        let dying = killed.is_some_and(|g| {
            // Most groups are empty once their leader is reaped: the kernel says so at once.
            // Otherwise only every process's state tells the dying members from zombies.
            killpg(Pid::from_raw(g), None) != Err(Errno::ESRCH)
                && procs
                    .get_or_insert_with(procfs::all_processes)
                    .iter()
                    .any(|p| p.pgid == g && !p.zombie)
        });
        if strays.is_empty() && !dying {
            return running.len();
        }
        for (pid, pgid) in strays {
            if !running.contains(&pid) && procfs::stat(pid).is_some_and(|s| !s.zombie) {
                running.push(pid);
                STRAYS_KILLED.fetch_add(1, Ordering::Relaxed);
            }
            // A stray that leads a group made it (`setsid`, `setpgid`): kill that group whole.
            // The group id is the stray's pid, which stays the referee's until it is reaped, so
            // the group cannot be anyone else's. Other groups are left to their own leaders.
            if pgid == pid && pgid != my_group && pgid > 1 {
                kill_group(pgid);
            }
            // Signalling and reaping our own child by its pid, which stays ours (as a zombie at
            // worst) until this waitpid reaps it. Its status is of no use.
            let pid = Pid::from_raw(pid);
            let _ = signal::kill(pid, Signal::SIGKILL);
            let _ = waitpid(pid, Some(WaitPidFlag::WNOHANG));
        }
        drop(listing);
        if Instant::now() >= until {
            return running.len();
        }
        thread::sleep(Duration::from_millis(1));
    }
}

/// Running strays the sweeps have killed since the process began (see `sweep_strays`).
static STRAYS_KILLED: AtomicU64 = AtomicU64::new(0);

/// How many running processes that had left a bot's group the sweeps have killed so far.
pub fn strays_killed() -> u64 {
    STRAYS_KILLED.load(Ordering::Relaxed)
}

/// SIGKILL to a whole process group.
pub(super) fn kill_group(pgid: i32) {
    // ESRCH (already gone) is fine.
    let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
}
