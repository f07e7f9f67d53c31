//! Property tests: what bots and files can feed the referee never makes it panic, nor a damaged
//! record the replay that draws it, and the engine's list of legal moves agrees with its legality
//! gate. Case counts are bounded so that
//! the suite stays quick; the `fuzz/` crate runs the parsers for as long as one likes.

use crate::support::samples::{sample_games, to_lines};
use multiversi::protocol::{parse_reply, Reply};
use multiversi::replay::read::{read_line, read_lines, Records};
use multiversi::rng::Rng;
use multiversi::rules::{Position, Rules, Setup, Square};
use proptest::prelude::*;
use std::path::Path;

/// Pieces a bot's reply line is made of, to reach past the first JSON error more often than
/// uniformly random bytes do.
const REPLY_PIECES: &[&str] = &[
    "{",
    "}",
    "\"type\"",
    "\"move\"",
    "\"ready\"",
    "\"square\"",
    "\"name\"",
    "\"version\"",
    ":",
    ",",
    "\"c4\"",
    "\"z9\"",
    "\"aa1\"",
    "\"a0\"",
    "\"j10\"",
    "null",
    "true",
    "1e999",
    "-0",
    "[]",
    "\"\\u0000\"",
    "\"\\ud800\"",
    "\\",
    "\"",
    " ",
    "\r",
    "\u{e9}",
    "\u{1b}[2J",
    "\u{ffff}",
];

fn reply_like() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            prop::sample::select(REPLY_PIECES).prop_map(|p| p.as_bytes().to_vec()),
            prop::collection::vec(any::<u8>(), 0..4),
        ],
        0..24,
    )
    .prop_map(|pieces| pieces.concat())
}

/// A real record line with a few bytes changed, inserted, removed, or cut off.
fn damaged_record_line() -> impl Strategy<Value = Vec<u8>> {
    let lines: Vec<Vec<u8>> = sample_games()
        .iter()
        .map(|g| {
            to_lines(std::slice::from_ref(g))
                .trim_end()
                .as_bytes()
                .to_vec()
        })
        .collect();
    (
        prop::sample::select(lines),
        prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<u8>()), 1..6),
    )
        .prop_map(|(mut line, edits)| {
            for (at, how, byte) in edits {
                if line.is_empty() {
                    break;
                }
                let i = at.index(line.len());
                match how {
                    0 => line[i] = byte,
                    1 => line.insert(i, byte),
                    2 => {
                        line.remove(i);
                    }
                    _ => line.truncate(i),
                }
            }
            line
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn any_bytes_from_a_bot_parse_or_fail_without_panic(line in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = parse_reply(&line);
    }

    #[test]
    fn reply_like_lines_parse_or_fail_without_panic(line in reply_like()) {
        if let Ok(Reply::Move { square, .. }) = parse_reply(&line) {
            // Whatever was accepted names a square in the protocol's own spelling.
            prop_assert_eq!(square.to_string().parse::<Square>().ok(), Some(square));
        }
    }

    #[test]
    fn every_square_spelled_as_the_protocol_does_is_read_back(col in 0u8..26, row in 0u8..26) {
        let square = Square { col, row };
        let line = format!("{{\"type\":\"move\",\"square\":\"{square}\"}}");
        prop_assert_eq!(parse_reply(line.as_bytes()), Ok(Reply::Move { square, ply: None }));
    }

    #[test]
    fn any_bytes_as_a_record_line_are_read_or_refused_without_panic(line in prop::collection::vec(any::<u8>(), 0..300)) {
        let _ = read_line(&line);
        let _ = serde_json::from_slice::<multiversi::record::GameRecord>(&line);
    }

    #[test]
    fn any_bytes_as_a_record_file_are_read_line_by_line(bytes in prop::collection::vec(
        prop_oneof![Just(b'\n'), Just(b'\r'), any::<u8>()], 0..400)) {
        let mut records = Records::default();
        read_lines(Path::new("fuzzed.jsonl"), &bytes, &mut records);
        let lines = bytes.split(|&b| b == b'\n').count();
        prop_assert!(records.games.len() + records.damaged.len() <= lines);
    }

    #[test]
    fn damaged_records_are_read_or_refused_and_checked_without_panic(line in damaged_record_line()) {
        let _ = serde_json::from_slice::<multiversi::record::GameRecord>(&line);
        // A damaged record that still parses goes to `replay --verify`, which must say what is
        // wrong with it rather than fall over.
        if let Ok(record) = read_line(&line) {
            let _ = multiversi::replay::verify::check(&record);
            draw_every_way(record);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn records_with_fields_out_of_range_are_refused_or_drawn_without_panic(
        line in out_of_range_record_line()
    ) {
        if let Ok(record) = read_line(&line) {
            let _ = multiversi::replay::verify::check(&record);
            draw_every_way(record);
        }
    }
}

/// Draws a record every way the replay does, in colour and plain: the text replay (`--ply` at
/// the start, the middle and the end), every frame of `--animate`, the screens of the
/// interactive replay on a tall and a tiny terminal, and the HTML viewer. Any panic fails.
fn draw_every_way(record: multiversi::record::GameRecord) {
    use multiversi::render as draw;
    use multiversi::replay::{html, read, terminal};
    let game = read::Loaded {
        source: read::Source {
            path: "damaged.jsonl".into(),
            line: 1,
        },
        record,
    };
    let timeline = draw::Timeline::new(&game.record);
    let total = game.record.moves.len();
    for colour in [false, true] {
        for ply in [0, total / 2, total] {
            let _ = draw::game_text(&game.record, &game.source, &timeline, ply, colour);
            for height in [60, 3] {
                let _ = terminal::screen(&game, 1, 1, &timeline, ply, colour, height);
            }
        }
        let options = terminal::Options {
            colour,
            clear: colour,
            ply: None,
            animate: Some(0),
        };
        for ply in 0..=total {
            let _ = terminal::animation_frame(&game, &timeline, ply, total, &options);
        }
    }
    let _ = html::render(&[&game], Some(total as u32));
}

/// The element of a list an index picks, or None when the list is empty.
fn pick<'a, T>(at: &prop::sample::Index, items: &'a mut [T]) -> Option<&'a mut T> {
    if items.is_empty() {
        return None;
    }
    let i = at.index(items.len());
    items.get_mut(i)
}

/// A real record with fields set to what no referee writes but JSON can hold: a move's flips
/// repeated thousands of times (more than 65,535 characters of them), seats and plies far out of
/// range, a bot name longer than any column, rows cut short or too long, moves doubled, an
/// opening longer than the game. Each goes through the same reading as a record file's line.
fn out_of_range_record_line() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::sample::select(sample_games()),
        prop::collection::vec((0u8..9, any::<prop::sample::Index>(), any::<u32>()), 1..5),
    )
        .prop_map(|(mut g, edits)| {
            for (how, at, n) in edits {
                match how {
                    0 => {
                        if let Some(m) = pick(&at, &mut g.moves) {
                            let flip = m.flips.first().copied().unwrap_or(m.square);
                            m.flips = vec![flip; 1 + (n % 30_000) as usize];
                        }
                    }
                    1 => {
                        if let Some(m) = pick(&at, &mut g.moves) {
                            m.seat = n as usize;
                        }
                    }
                    2 => {
                        if let Some(s) = pick(&at, &mut g.seats) {
                            s.name = "x".repeat((n % 80_000) as usize);
                            s.seat = n as usize % 9;
                        }
                    }
                    3 => {
                        if let Some(row) = pick(&at, &mut g.initial_rows) {
                            row.truncate((n % 12) as usize);
                            if n % 2 == 0 {
                                row.push_str(&"B".repeat((n % 40) as usize));
                            }
                        }
                        g.initial_rows.truncate(1 + (n % 12) as usize);
                    }
                    4 => {
                        let copy = g.moves.clone();
                        g.moves.extend(copy);
                    }
                    5 => g.opening = n,
                    6 => {
                        if let Some(f) = pick(&at, &mut g.faults) {
                            f.ply = n;
                            f.seat = n as usize;
                        } else {
                            g.ranking.push(vec![n as usize]);
                        }
                    }
                    7 => {
                        if let Some(m) = pick(&at, &mut g.moves) {
                            m.ms = f64::from(n) * 1e300;
                            // Off the board, as far as a square's name reaches (z26).
                            m.square = Square {
                                col: (n % 26) as u8,
                                row: (n / 26 % 26) as u8,
                            };
                        }
                    }
                    _ => {
                        g.result = multiversi::rules::Outcome::Win { winner: n as usize };
                        g.scores.truncate((n % 3) as usize);
                    }
                }
            }
            to_lines(std::slice::from_ref(&g))
                .trim_end()
                .as_bytes()
                .to_vec()
        })
}

/// A random position: any board, 3 or 4 players, Anti-Reversi or not, some squares blocked at
/// random, some plies played at random, some seats disqualified.
fn random_position(
    board: &str,
    players: u32,
    anti: bool,
    blocked: u32,
    seed: u64,
) -> Option<Position> {
    let rules = Rules::from_setup(&Setup {
        players,
        board: board.into(),
        anti,
        blocked: String::new(),
        blocked_random: blocked,
        seed,
    })
    .ok()?;
    let mut position = Position::new(rules);
    let mut rng = Rng::new(seed);
    let plies = rng.below(120);
    for _ in 0..plies {
        if position.is_over() {
            break;
        }
        if rng.below(40) == 0 {
            let seat = rng.below(players as u64) as usize;
            if position.in_game().iter().filter(|&&p| p).count() > 1 {
                position.remove_seat(seat);
            }
            continue;
        }
        let (legal, _) = position.legal_moves();
        let square = legal[rng.below(legal.len() as u64) as usize];
        position.play(square).ok()?;
    }
    Some(position)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn the_legality_gate_accepts_exactly_the_listed_moves(
        board in prop::sample::select(vec!["8x8", "10x10", "octagon"]),
        players in 3u32..=4,
        anti in any::<bool>(),
        blocked in 0u32..8,
        seed in any::<u64>(),
    ) {
        let position = random_position(board, players, anti, blocked, seed);
        prop_assume!(position.is_some());
        let position = position.unwrap();
        let (legal, kind) = position.legal_moves();
        let side = position.rules().side();
        // Every square of the grid and a margin beyond it, where bots may well aim.
        for row in 0..side + 2 {
            for col in 0..side + 2 {
                let square = Square { col, row };
                let mut after = position.clone();
                match after.play(square) {
                    Ok(played) => {
                        prop_assert!(legal.contains(&square), "{square} accepted but not listed");
                        prop_assert_eq!(played.kind, kind);
                        prop_assert_eq!(after.ply(), position.ply() + 1);
                    }
                    Err(_) => {
                        prop_assert!(!legal.contains(&square), "{square} listed but refused");
                        prop_assert_eq!(&after, &position, "a refused move changed the position");
                    }
                }
            }
        }
        prop_assert_eq!(legal.is_empty(), position.is_over());
    }
}
