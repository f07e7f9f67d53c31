//! The validated game position that the referee, the records and replay use. It wraps the fast
//! bitboard core of the right size and speaks in squares, seats and reasons; every move that
//! comes from outside passes the one legality gate, `Position::play`.

use super::bitboard::{Bits, Board, MoveKind, NEUTRAL};
use super::setup::Rules;
use super::square::Square;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// Seat numbers in move order; seat 0 is Black.
pub type Seat = usize;

/// The four colours in seat order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Colour {
    Black,
    White,
    Red,
    Green,
}

impl Colour {
    pub const ALL: [Colour; 4] = [Colour::Black, Colour::White, Colour::Red, Colour::Green];

    pub fn of_seat(seat: Seat) -> Colour {
        Colour::ALL[seat % 4]
    }

    pub fn name(self) -> &'static str {
        match self {
            Colour::Black => "black",
            Colour::White => "white",
            Colour::Red => "red",
            Colour::Green => "green",
        }
    }

    /// The character for this colour's discs in board rows.
    pub fn letter(self) -> char {
        match self {
            Colour::Black => 'B',
            Colour::White => 'W',
            Colour::Red => 'R',
            Colour::Green => 'G',
        }
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a square holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    Empty,
    Disc(Colour),
    Neutral,
    Blocked,
    OffBoard,
}

impl Cell {
    /// The character used in board rows (protocol, records, plain text): `B W R G` for discs,
    /// `N` neutral, `.` empty, `#` blocked, `-` not part of the board.
    pub fn letter(self) -> char {
        match self {
            Cell::Empty => '.',
            Cell::Disc(c) => c.letter(),
            Cell::Neutral => 'N',
            Cell::Blocked => '#',
            Cell::OffBoard => '-',
        }
    }
}

/// Why a move was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IllegalReason {
    GameOver,
    OffBoard,
    Blocked,
    Occupied,
    /// A placing move while the player has a flipping move.
    FlipsNothing,
    /// A placing move on a square that touches no disc.
    TouchesNoDisc,
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IllegalReason::GameOver => "the game is over",
            IllegalReason::OffBoard => "the square is not on the board",
            IllegalReason::Blocked => "the square is blocked",
            IllegalReason::Occupied => "the square is occupied",
            IllegalReason::FlipsNothing => "the move flips nothing while a flipping move exists",
            IllegalReason::TouchesNoDisc => "the square touches no disc",
        })
    }
}

/// An illegal move, with the square and the reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    pub square: Square,
    pub reason: IllegalReason,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move {}: {}", self.square, self.reason)
    }
}

impl std::error::Error for IllegalMove {}

/// A move as played: who, where, what it flipped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayedMove {
    pub seat: Seat,
    pub square: Square,
    pub kind: MoveKind,
    /// Flipped squares in board order (row by row).
    pub flips: Vec<Square>,
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Outcome {
    Win { winner: Seat },
    Draw,
}

impl Outcome {
    /// The outcome from the scores: the most discs wins (the fewest with Anti-Reversi); a tie for
    /// the best count is a draw for the whole table. Only seats in `eligible` can win or tie;
    /// the referee uses this to rank disqualified bots below everyone.
    pub fn decide(scores: &[u32], anti: bool, eligible: &[bool]) -> Outcome {
        let candidates = || {
            scores
                .iter()
                .enumerate()
                .filter(|&(s, _)| eligible.get(s).copied().unwrap_or(false))
        };
        let best = if anti {
            candidates().map(|(_, &n)| n).min()
        } else {
            candidates().map(|(_, &n)| n).max()
        };
        let Some(best) = best else {
            return Outcome::Draw;
        };
        let mut leaders = candidates().filter(|&(_, &n)| n == best);
        match (leaders.next(), leaders.next()) {
            (Some((seat, _)), None) => Outcome::Win { winner: seat },
            _ => Outcome::Draw,
        }
    }
}

/// Places, best first: seats in `eligible` by score (the most discs first, the fewest with
/// Anti-Reversi), equal scores sharing a place; then every other seat (disqualified by the
/// referee) together in the last place. The referee records this and `replay --verify` checks it.
pub fn ranking(scores: &[u32], anti: bool, eligible: &[bool]) -> Vec<Vec<Seat>> {
    let in_game = |s: Seat| eligible.get(s).copied().unwrap_or(false);
    let mut seats: Vec<Seat> = (0..scores.len()).filter(|&s| in_game(s)).collect();
    seats.sort_by_key(|&s| {
        if anti {
            scores[s] as i64
        } else {
            -(scores[s] as i64)
        }
    });
    let mut places: Vec<Vec<Seat>> = Vec::new();
    for s in seats {
        match places.last_mut() {
            Some(place) if scores[place[0]] == scores[s] => place.push(s),
            _ => places.push(vec![s]),
        }
    }
    let out: Vec<Seat> = (0..scores.len()).filter(|&s| !in_game(s)).collect();
    if !out.is_empty() {
        places.push(out);
    }
    places
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Core {
    Small(Board<u64>),
    Large(Board<u128>),
}

/// Runs the same code on whichever bitboard size the position has.
macro_rules! with_board {
    ($core:expr, $b:ident => $body:expr) => {
        match $core {
            Core::Small($b) => $body,
            Core::Large($b) => $body,
        }
    };
}

/// A position of a game with validated rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    rules: Arc<Rules>,
    core: Core,
    ply: u32,
}

fn start_board<B: Bits>(rules: &Rules) -> Board<B> {
    let side = rules.side();
    let mut playable = B::ZERO;
    for sq in rules.board.squares() {
        if !rules.blocked.contains(&sq) {
            playable |= B::bit(sq.index(side));
        }
    }
    let mut discs = [B::ZERO; 5];
    for (i, sq) in rules.board.centre().iter().enumerate() {
        let owner = if i == 3 && rules.players == 3 {
            NEUTRAL
        } else {
            i
        };
        discs[owner] |= B::bit(sq.index(side));
    }
    let occupied = discs.iter().fold(B::ZERO, |a, &d| a | d);
    Board {
        discs,
        occupied,
        playable,
        players: rules.players,
        to_move: 0,
        out: 0,
    }
}

fn squares_of<B: Bits>(set: B, side: u8) -> Vec<Square> {
    set.iter().map(|i| Square::from_index(i, side)).collect()
}

/// The same set of squares in a (possibly) smaller bitboard type.
fn narrow<B: Bits>(wide: u128) -> B {
    wide.iter().fold(B::ZERO, |acc, i| acc | B::bit(i))
}

fn set_of<B: Bits>(squares: &[Square], side: u8) -> B {
    squares
        .iter()
        .fold(B::ZERO, |acc, sq| acc | B::bit(sq.index(side)))
}

impl Position {
    /// The starting position.
    pub fn new(rules: Rules) -> Position {
        let core = if rules.side() == 8 {
            Core::Small(start_board(&rules))
        } else {
            Core::Large(start_board(&rules))
        };
        Position {
            rules: Arc::new(rules),
            core,
            ply: 0,
        }
    }

    /// A position from board rows as the protocol and records write them (see `Cell::letter`),
    /// with the seat to move and the number of moves played. This lets a bot be stateless and a
    /// record be checked. Every character must agree with the board's shape and blocked squares.
    pub fn from_rows(
        rules: Rules,
        rows: &[String],
        to_move: Seat,
        ply: u32,
    ) -> Result<Position, String> {
        let n = rules.side() as usize;
        if rows.len() != n {
            return Err(format!("{} rows for a board of {n} rows", rows.len()));
        }
        if to_move >= rules.players as usize {
            return Err(format!(
                "seat {to_move} to move in a {}-player game",
                rules.players
            ));
        }
        let mut position = Position::new(rules);
        let side = position.rules.side();
        let mut discs = [0u128; 5];
        for (row, text) in rows.iter().enumerate() {
            let chars: Vec<char> = text.chars().collect();
            if chars.len() != n {
                return Err(format!(
                    "row {} has {} squares, not {n}",
                    row + 1,
                    chars.len()
                ));
            }
            for (col, &c) in chars.iter().enumerate() {
                let sq = Square::new(col as u8, row as u8);
                let expected = match position.cell(sq) {
                    Cell::OffBoard => Some('-'),
                    Cell::Blocked => Some('#'),
                    _ => None,
                };
                let owner = match (expected, c) {
                    (Some(e), c) if c == e => continue,
                    (Some(e), c) => return Err(format!("square {sq} is '{c}' but must be '{e}'")),
                    (None, '.') => continue,
                    (None, 'N') => NEUTRAL,
                    (None, c) => match Colour::ALL.iter().position(|col| col.letter() == c) {
                        Some(seat) if seat < position.rules.players as usize => seat,
                        _ => {
                            return Err(format!(
                                "square {sq} holds '{c}', which is no disc of this game"
                            ))
                        }
                    },
                };
                discs[owner] |= 1u128 << sq.index(side);
            }
        }
        with_board!(&mut position.core, b => {
            for (d, &bits) in b.discs.iter_mut().zip(discs.iter()) {
                *d = narrow(bits);
            }
            b.occupied = b.discs.iter().fold(Bits::ZERO, |a, &d| a | d);
            b.to_move = to_move as u8;
        });
        position.ply = ply;
        Ok(position)
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Number of moves played so far.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The seat to move (meaningless once the game is over).
    pub fn to_move(&self) -> Seat {
        with_board!(&self.core, b => b.to_move as Seat)
    }

    pub fn is_over(&self) -> bool {
        with_board!(&self.core, b => b.is_over())
    }

    /// The legal moves in board order and their kind; empty once the game is over.
    pub fn legal_moves(&self) -> (Vec<Square>, MoveKind) {
        let mut moves = Vec::new();
        let kind = self.legal_moves_into(&mut moves);
        (moves, kind)
    }

    /// `legal_moves` written over `out`: the referee keeps one list for a whole game rather
    /// than allocating one every turn.
    pub fn legal_moves_into(&self, out: &mut Vec<Square>) -> MoveKind {
        let side = self.rules.side();
        out.clear();
        with_board!(&self.core, b => {
            let (moves, kind) = b.legal_moves();
            out.extend(moves.iter().map(|i| Square::from_index(i, side)));
            kind
        })
    }

    pub fn cell(&self, sq: Square) -> Cell {
        if !self.rules.board.contains(sq) {
            return Cell::OffBoard;
        }
        if self.rules.blocked.contains(&sq) {
            return Cell::Blocked;
        }
        let i = sq.index(self.rules.side());
        with_board!(&self.core, b => {
            match b.discs.iter().position(|d| d.has(i)) {
                None => Cell::Empty,
                Some(NEUTRAL) => Cell::Neutral,
                Some(seat) => Cell::Disc(Colour::of_seat(seat)),
            }
        })
    }

    /// The board as one string per row, top row first, in the characters of `Cell::letter`.
    pub fn rows(&self) -> Vec<String> {
        let side = self.rules.side() as usize;
        let mut cells = Vec::with_capacity(side * side);
        self.cells_into(&mut cells);
        cells
            .chunks(side.max(1))
            // Only ASCII letters from `cells_into`'s table.
            .map(|row| String::from_utf8(row.to_vec()).unwrap_or_default())
            .collect()
    }

    /// The board's squares row by row, top row first, `side` to a row, in the characters of
    /// `Cell::letter`, written over `out`: `rows` without a string per row. Read straight from
    /// the bitboards, a set at a time: the referee sends this with every turn, and going
    /// through `cell` square by square cost more than the rest of a move's work together.
    pub fn cells_into(&self, out: &mut Vec<u8>) {
        let n = self.rules.side() as u32;
        let squares = (n * n) as usize;
        let letters: [u8; 5] = [b'B', b'W', b'R', b'G', b'N'];
        out.clear();
        out.resize(squares, b'.');
        with_board!(&self.core, b => {
            // Not playable: blocked if the board's shape holds it, else off the board.
            for i in (!b.playable).iter().take_while(|&i| (i as usize) < squares) {
                let sq = Square::new((i % n) as u8, (i / n) as u8);
                if let Some(c) = out.get_mut(i as usize) {
                    *c = if self.rules.board.contains(sq) { b'#' } else { b'-' };
                }
            }
            // An occupied square shows the first set holding it (seats in order, then the
            // neutral discs), and a neutral disc if none does: the sets are written last first.
            let held = b.discs[1..].iter().fold(b.discs[0], |a, &d| a | d);
            let sets = std::iter::once((NEUTRAL, b.occupied & !held))
                .chain(b.discs.iter().enumerate().rev().map(|(owner, &d)| (owner, d & b.occupied)));
            for (owner, set) in sets {
                for i in set.iter() {
                    if let Some(c) = out.get_mut(i as usize) {
                        *c = letters[owner];
                    }
                }
            }
        })
    }

    /// Each seat's number of discs of its own colour (neutral discs count for nobody).
    pub fn scores(&self) -> Vec<u32> {
        with_board!(&self.core, b => b.scores())
    }

    /// The outcome once the game is over, among all seats still in the game.
    pub fn outcome(&self) -> Option<Outcome> {
        if !self.is_over() {
            return None;
        }
        Some(Outcome::decide(
            &self.scores(),
            self.rules.anti,
            &self.in_game(),
        ))
    }

    /// For each seat, whether it still takes turns (not removed by `remove_seat`).
    pub fn in_game(&self) -> Vec<bool> {
        let out = with_board!(&self.core, b => b.out);
        (0..self.rules.players as usize)
            .map(|s| out & (1 << s) == 0)
            .collect()
    }

    /// Takes a seat out of the turn order: its discs stay, its turns are skipped from now on. This
    /// is the referee's sanction for a faulty bot, not a rule of the game. Removing the last seat
    /// still in the game is refused (returns false).
    pub fn remove_seat(&mut self, seat: Seat) -> bool {
        let players = self.rules.players as usize;
        with_board!(&mut self.core, b => {
            let out = b.out | (1 << seat);
            if seat >= players || out.count_ones() as usize >= players {
                return false;
            }
            b.out = out;
            if b.to_move as Seat == seat {
                b.to_move = b.next_seat(b.to_move);
            }
            true
        })
    }

    /// Checks a move of the player to move and says what it would do, without playing it.
    pub fn check(&self, sq: Square) -> Result<PlayedMove, IllegalMove> {
        let illegal = |reason| IllegalMove { square: sq, reason };
        if !self.rules.board.contains(sq) {
            return Err(illegal(IllegalReason::OffBoard));
        }
        if self.rules.blocked.contains(&sq) {
            return Err(illegal(IllegalReason::Blocked));
        }
        let side = self.rules.side();
        let i = sq.index(side);
        with_board!(&self.core, b => {
            if b.is_over() {
                return Err(illegal(IllegalReason::GameOver));
            }
            if b.occupied.has(i) {
                return Err(illegal(IllegalReason::Occupied));
            }
            let flipped = b.flips(i);
            let kind = if !flipped.is_empty() {
                MoveKind::Flipping
            } else if !b.flipping_moves().is_empty() {
                return Err(illegal(IllegalReason::FlipsNothing));
            } else if !b.placing_moves().has(i) {
                return Err(illegal(IllegalReason::TouchesNoDisc));
            } else {
                MoveKind::Placing
            };
            Ok(PlayedMove {
                seat: b.to_move as Seat,
                square: sq,
                kind,
                flips: squares_of(flipped, side),
            })
        })
    }

    /// The legality gate: plays a move of the player to move, or returns why it is illegal and
    /// leaves the position unchanged.
    pub fn play(&mut self, sq: Square) -> Result<PlayedMove, IllegalMove> {
        let played = self.check(sq)?;
        let side = self.rules.side();
        let i = sq.index(side);
        with_board!(&mut self.core, b => {
            b.play_unchecked(i, set_of(&played.flips, side));
        });
        self.ply += 1;
        Ok(played)
    }

    /// Counts the move sequences of exactly `depth` moves from here (see RULES.md).
    pub fn perft(&self, depth: u32) -> u64 {
        with_board!(&self.core, b => super::bitboard::perft(b, depth))
    }

    /// The 8×8 core, for code that searches on bitboards directly (bots).
    pub fn small_board(&self) -> Option<&Board<u64>> {
        match &self.core {
            Core::Small(b) => Some(b),
            Core::Large(_) => None,
        }
    }

    /// The 10×10 / Octagon core, for code that searches on bitboards directly (bots).
    pub fn large_board(&self) -> Option<&Board<u128>> {
        match &self.core {
            Core::Large(b) => Some(b),
            Core::Small(_) => None,
        }
    }
}

impl fmt::Display for Position {
    /// A plain-text board with coordinates, as `--show` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.rules.side();
        write!(f, "   ")?;
        for col in 0..n {
            write!(f, " {}", (b'a' + col) as char)?;
        }
        writeln!(f)?;
        for (row, text) in self.rows().iter().enumerate() {
            write!(f, "{:>3}", row + 1)?;
            for c in text.chars() {
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::BoardKind;

    /// The rows read a set at a time say what `cell` says square by square, on every board,
    /// with blocked squares, the neutral disc and a seat taken out, all through random games.
    #[test]
    fn rows_say_what_each_cell_holds() {
        let mut rng = crate::rng::Rng::new(5);
        for board in BoardKind::ALL {
            for players in [3, 4] {
                for blocked in ["", "c3,h2,b7"] {
                    let blocked = crate::rules::parse_square_list(blocked).unwrap();
                    let rules = Rules::with_blocked(players, board, false, blocked).unwrap();
                    let side = rules.side();
                    let mut position = Position::new(rules);
                    loop {
                        let rows = position.rows();
                        assert_eq!(rows.len(), side as usize);
                        for (row, text) in rows.iter().enumerate() {
                            let cells: String = (0..side)
                                .map(|col| position.cell(Square::new(col, row as u8)).letter())
                                .collect();
                            assert_eq!(text, &cells, "{board} row {row}");
                        }
                        if position.ply() == 7 {
                            position.remove_seat(1);
                        }
                        let (legal, _) = position.legal_moves();
                        if legal.is_empty() {
                            break;
                        }
                        let square = legal[rng.below(legal.len() as u64) as usize];
                        position.play(square).unwrap();
                    }
                }
            }
        }
    }
}
