//! The checklist `check-bot` prints: one line per check, passed or failed, and for a failure the
//! exact lines that were sent and what came back, so that the author can pipe them into the bot
//! by hand. `--json` prints the same as one JSON object (shape in README.md, "Checking a bot").

use crate::explain::stderr_excerpt;
use crate::text::visible;
use serde::Serialize;

/// One line of the checklist.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    /// A stable name for machines: `startup`, `board-8x8-3`, `game-4p-seat-2`, `stdout`, …
    pub id: String,
    /// What is checked, for people.
    pub title: String,
    pub passed: bool,
    /// What happened, in one line: what was sent, what came back, how long it took.
    pub summary: String,
    /// For a failure, the protocol lines sent to the bot in the failing exchange, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sent: Vec<String>,
    /// For a failure, what came back: the bot's line as received, if there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub got: Option<String>,
    /// For a failure, the end of the bot's stderr, if it wrote any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// For a failure, the likely cause of the common mistakes, and what to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Check {
    pub fn pass(id: &str, title: &str, summary: String) -> Check {
        Check {
            id: id.into(),
            title: title.into(),
            passed: true,
            summary,
            sent: Vec::new(),
            got: None,
            stderr: None,
            hint: None,
        }
    }

    pub fn fail(id: &str, title: &str, summary: String) -> Check {
        Check {
            passed: false,
            ..Check::pass(id, title, summary)
        }
    }
}

/// Answer times of all moves the bot played, against the move limit.
#[derive(Clone, Debug, Serialize)]
pub struct Times {
    pub answers: usize,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub limit_ms: u64,
}

impl Times {
    /// Nearest-rank percentiles of the answer times (none when the bot answered no turn).
    pub fn of(ms: &[f64], limit_ms: u64) -> Option<Times> {
        if ms.is_empty() {
            return None;
        }
        let mut sorted = ms.to_vec();
        sorted.sort_by(f64::total_cmp);
        let rank = |p: f64| {
            let i = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
            sorted[i - 1]
        };
        Some(Times {
            answers: sorted.len(),
            p50_ms: rank(0.50),
            p99_ms: rank(0.99),
            max_ms: sorted[sorted.len() - 1],
            limit_ms,
        })
    }
}

/// The whole result of a run.
#[derive(Debug, Serialize)]
pub struct Report {
    /// The command that was checked, as started.
    pub command: Vec<String>,
    pub seed: u64,
    pub move_ms: u64,
    pub startup_ms: u64,
    pub grace_ms: u64,
    /// Whether every check passed (the exit code is 0 exactly then).
    pub passed: bool,
    pub checks: Vec<Check>,
    /// Answer times of every move the bot sent in time; absent when it sent none.
    pub times: Option<Times>,
}

impl Report {
    /// The checklist for a person. Everything the bot controls goes through `visible`.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let command: Vec<String> = self
            .command
            .iter()
            .map(|w| visible(w).into_owned())
            .collect();
        out.push_str(&format!("check-bot: {}\n", command.join(" ")));
        out.push_str(&format!(
            "seed {}, move limit {} ms, startup limit {} ms, exit grace {} ms\n\n",
            self.seed, self.move_ms, self.startup_ms, self.grace_ms
        ));
        let width = self
            .checks
            .iter()
            .map(|c| c.title.chars().count())
            .max()
            .unwrap_or(0);
        for check in &self.checks {
            let mark = if check.passed { "ok  " } else { "FAIL" };
            out.push_str(&format!(
                "{mark}  {:width$}  {}\n",
                check.title,
                visible(&check.summary)
            ));
            for line in &check.sent {
                out.push_str(&format!("        sent:   {}\n", visible(line)));
            }
            if let Some(got) = &check.got {
                out.push_str(&format!("        got:    {}\n", visible(got)));
            }
            if let Some(stderr) = &check.stderr {
                for line in stderr_excerpt(stderr) {
                    out.push_str(&format!("        stderr: {line}\n"));
                }
            }
            if let Some(hint) = &check.hint {
                out.push_str(&format!("        hint:   {hint}\n"));
            }
        }
        let passed = self.checks.iter().filter(|c| c.passed).count();
        out.push_str(&format!(
            "\n{passed} of {} checks passed{}\n",
            self.checks.len(),
            if self.passed {
                ": the bot speaks the protocol."
            } else {
                "."
            }
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let ms: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let t = Times::of(&ms, 1000).unwrap();
        assert_eq!(
            (t.answers, t.p50_ms, t.p99_ms, t.max_ms),
            (100, 50.0, 99.0, 100.0)
        );
        let t = Times::of(&[3.0], 10).unwrap();
        assert_eq!((t.p50_ms, t.p99_ms, t.max_ms), (3.0, 3.0, 3.0));
        assert!(Times::of(&[], 10).is_none());
    }

    #[test]
    fn bot_text_cannot_reach_the_terminal_raw() {
        let mut check = Check::fail("x", "a check", "got \u{1b}[2J".into());
        check.got = Some("line\nforged".into());
        let report = Report {
            command: vec!["bot\u{1b}]0;title\u{7}".into()],
            seed: 0,
            move_ms: 1,
            startup_ms: 1,
            grace_ms: 1,
            passed: false,
            checks: vec![check],
            times: None,
        };
        let text = report.text();
        assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'));
        assert!(text.contains("line\\nforged"));
    }
}
