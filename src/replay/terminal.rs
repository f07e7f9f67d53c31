//! The terminal replay: the selected games printed one after another, `--animate` showing the
//! boards one after another, and on a terminal the arrow keys stepping through a game. What each
//! screen shows is drawn by `crate::render`; the raw terminal the keys are read from is `tty`'s.

use super::read::Loaded;
use super::tty;
use crate::exit::{self, fail};
use crate::render::{
    board_text, fault_lines, game_text, header, move_line, next_text, opening_moves, result_text,
    scores_text, Timeline,
};
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

fn write_out(out: &mut impl Write, text: &str) -> Result<()> {
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(exit::stdout_error)
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
            write_out(
                &mut out,
                &game_text(&game.record, &game.source, &timeline, end, options.colour),
            )?;
            continue;
        };
        for ply in 0..=end {
            write_out(
                &mut out,
                &animation_frame(game, &timeline, ply, end, options),
            )?;
            if ply < end {
                std::thread::sleep(Duration::from_millis(delay));
            }
        }
    }
    Ok(())
}

/// One board of `--animate`, after `ply` of the `end` moves shown: the move just played, the
/// faults after it, the board and the discs (and the result after the last move). On a terminal
/// (`clear`) each frame replaces the one before and repeats the header; piped, frames follow one
/// another, the header once at the start.
pub fn animation_frame(
    game: &Loaded,
    timeline: &Timeline,
    ply: usize,
    end: usize,
    options: &Options,
) -> String {
    let rec = &game.record;
    let mut frame = String::new();
    if options.clear {
        frame.push_str("\x1b[H\x1b[2J");
        frame.push_str(&header(&game.record, &game.source, options.colour));
    } else if ply == 0 {
        frame.push_str(&header(&game.record, &game.source, options.colour));
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
    frame.push_str(&scores_text(rec, timeline, ply, options.colour));
    frame.push('\n');
    if ply == rec.moves.len() {
        frame.push_str(&result_text(rec, options.colour));
        frame.push('\n');
    }
    if !options.clear && ply < end {
        frame.push('\n');
    }
    frame
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

/// One screen of the interactive replay: game `number` of `of`, after `ply` moves, on a terminal
/// `height` rows high.
pub fn screen(
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
    out.push_str(&header(&game.record, &game.source, colour));
    out.push_str(&board_text(
        &timeline.frames[ply],
        ply.checked_sub(1).and_then(|i| rec.moves.get(i)),
        colour,
    ));
    let opening = if (1..=opening_moves(rec)).contains(&ply) {
        " (the referee's opening)"
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "Move {ply} of {total}{opening} · game {number} of {of}"
    );
    out.push_str(&scores_text(rec, timeline, ply, colour));
    out.push('\n');
    let tail = if ply == total {
        result_text(rec, colour) + "\n"
    } else if let Some(next) = rec.moves.get(ply) {
        next_text(rec, ply, next, colour) + "\n"
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_screen_marks_the_referees_opening() {
        use crate::rules::Outcome;
        use crate::standings::games::tests::{mv, record};
        let mut rec = record(
            &["a", "b", "c"],
            &[3, 2, 1],
            &[&[0], &[1], &[2]],
            Outcome::Draw,
        );
        rec.moves = (0..4).map(|i| mv(i, i as usize % 3, 1.5)).collect();
        rec.opening = 2;
        let game = Loaded {
            source: super::super::read::Source {
                path: "g.jsonl".into(),
                line: 1,
            },
            record: rec,
        };
        let timeline = Timeline::new(&game.record);
        let at = |ply| screen(&game, 1, 1, &timeline, ply, false, 40);
        assert!(at(2).contains("\nMove 2 of 4 (the referee's opening) · game 1 of 1\n"));
        let text = at(3);
        assert!(text.contains("\nMove 3 of 4 · game 1 of 1\n"), "{text}");
        let opening: Vec<&str> = text.lines().filter(|l| l.contains("(opening)")).collect();
        assert_eq!(opening.len(), 2, "{text}");
        assert!(opening.iter().all(|l| !l.contains(" ms")), "{text}");
        let played = text.lines().find(|l| l.starts_with("   3. ")).unwrap();
        assert!(played.starts_with("   3. Red   c "), "{played}");
        assert!(played.ends_with("1.50 ms"), "{played}");
        assert!(at(1).contains("Next: White to move, by the referee's opening"));
    }

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
