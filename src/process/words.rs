//! Bot commands as argument lists: a bot is named by one command line (an option of `match` and
//! `check-bot`, a key of a league config), and started without a shell from the words of it.
//! Splitting here, not in a shell, is what keeps a bot command from running anything but the
//! program it names.

/// Splits a command line into arguments the way a POSIX shell would for a simple command: blanks
/// separate words, `'…'` quotes literally, `"…"` quotes with `\` escaping `" \ $ \``, and `\`
/// outside quotes escapes the next character. Nothing is expanded and no shell runs, so a bot
/// command can never execute anything but the program it names.
pub fn split_command(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(format!("unterminated ' quote in `{line}`")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(format!("unterminated \" quote in `{line}`")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(format!("unterminated \" quote in `{line}`")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') => {}
                    Some(c) => word.push(c),
                    None => return Err(format!("trailing backslash in `{line}`")),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
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
        assert!(split_command("a 'b").unwrap_err().contains("unterminated"));
        assert!(split_command("a \"b").unwrap_err().contains("unterminated"));
        assert!(split_command("   ").is_err());
    }
}
