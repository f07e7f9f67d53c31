//! Counting: per bot (games, wins, draws, losses, points, discs, places, faults, move times), per
//! seat (the seat bias), and per pair of bots (head to head). Plain sums over the game summaries.

use super::games::GameSummary;
use crate::record::FaultKind;
use crate::rules::Outcome;

/// One bot's totals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BotTally {
    pub games: u32,
    pub wins: u32,
    /// Draws for the whole table in which the bot was not disqualified.
    pub draws: u32,
    /// Every other game: someone else won, or the bot was disqualified.
    pub losses: u32,
    /// 1 per win, the bot's share of the point per draw (see `GameSummary::points`).
    pub points: f64,
    pub discs: u64,
    /// The sum of its fractional places (1 = first).
    pub place_sum: f64,
    /// Disqualifications by kind, in the order of `FaultKind::ALL`.
    pub faults: [u32; FaultKind::ALL.len()],
    /// The moves it played itself (not the referee's opening moves), their total and largest time.
    pub moves: u64,
    pub total_ms: f64,
    pub max_ms: f64,
}

impl BotTally {
    pub fn mean_discs(&self) -> f64 {
        self.discs as f64 / self.games.max(1) as f64
    }
    pub fn mean_place(&self) -> f64 {
        self.place_sum / self.games.max(1) as f64
    }
    pub fn mean_ms(&self) -> f64 {
        self.total_ms / self.moves.max(1) as f64
    }

    /// The mean and the longest time of its moves, for people (2 decimals): `-` for a bot with
    /// no move timed (disqualified before its first), whose 0.00 would read as an instant bot.
    pub fn times_shown(&self) -> (String, String) {
        if self.moves == 0 {
            ("-".into(), "-".into())
        } else {
            (
                format!("{:.2}", self.mean_ms()),
                format!("{:.2}", self.max_ms),
            )
        }
    }
    pub fn fault_total(&self) -> u32 {
        self.faults.iter().sum()
    }
}

/// Totals for every bot (indexed like `Games::names`).
pub fn bots(games: &[GameSummary], bots: usize) -> Vec<BotTally> {
    let mut out = vec![BotTally::default(); bots];
    for g in games {
        for (seat, s) in g.seats.iter().enumerate() {
            let t = &mut out[s.bot as usize];
            t.games += 1;
            match g.result {
                Outcome::Win { winner } if winner == seat => t.wins += 1,
                _ if g.shares_draw(seat) => t.draws += 1,
                _ => t.losses += 1,
            }
            t.points += g.points(seat);
            t.discs += s.score as u64;
            t.place_sum += s.place as f64;
            if let Some(kind) = s.fault {
                t.faults[kind.index()] += 1;
            }
            t.moves += s.moves as u64;
            t.total_ms += s.total_ms;
            t.max_ms = t.max_ms.max(s.max_ms);
        }
    }
    out
}

/// The number of deals each bot played in (indexed like `Games::names`).
pub fn deals(games: &[GameSummary], bots: usize) -> Vec<u32> {
    let mut seen = std::collections::HashSet::new();
    let mut out = vec![0; bots];
    for g in games {
        for s in &g.seats {
            if seen.insert((s.bot, g.deal)) {
                out[s.bot as usize] += 1;
            }
        }
    }
    out
}

/// How one seat did, over the games of one size (3 or 4 players): the seat bias.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeatTally {
    pub players: u8,
    /// 0 moves first.
    pub seat: u8,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub points: f64,
    pub place_sum: f64,
}

impl SeatTally {
    pub fn mean_place(&self) -> f64 {
        self.place_sum / self.games.max(1) as f64
    }

    /// Wins in percent of the games from this seat: the seat bias, against a fair 100/k.
    pub fn win_percent(&self) -> f64 {
        100.0 * self.wins as f64 / self.games.max(1) as f64
    }
}

/// Per game size and seat, the seats' results; only sizes that were played.
pub fn seats(games: &[GameSummary]) -> Vec<SeatTally> {
    let mut by_size: [Vec<SeatTally>; 5] = Default::default();
    for g in games {
        let size = g.seats.len().min(4);
        let row = &mut by_size[size];
        if row.is_empty() {
            *row = (0..size)
                .map(|seat| SeatTally {
                    players: size as u8,
                    seat: seat as u8,
                    ..SeatTally::default()
                })
                .collect();
        }
        for (seat, s) in g.seats.iter().enumerate().take(size) {
            let t = &mut row[seat];
            t.games += 1;
            t.wins += matches!(g.result, Outcome::Win { winner } if winner == seat) as u32;
            t.draws += g.shares_draw(seat) as u32;
            t.points += g.points(seat);
            t.place_sum += s.place as f64;
        }
    }
    by_size.into_iter().flatten().collect()
}

/// How two bots did in the games they both played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Meeting {
    pub games: u32,
    /// Games in which the first bot finished above the second (a better place in the ranking).
    pub above: u32,
    /// Games in which they shared a place.
    pub tied: u32,
}

impl Meeting {
    pub fn below(&self) -> u32 {
        self.games - self.above - self.tied
    }
    /// The share of their games the first bot finished above the second, a shared place counting
    /// half; None if they never met.
    pub fn score(&self) -> Option<f64> {
        (self.games > 0).then(|| (self.above as f64 + self.tied as f64 / 2.0) / self.games as f64)
    }
}

/// The head-to-head table: `table[a][b]` is how bot a did against bot b.
pub fn head_to_head(games: &[GameSummary], bots: usize) -> Vec<Vec<Meeting>> {
    let mut table = vec![vec![Meeting::default(); bots]; bots];
    for g in games {
        for x in &g.seats {
            for y in &g.seats {
                if x.bot == y.bot {
                    continue;
                }
                let m = &mut table[x.bot as usize][y.bot as usize];
                m.games += 1;
                m.above += (x.group < y.group) as u32;
                m.tied += (x.group == y.group) as u32;
            }
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::standings::games::tests::{fault, mv, record};
    use crate::standings::games::Games;

    /// Three hand-worked games of a, b, c, d:
    /// 1. a wins 30-20-10-4 (places a, b, c, d).
    /// 2. a table draw 20-20-14-10, c disqualified for a timeout (places {b, d}, a, c); seats are
    ///    d b a c in this game.
    /// 3. three players c, b, a: b wins 9-12-3 (places b, c, a).
    fn three_games() -> Games {
        let mut games = Games::new();
        let mut g1 = record(
            &["a", "b", "c", "d"],
            &[30, 20, 10, 4],
            &[&[0], &[1], &[2], &[3]],
            Outcome::Win { winner: 0 },
        );
        g1.game = "1".into();
        g1.moves = vec![
            mv(0, 0, 2.0),
            mv(1, 1, 1.0),
            mv(2, 2, 3.0),
            mv(3, 3, 1.0),
            mv(4, 0, 6.0),
        ];
        let mut g2 = record(
            &["d", "b", "a", "c"],
            &[20, 20, 14, 10],
            &[&[0, 1], &[2], &[3]],
            Outcome::Draw,
        );
        g2.game = "2".into();
        g2.faults.push(fault(3, FaultKind::Timeout));
        let mut g3 = record(
            &["c", "b", "a"],
            &[9, 12, 3],
            &[&[1], &[0], &[2]],
            Outcome::Win { winner: 1 },
        );
        g3.game = "3".into();
        for g in [g1, g2, g3] {
            games.add(&g).unwrap();
        }
        games
    }

    fn bot(games: &Games, name: &str) -> usize {
        games.names.iter().position(|n| n == name).unwrap()
    }

    #[test]
    fn bot_totals_by_hand() {
        let games = three_games();
        let t = bots(&games.games, games.names.len());
        let a = &t[bot(&games, "a")];
        assert_eq!((a.games, a.wins, a.draws, a.losses), (3, 1, 1, 1));
        assert!((a.points - (1.0 + 1.0 / 3.0)).abs() < 1e-12);
        assert_eq!(a.discs, 30 + 14 + 3);
        // Places 1, 3 and 3.
        assert!((a.mean_place() - 7.0 / 3.0).abs() < 1e-12);
        assert_eq!((a.moves, a.total_ms, a.max_ms), (2, 8.0, 6.0));
        assert_eq!(a.mean_ms(), 4.0);
        let b = &t[bot(&games, "b")];
        assert_eq!((b.games, b.wins, b.draws, b.losses), (3, 1, 1, 1));
        // Places 2, 1.5 (shared first) and 1.
        assert!((b.mean_place() - 4.5 / 3.0).abs() < 1e-12);
        let c = &t[bot(&games, "c")];
        // Disqualified in the draw: a loss, no share of the point.
        assert_eq!((c.games, c.wins, c.draws, c.losses), (3, 0, 0, 3));
        assert_eq!(c.points, 0.0);
        assert_eq!(c.faults, [1, 0, 0, 0]);
        assert_eq!(c.fault_total(), 1);
        let d = &t[bot(&games, "d")];
        assert_eq!((d.games, d.wins, d.draws, d.losses), (2, 0, 1, 1));
        assert!((d.points - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(d.mean_discs(), 12.0);
        // Every game hands out exactly one point when someone is left to share it.
        let total: f64 = t.iter().map(|t| t.points).sum();
        assert!((total - 3.0).abs() < 1e-12);
    }

    #[test]
    fn seat_bias_by_hand() {
        let games = three_games();
        let s = seats(&games.games);
        assert_eq!(s.len(), 3 + 4);
        let three: Vec<&SeatTally> = s.iter().filter(|t| t.players == 3).collect();
        assert_eq!(
            three.iter().map(|t| t.wins).collect::<Vec<_>>(),
            vec![0, 1, 0]
        );
        assert_eq!(three[0].mean_place(), 2.0);
        let four: Vec<&SeatTally> = s.iter().filter(|t| t.players == 4).collect();
        assert_eq!(
            four.iter().map(|t| t.games).collect::<Vec<_>>(),
            vec![2, 2, 2, 2]
        );
        assert_eq!(
            four.iter().map(|t| t.wins).collect::<Vec<_>>(),
            vec![1, 0, 0, 0]
        );
        assert_eq!(
            four.iter().map(|t| t.draws).collect::<Vec<_>>(),
            vec![1, 1, 1, 0]
        );
        // Seat 0: a win and a third of a point; seat 0's places 1 and 1.5.
        assert!((four[0].points - 4.0 / 3.0).abs() < 1e-12);
        assert_eq!(four[0].mean_place(), 1.25);
    }

    #[test]
    fn head_to_head_by_hand() {
        let games = three_games();
        let h = head_to_head(&games.games, games.names.len());
        let (a, b, c, d) = (
            bot(&games, "a"),
            bot(&games, "b"),
            bot(&games, "c"),
            bot(&games, "d"),
        );
        // a above b in game 1, below in 2 and 3.
        assert_eq!(
            h[a][b],
            Meeting {
                games: 3,
                above: 1,
                tied: 0
            }
        );
        assert_eq!(h[b][a].above, 2);
        // b and d shared first place in game 2; b above d in game 1.
        assert_eq!(
            h[b][d],
            Meeting {
                games: 2,
                above: 1,
                tied: 1
            }
        );
        assert_eq!(
            h[d][b],
            Meeting {
                games: 2,
                above: 0,
                tied: 1
            }
        );
        assert_eq!(h[d][b].score(), Some(0.25));
        assert_eq!(h[d][b].below(), 1);
        // c above a only in game 3.
        assert_eq!(
            h[c][a],
            Meeting {
                games: 3,
                above: 1,
                tied: 0
            }
        );
        assert_eq!(h[a][a].score(), None);
    }
}
