//! The bot to check, from the words a person typed: resolved by the one function `match` uses
//! (`crate::run::lineup`), with check-bot's own slip (its options written after a one-argument
//! bot) caught first.

use crate::connection::BotSpec;
use crate::exit::{self, fail};
use crate::run::lineup;
use anyhow::Result;

/// The bot to check, resolved as `match` resolves a BOT (`crate::run::lineup`): `builtin:NAME`
/// runs this program's built-in bot (with `seed`), a single argument is split like a BOT of
/// `match`, and several arguments (or any after `--`: `after_dashes`) are the argument list as
/// given.
pub(super) fn resolve_command(
    words: &[String],
    after_dashes: bool,
    exe: &std::path::Path,
    seed: u64,
) -> Result<BotSpec> {
    // `check-bot "python3 bot.py" --move-ms 300`: everything after the bot belongs to the bot,
    // so check-bot's own options there would be passed to it. Say where they go instead.
    if let [first, rest @ ..] = words {
        let is_option = |w: &String| {
            let name = w.split('=').next().unwrap_or(w);
            OWN_OPTIONS.contains(&name)
        };
        // After `--` the words are the bot's own, as given: a bot may take a `--seed` of its
        // own. Without `--` (`check-bot ./bot.py --move-ms 200`) the slip is far likelier.
        if !after_dashes || first.starts_with("builtin:") {
            if let Some(option) = rest.iter().find(|w| is_option(w)) {
                return Err(fail(
                    exit::USAGE,
                    format!(
                        "{option} after the bot would be passed to the bot: put check-bot's \
                         options before it, as in: {} check-bot {} {first:?} (if the bot \
                         takes {option} itself, write the bot after --)",
                        crate::explain::program(),
                        rest.join(" ")
                    ),
                ));
            }
        }
    }
    let mut bot = lineup::from_words(words, after_dashes, Some("bot"), exe, None)
        .map_err(|e| fail(exit::USAGE, e))?;
    if bot.builtin {
        bot.argv.extend(["--seed".into(), seed.to_string()]);
    }
    Ok(bot)
}

/// check-bot's own options, recognised when given after a one-argument bot by mistake.
const OWN_OPTIONS: &[&str] = &[
    "--move-ms",
    "--startup-ms",
    "--grace-ms",
    "--seed",
    "--cwd",
    "--json",
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn commands_as_words_as_one_line_or_builtin() {
        let exe = Path::new("/bin/multiversi");
        let words = |ws: &[&str]| ws.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert_eq!(
            resolve_command(&words(&["python3", "my bot.py"]), true, exe, 5)
                .unwrap()
                .argv,
            words(&["python3", "my bot.py"])
        );
        assert_eq!(
            resolve_command(&words(&["python3 'my bot.py' --fast"]), false, exe, 5)
                .unwrap()
                .argv,
            words(&["python3", "my bot.py", "--fast"])
        );
        assert_eq!(
            resolve_command(&words(&["builtin:greedy"]), true, exe, 5)
                .unwrap()
                .argv,
            words(&["/bin/multiversi", "bot", "greedy", "--seed", "5"])
        );
        assert!(resolve_command(&words(&["builtin:nobody"]), false, exe, 5).is_err());
        // check-bot's own option after the bot, without `--`, is a slip whether the bot is one
        // line or one word; after `--` it is the bot's own.
        for bot in ["./bot.py", "python3 bot.py"] {
            let e = resolve_command(&words(&[bot, "--move-ms", "200"]), false, exe, 5);
            assert!(format!("{:#}", e.unwrap_err()).contains("--move-ms after the bot"));
        }
        assert_eq!(
            resolve_command(&words(&["./bot.py", "--seed", "2"]), true, exe, 5)
                .unwrap()
                .argv,
            words(&["./bot.py", "--seed", "2"])
        );
        // After `--`, one word is a program, whole: a path with a space is not split.
        assert_eq!(
            resolve_command(&words(&["/opt/my bots/bot"]), true, exe, 5)
                .unwrap()
                .argv,
            words(&["/opt/my bots/bot"])
        );
        assert_eq!(
            resolve_command(&words(&["/opt/my bots/bot"]), false, exe, 5)
                .unwrap()
                .argv,
            words(&["/opt/my", "bots/bot"])
        );
    }
}
