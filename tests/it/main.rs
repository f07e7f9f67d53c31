//! The integration tests: one binary, a module per area, small helpers in `support`.

mod bots;
mod cli;
mod support;
