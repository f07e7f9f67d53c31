//! The positions `check-bot` puts in front of a bot, one turn each. Every one is built from the
//! seed alone, so two runs with the same `--seed` send the same bytes; each is made for one thing
//! a bot can get wrong (a board size, a player count, a rule option, a kind of move).

use crate::rng::Rng;
use crate::rules::{BoardKind, Colour, MoveKind, Position, Rules, Seat, Square};

/// One constructed position: the bot plays the seat to move.
pub struct Scenario {
    /// A stable name for machines (`--json`).
    pub id: String,
    /// What the check asks, for people.
    pub title: String,
    pub position: Position,
    /// Whether `start` and `turn` carry fields this protocol version does not define (a later
    /// version may add some; a bot must ignore them).
    pub unknown_fields: bool,
}

impl Scenario {
    /// The seat the bot plays: the one to move.
    pub fn seat(&self) -> Seat {
        self.position.to_move()
    }
}

/// Plays `moves` random legal moves from the start (fewer if the game ends first; it never does
/// for the counts used here).
fn random_game(rules: Rules, moves: u32, rng: &mut Rng) -> Position {
    let mut position = Position::new(rules);
    for _ in 0..moves {
        if position.is_over() {
            break;
        }
        let (legal, _) = position.legal_moves();
        let square = legal[rng.below(legal.len() as u64) as usize];
        // A move from the legal list is always accepted.
        let _ = position.play(square);
    }
    position
}

/// Rules that are valid by construction (3 or 4 players, blocked squares off the centre).
fn rules(players: u32, board: BoardKind, anti: bool, blocked: &[Square]) -> Rules {
    match Rules::with_blocked(players, board, anti, blocked.to_vec()) {
        Ok(rules) => rules,
        Err(e) => unreachable!("check-bot's own rules are valid: {e}"),
    }
}

fn squares(names: &[&str]) -> Vec<Square> {
    names.iter().filter_map(|n| n.parse().ok()).collect()
}

/// The number of playable squares of a board that are still empty.
fn empty_squares(position: &Position) -> u32 {
    position
        .rows()
        .iter()
        .map(|row| row.chars().filter(|&c| c == '.').count() as u32)
        .sum()
}

/// A mid-game position on each board with 3 and with 4 players, after a random number of random
/// moves.
fn boards(rng: &mut Rng) -> Vec<Scenario> {
    let mut out = Vec::new();
    for board in BoardKind::ALL {
        for players in [3, 4] {
            let empty = empty_squares(&Position::new(rules(players, board, false, &[])));
            // Somewhere between the opening and the last quarter of the game.
            let moves = 4 + rng.below(empty as u64 * 3 / 4 - 4) as u32;
            let position = random_game(rules(players, board, false, &[]), moves, rng);
            out.push(Scenario {
                id: format!("board-{}-{players}", board.name()),
                title: format!("legal move: {}, {players} players", board.name()),
                position,
                unknown_fields: false,
            });
        }
    }
    out
}

/// Anti-Reversi: the rules of a move are the same, but a bot that reads the options must cope.
fn anti(rng: &mut Rng) -> Scenario {
    let moves = 8 + rng.below(40) as u32;
    Scenario {
        id: "anti".into(),
        title: "legal move: Anti-Reversi".into(),
        position: random_game(rules(4, BoardKind::Ten, true, &[]), moves, rng),
        unknown_fields: false,
    }
}

/// Blocked squares around the centre, where lines cross them early: a bot that takes `#` for a
/// disc or for an empty square finds moves that do not exist.
fn blocked(rng: &mut Rng) -> Scenario {
    let blocked = squares(&["c3", "f3", "d2", "g5", "c6", "e7", "b4", "f6"]);
    let moves = 6 + rng.below(20) as u32;
    Scenario {
        id: "blocked".into(),
        title: "legal move: blocked squares".into(),
        position: random_game(rules(3, BoardKind::Eight, false, &blocked), moves, rng),
        unknown_fields: false,
    }
}

/// Black to move with discs of its own but no line to close: only placing moves.
fn placing() -> Scenario {
    let rows: Vec<String> = [
        "........", "......G.", "........", "...B....", "........", ".....W..", ".R......",
        "........",
    ]
    .iter()
    .map(|r| r.to_string())
    .collect();
    let position = match Position::from_rows(rules(4, BoardKind::Eight, false, &[]), &rows, 0, 0) {
        Ok(position) => position,
        Err(e) => unreachable!("check-bot's placing position is valid: {e}"),
    };
    Scenario {
        id: "placing".into(),
        title: "legal move: only placing moves".into(),
        position,
        unknown_fields: false,
    }
}

/// A mid-game position where every disc of the seat to move has been turned to another colour:
/// it has none left and can only place.
fn no_discs(rng: &mut Rng) -> Scenario {
    let start = random_game(
        rules(3, BoardKind::Octagon, false, &[]),
        10 + rng.below(30) as u32,
        rng,
    );
    let seat = start.to_move();
    let mine = Colour::of_seat(seat).letter();
    let other = Colour::of_seat((seat + 1) % 3).letter();
    let rows: Vec<String> = start
        .rows()
        .iter()
        .map(|row| row.replace(mine, &other.to_string()))
        .collect();
    let position = match Position::from_rows(start.rules().clone(), &rows, seat, start.ply()) {
        Ok(position) => position,
        Err(e) => unreachable!("check-bot's recoloured position is valid: {e}"),
    };
    Scenario {
        id: "no-discs".into(),
        title: "legal move: no discs of its own".into(),
        position,
        unknown_fields: false,
    }
}

/// A board full but for one square, which the bot must play; the game then ends.
fn last_square(rng: &mut Rng) -> Scenario {
    let rules = rules(4, BoardKind::Eight, false, &[]);
    let empty = empty_squares(&Position::new(rules.clone()));
    Scenario {
        id: "last-square".into(),
        title: "legal move: the last empty square".into(),
        position: random_game(rules, empty - 1, rng),
        unknown_fields: false,
    }
}

/// An ordinary position, but its messages carry fields and values of a later protocol version.
fn unknown_fields(rng: &mut Rng) -> Scenario {
    let moves = 4 + rng.below(20) as u32;
    Scenario {
        id: "unknown-fields".into(),
        title: "legal move: unknown fields".into(),
        position: random_game(rules(3, BoardKind::Eight, false, &[]), moves, rng),
        unknown_fields: true,
    }
}

/// Every constructed position, in the order they are checked.
pub fn scenarios(seed: u64) -> Vec<Scenario> {
    let mut rng = Rng::new(seed);
    let mut out = boards(&mut rng);
    out.push(anti(&mut rng));
    out.push(blocked(&mut rng));
    out.push(placing());
    out.push(no_discs(&mut rng));
    out.push(last_square(&mut rng));
    out.push(unknown_fields(&mut rng));
    out
}

/// Whether a position's legal moves are placing moves (for the tests and the summary line).
pub fn is_placing(position: &Position) -> bool {
    position.legal_moves().1 == MoveKind::Placing
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find<'a>(all: &'a [Scenario], id: &str) -> &'a Scenario {
        all.iter().find(|s| s.id == id).unwrap()
    }

    #[test]
    fn every_scenario_is_a_position_with_moves() {
        for seed in 0..20 {
            for s in scenarios(seed) {
                assert!(!s.position.is_over(), "{} (seed {seed}) is over", s.id);
                assert!(!s.position.legal_moves().0.is_empty());
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_positions_and_another_seed_others() {
        let rows = |seed| {
            scenarios(seed)
                .iter()
                .map(|s| s.position.rows())
                .collect::<Vec<_>>()
        };
        assert_eq!(rows(7), rows(7));
        assert_ne!(rows(7), rows(8));
    }

    #[test]
    fn each_special_position_is_what_its_name_says() {
        for seed in 0..20 {
            let all = scenarios(seed);
            let ids: Vec<&str> = all.iter().map(|s| s.id.as_str()).collect();
            for board in ["8x8", "10x10", "octagon"] {
                for players in [3, 4] {
                    let s = find(&all, &format!("board-{board}-{players}"));
                    assert_eq!(s.position.rules().board.name(), board);
                    assert_eq!(s.position.rules().players, players);
                }
            }
            assert!(find(&all, "anti").position.rules().anti);
            assert!(!find(&all, "blocked").position.rules().blocked.is_empty());
            let placing = find(&all, "placing");
            assert!(is_placing(&placing.position));
            assert!(placing.position.scores()[placing.seat()] > 0);
            let none = find(&all, "no-discs");
            assert_eq!(none.position.scores()[none.seat()], 0, "seed {seed}");
            assert!(is_placing(&none.position));
            let last = find(&all, "last-square");
            assert_eq!(last.position.legal_moves().0.len(), 1);
            assert_eq!(empty_squares(&last.position), 1);
            let mut after = last.position.clone();
            after.play(after.legal_moves().0[0]).unwrap();
            assert!(after.is_over());
            assert_eq!(ids.len(), 12);
            assert!(find(&all, "unknown-fields").unknown_fields);
        }
    }
}
