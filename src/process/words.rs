//! Bot commands as argument lists: a bot is named by one command line (an option of `match` and
//! `check-bot`, a key of a league config), and started without a shell from the words of it.
//! Splitting here, not in a shell, is what keeps a bot command from running anything but the
//! program it names.

/// Splits a command line into arguments the way a POSIX shell would for a simple command: blanks
/// separate words, `'…'` quotes literally, `"…"` quotes with `\` escaping `" \ $ \``, `\`
/// outside quotes escapes the next character, and a word that starts with `#` starts a comment
/// to the end of the line. Nothing is expanded and no shell runs, so a bot command can never
/// execute anything but the program it names.
///
/// The splitting is the `shell-words` crate's; the errors are ours, since a person reads them.
pub fn split_command(line: &str) -> Result<Vec<String>, String> {
    // The crate's only error is a quote left open.
    let words = shell_words::split(line)
        .map_err(|_| format!("unterminated quote in `{line}`: every ' and \" must be closed"))?;
    if words.is_empty() {
        return Err("empty bot command".into());
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_like_a_shell() {
        let s = |t: &str| split_command(t).unwrap();
        assert_eq!(s("python3 bot.py"), ["python3", "bot.py"]);
        assert_eq!(
            s("  a   'b c'  \"d \\\" e\" f\\ g "),
            ["a", "b c", "d \" e", "f g"]
        );
        assert_eq!(s("x''"), ["x"]);
        assert_eq!(s("'' a"), ["", "a"]);
        assert_eq!(s("echo $HOME; rm"), ["echo", "$HOME;", "rm"]);
        // As in a shell: a comment, a line continued, a backslash at the very end kept.
        assert_eq!(s("bot --x # fast"), ["bot", "--x"]);
        assert_eq!(s("bot a#b"), ["bot", "a#b"]);
        assert_eq!(s("bot \\\n--x"), ["bot", "--x"]);
        assert_eq!(s("bot x\\"), ["bot", "x\\"]);
        assert_eq!(
            split_command("a 'b").unwrap_err(),
            "unterminated quote in `a 'b`: every ' and \" must be closed"
        );
        assert!(split_command("a \"b").unwrap_err().contains("unterminated"));
        assert!(split_command("a \"b\\")
            .unwrap_err()
            .contains("unterminated"));
        assert_eq!(split_command("   ").unwrap_err(), "empty bot command");
        assert_eq!(
            split_command("# only a comment").unwrap_err(),
            "empty bot command"
        );
    }
}
