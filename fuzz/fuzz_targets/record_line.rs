//! A record file, as `replay` reads it: any bytes are split into lines that are each read as a
//! game or reported as damaged, never a panic; a line read as a game goes through
//! `replay --verify`'s check, which must describe what is wrong rather than fall over, and is
//! drawn every way the replay draws a game (the text replay, `--animate`, the interactive
//! screens, the HTML viewer), which must not fall over either.
#![no_main]

use libfuzzer_sys::fuzz_target;
use multiversi::render as draw;
use multiversi::replay::read::{read_line, read_lines, Loaded, Records};
use multiversi::replay::{html, terminal};
use std::path::Path;

/// Draws a game as `replay` can: in colour and plain, at the start, the middle and the end.
fn draw_every_way(game: &Loaded) {
    let timeline = draw::Timeline::new(&game.record);
    let total = game.record.moves.len();
    for colour in [false, true] {
        for ply in [0, total / 2, total] {
            let _ = draw::game_text(&game.record, &game.source, &timeline, ply, colour);
            let _ = terminal::screen(game, 1, 1, &timeline, ply, colour, 24);
        }
        let options = terminal::Options {
            colour,
            clear: colour,
            ply: None,
            animate: Some(0),
        };
        for ply in 0..=total {
            let _ = terminal::animation_frame(game, &timeline, ply, total, &options);
        }
    }
    let _ = html::render(&[game], None);
}

fuzz_target!(|bytes: &[u8]| {
    let mut records = Records::default();
    read_lines(Path::new("fuzzed.jsonl"), bytes, &mut records);
    for game in &records.games {
        let _ = multiversi::replay::verify::check(&game.record);
        draw_every_way(game);
    }
    let _ = read_line(bytes);
});
