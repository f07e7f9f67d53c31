//! How a record looks as text: the board (in colour on a terminal, plain letters when piped or
//! when `NO_COLOR` is set, so the output can be read by scripts), seat labels, each move as a
//! line, faults, scores and the result, and a whole game up to a ply. A module of its own, beneath
//! both commands that draw with it: `replay` (through `replay::terminal`, which steps and
//! animates) and `match --show` (the `reporters::show` sink, which draws each move as it is
//! played). It knows records and the rules' names, nothing of either command.
//!
//! The boards drawn are those the record describes (its initial board, then each move's square
//! and flips), not those the engine would compute: replay shows what happened, `--verify` judges it.

use crate::record::{FaultKind, GameRecord, MoveRecord};
use crate::rules::{Colour, MoveKind, Outcome, Square};
use crate::text::{pad_end, visible};
use std::fmt::{Display, Write as _};

/// The boards of a game after each number of moves, as the record tells it.
pub struct Timeline {
    pub side: usize,
    /// `frames[n]` is the board after `n` moves, one `Vec<char>` per row.
    pub frames: Vec<Vec<Vec<char>>>,
}

impl Timeline {
    /// Builds the boards from the record's initial board and moves. A square outside the board
    /// (which `--verify` reports) is ignored here rather than stopping the replay.
    pub fn new(rec: &GameRecord) -> Timeline {
        let side = rec.rules.side() as usize;
        let mut board: Vec<Vec<char>> = (0..side)
            .map(|r| {
                let row: Vec<char> = rec
                    .initial_rows
                    .get(r)
                    .map_or(Vec::new(), |s| s.chars().collect());
                (0..side)
                    .map(|c| row.get(c).copied().unwrap_or('?'))
                    .collect()
            })
            .collect();
        let mut frames = vec![board.clone()];
        for m in &rec.moves {
            let letter = Colour::of_seat(m.seat).letter();
            for sq in std::iter::once(&m.square).chain(&m.flips) {
                if let Some(cell) = board
                    .get_mut(sq.row as usize)
                    .and_then(|row| row.get_mut(sq.col as usize))
                {
                    *cell = letter;
                }
            }
            frames.push(board.clone());
        }
        Timeline { side, frames }
    }

    /// Discs of each seat (index 0..4) and neutral discs (index 4) after `ply` moves.
    pub fn counts(&self, ply: usize) -> [u32; 5] {
        let mut counts = [0; 5];
        for &c in self.frames[ply].iter().flatten() {
            let i = match c {
                'B' => 0,
                'W' => 1,
                'R' => 2,
                'G' => 3,
                'N' => 4,
                _ => continue,
            };
            counts[i] += 1;
        }
        counts
    }
}

fn colour_name(seat: usize) -> String {
    let name = Colour::of_seat(seat).name();
    let mut chars = name.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// 256-colour foreground for each disc letter.
fn disc_fg(c: char) -> Option<u8> {
    Some(match c {
        'B' => 16,
        'W' => 231,
        'R' => 196,
        'G' => 46,
        'N' => 250,
        _ => return None,
    })
}

const BOARD_BG: u8 = 30;
const FLIP_BG: u8 = 73;
const LAST_BG: u8 = 178;
const BLOCKED_BG: u8 = 238;
const RESET: &str = "\x1b[0m";

/// A seat's colour name; with colours, its disc as drawn on the board goes first, so that Black
/// stays readable on a dark terminal and White on a light one.
pub fn seat_label(seat: usize, colour: bool) -> String {
    let name = colour_name(seat);
    match (colour, disc_fg(Colour::of_seat(seat).letter())) {
        (true, Some(fg)) => {
            format!("\x1b[48;5;{BOARD_BG};38;5;{fg}m●{RESET} \x1b[1m{name}{RESET}")
        }
        _ => name,
    }
}

/// The board with coordinates. Plain: the record's letters (`B W R G N . # -`). Coloured: discs on
/// a board-coloured background, the last move and its flipped discs highlighted.
pub fn board_text(board: &[Vec<char>], last: Option<&MoveRecord>, colour: bool) -> String {
    let n = board.len();
    let mut out = String::new();
    let width = if colour { 3 } else { 2 };
    out.push_str("    ");
    for col in 0..n {
        let letter = (b'a' + col as u8) as char;
        if colour {
            let _ = write!(out, " {letter} ");
        } else {
            let _ = write!(out, "{letter} ");
        }
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    for (row, cells) in board.iter().enumerate() {
        let _ = write!(out, "{:>3} ", row + 1);
        for (col, &c) in cells.iter().enumerate() {
            if !colour {
                out.push(c);
                if col + 1 < n {
                    out.push(' ');
                }
                continue;
            }
            let sq = Square::new(col as u8, row as u8);
            let bg = match last {
                Some(m) if m.square == sq => LAST_BG,
                Some(m) if m.flips.contains(&sq) => FLIP_BG,
                _ => BOARD_BG,
            };
            match c {
                '-' => out.push_str(&" ".repeat(width)),
                '#' => {
                    let _ = write!(out, "\x1b[48;5;{BLOCKED_BG};38;5;244m ╳ {RESET}");
                }
                '.' => {
                    let _ = write!(out, "\x1b[48;5;{bg};38;5;23m · {RESET}");
                }
                c => match disc_fg(c) {
                    Some(fg) => {
                        let glyph = if c == 'N' { '◆' } else { '●' };
                        let _ = write!(out, "\x1b[48;5;{bg};38;5;{fg}m {glyph} {RESET}");
                    }
                    None => {
                        let _ = write!(out, "\x1b[48;5;{bg}m {c} {RESET}");
                    }
                },
            }
        }
        out.push('\n');
    }
    out
}

fn kind_text(kind: MoveKind) -> &'static str {
    match kind {
        MoveKind::Flipping => "flipping",
        MoveKind::Placing => "placing",
    }
}

/// A fault kind as a reader of the replay takes it: the record's word, with what it is about where
/// the word alone is terse.
fn fault_kind_text(kind: FaultKind) -> &'static str {
    match kind {
        FaultKind::Malformed => "malformed message",
        FaultKind::Illegal => "illegal move",
        FaultKind::Timeout | FaultKind::Crash => kind.as_str(),
    }
}

fn seat_name(rec: &GameRecord, seat: usize) -> String {
    rec.seats
        .iter()
        .find(|s| s.seat == seat)
        .map_or_else(|| format!("seat {seat}"), |s| visible(&s.name).into_owned())
}

/// `flips d4 e4`, or nothing for a move that flipped nothing.
fn flips_text(m: &MoveRecord) -> String {
    if m.flips.is_empty() {
        return String::new();
    }
    let list: Vec<String> = m.flips.iter().map(Square::to_string).collect();
    format!("flips {}", list.join(" "))
}

/// How many of the record's first moves the referee played itself (its `opening`, a league's
/// random opening) before the bots took over; never more than the moves there are.
pub fn opening_moves(rec: &GameRecord) -> usize {
    (rec.opening as usize).min(rec.moves.len())
}

/// What the name column says of a move of the opening: no bot chose it or took time over it.
const OPENING_LABEL: &str = "(opening)";

/// One move as a line: number, who, where, what it flipped, and how long the bot took; a move of
/// the referee's opening says so instead of a bot's name, and has no time.
pub fn move_line(rec: &GameRecord, index: usize, colour: bool) -> String {
    // The flips column is as wide as the game's longest list, so that the times line up.
    let flips_width = rec
        .moves
        .iter()
        .map(|m| flips_text(m).chars().count())
        .max()
        .unwrap_or(0);
    let m = &rec.moves[index];
    if index < opening_moves(rec) {
        return move_columns(m, index + 1, OPENING_LABEL, flips_width, colour, None);
    }
    move_text(m, index + 1, &seat_name(rec, m.seat), flips_width, colour)
}

/// One move as a line, numbered from 1 (`  12. Black mybot  f4  flipping  flips e4  0.05 ms`);
/// the flips column is padded to `flips_width` (at least 24) so that times line up. Shared by
/// replay and `match --show`.
pub fn move_text(
    m: &MoveRecord,
    number: usize,
    name: &str,
    flips_width: usize,
    colour: bool,
) -> String {
    move_columns(m, number, name, flips_width, colour, Some(m.ms))
}

/// The columns of a move's line, with the time when there is one to show.
fn move_columns(
    m: &MoveRecord,
    number: usize,
    name: &str,
    flips_width: usize,
    colour: bool,
    ms: Option<f64>,
) -> String {
    let flips = flips_text(m);
    let flips_width = flips_width.max(24);
    // Pad by the visible width of the colour name: the label may carry colour codes.
    let pad = " ".repeat(5usize.saturating_sub(colour_name(m.seat).len()));
    let who = format!(
        "{}{pad} {:<12}",
        seat_label(m.seat, colour),
        truncate(name, 12)
    );
    let time = ms.map_or(String::new(), |ms| format!("{ms:>9.2} ms"));
    format!(
        "{number:>4}. {who} {:<3}  {:<8}  {} {time}",
        m.square.to_string(),
        kind_text(m.kind),
        pad_end(&flips, flips_width),
    )
    .trim_end()
    .to_string()
}

/// Whether to draw in colour on a stream: only on a terminal, and neither when `NO_COLOR`
/// (https://no-color.org) is set and not empty nor on a dumb terminal, which cannot show them.
pub fn colour_for(stream_is_terminal: bool) -> bool {
    stream_is_terminal
        && std::env::var_os("NO_COLOR").map_or(true, |v| v.is_empty())
        && std::env::var_os("TERM").map_or(true, |t| t != "dumb")
}

/// A board as `board_text` takes it, from a position's rows.
pub fn board_of_rows(rows: &[String]) -> Vec<Vec<char>> {
    rows.iter().map(|r| r.chars().collect()).collect()
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).chain(std::iter::once('…')).collect()
    }
}

/// The faults that happened after exactly `ply` moves, as lines.
pub fn fault_lines(rec: &GameRecord, ply: usize, colour: bool) -> Vec<String> {
    rec.faults
        .iter()
        .filter(|f| f.ply as usize == ply)
        .map(|f| {
            let mut line = format!(
                "      ✗ {} {} disqualified {}: {}",
                seat_label(f.seat, colour),
                seat_name(rec, f.seat),
                if ply == 0 {
                    "at the start".to_string()
                } else {
                    format!("after move {ply}")
                },
                fault_kind_text(f.kind)
            );
            if !f.detail.is_empty() {
                let _ = write!(line, " ({})", visible(&f.detail));
            }
            line
        })
        .collect()
}

/// The header: which game, where it was read from (`source`, such as `games.jsonl:3`), its rules
/// and who played.
pub fn header(rec: &GameRecord, source: &dyn Display, colour: bool) -> String {
    let r = &rec.rules;
    let mut rules = vec![format!("{} players", r.players), r.board.to_string()];
    if !r.blocked.is_empty() {
        let list: Vec<String> = r.blocked.iter().map(Square::to_string).collect();
        rules.push(format!("blocked {}", list.join(" ")));
    }
    if r.anti {
        rules.push("Anti-Reversi (fewest discs win)".into());
    }
    if let Some(seed) = rec.seed {
        rules.push(format!("seed {seed}"));
    }
    match opening_moves(rec) {
        0 => {}
        1 => rules.push("opening of 1 move by the referee".into()),
        n => rules.push(format!("opening of {n} moves by the referee")),
    }
    rules.push(format!("started {}", rec.started));
    rules.push(format!("{:.1} s", rec.duration_ms as f64 / 1000.0));
    let mut out = format!("Game {} ({})\n{}\n", rec.game, source, rules.join(" · "));
    // Each bot's name and the version it reported, padded so the commands line up.
    let names: Vec<String> = rec
        .seats
        .iter()
        .map(
            |s| match s.ready.as_ref().and_then(|r| r.version.as_deref()) {
                Some(v) => format!("{} {}", visible(&s.name), visible(v)),
                None => visible(&s.name).into_owned(),
            },
        )
        .collect();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    for (s, name) in rec.seats.iter().zip(&names) {
        let pad = " ".repeat(5usize.saturating_sub(colour_name(s.seat).len()));
        let restarted = if s.restarted {
            "  (started again: it had ended after its previous game)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  {} {}{pad} {}  [{}]{restarted}",
            Colour::of_seat(s.seat).letter(),
            seat_label(s.seat, colour),
            pad_end(name, width),
            visible(&s.command.join(" "))
        );
    }
    out
}

/// Scores after `ply` moves, with who is out and (at the end) the result.
pub fn scores_text(rec: &GameRecord, timeline: &Timeline, ply: usize, colour: bool) -> String {
    let counts = timeline.counts(ply);
    let mut parts = Vec::new();
    for (seat, count) in counts.iter().enumerate().take(rec.rules.players as usize) {
        let out = rec
            .faults
            .iter()
            .any(|f| f.seat == seat && f.ply as usize <= ply);
        parts.push(format!(
            "{} {}{}",
            seat_label(seat, colour),
            count,
            if out { " (disqualified)" } else { "" }
        ));
    }
    let mut text = format!("Discs: {}", parts.join(" · "));
    if rec.rules.players == 3 || counts[4] > 0 {
        let _ = write!(text, " · neutral {}", counts[4]);
    }
    text
}

/// The result and ranking as the record gives them.
pub fn result_text(rec: &GameRecord, colour: bool) -> String {
    let result = match rec.result {
        Outcome::Win { winner } => format!(
            "{} ({}) wins",
            seat_label(winner, colour),
            seat_name(rec, winner)
        ),
        Outcome::Draw => "a draw for the whole table".into(),
    };
    // Places as the standings count them: after two seats tied for second comes fourth.
    let mut ahead = 0;
    let places: Vec<String> = rec
        .ranking
        .iter()
        .map(|place| {
            let seats: Vec<String> = place
                .iter()
                .map(|&s| {
                    let score = rec.scores.get(s).map_or(String::new(), |n| format!(" {n}"));
                    format!("{}{score}", seat_label(s, colour))
                })
                .collect();
            let number = ahead + 1;
            ahead += place.len();
            format!("{number}. {}", seats.join(" = "))
        })
        .collect();
    format!("Result: {result}\nRanking: {}", places.join("  "))
}

/// One game as text, up to `ply` moves: header, moves, board, discs, and the result at the end.
pub fn game_text(
    rec: &GameRecord,
    source: &dyn Display,
    timeline: &Timeline,
    ply: usize,
    colour: bool,
) -> String {
    let total = rec.moves.len();
    let mut out = header(rec, source, colour);
    // The referee's opening stands apart from the bots' moves, under a heading of its own.
    let opening = opening_moves(rec);
    match opening {
        0 => out.push_str("Moves\n"),
        1 => out.push_str("Opening: 1 move played by the referee, not by a bot\n"),
        n => {
            let _ = writeln!(
                out,
                "Opening: {n} moves played by the referee, not by the bots"
            );
        }
    }
    out.extend(fault_lines(rec, 0, colour).into_iter().map(|l| l + "\n"));
    for i in 0..ply {
        if i == opening && opening > 0 {
            out.push_str("Moves\n");
        }
        out.push_str(&move_line(rec, i, colour));
        out.push('\n');
        out.extend(
            fault_lines(rec, i + 1, colour)
                .into_iter()
                .map(|l| l + "\n"),
        );
    }
    let _ = writeln!(out, "Board after move {ply} of {total}");
    out.push_str(&board_text(
        &timeline.frames[ply],
        ply.checked_sub(1).and_then(|i| rec.moves.get(i)),
        colour,
    ));
    out.push_str(&scores_text(rec, timeline, ply, colour));
    out.push('\n');
    if ply == total {
        out.push_str(&result_text(rec, colour));
        out.push('\n');
    } else if let Some(next) = rec.moves.get(ply) {
        let _ = writeln!(out, "{}", next_text(rec, ply, next, colour));
    }
    out
}

/// Who moves next, after `ply` moves; a move of the opening is the referee's.
pub fn next_text(rec: &GameRecord, ply: usize, next: &MoveRecord, colour: bool) -> String {
    let who = seat_label(next.seat, colour);
    if ply < opening_moves(rec) {
        format!("Next: {who} to move, by the referee's opening")
    } else {
        format!("Next: {who} to move")
    }
}
