//! `multiversi replay`: look at recorded games again — in the terminal (`terminal`, which draws
//! with `crate::render` and reads keys from a raw `tty`), in a browser (`html`), or by a program
//! that plays them through the rules again (`verify`). Reading the files (`read`) is shared, so
//! all three agree on what a record file holds.

pub mod html;
pub mod read;
pub mod terminal;
mod tty;
pub mod verify;

use crate::exit::{self, fail};
use anyhow::Result;
use clap::Args;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// Record files (JSON Lines, one game per line, as `multiversi match` writes them).
    #[arg(required = true, value_name = "RECORDS")]
    pub files: Vec<PathBuf>,
    /// The game to show: its id, or its number (1 = the first game of the files given).
    #[arg(long, value_name = "ID|N")]
    pub game: Option<String>,
    /// Show the board after N moves (0 = the start) instead of after the last move.
    #[arg(long, value_name = "N")]
    pub ply: Option<u32>,
    /// Play every game through the rules again and report each way a record disagrees with them.
    #[arg(long, conflicts_with_all = ["html", "animate", "ply"])]
    pub verify: bool,
    /// Write a self-contained HTML viewer of the selected games to this file.
    #[arg(long, value_name = "OUT.html", conflicts_with = "animate")]
    pub html: Option<PathBuf>,
    /// Show the game move by move, one board after another.
    #[arg(long)]
    pub animate: bool,
    /// Milliseconds between two boards of --animate.
    #[arg(long, value_name = "MS", default_value_t = 400, requires = "animate")]
    pub delay: u64,
}

/// Runs `multiversi replay`.
pub fn run(args: &ReplayArgs) -> Result<()> {
    let records = read::read_files(&args.files)?;
    if args.verify {
        return run_verify(&args.files, &records);
    }
    for damaged in &records.damaged {
        crate::stderr_line!("multiversi: warning: {damaged} (line skipped)");
    }
    let selected = read::select(&records, args.game.as_deref())?;
    if selected.is_empty() {
        return Err(no_readable_game(&args.files));
    }
    if let (Some(ply), [only]) = (args.ply, selected.as_slice()) {
        let moves = only.record.moves.len();
        if ply as usize > moves {
            return Err(fail(
                exit::USAGE,
                format!(
                    "--ply {ply}: game {} has {moves} moves (give 0..{moves})",
                    only.record.game
                ),
            ));
        }
    }
    if let Some(out) = &args.html {
        html::write(out, &selected, args.ply)?;
        crate::stderr_line!(
            "wrote {} ({} game{})",
            out.display(),
            selected.len(),
            if selected.len() == 1 { "" } else { "s" }
        );
        return Ok(());
    }
    let stdout_tty = std::io::stdout().is_terminal();
    let options = terminal::Options {
        colour: crate::render::colour_for(stdout_tty),
        clear: stdout_tty,
        ply: args.ply,
        animate: args.animate.then_some(args.delay),
    };
    if stdout_tty && std::io::stdin().is_terminal() && !args.animate {
        return terminal::interactive(&selected, &options);
    }
    terminal::print(&selected, &options)
}

/// Files without a game to show or verify: exit 3, as for a damaged file.
fn no_readable_game(files: &[PathBuf]) -> anyhow::Error {
    let files: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    fail(
        exit::BAD_INPUT,
        format!("no readable game in {}", files.join(", ")),
    )
}

/// Verifies every game read and prints one line per problem (`FILE:LINE: game ID: ply N: ...`) and
/// a summary. Damaged lines, or no game at all, make the exit code 3 (the file itself is damaged
/// or empty); otherwise any problem makes it 1.
fn run_verify(files: &[PathBuf], records: &read::Records) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let write_err = exit::stdout_error;
    // Damaged lines and problems of games, in file and line order.
    let mut lines: Vec<(&read::Source, String)> = records
        .damaged
        .iter()
        .map(|d| (&d.source, d.to_string()))
        .collect();
    let mut bad_games = 0;
    for game in &records.games {
        let problems = verify::check(&game.record);
        if !problems.is_empty() {
            bad_games += 1;
        }
        for problem in problems {
            let text = format!("{}: game {}: {problem}", game.source, game.record.game);
            lines.push((&game.source, text));
        }
    }
    // The same game twice (a file given twice, records copied into another file): each copy
    // holds or not on its own, but the standings count the game once, so a count of games read
    // here is not one of games played. Said, without changing the exit code.
    let mut first_of: std::collections::HashMap<&str, &read::Source> = Default::default();
    let mut twice = 0;
    for game in &records.games {
        match first_of.entry(game.record.game.as_str()) {
            std::collections::hash_map::Entry::Occupied(first) => {
                twice += 1;
                let text = format!(
                    "{}: game {}: the same game id as at {} (the standings count it once)",
                    game.source,
                    game.record.game,
                    first.get()
                );
                lines.push((&game.source, text));
            }
            std::collections::hash_map::Entry::Vacant(entry) => {
                entry.insert(&game.source);
            }
        }
    }
    let order = |source: &read::Source| {
        let file = files
            .iter()
            .position(|f| *f == source.path)
            .unwrap_or(usize::MAX);
        (file, source.line)
    };
    lines.sort_by_key(|(source, _)| order(source));
    for (_, text) in &lines {
        writeln!(out, "{text}").map_err(write_err)?;
    }
    let total = records.games.len();
    let twice = match twice {
        0 => String::new(),
        n => format!("; {n} game id(s) found a second time"),
    };
    writeln!(
        out,
        "verified {total} game{}: {} hold, {bad_games} do not; {} damaged line{}{twice}",
        if total == 1 { "" } else { "s" },
        total - bad_games,
        records.damaged.len(),
        if records.damaged.len() == 1 { "" } else { "s" }
    )
    .map_err(write_err)?;
    out.flush().map_err(write_err)?;
    if !records.damaged.is_empty() {
        return Err(fail(
            exit::BAD_INPUT,
            format!(
                "{} damaged line{} in the record files",
                records.damaged.len(),
                if records.damaged.len() == 1 { "" } else { "s" }
            ),
        ));
    }
    if total == 0 {
        // An empty file verifies nothing: it must not pass as a record that holds.
        return Err(no_readable_game(files));
    }
    if bad_games > 0 {
        return Err(fail(
            exit::VERIFY_FAILED,
            format!("{bad_games} of {total} games do not hold"),
        ));
    }
    Ok(())
}
