//! Words for command lines that are split like a shell would split them: the bot commands that
//! multiversi splits itself (README, "Bots": `'…'`, `"…"` and `\` quote, nothing is expanded), and
//! the scripts some tests hand to `sh`. A path from the checkout goes into such a line quoted, so
//! that the suite also passes in a checkout whose path holds a space or a quote.

use std::path::Path;

/// A word as a POSIX shell reads it back as itself: unchanged when it is plain, else in single
/// quotes. It is multiversi's own quoting (`explain::shell_quote`, for the command lines it
/// suggests), so that a test can expect those lines exactly; `quoted_words_split_back_into_themselves`
/// checks that it round-trips.
pub fn shell_word(word: &str) -> String {
    multiversi::explain::shell_quote(word)
}

/// One bot command line (one BOT argument, one `command` of a league config) from its words,
/// each quoted as it needs: `bot_cmd(&["python3", script, "--flag"])`.
pub fn bot_cmd(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| shell_word(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A path as text, for a word of a command line (the tests' paths are UTF-8).
pub fn utf8(path: &Path) -> &str {
    path.to_str()
        .unwrap_or_else(|| panic!("not a UTF-8 path: {}", path.display()))
}

/// A string as a TOML string value, for a bot command in a league config.
pub fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

#[test]
fn quoted_words_split_back_into_themselves() {
    let words = [
        "python3",
        "/tmp/with space/mv/tests/bots/bad.py",
        "it's",
        "",
        "a\"b\\c$d`e",
        "tab\there",
        "x=1",
    ];
    let line = bot_cmd(&words);
    assert_eq!(
        multiversi::process::split_command(&line).as_deref(),
        Ok(&words.map(String::from)[..]),
        "{line}"
    );
    // As multiversi prints them: plain words stay plain.
    assert_eq!(
        bot_cmd(&["python3", "bots/x.py", "--seed=3"]),
        "python3 bots/x.py --seed=3"
    );
    let config = format!("command = {}", toml_string(&line));
    let table: toml::Table = config.parse().expect("valid TOML");
    assert_eq!(table["command"].as_str(), Some(line.as_str()));
}
