//! The checklist `check-bot` prints: one line per check, passed, warned, failed or not checked,
//! and for a failure the exact lines that were sent and what came back, so that the author can
//! pipe them into the bot by hand. `--json` prints the same as one JSON object (shape in
//! README.md, "Checking a bot").

use crate::explain::stderr_excerpt;
use crate::text::visible;
use serde::Serialize;

/// How a check came out. "Not checked" is kept apart from "failed" so that one early mistake
/// (a bot that never answers `start`) reads as one failure to fix, not as twenty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Passed,
    /// The bot does what protocol version 1 asks, but not what keeps it safe in a match (such as
    /// saying which turn an answer is for). Not a failure: the run still passes, exit code 0.
    Warning,
    Failed,
    /// The check could not run because of an earlier failure; it says nothing about the bot.
    NotChecked,
}

/// One line of the checklist.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    /// A stable name for machines: `startup`, `board-8x8-3`, `game-4p-seat-2`, `stdout`, …
    pub id: String,
    /// What is checked, for people.
    pub title: String,
    pub status: Status,
    /// Whether the check ran and did not fail (`status` is `passed` or `warning`): kept for
    /// readers of the JSON that know only this field.
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
            status: Status::Passed,
            passed: true,
            summary,
            sent: Vec::new(),
            got: None,
            stderr: None,
            hint: None,
        }
    }

    /// A check the bot passes by the protocol, with a risk it should know of: the summary says
    /// what, the hint why it matters and what to do.
    pub fn warning(id: &str, title: &str, summary: String) -> Check {
        Check {
            status: Status::Warning,
            ..Check::pass(id, title, summary)
        }
    }

    pub fn fail(id: &str, title: &str, summary: String) -> Check {
        Check {
            status: Status::Failed,
            passed: false,
            ..Check::pass(id, title, summary)
        }
    }

    /// A check that an earlier failure kept from running; `why` names that failure.
    pub fn not_checked(id: &str, title: &str, why: &str) -> Check {
        Check {
            status: Status::NotChecked,
            passed: false,
            ..Check::pass(id, title, format!("not checked: {why}"))
        }
    }
}

/// How many checks came out each way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub passed: usize,
    /// Checks passed with a warning: counted apart from `passed`, and no failure.
    pub warnings: usize,
    pub failed: usize,
    pub not_checked: usize,
}

impl Counts {
    pub fn of(checks: &[Check]) -> Counts {
        let mut counts = Counts::default();
        for check in checks {
            match check.status {
                Status::Passed => counts.passed += 1,
                Status::Warning => counts.warnings += 1,
                Status::Failed => counts.failed += 1,
                Status::NotChecked => counts.not_checked += 1,
            }
        }
        counts
    }

    /// Every check ran and passed, warnings or not: the exit code is 0 exactly then.
    pub fn all_passed(&self) -> bool {
        self.failed == 0 && self.not_checked == 0
    }

    /// The verdict in one line: `25 checks: 2 failed, 22 not checked, 1 passed`; with warnings,
    /// `26 checks passed, 1 with a warning`.
    pub fn verdict(&self) -> String {
        let total = self.passed + self.warnings + self.failed + self.not_checked;
        if self.all_passed() {
            return match self.warnings {
                0 => format!("all {total} checks passed"),
                1 => format!("all {total} checks passed, 1 with a warning"),
                n => format!("all {total} checks passed, {n} with a warning"),
            };
        }
        let mut parts = Vec::new();
        if self.failed > 0 {
            parts.push(format!("{} failed", self.failed));
        }
        if self.not_checked > 0 {
            parts.push(format!("{} not checked", self.not_checked));
        }
        if self.warnings > 0 {
            parts.push(format!("{} warned", self.warnings));
        }
        parts.push(format!("{} passed", self.passed));
        format!("{total} checks: {}", parts.join(", "))
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
        // To the microsecond, as records give a move's time.
        let micro = |ms: f64| (ms * 1000.0).round() / 1000.0;
        let rank = |p: f64| {
            let i = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
            micro(sorted[i - 1])
        };
        Some(Times {
            answers: sorted.len(),
            p50_ms: rank(0.50),
            p99_ms: rank(0.99),
            max_ms: micro(sorted[sorted.len() - 1]),
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
    /// Whether every check ran and passed (the exit code is 0 exactly then).
    pub passed: bool,
    /// How many checks passed, failed, and were not checked.
    pub counts: Counts,
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
        let mut hinted: Vec<(&String, &String)> = Vec::new();
        for check in &self.checks {
            let mark = match check.status {
                Status::Passed => "ok  ",
                Status::Warning => "WARN",
                Status::Failed => "FAIL",
                Status::NotChecked => "--  ",
            };
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
            // A hint is given in full once: several checks that fail for one reason (a bot
            // that never flushes fails them all) point back to it instead of repeating it.
            if let Some(hint) = &check.hint {
                match hinted.iter().find(|(h, _)| *h == hint) {
                    Some((_, first)) => out.push_str(&format!(
                        "        hint:   the same as for \"{first}\" above\n"
                    )),
                    None => {
                        out.push_str(&format!("        hint:   {hint}\n"));
                        hinted.push((hint, &check.title));
                    }
                }
            }
        }
        out.push('\n');
        out.push_str(&self.counts.verdict());
        if self.counts.all_passed() {
            out.push_str(": the bot speaks the protocol.\n");
        } else {
            out.push_str(".\n");
        }
        if self.counts.warnings > 0 {
            out.push_str(
                "Warnings do not fail the check, but each names a risk in a match: see its hint.\n",
            );
        }
        if self.counts.not_checked > 0 {
            out.push_str(
                "Not checked: an earlier failure kept them from running; fix the failures and \
                 check again.\n",
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report of `checks` for a bot called `bot`.
    fn report_of(checks: Vec<Check>) -> Report {
        Report {
            command: vec!["bot".into()],
            seed: 0,
            move_ms: 1,
            startup_ms: 1,
            grace_ms: 1,
            passed: Counts::of(&checks).all_passed(),
            counts: Counts::of(&checks),
            checks,
            times: None,
        }
    }

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
    fn not_checked_is_counted_apart_from_failed() {
        let checks = vec![
            Check::pass("a", "one", "fine".into()),
            Check::fail("b", "two", "wrong".into()),
            Check::not_checked("c", "three", "the bot did not answer start at all"),
            Check::not_checked("d", "four", "the bot did not answer start at all"),
        ];
        let counts = Counts::of(&checks);
        assert_eq!(
            counts,
            Counts {
                passed: 1,
                warnings: 0,
                failed: 1,
                not_checked: 2
            }
        );
        assert!(!counts.all_passed());
        assert_eq!(
            counts.verdict(),
            "4 checks: 1 failed, 2 not checked, 1 passed"
        );
        // Nothing failed, but something could not run: still no pass.
        let counts = Counts::of(&checks[2..]);
        assert!(!counts.all_passed());
        assert_eq!(counts.verdict(), "2 checks: 2 not checked, 0 passed");
        let counts = Counts::of(&checks[..1]);
        assert!(counts.all_passed());
        assert_eq!(counts.verdict(), "all 1 checks passed");

        let report = report_of(checks);
        let text = report.text();
        assert!(text.contains("FAIL  two"), "{text}");
        assert!(
            text.contains("--    three  not checked: the bot did not answer start at all"),
            "{text}"
        );
        assert!(text.contains("\n4 checks: 1 failed, 2 not checked, 1 passed.\n"));
        assert!(text.contains("Not checked: an earlier failure kept them from running"));
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["checks"][2]["status"], "not-checked");
        assert_eq!(json["checks"][2]["passed"], false);
        assert_eq!(json["checks"][1]["status"], "failed");
        assert_eq!(json["counts"]["not_checked"], 2);
    }

    #[test]
    fn a_warning_is_counted_apart_and_fails_nothing() {
        let mut warned = Check::warning("w", "echo", "no ply".into());
        warned.hint = Some("say which turn".into());
        let checks = vec![Check::pass("a", "one", "fine".into()), warned];
        let counts = Counts::of(&checks);
        assert_eq!((counts.passed, counts.warnings, counts.failed), (1, 1, 0));
        assert!(counts.all_passed());
        assert_eq!(counts.verdict(), "all 2 checks passed, 1 with a warning");
        let with_failure = [checks.clone(), vec![Check::fail("b", "two", "x".into())]].concat();
        assert_eq!(
            Counts::of(&with_failure).verdict(),
            "3 checks: 1 failed, 1 warned, 1 passed"
        );
        let report = report_of(checks);
        let text = report.text();
        assert!(
            text.contains("WARN  echo  no ply\n        hint:   say which turn"),
            "{text}"
        );
        assert!(
            text.contains("all 2 checks passed, 1 with a warning: the bot speaks the protocol."),
            "{text}"
        );
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["checks"][1]["status"], "warning");
        assert_eq!(json["checks"][1]["passed"], true);
        assert_eq!(json["counts"]["warnings"], 1);
        assert_eq!(json["passed"], true);
    }

    /// Checks that fail for one reason share its hint: the checklist gives it once in full and
    /// points back to it after that; the JSON keeps it on every check, for machines.
    #[test]
    fn a_hint_shared_by_several_failures_is_given_once() {
        let flush = "flush stdout after every line";
        let checks: Vec<Check> = ["one", "two", "three"]
            .iter()
            .map(|title| {
                let mut check = Check::fail(title, title, "timeout".into());
                check.hint = Some(flush.into());
                check
            })
            .collect();
        let report = report_of(checks);
        let text = report.text();
        assert_eq!(text.matches(flush).count(), 1, "{text}");
        assert_eq!(
            text.matches("        hint:   the same as for \"one\" above\n")
                .count(),
            2,
            "{text}"
        );
        let json = serde_json::to_value(&report).unwrap();
        assert!(json["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["hint"] == flush));
    }

    #[test]
    fn bot_text_cannot_reach_the_terminal_raw() {
        let mut check = Check::fail("x", "a check", "got \u{1b}[2J".into());
        check.got = Some("line\nforged".into());
        let report = Report {
            command: vec!["bot\u{1b}]0;title\u{7}".into()],
            ..report_of(vec![check])
        };
        let text = report.text();
        assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'));
        assert!(text.contains("line\\nforged"));
    }
}
