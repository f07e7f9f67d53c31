//! Games on a real cluster engine: a one-node Slurm cluster (started by `.ci/setup-slurm`, which
//! this test calls itself, so that `cargo test` alone works as root) runs multiversi as a job
//! array, one task per shard, and what the shards recorded is checked against the same games
//! played here.

use crate::support::*;
use multiversi::record::GameRecord;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

/// Longest a whole job array may take before the test cancels it and fails.
const ARRAY_PATIENCE: Duration = Duration::from_secs(120);

/// Starts the one-node cluster if it is not running (cheap when it is).
fn ensure_cluster() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/setup-slurm");
    let out = Command::new("bash")
        .arg(&script)
        .stdin(Stdio::null())
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "the one-node Slurm cluster did not start ({}; it needs root and Debian's packages):\n{}{}",
        script.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Submits `script` as a job array of `tasks` tasks (`sbatch --array=1-TASKS --wait`), each task
/// given `args`, and waits for all of them. Each task's output goes to `dir/slurm-TASK.out`.
/// Panics with every task's output if the array fails or takes longer than `ARRAY_PATIENCE`.
fn run_job_array(dir: &Path, tasks: u32, script: &str, args: &[&str]) {
    let script_path = dir.join("job.sh");
    std::fs::write(&script_path, script).expect("job script written");
    // A name of its own, so that a timed-out array can be cancelled without touching others.
    let name = format!(
        "multiversi-test-{}-{}",
        std::process::id(),
        dir.file_name().unwrap().to_string_lossy()
    );
    let mut sbatch = Command::new("sbatch")
        .arg(format!("--array=1-{tasks}"))
        .arg("--wait")
        .arg(format!("--job-name={name}"))
        .arg(format!("--chdir={}", dir.display()))
        .arg(format!("--output={}/slurm-%a.out", dir.display()))
        .arg("--ntasks=1")
        .arg("--cpus-per-task=1")
        .arg("--time=2")
        .arg(&script_path)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sbatch runs (is slurm-wlm installed?)");
    let status = match sbatch
        .wait_timeout(ARRAY_PATIENCE)
        .expect("wait for sbatch")
    {
        Some(status) => status,
        None => {
            let _ = Command::new("scancel")
                .arg(format!("--name={name}"))
                .status();
            let _ = sbatch.kill();
            let _ = sbatch.wait();
            panic!(
                "the job array took longer than {ARRAY_PATIENCE:?}; cancelled\n{}",
                task_outputs(dir, tasks)
            );
        }
    };
    let out = sbatch.wait_with_output().expect("sbatch output");
    assert!(
        status.success(),
        "the job array failed ({status}):\n{}{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        task_outputs(dir, tasks)
    );
}

/// Every task's output file, for failure messages.
fn task_outputs(dir: &Path, tasks: u32) -> String {
    (1..=tasks)
        .map(|task| {
            let path = dir.join(format!("slurm-{task}.out"));
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| format!("({e})"));
            format!("--- task {task}:\n{text}")
        })
        .collect()
}

/// What a game was, without when it was played or how long it took: two runs of the same
/// deterministic game have equal plays.
fn play(record: &GameRecord) -> (Vec<String>, Vec<String>, Vec<u32>, String) {
    (
        record.seats.iter().map(|s| s.name.clone()).collect(),
        record
            .moves
            .iter()
            .map(|m| format!("{}:{:?}", m.seat, m.square))
            .collect(),
        record.scores.clone(),
        format!("{:?} {:?}", record.result, record.ranking),
    )
}

/// A small round robin with bots whose play depends only on the deal's seed: 4 bots, 3 players,
/// C(4,3) = 4 deals a round, 2 rounds, 6 seatings each: 48 games, with random openings and
/// random blocked squares so that the deals differ.
const LEAGUE: &str = r#"
name = "cluster"
seed = 2026
players = 3
boards = ["8x8"]
blocked = 2
rounds = 2
opening = 2
move_ms = 5000

[[bot]]
name = "random-a"
command = "builtin:random"

[[bot]]
name = "greedy-a"
command = "builtin:greedy"

[[bot]]
name = "random-b"
command = "builtin:random"

[[bot]]
name = "greedy-b"
command = "builtin:greedy"
"#;
const LEAGUE_GAMES: usize = 48;
const SHARDS: u32 = 3;

/// `standings.json` without what differs between two runs of the same games: move times.
fn standings_without_times(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("standings.json")).expect("standings.json");
    let mut doc: serde_json::Value = serde_json::from_str(&text).expect("standings.json parses");
    for bot in doc["bots"].as_array_mut().expect("bots") {
        let bot = bot.as_object_mut().expect("bot");
        assert!(bot.remove("mean_ms").is_some() && bot.remove("max_ms").is_some());
    }
    doc
}

/// The README's recipe, for real: a league submitted as a Slurm job array, one shard per task,
/// all shards writing into one directory; the shards' records merged by `multiversi standings`
/// give the standings of the same league played whole, and hold every game of the schedule
/// exactly once.
#[test]
fn a_league_run_as_a_slurm_job_array_has_the_standings_of_the_whole_league() {
    ensure_cluster();
    let dir = temp_dir("cluster_league");
    let config = dir.join("league.toml");
    std::fs::write(&config, LEAGUE).unwrap();
    let sharded = dir.join("sharded");
    let bin = env!("CARGO_BIN_EXE_multiversi");
    let script = "#!/bin/sh\n\
        # Arguments: the multiversi binary, the config, the league directory, the number of shards.\n\
        exec \"$1\" league \"$2\" --out \"$3\" --shard \"$SLURM_ARRAY_TASK_ID/$4\" --concurrency 1\n";
    run_job_array(
        &dir,
        SHARDS,
        script,
        &[
            bin,
            config.to_str().unwrap(),
            sharded.to_str().unwrap(),
            &SHARDS.to_string(),
        ],
    );

    let whole = dir.join("whole");
    multiversi("league")
        .arg(&config)
        .arg("--out")
        .arg(&whole)
        .args(&["--concurrency", "2"])
        .ok();
    let whole_records = read_records(&whole.join("games.jsonl"));
    assert_eq!(whole_records.len(), LEAGUE_GAMES);

    // Every game of the schedule exactly once across the shards, each shard whole deals of its
    // own, and every game played as the whole league played it.
    let mut by_index = std::collections::BTreeMap::new();
    let mut deal_shard = std::collections::BTreeMap::new();
    let shard_files: Vec<PathBuf> = (1..=SHARDS)
        .map(|i| sharded.join(format!("games-{i}-of-{SHARDS}.jsonl")))
        .collect();
    for (i, file) in (1..=SHARDS).zip(&shard_files) {
        let records = read_records(file);
        assert!(!records.is_empty(), "shard {i} played no game");
        for r in records {
            let at = r
                .schedule
                .clone()
                .expect("a league game has its place in the schedule");
            assert_eq!(at.run, "cluster");
            assert_eq!(
                *deal_shard.entry(at.deal).or_insert(i),
                i,
                "deal {} is split between shards",
                at.deal
            );
            let index = at.index;
            assert!(
                by_index.insert(index, r).is_none(),
                "game {index} played twice"
            );
        }
    }
    assert_eq!(
        by_index.len(),
        LEAGUE_GAMES,
        "every game of the schedule once"
    );
    for w in &whole_records {
        let index = w.schedule.as_ref().unwrap().index;
        let s = by_index
            .get(&index)
            .unwrap_or_else(|| panic!("game {index} of the whole league is in no shard"));
        assert_eq!(play(s), play(w), "game {index} played alike");
    }

    // The standings of the merged shards are those of the whole league.
    let merged = dir.join("merged");
    multiversi("standings")
        .args_os(&shard_files)
        .arg("--out")
        .arg(&merged)
        .ok();
    let alone = dir.join("alone");
    multiversi("standings")
        .arg(whole.join("games.jsonl"))
        .arg("--out")
        .arg(&alone)
        .ok();
    let merged = standings_without_times(&merged);
    assert_eq!(merged["games"], LEAGUE_GAMES);
    assert_eq!(merged, standings_without_times(&alone));
}

/// A sequential test as a Slurm job array of more tasks than the one-node cluster runs at once:
/// the shards that run share the pairs and read each other's records, all stop once the merged
/// test has decided, and the task that waited in the queue ends at once with the same verdict;
/// `--status` gives it too, and no game is recorded twice.
#[test]
fn a_sequential_test_run_as_a_slurm_job_array_stops_together_with_one_verdict() {
    ensure_cluster();
    let dir = temp_dir("cluster_sprt");
    let out = dir.join("test");
    let bin = env!("CARGO_BIN_EXE_multiversi");
    let script = "#!/bin/sh\n\
        # Arguments: the multiversi binary, the test directory, the number of shards.\n\
        \"$1\" sprt builtin:greedy builtin:random --elo1 20 --seed 21 --move-ms 5000 \
        --out \"$2\" --shard \"$SLURM_ARRAY_TASK_ID/$3\" --concurrency 1\n\
        code=$?\n\
        # The verdict's exit code (0: H1) is what a job script would act on.\n\
        echo \"exit $code\"\n";
    run_job_array(
        &dir,
        SHARDS,
        script,
        &[bin, out.to_str().unwrap(), &SHARDS.to_string()],
    );
    let outputs = task_outputs(&dir, SHARDS);
    assert_eq!(
        outputs.matches("exit 0").count(),
        SHARDS as usize,
        "{outputs}"
    );
    let status = multiversi("sprt")
        .arg("--status")
        .arg(&out)
        .arg("--json")
        .run();
    status.assert_ok();
    let json: serde_json::Value = serde_json::from_str(&status.stdout()).unwrap();
    assert_eq!(json["verdict"], "H1");
    let units = json["units"].as_u64().unwrap();
    let mut by_index = std::collections::BTreeSet::new();
    let mut played = 0;
    for i in 1..=SHARDS {
        let records = read_records(&out.join(format!("games-{i}-of-{SHARDS}.jsonl")));
        for r in &records {
            assert!(
                by_index.insert(r.schedule.as_ref().unwrap().index),
                "{} twice",
                r.game
            );
        }
        played += records.len() as u64;
    }
    // None played on alone (to the cap, hundreds of games more): each shard plays on only until
    // it sees the decision, which it reads from the others' records four times a second, and
    // games count once synced (the sync comes at most 20 ms after a game ends). A few pairs each
    // beyond the decision at most; a loaded machine makes each of those moments longer.
    assert!(
        played <= 2 * units + 2 * 8 * SHARDS as u64,
        "{played} games played for {units} pairs counted\n{outputs}"
    );
}
