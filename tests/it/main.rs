//! The integration tests: one binary, a module per area, small helpers in `support`.

mod bots;
mod cli;
mod cluster;
mod faults;
mod first_hour;
mod hostile;
mod limits;
mod matches;
mod records;
mod reference;
mod replay;
mod replay_browser;
mod replay_tty;
mod schemas;
mod signals;
mod starter_bots;
mod support;
