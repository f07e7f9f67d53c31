//! A second opinion on the rating: Weng–Lin ("A Bayesian approximation method for online
//! ranking", 2011; the Bradley–Terry variant, as the `skillratings` crate implements it), an online
//! update run over the games in the order they were read. It sees the same finishing orders as
//! the Plackett–Luce fit but one game at a time and forgetting nothing it learnt early, so it
//! depends on the order of the games; where the two disagree on the order of bots, the fit's
//! intervals usually overlap as well.

use super::games::GameSummary;
use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::MultiTeamOutcome;

/// A bot's Weng–Lin rating after every game: mean μ (25 at the start) and uncertainty σ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WengLin {
    pub mu: f64,
    pub sigma: f64,
}

/// Runs the update over the games in order, each seat a team of one ranked by its place group
/// (shared places share a rank); returns every bot's final rating.
pub fn ratings(games: &[GameSummary], bots: usize) -> Vec<WengLin> {
    let mut current = vec![WengLinRating::new(); bots];
    for g in games {
        let seats: Vec<(u32, u8)> = g.seats.iter().map(|s| (s.bot, s.group)).collect();
        update(&mut current, &seats);
    }
    current.into_iter().map(of).collect()
}

/// One game's update: `seats` are its bots (indices into `current`) with their place groups.
pub fn update(current: &mut [WengLinRating], seats: &[(u32, u8)]) {
    let config = WengLinConfig::new();
    let teams: Vec<[WengLinRating; 1]> = seats
        .iter()
        .map(|&(bot, _)| [current[bot as usize]])
        .collect();
    let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(seats)
        .map(|(t, &(_, group))| (&t[..], MultiTeamOutcome::new(group as usize + 1)))
        .collect();
    let updated = weng_lin_multi_team(&ranked, &config);
    for (&(bot, _), team) in seats.iter().zip(updated) {
        if let Some(r) = team.first() {
            current[bot as usize] = *r;
        }
    }
}

/// A rating as the standings show it.
pub fn of(r: WengLinRating) -> WengLin {
    WengLin {
        mu: r.rating,
        sigma: r.uncertainty,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Outcome;
    use crate::standings::games::SeatSummary;

    fn game(order: &[u32]) -> GameSummary {
        GameSummary {
            number: 1,
            id: String::new(),
            deal: 0,
            result: Outcome::Win { winner: 0 },
            seats: order
                .iter()
                .enumerate()
                .map(|(g, &bot)| SeatSummary {
                    bot,
                    score: 0,
                    group: g as u8,
                    place: 0.0,
                    fault: None,
                    moves: 0,
                    total_ms: 0.0,
                    max_ms: 0.0,
                })
                .collect(),
        }
    }

    #[test]
    fn winners_go_up_losers_down_uncertainty_shrinks() {
        let games: Vec<GameSummary> = (0..10).map(|_| game(&[2, 0, 1])).collect();
        let r = ratings(&games, 3);
        assert!(r[2].mu > r[0].mu && r[0].mu > r[1].mu, "{r:?}");
        assert!(r[2].mu > 25.0 && r[1].mu < 25.0);
        assert!(r.iter().all(|x| x.sigma < 25.0 / 3.0));
    }

    #[test]
    fn no_games_leave_the_start_rating() {
        let r = ratings(&[], 2);
        assert_eq!(
            r[0],
            WengLin {
                mu: 25.0,
                sigma: 25.0 / 3.0
            }
        );
    }
}
