//! Raw terminal mode for stepping with single keys, restored when dropped, on a panic and on a
//! termination signal, so the user's shell is never left without echo.
//!
//! Signals (SIGTERM, SIGHUP, SIGINT, SIGQUIT; raw mode turns off the keys that send SIGINT and
//! SIGQUIT, but `kill` still can) are handled by restoring the terminal in the handler itself and
//! then dying of the same signal with its default action. The other design, a flag that the key
//! loop checks, would need every place the loop can block (the key read, but also a write to a
//! terminal that is not being read) to wake up on the signal, and would still have to re-raise
//! the signal for an honest exit status. The handler needs nothing of the loop: `tcsetattr` and
//! `write` are async-signal-safe, the saved settings are read without a lock, and the parent sees
//! the process killed by the signal, as if no handler had been there.

use std::cell::UnsafeCell;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

/// Leaves the alternate screen and shows the cursor.
const RESET: &[u8] = b"\x1b[?25h\x1b[?1049l";

/// The signals that would otherwise end the replay with the terminal still raw.
const SIGNALS: [libc::c_int; 4] = [libc::SIGTERM, libc::SIGHUP, libc::SIGINT, libc::SIGQUIT];

/// The settings to restore. Written only while `ARMED` is false, before any handler that reads
/// it is installed, so the signal handler can read it without a lock (a lock could be held by
/// the very code the signal interrupted).
struct Saved(UnsafeCell<libc::termios>);
// SAFETY: written only before the handlers and hooks that read it are in place (see above).
unsafe impl Sync for Saved {}
// SAFETY: an all-zero termios is a valid value of that plain struct.
static SAVED: Saved = Saved(UnsafeCell::new(unsafe { std::mem::zeroed() }));
/// Whether the terminal is raw and `SAVED` is to be put back.
static ARMED: AtomicBool = AtomicBool::new(false);

/// Puts the saved settings back and resets the screen. Async-signal-safe.
fn put_back() {
    // SAFETY: SAVED holds what tcgetattr filled in (see `RawMode::enter`); RESET is a valid
    // buffer of its length.
    unsafe {
        libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, SAVED.0.get());
        libc::write(libc::STDOUT_FILENO, RESET.as_ptr().cast(), RESET.len());
    }
}

/// Puts the saved settings back once (the panic hook and then the guard both ask).
fn restore() {
    if ARMED.swap(false, Ordering::AcqRel) {
        put_back();
    }
}

/// Restores the terminal whether or not `restore` already ran (a signal may arrive in the
/// middle of it; doing it twice is harmless), then dies of the same signal: the handler was
/// installed with `SA_RESETHAND`, so the signal, raised again and delivered once this
/// returns, takes its default action.
extern "C" fn on_signal(sig: libc::c_int) {
    put_back();
    // SAFETY: raise is async-signal-safe.
    unsafe {
        libc::raise(sig);
    }
}

/// The terminal's number of rows, if stdout is a terminal that says.
pub fn height() -> Option<usize> {
    // SAFETY: winsize is plain data that TIOCGWINSZ fills in.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_row > 0).then_some(size.ws_row as usize)
}

/// Raw mode while it lives; holds the signal actions it replaced, to put them back.
pub struct RawMode {
    previous: Vec<(libc::c_int, libc::sigaction)>,
}

impl RawMode {
    pub fn enter() -> io::Result<RawMode> {
        // SAFETY: termios is plain data; tcgetattr fills it or fails.
        let mut t: libc::termios = unsafe { std::mem::zeroed() };
        if unsafe { libc::tcgetattr(libc::STDIN_FILENO, &mut t) } != 0 {
            return Err(io::Error::last_os_error());
        }
        if ARMED.load(Ordering::Acquire) {
            return Err(io::Error::other("the terminal is already in raw mode"));
        }
        // SAFETY: nothing reads SAVED while ARMED is false and no handler is installed.
        unsafe { *SAVED.0.get() = t };
        ARMED.store(true, Ordering::Release);
        let previous_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // Leave the alternate screen and show the cursor before the message.
            restore();
            previous_hook(info);
        }));
        let mut mode = RawMode {
            previous: Vec::new(),
        };
        for sig in SIGNALS {
            // SAFETY: sigaction is plain data; the handler only calls async-signal-safe
            // functions.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as *const () as libc::sighandler_t;
                action.sa_flags = libc::SA_RESETHAND;
                // The other signals wait while the handler restores the terminal.
                libc::sigemptyset(&mut action.sa_mask);
                for other in SIGNALS {
                    libc::sigaddset(&mut action.sa_mask, other);
                }
                let mut old: libc::sigaction = std::mem::zeroed();
                libc::sigaction(sig, &action, &mut old);
                if old.sa_sigaction == libc::SIG_IGN {
                    // An ignored signal (as under nohup) stays ignored.
                    libc::sigaction(sig, &old, std::ptr::null_mut());
                } else {
                    mode.previous.push((sig, old));
                }
            }
        }
        t.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ISIG | libc::IEXTEN);
        t.c_iflag &= !(libc::IXON | libc::ICRNL);
        t.c_cc[libc::VMIN] = 1;
        t.c_cc[libc::VTIME] = 0;
        // SAFETY: as above, with a termios derived from the current one.
        if unsafe { libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &t) } != 0 {
            let e = io::Error::last_os_error();
            // Nothing changed on the terminal; dropping the guard puts back the handlers.
            ARMED.store(false, Ordering::Release);
            drop(mode);
            return Err(e);
        }
        Ok(mode)
    }

    /// Reads whatever keys are available (blocking for at least one byte).
    pub fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            // SAFETY: reading into a valid buffer of the given length.
            let n = unsafe { libc::read(libc::STDIN_FILENO, buf.as_mut_ptr().cast(), buf.len()) };
            if n >= 0 {
                return Ok(n as usize);
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        // The terminal first: a signal from here on finds it restored (the handler restores
        // it again) or, once its old action is back, nothing left to restore.
        restore();
        for (sig, old) in &self.previous {
            // SAFETY: putting back the action sigaction returned.
            unsafe {
                libc::sigaction(*sig, old, std::ptr::null_mut());
            }
        }
    }
}
