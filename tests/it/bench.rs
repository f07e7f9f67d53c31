//! The benchmark scripts of `bench/`, each in its quick mode (tiny sizes, seconds): a script that
//! breaks (a column of the table it reads moved, an option it passes is gone) fails here rather
//! than on the day someone measures with it. Nothing here asserts a speed: only that each script
//! runs to its end, finds no fault where it expects none, and prints every figure it promises.

use crate::support::*;
use std::path::PathBuf;
use std::process::Command;

/// The lines of `text` that contain `needle`.
fn lines_with<'a>(text: &'a str, needle: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

#[test]
fn perft_bench_measures_every_board_against_the_anchor() {
    let run = bench_quick("perft").ok();
    let out = run.stdout();
    for row in [
        "| anchor: 2-player Othello, C | 7 | ",
        "| multiversi, 4 players, 8x8 | 1-6 | ",
        "| multiversi, 4 players, 10x10 | 1-5 | ",
        "| multiversi, 4 players, octagon | 1-5 | ",
    ] {
        assert_eq!(
            lines_with(&out, row).len(),
            1,
            "{row:?}\n{}",
            run.describe()
        );
    }
    // The leaves are the real perft counts, summed over the depths multiversi prints.
    let leaves = |row: &str| {
        lines_with(&out, row)[0]
            .split('|')
            .nth(3)
            .unwrap()
            .trim()
            .to_string()
    };
    assert_eq!(leaves("| anchor"), "55092", "{}", run.describe());
    assert_eq!(leaves("8x8"), "53106", "{}", run.describe());
    run.assert_stdout_has("machine: ");
}

#[test]
fn referee_bench_prints_the_cost_per_move_games_per_second_and_flag_latency() {
    let run = bench_quick("referee").ok();
    let out = run.stdout();
    // Each round: both on one CPU, then where the kernel puts them.
    for placement in ["one CPU", "any CPU"] {
        let rounds = out
            .lines()
            .filter(|l| l.starts_with("round ") && l.contains(&format!(", {placement}: anchor ")))
            .count();
        assert_eq!(rounds, 2, "{placement}\n{}", run.describe());
    }
    run.assert_stdout_has(
        "per-move cost, 4 instant bots on 8x8, 10 games per round, both on one CPU: median",
    );
    run.assert_stdout_has("the same with the placement left to the kernel: median ");
    run.assert_stdout_has("random x4, 8x8, bots kept alive: 20 games in");
    run.assert_stdout_has("random x4, 8x8, bots restarted per game: 4 games in");
    run.assert_stdout_has("hung bot flagged after its 100 ms deadline, 3 trials: p50");
}

#[test]
fn league_bench_prints_both_concurrencies_with_and_without_records_and_the_peak_memory() {
    // The binary under test as its own baseline: the before-and-after tables are printed too.
    let run = bench_quick("league")
        .env("BASELINE", env!("CARGO_BIN_EXE_multiversi"))
        .ok();
    let out = run.stdout();
    // Each program: league, match and match --record, at concurrency 1 and 2; the new one also
    // the league, match and match --record with --pin-cpus.
    let rounds = out.lines().filter(|l| l.starts_with("round 1: ")).count();
    assert_eq!(rounds, 18, "{}", run.describe());
    run.assert_stdout_has("| new | match --pin-cpus, instant bots | ");
    for figure in [
        "league --pin-cpus",
        "match --pin-cpus",
        "match --record --pin-cpus",
    ] {
        let row = format!("| new | {figure}, instant bots, 8x8, 4 players | ");
        assert_eq!(
            lines_with(&out, &row).len(),
            1,
            "{row:?}\n{}",
            run.describe()
        );
    }
    for program in ["new", "baseline"] {
        for figure in ["league", "match", "match --record"] {
            let row = format!("| {program} | {figure}, instant bots, 8x8, 4 players | ");
            assert_eq!(
                lines_with(&out, &row).len(),
                1,
                "{row:?}\n{}",
                run.describe()
            );
        }
        run.assert_stdout_has(&format!("| {program} | match, instant bots | "));
        run.assert_stdout_has(&format!(
            "{program}: peak RSS of the referee over a 360-game league: "
        ));
    }
    run.assert_stdout_has("| match --record | ");
}

#[test]
fn standings_bench_times_both_programs_on_the_same_records_and_compares_their_output() {
    // The binary under test as its own baseline: the same standings, byte for byte.
    let run = bench_quick("standings")
        .env("BASELINE", env!("CARGO_BIN_EXE_multiversi"))
        .ok();
    let out = run.stdout();
    run.assert_stdout_has("records: 240 games (2 copies of a 120-game league of 5 bots)");
    for program in ["new", "baseline"] {
        let row = format!("| {program} | 200 bootstrap replicates, no files | ");
        assert_eq!(
            lines_with(&out, &row).len(),
            1,
            "{row:?}\n{}",
            run.describe()
        );
    }
    run.assert_stdout_has("same standings as the baseline (table, JSON, CSV, HTML): yes");
    run.assert_stdout_has("summary: standings_seconds ");
    run.assert_stdout_has("summary: standings_rss_mb ");
    run.assert_stdout_has("machine: ");
}

#[test]
fn summary_bench_tabulates_every_goal_with_its_measured_value() {
    let run = bench_quick("summary").ok();
    let out = run.stdout();
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| goal |"))
        .collect();
    assert_eq!(rows.len(), 15, "{}", run.describe());
    for row in rows {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        // | what | measured | goal | met |
        assert!(
            cells[2].chars().next().is_some_and(|c| c.is_ascii_digit()),
            "no value measured: {row:?}\n{}",
            run.describe()
        );
        assert!(
            cells[3].starts_with('≥') || cells[3].starts_with('≤'),
            "{row:?}"
        );
        assert!(cells[4] == "yes" || cells[4] == "no", "{row:?}");
    }
    run.assert_stdout_has("| multiversi standings of 95,040 games (in full): peak RSS | ");
    run.assert_stdout_has("machine: ");
    run.assert_stdout_has("load average at the start: ");
}

#[test]
fn strength_bench_plays_every_matchup_and_tabulates_it() {
    let run = bench_quick("strength").ok();
    let out = run.stdout();
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| matchup"))
        .collect();
    assert!(rows.len() >= 20, "{}", run.describe());
    for row in rows {
        // One game a matchup, at the quick mode's 10 ms per move.
        assert!(
            row.contains(", 10 ms per move | 1 | "),
            "{row:?}\n{}",
            run.describe()
        );
    }
}

/// `examples/sprt.rs`, built by cargo next to the binary under test (`cargo test` builds the
/// examples anyway; `cargo test --test it` does not).
fn sprt_example() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_multiversi"));
    let dir = exe.parent().expect("the binary is in a directory");
    let profile = match dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => "dev".to_string(),
        Some(other) => other.to_string(),
    };
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "build",
            "--quiet",
            "--example",
            "sprt",
            "--profile",
            &profile,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build --example sprt: {status}");
    dir.join("examples/sprt")
}

#[test]
fn sprt_bench_prints_its_simulated_table() {
    let run = bench_quick("sprt").env("SPRT", sprt_example()).ok();
    run.assert_stdout_has("machine: ");
}
