//! How a process ended, in words for fault records and reports: `exit code 3`, `killed by
//! signal 11 (SIGSEGV)`. A bot author reads these, so a signal is named, not only numbered.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

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
