//! A second, deliberately simple implementation of RULES.md, and the tests that hold the fast
//! bitboard engine to it.
//!
//! The reference below is written for clarity, not speed: a grid of cells, a walk in each of the
//! eight directions, and every rule spelt out where RULES.md states it. It shares no code with
//! `src/rules` except square names (the `Square` type, used only to talk to the engine). When the
//! two disagree, the reference is the one a reader can check against RULES.md line by line.
//!
//! The tests compare the two over thousands of random games from fixed seeds, on every board,
//! with three and four players, with and without Anti-Reversi and blocked squares, at every ply:
//! the whole board, the legal moves and their kind, the flips of every legal move, the refusal
//! of stray squares, the scores, the end and the outcome. Perft regression values are checked by
//! the reference in the same test that checks the engine against them.

use multiversi::rng::Rng;
use multiversi::rules::{
    BoardKind, IllegalReason, MoveKind, Outcome, Position, Rules, Setup, Square,
};

// ---------------------------------------------------------------------------------------------
// The reference implementation
// ---------------------------------------------------------------------------------------------

/// What one square of the reference grid holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cell {
    /// Not part of the board's shape (outside the grid, or an Octagon corner).
    Off,
    Blocked,
    Empty,
    /// A disc of a seat's colour.
    Disc(usize),
    /// The neutral disc of a three-player game.
    Neutral,
}

impl Cell {
    /// A disc of any colour, the neutral one included ("a disc" in RULES.md).
    fn is_disc(self) -> bool {
        matches!(self, Cell::Disc(_) | Cell::Neutral)
    }
}

/// The eight directions as (column step, row step).
const DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (-1, 1),
    (1, -1),
    (-1, -1),
];

/// The squares the Octagon lacks, as RULES.md lists them.
const OCTAGON_CUT: [&str; 12] = [
    "a1", "b1", "a2", "i1", "j1", "j2", "a9", "a10", "b10", "j9", "i10", "j10",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Flipping,
    Placing,
}

/// Why the reference refuses a move, in the order it checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    OffBoard,
    Blocked,
    GameOver,
    Occupied,
    FlipsNothing,
    TouchesNoDisc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Winner(usize),
    Draw,
}

/// A square as (column, row), counted from zero at the top-left corner.
type Sq = (usize, usize);

#[derive(Clone, Debug)]
struct Game {
    side: usize,
    /// `cells[row][col]`.
    cells: Vec<Vec<Cell>>,
    players: usize,
    anti: bool,
    to_move: usize,
    /// Seats the referee took out of the turn order (see `Position::remove_seat`).
    out: Vec<bool>,
}

impl Game {
    /// The starting position. `board` is `8x8`, `10x10` or `octagon`.
    fn new(board: &str, players: usize, anti: bool, blocked: &[Sq]) -> Game {
        let side = if board == "8x8" { 8 } else { 10 };
        let mut cells = vec![vec![Cell::Empty; side]; side];
        if board == "octagon" {
            for name in OCTAGON_CUT {
                let sq: Square = name.parse().expect("a square name");
                cells[sq.row as usize][sq.col as usize] = Cell::Off;
            }
        }
        for &(col, row) in blocked {
            assert_eq!(
                cells[row][col],
                Cell::Empty,
                "blocked twice or off the board"
            );
            cells[row][col] = Cell::Blocked;
        }
        // The centre, clockwise from the top-left: Black, White, Red, then Green or neutral.
        let (lo, hi) = (side / 2 - 1, side / 2);
        cells[lo][lo] = Cell::Disc(0);
        cells[lo][hi] = Cell::Disc(1);
        cells[hi][hi] = Cell::Disc(2);
        cells[hi][lo] = if players == 4 {
            Cell::Disc(3)
        } else {
            Cell::Neutral
        };
        Game {
            side,
            cells,
            players,
            anti,
            to_move: 0,
            out: vec![false; players],
        }
    }

    /// The cell at (col, row); anything outside the grid is off the board.
    fn at(&self, col: i32, row: i32) -> Cell {
        if col < 0 || row < 0 || col >= self.side as i32 || row >= self.side as i32 {
            Cell::Off
        } else {
            self.cells[row as usize][col as usize]
        }
    }

    /// The discs the player to move would flip by placing on the empty square (col, row).
    fn flips(&self, sq: Sq) -> Vec<Sq> {
        self.flips_for(self.to_move, sq)
    }

    /// The discs seat `me` would flip by placing on the empty square (col, row).
    fn flips_for(&self, me: usize, (col, row): Sq) -> Vec<Sq> {
        let mut flipped = Vec::new();
        for (dc, dr) in DIRECTIONS {
            // Walk over discs that are not mine; the line counts only if a disc of mine closes it.
            let mut line = Vec::new();
            let (mut c, mut r) = (col as i32 + dc, row as i32 + dr);
            loop {
                match self.at(c, r) {
                    Cell::Disc(s) if s == me => {
                        flipped.extend(line);
                        break;
                    }
                    Cell::Disc(_) | Cell::Neutral => line.push((c as usize, r as usize)),
                    Cell::Empty | Cell::Blocked | Cell::Off => break,
                }
                c += dc;
                r += dr;
            }
        }
        flipped.sort_by_key(|&(c, r)| (r, c));
        flipped
    }

    /// Whether (col, row) has a disc on one of its eight neighbours.
    fn touches_disc(&self, (col, row): Sq) -> bool {
        DIRECTIONS
            .iter()
            .any(|&(dc, dr)| self.at(col as i32 + dc, row as i32 + dr).is_disc())
    }

    /// The empty squares, row by row.
    fn empty_squares(&self) -> Vec<Sq> {
        let mut squares = Vec::new();
        for row in 0..self.side {
            for col in 0..self.side {
                if self.cells[row][col] == Cell::Empty {
                    squares.push((col, row));
                }
            }
        }
        squares
    }

    /// The game is over when no empty square touches a disc.
    fn is_over(&self) -> bool {
        !self
            .empty_squares()
            .into_iter()
            .any(|sq| self.touches_disc(sq))
    }

    /// The legal moves row by row: the flipping moves if there are any, else the placing moves.
    fn legal_moves(&self) -> (Vec<Sq>, Kind) {
        let flipping: Vec<Sq> = self
            .empty_squares()
            .into_iter()
            .filter(|&sq| !self.flips(sq).is_empty())
            .collect();
        if !flipping.is_empty() {
            return (flipping, Kind::Flipping);
        }
        let placing = self
            .empty_squares()
            .into_iter()
            .filter(|&sq| self.touches_disc(sq))
            .collect();
        (placing, Kind::Placing)
    }

    /// What a move on (col, row) would do, or why it is refused. Any (col, row), on the grid or
    /// not, may be asked.
    fn check(&self, col: i32, row: i32) -> Result<(Kind, Vec<Sq>), Refusal> {
        match self.at(col, row) {
            Cell::Off => return Err(Refusal::OffBoard),
            Cell::Blocked => return Err(Refusal::Blocked),
            _ => {}
        }
        if self.is_over() {
            return Err(Refusal::GameOver);
        }
        if self.at(col, row) != Cell::Empty {
            return Err(Refusal::Occupied);
        }
        let sq = (col as usize, row as usize);
        let flipped = self.flips(sq);
        if !flipped.is_empty() {
            return Ok((Kind::Flipping, flipped));
        }
        if self.legal_moves().1 == Kind::Flipping {
            return Err(Refusal::FlipsNothing);
        }
        if !self.touches_disc(sq) {
            return Err(Refusal::TouchesNoDisc);
        }
        Ok((Kind::Placing, flipped))
    }

    /// Plays a move of the player to move, or refuses it and changes nothing.
    fn play(&mut self, col: i32, row: i32) -> Result<(Kind, Vec<Sq>), Refusal> {
        let (kind, flipped) = self.check(col, row)?;
        let me = self.to_move;
        self.cells[row as usize][col as usize] = Cell::Disc(me);
        for &(c, r) in &flipped {
            self.cells[r][c] = Cell::Disc(me);
        }
        self.to_move = self.next_seat(me);
        Ok((kind, flipped))
    }

    /// The next seat round the table that is still in the game.
    fn next_seat(&self, seat: usize) -> usize {
        let mut s = seat;
        loop {
            s = (s + 1) % self.players;
            if !self.out[s] || s == seat {
                return s;
            }
        }
    }

    /// Takes a seat out of the turn order, as the referee does to a faulty bot.
    fn remove(&mut self, seat: usize) {
        self.out[seat] = true;
        assert!(
            self.out.iter().any(|&o| !o),
            "the last seat cannot be removed"
        );
        if self.to_move == seat {
            self.to_move = self.next_seat(seat);
        }
    }

    /// Discs of each seat's own colour.
    fn scores(&self) -> Vec<u32> {
        let mut scores = vec![0; self.players];
        for row in &self.cells {
            for &cell in row {
                if let Cell::Disc(s) = cell {
                    scores[s] += 1;
                }
            }
        }
        scores
    }

    /// Once the game is over: the one seat with the most discs (fewest with Anti-Reversi) among
    /// the seats still in the game wins; a shared best count is a draw for the whole table.
    fn result(&self) -> Option<Verdict> {
        if !self.is_over() {
            return None;
        }
        let scores = self.scores();
        let in_game: Vec<usize> = (0..self.players).filter(|&s| !self.out[s]).collect();
        let best = if self.anti {
            in_game.iter().map(|&s| scores[s]).min()
        } else {
            in_game.iter().map(|&s| scores[s]).max()
        };
        let leaders: Vec<usize> = in_game
            .into_iter()
            .filter(|&s| Some(scores[s]) == best)
            .collect();
        Some(if leaders.len() == 1 {
            Verdict::Winner(leaders[0])
        } else {
            Verdict::Draw
        })
    }

    /// The board in the protocol's letters, one string per row.
    fn rows(&self) -> Vec<String> {
        self.cells
            .iter()
            .map(|row| {
                row.iter()
                    .map(|cell| match cell {
                        Cell::Off => '-',
                        Cell::Blocked => '#',
                        Cell::Empty => '.',
                        Cell::Neutral => 'N',
                        Cell::Disc(s) => ['B', 'W', 'R', 'G'][*s],
                    })
                    .collect()
            })
            .collect()
    }

    /// The number of move sequences of exactly `depth` moves.
    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let (moves, _) = self.legal_moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .map(|(col, row)| {
                let mut child = self.clone();
                child
                    .play(col as i32, row as i32)
                    .expect("a legal move plays");
                child.perft(depth - 1)
            })
            .sum()
    }
}

// ---------------------------------------------------------------------------------------------
// Translation between the two
// ---------------------------------------------------------------------------------------------

fn to_square((col, row): Sq) -> Square {
    Square::new(col as u8, row as u8)
}

fn to_squares(squares: &[Sq]) -> Vec<Square> {
    squares.iter().map(|&sq| to_square(sq)).collect()
}

fn kind_of(kind: MoveKind) -> Kind {
    match kind {
        MoveKind::Flipping => Kind::Flipping,
        MoveKind::Placing => Kind::Placing,
    }
}

fn refusal_of(reason: IllegalReason) -> Refusal {
    match reason {
        IllegalReason::OffBoard => Refusal::OffBoard,
        IllegalReason::Blocked => Refusal::Blocked,
        IllegalReason::GameOver => Refusal::GameOver,
        IllegalReason::Occupied => Refusal::Occupied,
        IllegalReason::FlipsNothing => Refusal::FlipsNothing,
        IllegalReason::TouchesNoDisc => Refusal::TouchesNoDisc,
    }
}

fn result_of(outcome: Outcome) -> Verdict {
    match outcome {
        Outcome::Win { winner } => Verdict::Winner(winner),
        Outcome::Draw => Verdict::Draw,
    }
}

/// The engine's position and the reference game for the same validated rules.
fn both(rules: Rules) -> (Position, Game) {
    let blocked: Vec<Sq> = rules
        .blocked
        .iter()
        .map(|sq| (sq.col as usize, sq.row as usize))
        .collect();
    let game = Game::new(
        rules.board.name(),
        rules.players as usize,
        rules.anti,
        &blocked,
    );
    (Position::new(rules), game)
}

/// How a game's blocked squares are chosen.
#[derive(Clone, Copy, Debug)]
enum Blocking {
    None,
    /// A fixed list per board that cuts off a corner square, so the game ends with empty squares.
    Explicit,
    /// A random number of squares drawn from the game's seed.
    Random,
}

fn explicit_blocked(board: BoardKind) -> &'static str {
    match board {
        // a1 and h8 are cut off; c6 and d2 just break lines.
        BoardKind::Eight => "b1,a2,b2,g8,h7,g7,c6,d2",
        BoardKind::Ten => "b1,a2,b2,e2,f9,c5,j3",
        // c1 is cut off (its other neighbours are not on the Octagon).
        BoardKind::Octagon => "d1,c2,d2,b2,e8,h5",
    }
}

fn rules_for(board: BoardKind, players: u32, anti: bool, blocking: Blocking, seed: u64) -> Rules {
    let setup = Setup {
        players,
        board: board.name().into(),
        anti,
        blocked: match blocking {
            Blocking::Explicit => explicit_blocked(board).into(),
            _ => String::new(),
        },
        blocked_random: match blocking {
            // Up to 30 squares: enough to wall off regions and end games early.
            Blocking::Random => 1 + Rng::new(seed ^ 0xb10c).below(30) as u32,
            _ => 0,
        },
        seed,
    };
    Rules::from_setup(&setup).expect("valid test setup")
}

// ---------------------------------------------------------------------------------------------
// Differential tests
// ---------------------------------------------------------------------------------------------

/// Things the random games must have met, so that a quiet pass means the comparisons ran.
#[derive(Default, Debug)]
struct Coverage {
    games: u32,
    plies: u64,
    placing_plies: u64,
    /// Plies where the player to move had no disc at all (and so still moved, rule 4).
    discless_movers: u64,
    ended_with_empty_squares: u32,
    wins: u32,
    draws: u32,
    removals: u32,
    refusals: [u64; 6],
}

/// Checks that the engine's internal bitboards are consistent: colours disjoint, their union the
/// occupied set, every disc on a playable square.
fn check_core(position: &Position) {
    fn check<B: multiversi::rules::Bits>(b: &multiversi::rules::Board<B>) {
        let mut union = B::ZERO;
        for d in b.discs {
            assert!((union & d).is_empty(), "two colours on one square");
            union |= d;
        }
        assert_eq!(union, b.occupied);
        assert!((b.occupied & !b.playable).is_empty());
    }
    if let Some(b) = position.small_board() {
        check(b);
    }
    if let Some(b) = position.large_board() {
        check(b);
    }
}

/// The engine's flipping moves for every seat, whether or not it is to move (the built-in bots
/// use them to weigh mobility), against the reference's.
fn check_flipping_moves_of_every_seat(position: &Position, game: &Game) {
    fn squares<B: multiversi::rules::Bits>(set: B, side: usize) -> Vec<Square> {
        set.iter()
            .map(|i| to_square((i as usize % side, i as usize / side)))
            .collect()
    }
    for seat in 0..game.players {
        let expected: Vec<Square> = game
            .empty_squares()
            .into_iter()
            .filter(|&sq| !game.flips_for(seat, sq).is_empty())
            .map(to_square)
            .collect();
        let got = match (position.small_board(), position.large_board()) {
            (Some(b), _) => squares(b.flipping_moves_of(seat), game.side),
            (_, Some(b)) => squares(b.flipping_moves_of(seat), game.side),
            (None, None) => unreachable!("a position has one core"),
        };
        assert_eq!(got, expected, "seat {seat}");
    }
}

/// Plays one random game in both implementations and compares them at every ply.
fn differential_game(rules: Rules, seed: u64, cov: &mut Coverage) {
    let mut rng = Rng::new(seed);
    let (mut pos, mut game) = both(rules.clone());
    let side = game.side as i32;
    let ctx = |ply: u32| format!("{rules:?} seed {seed} ply {ply}");
    let mut discs = 4;
    loop {
        let ply = pos.ply();
        assert_eq!(pos.rows(), game.rows(), "{}", ctx(ply));
        assert_eq!(pos.scores(), game.scores(), "{}", ctx(ply));
        check_core(&pos);
        check_flipping_moves_of_every_seat(&pos, &game);
        // Every move adds exactly one disc.
        let on_board = game
            .rows()
            .concat()
            .chars()
            .filter(|c| "BWRGN".contains(*c))
            .count();
        assert_eq!(on_board, discs, "{}", ctx(ply));

        let over = game.is_over();
        assert_eq!(pos.is_over(), over, "{}", ctx(ply));
        if over {
            assert_eq!(pos.outcome().map(result_of), game.result(), "{}", ctx(ply));
            assert!(pos.legal_moves().0.is_empty());
            assert_eq!(pos.perft(1), 0);
            if !game.empty_squares().is_empty() {
                cov.ended_with_empty_squares += 1;
            }
            match game.result() {
                Some(Verdict::Draw) => cov.draws += 1,
                _ => cov.wins += 1,
            }
            // After the end, every square on the board is refused as the game being over.
            for sq in game.empty_squares().into_iter().take(3) {
                let err = pos.check(to_square(sq)).expect_err("game over");
                assert_eq!(err.reason, IllegalReason::GameOver, "{}", ctx(ply));
            }
            break;
        }
        assert_eq!(pos.outcome(), None);
        assert_eq!(pos.to_move(), game.to_move, "{}", ctx(ply));
        if game.scores()[game.to_move] == 0 {
            cov.discless_movers += 1;
        }

        // The legal moves, their kind, and what each of them flips.
        let (moves, kind) = game.legal_moves();
        let (engine_moves, engine_kind) = pos.legal_moves();
        assert_eq!(engine_moves, to_squares(&moves), "{}", ctx(ply));
        assert_eq!(kind_of(engine_kind), kind, "{}", ctx(ply));
        assert!(!moves.is_empty(), "nobody ever passes: {}", ctx(ply));
        assert_eq!(pos.perft(1), moves.len() as u64);
        for &sq in &moves {
            let checked = pos.check(to_square(sq)).expect("a legal move");
            assert_eq!(kind_of(checked.kind), kind, "{}", ctx(ply));
            assert_eq!(checked.flips, to_squares(&game.flips(sq)), "{}", ctx(ply));
        }

        // A few stray squares anywhere on the grid and one beyond it: the same verdict, and a
        // refused move leaves the position as it was.
        for _ in 0..3 {
            let col = rng.below(side as u64 + 1) as i32;
            let row = rng.below(side as u64 + 1) as i32;
            let expected = game.check(col, row);
            let before = pos.clone();
            let got = pos.check(Square::new(col as u8, row as u8));
            match (&expected, got) {
                (Ok((k, f)), Ok(played)) => {
                    assert_eq!((kind_of(played.kind), played.flips), (*k, to_squares(f)))
                }
                (Err(r), Err(e)) => {
                    assert_eq!(refusal_of(e.reason), *r, "{col},{row} {}", ctx(ply));
                    let err = pos
                        .play(Square::new(col as u8, row as u8))
                        .expect_err("refused by play as by check");
                    assert_eq!(err, e);
                    assert_eq!(pos, before, "a refused move changed the position");
                    cov.refusals[*r as usize] += 1;
                }
                (e, g) => panic!("{col},{row}: reference {e:?}, engine {g:?} at {}", ctx(ply)),
            }
        }

        // Now and then the referee removes a seat; the turn order must skip it from then on.
        if rng.below(300) == 0 {
            let seat = rng.below(game.players as u64) as usize;
            let remaining = game.out.iter().filter(|&&o| !o).count();
            if !game.out[seat] && remaining > 1 {
                assert!(pos.remove_seat(seat));
                game.remove(seat);
                cov.removals += 1;
                continue;
            }
        }

        // Play a random legal move in both.
        let sq = moves[rng.below(moves.len() as u64) as usize];
        let seat = game.to_move;
        let (k, flipped) = game
            .play(sq.0 as i32, sq.1 as i32)
            .expect("reference plays its own legal move");
        let played = pos.play(to_square(sq)).expect("engine plays a legal move");
        assert_eq!(played.seat, seat);
        assert_eq!(played.square, to_square(sq));
        assert_eq!(kind_of(played.kind), k);
        assert_eq!(played.flips, to_squares(&flipped));
        assert_eq!(pos.ply(), ply + 1);
        discs += 1;
        cov.plies += 1;
        if k == Kind::Placing {
            cov.placing_plies += 1;
        }
    }
    cov.games += 1;
}

/// Games per combination of board, players, Anti-Reversi and blocking (36 combinations).
const GAMES_PER_COMBINATION: u64 = 60;

#[test]
fn engine_matches_reference_over_random_games() {
    let mut cov = Coverage::default();
    let mut combination = 0u64;
    for board in BoardKind::ALL {
        for players in [3, 4] {
            for anti in [false, true] {
                for blocking in [Blocking::None, Blocking::Explicit, Blocking::Random] {
                    combination += 1;
                    for game in 0..GAMES_PER_COMBINATION {
                        let seed = combination * 1_000_003 + game;
                        let rules = rules_for(board, players, anti, blocking, seed);
                        differential_game(rules, seed, &mut cov);
                    }
                }
            }
        }
    }
    // The games really went through the situations the comparisons are meant for.
    assert_eq!(cov.games as u64, 36 * GAMES_PER_COMBINATION, "{cov:?}");
    assert!(cov.plies > 100_000, "{cov:?}");
    assert!(cov.placing_plies > 100, "{cov:?}");
    assert!(cov.discless_movers > 10, "{cov:?}");
    assert!(cov.ended_with_empty_squares > 100, "{cov:?}");
    assert!(cov.wins > 100 && cov.draws > 10, "{cov:?}");
    assert!(cov.removals > 10, "{cov:?}");
    for (reason, &n) in cov.refusals.iter().enumerate() {
        if reason != Refusal::GameOver as usize {
            assert!(n > 10, "refusal {reason} seen {n} times: {cov:?}");
        }
    }
}

/// Perft from positions deep into random games (where placing moves, cut-off squares and the end
/// of the game are near) agrees with the reference.
#[test]
fn perft_matches_reference_from_random_positions() {
    let mut checked = 0;
    for (i, board) in BoardKind::ALL.into_iter().enumerate() {
        for players in [3, 4] {
            for blocking in [Blocking::None, Blocking::Explicit, Blocking::Random] {
                for game in 0..12u64 {
                    let seed = 7_000_000 + i as u64 * 1000 + players as u64 * 100 + game;
                    let rules = rules_for(board, players, false, blocking, seed);
                    let (mut pos, mut reference) = both(rules);
                    let mut rng = Rng::new(seed);
                    // Stop at a random ply, anywhere from the opening to a few moves from the end.
                    let stop = rng.below(100);
                    while pos.ply() < stop as u32 && !pos.is_over() {
                        let (moves, _) = pos.legal_moves();
                        let sq = moves[rng.below(moves.len() as u64) as usize];
                        pos.play(sq).expect("legal");
                        reference.play(sq.col as i32, sq.row as i32).expect("legal");
                    }
                    // Sometimes the referee has taken seats out, down to a single one left.
                    for _ in 0..rng.below(players as u64) {
                        let seat = rng.below(players as u64) as usize;
                        if !reference.out[seat] && reference.out.iter().filter(|&&o| !o).count() > 1
                        {
                            assert!(pos.remove_seat(seat));
                            reference.remove(seat);
                        }
                    }
                    for depth in 0..=3 {
                        assert_eq!(
                            pos.perft(depth),
                            reference.perft(depth),
                            "seed {seed} depth {depth} at ply {}",
                            pos.ply()
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 108 * 2);
}

// ---------------------------------------------------------------------------------------------
// Perft regression values
// ---------------------------------------------------------------------------------------------

/// perft(1..) from the start: board, players, explicit blocked squares, random blocked squares
/// and their seed, values. Each value is checked by the reference and by the engine.
type PerftCase = (BoardKind, u32, &'static str, u32, u64, &'static [u64]);

const PERFT_TABLE: &[PerftCase] = &[
    (
        BoardKind::Eight,
        3,
        "",
        0,
        0,
        &[3, 20, 136, 630, 3956, 27778, 161368],
    ),
    (
        BoardKind::Eight,
        4,
        "",
        0,
        0,
        &[3, 20, 136, 1366, 7427, 44154, 343639],
    ),
    (
        BoardKind::Ten,
        3,
        "",
        0,
        0,
        &[3, 20, 136, 630, 4019, 29450, 173395],
    ),
    (
        BoardKind::Ten,
        4,
        "",
        0,
        0,
        &[3, 20, 136, 1366, 7439, 44879, 363927],
    ),
    (
        BoardKind::Octagon,
        3,
        "",
        0,
        0,
        &[3, 20, 136, 630, 4004, 28959, 169709],
    ),
    (
        BoardKind::Octagon,
        4,
        "",
        0,
        0,
        &[3, 20, 136, 1366, 7435, 44711, 359066],
    ),
    (
        BoardKind::Eight,
        3,
        "c3,f6,b7",
        0,
        0,
        &[2, 15, 57, 250, 1643, 9460, 51495],
    ),
    (
        BoardKind::Ten,
        4,
        "",
        12,
        5,
        &[3, 16, 96, 819, 3986, 18183, 133861],
    ),
    (
        BoardKind::Octagon,
        3,
        "d4,g7,e4",
        0,
        0,
        &[2, 14, 53, 230, 1514, 8746, 47321],
    ),
    (
        BoardKind::Ten,
        3,
        "c3,h8,e4",
        0,
        0,
        &[3, 19, 123, 554, 3171, 21499, 121303],
    ),
    (
        BoardKind::Octagon,
        4,
        "",
        10,
        9,
        &[3, 20, 126, 1120, 5713, 30799, 210852],
    ),
];

/// Anti-Reversi changes who wins, not which moves are legal: every case has the same values with
/// it (to depth 5, to keep the reference quick).
#[test]
fn perft_regression_values_hold_in_both_implementations() {
    for &(board, players, blocked, blocked_random, seed, values) in PERFT_TABLE {
        for anti in [false, true] {
            let setup = Setup {
                players,
                board: board.name().into(),
                anti,
                blocked: blocked.into(),
                blocked_random,
                seed,
            };
            let rules = Rules::from_setup(&setup).expect("valid setup");
            let (pos, game) = both(rules);
            let depths = if anti { 5 } else { values.len() };
            for (i, &expected) in values.iter().enumerate().take(depths) {
                let depth = i as u32 + 1;
                let case = format!(
                    "{board} {players} players blocked {blocked:?}/{blocked_random} anti {anti}"
                );
                assert_eq!(
                    game.perft(depth),
                    expected,
                    "reference, {case}, depth {depth}"
                );
                assert_eq!(pos.perft(depth), expected, "engine, {case}, depth {depth}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Invariants
// ---------------------------------------------------------------------------------------------

/// Without blocked squares a game lasts exactly as many moves as there are empty squares at the
/// start, and every player places the same number of discs (the table in RULES.md).
#[test]
fn games_without_blocked_squares_fill_the_board_evenly() {
    let table = [
        (BoardKind::Eight, 60, [20, 15]),
        (BoardKind::Ten, 96, [32, 24]),
        (BoardKind::Octagon, 84, [28, 21]),
    ];
    for (board, length, per_player) in table {
        for (players, each) in [3u32, 4].into_iter().zip(per_player) {
            for seed in 0..40 {
                let rules = Rules::new(players, board, seed % 2 == 1).expect("valid rules");
                let mut pos = Position::new(rules);
                let mut rng = Rng::new(seed);
                let mut placed = vec![0u32; players as usize];
                let mut discs = 4;
                while !pos.is_over() {
                    let (moves, _) = pos.legal_moves();
                    // Seats move round the table in order: nobody passes.
                    assert_eq!(pos.to_move(), pos.ply() as usize % players as usize);
                    let sq = moves[rng.below(moves.len() as u64) as usize];
                    let played = pos.play(sq).expect("legal");
                    placed[played.seat] += 1;
                    let now: u32 = pos
                        .rows()
                        .concat()
                        .chars()
                        .filter(|c| "BWRGN".contains(*c))
                        .count() as u32;
                    assert_eq!(now, discs + 1, "every move adds exactly one disc");
                    discs = now;
                }
                assert_eq!(pos.ply(), length, "{board} {players} players seed {seed}");
                assert_eq!(placed, vec![each; players as usize]);
                assert!(pos.rows().concat().chars().all(|c| c != '.'), "board full");
            }
        }
    }
}

/// The template of a board for hand-built positions: its rows at the start.
fn start_rows(rules: &Rules) -> Vec<String> {
    Position::new(rules.clone()).rows()
}

/// Rows of a finished board: every square that can hold a disc is filled, in board order, with
/// `count` discs of each letter in turn.
fn filled_rows(rules: &Rules, counts: &[(char, usize)]) -> Vec<String> {
    let mut letters = counts
        .iter()
        .flat_map(|&(c, n)| std::iter::repeat(c).take(n));
    let rows: Vec<String> = start_rows(rules)
        .iter()
        .map(|row| {
            row.chars()
                .map(|c| match c {
                    '-' | '#' => c,
                    _ => letters.next().expect("enough discs for the board"),
                })
                .collect()
        })
        .collect();
    assert!(letters.next().is_none(), "more discs than squares");
    rows
}

fn final_outcome(rules: Rules, counts: &[(char, usize)]) -> (Vec<u32>, Option<Outcome>) {
    let rows = filled_rows(&rules, counts);
    let pos = Position::from_rows(rules, &rows, 0, 60).expect("valid rows");
    assert!(pos.is_over());
    assert!(pos.legal_moves().0.is_empty());
    (pos.scores(), pos.outcome())
}

#[test]
fn most_discs_win_and_a_shared_best_is_a_draw_for_the_whole_table() {
    let four = |anti| Rules::new(4, BoardKind::Eight, anti).expect("rules");
    let win = |winner| Some(Outcome::Win { winner });
    let counts = [('B', 20), ('W', 16), ('R', 15), ('G', 13)];
    assert_eq!(
        final_outcome(four(false), &counts),
        (vec![20, 16, 15, 13], win(0))
    );
    // Anti-Reversi: the fewest discs win.
    assert_eq!(final_outcome(four(true), &counts).1, win(3));
    // Two share the most: a draw for everyone, also those with fewer discs.
    let counts = [('B', 18), ('W', 18), ('R', 16), ('G', 12)];
    assert_eq!(final_outcome(four(false), &counts).1, Some(Outcome::Draw));
    assert_eq!(final_outcome(four(true), &counts).1, win(3));
    // Two share the fewest: a draw under Anti-Reversi, a win otherwise.
    let counts = [('B', 22), ('W', 14), ('R', 14), ('G', 14)];
    assert_eq!(final_outcome(four(false), &counts).1, win(0));
    assert_eq!(final_outcome(four(true), &counts).1, Some(Outcome::Draw));
}

#[test]
fn neutral_discs_score_for_nobody() {
    let three = |anti| Rules::new(3, BoardKind::Octagon, anti).expect("rules");
    // 88 squares: 30 + 30 + 26 discs and 2 neutral ones.
    let counts = [('B', 30), ('N', 1), ('W', 30), ('R', 26), ('N', 1)];
    assert_eq!(
        final_outcome(three(false), &counts),
        (vec![30, 30, 26], Some(Outcome::Draw))
    );
    assert_eq!(
        final_outcome(three(true), &counts).1,
        Some(Outcome::Win { winner: 2 })
    );
    // Neutral discs outnumbering everyone do not win.
    let counts = [('B', 20), ('N', 40), ('W', 19), ('R', 9)];
    assert_eq!(
        final_outcome(three(false), &counts).1,
        Some(Outcome::Win { winner: 0 })
    );
}

#[test]
fn a_game_ends_when_the_empty_squares_left_are_cut_off() {
    // a1 is walled in by blocked squares: it stays empty and the game is over without it.
    let blocked = ["b1", "a2", "b2"].map(|s| s.parse::<Square>().expect("square"));
    let rules = Rules::with_blocked(4, BoardKind::Eight, false, blocked.to_vec()).expect("rules");
    let mut rows = filled_rows(&rules, &[('B', 16), ('W', 15), ('R', 15), ('G', 15)]);
    assert_eq!(&rows[0][..1], "B");
    rows[0].replace_range(..1, ".");
    let pos = Position::from_rows(rules.clone(), &rows, 1, 57).expect("valid rows");
    assert!(pos.is_over());
    assert_eq!(pos.scores(), vec![15, 15, 15, 15]);
    assert_eq!(pos.outcome(), Some(Outcome::Draw));
    let err = pos.check(Square::new(0, 0)).expect_err("over");
    assert_eq!(err.reason, IllegalReason::GameOver);
    // The same board with a2 open is not over: a1 touches nothing, but a2 touches discs.
    let open =
        Rules::with_blocked(4, BoardKind::Eight, false, blocked[..1].to_vec()).expect("rules");
    let mut rows = filled_rows(&open, &[('B', 18), ('W', 15), ('R', 15), ('G', 15)]);
    rows[0].replace_range(..1, ".");
    rows[1].replace_range(..1, ".");
    let pos = Position::from_rows(open, &rows, 1, 57).expect("valid rows");
    assert!(!pos.is_over());
    assert_eq!(pos.outcome(), None);
}

/// Black, to move, has lost every disc: Black still moves, by placing next to any disc.
fn discless_black() -> Position {
    let rows: Vec<String> = [
        "........", "........", "........", "...WR...", "...GW...", "........", "........",
        "........",
    ]
    .map(String::from)
    .to_vec();
    let rules = Rules::new(4, BoardKind::Eight, false).expect("rules");
    Position::from_rows(rules, &rows, 0, 8).expect("valid rows")
}

#[test]
fn a_player_without_discs_still_moves() {
    let mut pos = discless_black();
    assert_eq!(pos.scores()[0], 0);
    assert!(!pos.is_over());
    let (moves, kind) = pos.legal_moves();
    assert_eq!(kind, MoveKind::Placing);
    // Every empty square around the 2×2 block of discs: 16 - 4.
    assert_eq!(moves.len(), 12);
    let played = pos
        .play("c3".parse().expect("square"))
        .expect("a placing move");
    assert_eq!((played.seat, played.kind), (0, MoveKind::Placing));
    assert!(played.flips.is_empty());
    assert_eq!(pos.scores(), vec![1, 2, 1, 1]);
    assert_eq!(pos.to_move(), 1);
}

// ---------------------------------------------------------------------------------------------
// The legality gate
// ---------------------------------------------------------------------------------------------

/// Plays an illegal move and checks the reason, the message, and that nothing changed.
fn refused(pos: &mut Position, name: &str, reason: IllegalReason, words: &str) {
    let before = pos.clone();
    let sq: Square = name.parse().expect("square name");
    let err = pos.play(sq).expect_err("an illegal move");
    assert_eq!((err.square, err.reason), (sq, reason), "{name}");
    let message = err.to_string();
    assert!(
        message.contains(name) && message.contains(words),
        "{message}"
    );
    assert_eq!(*pos, before, "refusing {name} changed the position");
    assert_eq!(pos.check(sq), Err(err));
}

#[test]
fn illegal_moves_say_why_and_change_nothing() {
    let rules = |board, blocked: &str| {
        let setup = Setup {
            board: String::from(board),
            blocked: blocked.into(),
            ..Setup::default()
        };
        Rules::from_setup(&setup).expect("rules")
    };
    let mut pos = Position::new(rules("8x8", "c5"));
    refused(&mut pos, "d4", IllegalReason::Occupied, "occupied");
    refused(&mut pos, "i1", IllegalReason::OffBoard, "not on the board");
    refused(&mut pos, "a9", IllegalReason::OffBoard, "not on the board");
    refused(&mut pos, "c5", IllegalReason::Blocked, "blocked");
    // c3 touches Black's d4 but flips nothing, and Black has flipping moves.
    refused(&mut pos, "c3", IllegalReason::FlipsNothing, "flips nothing");
    refused(&mut pos, "a1", IllegalReason::FlipsNothing, "flips nothing");

    let mut octagon = Position::new(rules("octagon", ""));
    refused(
        &mut octagon,
        "a1",
        IllegalReason::OffBoard,
        "not on the board",
    );
    refused(
        &mut octagon,
        "j9",
        IllegalReason::OffBoard,
        "not on the board",
    );
    refused(
        &mut octagon,
        "k3",
        IllegalReason::OffBoard,
        "not on the board",
    );

    // Without a flipping move, a placing move must touch a disc.
    let mut pos = discless_black();
    refused(
        &mut pos,
        "a1",
        IllegalReason::TouchesNoDisc,
        "touches no disc",
    );
    refused(
        &mut pos,
        "h8",
        IllegalReason::TouchesNoDisc,
        "touches no disc",
    );
    refused(&mut pos, "e5", IllegalReason::Occupied, "occupied");

    // After the end nothing is playable.
    let full = filled_rows(
        &rules("8x8", ""),
        &[('B', 16), ('W', 16), ('R', 16), ('G', 16)],
    );
    let mut pos = Position::from_rows(rules("8x8", ""), &full, 0, 60).expect("rows");
    refused(&mut pos, "a1", IllegalReason::GameOver, "over");

    // A legal move after all those refusals plays normally.
    let mut pos = Position::new(rules("8x8", "c5"));
    let played = pos.play("f4".parse().expect("square")).expect("legal");
    assert_eq!(played.flips, vec!["e4".parse::<Square>().expect("square")]);
}

// ---------------------------------------------------------------------------------------------
// Records worked out by the reference: what a recorded game's end must be
// ---------------------------------------------------------------------------------------------

/// How a recorded game must end, worked out by the reference alone from the record's rules,
/// moves and faults (none of the engine's or the referee's code).
#[derive(Debug, PartialEq)]
pub struct PlainEnd {
    pub rows: Vec<String>,
    pub scores: Vec<u32>,
    /// The board is finished, or at most one player is left.
    pub ended: bool,
    /// The winner's seat, or None for a draw of the whole table.
    pub winner: Option<usize>,
    /// Places, best first, as RECORD.md defines them.
    pub ranking: Vec<Vec<usize>>,
}

/// Replays a record with the reference (each move must be legal for the seat the reference has
/// to move) and works out its end.
pub fn plain_end(record: &multiversi::record::GameRecord) -> PlainEnd {
    let blocked: Vec<Sq> = record
        .rules
        .blocked
        .iter()
        .map(|sq| (sq.col as usize, sq.row as usize))
        .collect();
    let mut game = Game::new(
        record.rules.board.name(),
        record.rules.players as usize,
        record.rules.anti,
        &blocked,
    );
    assert_eq!(game.rows(), record.initial_rows, "the starting board");
    let take_out = |game: &mut Game, ply: u32| {
        for f in record.faults.iter().filter(|f| f.ply == ply) {
            if game.out.iter().filter(|&&o| !o).count() > 1 {
                game.remove(f.seat);
            } else {
                game.out[f.seat] = true;
            }
        }
    };
    let mut ply = 0;
    for m in &record.moves {
        while ply <= m.ply {
            take_out(&mut game, ply);
            ply += 1;
        }
        assert_eq!(game.to_move, m.seat, "ply {}: the seat to move", m.ply);
        let (kind, flips) = game
            .play(m.square.col as i32, m.square.row as i32)
            .unwrap_or_else(|why| panic!("ply {}: {} refused: {why:?}", m.ply, m.square));
        assert_eq!(kind, kind_of(m.kind), "ply {}", m.ply);
        assert_eq!(to_squares(&flips), m.flips, "ply {}", m.ply);
    }
    // Faults after the last move (the seat to move failed, or failed to start).
    let last = record.moves.len() as u32;
    while ply <= last {
        take_out(&mut game, ply);
        ply += 1;
    }
    let in_game: Vec<usize> = (0..game.players).filter(|&s| !game.out[s]).collect();
    let ended = in_game.len() <= 1 || game.is_over();
    let scores = game.scores();
    // The best count among those still in the game (the fewest discs with Anti-Reversi).
    let mut counts: Vec<u32> = in_game.iter().map(|&s| scores[s]).collect();
    counts.sort_unstable();
    counts.dedup();
    if !game.anti {
        counts.reverse();
    }
    let mut ranking: Vec<Vec<usize>> = counts
        .iter()
        .map(|&c| {
            in_game
                .iter()
                .copied()
                .filter(|&s| scores[s] == c)
                .collect()
        })
        .collect();
    let winner = match ranking.first() {
        Some(first) if first.len() == 1 => Some(first[0]),
        _ => None,
    };
    let out: Vec<usize> = (0..game.players).filter(|&s| game.out[s]).collect();
    if !out.is_empty() {
        ranking.push(out);
    }
    PlainEnd {
        rows: game.rows(),
        scores,
        ended,
        winner,
        ranking,
    }
}
