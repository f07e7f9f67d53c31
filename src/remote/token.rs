//! A remote bot's secret: the token its owner's client presents, and the hash of it that the
//! league config holds. The config can be shared, committed or printed: it holds only
//! `sha256:HEX`, from which no token can be found, and the server compares hashes without
//! leaking, through its timing, how much of one matched.

use sha2::{Digest, Sha256};
use std::io::Read;
use subtle::ConstantTimeEq;

/// How a token starts: a person can tell it from other secrets, and a config hash from a token.
pub const TOKEN_PREFIX: &str = "mvt1-";

/// How a hash is written in a config.
pub const HASH_PREFIX: &str = "sha256:";

/// The longest token the server reads (a real one is 69 characters); a longer one is refused.
pub const MAX_TOKEN_CHARS: usize = 256;

/// A token's hash, as held in the config.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TokenHash([u8; 32]);

impl std::fmt::Debug for TokenHash {
    /// The hash is not the secret, but it has no business in debug output either.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenHash(..)")
    }
}

/// A fresh token: 32 bytes from the kernel's random source, in hexadecimal.
pub fn fresh() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(format!("{TOKEN_PREFIX}{}", hex(&bytes)))
}

/// Whether a text has the form of a token `fresh` draws: the prefix and 64 hexadecimal digits.
/// A client checks its token file with it, so that a file holding something else is named
/// there, not refused by a server as an unknown token.
pub fn is_well_formed(token: &str) -> bool {
    token
        .strip_prefix(TOKEN_PREFIX)
        .is_some_and(|digits| digits.len() == 64 && digits.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl TokenHash {
    /// The hash of a token as presented (its text, without surrounding white space).
    pub fn of(token: &str) -> TokenHash {
        TokenHash(Sha256::digest(token.trim().as_bytes()).into())
    }

    /// The hash as a config holds it: `sha256:` and 64 hexadecimal digits.
    pub fn parse(text: &str) -> Result<TokenHash, String> {
        let why = || {
            format!(
                "expected {HASH_PREFIX} and 64 hexadecimal digits, as `multiversi token` prints"
            )
        };
        let Some(digits) = text.trim().strip_prefix(HASH_PREFIX) else {
            if text.trim().starts_with(TOKEN_PREFIX) {
                return Err(format!(
                    "this is a token, not its hash: the config holds only the hash ({}); keep \
                     the token secret and give it to the bot's owner",
                    Self::of(text).to_text()
                ));
            }
            return Err(why());
        };
        if digits.len() != 64 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(why());
        }
        let mut hash = [0u8; 32];
        for (i, byte) in hash.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&digits[2 * i..2 * i + 2], 16).map_err(|_| why())?;
        }
        Ok(TokenHash(hash))
    }

    pub fn to_text(self) -> String {
        format!("{HASH_PREFIX}{}", hex(&self.0))
    }

    /// Whether `token` is the one this is the hash of, in time that does not depend on where
    /// the hashes differ.
    pub fn matches(&self, token: &TokenHash) -> bool {
        bool::from(self.0.ct_eq(&token.0))
    }
}

/// Which of `hashes` a presented token belongs to. Every hash is compared, whichever matches,
/// so the time taken says nothing about which bot (if any) a token is for.
pub fn find(hashes: &[TokenHash], token: &str) -> Option<usize> {
    let presented = TokenHash::of(token);
    let mut found = None;
    for (i, hash) in hashes.iter().enumerate() {
        if hash.matches(&presented) && found.is_none() {
            found = Some(i);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_matches_only_its_own_hash() {
        let a = fresh().unwrap();
        let b = fresh().unwrap();
        assert!(a.starts_with(TOKEN_PREFIX) && a.len() == TOKEN_PREFIX.len() + 64);
        assert_ne!(a, b);
        let hashes = [TokenHash::of(&b), TokenHash::of(&a)];
        assert_eq!(find(&hashes, &a), Some(1));
        assert_eq!(find(&hashes, &format!("{a}\n")), Some(1));
        assert_eq!(find(&hashes, &b), Some(0));
        assert_eq!(find(&hashes, "mvt1-00"), None);
        let text = TokenHash::of(&a).to_text();
        assert_eq!(TokenHash::parse(&text), Ok(TokenHash::of(&a)));
        // The well-known hash of the empty string: the digest really is SHA-256.
        assert_eq!(
            TokenHash::of("").to_text(),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert!(TokenHash::parse("sha256:12").is_err());
        let pasted = TokenHash::parse(&a).unwrap_err();
        assert!(pasted.contains("this is a token, not its hash"), "{pasted}");
        assert!(!pasted.contains(&a), "{pasted}");
    }
}
