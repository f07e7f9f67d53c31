//! The usual slips in a bot's command, recognised before any game so that the user is told what
//! to type instead of watching a bot fail: a command split into two bots by forgotten quotes, a
//! script that is not executable, one in the current directory named without `./`. Also the
//! shell quoting and the program name that a suggested command line needs to work where it is
//! pasted.

use crate::interpreters::{interpreter_for, is_interpreter};
use std::path::{Path, PathBuf};

/// The program as the user invoked it, for commands to copy from a message: `multiversi` when
/// it was found on PATH, else the path typed (`target/release/multiversi`, as `cargo run`
/// starts it), so that the suggested line works where it is pasted.
pub fn program() -> String {
    match std::env::args().next() {
        Some(arg0) if arg0.contains('/') => shell_quote(&arg0),
        _ => "multiversi".into(),
    }
}

/// A word quoted for a shell when it needs it, so a suggested command line can be pasted.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=+,@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Bots given as separate words where one quoted command was meant: `python3 mybot.py` unquoted
/// is the two bots `python3` and `mybot.py`. Returns the message, with the whole corrected
/// command line, when some bot is a bare interpreter; None otherwise. `specs` are the BOT
/// arguments as given; `rest` the other arguments of the command line, repeated at the end.
pub fn forgotten_quotes(
    specs: &[String],
    rest: &str,
    program: &str,
    subcommand: &str,
) -> Option<String> {
    let bare: Vec<usize> = (0..specs.len())
        .filter(|&i| is_interpreter(specs[i].trim()))
        .collect();
    let first = *bare.first()?;
    // Each bare interpreter takes the words after it up to the next bot that stands on its own:
    // a built-in bot, another interpreter or a command with a space in it.
    let mut fixed: Vec<String> = Vec::new();
    let mut i = 0;
    while i < specs.len() {
        let mut words = vec![specs[i].clone()];
        if is_interpreter(specs[i].trim()) {
            while i + 1 < specs.len()
                && !specs[i + 1].starts_with("builtin:")
                && !is_interpreter(specs[i + 1].trim())
                && !specs[i + 1].contains(' ')
            {
                i += 1;
                words.push(specs[i].clone());
                // An interpreter's options come before its script; the script ends the command.
                if !specs[i].starts_with('-') {
                    break;
                }
            }
        }
        let joined = words.join(" ");
        fixed.push(if words.len() > 1 || joined.contains(' ') {
            format!("\"{joined}\"")
        } else {
            shell_quote(&joined)
        });
        i += 1;
    }
    // Nothing after the interpreter could be its script (a built-in bot follows it, say):
    // a corrected line would be the same line, so say what it needs instead.
    if fixed[first] == shell_quote(&specs[first]) {
        return Some(format!(
            "bot {} is '{}' alone, which would wait for a program on its stdin: a bot's command \
             is one argument, the interpreter with its script, quoted (\"{} mybot.py\")",
            first + 1,
            specs[first].trim(),
            specs[first].trim()
        ));
    }
    let rest = if rest.is_empty() {
        String::new()
    } else {
        format!(" {rest}")
    };
    Some(format!(
        "bot {} is '{}' alone, which would wait for a program on its stdin: a bot's command is \
         one argument, so quote it with its script. Type:\n  {program} {subcommand} {}{rest}",
        first + 1,
        specs[first].trim(),
        fixed.join(" ")
    ))
}

/// The words of this run's command line after `match` that are not the bots, quoted for a shell:
/// the options to repeat in a corrected command line.
pub fn options_after(specs: &[String], subcommand: &str) -> String {
    let raw: Vec<String> = std::env::args().collect();
    let from = raw
        .iter()
        .position(|a| a == subcommand)
        .map_or(raw.len(), |i| i + 1);
    other_words(&raw[from..], specs)
}

/// `words` without the `specs`, taken out in order (the bots are the positional arguments),
/// each quoted for a shell and joined by spaces.
pub fn other_words(words: &[String], specs: &[String]) -> String {
    let mut next = 0;
    let mut rest = Vec::new();
    for word in words {
        if specs.get(next) == Some(word) {
            next += 1;
        } else {
            rest.push(shell_quote(word));
        }
    }
    rest.join(" ")
}

/// The script an interpreter is told to run, when it names no file: `nosuch.py` in
/// `python3 nosuch.py`. Only a word that is a script by its name (`interpreter_for`) and comes
/// before any option that takes code or a module instead (`-c`, `-e`, `-m`).
fn missing_script(argv: &[String], resolve: impl Fn(&str) -> PathBuf) -> Option<String> {
    let program = argv.first()?;
    if !is_interpreter(program) || program.ends_with("env") {
        return None;
    }
    for word in &argv[1..] {
        if ["-c", "-e", "-m", "--eval", "-E", "-r"].contains(&word.as_str()) {
            return None;
        }
        if word.starts_with('-') {
            continue;
        }
        let named = !word.contains(char::is_whitespace) && interpreter_for(word).is_some();
        return (named && !resolve(word).exists()).then(|| word.clone());
    }
    None
}

/// What is wrong with a bot's program word, when it is one of the usual slips: a script that
/// exists but is not executable, or one in the current directory named without `./` (a command
/// without a `/` is looked up on PATH only). `dir` is the bot's working directory (`--cwd`), where
/// relative paths are resolved. Returns the message, or None when the command looks runnable (or
/// fails in a way the start itself reports well).
pub fn program_problem(argv: &[String], dir: Option<&Path>) -> Option<String> {
    let program = argv.first()?;
    let args: Vec<String> = argv[1..].iter().map(|a| shell_quote(a)).collect();
    let args = if args.is_empty() {
        String::new()
    } else {
        format!(" {}", args.join(" "))
    };
    let resolve = |p: &str| -> PathBuf {
        match dir {
            Some(d) if Path::new(p).is_relative() => d.join(p),
            _ => PathBuf::from(p),
        }
    };
    let with_interpreter =
        |path: &str| interpreter_for(path).map(|i| format!("\"{i} {}{args}\"", shell_quote(path)));
    let place = |file: &str| match dir {
        _ if Path::new(file).is_absolute() => String::new(),
        Some(d) => format!(" in {}", d.display()),
        None => " in the current directory".to_string(),
    };
    if let Some(script) = missing_script(argv, resolve) {
        return Some(format!(
            "'{script}' does not exist{}: {program} would start and exit at once",
            place(&script)
        ));
    }
    if program.contains('/') && std::fs::symlink_metadata(resolve(program)).is_err() {
        return Some(format!("'{program}' does not exist{}", place(program)));
    }
    if !program.contains('/') {
        if on_path(program) {
            return None;
        }
        let here = resolve(program);
        if !here.is_file() {
            return None;
        }
        let mut fix = Vec::new();
        if is_executable(&here) {
            fix.push(format!("\"./{program}{args}\""));
        }
        if let Some(run) = with_interpreter(program) {
            fix.push(run);
        }
        if fix.is_empty() {
            fix.push(format!("\"./{program}{args}\" after chmod +x {program}"));
        }
        return Some(format!(
            "'{program}' is a file in {}, but a command without a '/' is looked up on PATH, \
             where there is none: type {}",
            dir.map_or("the current directory".to_string(), |d| d
                .display()
                .to_string()),
            fix.join(" or ")
        ));
    }
    let path = resolve(program);
    if path.is_file() && !is_executable(&path) {
        let fix = match with_interpreter(program) {
            Some(run) => format!(
                "run it with its interpreter: {run} (or make it executable: chmod +x {program}, \
                 with a #! line at its top)"
            ),
            None => format!("make it executable (chmod +x {program}) or name its interpreter"),
        };
        return Some(format!("'{program}' exists but is not executable: {fix}"));
    }
    if path.is_dir() {
        return Some(format!(
            "'{program}' is a directory, not a program (use --cwd N=DIR to run a bot in a directory)"
        ));
    }
    None
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether a word without a `/` names an executable file on PATH, as `execvp` would find it.
fn on_path(word: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir| is_executable(&dir.join(word)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forgotten_quotes_suggest_the_quoted_command() {
        let specs: Vec<String> = ["python3", "mybot.py", "builtin:greedy", "builtin:random"]
            .map(String::from)
            .to_vec();
        let text = forgotten_quotes(&specs, "--games 4", "multiversi", "match").unwrap();
        assert!(text.starts_with("bot 1 is 'python3' alone"), "{text}");
        assert!(
            text.ends_with(
                "\n  multiversi match \"python3 mybot.py\" builtin:greedy builtin:random --games 4"
            ),
            "{text}"
        );
        let specs: Vec<String> = [
            "builtin:greedy",
            "node",
            "--harmony",
            "a.js",
            "java",
            "-jar",
            "b.jar",
            "random",
        ]
        .map(String::from)
        .to_vec();
        let text = forgotten_quotes(&specs, "", "multiversi", "match").unwrap();
        assert!(
            text.ends_with("multiversi match builtin:greedy \"node --harmony a.js\" \"java -jar b.jar\" random"),
            "{text}"
        );
        let fine: Vec<String> = ["python3 a.py", "builtin:greedy", "builtin:random"]
            .map(String::from)
            .to_vec();
        assert_eq!(forgotten_quotes(&fine, "", "multiversi", "match"), None);
        // Nothing to join: no line to type, which would be the same line.
        let alone: Vec<String> = ["python3", "builtin:greedy", "builtin:random"]
            .map(String::from)
            .to_vec();
        let text = forgotten_quotes(&alone, "", "multiversi", "match").unwrap();
        assert!(!text.contains("Type:"), "{text}");
        assert!(text.contains("(\"python3 mybot.py\")"), "{text}");
    }

    #[test]
    fn options_are_kept_for_the_corrected_command() {
        let w = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let words = w(&[
            "--games",
            "4",
            "python3",
            "my bot.py",
            "x",
            "--record",
            "g.jsonl",
        ]);
        let specs = w(&["python3", "my bot.py", "x"]);
        assert_eq!(other_words(&words, &specs), "--games 4 --record g.jsonl");
    }

    #[test]
    fn scripts_that_cannot_run_as_given() {
        let dir = std::env::temp_dir().join(format!("multiversi-explain-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("mybot.py"), "print()\n").unwrap();
        let argv = |s: &str| crate::process::split_command(s).unwrap();
        let text = program_problem(&argv("mybot.py --fast"), Some(&dir)).unwrap();
        assert!(text.starts_with("'mybot.py' is a file in "), "{text}");
        assert!(text.contains("looked up on PATH"), "{text}");
        assert!(text.ends_with("type \"python3 mybot.py --fast\""), "{text}");
        let path = format!("{}/mybot.py", dir.display());
        let text = program_problem(&argv(&path), None).unwrap();
        assert!(text.contains("exists but is not executable"), "{text}");
        assert!(text.contains(&format!("\"python3 {path}\"")), "{text}");
        assert_eq!(program_problem(&argv("python3 mybot.py"), Some(&dir)), None);
        let text = program_problem(&argv("python3 -u nosuch.py"), Some(&dir)).unwrap();
        assert!(
            text.starts_with("'nosuch.py' does not exist in ") && text.ends_with("exit at once"),
            "{text}"
        );
        assert_eq!(
            program_problem(&argv("python3 -m nosuch.py"), Some(&dir)),
            None
        );
        assert_eq!(
            program_problem(&argv("sh -c 'exec x.py'"), Some(&dir)),
            None
        );
        let text = program_problem(&argv("./nosuch --fast"), Some(&dir)).unwrap();
        assert!(
            text.starts_with("'./nosuch' does not exist in ") && !text.contains("--fast"),
            "{text}"
        );
        assert_eq!(
            program_problem(&argv("no-such-program-here"), Some(&dir)),
            None
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
