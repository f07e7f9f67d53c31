//! `multiversi bot NAME`: a built-in engine speaking the bot protocol on stdin/stdout, so that
//! built-in bots are processes like any other and the referee treats them all alike.
//!
//! The bot is stateless between turns: each `turn` carries the whole board, the seat to move and
//! the seats that are out, and the position is rebuilt from those with `Position::from_rows`.

use super::engine;
use crate::protocol::ToBot;
use crate::rules::{Position, Rules, Seat};
use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

/// The share of `time_ms` a built-in bot allows itself, leaving the rest for pipes and scheduling.
const TIME_SHARE: f64 = 0.8;

/// Runs the protocol loop until stdin ends. Errors (a message that cannot be understood) are
/// reported to the caller, who prints them on stderr: the referee keeps stderr in its log.
/// `think_ms` caps the time it takes per move, below what the referee allows (a handicap).
pub fn serve(name: &str, seed: u64, think_ms: Option<u64>) -> Result<(), String> {
    let mut bot = engine(name, seed).ok_or_else(|| format!("no built-in bot named '{name}'"))?;
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    let mut game: Option<(Rules, Seat)> = None;
    let mut latency = super::time::Latency::default();
    let mut line = String::new();
    let mut input = stdin.lock();
    loop {
        line.clear();
        let n = input
            .read_line(&mut line)
            .map_err(|e| format!("reading stdin: {e}"))?;
        if n == 0 {
            return Ok(());
        }
        let received = Instant::now();
        let message: ToBot = serde_json::from_str(line.trim_end())
            .map_err(|e| format!("cannot understand the referee's message: {e}"))?;
        let reply = match message {
            ToBot::Start {
                rules,
                seat,
                game: id,
                ..
            } => {
                // Every game starts from the seed again, so that a built-in bot answers the same
                // position the same way in every game: in a sequential test's twin pair the
                // field then plays the twin as it played the first game, as far as it sees the
                // same positions.
                bot =
                    engine(name, seed).ok_or_else(|| format!("no built-in bot named '{name}'"))?;
                bot.new_game(&rules, seat);
                latency.new_game();
                latency.probe();
                game = Some((rules, seat));
                // The game id echoed, so that the referee can tell this ready from a late one.
                format!(
                    "{{\"type\":\"ready\",\"name\":{},\"version\":\"{}\",\"game\":{}}}",
                    serde_json::Value::from(name),
                    env!("CARGO_PKG_VERSION"),
                    serde_json::Value::from(id)
                )
            }
            ToBot::Turn {
                rows,
                seat,
                ply,
                out: gone,
                time_ms,
                clocks_ms,
                last_move_ms,
                ..
            } => {
                latency.referee_saw(last_move_ms);
                let (rules, _) = game.as_ref().ok_or("a turn before any start")?;
                let mut position = Position::from_rows(rules.clone(), &rows, seat, ply)?;
                for s in gone {
                    position.remove_seat(s);
                }
                let clock = clocks_ms.get(seat).copied().flatten();
                let ms = move_budget_ms(time_ms, clock, &position);
                let ms = think_ms.map_or(ms, |cap| ms.min(cap));
                let budget = Duration::from_secs_f64(ms as f64 * TIME_SHARE / 1000.0);
                // What this bot has seen of its own lateness comes off the deadline first.
                let deadline = received + budget.saturating_sub(latency.margin());
                let square = bot.choose(&position, deadline);
                // The turn's ply echoed: the referee then never takes this answer for another's.
                let reply = format!("{{\"type\":\"move\",\"square\":\"{square}\",\"ply\":{ply}}}");
                if !written(writeln!(out, "{reply}").and_then(|()| out.flush()))? {
                    return Ok(());
                }
                let planned = super::time::stop_time(received, deadline);
                latency.observe(received, planned, Instant::now());
                continue;
            }
            ToBot::End { .. } => continue,
        };
        if !written(writeln!(out, "{reply}").and_then(|()| out.flush()))? {
            return Ok(());
        }
    }
}

/// Whether an answer went out: false when the reader of stdout has gone (the referee closed the
/// pipe, or `multiversi bot greedy < turns | head -1`), which ends the bot quietly with exit 0 as
/// the end of stdin does; any other write error is an error.
fn written(result: io::Result<()>) -> Result<bool, String> {
    match result {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(format!("writing stdout: {e}")),
    }
}

/// The time to spend on this move: all of `time_ms` without a game clock; with one, the clock
/// shared evenly over the moves this seat still has to make (the empty squares divided among
/// the seats still playing), so that a search engine does not spend a whole clock on one move.
fn move_budget_ms(time_ms: u64, clock_ms: Option<u64>, position: &Position) -> u64 {
    let Some(clock) = clock_ms else {
        return time_ms;
    };
    let empty = position
        .rows()
        .iter()
        .map(|row| row.bytes().filter(|&c| c == b'.').count())
        .sum::<usize>() as u64;
    let playing = position.in_game().iter().filter(|&&p| p).count().max(1) as u64;
    let own_moves_left = empty.div_ceil(playing).max(1);
    time_ms.min(clock / own_moves_left)
}

/// The benchmark's instant bot: answers every turn with its first legal move, found by scanning
/// the line for `"legal":["` without parsing JSON, like the anchor's echo child. It measures the
/// referee's own cost per move, not a bot's. Like every built-in bot it echoes what it answers:
/// the turn's `"ply":` is the first one in the line (the game id before it is an escaped string,
/// so it cannot hold `,"ply":`), and a start's `"game":` is its JSON string copied as it stands
/// (the first such key in the line: an escaped string cannot hold `"game":"` either).
///
/// Like the anchor's child it reads and writes its descriptors directly: lines are found in its
/// own buffer and answered from there, with one `read` and one `write` a turn and no copy of the
/// line, so that what the benchmark charges to the referee is not this bot's reading.
pub fn serve_instant() -> Result<(), String> {
    use std::os::fd::AsFd;
    let own = |fd: std::os::fd::BorrowedFd<'_>, what: &str| {
        fd.try_clone_to_owned()
            .map(std::fs::File::from)
            .map_err(|e| format!("{what}: {e}"))
    };
    let mut input = own(io::stdin().as_fd(), "reading stdin")?;
    let mut out = own(io::stdout().as_fd(), "writing stdout")?;
    let legal_at = memchr::memmem::Finder::new(b"\"legal\":[\"");
    let ply_at = memchr::memmem::Finder::new(b",\"ply\":");
    let game_at = memchr::memmem::Finder::new(b"\"game\":\"");
    let mut buffer = vec![0u8; 1 << 16];
    let (mut start, mut end) = (0, 0);
    let mut reply: Vec<u8> = Vec::with_capacity(128);
    loop {
        // The next line, its newline included, as `read_line` returned it; the last line of the
        // input may have none.
        let line_end = match memchr::memchr(b'\n', &buffer[start..end]) {
            Some(i) => start + i + 1,
            None => {
                if start > 0 {
                    buffer.copy_within(start..end, 0);
                    end -= start;
                    start = 0;
                }
                if end == buffer.len() {
                    buffer.resize(2 * buffer.len(), 0);
                }
                match io::Read::read(&mut input, &mut buffer[end..]) {
                    Ok(0) if end == 0 => return Ok(()),
                    Ok(0) => end,
                    Ok(n) => {
                        end += n;
                        continue;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(format!("reading stdin: {e}")),
                }
            }
        };
        let bytes = &buffer[start..line_end];
        start = line_end;
        let line = std::str::from_utf8(bytes)
            .map_err(|_| "reading stdin: stream did not contain valid UTF-8".to_string())?;
        reply.clear();
        if line.starts_with("{\"type\":\"start\"") {
            reply.extend_from_slice(b"{\"type\":\"ready\",\"name\":\"instant\",\"game\":");
            reply.extend_from_slice(game_at.find(bytes).map_or(&b"null"[..], |at| {
                json_string_at(&bytes[at + game_at.needle().len() - 1..]).unwrap_or(b"null")
            }));
            reply.extend_from_slice(b"}\n");
        } else if let Some(i) = legal_at.find(bytes) {
            let rest = &bytes[i + legal_at.needle().len()..];
            let square = &rest[..memchr::memchr(b'"', rest).unwrap_or(0)];
            let ply = ply_at.find(bytes).map_or(&b"null"[..], |at| {
                let digits = &bytes[at + ply_at.needle().len()..];
                &digits[..digits.iter().position(|c| !c.is_ascii_digit()).unwrap_or(0)]
            });
            let ply = if ply.is_empty() { &b"null"[..] } else { ply };
            reply.extend_from_slice(b"{\"type\":\"move\",\"square\":\"");
            reply.extend_from_slice(square);
            reply.extend_from_slice(b"\",\"ply\":");
            reply.extend_from_slice(ply);
            reply.extend_from_slice(b"}\n");
        } else {
            continue;
        }
        if !written(out.write_all(&reply))? {
            return Ok(());
        }
    }
}

/// The JSON string that `text` begins with, its quotes and escapes included, as it stands; `None`
/// if `text` does not begin with a whole one. Copied as it is, it reads back to the same value.
fn json_string_at(text: &[u8]) -> Option<&[u8]> {
    if text.first() != Some(&b'"') {
        return None;
    }
    let mut i = 1;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'"' => return Some(&text[..=i]),
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::rules::BoardKind;

    #[test]
    fn a_json_string_is_copied_whole_with_its_escapes() {
        for game in ["g-1", r#"a "quoted" \ id"#, "tab\tand é and \u{2028}", ""] {
            let text = format!("{},\"seat\":0}}", serde_json::Value::from(game));
            let copied = json_string_at(text.as_bytes()).expect("a whole string");
            assert_eq!(
                serde_json::from_slice::<String>(copied).ok().as_deref(),
                Some(game)
            );
        }
        assert_eq!(json_string_at(br#""no end \""#), None);
        assert_eq!(json_string_at(b"12"), None);
    }
    #[test]
    fn a_game_clock_is_shared_over_the_moves_left() {
        let rules = Rules::new(4, BoardKind::Eight, false).expect("valid rules");
        let start = Position::new(rules);
        // No clock: the move limit.
        assert_eq!(move_budget_ms(1000, None, &start), 1000);
        // 60 empty squares among 4 players: 15 own moves left.
        assert_eq!(move_budget_ms(1000, Some(15_000), &start), 1000);
        assert_eq!(move_budget_ms(1000, Some(3_000), &start), 200);
        // A seat out leaves more moves to the others: 60 / 3 = 20.
        let mut three = start.clone();
        three.remove_seat(3);
        assert_eq!(move_budget_ms(1000, Some(3_000), &three), 150);
    }
}
