//! The integration tests: one binary, a module per area; what more than one module uses is in
//! `support/`, through which every test runs the multiversi binary.

mod agreement;
mod architecture;
mod bench;
mod bots;
mod check_bot;
mod cli;
mod cluster;
mod docs;
mod exit_codes;
mod fault_kinds;
mod faults;
mod first_hour;
mod hostile;
mod league;
mod lifecycle;
mod limits;
mod matches;
mod messages;
mod properties;
mod reference;
mod remote;
mod replay;
mod replay_browser;
mod replay_tty;
mod schemas;
mod signals;
mod sprt;
mod standings;
mod starter_bots;
mod support;
mod web;
