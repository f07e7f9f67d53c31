//! A record file, as `replay` reads it: any bytes are split into lines that are each read as a
//! game or reported as damaged, never a panic; a line read as a game goes through
//! `replay --verify`'s check, which must describe what is wrong rather than fall over.
#![no_main]

use libfuzzer_sys::fuzz_target;
use multiversi::replay::read::{read_line, read_lines, Records};
use std::path::Path;

fuzz_target!(|bytes: &[u8]| {
    let mut records = Records::default();
    read_lines(Path::new("fuzzed.jsonl"), bytes, &mut records);
    for game in &records.games {
        let _ = multiversi::replay::verify::check(&game.record);
    }
    let _ = read_line(bytes);
});
