//! One bot as a running process, and the referee's side of its pipes: the bot is started from
//! an argument list in its own process group under its OS limits, written to without ever
//! waiting, read with a cap and against one absolute deadline, and ended politely or killed,
//! its whole group with it.

use super::log::BotLog;
use super::safety::{kill_group, spawn_listed, sweep_strays, unregister_group, MAX_LIVE_BOTS};
use super::status::describe_status;
use super::stderr::Stderr;
use super::wire::{Received, Wire};
use crate::limits::{Enforced, Limits};
use nix::sys::prctl;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::{getpid, getppid, Pid};
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How long a finished bot's stderr may take to reach its end (a helper that escaped the group
/// could hold it open; the referee does not wait for that one longer than this).
const STDERR_SETTLE: Duration = Duration::from_millis(200);

/// A running bot.
pub struct BotProcess {
    child: Child,
    pgid: i32,
    /// Its stdin and stdout, as the referee writes and reads them.
    wire: Wire,
    stderr: Stderr,
    status: Option<ExitStatus>,
    /// The OS limits it runs under (see `crate::limits`).
    enforced: Enforced,
}

/// Kills a bot that could not be set up, with its group, and reaps it: no process is left
/// behind by a start that failed half way. Returns `error`, the reason.
fn abandon(mut child: Child, error: io::Error) -> io::Error {
    let pgid = child.id() as i32;
    kill_group(pgid);
    let _ = child.wait();
    unregister_group(pgid);
    error
}

/// A pidfd of our own child `pid`: readable once it has exited, whoever else holds its stdout
/// open (a helper it started). None where the kernel has none (before Linux 5.3, or refused by
/// a sandbox): the wire then waits as it did without one, and such a bot's exit is noticed at
/// the deadline. The child is not reaped yet (see `BotProcess::try_status`), so `pid` is still
/// its own.
fn pidfd(pid: i32) -> Option<OwnedFd> {
    // libc, not nix: nix has no `pidfd_open`. The kernel sets close-on-exec on the descriptor,
    // so no bot started later inherits it.
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let fd = i32::try_from(fd).ok().filter(|&fd| fd >= 0)?;
    // SAFETY: a descriptor the kernel has just made for us, owned by nothing else.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
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
        let parent = getpid();
        // SAFETY: the closure makes only system calls (prctl, getppid, signal, getrlimit,
        // setrlimit) and allocates nothing, as code between fork and exec must.
        unsafe {
            command.pre_exec(move || {
                // The kernel sends SIGKILL to this child when the thread that started it ends:
                // the referee's main thread, or the worker that owns the bot, which shuts its
                // bots down before it ends.
                prctl::set_pdeathsig(Signal::SIGKILL)?;
                // The referee may have died between fork and prctl: then nothing would kill us.
                if getppid() != parent {
                    return Err(io::Error::other("the referee is gone"));
                }
                super::safety::restore_for_child()?;
                // Descriptors the referee inherited without close-on-exec (a harness's pipe, a
                // shell's redirection) are not the bot's: they end at its exec. Marked, not
                // closed, so that the exec's own error report still works. An old kernel
                // without close_range keeps them.
                // close_range takes two descriptor numbers and flags, and touches no memory.
                libc::syscall(
                    libc::SYS_close_range,
                    3u32,
                    u32::MAX,
                    libc::CLOSE_RANGE_CLOEXEC,
                );
                rlimits.apply()
            });
        }
        let (mut child, listed) = spawn_listed(&mut command)?;
        let pgid = child.id() as i32;
        if !listed {
            return Err(abandon(
                child,
                io::Error::other(format!(
                    "more than {MAX_LIVE_BOTS} bots at once: lower the concurrency"
                )),
            ));
        }
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            // Cannot happen with Stdio::piped, but never leave a process behind.
            return Err(abandon(child, io::Error::other("no pipes to the bot")));
        };
        let stderr = match Stderr::drain(stderr, log.clone(), pgid) {
            Ok(stderr) => stderr,
            Err(e) => return Err(abandon(child, e)),
        };
        let mut wire = match Wire::new(OwnedFd::from(stdin), OwnedFd::from(stdout), log) {
            Ok(wire) => wire,
            Err(e) => return Err(abandon(child, e)),
        };
        if let Some(exited) = pidfd(pgid) {
            wire.watch_end(exited);
        }
        Ok(BotProcess {
            child,
            pgid,
            wire,
            stderr,
            status: None,
            enforced: Enforced::new(*limits),
        })
    }

    /// The process id of the bot (also its process group id).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The bot's stdin and stdout as the referee writes and reads them.
    pub fn wire(&self) -> &Wire {
        &self.wire
    }

    pub fn wire_mut(&mut self) -> &mut Wire {
        &mut self.wire
    }

    /// Queues bytes for the bot's stdin and writes as much as the pipe takes now, never waiting
    /// (see `Wire::send`).
    pub fn send(&mut self, bytes: &[u8]) {
        self.wire.send(bytes);
    }

    /// Closes the bot's stdin (it sees end of input), dropping anything not yet written.
    pub fn close_stdin(&mut self) {
        self.wire.close_input();
    }

    /// Waits for the next line from the bot until `deadline`, reading at most `cap` bytes of it.
    pub fn recv_line(&mut self, deadline: Instant, cap: usize) -> Received {
        self.wire.recv_line(deadline, cap)
    }

    /// Reads whatever the bot has written, without waiting.
    pub fn poll_now(&mut self) {
        self.wire.poll_now();
    }

    /// Whether the bot's output has ended and everything it wrote has been taken.
    pub fn output_ended(&self) -> bool {
        self.wire.output_ended()
    }

    /// Whether `recv_line` would return at once (a line, an over-long line, the end of output,
    /// or the bot's exit while its stdout stays open).
    pub fn has_news(&self, cap: usize) -> bool {
        self.wire.has_news(cap)
    }

    /// Waits up to `max` for the bot's stderr to end, so that a dying bot's last words are in
    /// the tail before it goes into a fault record.
    pub fn settle_stderr(&self, max: Duration) {
        self.stderr.settle(max);
    }

    /// Whether the bot wrote to its stderr faster than the referee reads it (a flood) at some
    /// time since `since`, and so waited on it.
    pub fn stderr_held_back_since(&self, since: Instant) -> bool {
        self.stderr.held_back_since(since)
    }

    /// Whether the bot was writing to its stderr faster than the referee reads it (a flood) at
    /// `at`, and so waiting on it.
    pub fn stderr_held_back_at(&self, at: Instant) -> bool {
        self.stderr.held_back_at(at)
    }

    /// The last `max` bytes of the bot's stderr, as text.
    pub fn stderr_tail(&self, max: usize) -> String {
        self.stderr.tail(max)
    }

    /// Starts the bot's CPU allowance for a new game (`crate::limits`); a process whose limit
    /// cannot be renewed is noted in the bot's log.
    pub fn begin_game_limits(&mut self) {
        for note in self.enforced.begin_game(self.pgid) {
            self.log_note(&note);
        }
    }

    /// Whether the bot has used up this game's CPU allowance (`crate::limits`).
    pub fn cpu_limit_reached(&self) -> bool {
        self.enforced.cpu_limit_reached(self.pgid)
    }

    /// The fault detail of a crashed or silent bot, with the limit it ran into named first when
    /// one explains it (`crate::limits`). `status` is how the bot ended (None while it still
    /// runs) and `stderr_tail` its last words.
    pub fn explain_limit(
        &self,
        detail: String,
        status: Option<ExitStatus>,
        stderr_tail: &str,
    ) -> String {
        self.enforced
            .explain(self.pgid, detail, status, stderr_tail)
    }

    /// Writes a note of the referee's into the bot's stderr log (game starts, faults), so the
    /// log can be read alongside the record.
    pub fn log_note(&self, note: &str) {
        self.wire.log_note(note);
    }

    /// The exit status, if the bot has exited. The bot is *not* reaped here (`WNOWAIT`): its
    /// zombie keeps its pid, which is also its group id, from being reused by another process
    /// until the group has been killed and `reap` runs.
    pub fn try_status(&mut self) -> Option<ExitStatus> {
        if self.status.is_some() {
            return self.status;
        }
        // libc, not nix: nix's `waitid` turns the status into its `WaitStatus`, which has no
        // room for a signal it has no name for (real-time signals) and fails on one; a bot may
        // die of any signal.
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
        // Without a pidfd (a kernel before 5.3), most bots exit within a millisecond of their
        // stdin closing: look often at first.
        let mut pause = Duration::from_micros(50);
        let mut fired = false;
        loop {
            if let Some(status) = self.try_status() {
                return Some(status);
            }
            let now = Instant::now();
            if now >= until {
                return None;
            }
            // The pidfd wakes the referee as the bot exits: no sleep outlasts the exit, which
            // on a CPU the bot shares is time that CPU would idle. Once it has fired, it fires
            // at once: should the exit status still not be there, the loop sleeps, not spins.
            match self.wire.wait_end(until - now) {
                Some(false) => {}
                Some(true) if !fired => fired = true,
                _ => {
                    thread::sleep((until - now).min(pause));
                    pause = (pause * 2).min(Duration::from_millis(5));
                }
            }
        }
    }

    /// Sends SIGKILL to the whole process group without reaping (see `kill`).
    pub fn signal_kill(&self) {
        kill_group(self.pgid);
        // The bot is ending: its last stderr is read at once, not at the flood rate.
        self.stderr.hurry();
    }

    /// Kills the whole process group at once and reaps the bot: the sanction for a fault.
    /// Then sweeps up whatever of the bot left its group.
    pub fn kill(mut self) -> Option<ExitStatus> {
        self.signal_kill();
        let status = self.reap();
        self.sweep_helpers();
        status
    }

    /// Kills the processes that left the bot's group (`sweep_strays`), and says in its log how
    /// many were still running: an author whose bot leaves helpers behind learns it, since
    /// another harness may leave them running.
    pub fn sweep_helpers(&self) {
        let running = sweep_strays(Some(self.pgid));
        if running > 0 {
            self.log_note(&format!(
                "killed {running} process(es) that had left its process group and were still \
                 running as it ended (a helper started with setsid, or as a daemon; most likely \
                 its own)"
            ));
        }
    }

    /// Notes in the log that the bot is still running after `waited`, and sends SIGTERM to its
    /// group.
    fn terminate(&mut self, waited: Duration) {
        self.log_note(&format!(
            "still running {} ms after its stdin closed: SIGTERM to its process group",
            waited.as_millis()
        ));
        let _ = killpg(Pid::from_raw(self.pgid), Signal::SIGTERM);
    }

    /// The end of a shutdown: SIGKILL to the group (noted if the bot itself was still running
    /// `after_term` after its SIGTERM), the reap, the sweep, the last of its stderr.
    fn finish_shutdown(mut self, signalled: bool, after_term: Duration) {
        if signalled && self.try_status().is_none() {
            self.log_note(&format!(
                "still running {} ms after SIGTERM: SIGKILL to its process group",
                after_term.as_millis()
            ));
        }
        self.signal_kill();
        let status = self.reap();
        if signalled {
            self.log_note(&format!("ended ({})", describe_status(status)));
        }
        // Helpers that left the group too, which may hold the bot's stderr open.
        self.sweep_helpers();
        // The group is gone, so its stderr ends at once: wait for the drainer to log the last
        // words before the referee (and its log files) may go away.
        self.settle_stderr(STDERR_SETTLE);
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
            self.sweep_helpers();
        }
        unregister_group(self.pgid);
    }
}

/// Ends bots politely, together: every stdin is closed, and every bot has the same `grace` from
/// then to exit; those still running get SIGTERM together and the same `grace / 2` more; then
/// each group gets SIGKILL (always, for helpers left in it) and each bot is reaped.
///
/// Together, because one bot after another gave each the grace left after those before it had
/// used theirs: with four bots that do not exit, the fourth got SIGTERM four graces after its
/// stdin closed, at every end of a game with `--restart`. A bot that had to be signalled has it
/// said in its log, with how it ended: an author who finds a bot's last words cut short then
/// knows the referee ended it, and why.
pub fn shutdown_all(mut bots: Vec<BotProcess>, grace: Duration) {
    for bot in &mut bots {
        bot.close_stdin();
    }
    let exit_by = Instant::now() + grace;
    let mut signalled = vec![false; bots.len()];
    for (bot, signalled) in bots.iter_mut().zip(&mut signalled) {
        let left = exit_by.saturating_duration_since(Instant::now());
        if bot.wait_exit(left).is_none() {
            bot.terminate(grace);
            *signalled = true;
        }
    }
    let after_term = grace / 2;
    let kill_by = Instant::now() + after_term;
    for (bot, &signalled) in bots.iter_mut().zip(&signalled) {
        if signalled {
            bot.wait_exit(kill_by.saturating_duration_since(Instant::now()));
        }
    }
    for (bot, signalled) in bots.into_iter().zip(signalled) {
        bot.finish_shutdown(signalled, after_term);
    }
}

/// Waits up to `wait` until any of the bots has output (or takes pending input), and reads and
/// writes what it can (see `super::wire::wait_any`).
pub fn wait_any(bots: &mut [&mut BotProcess], wait: Duration) {
    let mut wires: Vec<&mut Wire> = bots.iter_mut().map(|b| &mut b.wire).collect();
    super::wire::wait_any(&mut wires, wait);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::{describe_status, READ_LIMIT};

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
        bot.wire.clear_buffer();
        // `abcd\r` may still be a line at the cap: it is only too long once `x` follows.
        let soon = Instant::now() + Duration::from_millis(300);
        assert_eq!(bot.recv_line(soon, 4), Received::Timeout);
        assert_eq!(bot.wire.buffered(), b"abcd\r");
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
            assert!(
                bot.wire.buffered().len() <= READ_LIMIT,
                "{}",
                bot.wire.buffered().len()
            );
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
        assert!(bot.wire.pending() > 0);
        bot.kill();
    }

    fn shell(script: &str) -> BotProcess {
        let argv: Vec<String> = ["sh", "-c", script].iter().map(|s| s.to_string()).collect();
        BotProcess::spawn(&argv, None, None).unwrap()
    }

    #[test]
    fn an_exit_behind_a_helper_that_holds_stdout_is_seen_before_the_deadline() {
        // The helper inherits stdout, so no end of output comes when the bot exits.
        let mut bot = shell("sleep 30 & exit 4");
        let far = Instant::now() + Duration::from_secs(30);
        assert_eq!(bot.recv_line(far, 100), Received::Gone);
        assert!(Instant::now() < far);
        assert_eq!(describe_status(bot.try_status()), "exit code 4");
        // Not reaped: the group, the helper in it, is still there to be killed.
        assert!(bot.wire.has_news(100) && !bot.output_ended());
        let pid = bot.pid();
        bot.kill();
        assert!(!Path::new(&format!("/proc/{pid}")).exists());
    }

    #[test]
    fn a_line_written_before_such_an_exit_is_taken_first() {
        // Both lines are in the pipe when the bot exits; the second has no newline.
        let mut bot = shell("sleep 30 & printf 'last words\nhalf'; exit 0");
        let far = Instant::now() + Duration::from_secs(30);
        match bot.recv_line(far, 100) {
            Received::Line(l, _) => assert_eq!(l, b"last words"),
            other => panic!("{other:?}"),
        }
        assert_eq!(bot.recv_line(far, 100), Received::Gone);
        assert_eq!(bot.wire.partial_line(), b"half");
        bot.kill();
    }

    #[test]
    fn an_exit_that_ends_stdout_is_still_the_end_of_output() {
        let mut bot = shell("exit 5");
        let far = Instant::now() + Duration::from_secs(30);
        assert_eq!(bot.recv_line(far, 100), Received::Eof);
        // Its stdout closes a moment before it is a zombie with a status.
        let status = bot.wait_exit(Duration::from_secs(5));
        assert_eq!(describe_status(status), "exit code 5");
        bot.kill();
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
