//! `multiversi standings RECORDS... [--out DIR]`: the standings of any record files, merged (a
//! league's output, its shards, plain match records), printed as a table and written as files.

use super::input;
use super::{compute_owned, report, NameClash, Options, Standings};
use crate::exit::{self, fail};
use crate::files::write_atomically;
use crate::record::OwnGames;
use anyhow::Result;
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct StandingsArgs {
    /// Record files (JSON Lines, as `match` and `league` write them), merged; a game found twice
    /// is counted once.
    #[arg(required = true, value_name = "RECORDS")]
    pub files: Vec<PathBuf>,
    /// Also write standings.json, standings.csv, standings.html and games.html (the replay viewer
    /// the page links to) into DIR, created if missing.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Stop at the first damaged line (exit 3) instead of skipping it with a warning.
    #[arg(long)]
    pub strict: bool,
    /// The bot whose rating is 0 (default: the mean rating is 0).
    #[arg(long, value_name = "BOT")]
    pub anchor: Option<String>,
    /// Bootstrap replicates for the 95% intervals and the likelihood of superiority (0: none).
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub bootstrap: u32,
    /// Seed of the bootstrap: the same games and seed give the same intervals.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// With --out, do not write games.html (a league's viewer holds every game and can be large).
    #[arg(long, requires = "out")]
    pub no_viewer: bool,
}

/// Runs `multiversi standings`.
pub fn run(args: &StandingsArgs) -> Result<()> {
    let options = Options {
        replicates: args.bootstrap,
        seed: args.seed,
        anchor: args.anchor.clone(),
    };
    let out = args.out.as_deref().map(|dir| Output {
        dir,
        viewer: !args.no_viewer,
    });
    let standings = from_files(&args.files, &options, args.strict, out, None)?;
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(report::terminal(&standings, true).as_bytes())
        .and_then(|_| stdout.flush())
        .map_err(exit::stdout_error)?;
    if let Some(dir) = &args.out {
        crate::stderr_line!("wrote the standings to {}", dir.display());
    }
    Ok(())
}

/// Where to write the standings' files.
#[derive(Clone, Copy, Debug)]
pub struct Output<'a> {
    pub dir: &'a Path,
    /// Whether to write `games.html`, the replay viewer the HTML page links to.
    pub viewer: bool,
}

/// The file names written into the output directory.
pub const JSON_FILE: &str = "standings.json";
pub const CSV_FILE: &str = "standings.csv";
pub const HTML_FILE: &str = "standings.html";
pub const VIEWER_FILE: &str = "games.html";

/// The standings of one run's own games (a league's or a sequential test's, written at its end):
/// the records in its directory that are not its games are left out, counted and said.
#[derive(Clone, Copy)]
pub struct Only<'a> {
    pub own: OwnGames<'a>,
    /// The run, as the warning names it: "this league's", "this test's".
    pub whose: &'a str,
}

/// Reads the record files (warnings for skipped lines on stderr), computes the standings and,
/// with `out`, writes them there (each file complete or not at all). Errors: a file that cannot
/// be read or, with `strict`, a damaged line (exit 3); no game at all (exit 3); an anchor that
/// played none of the games (exit 2); a file that cannot be written (exit 5). With `only`, the
/// standings of that run's own games.
pub fn from_files(
    paths: &[PathBuf],
    options: &Options,
    strict: bool,
    out: Option<Output>,
    only: Option<Only>,
) -> Result<Standings> {
    let own = only.map(|o| o.own);
    if let Some(out) = out {
        std::fs::create_dir_all(out.dir).map_err(|e| {
            fail(
                exit::OUTPUT,
                format!("cannot create {}: {e}", out.dir.display()),
            )
        })?;
    }
    let read = match out.filter(|o| o.viewer) {
        Some(out) => {
            // The viewer is written while the files are read; if reading fails or finds no
            // game, the viewer is abandoned (the temporary file removed, an earlier games.html
            // left as it was, like the other files) and the reading error is the one reported.
            let mut read = None;
            let written = write_atomically(&out.dir.join(VIEWER_FILE), |file| {
                let mut viewer =
                    crate::replay::html::Streaming::start(file, "multiversi standings · games")?;
                let result = input::read_files(paths, strict, Some(&mut viewer), true, own);
                let keep = matches!(&result, Ok(read) if read.games.count() > 0);
                read = Some(result);
                if !keep {
                    return Err(std::io::Error::other("no game read"));
                }
                viewer.finish().map(|_| ())
            });
            match (read, written) {
                (Some(Err(e)), _) => return Err(e),
                // No game: said below, with nothing written.
                (Some(Ok(read)), _) if read.games.count() == 0 => read,
                (_, Err(e)) => return Err(e),
                (Some(Ok(read)), Ok(())) => read,
                (None, Ok(())) => {
                    input::read_files::<std::io::Sink>(paths, strict, None, true, own)?
                }
            }
        }
        None => input::read_files::<std::io::Sink>(paths, strict, None, out.is_some(), own)?,
    };
    for d in &read.damaged {
        crate::stderr_line!("multiversi: warning: {d} (line skipped)");
    }
    // A file given twice repeats every game: a few lines say so, a count says the rest.
    const SHOWN: usize = 5;
    for (source, first) in read.duplicates.iter().take(SHOWN) {
        crate::stderr_line!(
            "multiversi: warning: {source}: the same game as game {first} (counted once)"
        );
    }
    if read.duplicates.len() > SHOWN {
        crate::stderr_line!(
            "multiversi: warning: {} games in all were read twice and counted once (a file or \
             shard given twice?)",
            read.duplicates.len()
        );
    }
    // A game of a schedule is played once: a second record of its place (its run, index and
    // seed) with other contents is not a second game (an edited record, or a run's records
    // copied into another's), and the first read counts, as a league or a test counts it.
    for (source, first) in read.same_place.iter().take(SHOWN) {
        crate::stderr_line!(
            "multiversi: warning: {source}: another record of the place of game {first} in its \
             schedule (the same run, index and seed) with other contents: the first read \
             counts, this one does not"
        );
    }
    if read.same_place.len() > SHOWN {
        crate::stderr_line!(
            "multiversi: warning: {} records in all held the place of a game read before, and \
             were not counted",
            read.same_place.len()
        );
    }
    if let Some(only) = only {
        if let Some(warning) = not_own_warning(&read.not_own, only) {
            crate::stderr_line!("{warning}");
        }
    }
    for clash in read.games.name_clashes() {
        crate::stderr_line!("multiversi: warning: {}", clash_text(&clash));
    }
    if read.games.count() == 0 {
        let files: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        // Nothing damaged: nothing was recorded yet (a run whose bot never answered, say).
        let what = if read.damaged.is_empty() {
            "no game"
        } else {
            "no readable game"
        };
        return Err(fail(
            exit::BAD_INPUT,
            format!("{what} in {}", files.join(", ")),
        ));
    }
    let mut standings = compute_owned(read.games, options).map_err(|e| fail(exit::USAGE, e))?;
    standings.damaged_lines = read.damaged.len();
    standings.duplicates = read.duplicates.len();
    standings.same_place = read.same_place.len();
    standings.other_runs = read.not_own.count();
    if let Some(out) = out {
        write_reports(out.dir, &standings, out.viewer.then_some(VIEWER_FILE))?;
    }
    Ok(standings)
}

/// The warning for the records a run's own standings left out, one for all of them: how many,
/// of which kind, the first of the run's name and why; None when none was.
fn not_own_warning(left: &input::NotOwn, only: Only) -> Option<String> {
    if left.count() == 0 {
        return None;
    }
    let mut kinds = Vec::new();
    if left.not_scheduled > 0 {
        let mut kind = format!(
            "{} of run '{}' that are not games of its schedule",
            left.not_scheduled, only.own.run
        );
        if let Some((source, game, why)) = &left.first {
            kind += &format!(" (the first, game {game} at {source}: {why})");
        }
        kinds.push(kind);
    }
    if left.other_runs > 0 {
        kinds.push(format!("{} of other runs or of none", left.other_runs));
    }
    Some(format!(
        "multiversi: warning: the standings count only {} own games and leave out {} record(s) \
         in its directory: {}. `multiversi standings` of the files counts every record",
        only.whose,
        left.count(),
        kinds.join("; ")
    ))
}

/// The warning for a name recorded with different commands: which, where each was first seen,
/// and how to keep them apart next time. Standings go by name (a bot keeps its rating when its
/// command changes, say from `./bot` to `python3 bot.py`), so the games are still counted as one
/// bot's.
pub fn clash_text(clash: &NameClash) -> String {
    let visible = |t: &str| crate::text::visible(t).into_owned();
    let mut text = format!(
        "the name '{}' was recorded for {} different commands, and their games are counted as \
         one bot's:",
        visible(&clash.name),
        clash.commands.len()
    );
    for (command, origin) in &clash.commands {
        text += &format!(
            "\n  {} (first in {})",
            visible(&command.join(" ")),
            visible(origin)
        );
    }
    text += "\n  if they are different bots, give each its own name when it plays (match \
             --name N=NAME, a league bot's name) and keep their records apart";
    text
}

/// Writes `standings.json`, `standings.csv` and `standings.html` into `dir`, each through a
/// temporary file and a rename. `viewer` is the replay viewer's file name the page links games
/// to (None: no links).
pub fn write_reports(dir: &Path, standings: &Standings, viewer: Option<&str>) -> Result<()> {
    write_atomically(&dir.join(JSON_FILE), |f| {
        f.write_all(report::json(standings).as_bytes())
    })?;
    write_atomically(&dir.join(CSV_FILE), |f| {
        f.write_all(report::csv(standings).as_bytes())
    })?;
    write_atomically(&dir.join(HTML_FILE), |f| {
        report::html::page_to(f, standings, viewer)
    })?;
    Ok(())
}
