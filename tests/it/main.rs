//! The integration tests: one binary, a module per area, small helpers in `support`.

mod cli;
mod faults;
mod matches;
mod signals;
mod support;
