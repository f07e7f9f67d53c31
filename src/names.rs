//! The names bots go by in a match: in the results table, the records, the logs and the fault
//! messages. A name comes from `--name N=NAME` when given, otherwise from the bot's command
//! (`python3 bots/mine.py` is `mine`). Two bots whose commands give the same name are told apart by
//! a word in which their commands differ (`v1/bot` and `v2/bot`, `starter.py` and `starter.js`)
//! before falling back to a number (`random`, `random-2`), because a number says nothing about
//! which bot is which.

use crate::interpreters::is_interpreter;

/// Sandbox programs whose own command line comes before `--` and the bot's command after it.
const SANDBOXES: &[&str] = &["bwrap", "firejail", "nsjail", "prlimit", "systemd-run"];

/// The bot's own command: `bwrap … -- python3 mine.py` is `python3 mine.py`.
fn inner_command(argv: &[String]) -> &[String] {
    let program = argv
        .first()
        .map_or("", |p| p.rsplit('/').next().unwrap_or(p));
    if SANDBOXES.contains(&program) {
        if let Some(end) = argv.iter().position(|a| a == "--") {
            if end + 1 < argv.len() {
                return inner_command(&argv[end + 1..]);
            }
        }
    }
    argv
}

/// The script a command runs: the first word after an interpreter (the bot's name is the
/// script's) that is not an option, or else the program itself. Commands given as code (`-c`, `-e`) have none beyond the program. The
/// index is into the bot's own command (`inner_command`).
fn script(argv: &[String]) -> Option<(usize, &str)> {
    let argv = inner_command(argv);
    let first = argv.first()?;
    if is_interpreter(first) && !argv.iter().any(|a| a == "-c" || a == "-e") {
        if let Some((i, s)) = argv
            .iter()
            .enumerate()
            .skip(1)
            .find(|(_, a)| !a.starts_with('-'))
        {
            return Some((i, s));
        }
    }
    Some((0, first))
}

/// A file name without its directory and extension.
fn stem(path: &str) -> &str {
    let base = path.rsplit('/').next().unwrap_or(path);
    match base.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => base,
    }
}

/// A friendly name for a bot command: `python3 bots/mine.py` is `mine`;
/// `./target/release/best --depth 3` is `best`. A sandbox prefix is skipped:
/// `bwrap … -- python3 mine.py` is `mine` too.
pub fn command_name(argv: &[String]) -> String {
    script(argv).map_or_else(|| "bot".to_string(), |(_, s)| stem(s).to_string())
}

/// Words of a command that could tell it from another with the same name, best first, each with
/// the name it would give: the script's file name with its extension, the arguments after it that
/// contain a letter (and are not paths), the script's directories from the nearest, then the
/// interpreter.
fn distinguishing_words(argv: &[String]) -> Vec<(String, String)> {
    let argv = inner_command(argv);
    let Some((at, path)) = script(argv) else {
        return Vec::new();
    };
    let stem = stem(path);
    let mut words = Vec::new();
    let base = path.rsplit('/').next().unwrap_or(path);
    if base != stem {
        words.push((base.to_string(), base.to_string()));
    }
    for arg in &argv[at + 1..] {
        let word = arg.trim_start_matches('-');
        if word.chars().any(|c| c.is_alphabetic()) && !word.contains('/') {
            words.push((word.to_string(), format!("{stem}-{word}")));
        }
    }
    let dirs: Vec<&str> = path.split('/').collect();
    for dir in dirs[..dirs.len() - 1].iter().rev() {
        if !dir.is_empty() && *dir != "." && *dir != ".." {
            words.push((dir.to_string(), format!("{dir}/{stem}")));
        }
    }
    if at > 0 {
        let interpreter = argv[0].rsplit('/').next().unwrap_or(&argv[0]);
        words.push((interpreter.to_string(), format!("{stem}-{interpreter}")));
    }
    words
}

/// Every bot's name, all different. `automatic[i]` is the name from bot i's command (or its
/// built-in name), `commands[i]` its command line when it is not a built-in bot, and `given[i]`
/// the name from `--name`, which is taken as it is. Bots that share an automatic name are told
/// apart by the first word of their command that no other of them has; what still collides is
/// numbered (`random-2`). Fails when two bots are given the same name.
pub fn assign(
    automatic: &[String],
    commands: &[Option<Vec<String>>],
    given: &[Option<String>],
) -> Result<Vec<String>, String> {
    assign_noting(automatic, commands, given).map(|(names, _)| names)
}

/// A bot whose name is not its automatic one (the one it has without any `--name`) because of
/// a `--name` given to another bot: that bot took its automatic name, or took the name its
/// twins are numbered after, so that the numbers moved. The given name is kept as it is, so
/// this one's is changed, which the person who typed `--name` may not expect, and a name that
/// changes between runs splits a bot's games in the standings (`Yielded::note` says it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Yielded {
    /// The bot renamed, from 0.
    pub bot: usize,
    /// The name it has without any `--name`.
    pub automatic: String,
    /// The bot `--name` gave the name to, from 0.
    pub to: usize,
    /// The name given to `to`: `automatic` itself, or the name this bot is numbered after.
    pub taken: String,
}

impl Yielded {
    /// The note for a person: which bot got which name instead of which, and why; `name` is the
    /// bot's name as the run has it.
    pub fn note(&self, name: &str) -> String {
        if self.taken != self.automatic {
            return format!(
                "multiversi: note: bot {} is named {name}, not {}: --name {}={} gave that name to \
                 bot {}, which moved the numbers of the other bots named {} up",
                self.bot + 1,
                self.automatic,
                self.to + 1,
                self.taken,
                self.to + 1,
                self.taken
            );
        }
        format!(
            "multiversi: note: bot {} is named {name}, not {}: --name {}={} gave that name to bot \
             {}, and a name given with --name is kept as it is",
            self.bot + 1,
            self.automatic,
            self.to + 1,
            self.automatic,
            self.to + 1
        )
    }
}

/// `assign`, with the bots whose automatic name was taken by a given one.
pub fn assign_noting(
    automatic: &[String],
    commands: &[Option<Vec<String>>],
    given: &[Option<String>],
) -> Result<(Vec<String>, Vec<Yielded>), String> {
    let n = automatic.len();
    let mut names: Vec<String> = automatic.to_vec();
    for i in 0..n {
        let twins: Vec<usize> = (0..n)
            .filter(|&j| j != i && given[j].is_none() && automatic[j] == automatic[i])
            .collect();
        let Some(argv) = commands[i].as_ref().filter(|_| !twins.is_empty()) else {
            continue;
        };
        let others: Vec<Vec<(String, String)>> = twins
            .iter()
            .map(|&j| {
                commands[j]
                    .as_deref()
                    .map_or(Vec::new(), distinguishing_words)
            })
            .collect();
        if let Some((_, name)) = distinguishing_words(argv)
            .into_iter()
            .find(|(word, _)| others.iter().all(|o| o.iter().all(|(w, _)| w != word)))
        {
            names[i] = name;
        }
    }
    for (i, name) in given.iter().enumerate() {
        if let Some(name) = name {
            names[i] = name.clone();
        }
    }
    // Given names are kept as they are, and must differ; whatever else still collides (with
    // them or among itself) is numbered.
    let mut used: Vec<String> = Vec::new();
    for (i, name) in given.iter().enumerate() {
        if let Some(name) = name {
            if let Some(j) = (0..i).find(|&j| given[j].as_deref() == Some(name.as_str())) {
                return Err(format!(
                    "--name {}={name}: bot {} has that name too; give each bot its own",
                    i + 1,
                    j + 1
                ));
            }
            used.push(name.clone());
        }
    }
    // What each bot's name was before it was numbered.
    let bases = names.clone();
    for i in (0..n).filter(|&i| given[i].is_none()) {
        let base = names[i].clone();
        let mut k = 1;
        while used.contains(&names[i]) {
            k += 1;
            names[i] = format!("{base}-{k}");
        }
        used.push(names[i].clone());
    }
    // A bot whose name without any --name is given to another bot, or whose number moved
    // because the name it is numbered after was given to another bot, and so is not its name.
    let mut yielded = Vec::new();
    if given.iter().any(Option::is_some) {
        let (plain, _) = assign_noting(automatic, commands, &vec![None; n])?;
        for i in (0..n).filter(|&i| given[i].is_none() && names[i] != plain[i]) {
            let took = |name: &String| given.iter().position(|g| g.as_ref() == Some(name));
            if let Some((to, taken)) = took(&plain[i])
                .map(|to| (to, &plain[i]))
                .or_else(|| took(&bases[i]).map(|to| (to, &bases[i])))
            {
                yielded.push(Yielded {
                    bot: i,
                    automatic: plain[i].clone(),
                    to,
                    taken: taken.clone(),
                });
            }
        }
    }
    Ok((names, yielded))
}

/// Reads the `--name N=NAME` options of a match of `bots` bots: the given name of each bot.
pub fn parse_given(items: &[String], bots: usize) -> Result<Vec<Option<String>>, String> {
    let mut given = vec![None; bots];
    for item in items {
        let bad = || format!("--name {item}: expected N=NAME with N a bot number from 1 to {bots}");
        let (n, name) = item.split_once('=').ok_or_else(bad)?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if n == 0 || n > bots {
            return Err(bad());
        }
        let name = name.trim();
        if name.is_empty() || name.chars().any(|c| c.is_control() || c.is_whitespace()) {
            return Err(format!(
                "--name {item}: a name is one word, without spaces or control characters"
            ));
        }
        if given[n - 1].replace(name.to_string()).is_some() {
            return Err(format!("--name {item}: bot {n} is named twice"));
        }
    }
    Ok(given)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::split_command;

    fn v(s: &str) -> Vec<String> {
        split_command(s).unwrap()
    }

    #[test]
    fn names_from_commands() {
        assert_eq!(command_name(&v("python3 bots/mine.py --fast")), "mine");
        assert_eq!(command_name(&v("./target/release/best --depth 3")), "best");
        assert_eq!(command_name(&v("node starter/js/bot.js")), "bot");
        assert_eq!(command_name(&v("java -jar x.jar")), "x");
        // The interpreters are those that `explain` knows a bare one of, one list for both.
        assert_eq!(command_name(&v("julia bots/mine.jl")), "mine");
        assert_eq!(command_name(&v("racket mine.rkt")), "mine");
        assert_eq!(command_name(&v("python3.12 mine.py")), "mine");
        assert_eq!(command_name(&v("sh -c 'exec ./x'")), "sh");
        assert_eq!(
            command_name(&v(
                "bwrap --ro-bind / / --unshare-all -- python3 bots/mine.py"
            )),
            "mine"
        );
        assert_eq!(command_name(&v("/usr/bin/bwrap --ro-bind / /")), "bwrap");
    }

    /// A line-up of commands (`builtin:NAME` for built-in bots): the bots' automatic names and
    /// their commands, as `assign` takes them.
    fn lineup(specs: &[&str]) -> (Vec<String>, Vec<Option<Vec<String>>>) {
        let commands: Vec<Option<Vec<String>>> = specs
            .iter()
            .map(|s| (!s.starts_with("builtin:")).then(|| v(s)))
            .collect();
        let automatic: Vec<String> = specs
            .iter()
            .zip(&commands)
            .map(|(s, c)| match c {
                Some(argv) => command_name(argv),
                None => s.trim_start_matches("builtin:").to_string(),
            })
            .collect();
        (automatic, commands)
    }

    /// The names of a line-up of commands and `--name`s.
    fn names(specs: &[&str], given: &[Option<&str>]) -> Result<Vec<String>, String> {
        let (automatic, commands) = lineup(specs);
        let mut given: Vec<Option<String>> = given.iter().map(|g| g.map(String::from)).collect();
        given.resize(specs.len(), None);
        assign(&automatic, &commands, &given)
    }

    #[test]
    fn bots_with_the_same_file_name_are_told_apart_by_a_word() {
        assert_eq!(
            names(
                &[
                    "python3 bots/python/starter.py",
                    "node bots/js/starter.js",
                    "builtin:greedy"
                ],
                &[]
            )
            .unwrap(),
            ["starter.py", "starter.js", "greedy"]
        );
        assert_eq!(
            names(
                &["python3 v1/bot.py", "python3 v2/bot.py", "builtin:random"],
                &[]
            )
            .unwrap(),
            ["v1/bot", "v2/bot", "random"]
        );
        assert_eq!(
            names(&["./best --fast", "./best --deep", "builtin:random"], &[]).unwrap(),
            ["best-fast", "best-deep", "random"]
        );
        // Nothing to tell them apart by: numbers, as for built-in bots.
        assert_eq!(
            names(
                &["./best 3", "./best 5", "builtin:random", "builtin:random"],
                &[]
            )
            .unwrap(),
            ["best", "best-2", "random", "random-2"]
        );
    }

    #[test]
    fn given_names_win_and_must_differ() {
        assert_eq!(
            names(
                &["python3 a/bot.py", "python3 b/bot.py", "builtin:random"],
                &[Some("mine"), None]
            )
            .unwrap(),
            ["mine", "bot", "random"]
        );
        // A given name that another bot would have had: the other one is numbered.
        assert_eq!(
            names(&["./x", "./y", "builtin:random"], &[None, Some("random")]).unwrap(),
            ["x", "random", "random-2"]
        );
        assert_eq!(
            names(
                &["builtin:greedy", "builtin:greedy", "builtin:greedy"],
                &[Some("greedy-2")]
            )
            .unwrap(),
            ["greedy-2", "greedy", "greedy-3"]
        );
        let err = names(&["./x", "./y", "builtin:random"], &[Some("a"), Some("a")]).unwrap_err();
        assert_eq!(
            err,
            "--name 2=a: bot 1 has that name too; give each bot its own"
        );
        // Which automatic names a given one took, and from whom.
        let yielded = |specs: &[&str], given: &[Option<&str>]| {
            let (automatic, commands) = lineup(specs);
            let mut given: Vec<Option<String>> =
                given.iter().map(|g| g.map(String::from)).collect();
            given.resize(specs.len(), None);
            let (names, yielded) = assign_noting(&automatic, &commands, &given).unwrap();
            let notes: Vec<String> = yielded.iter().map(|y| y.note(&names[y.bot])).collect();
            (names, notes)
        };
        assert_eq!(
            yielded(
                &["builtin:random", "./mine", "builtin:greedy"],
                &[None, Some("greedy")]
            ),
            (
                vec!["random".into(), "greedy".into(), "greedy-2".into()],
                vec![
                    "multiversi: note: bot 3 is named greedy-2, not greedy: --name 2=greedy gave \
                     that name to bot 2, and a name given with --name is kept as it is"
                        .to_string()
                ]
            )
        );
        // Twins exchanged: the first is numbered now, the second was before.
        let (names, notes) = yielded(
            &["builtin:greedy", "builtin:greedy"],
            &[None, Some("greedy")],
        );
        assert_eq!(names, ["greedy-2", "greedy"]);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("bot 1 is named greedy-2, not greedy: --name 2=greedy"));
        // The twins numbered after a name given to another bot move up: each is said.
        let (names, notes) = yielded(
            &["builtin:greedy", "./x", "builtin:greedy", "builtin:greedy"],
            &[None, Some("greedy")],
        );
        assert_eq!(names, ["greedy-2", "greedy", "greedy-3", "greedy-4"]);
        assert_eq!(
            notes,
            [
                "multiversi: note: bot 1 is named greedy-2, not greedy: --name 2=greedy gave that \
                 name to bot 2, and a name given with --name is kept as it is",
                "multiversi: note: bot 3 is named greedy-3, not greedy-2: --name 2=greedy gave \
                 that name to bot 2, which moved the numbers of the other bots named greedy up",
                "multiversi: note: bot 4 is named greedy-4, not greedy-3: --name 2=greedy gave \
                 that name to bot 2, which moved the numbers of the other bots named greedy up",
            ]
        );
        // A given name that changes nothing, or takes no other bot's name: no note.
        for given in [[Some("greedy"), None], [None, Some("mine")]] {
            let (_, notes) = yielded(&["builtin:greedy", "builtin:greedy", "./x"], &given);
            assert!(notes.is_empty(), "{given:?}: {notes:?}");
        }
    }

    #[test]
    fn name_options_are_checked() {
        let items = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            parse_given(&items(&["2=mine", "1= old "]), 3).unwrap(),
            [Some("old".to_string()), Some("mine".to_string()), None]
        );
        assert!(parse_given(&items(&["4=x"]), 3)
            .unwrap_err()
            .contains("from 1 to 3"));
        assert!(parse_given(&items(&["mine"]), 3)
            .unwrap_err()
            .contains("expected N=NAME"));
        assert!(parse_given(&items(&["1=a b"]), 3)
            .unwrap_err()
            .contains("one word"));
        assert!(parse_given(&items(&["1=a", "1=b"]), 3)
            .unwrap_err()
            .contains("named twice"));
    }
}
