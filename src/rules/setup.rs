//! Game options in two stages, like a chess library's unvalidated setup and validated position:
//! `Setup` is whatever a person or a file asked for; `Rules` exists only once every part of it has
//! been checked, so the rest of the program never meets a 5-player game or a blocked centre square.

use super::square::{parse_square_list, Square};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The three boards of this variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BoardKind {
    #[serde(rename = "8x8")]
    Eight,
    #[serde(rename = "10x10")]
    Ten,
    #[serde(rename = "octagon")]
    Octagon,
}

impl BoardKind {
    pub const ALL: [BoardKind; 3] = [BoardKind::Eight, BoardKind::Ten, BoardKind::Octagon];

    pub fn name(self) -> &'static str {
        match self {
            BoardKind::Eight => "8x8",
            BoardKind::Ten => "10x10",
            BoardKind::Octagon => "octagon",
        }
    }

    /// Width and height: every board is square.
    pub fn side(self) -> u8 {
        match self {
            BoardKind::Eight => 8,
            BoardKind::Ten | BoardKind::Octagon => 10,
        }
    }

    /// Whether a square is part of the board's shape (before any blocking).
    pub fn contains(self, sq: Square) -> bool {
        let n = self.side();
        if sq.col >= n || sq.row >= n {
            return false;
        }
        if self == BoardKind::Octagon {
            // Three squares cut from each corner: the corner and its two neighbours on the edges.
            let c = sq.col.min(n - 1 - sq.col);
            let r = sq.row.min(n - 1 - sq.row);
            return c + r >= 2;
        }
        true
    }

    /// The four central squares, clockwise from the top-left: Black, White, Red, then Green or
    /// the neutral disc.
    pub fn centre(self) -> [Square; 4] {
        let lo = self.side() / 2 - 1;
        let hi = lo + 1;
        [
            Square::new(lo, lo),
            Square::new(hi, lo),
            Square::new(hi, hi),
            Square::new(lo, hi),
        ]
    }

    pub fn squares(self) -> impl Iterator<Item = Square> {
        let n = self.side();
        (0..n)
            .flat_map(move |row| (0..n).map(move |col| Square::new(col, row)))
            .filter(move |&sq| self.contains(sq))
    }
}

impl fmt::Display for BoardKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for BoardKind {
    type Err = SetupError;
    fn from_str(s: &str) -> Result<BoardKind, SetupError> {
        match s.to_ascii_lowercase().as_str() {
            "8x8" | "8" => Ok(BoardKind::Eight),
            "10x10" | "10" => Ok(BoardKind::Ten),
            "octagon" => Ok(BoardKind::Octagon),
            _ => Err(SetupError::UnknownBoard(s.to_string())),
        }
    }
}

/// Game options as asked for, not yet checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub players: u32,
    pub board: String,
    pub anti: bool,
    /// Explicit blocked squares, e.g. `c3,f6`.
    pub blocked: String,
    /// How many further squares to block at random, drawn from `seed`.
    pub blocked_random: u32,
    pub seed: u64,
}

impl Default for Setup {
    fn default() -> Setup {
        Setup {
            players: 4,
            board: "8x8".into(),
            anti: false,
            blocked: String::new(),
            blocked_random: 0,
            seed: 0,
        }
    }
}

/// Everything wrong a setup can be, each naming the culprit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    UnknownBoard(String),
    PlayerCount(u32),
    BadSquare(String),
    BlockedOffBoard(Square, BoardKind),
    BlockedCentre(Square),
    BlockedTwice(Square),
    TooManyBlocked { asked: u32, free: u32 },
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::UnknownBoard(b) => {
                write!(f, "unknown board '{b}' (choose 8x8, 10x10 or octagon)")
            }
            SetupError::PlayerCount(n) => {
                write!(f, "{n} players: this game is for 3 or 4 players")
            }
            SetupError::BadSquare(e) => write!(f, "blocked squares: {e}"),
            SetupError::BlockedOffBoard(sq, b) => {
                write!(f, "blocked square {sq} is not on the {b} board")
            }
            SetupError::BlockedCentre(sq) => write!(
                f,
                "blocked square {sq} is one of the four central squares, which are never blocked"
            ),
            SetupError::BlockedTwice(sq) => write!(f, "blocked square {sq} is listed twice"),
            SetupError::TooManyBlocked { asked, free } => write!(
                f,
                "cannot block {asked} squares: only {free} squares outside the centre are free"
            ),
        }
    }
}

impl std::error::Error for SetupError {}

/// Checked game options. The blocked squares are the actual ones (random draws resolved), sorted,
/// so a record holds everything needed to replay the game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rules {
    pub players: u8,
    pub board: BoardKind,
    pub anti: bool,
    pub blocked: Vec<Square>,
}

impl Rules {
    /// Plain rules without blocked squares; the player count must be 3 or 4.
    pub fn new(players: u32, board: BoardKind, anti: bool) -> Result<Rules, SetupError> {
        Rules::with_blocked(players, board, anti, Vec::new())
    }

    pub fn with_blocked(
        players: u32,
        board: BoardKind,
        anti: bool,
        blocked: Vec<Square>,
    ) -> Result<Rules, SetupError> {
        if !(3..=4).contains(&players) {
            return Err(SetupError::PlayerCount(players));
        }
        let centre = board.centre();
        let mut seen: Vec<Square> = Vec::with_capacity(blocked.len());
        for &sq in &blocked {
            if !board.contains(sq) {
                return Err(SetupError::BlockedOffBoard(sq, board));
            }
            if centre.contains(&sq) {
                return Err(SetupError::BlockedCentre(sq));
            }
            if seen.contains(&sq) {
                return Err(SetupError::BlockedTwice(sq));
            }
            seen.push(sq);
        }
        seen.sort_by_key(|sq| (sq.row, sq.col));
        Ok(Rules {
            players: players as u8,
            board,
            anti,
            blocked: seen,
        })
    }

    /// Validates a setup, drawing the random blocked squares (if any) from its seed among the
    /// squares that are neither central nor already blocked.
    pub fn from_setup(setup: &Setup) -> Result<Rules, SetupError> {
        let board: BoardKind = setup.board.parse()?;
        let mut blocked =
            parse_square_list(&setup.blocked).map_err(|e| SetupError::BadSquare(e.to_string()))?;
        // Validate the explicit list first so its errors name the user's squares.
        Rules::with_blocked(setup.players, board, setup.anti, blocked.clone())?;
        if setup.blocked_random > 0 {
            let centre = board.centre();
            let mut free: Vec<Square> = board
                .squares()
                .filter(|sq| !centre.contains(sq) && !blocked.contains(sq))
                .collect();
            if setup.blocked_random as usize > free.len() {
                return Err(SetupError::TooManyBlocked {
                    asked: setup.blocked_random,
                    free: free.len() as u32,
                });
            }
            let mut rng = Rng::new(setup.seed);
            for _ in 0..setup.blocked_random {
                let i = rng.below(free.len() as u64) as usize;
                blocked.push(free.swap_remove(i));
            }
        }
        Rules::with_blocked(setup.players, board, setup.anti, blocked)
    }

    pub fn side(&self) -> u8 {
        self.board.side()
    }

    /// Whether a disc can ever stand on this square.
    pub fn is_playable(&self, sq: Square) -> bool {
        self.board.contains(sq) && !self.blocked.contains(&sq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(players: u32, board: &str, blocked: &str) -> Setup {
        Setup {
            players,
            board: board.into(),
            blocked: blocked.into(),
            ..Setup::default()
        }
    }

    #[test]
    fn octagon_has_88_squares_and_lacks_the_corners() {
        assert_eq!(BoardKind::Octagon.squares().count(), 88);
        assert_eq!(BoardKind::Ten.squares().count(), 100);
        assert_eq!(BoardKind::Eight.squares().count(), 64);
        for name in [
            "a1", "b1", "a2", "i1", "j1", "j2", "a9", "a10", "b10", "j9", "i10", "j10",
        ] {
            assert!(
                !BoardKind::Octagon.contains(name.parse().unwrap()),
                "{name}"
            );
        }
        for name in ["c1", "a3", "b2", "h1", "i2", "j3", "b9", "i9", "c10"] {
            assert!(BoardKind::Octagon.contains(name.parse().unwrap()), "{name}");
        }
    }

    #[test]
    fn errors_name_the_culprit() {
        let err = |s: Setup| Rules::from_setup(&s).unwrap_err().to_string();
        assert!(err(setup(4, "9x9", "")).contains("'9x9'"));
        assert!(err(setup(2, "8x8", "")).contains("2 players"));
        assert!(err(setup(5, "8x8", "")).contains("5 players"));
        assert!(err(setup(4, "8x8", "i9")).contains("i9 is not on the 8x8"));
        assert!(err(setup(4, "octagon", "a1")).contains("a1 is not on the octagon"));
        assert!(err(setup(4, "8x8", "e5")).contains("e5 is one of the four central"));
        assert!(err(setup(4, "8x8", "c3,f6,c3")).contains("c3 is listed twice"));
        assert!(err(setup(4, "8x8", "c3,x")).contains("'x'"));
    }

    #[test]
    fn random_blocked_squares_come_from_the_seed() {
        let mut s = setup(3, "10x10", "c3");
        s.blocked_random = 6;
        s.seed = 42;
        let a = Rules::from_setup(&s).unwrap();
        let b = Rules::from_setup(&s).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.blocked.len(), 7);
        assert!(a.blocked.contains(&"c3".parse().unwrap()));
        s.seed = 43;
        assert_ne!(Rules::from_setup(&s).unwrap().blocked, a.blocked);
        s.blocked_random = 200;
        assert!(matches!(
            Rules::from_setup(&s),
            Err(SetupError::TooManyBlocked { .. })
        ));
    }
}
