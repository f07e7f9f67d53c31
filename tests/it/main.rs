//! The integration tests: one binary, a module per area, small helpers in `support`.

mod cli;
mod starter_bots;
mod support;
