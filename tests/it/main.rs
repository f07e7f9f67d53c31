//! The integration tests: one binary, a module per area, small helpers in `support`.

mod cli;
mod records;
mod replay;
mod replay_browser;
mod replay_tty;
mod support;
