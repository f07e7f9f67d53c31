//! A league's config file (TOML): read, checked, and compared with the config a league directory
//! was started with. Errors name the key and what is wrong with it.

use crate::limits::Limits;
use crate::rules::{BoardKind, Rules, Setup};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The example config shipped in the repository and printed by `multiversi league --example`.
pub const EXAMPLE: &str = include_str!("../../examples/league.toml");

/// The file as written (every key the format knows; unknown keys are errors).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeagueConfig {
    /// The league's name: the records' `schedule.run` and the start of every game id.
    pub name: String,
    #[serde(default)]
    pub seed: u64,
    /// `round-robin`, `gauntlet` or `sprt` (a sequential test of two bots, keys in `[sprt]`).
    #[serde(default = "round_robin")]
    pub format: String,
    /// Gauntlet: the bots (by name) that sit in every game.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
    /// 3, 4, or both (`[3, 4]`).
    #[serde(default = "four")]
    pub players: Players,
    #[serde(default = "eight")]
    pub boards: Vec<String>,
    #[serde(default)]
    pub anti: bool,
    /// `"none"`, a list of squares, or a number of squares drawn at random per deal.
    #[serde(default = "no_blocked")]
    pub blocked: Blocked,
    #[serde(default = "one")]
    pub rounds: u32,
    /// Random legal moves the referee plays before the bots take over, per deal.
    #[serde(default)]
    pub opening: u32,
    /// Deals per round and game size drawn at random (balanced); absent: every combination.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<u64>,
    #[serde(default = "move_ms")]
    pub move_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_ms: Option<u64>,
    #[serde(default)]
    pub increment_ms: u64,
    #[serde(default = "startup_ms")]
    pub startup_ms: u64,
    #[serde(default = "grace_ms")]
    pub grace_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out: Option<PathBuf>,
    /// Print the standings every this many games on a terminal (0: only at the end).
    #[serde(default)]
    pub standings_every: u64,
    /// The sequential test of `format = "sprt"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtKeys>,
    /// OS limits for every bot (see README, "Running unknown bots").
    #[serde(default)]
    pub limits: Limits,
    #[serde(rename = "bot", default)]
    pub bots: Vec<BotConfig>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BotConfig {
    pub name: String,
    /// A command line (split like a shell would, no shell run) or `builtin:NAME`; empty for a
    /// remote bot.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub command: String,
    /// A bot that connects over the network instead (`multiversi connect`): the hash of its
    /// token, `sha256:HEX`, as `multiversi token` prints it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

/// The `[sprt]` table: which bot is tested against which, and the test's hypotheses. Every other
/// bot of the config is the field that fills the remaining seats.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SprtKeys {
    /// The new version (C), by its bot name.
    pub candidate: String,
    /// The old version (B), by its bot name.
    pub baseline: String,
    #[serde(default)]
    pub elo0: f64,
    #[serde(default = "ten")]
    pub elo1: f64,
    #[serde(default = "five_percent")]
    pub alpha: f64,
    #[serde(default = "five_percent")]
    pub beta: f64,
    /// The cap: with no decision after this many games the test ends undecided.
    #[serde(default = "max_games")]
    pub max_games: u64,
}

impl SprtKeys {
    pub fn hypotheses(&self) -> Result<crate::sprt::Hypotheses, String> {
        crate::sprt::Hypotheses::new(self.elo0, self.elo1, self.alpha, self.beta)
            .map_err(|e| e.to_string())
    }
}

fn ten() -> f64 {
    10.0
}
fn five_percent() -> f64 {
    0.05
}
fn max_games() -> u64 {
    20_000
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Players {
    One(u32),
    Several(Vec<u32>),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Blocked {
    Random(u32),
    List(Vec<String>),
    Word(String),
}

fn round_robin() -> String {
    "round-robin".into()
}
fn four() -> Players {
    Players::One(4)
}
fn eight() -> Vec<String> {
    vec!["8x8".into()]
}
fn no_blocked() -> Blocked {
    Blocked::Word("none".into())
}
fn one() -> u32 {
    1
}
fn move_ms() -> u64 {
    1000
}
fn startup_ms() -> u64 {
    10000
}
fn grace_ms() -> u64 {
    1000
}

/// What went wrong with a config: unreadable (exit 3) or wrong (exit 2).
#[derive(Debug)]
pub enum ConfigError {
    Unreadable(String),
    Invalid(String),
}

impl LeagueConfig {
    /// Reads and checks a config file.
    pub fn load(path: &Path) -> Result<LeagueConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            // A league's directory for its config: point to the copy it holds.
            let hint = if path.join("league.toml").is_file() {
                format!(
                    " (a league directory: its config is {})",
                    path.join("league.toml").display()
                )
            } else {
                String::new()
            };
            ConfigError::Unreadable(format!("{}: cannot read: {e}{hint}", path.display()))
        })?;
        LeagueConfig::parse(&text)
            .map_err(|e| ConfigError::Invalid(format!("{}: {e}", path.display())))
    }

    /// Parses and checks a config's text; the error names the key and what is wrong.
    pub fn parse(text: &str) -> Result<LeagueConfig, String> {
        let config: LeagueConfig = toml::from_str(text).map_err(|e| {
            // toml's message names the key, the line and the column; keep it on one screen.
            let message = e.to_string().trim_end().to_string();
            // `[bot]` makes one table where a list of tables is wanted: say what to write.
            if single_bot_table(text) {
                format!(
                    "{message}\nhint: each bot is a table of the list `bot`: write [[bot]] (two \
                     brackets) before each bot, not [bot]"
                )
            } else if let Some(hint) = key_hint(&message) {
                format!("{message}\nhint: {hint}")
            } else {
                message
            }
        })?;
        config.check()?;
        Ok(config)
    }

    /// Parses without checking: the copy kept in a league directory, whose bots' directories
    /// may have moved since; only compared with the config given now, which is checked.
    pub fn parse_copy(text: &str) -> Result<LeagueConfig, String> {
        toml::from_str(text).map_err(|e| e.to_string().trim_end().to_string())
    }

    /// The game sizes asked for, ascending.
    pub fn sizes(&self) -> Vec<usize> {
        let mut sizes: Vec<usize> = match &self.players {
            Players::One(n) => vec![*n as usize],
            Players::Several(ns) => ns.iter().map(|&n| n as usize).collect(),
        };
        sizes.sort_unstable();
        sizes.dedup();
        sizes
    }

    /// The bots (by place in the list) that are gauntlet candidates.
    pub fn candidate_places(&self) -> Vec<usize> {
        self.bots
            .iter()
            .enumerate()
            .filter(|(_, b)| self.candidates.contains(&b.name))
            .map(|(i, _)| i)
            .collect()
    }

    fn check(&self) -> Result<(), String> {
        let name_ok = |s: &str| {
            !s.is_empty()
                && s.len() <= 64
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        };
        if !name_ok(&self.name) {
            return Err(format!(
                "name = {:?}: use 1 to 64 letters, digits, '-', '_' or '.'",
                self.name
            ));
        }
        let sizes = self.sizes();
        if sizes.is_empty() || sizes.iter().any(|n| !(3..=4).contains(n)) {
            return Err(format!(
                "players = {}: a game is for 3 or 4 players (or [3, 4] for both)",
                players_text(&self.players)
            ));
        }
        if let Players::Several(ns) = &self.players {
            if let Some(i) = (1..ns.len()).find(|&i| ns[..i].contains(&ns[i])) {
                return Err(format!("players[{i}] = {}: listed twice", ns[i]));
            }
        }
        if self.boards.is_empty() {
            return Err("boards = []: give at least one board (8x8, 10x10 or octagon)".into());
        }
        for (i, board) in self.boards.iter().enumerate() {
            board
                .parse::<BoardKind>()
                .map_err(|e| format!("boards[{i}] = {board:?}: {e}"))?;
            if self.boards[..i].contains(board) {
                return Err(format!("boards[{i}] = {board:?}: listed twice"));
            }
        }
        // An opening that takes most of the board leaves the result to chance; a quarter of the
        // squares is far beyond any opening book and still leaves the game to the bots.
        for board in &self.boards {
            let kind: BoardKind = board.parse().map_err(|e| format!("{board}: {e}"))?;
            let most = kind.squares().count() as u32 / 4;
            if self.opening > most {
                return Err(format!(
                    "opening = {}: at most {most} moves on {board} (a quarter of its squares), so \
                     that the bots play the game",
                    self.opening
                ));
            }
        }
        match &self.blocked {
            Blocked::Word(w) if w != "none" => {
                return Err(format!(
                    "blocked = {w:?}: use \"none\", a list of squares such as [\"c3\", \"f6\"], \
                     or a number of squares to block at random in each deal"
                ))
            }
            _ => {}
        }
        for board in &self.boards {
            for &k in &sizes {
                Rules::from_setup(&self.setup(board, k, 0))
                    .map_err(|e| format!("blocked (on {board}): {e}"))?;
            }
        }
        if self.rounds == 0 || self.rounds > super::schedule::MAX_ROUNDS {
            return Err(format!(
                "rounds = {}: from 1 to {}",
                self.rounds,
                super::schedule::MAX_ROUNDS
            ));
        }
        if let Some(deals) = self.sample {
            if deals == 0 || deals > super::schedule::MAX_SAMPLE {
                return Err(format!(
                    "sample = {deals}: from 1 to {} deals per round (for more games, ask for \
                     more rounds)",
                    super::schedule::MAX_SAMPLE
                ));
            }
        }
        if self.move_ms == 0 {
            return Err("move_ms = 0: a move needs some time".into());
        }
        if self.clock_ms == Some(0) {
            return Err("clock_ms = 0: a clock needs some time".into());
        }
        if self.startup_ms == 0 {
            return Err("startup_ms = 0: a bot needs some time to start".into());
        }
        if self.concurrency == Some(0) {
            return Err("concurrency = 0: play at least one game at a time".into());
        }
        self.limits
            .check(|key| format!("limits.{key}"))
            .map_err(|e| e.to_string())?;
        if self.bots.len() > super::schedule::MAX_BOTS {
            return Err(format!(
                "{} bots: a league takes at most {}",
                self.bots.len(),
                super::schedule::MAX_BOTS
            ));
        }
        for (i, bot) in self.bots.iter().enumerate() {
            let at = format!("bot {} ([[bot]] number {})", bot.name, i + 1);
            if !name_ok(&bot.name) {
                return Err(format!(
                    "[[bot]] number {}: name = {:?}: use 1 to 64 letters, digits, '-', '_' or '.'",
                    i + 1,
                    bot.name
                ));
            }
            if self.bots[..i].iter().any(|b| b.name == bot.name) {
                return Err(format!("{at}: name: another bot has this name"));
            }
            if let Some(remote) = &bot.remote {
                let hash = crate::remote::TokenHash::parse(remote)
                    .map_err(|e| format!("{at}: remote: {e}"))?;
                if !bot.command.trim().is_empty() {
                    return Err(format!(
                        "{at}: give either a command (a bot run here) or remote (a bot that \
                         connects over the network), not both"
                    ));
                }
                if bot.cwd.is_some() || !bot.env.is_empty() {
                    return Err(format!(
                        "{at}: cwd and env are for a bot run here; a remote bot runs on its \
                         owner's machine"
                    ));
                }
                let earlier = self.bots[..i].iter().find(|b| {
                    b.remote.as_deref().map(crate::remote::TokenHash::parse) == Some(Ok(hash))
                });
                if let Some(earlier) = earlier {
                    return Err(format!(
                        "{at}: remote: the same token as bot {}; give each bot a token of its own",
                        earlier.name
                    ));
                }
            } else if bot.command.trim().is_empty() {
                return Err(format!(
                    "{at}: no command (give command = the bot's command line, or remote = the \
                     hash of a token, for a bot that connects over the network)"
                ));
            }
            if let Some(dir) = &bot.cwd {
                if !dir.is_dir() {
                    return Err(format!("{at}: cwd = {:?}: not a directory", dir.display()));
                }
            }
        }
        match self.format.as_str() {
            "round-robin" => {
                if !self.candidates.is_empty() {
                    return Err(
                        "candidates: only a gauntlet has candidates (format = \"gauntlet\")".into(),
                    );
                }
            }
            "gauntlet" => {
                if self.candidates.is_empty() {
                    return Err("candidates: a gauntlet needs at least one candidate bot".into());
                }
                for c in &self.candidates {
                    if !self.bots.iter().any(|b| &b.name == c) {
                        return Err(format!("candidates: no bot is named {c:?}"));
                    }
                }
                if self.candidates.len() >= sizes[0] {
                    return Err(format!(
                        "candidates: {} candidates leave no seat for the pool in a {}-player game",
                        self.candidates.len(),
                        sizes[0]
                    ));
                }
            }
            "sprt" => self.check_sprt(&sizes)?,
            other => {
                return Err(format!(
                    "format = {other:?}: use \"round-robin\", \"gauntlet\" or \"sprt\""
                ))
            }
        }
        if self.format != "sprt" && self.sprt.is_some() {
            return Err("[sprt]: only a sequential test has these keys (format = \"sprt\")".into());
        }
        if self.bots.len() < sizes[0] {
            return Err(format!(
                "{} bot(s) listed: a {}-player league needs at least {} ([[bot]] entries)",
                self.bots.len(),
                sizes[0],
                sizes[0]
            ));
        }
        Ok(())
    }

    /// The keys of a sequential test: its two bots in the list, a field for the other seats,
    /// valid hypotheses, and none of a league's schedule keys (the test draws its own deals).
    fn check_sprt(&self, sizes: &[usize]) -> Result<(), String> {
        let Some(keys) = &self.sprt else {
            return Err(
                "format = \"sprt\" needs an [sprt] table with candidate and baseline".into(),
            );
        };
        for (key, name) in [("candidate", &keys.candidate), ("baseline", &keys.baseline)] {
            if !self.bots.iter().any(|b| &b.name == name) {
                return Err(format!("[sprt] {key} = {name:?}: no bot is named so"));
            }
        }
        if keys.candidate == keys.baseline {
            return Err(format!(
                "[sprt] candidate and baseline are both {:?}: test two different bots",
                keys.candidate
            ));
        }
        keys.hypotheses().map_err(|e| format!("[sprt]: {e}"))?;
        if keys.max_games < 2 {
            return Err(format!(
                "[sprt] max_games = {}: a test plays games in twin pairs, at least 2",
                keys.max_games
            ));
        }
        let field = self.bots.len() - 2;
        let need = sizes.iter().max().copied().unwrap_or(4) - 2;
        if field < need {
            return Err(format!(
                "{field} bot(s) besides the candidate and the baseline: a {}-player table needs \
                 {need} others from the field ([[bot]] entries)",
                need + 2
            ));
        }
        if !self.candidates.is_empty() {
            return Err("candidates: a sequential test names its bots in [sprt]".into());
        }
        if self.rounds != 1 || self.sample.is_some() {
            return Err(
                "rounds, sample: a sequential test draws its own deals until it decides (set \
                 [sprt] max_games for a cap)"
                    .into(),
            );
        }
        Ok(())
    }

    /// The setup of one deal's games.
    pub fn setup(&self, board: &str, players: usize, seed: u64) -> Setup {
        let (blocked, blocked_random) = match &self.blocked {
            Blocked::Random(n) => (String::new(), *n),
            Blocked::List(list) => (list.join(","), 0),
            Blocked::Word(_) => (String::new(), 0),
        };
        Setup {
            players: players as u32,
            board: board.to_string(),
            anti: self.anti,
            blocked,
            blocked_random,
            seed,
        }
    }

    /// This config as TOML, for the league directory's copy.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// Why a league directory started with `old` cannot go on with `self`; None if it can. Only
    /// growth is allowed: bots added at the end of the list, more rounds; and what does not
    /// change the games (concurrency, output directory, standings interval). A bot that has no
    /// game in the directory (`has_games` says no: it was left out, say for a wrong path) may
    /// change its command, cwd or env: no recorded game was played by the bot before.
    pub fn change_from(
        &self,
        old: &LeagueConfig,
        has_games: impl Fn(&str) -> bool,
    ) -> Option<String> {
        let mut changes = Vec::new();
        for (i, before) in old.bots.iter().enumerate() {
            match self.bots.get(i) {
                Some(now) if now.plays_as(before) => {}
                Some(now) if now.name == before.name && !has_games(&now.name) => {}
                Some(now) if now.name == before.name => {
                    changes.push(format!("bot {}: {}", before.name, bot_change(before, now)))
                }
                Some(now)
                    if now.command == before.command
                        && !self.bots.iter().any(|b| b.name == before.name)
                        && !old.bots.iter().any(|b| b.name == now.name) =>
                {
                    changes.push(format!(
                        "bot {} was renamed {} (its games are recorded under the old name)",
                        before.name, now.name
                    ))
                }
                _ => match self.bots.iter().position(|b| b.name == before.name) {
                    Some(j) => changes.push(format!(
                        "bot {} moved from place {} to {} ({})",
                        before.name,
                        i + 1,
                        j + 1,
                        if self.format == "sprt" {
                            "a sequential test's candidate comes first: give NEW and OLD in the \
                             order the test was started with"
                        } else {
                            "add new bots at the end"
                        }
                    )),
                    None => changes.push(format!("bot {} was removed", before.name)),
                },
            }
        }
        if self.rounds < old.rounds {
            changes.push(format!(
                "rounds went down from {} to {}",
                old.rounds, self.rounds
            ));
        }
        let comparable = |c: &LeagueConfig| {
            // A sequential test may raise or lower its cap: the games it played stay valid.
            let sprt = c.sprt.clone().map(|keys| SprtKeys {
                max_games: 0,
                ..keys
            });
            let v = serde_json::to_value(LeagueConfig {
                sprt,
                bots: Vec::new(),
                rounds: 0,
                concurrency: None,
                out: None,
                standings_every: 0,
                ..c.clone()
            })
            .unwrap_or_default();
            flat(String::new(), v)
        };
        let (now, before) = (comparable(self), comparable(old));
        for (key, value) in &before {
            let new = now.get(key).cloned().unwrap_or(serde_json::Value::Null);
            if &new != value {
                changes.push(format!("{key} was {value}, now {new}"));
            }
        }
        for (key, value) in &now {
            if !before.contains_key(key) {
                changes.push(format!("{key} is new: {value}"));
            }
        }
        (!changes.is_empty()).then(|| changes.join("; "))
    }
}

/// A config as JSON, its tables flattened into dotted keys (`sprt.elo1`), so that a change is
/// named by the one key that changed, not by a whole table.
fn flat(prefix: String, value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    let mut out = serde_json::Map::new();
    match value {
        serde_json::Value::Object(map) => {
            for (key, value) in map {
                let key = if prefix.is_empty() {
                    key
                } else {
                    format!("{prefix}.{key}")
                };
                match value {
                    serde_json::Value::Object(_) => out.extend(flat(key, value)),
                    value => {
                        out.insert(key, value);
                    }
                }
            }
        }
        value if !prefix.is_empty() => {
            out.insert(prefix, value);
        }
        _ => {}
    }
    out
}

/// The keys of a config's top level, as its error messages list them.
const TOP_KEYS: &[&str] = &[
    "name",
    "seed",
    "format",
    "candidates",
    "players",
    "boards",
    "anti",
    "blocked",
    "rounds",
    "opening",
    "sample",
    "move_ms",
    "clock_ms",
    "increment_ms",
    "startup_ms",
    "grace_ms",
    "concurrency",
    "out",
    "standings_every",
];

/// Advice for the TOML reader's words on a key: a league key written below a `[[bot]]` (TOML
/// gives it to that bot), a key one or two letters off a known one, a negative number.
fn key_hint(message: &str) -> Option<String> {
    if message.contains("expected u64") || message.contains("expected u32") {
        return message
            .contains("integer `-")
            .then(|| "give a whole number, 0 or more".to_string());
    }
    let unknown = message.split("unknown field `").nth(1)?.split('`').next()?;
    let expected: Vec<&str> = message
        .split("expected one of ")
        .nth(1)?
        .split(", ")
        .map(|k| k.trim().trim_matches('`'))
        .collect();
    if TOP_KEYS.contains(&unknown) && !expected.contains(&unknown) && expected.contains(&"command")
    {
        return Some(format!(
            "`{unknown}` is a key of the league, but it comes after a [[bot]] table, which TOML \
             gives it to: move it above the first [[bot]]"
        ));
    }
    let near = expected
        .iter()
        .copied()
        .filter(|k| edit_distance(k, unknown) <= 2)
        .min_by_key(|k| edit_distance(k, unknown))?;
    Some(format!("did you mean `{near}`?"))
}

/// The Levenshtein distance of two short keys.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// Whether a config's text has a `[bot]` table header (where `[[bot]]` is meant).
fn single_bot_table(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        l.starts_with("[bot]") || l.starts_with("[ bot ]")
    })
}

impl BotConfig {
    /// Whether this bot plays the games `other` played: the same in everything but a remote
    /// bot's token, which its organiser may replace (a token given away by mistake).
    fn plays_as(&self, other: &BotConfig) -> bool {
        let token_aside = |b: &BotConfig| BotConfig {
            remote: b.remote.as_ref().map(|_| String::new()),
            ..b.clone()
        };
        token_aside(self) == token_aside(other)
    }
}

/// What changed in a bot between two configs, old and new, for each of command, cwd and env.
fn bot_change(before: &BotConfig, now: &BotConfig) -> String {
    let mut parts = Vec::new();
    match (&before.remote, &now.remote) {
        (None, Some(_)) => parts.push("it became a remote bot".to_string()),
        (Some(_), None) => parts.push("it was a remote bot".to_string()),
        _ => {}
    }
    if before.command != now.command {
        parts.push(format!(
            "its command changed from {:?} to {:?}",
            before.command, now.command
        ));
    }
    if before.cwd != now.cwd {
        let show = |c: &Option<PathBuf>| {
            c.as_ref().map_or("none".to_string(), |p| {
                format!("{:?}", p.display().to_string())
            })
        };
        parts.push(format!(
            "its cwd changed from {} to {}",
            show(&before.cwd),
            show(&now.cwd)
        ));
    }
    if before.env != now.env {
        parts.push(format!(
            "its env changed from {:?} to {:?}",
            before.env, now.env
        ));
    }
    parts.join(", ")
}

fn players_text(p: &Players) -> String {
    match p {
        Players::One(n) => n.to_string(),
        Players::Several(ns) => format!("{ns:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "name = \"t\"\n[[bot]]\nname = \"a\"\ncommand = \"builtin:random\"\n\
        [[bot]]\nname = \"b\"\ncommand = \"builtin:greedy\"\n[[bot]]\nname = \"c\"\n\
        command = \"builtin:random\"\n[[bot]]\nname = \"d\"\ncommand = \"builtin:random\"\n";

    /// The example documents the format: every key it sets (or leaves commented out, to its
    /// default) parses to the value it shows, and its bots are the five it lists, in order.
    #[test]
    fn the_example_parses_to_the_values_it_shows() {
        let config = LeagueConfig::parse(EXAMPLE).unwrap();
        let bot = |name: &str, command: &str| BotConfig {
            name: name.into(),
            command: command.into(),
            remote: None,
            cwd: None,
            env: BTreeMap::new(),
        };
        let expected = LeagueConfig {
            name: "example".into(),
            seed: 1,
            format: "round-robin".into(),
            candidates: Vec::new(),
            players: Players::One(4),
            boards: vec!["8x8".into()],
            anti: false,
            blocked: Blocked::Word("none".into()),
            rounds: 2,
            opening: 4,
            sample: None,
            move_ms: 200,
            clock_ms: None,
            increment_ms: 0,
            startup_ms: 10000,
            grace_ms: 1000,
            concurrency: None,
            out: None,
            standings_every: 0,
            sprt: None,
            limits: Limits::default(),
            bots: vec![
                bot("best", "builtin:best"),
                bot("greedy", "builtin:greedy"),
                bot("mcts", "builtin:mcts"),
                bot("random", "builtin:random"),
                bot("starter-py", "python3 bots/python/starter.py"),
            ],
        };
        assert_eq!(config, expected);
        // The game size its opening comment counts the games with: C(5,4) deals of 4 players.
        assert_eq!(config.sizes(), [4]);
        // Its values are the defaults but for the four its comments give the default of.
        let defaults = LeagueConfig::parse(BASE).unwrap();
        assert_eq!(
            (
                defaults.seed,
                defaults.rounds,
                defaults.opening,
                defaults.move_ms
            ),
            (0, 1, 0, 1000)
        );
        for (key, default) in [
            ("seed", 0),
            ("rounds", 1),
            ("opening", 0),
            ("move_ms", 1000),
        ] {
            let said = format!("default {default}");
            let said_zero = "0 for none, the default";
            let comment = EXAMPLE
                .split(&format!("\n{key} = "))
                .next()
                .and_then(|before| before.rsplit("\n\n").next())
                .unwrap();
            assert!(
                comment.contains(&said) || (default == 0 && comment.contains(said_zero)),
                "{key}: {comment}"
            );
        }
        assert_eq!(
            LeagueConfig {
                name: "example".into(),
                seed: 1,
                rounds: 2,
                opening: 4,
                move_ms: 200,
                bots: expected.bots.clone(),
                ..defaults
            },
            expected
        );
    }

    #[test]
    fn a_misplaced_or_mistyped_key_gets_a_hint() {
        let bots = "[[bot]]\nname = \"a\"\ncommand = \"builtin:random\"\n";
        let below =
            LeagueConfig::parse(&format!("name = \"t\"\n{bots}boards = [\"8x8\"]\n")).unwrap_err();
        assert!(
            below.contains("hint: `boards` is a key of the league, but it comes after a [[bot]]"),
            "{below}"
        );
        let typo = LeagueConfig::parse(&format!("name = \"t\"\nmove_sm = 3\n{bots}")).unwrap_err();
        assert!(typo.ends_with("hint: did you mean `move_ms`?"), "{typo}");
        let far = LeagueConfig::parse(&format!("name = \"t\"\nzzz = 3\n{bots}")).unwrap_err();
        assert!(!far.contains("hint:"), "{far}");
        let negative =
            LeagueConfig::parse(&format!("name = \"t\"\nmove_ms = -3\n{bots}")).unwrap_err();
        assert!(
            negative.ends_with("hint: give a whole number, 0 or more"),
            "{negative}"
        );
    }

    #[test]
    fn errors_name_the_key() {
        let cases = [
            ("players = 5\n", "players = 5"),
            ("players = [3, 3]\n", "players[1] = 3: listed twice"),
            ("sample = 100001\n", "sample = 100001: from 1 to 100000"),
            ("boards = [\"9x9\"]\n", "boards[0]"),
            ("blocked = \"some\"\n", "blocked = \"some\""),
            ("blocked = [\"d4\"]\n", "blocked (on 8x8)"),
            ("rounds = 0\n", "rounds = 0"),
            ("colour = 1\n", "colour"),
            ("format = \"swiss\"\n", "format = \"swiss\""),
            (
                "format = \"gauntlet\"\ncandidates = [\"z\"]\n",
                "no bot is named \"z\"",
            ),
            ("move_ms = \"fast\"\n", "move_ms"),
            ("startup_ms = 0\n", "startup_ms = 0"),
            ("opening = 100\n", "opening = 100: at most 16 moves on 8x8"),
        ];
        for (extra, expected) in cases {
            let text = format!("{extra}{BASE}");
            let e = LeagueConfig::parse(&text).unwrap_err();
            assert!(e.contains(expected), "{extra}: {e}");
        }
        // `[bot]` for `[[bot]]`: the hint says what to write.
        for single in [
            BASE.replace("[[bot]]", "[bot]"),
            "name = \"t\"\n[bot]\nname = \"a\"\ncommand = \"x\"\n".to_string(),
        ] {
            let e = LeagueConfig::parse(&single).unwrap_err();
            assert!(e.contains("write [[bot]] (two brackets)"), "{e}");
        }
        let twice = BASE.replace("name = \"b\"", "name = \"a\"");
        assert!(LeagueConfig::parse(&twice)
            .unwrap_err()
            .contains("another bot has this name"));
    }

    #[test]
    fn only_growth_is_allowed() {
        let old = LeagueConfig::parse(BASE).unwrap();
        let grown = LeagueConfig::parse(&format!(
            "rounds = 2\nconcurrency = 1\n{BASE}[[bot]]\nname = \"e\"\ncommand = \"x\"\n"
        ))
        .unwrap();
        let all = |_: &str| true;
        assert_eq!(grown.change_from(&old, all), None);
        let reseeded = LeagueConfig::parse(&format!("seed = 3\n{BASE}")).unwrap();
        assert!(reseeded
            .change_from(&old, all)
            .unwrap()
            .contains("seed was 0, now 3"));
        let renamed = LeagueConfig::parse(&BASE.replace("\"d\"", "\"e\"")).unwrap();
        assert!(renamed
            .change_from(&old, all)
            .unwrap()
            .contains("bot d was renamed e"));
        // Renamed and given another command: not the same bot any more.
        let replaced = LeagueConfig::parse(&BASE.replace(
            "name = \"d\"\ncommand = \"builtin:random\"",
            "name = \"e\"\ncommand = \"builtin:greedy\"",
        ))
        .unwrap();
        assert!(replaced
            .change_from(&old, all)
            .unwrap()
            .contains("bot d was removed"));
        let swapped = LeagueConfig::parse(&BASE.replace("builtin:greedy", "builtin:best")).unwrap();
        assert!(swapped
            .change_from(&old, all)
            .unwrap()
            .contains("bot b: its command changed from \"builtin:greedy\" to \"builtin:best\""));
        assert!(old
            .change_from(&grown, all)
            .unwrap()
            .contains("rounds went down"));
        // A bot without a game (left out for a command that did not work) may be fixed.
        assert_eq!(swapped.change_from(&old, |name| name != "b"), None);
        assert!(swapped
            .change_from(&old, |name| name != "a")
            .unwrap()
            .contains("bot b: its command"));
    }
}
