//! What a front-end hands the runner: the bots, the deals and their games, and the run's
//! policies. Plain data: `match`, `league` (and any later front-end) build a `Run`, and the
//! workers only read it.

pub use crate::connection::BotSpec;
use crate::protocol::TimeControl;
use crate::record::ScheduleRef;
use crate::rules::{Rules, Square};
use std::sync::Arc;
use std::time::Duration;

use super::records::RecordFile;

/// The most seats a game has (`Rules` takes 3 or 4 players).
pub const MAX_SEATS: usize = 4;

/// One game of a deal, in 16 bytes: a plan holds every game of a run from its start (10,000 and
/// more in a league), so what each game needs beyond its numbers (its id, its place in the
/// schedule, its seating as a list) is made from the deal when the game is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GamePlan {
    /// The game's place in the whole schedule, from 0 (`ScheduleRef::index`).
    pub index: u64,
    /// Which seating of the deal, from 0 (`ScheduleRef::seating`).
    pub seating: u32,
    /// `order[seat]`: the place in the deal's `bots` of the bot in that seat; `u8::MAX` past the
    /// last seat.
    order: [u8; MAX_SEATS],
}

impl GamePlan {
    /// Game `index` of the schedule, in seating number `seating`, whose `order` is at most
    /// `MAX_SEATS` places in a deal's `bots` (a deal has at most `MAX_SEATS` bots).
    pub fn new(index: u64, seating: u32, order: &[usize]) -> GamePlan {
        assert!(order.len() <= MAX_SEATS && order.iter().all(|&i| i < MAX_SEATS));
        let mut packed = [u8::MAX; MAX_SEATS];
        for (slot, &i) in packed.iter_mut().zip(order) {
            *slot = i as u8;
        }
        GamePlan {
            index,
            seating,
            order: packed,
        }
    }

    /// `order()[seat]`: the place in the deal's `bots` of the bot in that seat.
    pub fn order(&self) -> Vec<usize> {
        self.order
            .iter()
            .take_while(|&&i| i != u8::MAX)
            .map(|&i| i as usize)
            .collect()
    }
}

/// What a deal's game ids are numbered by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdNumber {
    /// The game's index in the schedule, from 1 (a match: `RUN-0001`).
    Index,
    /// The game's seating in the deal, from 1 (a league: `…-s01`).
    Seating,
    /// The game's seating in the deal, from 0 (a sequential test's twins: `…-s0`, `…-s1`).
    SeatingFrom0,
}

/// How a deal names its games: `prefix`, then the number, padded with zeros to `width` digits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameIds {
    pub prefix: String,
    pub number: IdNumber,
    pub width: usize,
}

impl GameIds {
    /// The id of one of the deal's games.
    pub fn of(&self, game: &GamePlan) -> String {
        let n = match self.number {
            IdNumber::Index => game.index + 1,
            IdNumber::Seating => game.seating as u64 + 1,
            IdNumber::SeatingFrom0 => game.seating as u64,
        };
        format!("{}{n:0width$}", self.prefix, width = self.width)
    }
}

/// The games of a deal still to play. Usually some of its k! seatings, each game's index the
/// deal's first index plus its seating and its seats in that seating's order (`seating::seating`):
/// then a set of seatings in a few bytes, where a list of 24 games took 384 for every deal of
/// the run from its start (about 0.4 KB a deal, 16 MB over a million-game run). A deal whose
/// games are not those (a sequential test's twins) lists them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DealGames {
    Seatings {
        /// The index of the deal's seating 0.
        first: u64,
        /// Players a game (k).
        players: u8,
        /// Bit s: seating s is to be played.
        seatings: u32,
    },
    Listed(Vec<GamePlan>),
}

impl DealGames {
    /// Of the k! seatings of a deal whose seating 0 is game `first`, those that `keep` takes
    /// (given a seating and its game's index).
    pub fn seatings(first: u64, players: usize, keep: impl Fn(u32, u64) -> bool) -> DealGames {
        let all = super::seating::factorial(players);
        assert!(all <= 32 && players <= MAX_SEATS);
        let seatings = (0..all)
            .filter(|&s| keep(s, first + s as u64))
            .fold(0u32, |mask, s| mask | 1 << s);
        DealGames::Seatings {
            first,
            players: players as u8,
            seatings,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            DealGames::Seatings { seatings, .. } => seatings.count_ones() as usize,
            DealGames::Listed(games) => games.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The games, in order of seating.
    pub fn iter(&self) -> impl Iterator<Item = GamePlan> + '_ {
        // A listed deal is one with no seatings set, and the other way round.
        let ((first, k, mask), listed) = match self {
            DealGames::Seatings {
                first,
                players,
                seatings,
            } => ((*first, *players as usize, *seatings), &[][..]),
            DealGames::Listed(games) => ((0, 0, 0), &games[..]),
        };
        (0..32u32)
            .filter(move |s| mask & 1 << s != 0)
            .map(move |s| GamePlan::new(first + s as u64, s, &super::seating::seating(k, s)))
            .chain(listed.iter().copied())
    }
}

/// Games with the same bots, rules and opening, played by one worker with the same processes
/// (and by idle workers that join it, with processes of their own: `workers`).
#[derive(Clone, Debug)]
pub struct DealPlan {
    /// The bots, by their place in the run's `bots`.
    pub bots: Vec<usize>,
    pub rules: Rules,
    pub seed: u64,
    pub opening: Vec<Square>,
    /// The run's name (`ScheduleRef::run`), one string for every deal of the run.
    pub run: Arc<str>,
    /// The deal's number in the schedule (`ScheduleRef::deal`).
    pub number: u64,
    pub ids: GameIds,
    /// The games still to play (a resumed run leaves out the finished ones).
    pub games: DealGames,
}

impl DealPlan {
    /// A game's id.
    pub fn id(&self, game: &GamePlan) -> String {
        self.ids.of(game)
    }

    /// A game's place in its schedule, as its record holds it.
    pub fn place(&self, game: &GamePlan) -> ScheduleRef {
        ScheduleRef {
            run: self.run.to_string(),
            index: game.index,
            deal: self.number,
            seating: game.seating,
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A deal's seatings as a set give the games a list of them gave, in a few bytes.
    #[test]
    fn a_deals_seatings_give_the_games_of_their_list() {
        use crate::run::seating::{factorial, seating};
        for k in [3, 4] {
            let all = factorial(k);
            let first = 51 * 24;
            // Every seating, some left out (a resumed run), the first 10 (a match's last deal).
            let keeps: [&dyn Fn(u32, u64) -> bool; 3] =
                [&|_, _| true, &|s, _| s % 3 != 1, &|_, g| g < first + 10];
            for keep in keeps {
                let listed: Vec<GamePlan> = (0..all)
                    .filter(|&s| keep(s, first + s as u64))
                    .map(|s| GamePlan::new(first + s as u64, s, &seating(k, s)))
                    .collect();
                let set = DealGames::seatings(first, k, keep);
                assert_eq!(set.iter().collect::<Vec<_>>(), listed);
                assert_eq!(set.len(), listed.len());
                assert_eq!(set.is_empty(), listed.is_empty());
                assert_eq!(
                    DealGames::Listed(listed.clone()).iter().collect::<Vec<_>>(),
                    listed
                );
            }
            assert!(DealGames::seatings(first, k, |_, _| false).is_empty());
        }
        assert!(std::mem::size_of::<DealGames>() <= 24);
    }

    #[test]
    fn a_game_keeps_its_seating_in_16_bytes_and_its_deal_names_it() {
        assert_eq!(std::mem::size_of::<GamePlan>(), 16);
        let g = GamePlan::new(1234, 5, &[2, 0, 3, 1]);
        assert_eq!(g.order(), vec![2, 0, 3, 1]);
        assert_eq!(GamePlan::new(7, 2, &[1, 2, 0]).order(), vec![1, 2, 0]);
        let ids = |number, width| GameIds {
            prefix: "club-r1-1.2.3.4-8x8-s".into(),
            number,
            width,
        };
        assert_eq!(ids(IdNumber::Seating, 2).of(&g), "club-r1-1.2.3.4-8x8-s06");
        assert_eq!(
            ids(IdNumber::SeatingFrom0, 0).of(&g),
            "club-r1-1.2.3.4-8x8-s5"
        );
        assert_eq!(ids(IdNumber::Index, 4).of(&g), "club-r1-1.2.3.4-8x8-s1235");
        let deal = DealPlan {
            bots: vec![0, 1, 2, 3],
            rules: Rules::new(4, crate::rules::BoardKind::Eight, false).unwrap(),
            seed: 1,
            opening: Vec::new(),
            run: "club".into(),
            number: 51,
            ids: ids(IdNumber::Seating, 2),
            games: DealGames::Listed(vec![g]),
        };
        assert_eq!(
            deal.place(&g),
            ScheduleRef {
                run: "club".into(),
                index: 1234,
                deal: 51,
                seating: 5
            }
        );
    }
}
