//! The integration tests: one binary, a module per area, small helpers in `support`.

mod bots;
mod cli;
mod matches;
mod records;
mod reference;
mod replay;
mod starter_bots;
mod support;
