//! Words a bot author can act on, in two parts: a fault put into what a person needs on the
//! terminal (`fault`), and the usual slips in the bot commands of `multiversi match` and
//! `league`, with what to type instead (`command`).
//!
//! Everything here is a pure function of its arguments (the command check looks at the file
//! system), so each message is tested as the user sees it.

pub mod command;
pub mod fault;

pub use command::{
    forgotten_quotes, options_after, other_words, program, program_problem, shell_quote,
};
pub use fault::{fault_message, hint, kind_name, stderr_excerpt, FaultedBot};
