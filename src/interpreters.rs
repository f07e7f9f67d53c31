//! Interpreters and shells: programs that run a script named by their arguments. Two parts of
//! the program need to know them and must agree: a bot's name comes from its script rather than
//! from the interpreter (`python3 bots/mine.py` is `mine`, `names`), and an interpreter given
//! alone as a bot's command reads a program from stdin and never answers, so it is a command that
//! lost its script to forgotten quotes (`explain::command`). One list serves both.

/// Interpreters and shells by their program names; `python` followed by a version
/// (`python3.12`) counts too, see `is_interpreter`.
const INTERPRETERS: &[&str] = &[
    "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "java",
    "ruby", "perl", "php", "lua", "sh", "bash", "zsh", "dotnet", "Rscript", "julia", "ocaml",
    "guile", "racket", "scala", "kotlin", "elixir", "erl", "escript", "tclsh", "env",
];

/// Whether a command word names an interpreter (`python3.12` and `/usr/bin/python3` too).
pub fn is_interpreter(word: &str) -> bool {
    let base = word.rsplit('/').next().unwrap_or(word);
    INTERPRETERS.contains(&base)
        || base
            .strip_prefix("python")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// The interpreter that usually runs a script, by its file name.
pub fn interpreter_for(file: &str) -> Option<&'static str> {
    let ext = file.rsplit_once('.')?.1;
    Some(match ext {
        "py" => "python3",
        "js" | "mjs" | "cjs" => "node",
        "ts" => "deno run",
        "rb" => "ruby",
        "pl" => "perl",
        "php" => "php",
        "lua" => "lua",
        "sh" => "sh",
        "bash" => "bash",
        "jar" => "java -jar",
        "R" | "r" => "Rscript",
        "jl" => "julia",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_interpreters_are_recognised() {
        for word in [
            "python3",
            "python",
            "python3.12",
            "/usr/bin/python3",
            "node",
            "java",
            "ruby",
        ] {
            assert!(is_interpreter(word), "{word}");
        }
        for word in ["python3x", "mybot", "builtin:greedy", "./node_bot"] {
            assert!(!is_interpreter(word), "{word}");
        }
    }
}
