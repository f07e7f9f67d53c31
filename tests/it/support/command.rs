//! Running the multiversi binary built for these tests, in the spirit of ripgrep's `TestCommand`:
//! a builder for the arguments, working directory, environment and input, a watchdog that ends a
//! run that hangs, and the run's status and output with assertions whose messages show the
//! command line and what it printed.

use super::shell::shell_word;
use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

/// How long a run may take before the watchdog kills it and fails the test: far beyond what any
/// test's run needs on a machine loaded well past its cores, so only a hang reaches it.
const PATIENCE: Duration = Duration::from_secs(600);

/// A command line of the multiversi binary (or of a script that runs it), to be run once.
pub struct TestCommand {
    command: Command,
    /// The program, for messages.
    program: String,
    /// The words after the program, for messages.
    words: Vec<OsString>,
    stdin: Option<Vec<u8>>,
    stdin_set: bool,
    capture_stdout: bool,
    capture_stderr: bool,
    timeout: Duration,
}

/// `multiversi SUBCOMMAND`, with nothing else yet: the binary built for these tests.
pub fn multiversi(subcommand: &str) -> TestCommand {
    TestCommand::new(Command::new(env!("CARGO_BIN_EXE_multiversi"))).arg(subcommand)
}

/// `multiversi SUBCOMMAND` run by another program that takes a command line after its own words
/// (`setpriv --reuid=… --`): the binary built for these tests, under the wrapper.
pub fn multiversi_under(wrapper: &[&str], subcommand: &str) -> TestCommand {
    let mut command = Command::new(wrapper[0]);
    command.args(&wrapper[1..]);
    let mut test = TestCommand::new(command);
    test.program = wrapper.join(" ");
    test.arg(env!("CARGO_BIN_EXE_multiversi")).arg(subcommand)
}

/// `bash bench/NAME.sh --quick`, run from the repository root: a benchmark script in its quick
/// mode, measuring the binary built for these tests (`BIN`) instead of building its own.
pub fn bench_quick(name: &str) -> TestCommand {
    let mut command = Command::new("bash");
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("BIN", env!("CARGO_BIN_EXE_multiversi"));
    let mut test = TestCommand::new(command);
    test.program = "bash".into();
    test.arg(format!("bench/{name}.sh")).arg("--quick")
}

impl TestCommand {
    fn new(command: Command) -> TestCommand {
        TestCommand {
            command,
            program: "multiversi".into(),
            words: Vec::new(),
            stdin: None,
            stdin_set: false,
            capture_stdout: true,
            capture_stderr: true,
            timeout: PATIENCE,
        }
    }

    /// `multiversi SUBCOMMAND` run by its name, found on a PATH that starts with the directory of
    /// the binary built for these tests (as a user who installed it runs it).
    pub fn on_path(subcommand: &str) -> TestCommand {
        let exe = Path::new(env!("CARGO_BIN_EXE_multiversi"));
        let dir = exe.parent().expect("the binary is in a directory");
        let mut path = OsString::from(dir);
        if let Some(rest) = std::env::var_os("PATH") {
            path.push(":");
            path.push(rest);
        }
        let mut command = Command::new("multiversi");
        command.env("PATH", path);
        TestCommand::new(command).arg(subcommand)
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> TestCommand {
        self.command.arg(arg.as_ref());
        self.words.push(arg.as_ref().to_owned());
        self
    }

    /// Words given as a list of strings (`&["--games", "3", &bot]`).
    pub fn args(mut self, args: &[&str]) -> TestCommand {
        for arg in args {
            self = self.arg(arg);
        }
        self
    }

    /// Words of any kind (paths, `String`s), in order.
    pub fn args_os<S: AsRef<OsStr>>(mut self, args: impl IntoIterator<Item = S>) -> TestCommand {
        for arg in args {
            self = self.arg(arg);
        }
        self
    }

    /// `--record PATH`: the record file of a `match`.
    pub fn record(self, path: &Path) -> TestCommand {
        self.arg("--record").arg(path)
    }

    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> TestCommand {
        self.command.current_dir(dir);
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> TestCommand {
        self.command.env(key, value);
        self
    }

    pub fn env_remove(mut self, key: &str) -> TestCommand {
        self.command.env_remove(key);
        self
    }

    /// Bytes for its stdin, which is closed after them (without, stdin is empty).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> TestCommand {
        self.stdin = Some(bytes.into());
        self
    }

    /// Its stdin from elsewhere (a terminal), instead of bytes given here.
    pub fn stdin_from(mut self, stdin: impl Into<Stdio>) -> TestCommand {
        self.command.stdin(stdin);
        self.stdin_set = true;
        self
    }

    /// Its stdout to elsewhere (a terminal, a closed pipe, /dev/null) instead of captured.
    pub fn stdout_to(mut self, stdout: impl Into<Stdio>) -> TestCommand {
        self.command.stdout(stdout);
        self.capture_stdout = false;
        self
    }

    /// Its stderr to elsewhere instead of captured.
    pub fn stderr_to(mut self, stderr: impl Into<Stdio>) -> TestCommand {
        self.command.stderr(stderr);
        self.capture_stderr = false;
        self
    }

    /// How long the run may take before the watchdog kills it and fails the test.
    pub fn timeout(mut self, timeout: Duration) -> TestCommand {
        self.timeout = timeout;
        self
    }

    /// Runs `f` in the child between fork and exec (limits, signal dispositions).
    ///
    /// # Safety
    /// As for `CommandExt::pre_exec`: `f` may only do what is safe in a forked child
    /// (async-signal-safe calls).
    pub unsafe fn pre_exec<F>(mut self, f: F) -> TestCommand
    where
        F: FnMut() -> std::io::Result<()> + Send + Sync + 'static,
    {
        // SAFETY: the caller's promise, passed on.
        unsafe { std::os::unix::process::CommandExt::pre_exec(&mut self.command, f) };
        self
    }

    /// The command line as a person would type it, for messages.
    fn shown(&self) -> String {
        let mut line = self.program.clone();
        for word in &self.words {
            line.push(' ');
            line.push_str(&shell_word(&word.to_string_lossy()));
        }
        line
    }

    /// Starts it and leaves it running; its captured output is read meanwhile, so that it never
    /// blocks on a full pipe.
    #[track_caller]
    pub fn spawn(mut self) -> Running {
        let shown = self.shown();
        if !self.stdin_set {
            self.command.stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            });
        }
        if self.capture_stdout {
            self.command.stdout(Stdio::piped());
        }
        if self.capture_stderr {
            self.command.stderr(Stdio::piped());
        }
        let mut child = self
            .command
            .spawn()
            .unwrap_or_else(|e| panic!("`{shown}` does not start: {e}"));
        // Dropping the command here also closes our copies of any descriptors given to the child
        // (a terminal's slave side), so that their end can be seen.
        drop(self.command);
        if let Some(bytes) = self.stdin.take() {
            let mut pipe = child.stdin.take().expect("stdin piped");
            std::thread::spawn(move || {
                // A run may stop reading early; what it did with its input is the test's matter.
                let _ = pipe.write_all(&bytes);
            });
        }
        let stdout = child.stdout.take().map(drain);
        let stderr = child.stderr.take().map(drain);
        Running {
            child,
            stdout,
            stderr,
            shown,
            timeout: self.timeout,
            started: Instant::now(),
            status: None,
        }
    }

    /// Runs it to its end (or the watchdog's) and returns what it did.
    #[track_caller]
    pub fn run(self) -> Run {
        self.spawn().finish()
    }

    /// Runs it and fails the test unless it exits with 0.
    #[track_caller]
    pub fn ok(self) -> Run {
        let run = self.run();
        run.assert_ok();
        run
    }
}

/// Reads a pipe to its end on a thread of its own; the bytes arrive through the channel.
fn drain(mut pipe: impl Read + Send + 'static) -> Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        let _ = tx.send(bytes);
    });
    rx
}

/// A run of multiversi still going: killed and reaped when the test lets go of it, also when the
/// test fails half-way, so that a failing test leaves nothing running.
pub struct Running {
    child: Child,
    stdout: Option<Receiver<Vec<u8>>>,
    stderr: Option<Receiver<Vec<u8>>>,
    shown: String,
    timeout: Duration,
    started: Instant,
    status: Option<ExitStatus>,
}

impl Running {
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` to it (it must not have been waited for).
    pub fn signal(&self, signal: libc::c_int) {
        // SAFETY: signalling the child we started and have not reaped.
        let rc = unsafe { libc::kill(self.child.id() as libc::pid_t, signal) };
        assert_eq!(rc, 0, "kill {signal}: {}", std::io::Error::last_os_error());
    }

    /// Its exit status if it has ended, without waiting.
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            self.status = self.child.try_wait().expect("try_wait");
        }
        self.status
    }

    /// Waits for its end; the watchdog kills it and fails the test when it takes longer than
    /// its time (counted from its start).
    #[track_caller]
    pub fn wait(&mut self) -> ExitStatus {
        if let Some(status) = self.status {
            return status;
        }
        let left = self.timeout.saturating_sub(self.started.elapsed());
        match self.child.wait_timeout(left).expect("wait") {
            Some(status) => {
                self.status = Some(status);
                status
            }
            None => {
                let _ = self.child.kill();
                let _ = self.child.wait();
                let (stdout, stderr) = self.output(Duration::from_secs(5));
                panic!(
                    "`{}` still running after {:?}: killed\n{}",
                    self.shown,
                    self.timeout,
                    shown_output(&stdout, &stderr)
                );
            }
        }
    }

    /// The captured output, once every holder of the pipes has closed them.
    fn output(&mut self, patience: Duration) -> (Vec<u8>, Vec<u8>) {
        let shown = &self.shown;
        let collect = |pipe: Option<Receiver<Vec<u8>>>, name: &str| {
            pipe.map(|rx| {
                rx.recv_timeout(patience).unwrap_or_else(|_| {
                    panic!("`{shown}` ended but its {name} was still open {patience:?} later")
                })
            })
            .unwrap_or_default()
        };
        let stdout = collect(self.stdout.take(), "stdout");
        let stderr = collect(self.stderr.take(), "stderr");
        (stdout, stderr)
    }

    /// Waits for its end and returns what it did.
    #[track_caller]
    pub fn finish(mut self) -> Run {
        let status = self.wait();
        let patience = self
            .timeout
            .saturating_sub(self.started.elapsed())
            .max(Duration::from_secs(10));
        let (stdout, stderr) = self.output(patience);
        Run {
            status,
            stdout,
            stderr,
            shown: std::mem::take(&mut self.shown),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.status.is_none() && matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// What a run of multiversi did.
pub struct Run {
    pub status: ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// The command line, for messages.
    shown: String,
}

impl Run {
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    pub fn success(&self) -> bool {
        self.status.success()
    }

    /// Its stdout as text (bytes that are not UTF-8 replaced).
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Its stderr as text (bytes that are not UTF-8 replaced).
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    pub fn stdout_bytes(&self) -> &[u8] {
        &self.stdout
    }

    pub fn stderr_bytes(&self) -> &[u8] {
        &self.stderr
    }

    /// The command line and what it printed, for a failure message.
    pub fn describe(&self) -> String {
        format!(
            "`{}`: {}\n{}",
            self.shown,
            self.status,
            shown_output(&self.stdout, &self.stderr)
        )
    }

    /// Fails the test unless it exited with 0.
    #[track_caller]
    pub fn assert_ok(&self) -> &Run {
        assert!(self.success(), "expected success\n{}", self.describe());
        self
    }

    /// Fails the test unless it exited with `code`.
    #[track_caller]
    pub fn assert_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code(),
            Some(code),
            "expected exit code {code}\n{}",
            self.describe()
        );
        self
    }

    /// Fails the test unless its stderr contains `needle`.
    #[track_caller]
    pub fn assert_stderr_has(&self, needle: &str) -> &Run {
        assert!(
            self.stderr().contains(needle),
            "stderr lacks {needle:?}\n{}",
            self.describe()
        );
        self
    }

    /// Fails the test unless its stdout contains `needle`.
    #[track_caller]
    pub fn assert_stdout_has(&self, needle: &str) -> &Run {
        assert!(
            self.stdout().contains(needle),
            "stdout lacks {needle:?}\n{}",
            self.describe()
        );
        self
    }
}

/// Stdout (its last 4000 bytes) and the whole stderr, for failure messages.
fn shown_output(stdout: &[u8], stderr: &[u8]) -> String {
    let tail = &stdout[stdout.len().saturating_sub(4000)..];
    format!(
        "--- stdout{}:\n{}\n--- stderr:\n{}",
        if tail.len() < stdout.len() {
            " (its end)"
        } else {
            ""
        },
        String::from_utf8_lossy(tail),
        String::from_utf8_lossy(stderr)
    )
}

/// A pipe: its reading end, its writing end. Close-on-exec keeps both out of the children other
/// tests start meanwhile (a descriptor given to a child as its stdio is dup'ed without the flag).
pub fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [-1; 2];
    // SAFETY: pipe2 writes two descriptors into the array.
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(rc, 0, "pipe2: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened for us and are owned from here on.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

/// A pipe whose reading end is already closed, as after `multiversi … | head` once head is gone:
/// every write to it fails.
pub fn closed_pipe() -> OwnedFd {
    let (reader, writer) = pipe();
    drop(reader);
    writer
}

#[test]
fn the_watchdog_ends_a_run_that_hangs_and_fails_the_test() {
    // A bot process waits for its input, which never ends here: the writing end stays open.
    let (input, writer) = pipe();
    let run = std::panic::catch_unwind(|| {
        multiversi("bot")
            .arg("random")
            .stdin_from(input)
            .timeout(Duration::from_secs(1))
            .run()
    });
    let Err(panic) = run else {
        panic!("a run that hangs passed");
    };
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.starts_with("`multiversi bot random` still running after 1s: killed"),
        "{message}"
    );
    drop(writer);
}
