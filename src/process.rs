//! A bot as an operating-system process: started from an argument list without a shell, in its
//! own process group, tied to the referee's life, and spoken to without ever letting the bot stall
//! the referee.
//!
//! Why it is built this way:
//! - **Own process group** (`setpgid` via `process_group(0)`): a bot may start helpers; killing
//!   the group takes them too, and Ctrl-C at the terminal reaches the referee, not the bots.
//! - **Parent-death signal** (`PR_SET_PDEATHSIG`): if the referee dies, even by SIGKILL, the kernel
//!   kills each bot leader. Grandchildren are covered by the group kill on every normal path and
//!   by the signal handler in `install_signal_handlers` on SIGINT/SIGTERM/SIGHUP.
//! - **Child subreaper** (`PR_SET_CHILD_SUBREAPER`): a helper can leave its bot's group
//!   (`setsid`, a daemonising double fork) and so escape the group kill. As a subreaper the
//!   referee inherits such orphans instead of init, and `sweep_strays` kills them whenever a bot
//!   is killed or shut down. If the referee itself is SIGKILLed, only the groups the guard knows
//!   are killed.
//! - **Non-blocking pipes, no hand-off threads on the move path**: the referee writes a message
//!   with a non-blocking write; whatever the pipe does not take is kept and written while the
//!   referee waits for the reply (`poll` on both pipes). Reading is done by the referee itself
//!   with `ppoll` against one absolute deadline. A thread hand-off per message would cost about
//!   as much as the pipe round trip itself, and the referee's per-move cost is a measured figure.
//! - **stderr is drained by a thread** into a capped tail buffer and an optional capped log file,
//!   so a bot that writes a lot of diagnostics never blocks on a full pipe (unless it writes more
//!   than 8 MiB a second: a flood is read at that rate, so it cannot keep a core busy).
//! - **Bounded reading of stdout**: at most `READ_LIMIT` bytes of a bot's output are held; what
//!   a bot writes beyond that waits in its pipe until the referee has judged the line it has. A
//!   bot cannot make the referee's memory grow, whatever it writes.

use crate::limits::Limits;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How long a finished bot's stderr may take to reach its end (a helper that escaped the group
/// could hold it open; the referee does not wait for that one longer than this).
const STDERR_SETTLE: Duration = Duration::from_millis(200);

/// How much of a bot's stderr is kept in memory for fault records.
pub const STDERR_TAIL_BYTES: usize = 4096;
/// How much goes to a bot's log file at most, for all its processes in a run together.
pub const STDERR_LOG_CAP: u64 = 1 << 20;

/// Splits a command line into arguments the way a POSIX shell would for a simple command: blanks
/// separate words, `'…'` quotes literally, `"…"` quotes with `\` escaping `" \ $ \``, and `\`
/// outside quotes escapes the next character. Nothing is expanded and no shell runs, so a bot
/// command can never execute anything but the program it names.
pub fn split_command(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(format!("unterminated ' quote in `{line}`")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(format!("unterminated \" quote in `{line}`")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(format!("unterminated \" quote in `{line}`")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') => {}
                    Some(c) => word.push(c),
                    None => return Err(format!("trailing backslash in `{line}`")),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err("empty bot command".into());
    }
    Ok(words)
}

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

/// Lists a bot's group; false when every slot is taken (the caller then kills the bot: an
/// unlisted bot would be taken for a stray).
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

fn unregister_group(pgid: i32) {
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
            // SAFETY: killpg is async-signal-safe and harmless for a group that is gone.
            unsafe {
                libc::killpg(pgid, libc::SIGKILL);
            }
        }
    }
}

/// Makes SIGINT, SIGTERM and SIGHUP kill every bot group at once and set the interrupted flag,
/// which the match loop checks after every wait. Finished games are already on disk.
pub fn install_signal_handlers() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only touches atomics and calls killpg.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            action.sa_flags = libc::SA_RESTART;
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
    }
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
    // SAFETY: prctl with plain integer arguments changes only this process's own attribute.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    SUBREAPER.store(true, Ordering::SeqCst);
    Ok(())
}

/// What a sweep needs from `/proc/PID/stat`.
struct ProcStat {
    pid: i32,
    ppid: i32,
    pgid: i32,
    zombie: bool,
}

/// Reads one process's state, parent and group. The command name (field 2) may contain
/// spaces and parentheses, so the fields are read after its last `)`.
fn proc_stat(pid: i32) -> Option<ProcStat> {
    parse_stat(
        pid,
        &std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?,
    )
}

fn parse_stat(pid: i32, text: &str) -> Option<ProcStat> {
    let (_, rest) = text.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgid = fields.next()?.parse().ok()?;
    Some(ProcStat {
        pid,
        ppid,
        pgid,
        zombie: state == "Z",
    })
}

/// Every process this referee can see (a process that exits during the scan is simply missing).
fn all_processes() -> Vec<ProcStat> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter_map(proc_stat)
        .collect()
}

/// The processes of a bot's group (its leader and the helpers still in the group).
pub fn group_members(pgid: i32) -> Vec<i32> {
    all_processes()
        .into_iter()
        .filter(|p| p.pgid == pgid && !p.zombie)
        .map(|p| p.pid)
        .collect()
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
pub fn sweep_strays(killed: Option<i32>) {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return;
    }
    // SAFETY: getpid and getpgrp cannot fail.
    let (me, my_group) = unsafe { (libc::getpid(), libc::getpgrp()) };
    let guard = GUARD_PID.load(Ordering::SeqCst);
    let until = Instant::now() + SWEEP_LIMIT;
    loop {
        let listing = CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
        let bots: Vec<i32> = GROUPS
            .iter()
            .map(|slot| slot.load(Ordering::SeqCst))
            .filter(|&g| g > 0)
            .collect();
        let procs = all_processes();
        let strays: Vec<&ProcStat> = procs
            .iter()
            .filter(|p| p.ppid == me && p.pid != guard && !bots.contains(&p.pgid))
            .collect();
        let dying = killed.is_some_and(|g| procs.iter().any(|p| p.pgid == g && !p.zombie));
        if strays.is_empty() && !dying {
            return;
        }
        for stray in strays {
            // A stray that leads a group made it (`setsid`, `setpgid`): kill that group whole.
            // The group id is the stray's pid, which stays the referee's until it is reaped, so
            // the group cannot be anyone else's. Other groups are left to their own leaders.
            if stray.pgid == stray.pid && stray.pgid != my_group && stray.pgid > 1 {
                kill_group(stray.pgid);
            }
            // SAFETY: signalling and reaping our own child by its pid, which stays ours (as a
            // zombie at worst) until this waitpid reaps it.
            unsafe {
                libc::kill(stray.pid, libc::SIGKILL);
                libc::waitpid(stray.pid, std::ptr::null_mut(), libc::WNOHANG);
            }
        }
        drop(listing);
        if Instant::now() >= until {
            return;
        }
        thread::sleep(Duration::from_millis(1));
    }
}

// ---------------------------------------------------------------------------------------------
// stderr

/// A bot's log file (`--log-dir`): its stderr, the referee's notes on it (games, faults) and,
/// with `--log-protocol`, every protocol line in both directions with the time. One log serves
/// every process started for the bot during a run, so its cap holds per bot, not per start.
#[derive(Clone, Debug)]
pub struct BotLog {
    inner: Arc<Mutex<LogFile>>,
    protocol: bool,
    path: std::path::PathBuf,
}

#[derive(Debug)]
struct LogFile {
    /// None once the cap is reached (or a write failed).
    file: Option<File>,
    written: u64,
}

impl BotLog {
    /// Opens (creates or appends to) the log at `path`; `protocol` also logs protocol lines.
    pub fn open(path: &Path, protocol: bool) -> io::Result<BotLog> {
        let file = File::options().create(true).append(true).open(path)?;
        Ok(BotLog {
            inner: Arc::new(Mutex::new(LogFile {
                file: Some(file),
                written: 0,
            })),
            protocol,
            path: path.to_path_buf(),
        })
    }

    /// Where the log is, to tell a person.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends bytes, up to the cap; past it, one note says so and nothing more is written.
    fn write(&self, bytes: &[u8]) {
        let mut log = match self.inner.lock() {
            Ok(log) => log,
            Err(poisoned) => poisoned.into_inner(),
        };
        let room = STDERR_LOG_CAP.saturating_sub(log.written) as usize;
        let n = bytes.len().min(room);
        let Some(file) = log.file.as_mut() else {
            return;
        };
        // A failing log must not stop the game: the log is a convenience, the record is the
        // product.
        let ok = file.write_all(&bytes[..n]).is_ok();
        if ok && n < bytes.len() {
            let _ = writeln!(file, "\n[multiversi: log capped at {STDERR_LOG_CAP} bytes]");
        }
        log.written += n as u64;
        if !ok || n < bytes.len() {
            log.file = None;
        }
    }

    /// A protocol line, `>` to the bot or `<` from it, after the UTC time of day to the
    /// millisecond, when protocol lines are kept.
    fn protocol_line(&self, direction: char, line: &[u8]) {
        if !self.protocol {
            return;
        }
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let mut entry = format!("[multiversi {}] {direction} ", time_of_day()).into_bytes();
        entry.extend_from_slice(line);
        entry.push(b'\n');
        self.write(&entry);
    }
}

/// The UTC time of day as `HH:MM:SS.mmm`.
fn time_of_day() -> String {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let ms = since.as_millis() % 86_400_000;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

/// The captured end of a bot's stderr, and its log.
struct StderrSink {
    tail: VecDeque<u8>,
    log: Option<BotLog>,
    /// Set once the bot is being killed: what is left in the pipe is read at full speed.
    hurry: bool,
}

impl StderrSink {
    fn push(&mut self, bytes: &[u8]) {
        let keep = bytes.len().min(STDERR_TAIL_BYTES);
        let over = (self.tail.len() + keep).saturating_sub(STDERR_TAIL_BYTES);
        self.tail.drain(..over);
        self.tail.extend(&bytes[bytes.len() - keep..]);
        if let Some(log) = &self.log {
            log.write(bytes);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The bot process

/// What waiting for a line from a bot produced.
#[derive(Debug, PartialEq, Eq)]
pub enum Received {
    /// A complete line (without its `\n` and a trailing `\r`), and when it arrived.
    Line(Vec<u8>, Instant),
    /// The line grew past the cap before its end; the first bytes of it.
    TooLong(Vec<u8>),
    /// The bot's output ended (it exited or closed stdout).
    Eof,
    /// The deadline passed first.
    Timeout,
}

/// What the output read from a bot holds at its start.
enum News {
    /// A complete line: its `\n` is at `end`, and it has `len` bytes without its line end.
    Line { end: usize, len: usize },
    /// A line longer than the cap, complete or not.
    TooLong,
    /// The output ended after a last line without its newline.
    LastLine,
    /// The output ended.
    Eof,
}

/// The most a bot's unread output may occupy in the referee, whatever the bot writes: room for
/// a complete line of the longest length the protocol allows (with `\r\n`) and one more. When
/// this much is buffered, the buffer always holds news (a complete line or an over-long one), so
/// the referee reads no more until it has dealt with that.
pub const READ_LIMIT: usize = 2 * (crate::protocol::MAX_LINE_BYTES + 2);

/// A running bot.
pub struct BotProcess {
    child: Child,
    pgid: i32,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    /// Bytes written to the bot's stdin that the pipe has not taken yet.
    pending: Vec<u8>,
    /// Bytes read from stdout that do not yet form a complete line.
    buffer: Vec<u8>,
    /// Where the search for `\n` in `buffer` resumes.
    scanned: usize,
    eof: bool,
    /// When the last read from stdout returned: the arrival time of the lines it completed.
    read_at: Instant,
    /// Where reads land before joining `buffer`; kept so it is not zeroed again for every read.
    scratch: Vec<u8>,
    stderr: Arc<Mutex<StderrSink>>,
    /// Set by the drainer when the bot's stderr has ended.
    stderr_done: Arc<AtomicBool>,
    /// The bot's log, if the run keeps logs.
    log: Option<BotLog>,
    status: Option<ExitStatus>,
    /// The OS limits it runs under (see `crate::limits`).
    pub(crate) enforced: crate::limits::Enforced,
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

impl BotProcess {
    /// Starts a bot from an argument list, in its own process group, in `dir` if given, with its
    /// stderr appended to `log` if given. Fails only if the program cannot be started at all.
    pub fn spawn(
        argv: &[String],
        dir: Option<&Path>,
        log: Option<BotLog>,
    ) -> io::Result<BotProcess> {
        Self::spawn_limited(argv, dir, &[], log, &Limits::default())
    }

    /// `spawn`, under OS limits, optionally with a clean environment (see `crate::limits`), and
    /// with `env` added to the environment (a league's `env` for a bot).
    pub fn spawn_limited(
        argv: &[String],
        dir: Option<&Path>,
        env: &[(String, String)],
        log: Option<BotLog>,
        limits: &Limits,
    ) -> io::Result<BotProcess> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty command"))?;
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        if limits.clean_env {
            command.env_clear().envs(Limits::clean_environment());
        }
        command.envs(env.iter().map(|(k, v)| (k, v)));
        let rlimits = limits.rlimits();
        // SAFETY: getpid/prctl/getppid/setrlimit are async-signal-safe, as pre_exec requires.
        let parent = unsafe { libc::getpid() };
        unsafe {
            command.pre_exec(move || {
                // The kernel sends SIGKILL to this child when the thread that started it ends:
                // the referee's main thread, or the worker that owns the bot, which shuts its
                // bots down before it ends.
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // The referee may have died between fork and prctl: then nothing would kill us.
                if libc::getppid() != parent {
                    return Err(io::Error::other("the referee is gone"));
                }
                rlimits.apply()
            });
        }
        let started = {
            let _listing = CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
            command.spawn().map(|child| {
                let listed = register_group(child.id() as i32);
                (child, listed)
            })
        };
        let (mut child, listed) = started?;
        let pgid = child.id() as i32;
        if !listed {
            kill_group(pgid);
            let _ = child.wait();
            return Err(io::Error::other(format!(
                "more than {MAX_LIVE_BOTS} bots at once: lower the concurrency"
            )));
        }
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            // Cannot happen with Stdio::piped, but never leave a process behind.
            kill_group(pgid);
            let _ = child.wait();
            unregister_group(pgid);
            return Err(io::Error::other("no pipes to the bot"));
        };
        let sink = Arc::new(Mutex::new(StderrSink {
            tail: VecDeque::new(),
            log: log.clone(),
            hurry: false,
        }));
        // From here on, any early return drops `bot`, whose Drop kills the group.
        let bot = BotProcess {
            child,
            pgid,
            stdin: Some(stdin),
            stdout,
            pending: Vec::new(),
            buffer: Vec::new(),
            scanned: 0,
            eof: false,
            read_at: Instant::now(),
            scratch: vec![0; 16384],
            stderr: Arc::clone(&sink),
            stderr_done: Arc::new(AtomicBool::new(false)),
            log,
            status: None,
            enforced: crate::limits::Enforced::new(*limits),
        };
        if let Some(stdin) = &bot.stdin {
            set_nonblocking(stdin.as_raw_fd())?;
        }
        set_nonblocking(bot.stdout.as_raw_fd())?;
        let done = Arc::clone(&bot.stderr_done);
        thread::Builder::new()
            .name(format!("stderr-{pgid}"))
            .spawn(move || {
                drain_stderr(stderr, sink);
                done.store(true, Ordering::SeqCst);
            })?;
        Ok(bot)
    }

    /// The process id of the bot (also its process group id).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Queues bytes for the bot's stdin and writes as much as the pipe takes now, never waiting.
    /// The rest is written while the referee waits in `recv_line`. A bot that has closed its
    /// stdin simply stops receiving; its silence is judged when an answer is due.
    pub fn send(&mut self, bytes: &[u8]) {
        if let Some(log) = &self.log {
            log.protocol_line('>', bytes);
        }
        if self.stdin.is_none() {
            return;
        }
        if self.pending.is_empty() {
            let written = self.write_some(bytes);
            if written < bytes.len() && self.stdin.is_some() {
                self.pending.extend_from_slice(&bytes[written..]);
            }
        } else {
            self.pending.extend_from_slice(bytes);
            self.flush_pending();
        }
    }

    /// One non-blocking write; returns how many bytes the pipe took. A broken pipe closes stdin.
    fn write_some(&mut self, bytes: &[u8]) -> usize {
        let Some(stdin) = self.stdin.as_mut() else {
            return 0;
        };
        let mut done = 0;
        while done < bytes.len() {
            match stdin.write(&bytes[done..]) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(_) => {
                    self.stdin = None;
                    self.pending.clear();
                    break;
                }
            }
        }
        done
    }

    fn flush_pending(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        let n = self.write_some(&pending);
        if self.stdin.is_some() {
            self.pending = pending[n..].to_vec();
        }
    }

    /// Closes the bot's stdin (it sees end of input), dropping anything not yet written.
    pub fn close_stdin(&mut self) {
        self.pending.clear();
        self.stdin = None;
    }

    /// What the output read so far holds for a reader with line cap `cap`, without taking it.
    fn news(&self, cap: usize) -> Option<News> {
        if let Some(pos) = self.buffer[self.scanned..].iter().position(|&b| b == b'\n') {
            let end = self.scanned + pos;
            // The cap counts the line without its `\n` and without a `\r` before it.
            let len = if end > 0 && self.buffer[end - 1] == b'\r' {
                end - 1
            } else {
                end
            };
            return Some(if len > cap {
                News::TooLong
            } else {
                News::Line { end, len }
            });
        }
        // No end of line yet: the line is already too long once it cannot be a capped line
        // still waiting for its `\r\n` or `\n`.
        let len = self.buffer.len();
        if len > cap + 1 || (len == cap + 1 && self.buffer[cap] != b'\r') {
            return Some(News::TooLong);
        }
        if self.eof {
            return Some(if len == 0 { News::Eof } else { News::LastLine });
        }
        None
    }

    /// Takes what `news` found, if anything, and logs it as protocol traffic.
    fn take_news(&mut self, cap: usize) -> Option<Received> {
        let received = self.take_news_unlogged(cap)?;
        if let Some(log) = self.log.as_ref().filter(|log| log.protocol) {
            match &received {
                Received::Line(line, _) => log.protocol_line('<', line),
                Received::TooLong(prefix) => {
                    let mut note = format!("(a line longer than {cap} bytes, from) ").into_bytes();
                    note.extend_from_slice(&prefix[..prefix.len().min(200)]);
                    log.protocol_line('<', &note);
                }
                Received::Eof => log.protocol_line('<', b"(end of output)"),
                Received::Timeout => {}
            }
        }
        Some(received)
    }

    fn take_news_unlogged(&mut self, cap: usize) -> Option<Received> {
        let news = self.news(cap);
        if news.is_none() {
            // Nothing before the end of the buffer: the next search starts where this one ended.
            self.scanned = self.buffer.len();
        }
        Some(match news? {
            News::Line { end, len } => {
                let mut line: Vec<u8> = self.buffer.drain(..=end).collect();
                line.truncate(len);
                self.scanned = 0;
                Received::Line(line, self.read_at)
            }
            News::TooLong => Received::TooLong(self.buffer[..cap.min(self.buffer.len())].to_vec()),
            News::LastLine => {
                // A last line without its newline still counts as a line.
                let line = std::mem::take(&mut self.buffer);
                self.scanned = 0;
                Received::Line(line, self.read_at)
            }
            News::Eof => Received::Eof,
        })
    }

    /// Waits for the next line from the bot until `deadline`, reading at most `cap` bytes of it.
    /// The deadline is absolute: nothing the bot writes extends it.
    pub fn recv_line(&mut self, deadline: Instant, cap: usize) -> Received {
        loop {
            if let Some(received) = self.take_news(cap) {
                return received;
            }
            let now = Instant::now();
            if now >= deadline {
                return Received::Timeout;
            }
            if interrupted() {
                // The caller checks the flag and stops; what is returned does not count.
                return Received::Eof;
            }
            self.fill(deadline - now);
        }
    }

    /// Waits up to `wait` for output, writing pending input meanwhile, and reads whatever has
    /// arrived.
    fn fill(&mut self, wait: Duration) {
        wait_any(&mut [self], wait);
    }

    /// Whether the buffer holds all the output the referee may keep (see `READ_LIMIT`).
    fn buffer_full(&self) -> bool {
        self.buffer.len() >= READ_LIMIT
    }

    /// The descriptors to wait on: stdout for reading (unless it has ended or the buffer is
    /// full), stdin for writing when input is pending.
    fn poll_fds(&self) -> [libc::pollfd; 2] {
        let stdin = match &self.stdin {
            Some(stdin) if !self.pending.is_empty() => stdin.as_raw_fd(),
            _ => -1,
        };
        [
            libc::pollfd {
                fd: if self.eof || self.buffer_full() {
                    -1
                } else {
                    self.stdout.as_raw_fd()
                },
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: stdin,
                events: libc::POLLOUT,
                revents: 0,
            },
        ]
    }

    /// Reads whatever the bot has written, without waiting.
    pub fn poll_now(&mut self) {
        wait_any(&mut [self], Duration::ZERO);
    }

    /// Whether the bot's output has ended and everything it wrote has been taken.
    pub fn output_ended(&self) -> bool {
        self.eof && self.buffer.is_empty()
    }

    /// Whether `recv_line` would return at once (a line, an over-long line, or end of output).
    pub fn has_news(&self, cap: usize) -> bool {
        self.news(cap).is_some()
    }

    /// Reads what the pipe holds, but never more than `READ_LIMIT` bytes in all: a bot that
    /// writes without end costs the referee no more memory than two capped lines.
    fn read_available(&mut self) {
        loop {
            let room = READ_LIMIT.saturating_sub(self.buffer.len());
            if room == 0 || self.eof {
                return;
            }
            let want = room.min(self.scratch.len());
            match self.stdout.read(&mut self.scratch[..want]) {
                Ok(0) => {
                    self.eof = true;
                    return;
                }
                Ok(n) => {
                    self.read_at = Instant::now();
                    self.buffer.extend_from_slice(&self.scratch[..n]);
                    if n < want {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(_) => {
                    self.eof = true;
                    return;
                }
            }
        }
    }

    /// Waits up to `max` for the bot's stderr to end, so that a dying bot's last words are in
    /// the tail before it goes into a fault record.
    pub fn settle_stderr(&self, max: Duration) {
        let until = Instant::now() + max;
        while !self.stderr_done.load(Ordering::SeqCst) && Instant::now() < until {
            thread::sleep(Duration::from_millis(1));
        }
    }

    /// The last `max` bytes of the bot's stderr, as text.
    pub fn stderr_tail(&self, max: usize) -> String {
        let sink = match self.stderr.lock() {
            Ok(sink) => sink,
            Err(poisoned) => poisoned.into_inner(),
        };
        let skip = sink.tail.len().saturating_sub(max);
        let bytes: Vec<u8> = sink.tail.iter().skip(skip).copied().collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Writes a note of the referee's into the bot's stderr log (game starts, faults), so the
    /// log can be read alongside the record.
    pub fn log_note(&self, note: &str) {
        if let Some(log) = &self.log {
            log.write(format!("[multiversi] {note}\n").as_bytes());
        }
    }

    /// The exit status, if the bot has exited. The bot is *not* reaped here (`WNOWAIT`): its
    /// zombie keeps its pid, which is also its group id, from being reused by another process
    /// until the group has been killed and `reap` runs.
    pub fn try_status(&mut self) -> Option<ExitStatus> {
        if self.status.is_some() {
            return self.status;
        }
        // SAFETY: waitid on our own child with a zeroed siginfo to fill.
        unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
            if libc::waitid(libc::P_PID, self.child.id(), &mut info, flags) != 0
                || info.si_pid() == 0
            {
                return None;
            }
            let status = info.si_status();
            let raw = match info.si_code {
                libc::CLD_EXITED => (status & 0xff) << 8,
                libc::CLD_DUMPED => (status & 0x7f) | 0x80,
                _ => status & 0x7f,
            };
            Some(ExitStatus::from_raw(raw))
        }
    }

    /// Waits up to `grace` for the bot to exit by itself; returns its status if it did.
    pub fn wait_exit(&mut self, grace: Duration) -> Option<ExitStatus> {
        let until = Instant::now() + grace;
        // Most bots exit within a millisecond of their stdin closing: look often at first.
        let mut pause = Duration::from_micros(50);
        loop {
            if let Some(status) = self.try_status() {
                return Some(status);
            }
            let now = Instant::now();
            if now >= until {
                return None;
            }
            thread::sleep((until - now).min(pause));
            pause = (pause * 2).min(Duration::from_millis(5));
        }
    }

    /// Sends SIGKILL to the whole process group without reaping (see `kill`).
    pub fn signal_kill(&self) {
        kill_group(self.pgid);
        self.hurry_stderr();
    }

    /// The bot is ending: its last stderr is read at once, not at the flood rate.
    fn hurry_stderr(&self) {
        if let Ok(mut sink) = self.stderr.lock() {
            sink.hurry = true;
        }
    }

    /// Kills the whole process group at once and reaps the bot: the sanction for a fault.
    /// Then sweeps up whatever of the bot left its group.
    pub fn kill(mut self) -> Option<ExitStatus> {
        self.signal_kill();
        let status = self.reap();
        sweep_strays(Some(self.pgid));
        status
    }

    /// The polite end: stdin closed, `grace` to exit, then SIGTERM to the group, a shorter grace,
    /// SIGKILL to the group (always, for helpers left in it), and the reap.
    pub fn shutdown(mut self, grace: Duration) -> Option<ExitStatus> {
        self.close_stdin();
        if self.wait_exit(grace).is_none() {
            // SAFETY: signalling our bot's own group.
            unsafe {
                libc::killpg(self.pgid, libc::SIGTERM);
            }
            self.wait_exit(grace / 2);
        }
        self.signal_kill();
        let status = self.reap();
        // Helpers that left the group too, which may hold the bot's stderr open.
        sweep_strays(Some(self.pgid));
        // The group is gone, so its stderr ends at once: wait for the drainer to log the last
        // words before the referee (and its log files) may go away.
        self.settle_stderr(STDERR_SETTLE);
        status
    }

    fn reap(&mut self) -> Option<ExitStatus> {
        // The leader stays a zombie until this wait (see `try_status`), so its pid (= the group
        // id) cannot be reused by another process while the group is being killed above.
        if self.status.is_none() {
            self.status = self.child.wait().ok();
        }
        unregister_group(self.pgid);
        self.status
    }
}

impl Drop for BotProcess {
    /// Whatever path drops a bot, its group dies with it: no process is ever left behind.
    fn drop(&mut self) {
        if self.status.is_none() {
            kill_group(self.pgid);
            let _ = self.child.wait();
            unregister_group(self.pgid);
            sweep_strays(Some(self.pgid));
        }
        unregister_group(self.pgid);
    }
}

fn kill_group(pgid: i32) {
    // SAFETY: signalling our bot's own group; ESRCH (already gone) is fine.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// How fast a bot's stderr is read once `STDERR_BURST` bytes have gone through at full speed,
/// in bytes per second. Far more than any diagnostics need; a bot that writes faster blocks on
/// its own full pipe instead of keeping a core of the referee (and of itself) busy, which would
/// slow the other bots of the game.
const STDERR_RATE: f64 = 8.0 * 1024.0 * 1024.0;
/// How much stderr is read at full speed before the rate applies.
const STDERR_BURST: f64 = 1024.0 * 1024.0;

fn drain_stderr(mut stderr: std::process::ChildStderr, sink: Arc<Mutex<StderrSink>>) {
    let mut chunk = [0u8; 16384];
    // A token bucket: `allowance` bytes may be read now; it refills at `STDERR_RATE`.
    let mut allowance = STDERR_BURST;
    let mut last = Instant::now();
    loop {
        match stderr.read(&mut chunk) {
            Ok(0) => return,
            Ok(n) => {
                let hurry = match sink.lock() {
                    Ok(mut sink) => {
                        sink.push(&chunk[..n]);
                        sink.hurry
                    }
                    Err(_) => true,
                };
                let now = Instant::now();
                let refill = now.duration_since(last).as_secs_f64() * STDERR_RATE;
                allowance = (allowance + refill).min(STDERR_BURST) - n as f64;
                last = now;
                if allowance < 0.0 && !hurry {
                    thread::sleep(Duration::from_secs_f64(-allowance / STDERR_RATE));
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// Waits up to `wait` until any of the bots has output (or takes pending input), and reads and
/// writes what it can. Used to wait for several bots against one deadline (the `ready` answers)
/// without letting one slow bot delay noticing the others.
pub fn wait_any(bots: &mut [&mut BotProcess], wait: Duration) {
    let mut fds: Vec<libc::pollfd> = bots.iter().flat_map(|b| b.poll_fds()).collect();
    let timeout = libc::timespec {
        tv_sec: wait.as_secs().min(i32::MAX as u64) as libc::time_t,
        tv_nsec: wait.subsec_nanos() as libc::c_long,
    };
    // SAFETY: valid pollfd entries (fd -1 is ignored by the kernel) and a valid timespec.
    let ready = unsafe {
        libc::ppoll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            &timeout,
            std::ptr::null(),
        )
    };
    if ready <= 0 {
        return;
    }
    for (bot, pair) in bots.iter_mut().zip(fds.chunks(2)) {
        if pair[1].revents != 0 {
            bot.flush_pending();
        }
        if pair[0].revents != 0 {
            bot.read_available();
        }
    }
}

/// Describes how a process ended, for fault records: `exit code 3` or `killed by signal 11 (SIGSEGV)`.
pub fn describe_status(status: Option<ExitStatus>) -> String {
    match status {
        None => "still running".into(),
        Some(s) => match (s.code(), s.signal()) {
            (Some(code), _) => format!("exit code {code}"),
            (None, Some(sig)) => format!("killed by signal {sig} ({})", signal_name(sig)),
            _ => "ended".into(),
        },
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGBUS => "SIGBUS",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        _ => "signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_like_a_shell() {
        let s = |t: &str| split_command(t).unwrap();
        assert_eq!(s("python3 bot.py"), ["python3", "bot.py"]);
        assert_eq!(
            s("  a   'b c'  \"d \\\" e\" f\\ g "),
            ["a", "b c", "d \" e", "f g"]
        );
        assert_eq!(s("x''"), ["x"]);
        assert_eq!(s("'' a"), ["", "a"]);
        assert_eq!(s("echo $HOME; rm"), ["echo", "$HOME;", "rm"]);
        assert!(split_command("a 'b").unwrap_err().contains("unterminated"));
        assert!(split_command("a \"b").unwrap_err().contains("unterminated"));
        assert!(split_command("   ").is_err());
    }

    #[test]
    fn lines_timeouts_caps_and_eof() {
        let argv: Vec<String> = [
            "sh",
            "-c",
            "read x; echo \"got $x\"; printf 'abcdefghij\\n'; sleep 5",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut bot = BotProcess::spawn(&argv, None, None).unwrap();
        let soon = || Instant::now() + Duration::from_millis(100);
        assert_eq!(bot.recv_line(soon(), 100), Received::Timeout);
        bot.send(b"hi\n");
        let far = Instant::now() + Duration::from_secs(5);
        match bot.recv_line(far, 100) {
            Received::Line(l, _) => assert_eq!(l, b"got hi"),
            other => panic!("{other:?}"),
        }
        assert_eq!(bot.recv_line(far, 4), Received::TooLong(b"abcd".to_vec()));
        let pid = bot.pid();
        bot.kill();
        assert!(!Path::new(&format!("/proc/{pid}")).exists());
    }

    #[test]
    fn the_cap_counts_a_line_without_its_crlf() {
        let argv: Vec<String> = [
            "sh",
            "-c",
            // 4 bytes and \r\n; 4 bytes and \n; 5 bytes and \r\n; 4 bytes, \r, x and \n.
            "printf 'abcd\\r\\nabcd\\nabcde\\r\\n'; sleep 0.2; printf 'abcd\\r'; sleep 0.2; printf 'x\\n'; sleep 5",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut bot = BotProcess::spawn(&argv, None, None).unwrap();
        let far = || Instant::now() + Duration::from_secs(5);
        let line = |r: Received| match r {
            Received::Line(l, _) => l,
            other => panic!("{other:?}"),
        };
        assert_eq!(line(bot.recv_line(far(), 4)), b"abcd");
        assert_eq!(line(bot.recv_line(far(), 4)), b"abcd");
        assert_eq!(bot.recv_line(far(), 4), Received::TooLong(b"abcd".to_vec()));
        bot.buffer.clear();
        bot.scanned = 0;
        // `abcd\r` may still be a line at the cap: it is only too long once `x` follows.
        let soon = Instant::now() + Duration::from_millis(300);
        assert_eq!(bot.recv_line(soon, 4), Received::Timeout);
        assert_eq!(bot.buffer, b"abcd\r");
        assert_eq!(bot.recv_line(far(), 4), Received::TooLong(b"abcd".to_vec()));
        bot.kill();
    }

    #[test]
    fn a_flood_is_never_held_beyond_the_read_limit() {
        // Writers far faster than any reader: the pipe is full whenever the referee looks.
        let argv: Vec<String> = [
            "sh",
            "-c",
            "cat /dev/zero & cat /dev/zero & exec cat /dev/zero",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut bot = BotProcess::spawn(&argv, None, None).unwrap();
        thread::sleep(Duration::from_millis(50));
        for _ in 0..100 {
            bot.poll_now();
            assert!(bot.buffer.len() <= READ_LIMIT, "{}", bot.buffer.len());
        }
        assert!(bot.has_news(crate::protocol::MAX_LINE_BYTES));
        let cap = crate::protocol::MAX_LINE_BYTES;
        let soon = Instant::now() + Duration::from_millis(100);
        assert_eq!(bot.recv_line(soon, cap), Received::TooLong(vec![0; cap]));
        bot.kill();
    }

    #[test]
    fn a_bot_that_never_reads_never_blocks_the_referee() {
        let argv: Vec<String> = ["sleep", "30"].iter().map(|s| s.to_string()).collect();
        let mut bot = BotProcess::spawn(&argv, None, None).unwrap();
        let started = Instant::now();
        // Far more than a pipe holds: the rest waits in the referee's buffer.
        for _ in 0..64 {
            bot.send(&[b'x'; 16384]);
        }
        let deadline = Instant::now() + Duration::from_millis(100);
        assert_eq!(bot.recv_line(deadline, 100), Received::Timeout);
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(!bot.pending.is_empty());
        bot.kill();
    }

    #[test]
    fn stat_fields_after_a_command_name_with_spaces_and_parentheses() {
        let p = parse_stat(42, "42 (a) Z (b) S 7 9 9 0 -1").unwrap();
        assert_eq!((p.pid, p.ppid, p.pgid, p.zombie), (42, 7, 9, false));
        assert!(parse_stat(42, "42 (x) Z 1 2 3").unwrap().zombie);
        assert!(parse_stat(42, "42 (x) S").is_none());
    }

    #[test]
    fn crash_is_eof_with_status_and_stderr() {
        let argv: Vec<String> = ["sh", "-c", "echo dying >&2; kill -SEGV $$"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut bot = BotProcess::spawn(&argv, None, None).unwrap();
        let far = Instant::now() + Duration::from_secs(5);
        assert_eq!(bot.recv_line(far, 100), Received::Eof);
        let status = bot.wait_exit(Duration::from_secs(5));
        assert_eq!(describe_status(status), "killed by signal 11 (SIGSEGV)");
        bot.settle_stderr(Duration::from_secs(5));
        assert_eq!(bot.stderr_tail(100), "dying\n");
    }
}
