//! A line from a bot, as the referee reads it: any bytes must parse or be refused with a
//! reason, never panic; an accepted move names a square that reads back the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use multiversi::protocol::{parse_reply, Reply};
use multiversi::rules::Square;

fuzz_target!(|line: &[u8]| {
    if let Ok(Reply::Move { square, .. }) = parse_reply(line) {
        assert_eq!(square.to_string().parse::<Square>().ok(), Some(square));
    }
});
