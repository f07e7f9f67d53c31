//! The HTML viewer in a real headless Chromium: `tests/browser/viewer.test.mjs` exports sample
//! records with the multiversi binary, steps through them as a person would and compares what
//! the page shows with the records. `.ci/setup-browser` installs Chromium and the npm package.
//!
//! A machine without those fails this test with a message that says how to install them: the
//! README's test command runs `.ci/setup` first, and a skipped check would prove nothing.

use crate::support::samples;
use crate::support::temp_dir;
use std::path::Path;
use std::process::Command;

#[test]
fn html_viewer_shows_the_recorded_boards_in_chromium() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let node_ok = Command::new("node").arg("--version").output().is_ok();
    let missing: Vec<&str> = [
        (!node_ok, "node"),
        (!Path::new(&chromium).exists(), "chromium"),
        (
            !dir.join("node_modules/playwright-core").exists(),
            "tests/browser/node_modules",
        ),
    ]
    .into_iter()
    .filter_map(|(gone, what)| gone.then_some(what))
    .collect();
    if !missing.is_empty() {
        let msg = format!(
            "browser test needs {}: run `bash .ci/setup-browser`",
            missing.join(", ")
        );
        panic!("{msg}");
    }
    let out_dir = temp_dir("replay-browser");
    let path = out_dir.join("games.jsonl");
    // Generated games of every shape, then real ones from `multiversi match` appended.
    // A bot name that would end the data's <script> element if it were not escaped.
    let mut games = samples::sample_games();
    games[0].seats[3].name = "</script><script>document.title='broken'</script>".into();
    // A seed above 2^53, which a JavaScript number would round, and a crash's whole Python
    // traceback, which the fault box must show without clipping.
    games[0].seed = Some(11140139307897113782);
    // The referee's opening (a league's `opening = 3`), which the page must show apart from play.
    games[1].opening = 3;
    // A bot started again after it ended between games, which its panel must say.
    games[1].seats[2].restarted = true;
    let faulty = games
        .iter_mut()
        .find(|g| !g.faults.is_empty())
        .expect("a game with faults");
    faulty.faults[0].stderr_tail = "Traceback (most recent call last):\n".to_string()
        + &(1..=6)
            .map(|i| {
                format!(
                    "  File \"bot.py\", line {i}, in step{i}\n    step{}()\n",
                    i + 1
                )
            })
            .collect::<String>()
        + "ZeroDivisionError: division by zero\n";
    samples::write(&path, &games);
    samples::real_games(&path);
    let screenshot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay-viewer.png");
    let out = Command::new("node")
        .current_dir(&dir)
        .env("CHROMIUM", &chromium)
        .arg("viewer.test.mjs")
        .arg("--bin")
        .arg(env!("CARGO_BIN_EXE_multiversi"))
        .arg("--records")
        .arg(&path)
        .arg("--out")
        .arg(&out_dir)
        .arg("--screenshot")
        .arg(&screenshot)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "browser test failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
    assert!(
        screenshot.exists(),
        "no screenshot at {}",
        screenshot.display()
    );
}
