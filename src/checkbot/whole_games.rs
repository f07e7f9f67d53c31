//! The whole games of the checklist: which seat the bot takes at which table, so that every
//! seat of a 3- and of a 4-player game is played at least once, across the boards and options.

use crate::rules::{BoardKind, Seat};

/// A whole game of the checklist: the bot's seat and the game's options.
pub(super) struct WholeGame {
    pub(super) players: u32,
    pub(super) seat: Seat,
    pub(super) board: BoardKind,
    pub(super) anti: bool,
    pub(super) blocked_random: u32,
}

/// Whole games from every seat of a 4-player and of a 3-player table, across the boards and
/// options, so that every seat is played at least once with each player count.
pub(super) fn whole_games() -> Vec<WholeGame> {
    let game = |players, seat, board, anti, blocked_random| WholeGame {
        players,
        seat,
        board,
        anti,
        blocked_random,
    };
    vec![
        game(4, 0, BoardKind::Eight, false, 0),
        game(4, 1, BoardKind::Ten, false, 0),
        game(4, 2, BoardKind::Octagon, true, 0),
        game(4, 3, BoardKind::Eight, false, 4),
        game(3, 0, BoardKind::Eight, false, 0),
        game(3, 1, BoardKind::Octagon, false, 4),
        game(3, 2, BoardKind::Eight, true, 0),
    ]
}

impl WholeGame {
    /// The check's id in the checklist, such as `game-4p-seat-2`.
    pub(super) fn id(&self) -> String {
        format!("game-{}p-seat-{}", self.players, self.seat)
    }

    pub(super) fn title(&self) -> String {
        format!("whole game: seat {} of {}", self.seat, self.players)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_seat_of_both_table_sizes_plays_a_whole_game() {
        let games = whole_games();
        for players in [3, 4] {
            let mut seats: Vec<Seat> = games
                .iter()
                .filter(|g| g.players == players)
                .map(|g| g.seat)
                .collect();
            seats.sort_unstable();
            assert_eq!(seats, (0..players as usize).collect::<Vec<_>>());
        }
    }
}
