//! A bot as an operating-system process: started from an argument list without a shell, in its
//! own process group, tied to the referee's life, and spoken to without ever letting the bot stall
//! the referee.
//!
//! Why it is built this way:
//! - **Own process group** (`setpgid` via `process_group(0)`): a bot may start helpers; killing
//!   the group takes them too, and Ctrl-C at the terminal reaches the referee, not the bots.
//! - **Parent-death signal** (`PR_SET_PDEATHSIG`): if the referee dies, even by SIGKILL, the kernel
//!   kills each bot leader. Grandchildren are covered by the group kill on every normal path and
//!   by the signal handler in `install_signal_handlers` on SIGINT/SIGTERM/SIGHUP.
//! - **Child subreaper** (`PR_SET_CHILD_SUBREAPER`): a helper can leave its bot's group
//!   (`setsid`, a daemonising double fork) and so escape the group kill. As a subreaper the
//!   referee inherits such orphans instead of init, and `sweep_strays` kills them whenever a bot
//!   is killed or shut down. If the referee itself is SIGKILLed, only the groups the guard knows
//!   are killed.
//! - **Non-blocking pipes, no hand-off threads on the move path**: the referee writes a message
//!   with a non-blocking write; whatever the pipe does not take is kept and written while the
//!   referee waits for the reply (`poll` on both pipes). Reading is done by the referee itself
//!   with `ppoll` against one absolute deadline. A thread hand-off per message would cost about
//!   as much as the pipe round trip itself, and the referee's per-move cost is a measured figure.
//! - **A pidfd in the same `ppoll`**: a bot whose helper holds its stdout open sends no end of
//!   output when it exits; the pidfd of its main process (`pidfd_open`, Linux 5.3) tells of the
//!   exit at once, without a thread or a signal handler. The wire gets it as an end watch, a
//!   descriptor it knows only as "readable: gone", so that it stays the same for sockets.
//! - **stderr is drained by a thread** into a capped tail buffer and an optional capped log file,
//!   so a bot that writes a lot of diagnostics never blocks on a full pipe (unless it writes more
//!   than 8 MiB a second: a flood is read at that rate, so it cannot keep a core busy).
//! - **Bounded reading of stdout**: at most `READ_LIMIT` bytes of a bot's output are held; what
//!   a bot writes beyond that waits in its pipe until the referee has judged the line it has. A
//!   bot cannot make the referee's memory grow, whatever it writes.
//!
//! The parts, one job each:
//! - `words`: a bot command split into its argument list;
//! - `wire`: a bot's two streams as the referee writes and reads them, capped (`Wire`,
//!   `Received`, `wait_any`), whatever carries them: pipes here, a network connection in
//!   `crate::remote`;
//! - `child`: one bot process and its pipes (`BotProcess`);
//! - `stderr`: the thread that drains a bot's stderr into its tail and its log;
//! - `log`: a bot's log file (`BotLog`);
//! - `safety`: the process-wide nets (the registry of bot groups, signal handlers, the guard,
//!   the subreaper and its sweep);
//! - `status`: how a process ended, in words;
//! - `affinity`: the CPUs a worker and its bots may run on (`--pin-cpus`).
//!
//! The OS limits a bot runs under are `crate::limits`, and what `/proc` says about a process is
//! `crate::procfs`: both lie below this module and import nothing from it.

mod affinity;
mod child;
mod log;
mod safety;
mod status;
mod stderr;
mod wire;
mod words;

pub use affinity::{allowed_cpus, pin_this_thread};
pub use child::{shutdown_all, wait_any, BotProcess};
pub use log::{BotLog, STDERR_LOG_CAP};
pub use safety::{
    become_subreaper, ignore_file_size_signal, install_signal_handlers, interrupted,
    restore_for_child, run_guard, shield_from_bots, strays_killed, sweep_strays, Guard,
    MAX_LIVE_BOTS,
};
pub use status::describe_status;
pub use stderr::{STDERR_RATE_MIB, STDERR_TAIL_BYTES};
pub use wire::{wait_among, wait_any as wire_wait_any, Received, Wire, READ_LIMIT};
pub use words::split_command;

/// The live processes of a bot's group; kept here for callers from before `crate::procfs`.
pub use crate::procfs::group_members;
