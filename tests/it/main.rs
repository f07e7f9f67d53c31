//! The integration tests: one binary, a module per area, small helpers in `support`.

mod bots;
mod cli;
mod reference;
mod matches;
mod records;
mod replay;
mod starter_bots;
mod support;
