//! Words for command lines that multiversi splits like a shell (bot commands).

use std::path::Path;

/// A path as one word of a bot command: the referee splits commands like a shell, so a path
/// with a space (or a quote) in it must be quoted to stay one argument.
pub fn quote(path: &Path) -> String {
    let text = path.to_str().expect("a UTF-8 path");
    format!("'{}'", text.replace('\'', r"'\''"))
}
