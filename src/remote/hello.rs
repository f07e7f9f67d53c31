//! The handshake's messages (protocol/PROTOCOL.md, "Bots over the network"): one JSON line each,
//! before the game protocol's lines, which then pass through unchanged.

use serde::{Deserialize, Serialize};

/// The version of the handshake; a server refuses another.
pub const HANDSHAKE_VERSION: u32 = 1;

/// The longest handshake line either side reads, `\n` included: an unauthenticated peer holds
/// no more of the server's memory than this.
pub const MAX_HELLO_BYTES: usize = 1024;

/// Client → server, the first line of a connection.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename = "hello")]
pub struct Hello {
    pub protocol: u32,
    /// The bot's secret (never logged, never echoed).
    pub token: String,
    /// The bot the client means to be, if it says: a token of another bot is then refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<String>,
    /// The client program and its version, for the server's log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
}

/// Server → client, the answer to `hello`.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Answer {
    /// The token is a bot's: from here on the connection carries that bot's game protocol.
    /// `sessions`: how many games of the bot the league may play at once; a client opens that
    /// many connections, each with its own bot process.
    Welcome {
        protocol: u32,
        bot: String,
        sessions: usize,
    },
    /// The connection is closed after this line. With `retry`, the refusal is for now (too
    /// many connections at the moment): the client may try again later; without, the same
    /// hello will never be welcome (an unknown token).
    Refused {
        reason: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        retry: bool,
    },
}

/// Server → client, instead of the game protocol's first line: no game will come on this
/// connection (the league is over); the client should not connect again.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename = "bye")]
pub struct Bye {
    pub reason: String,
}

/// A message as one line with its `\n`.
pub fn line(message: &impl Serialize) -> Vec<u8> {
    let mut line = serde_json::to_vec(message).unwrap_or_default();
    line.push(b'\n');
    line
}

/// Whether a line is the server's `bye` (and so not a game protocol line for the bot).
pub fn is_bye(line: &[u8]) -> Option<String> {
    serde_json::from_slice::<Bye>(line).ok().map(|b| b.reason)
}
