//! The terminal replay: the board in colour when stdout is a terminal (plain letters when piped or
//! when `NO_COLOR` is set, so the output can be read by scripts), each move as a line, scores,
//! faults and result; `--animate` shows the boards one after another; on a terminal, arrow keys
//! step through the game.
//!
//! The boards shown are those the record describes (its initial board, then each move's square
//! and flips), not those the engine would compute: replay shows what happened, `--verify` judges it.

use super::read::Loaded;
use crate::exit::{self, fail};
use crate::record::{FaultKind, GameRecord, MoveRecord};
use crate::rules::{Colour, MoveKind, Outcome, Square};
use crate::text::visible;
use anyhow::Result;
use std::fmt::Write as _;
use std::io::Write;
use std::time::Duration;

/// How to show games.
#[derive(Clone, Debug)]
pub struct Options {
    /// ANSI colours.
    pub colour: bool,
    /// Clear the screen between animation frames (a terminal) rather than print them in turn.
    pub clear: bool,
    /// Show the board after this many moves instead of after the last.
    pub ply: Option<u32>,
    /// `--animate` with this delay in milliseconds.
    pub animate: Option<u64>,
}

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

fn fault_kind_text(kind: FaultKind) -> &'static str {
    match kind {
        FaultKind::Timeout => "timeout",
        FaultKind::Crash => "crash",
        FaultKind::Malformed => "malformed message",
        FaultKind::Illegal => "illegal move",
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

/// One move as a line: number, who, where, what it flipped, and how long the bot took.
pub fn move_line(rec: &GameRecord, index: usize, colour: bool) -> String {
    // The flips column is as wide as the game's longest list, so that the times line up.
    let flips_width = rec
        .moves
        .iter()
        .map(|m| flips_text(m).chars().count())
        .max()
        .unwrap_or(0);
    let m = &rec.moves[index];
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
    let flips = flips_text(m);
    let flips_width = flips_width.max(24);
    // Pad by the visible width of the colour name: the label may carry colour codes.
    let pad = " ".repeat(5usize.saturating_sub(colour_name(m.seat).len()));
    let who = format!(
        "{}{pad} {:<12}",
        seat_label(m.seat, colour),
        truncate(name, 12)
    );
    format!(
        "{number:>4}. {who} {:<3}  {:<8}  {:<flips_width$} {:>9.2} ms",
        m.square.to_string(),
        kind_text(m.kind),
        flips,
        m.ms
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
fn fault_lines(rec: &GameRecord, ply: usize, colour: bool) -> Vec<String> {
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

/// The header: which game, its rules and who played.
pub fn header(game: &Loaded, colour: bool) -> String {
    let rec = &game.record;
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
    rules.push(format!("started {}", rec.started));
    rules.push(format!("{:.1} s", rec.duration_ms as f64 / 1000.0));
    let mut out = format!(
        "Game {} ({})\n{}\n",
        rec.game,
        game.source,
        rules.join(" · ")
    );
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
        let _ = writeln!(
            out,
            "  {} {}{pad} {name:<width$}  [{}]",
            Colour::of_seat(s.seat).letter(),
            seat_label(s.seat, colour),
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
    let places: Vec<String> = rec
        .ranking
        .iter()
        .enumerate()
        .map(|(i, place)| {
            let seats: Vec<String> = place
                .iter()
                .map(|&s| {
                    let score = rec.scores.get(s).map_or(String::new(), |n| format!(" {n}"));
                    format!("{}{score}", seat_label(s, colour))
                })
                .collect();
            format!("{}. {}", i + 1, seats.join(" = "))
        })
        .collect();
    format!("Result: {result}\nRanking: {}", places.join("  "))
}

fn write_out(out: &mut impl Write, text: &str) -> Result<()> {
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(exit::stdout_error)
}

/// One game as text, up to `ply` moves: header, moves, board, discs, and the result at the end.
pub fn game_text(game: &Loaded, timeline: &Timeline, ply: usize, colour: bool) -> String {
    let rec = &game.record;
    let total = rec.moves.len();
    let mut out = header(game, colour);
    out.push_str("Moves\n");
    out.extend(fault_lines(rec, 0, colour).into_iter().map(|l| l + "\n"));
    for i in 0..ply {
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
        let _ = writeln!(out, "Next: {} to move", seat_label(next.seat, colour));
    }
    out
}

/// Prints the selected games one after another (or animates them).
pub fn print(games: &[&Loaded], options: &Options) -> Result<()> {
    let mut out = std::io::stdout().lock();
    for (i, game) in games.iter().enumerate() {
        let rec = &game.record;
        let timeline = Timeline::new(rec);
        let total = rec.moves.len();
        let end = options.ply.map_or(total, |p| (p as usize).min(total));
        if i > 0 {
            write_out(&mut out, "\n")?;
        }
        let Some(delay) = options.animate else {
            write_out(&mut out, &game_text(game, &timeline, end, options.colour))?;
            continue;
        };
        for ply in 0..=end {
            let mut frame = String::new();
            if options.clear {
                frame.push_str("\x1b[H\x1b[2J");
                frame.push_str(&header(game, options.colour));
            } else if ply == 0 {
                frame.push_str(&header(game, options.colour));
            }
            match ply.checked_sub(1) {
                Some(i) => frame.push_str(&move_line(rec, i, options.colour)),
                None => frame.push_str("Start"),
            }
            frame.push('\n');
            frame.extend(
                fault_lines(rec, ply, options.colour)
                    .into_iter()
                    .map(|l| l + "\n"),
            );
            frame.push_str(&board_text(
                &timeline.frames[ply],
                ply.checked_sub(1).and_then(|i| rec.moves.get(i)),
                options.colour,
            ));
            frame.push_str(&scores_text(rec, &timeline, ply, options.colour));
            frame.push('\n');
            if ply == total {
                frame.push_str(&result_text(rec, options.colour));
                frame.push('\n');
            }
            if !options.clear && ply < end {
                frame.push('\n');
            }
            write_out(&mut out, &frame)?;
            if ply < end {
                std::thread::sleep(Duration::from_millis(delay));
            }
        }
    }
    Ok(())
}

/// A key that steps the interactive replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Next,
    Prev,
    First,
    Last,
    PageDown,
    PageUp,
    NextGame,
    PrevGame,
    Quit,
}

/// Decodes the keys in one read from a raw-mode terminal (several may arrive at once).
pub fn decode_keys(bytes: &[u8]) -> Vec<Key> {
    let mut keys = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        let (key, used) = match rest {
            [0x1b, b'[' | b'O', b'C', ..] => (Some(Key::Next), 3),
            [0x1b, b'[' | b'O', b'D', ..] => (Some(Key::Prev), 3),
            [0x1b, b'[' | b'O', b'B', ..] => (Some(Key::Next), 3),
            [0x1b, b'[' | b'O', b'A', ..] => (Some(Key::Prev), 3),
            [0x1b, b'[' | b'O', b'H', ..] => (Some(Key::First), 3),
            [0x1b, b'[' | b'O', b'F', ..] => (Some(Key::Last), 3),
            [0x1b, b'[', b'1' | b'7', b'~', ..] => (Some(Key::First), 4),
            [0x1b, b'[', b'4' | b'8', b'~', ..] => (Some(Key::Last), 4),
            [0x1b, b'[', b'5', b'~', ..] => (Some(Key::PageUp), 4),
            [0x1b, b'[', b'6', b'~', ..] => (Some(Key::PageDown), 4),
            [0x1b, b'[', ..] => {
                // An unknown sequence: skip to its final byte.
                let end = rest[2..]
                    .iter()
                    .position(|b| (0x40..=0x7e).contains(b))
                    .map_or(rest.len(), |p| p + 3);
                (None, end)
            }
            [0x1b] => (Some(Key::Quit), 1),
            [0x1b, ..] => (None, 1),
            [b'q' | b'Q' | 0x03 | 0x04, ..] => (Some(Key::Quit), 1),
            [b' ' | b'l' | b'j' | b'\r', ..] => (Some(Key::Next), 1),
            [b'h' | b'k' | 0x7f, ..] => (Some(Key::Prev), 1),
            [b'g', ..] => (Some(Key::First), 1),
            [b'G', ..] => (Some(Key::Last), 1),
            [b'n', ..] => (Some(Key::NextGame), 1),
            [b'p', ..] => (Some(Key::PrevGame), 1),
            _ => (None, 1),
        };
        keys.extend(key);
        i += used;
    }
    keys
}

/// One screen of the interactive replay.
fn screen(
    game: &Loaded,
    number: usize,
    of: usize,
    timeline: &Timeline,
    ply: usize,
    colour: bool,
    height: usize,
) -> String {
    let rec = &game.record;
    let total = rec.moves.len();
    let mut out = String::from("\x1b[H\x1b[2J");
    out.push_str(&header(game, colour));
    out.push_str(&board_text(
        &timeline.frames[ply],
        ply.checked_sub(1).and_then(|i| rec.moves.get(i)),
        colour,
    ));
    let _ = writeln!(out, "Move {ply} of {total} · game {number} of {of}");
    out.push_str(&scores_text(rec, timeline, ply, colour));
    out.push('\n');
    let tail = if ply == total {
        result_text(rec, colour) + "\n"
    } else if let Some(next) = rec.moves.get(ply) {
        format!("Next: {} to move\n", seat_label(next.seat, colour))
    } else {
        String::new()
    };
    // The recent moves, the current one last, as many as fit the terminal (at most 8 lines).
    let used = out.matches('\n').count() + tail.matches('\n').count() + 1;
    let room = height.saturating_sub(used).min(8);
    let mut recent: Vec<String> = Vec::new();
    for i in (0..ply).rev() {
        let mut lines = fault_lines(rec, i + 1, colour);
        lines.insert(0, move_line(rec, i, colour));
        if recent.len() + lines.len() > room {
            break;
        }
        for line in lines.into_iter().rev() {
            recent.push(line);
        }
    }
    for line in recent.into_iter().rev() {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&tail);
    out.push_str("←/→ step · PgUp/PgDn ±10 · Home/End · n/p game · q quit");
    // Raw mode leaves output processing on, so the terminal still turns "\n" into CR LF.
    out
}

/// Steps through the games with the keyboard until `q`.
pub fn interactive(games: &[&Loaded], options: &Options) -> Result<()> {
    let guard = tty::RawMode::enter().map_err(|e| {
        fail(
            exit::OUTPUT,
            format!("cannot set up the terminal for stepping: {e}"),
        )
    })?;
    let mut out = std::io::stdout().lock();
    write_out(&mut out, "\x1b[?1049h\x1b[?25l")?;
    let mut index = 0;
    let mut timeline = Timeline::new(&games[0].record);
    let mut ply = options
        .ply
        .map_or(0, |p| (p as usize).min(games[0].record.moves.len()));
    let mut buf = [0u8; 64];
    loop {
        let game = games[index];
        write_out(
            &mut out,
            &screen(
                game,
                index + 1,
                games.len(),
                &timeline,
                ply,
                options.colour,
                tty::height().unwrap_or(24),
            ),
        )?;
        let n = guard
            .read(&mut buf)
            .map_err(|e| fail(exit::OUTPUT, format!("cannot read the keyboard: {e}")))?;
        if n == 0 {
            break;
        }
        let total = game.record.moves.len();
        let mut switch = None;
        let mut quit = false;
        for key in decode_keys(&buf[..n]) {
            match key {
                Key::Next => ply = (ply + 1).min(total),
                Key::Prev => ply = ply.saturating_sub(1),
                Key::PageDown => ply = (ply + 10).min(total),
                Key::PageUp => ply = ply.saturating_sub(10),
                Key::First => ply = 0,
                Key::Last => ply = total,
                Key::NextGame => switch = Some((index + 1).min(games.len() - 1)),
                Key::PrevGame => switch = Some(index.saturating_sub(1)),
                Key::Quit => quit = true,
            }
        }
        if quit {
            break;
        }
        if let Some(next) = switch.filter(|&i| i != index) {
            index = next;
            timeline = Timeline::new(&games[index].record);
            ply = 0;
        }
    }
    drop(out);
    // Dropping the guard restores the terminal, leaves the alternate screen and shows the cursor.
    drop(guard);
    Ok(())
}

/// Raw terminal mode for stepping with single keys, restored when dropped, on a panic and on a
/// termination signal, so the user's shell is never left without echo.
///
/// Signals (SIGTERM, SIGHUP, SIGINT, SIGQUIT; raw mode turns off the keys that send SIGINT and
/// SIGQUIT, but `kill` still can) are handled by restoring the terminal in the handler itself and
/// then dying of the same signal with its default action. The other design, a flag that the key
/// loop checks, would need every place the loop can block (the key read, but also a write to a
/// terminal that is not being read) to wake up on the signal, and would still have to re-raise
/// the signal for an honest exit status. The handler needs nothing of the loop: `tcsetattr` and
/// `write` are async-signal-safe, the saved settings are read without a lock, and the parent sees
/// the process killed by the signal, as if no handler had been there.
mod tty {
    use std::cell::UnsafeCell;
    use std::io;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Leaves the alternate screen and shows the cursor.
    const RESET: &[u8] = b"\x1b[?25h\x1b[?1049l";

    /// The signals that would otherwise end the replay with the terminal still raw.
    const SIGNALS: [libc::c_int; 4] = [libc::SIGTERM, libc::SIGHUP, libc::SIGINT, libc::SIGQUIT];

    /// The settings to restore. Written only while `ARMED` is false, before any handler that reads
    /// it is installed, so the signal handler can read it without a lock (a lock could be held by
    /// the very code the signal interrupted).
    struct Saved(UnsafeCell<libc::termios>);
    // SAFETY: written only before the handlers and hooks that read it are in place (see above).
    unsafe impl Sync for Saved {}
    // SAFETY: an all-zero termios is a valid value of that plain struct.
    static SAVED: Saved = Saved(UnsafeCell::new(unsafe { std::mem::zeroed() }));
    /// Whether the terminal is raw and `SAVED` is to be put back.
    static ARMED: AtomicBool = AtomicBool::new(false);

    /// Puts the saved settings back and resets the screen. Async-signal-safe.
    fn put_back() {
        // SAFETY: SAVED holds what tcgetattr filled in (see `RawMode::enter`); RESET is a valid
        // buffer of its length.
        unsafe {
            libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, SAVED.0.get());
            libc::write(libc::STDOUT_FILENO, RESET.as_ptr().cast(), RESET.len());
        }
    }

    /// Puts the saved settings back once (the panic hook and then the guard both ask).
    fn restore() {
        if ARMED.swap(false, Ordering::AcqRel) {
            put_back();
        }
    }

    /// Restores the terminal whether or not `restore` already ran (a signal may arrive in the
    /// middle of it; doing it twice is harmless), then dies of the same signal: the handler was
    /// installed with `SA_RESETHAND`, so the signal, raised again and delivered once this
    /// returns, takes its default action.
    extern "C" fn on_signal(sig: libc::c_int) {
        put_back();
        // SAFETY: raise is async-signal-safe.
        unsafe {
            libc::raise(sig);
        }
    }

    /// The terminal's number of rows, if stdout is a terminal that says.
    pub fn height() -> Option<usize> {
        // SAFETY: winsize is plain data that TIOCGWINSZ fills in.
        let mut size: libc::winsize = unsafe { std::mem::zeroed() };
        let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
        (ok && size.ws_row > 0).then_some(size.ws_row as usize)
    }

    /// Raw mode while it lives; holds the signal actions it replaced, to put them back.
    pub struct RawMode {
        previous: Vec<(libc::c_int, libc::sigaction)>,
    }

    impl RawMode {
        pub fn enter() -> io::Result<RawMode> {
            // SAFETY: termios is plain data; tcgetattr fills it or fails.
            let mut t: libc::termios = unsafe { std::mem::zeroed() };
            if unsafe { libc::tcgetattr(libc::STDIN_FILENO, &mut t) } != 0 {
                return Err(io::Error::last_os_error());
            }
            if ARMED.load(Ordering::Acquire) {
                return Err(io::Error::other("the terminal is already in raw mode"));
            }
            // SAFETY: nothing reads SAVED while ARMED is false and no handler is installed.
            unsafe { *SAVED.0.get() = t };
            ARMED.store(true, Ordering::Release);
            let previous_hook = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                // Leave the alternate screen and show the cursor before the message.
                restore();
                previous_hook(info);
            }));
            let mut mode = RawMode {
                previous: Vec::new(),
            };
            for sig in SIGNALS {
                // SAFETY: sigaction is plain data; the handler only calls async-signal-safe
                // functions.
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = on_signal as *const () as libc::sighandler_t;
                    action.sa_flags = libc::SA_RESETHAND;
                    // The other signals wait while the handler restores the terminal.
                    libc::sigemptyset(&mut action.sa_mask);
                    for other in SIGNALS {
                        libc::sigaddset(&mut action.sa_mask, other);
                    }
                    let mut old: libc::sigaction = std::mem::zeroed();
                    libc::sigaction(sig, &action, &mut old);
                    if old.sa_sigaction == libc::SIG_IGN {
                        // An ignored signal (as under nohup) stays ignored.
                        libc::sigaction(sig, &old, std::ptr::null_mut());
                    } else {
                        mode.previous.push((sig, old));
                    }
                }
            }
            t.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ISIG | libc::IEXTEN);
            t.c_iflag &= !(libc::IXON | libc::ICRNL);
            t.c_cc[libc::VMIN] = 1;
            t.c_cc[libc::VTIME] = 0;
            // SAFETY: as above, with a termios derived from the current one.
            if unsafe { libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &t) } != 0 {
                let e = io::Error::last_os_error();
                // Nothing changed on the terminal; dropping the guard puts back the handlers.
                ARMED.store(false, Ordering::Release);
                drop(mode);
                return Err(e);
            }
            Ok(mode)
        }

        /// Reads whatever keys are available (blocking for at least one byte).
        pub fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
            loop {
                // SAFETY: reading into a valid buffer of the given length.
                let n =
                    unsafe { libc::read(libc::STDIN_FILENO, buf.as_mut_ptr().cast(), buf.len()) };
                if n >= 0 {
                    return Ok(n as usize);
                }
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }

    impl Drop for RawMode {
        fn drop(&mut self) {
            // The terminal first: a signal from here on finds it restored (the handler restores
            // it again) or, once its old action is back, nothing left to restore.
            restore();
            for (sig, old) in &self.previous {
                // SAFETY: putting back the action sigaction returned.
                unsafe {
                    libc::sigaction(*sig, old, std::ptr::null_mut());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_decode_as_terminals_send_them() {
        use Key::*;
        assert_eq!(decode_keys(b"\x1b[C\x1b[D\x1bOC"), vec![Next, Prev, Next]);
        assert_eq!(
            decode_keys(b"\x1b[H\x1b[F\x1b[1~\x1b[4~"),
            vec![First, Last, First, Last]
        );
        assert_eq!(
            decode_keys(b"\x1b[5~\x1b[6~np"),
            vec![PageUp, PageDown, NextGame, PrevGame]
        );
        assert_eq!(decode_keys(b"\x1b[1;5Cq"), vec![Quit]);
        assert_eq!(decode_keys(b"\x1b"), vec![Quit]);
        assert_eq!(decode_keys(b"\x03"), vec![Quit]);
        assert_eq!(decode_keys(b"x"), vec![]);
    }
}
