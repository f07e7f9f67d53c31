//! Exit codes and the error that carries one. At the bottom of the module tree: every
//! subcommand reports failures through it, and only `cli` maps them to the process's exit code.
//! The codes are documented in README.md, "Exit codes".

/// Everything went as asked.
pub const OK: i32 = 0;
/// `replay --verify` found a record that does not hold.
pub const VERIFY_FAILED: i32 = 1;
/// `check-bot` found a check that failed, or one that an earlier failure kept from running (the
/// same code as a failed verify: a check found something that does not hold).
pub const CHECK_FAILED: i32 = 1;
/// A wrong option or option value (also clap's own code for usage errors).
pub const USAGE: i32 = 2;
/// An input file is missing, unreadable or damaged.
pub const BAD_INPUT: i32 = 3;
/// A bot could not be started, or never answered `start`: a match stops, a league leaves the
/// bot out and plays every other game first.
pub const BOT_START: i32 = 4;
/// Output could not be written (record, log, HTML).
pub const OUTPUT: i32 = 5;
/// An internal error: a bug in multiversi, not a mistake of the person or a bot — an error that
/// reached `main` without a code of its own, or a panic. Kept apart from USAGE so that a script
/// (or a person) never reads a bug as "wrong option", and so that it can be reported. 70 is
/// `EX_SOFTWARE` of BSD's `sysexits.h`, the usual code for "internal software error".
pub const INTERNAL: i32 = 70;
/// Stopped by Ctrl-C or a termination signal; finished games are kept.
pub const INTERRUPTED: i32 = 130;

/// An error that carries its exit code; anything else that reaches `main` is an internal error
/// (INTERNAL).
#[derive(Debug)]
pub struct Failure {
    pub code: i32,
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// Stdout could not be written. A reader that went away (`multiversi replay … | head`) is no
/// failure: like other Unix tools the program then stops quietly, with exit 0 and nothing on
/// stderr (an error with an empty message, which `cli::main` does not print). Any other error
/// is an output failure (exit 5).
pub fn stdout_error(e: std::io::Error) -> anyhow::Error {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return fail(OK, "");
    }
    fail(OUTPUT, format!("cannot write output: {e}"))
}

/// Writes text to stderr for a person: a warning, a status line. Unlike `eprint!`, which panics
/// (exit 101) when stderr is a closed pipe (`multiversi standings … 2>&1 | head`), a failed write
/// is ignored: what was to be said has nowhere to go, and the program ends as it would have (a
/// closed stdout then ends it quietly, see `stdout_error`). Use it through `stderr_line!`.
pub fn write_stderr(text: std::fmt::Arguments) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(text).and_then(|()| err.flush());
}

/// `eprintln!` without the panic on a closed stderr (see `exit::write_stderr`): one line, written
/// whole.
#[macro_export]
macro_rules! stderr_line {
    ($($arg:tt)*) => {
        $crate::exit::write_stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` without the panic on a closed stderr (see `exit::write_stderr`).
#[macro_export]
macro_rules! stderr_text {
    ($($arg:tt)*) => {
        $crate::exit::write_stderr(format_args!($($arg)*))
    };
}

/// The exit code of an error that reached `main`: its own, or INTERNAL for one that has none
/// (every error a person or a file can cause is given its code where it is found).
pub fn code_of(e: &anyhow::Error) -> i32 {
    e.downcast_ref::<Failure>().map_or(INTERNAL, |f| f.code)
}

/// Builds an error with a given exit code.
pub fn fail(code: i32, message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Failure {
        code,
        message: message.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_without_a_code_is_internal_not_a_usage_error() {
        assert_eq!(code_of(&fail(BAD_INPUT, "damaged")), BAD_INPUT);
        assert_eq!(code_of(&fail(USAGE, "wrong option")), USAGE);
        let unexpected = anyhow::Error::new(std::io::Error::other("something unforeseen"));
        assert_eq!(code_of(&unexpected), INTERNAL);
        assert_ne!(INTERNAL, USAGE);
    }

    #[test]
    fn a_closed_pipe_is_quiet_success_and_other_write_errors_are_output_failures() {
        let quiet = stdout_error(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert_eq!((code_of(&quiet), quiet.to_string()), (OK, String::new()));
        let full = stdout_error(std::io::Error::from_raw_os_error(libc::ENOSPC));
        assert_eq!(code_of(&full), OUTPUT);
    }
}
