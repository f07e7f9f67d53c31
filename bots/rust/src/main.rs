//! multiversi starter bot in Rust.
//!
//! Build and run it against the built-in bots (from the repository root):
//!
//! ```text
//! cargo build --release --manifest-path bots/rust/Cargo.toml
//! multiversi match bots/rust/target/release/multiversi-starter builtin:greedy builtin:greedy builtin:random
//! ```
//!
//! How a bot talks to the referee (protocol version 1, see protocol/PROTOCOL.md):
//! - The referee writes one JSON object per line to our stdin; we answer with one JSON object per
//!   line on stdout and flush after every line (Rust's stdout is line-buffered, but flushing
//!   by hand makes it certain). Logs go to stderr (`eprintln!`) only.
//! - `start` -> we answer `{"type":"ready","game":...}`, echoing the start's game id;
//!   `turn` -> we answer `{"type":"move","square":"d3","ply":...}`, echoing the turn's ply.
//!   The echo lets the referee tell our answer to this turn from a late second answer to an
//!   earlier one; without it, a stray line could be played as our move.
//!   `end` -> no answer; the game is over. Another `start` may follow (next game).
//! - When stdin is closed, we exit.
//! - Unknown message types and unknown fields are ignored, so newer referees still work with us.
//!
//! Strategy: greedy. Of the legal moves, play the one that flips the most discs.

use serde_json::{json, Value};
use std::io::{self, BufRead, Write};

const NAME: &str = "starter-rust";
const VERSION: &str = "1";

/// Seat number -> the letter of that seat's discs in the board rows: 0 Black, 1 White, 2 Red,
/// 3 Green.
const COLOUR_LETTERS: [u8; 4] = *b"BWRG";
/// The eight directions as (row, column) steps.
const DIRECTIONS: [(i32, i32); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

/// Letters that are a disc. `N` is the neutral disc (three-player games): it belongs to nobody,
/// can be flipped, and counts as a disc. `.` is empty, `#` blocked, `-` not part of the board.
fn is_disc(ch: u8) -> bool {
    b"BWRGN".contains(&ch)
}

/// The board as the referee sends it: row 0 is the top row (row "1"), column 0 is `a`.
struct Board {
    rows: Vec<Vec<u8>>,
}

impl Board {
    /// The character at (row, col); outside the rows counts as not part of the board.
    fn cell(&self, row: i32, col: i32) -> u8 {
        if row < 0 || col < 0 {
            return b'-';
        }
        let row = self.rows.get(row as usize);
        row.and_then(|r| r.get(col as usize))
            .copied()
            .unwrap_or(b'-')
    }

    /// How many discs a disc of letter `me` placed on the empty square (row, col) would flip.
    /// In each of the eight directions: the unbroken line of discs that are not ours (any mix of
    /// other colours and neutral discs), closed by one of our discs, flips. An empty, blocked or
    /// off-board square ends the line without flipping anything.
    fn count_flips(&self, row: i32, col: i32, me: u8) -> usize {
        let mut total = 0;
        for (dr, dc) in DIRECTIONS {
            let (mut r, mut c, mut run) = (row + dr, col + dc, 0);
            while is_disc(self.cell(r, c)) && self.cell(r, c) != me {
                (r, c, run) = (r + dr, c + dc, run + 1);
            }
            if run > 0 && self.cell(r, c) == me {
                total += run;
            }
        }
        total
    }

    /// The legal moves computed from the rows, in case a turn message carries no `legal` list:
    /// flipping moves if there are any, otherwise every empty square touching a disc (placing).
    fn own_legal_moves(&self, me: u8) -> Vec<String> {
        let mut empty = Vec::new();
        for (r, row) in self.rows.iter().enumerate() {
            for (c, &ch) in row.iter().enumerate() {
                if ch == b'.' {
                    empty.push((r as i32, c as i32));
                }
            }
        }
        let flipping: Vec<_> = empty
            .iter()
            .copied()
            .filter(|&(r, c)| self.count_flips(r, c, me) > 0)
            .collect();
        let chosen = if flipping.is_empty() {
            let touches = |&(r, c): &(i32, i32)| {
                DIRECTIONS
                    .iter()
                    .any(|(dr, dc)| is_disc(self.cell(r + dr, c + dc)))
            };
            empty.into_iter().filter(touches).collect()
        } else {
            flipping
        };
        chosen.into_iter().map(|(r, c)| square_name(r, c)).collect()
    }
}

/// `a1` is the top-left corner: column letter from `a`, row number from 1 (top).
/// Returns (row, col) counted from 0.
fn parse_square(name: &str) -> Option<(i32, i32)> {
    let col = *name.as_bytes().first()? as i32 - b'a' as i32;
    let row: i32 = name.get(1..)?.parse().ok()?;
    Some((row - 1, col))
}

fn square_name(row: i32, col: i32) -> String {
    format!("{}{}", (b'a' + col as u8) as char, row + 1)
}

/// A list of strings from a JSON array (anything else in it is skipped).
fn strings(value: &Value) -> Vec<String> {
    let items = value.as_array().map(Vec::as_slice).unwrap_or_default();
    items
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// Picks a square for a `turn` message. Improve me!
fn choose_move(message: &Value, my_seat: u64) -> Option<String> {
    let board = Board {
        rows: strings(&message["rows"])
            .into_iter()
            .map(String::into_bytes)
            .collect(),
    };
    let seat = message["seat"].as_u64().unwrap_or(my_seat);
    let me = COLOUR_LETTERS[(seat % 4) as usize];
    // The referee lists the legal moves and their kind. With kind "flipping" every listed move
    // flips something (and we must flip if we can); with kind "placing" nobody can flip anything,
    // all listed moves flip 0, and any of them is fine.
    let mut legal = strings(&message["legal"]);
    if legal.is_empty() {
        legal = board.own_legal_moves(me);
    }
    let mut best: Option<(usize, String)> = None;
    for name in legal {
        let Some((row, col)) = parse_square(&name) else {
            continue;
        };
        let flips = board.count_flips(row, col, me);
        match &best {
            // Not more than the best so far: on a tie keep the earlier square.
            Some((most, _)) if flips <= *most => {}
            _ => best = Some((flips, name)),
        }
    }
    best.map(|(_, name)| name)
}

/// Writes one protocol message: compact JSON on one line, flushed at once. (serde_json writes
/// the keys in alphabetical order, so `type` is not first; in JSON the order does not matter.)
fn send(out: &mut impl Write, message: Value) -> io::Result<()> {
    writeln!(out, "{message}")?;
    out.flush()
}

fn main() -> io::Result<()> {
    let mut out = io::stdout().lock();
    let mut my_seat = 0;
    // `lines()` ends when stdin is closed: then we return and the process exits.
    for line in io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let message: Value = match serde_json::from_str(&line) {
            Ok(message) => message,
            Err(error) => {
                eprintln!("[{NAME}] not JSON ({error}), ignored: {line:.80}");
                continue;
            }
        };
        // Indexing a `Value` with a missing key gives `Null`, never a panic.
        match message["type"].as_str() {
            Some("start") => {
                my_seat = message["seat"].as_u64().unwrap_or(0);
                let game = message["game"].as_str().unwrap_or("?");
                eprintln!("[{NAME}] game {game}: seat {my_seat}");
                let ready = json!({
                    "type": "ready", "name": NAME, "version": VERSION, "game": message["game"]
                });
                send(&mut out, ready)?;
            }
            Some("turn") => {
                let square = choose_move(&message, my_seat).unwrap_or_else(|| "a1".into());
                let answer = json!({"type": "move", "square": square, "ply": message["ply"]});
                send(&mut out, answer)?;
            }
            Some("end") => {
                let game = message["game"].as_str().unwrap_or("?");
                let (result, scores) = (&message["result"], &message["scores"]);
                eprintln!("[{NAME}] game {game} over: {result}, scores {scores}");
            }
            // Any other type: ignore it (future protocol versions may add messages).
            _ => {}
        }
    }
    Ok(())
}
