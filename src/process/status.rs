//! How a process ended, in words for fault records and reports: `exit code 3`, `killed by
//! signal 11 (SIGSEGV)`. A bot author reads these, so a signal is named, not only numbered.

use nix::sys::signal::Signal;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

/// Describes how a process ended, for fault records: `exit code 3` or `killed by signal 11 (SIGSEGV)`.
/// A signal without a name (a real-time one) is given by its number alone.
pub fn describe_status(status: Option<ExitStatus>) -> String {
    match status {
        None => "still running".into(),
        Some(s) => match (s.code(), s.signal()) {
            (Some(code), _) => format!("exit code {code}"),
            (None, Some(sig)) => match Signal::try_from(sig) {
                Ok(name) => format!("killed by signal {sig} ({})", name.as_str()),
                Err(_) => format!("killed by signal {sig}"),
            },
            _ => "ended".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_are_named_and_codes_given() {
        let status = |raw: i32| describe_status(Some(ExitStatus::from_raw(raw)));
        assert_eq!(status(3 << 8), "exit code 3");
        assert_eq!(status(libc::SIGSEGV), "killed by signal 11 (SIGSEGV)");
        // With a core dump, the same signal.
        assert_eq!(status(libc::SIGABRT | 0x80), "killed by signal 6 (SIGABRT)");
        // Named now where the old hand-written table said only "signal".
        assert_eq!(status(libc::SIGSYS), "killed by signal 31 (SIGSYS)");
        assert_eq!(status(libc::SIGUSR1), "killed by signal 10 (SIGUSR1)");
        assert_eq!(
            status(libc::SIGRTMIN() + 2),
            format!("killed by signal {}", libc::SIGRTMIN() + 2)
        );
        assert_eq!(describe_status(None), "still running");
    }
}
