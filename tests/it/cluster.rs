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
        stdout(&out),
        stderr(&out)
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
        stdout(&out),
        stderr(&out),
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

/// The job-array mechanics with `multiversi match`: each task of a 3-task array plays a short
/// match seeded from its task index (deal d of task t has seed 100 t + d, so no two tasks share a
/// game) and records it in a file of its own. Every task must have
/// run exactly once, with its own index, and played the very games the same match plays here.
#[test]
fn a_slurm_job_array_runs_one_match_per_task() {
    ensure_cluster();
    let dir = temp_dir("cluster_match_array");
    let tasks = 3;
    let games = 2;
    let bin = env!("CARGO_BIN_EXE_multiversi");
    let script = "#!/bin/sh\n\
        # Arguments: the multiversi binary and the number of games.\n\
        exec \"$1\" match builtin:random builtin:greedy builtin:random \\\n\
          --seed \"${SLURM_ARRAY_TASK_ID}00\" --games \"$2\" \\\n\
          --record \"games-$SLURM_ARRAY_TASK_ID-of-$SLURM_ARRAY_TASK_COUNT.jsonl\"\n";
    run_job_array(&dir, tasks, script, &[bin, &games.to_string()]);

    let mut shard_files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    shard_files.sort();
    let expected: Vec<PathBuf> = (1..=tasks)
        .map(|t| dir.join(format!("games-{t}-of-{tasks}.jsonl")))
        .collect();
    assert_eq!(shard_files, expected, "one record file per task");

    for (task, file) in (1..=tasks).zip(&expected) {
        let shard = read_records(file);
        assert_eq!(shard.len(), games, "task {task} played each game once");
        let here = dir.join(format!("here-{task}.jsonl"));
        let out = run(&[
            "match",
            "builtin:random",
            "builtin:greedy",
            "builtin:random",
            "--seed",
            &(100 * task).to_string(),
            "--games",
            &games.to_string(),
            "--record",
            here.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let here = read_records(&here);
        for (g, (a, b)) in shard.iter().zip(&here).enumerate() {
            // A match's games are deals of 3! = 6 seatings; each deal's seed is the match's
            // seed plus the deal's number, shared by its seatings.
            assert_eq!(a.seed, Some(100 * u64::from(task) + g as u64 / 6));
            assert_eq!(play(a), play(b), "task {task} played the seeded games");
        }
    }
}
