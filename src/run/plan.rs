//! What a front-end hands the runner: the bots, the deals and their games, and the run's
//! policies. Plain data: `match`, `league` (and any later front-end) build a `Run`, and the
//! workers only read it.

pub use crate::connection::BotSpec;
use crate::protocol::TimeControl;
use crate::record::ScheduleRef;
use crate::rules::{Rules, Square};
use std::time::Duration;

use super::records::RecordFile;

/// One game of a deal.
#[derive(Clone, Debug)]
pub struct GamePlan {
    pub id: String,
    pub place: ScheduleRef,
    /// `seating[seat]`: the place in the deal's `bots` of the bot in that seat.
    pub seating: Vec<usize>,
}

/// Games with the same bots, rules and opening, played by one worker with the same processes.
#[derive(Clone, Debug)]
pub struct DealPlan {
    /// The bots, by their place in the run's `bots`.
    pub bots: Vec<usize>,
    pub rules: Rules,
    pub seed: u64,
    pub opening: Vec<Square>,
    /// The games still to play (a resumed run leaves out the finished ones).
    pub games: Vec<GamePlan>,
}

/// What to do with a bot that never once answered `start` (a wrong path, a missing interpreter).
/// With `Stop` and `LeaveOut` the games in which it failed to answer are not recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SilentBots {
    /// Stop the run: every game it plays would be lost (a match, unless `--keep-going`).
    Stop,
    /// Leave it out: skip the deals it is in and go on with the others (a league).
    LeaveOut,
    /// Play on and record its games as lost by its fault (`match --keep-going`).
    PlayOn,
}

/// Bots the caller left out before the run (a league bot whose command cannot work at all):
/// their deals are not in the run's `deals`, and the run's end reports them with the bots left
/// out on the way.
#[derive(Clone, Debug, Default)]
pub struct LeftOut {
    /// The bots, by their place in the run's `bots`.
    pub bots: Vec<usize>,
    /// The games of their deals not played.
    pub games: u64,
}

/// Deals shared with other runs at the same time (the shards of a sequential test, which take
/// the next pair free in schedule order): a worker takes a deal only once `take` says it may.
pub trait Claims: Send + Sync {
    /// Whether this run plays `deal` (an index into the run's `deals`); `Play` lists the schedule
    /// indices of its games that are already recorded elsewhere, to leave out.
    fn take(&self, deal: usize) -> Claim;
    /// The deal's games are all recorded and on disk (`complete`: called once the sync covering
    /// its last game has returned), or the run stopped before.
    fn release(&self, deal: usize, complete: bool);
    /// A deal passed earlier whose taker has since stopped without finishing it, now taken by
    /// this run, with the indices of its games already recorded; asked before every new deal.
    fn retry(&self) -> Option<(usize, Vec<u64>)> {
        None
    }
}

/// What `Claims::take` says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    Play {
        recorded: Vec<u64>,
    },
    /// Another run plays it, or has played it.
    Pass,
}

/// A whole run.
pub struct Run {
    pub bots: Vec<BotSpec>,
    pub deals: Vec<DealPlan>,
    pub time: TimeControl,
    /// How long a bot gets to exit after its stdin closes.
    pub grace: Duration,
    pub concurrency: usize,
    /// Each worker, with the bots it starts, kept on one CPU of its own (`--pin-cpus`; see
    /// `process::allowed_cpus`).
    pub pin_cpus: bool,
    pub restart: bool,
    pub record: Option<RecordFile>,
    pub silent: SilentBots,
    /// Bots left out before the run began.
    pub left_out: LeftOut,
    /// Deals shared with other runs; None: every deal is this run's.
    pub claims: Option<Box<dyn Claims>>,
}

impl Run {
    /// The games the run has to play.
    pub fn total_games(&self) -> u64 {
        self.deals.iter().map(|d| d.games.len() as u64).sum()
    }
}
