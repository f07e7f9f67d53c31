//! The interactive terminal replay through a real pseudo-terminal: keys go in as a terminal sends
//! them, the screens come out, and the terminal must be left as it was found (echo and line
//! editing back on) when the user quits.

use crate::support::{multiversi, open_pty, samples, temp_dir, Running};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

fn termios(fd: &OwnedFd) -> libc::termios {
    // SAFETY: termios is plain data that tcgetattr fills in.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::tcgetattr(fd.as_raw_fd(), &mut t) }, 0);
    t
}

/// `multiversi replay` on a terminal of its own; killed when the test lets go of it, also when
/// the test fails half-way.
struct Session {
    master: File,
    slave: OwnedFd,
    child: Running,
    seen: String,
    /// The bytes read so far (`seen` is their text).
    raw: Vec<u8>,
    /// How far `wait_for` has matched in `seen`.
    cursor: usize,
    /// The terminal's modes before the child started.
    before: libc::termios,
}

impl Session {
    fn start(args: &[&str], no_color: bool, rows: u16) -> Session {
        Session::start_ignoring(args, no_color, rows, None)
    }

    /// Starts `multiversi replay ARGS` with the usual signal dispositions (whatever the test runner ignores,
    /// as under `nohup`), or with `ignored` ignored.
    fn start_ignoring(
        args: &[&str],
        no_color: bool,
        rows: u16,
        ignored: Option<libc::c_int>,
    ) -> Session {
        let (master, slave) = open_pty(rows);
        let before = termios(&slave);
        let command = multiversi("replay")
            .args(args)
            .env("TERM", "xterm-256color")
            .stdin_from(slave.try_clone().unwrap())
            .stdout_to(slave.try_clone().unwrap())
            .stderr_to(slave.try_clone().unwrap());
        let command = if no_color {
            command.env("NO_COLOR", "1")
        } else {
            command.env_remove("NO_COLOR")
        };
        // SAFETY: signal is async-signal-safe; this runs in the child before exec.
        let command = unsafe {
            command.pre_exec(move || {
                for sig in [libc::SIGHUP, libc::SIGINT, libc::SIGTERM] {
                    let action = if Some(sig) == ignored {
                        libc::SIG_IGN
                    } else {
                        libc::SIG_DFL
                    };
                    libc::signal(sig, action);
                }
                Ok(())
            })
        };
        let child = command.spawn();
        Session {
            master,
            slave,
            child,
            seen: String::new(),
            raw: Vec::new(),
            cursor: 0,
            before,
        }
    }

    /// Reads the terminal until `needle` appears after the previous match; returns where it ends.
    fn wait_for(&mut self, needle: &str) -> usize {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(at) = self.seen[self.cursor..].find(needle) {
                self.cursor += at + needle.len();
                return self.cursor;
            }
            assert!(
                Instant::now() < deadline,
                "waited for {needle:?}; the terminal showed:\n{}",
                &self.seen[self.cursor..]
            );
            self.pump(100);
        }
    }

    /// The whole screen that contains `needle` (each screen starts by clearing the terminal and
    /// ends with the key help).
    fn screen(&mut self, needle: &str) -> String {
        let at = self.wait_for(needle);
        let end = self.wait_for("q quit");
        let begin = self.seen[..at].rfind("\x1b[2J").unwrap_or(0);
        self.seen[begin..end].to_string()
    }

    fn keys(&mut self, bytes: &str) {
        self.master.write_all(bytes.as_bytes()).unwrap();
        self.master.flush().unwrap();
    }

    /// Reads whatever the terminal has within `ms` milliseconds; false when nothing came.
    fn pump(&mut self, ms: i32) -> bool {
        let mut poll = libc::pollfd {
            fd: self.master.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        if unsafe { libc::poll(&mut poll, 1, ms) } <= 0 {
            return false;
        }
        let mut buf = [0u8; 8192];
        let n = self.master.read(&mut buf).unwrap_or(0);
        // Decode everything so far, so a character split between two reads stays whole.
        self.raw.extend_from_slice(&buf[..n]);
        self.seen = String::from_utf8_lossy(&self.raw).into_owned();
        n > 0
    }

    /// Waits for the child to exit, reading its output meanwhile (a full terminal buffer would
    /// block it); returns the exit code, everything shown, and the terminal modes left behind.
    fn finish(self) -> (i32, String, libc::termios) {
        let (status, seen, t) = self.finish_status();
        (status.code().unwrap_or(-1), seen, t)
    }

    /// `finish` with the whole exit status, for a child that may die of a signal.
    fn finish_status(mut self) -> (ExitStatus, String, libc::termios) {
        let deadline = Instant::now() + Duration::from_secs(10);
        let status = loop {
            self.pump(20);
            if let Some(status) = self.child.try_wait() {
                break status;
            }
            assert!(Instant::now() < deadline, "replay did not quit");
        };
        while self.pump(50) {}
        let t = termios(&self.slave);
        (status, std::mem::take(&mut self.seen), t)
    }
}

#[test]
fn arrow_keys_step_through_the_games_and_quitting_restores_the_terminal() {
    let games = samples::sample_games();
    let dir = temp_dir("replay-tty");
    let path = dir.join("games.jsonl");
    samples::write(&path, &games);
    let total = games[0].moves.len();
    let mut s = Session::start(&[path.to_str().unwrap()], false, 50);
    let before = s.before;
    assert_ne!(before.c_lflag & libc::ECHO, 0);
    s.screen(&format!("Move 0 of {total} · game 1 of 5"));
    assert!(s.seen.contains("\x1b[?1049h"), "alternate screen");
    s.keys("\x1b[C\x1b[C\x1b[C");
    let screen = s.screen(&format!("Move 3 of {total}"));
    assert!(screen.contains("\x1b[48;5;"), "colours on a terminal");
    assert!(screen.contains("   3. "), "{screen}");
    assert!(!screen.contains("   4. "), "{screen}");
    s.keys("\x1b[D");
    s.wait_for(&format!("Move 2 of {total}"));
    s.keys("\x1b[F");
    let screen = s.screen(&format!("Move {total} of {total}"));
    assert!(screen.contains("Result: "), "{screen}");
    s.keys("\x1b[H");
    s.wait_for(&format!("Move 0 of {total}"));
    s.keys("\x1b[6~");
    s.wait_for(&format!("Move 10 of {total}"));
    s.keys("n");
    s.wait_for("game 2 of 5");
    s.keys("q");
    let (code, seen, after) = s.finish();
    assert_eq!(code, 0, "{seen}");
    assert!(
        seen.ends_with("\x1b[?25h\x1b[?1049l"),
        "{:?}",
        &seen[seen.len().saturating_sub(40)..]
    );
    assert_eq!(after.c_lflag, before.c_lflag, "terminal modes restored");
    assert_eq!(after.c_iflag, before.c_iflag, "terminal modes restored");
}

/// A replay killed while stepping (by `kill`, by its terminal closing) puts the terminal back before
/// it dies of the signal, so the shell does not come back without echo or line editing. (SIGQUIT,
/// handled the same way, is left out: its default action may write a core file.)
#[test]
fn a_signal_while_stepping_restores_the_terminal_and_still_kills_the_replay() {
    let games = samples::sample_games();
    let dir = temp_dir("replay-tty-signal");
    let path = dir.join("games.jsonl");
    samples::write(&path, &games[..1]);
    for sig in [libc::SIGTERM, libc::SIGHUP, libc::SIGINT] {
        let mut s = Session::start(&[path.to_str().unwrap()], false, 40);
        let before = s.before;
        s.screen("Move 0 of");
        let raw = termios(&s.slave);
        assert_eq!(
            raw.c_lflag & (libc::ECHO | libc::ICANON),
            0,
            "raw while stepping"
        );
        s.child.signal(sig);
        let (status, seen, after) = s.finish_status();
        assert_eq!(status.signal(), Some(sig), "signal {sig}: {status:?}");
        assert_eq!(
            after.c_lflag & (libc::ECHO | libc::ICANON),
            libc::ECHO | libc::ICANON,
            "signal {sig}: echo and line editing back on"
        );
        assert_eq!(
            after.c_lflag, before.c_lflag,
            "signal {sig}: modes restored"
        );
        assert_eq!(
            after.c_iflag, before.c_iflag,
            "signal {sig}: modes restored"
        );
        assert!(
            seen.ends_with("\x1b[?25h\x1b[?1049l"),
            "signal {sig}: cursor shown, alternate screen left: {:?}",
            &seen[seen.len().saturating_sub(40)..]
        );
    }
}

/// Under `nohup` SIGHUP is ignored: the replay leaves it ignored and goes on stepping.
#[test]
fn an_ignored_hangup_stays_ignored() {
    let games = samples::sample_games();
    let dir = temp_dir("replay-tty-nohup");
    let path = dir.join("games.jsonl");
    samples::write(&path, &games[..1]);
    let mut s = Session::start_ignoring(&[path.to_str().unwrap()], false, 40, Some(libc::SIGHUP));
    let before = s.before;
    s.screen("Move 0 of");
    s.child.signal(libc::SIGHUP);
    s.keys("\x1b[C");
    s.screen("Move 1 of");
    assert!(s.child.try_wait().is_none(), "still running");
    s.keys("q");
    let (code, _, after) = s.finish();
    assert_eq!(code, 0);
    assert_eq!(after.c_lflag, before.c_lflag, "terminal modes restored");
}

#[test]
fn no_color_gives_plain_letters_on_a_terminal() {
    let games = samples::sample_games();
    let dir = temp_dir("replay-tty-plain");
    let path = dir.join("games.jsonl");
    samples::write(&path, &games[1..2]);
    let mut s = Session::start(&[path.to_str().unwrap(), "--ply", "0"], true, 24);
    let screen = s.screen("Move 0 of");
    assert!(
        !screen.contains("\x1b[48;5;") && !screen.contains("\x1b[38;5;"),
        "{screen:?}"
    );
    assert!(screen.contains("  5 . . . . B W . . . .\r\n"), "{screen}");
    // A 10-row board, the result and recent moves still fit a 24-row terminal.
    s.keys("\x1b[F");
    let last = s.screen("Ranking: ");
    assert!(
        last.contains("Result: ") && last.contains("Ranking: "),
        "{last}"
    );
    assert!(
        last.lines().count() <= 24,
        "{} lines:\n{last}",
        last.lines().count()
    );
    assert!(
        last.contains(&format!("{}. ", games[1].moves.len())),
        "{last}"
    );
    s.keys("\x03");
    let (code, _, after) = s.finish();
    assert_eq!(code, 0);
    assert_ne!(after.c_lflag & libc::ECHO, 0);
}

#[test]
fn animate_on_a_terminal_redraws_one_board_per_move() {
    let games = samples::sample_games();
    let dir = temp_dir("replay-tty-animate");
    let path = dir.join("games.jsonl");
    samples::write(&path, &games[3..4]);
    let total = games[3].moves.len();
    let s = Session::start(
        &[path.to_str().unwrap(), "--animate", "--delay", "1"],
        false,
        40,
    );
    let (code, seen, _) = s.finish();
    assert_eq!(code, 0, "{seen}");
    assert_eq!(
        seen.matches("\x1b[H\x1b[2J").count(),
        total + 1,
        "one frame per position"
    );
    assert!(
        seen.contains("\x1b[48;5;238;38;5;244m ╳ "),
        "blocked squares drawn"
    );
    assert!(seen.contains("Result: "));
}
