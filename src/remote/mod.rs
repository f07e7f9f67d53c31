//! Bots over the network: a transport under the bot connection, beside the local process.
//!
//! A participant runs `multiversi connect HOST:PORT --token-file F -- COMMAND` on their own
//! machine (the `crate::connect` front-end): it opens connections to the league's server, proves with the bot's token
//! which bot it is (`hello`, `token`), and for every game the server plays on a connection
//! starts the bot's command and relays the protocol's lines both ways, unchanged. The server's
//! `lobby` listens, authenticates, keeps each bot's waiting connections, and hands one to a
//! worker when a game needs the bot (`Remotes::take`): the connection is the bot for the
//! referee, read through the same `crate::process::Wire` as a pipe (the same line cap, buffer
//! limit and deadlines), and judged by the same `crate::connection` functions.
//!
//! The clock stays at the server: a move's time runs from the moment its `turn` is written to
//! the socket to the moment its answer is read from it, network included.

pub mod hello;
pub mod lobby;
pub mod token;

pub use lobby::{Lobby, LobbyConfig, RemoteBot, Remotes};
pub use token::TokenHash;

/// Which remote bot a spec is: the lobby and the bot's place in it.
#[derive(Clone, Debug)]
pub struct RemoteRef {
    pub remotes: Remotes,
    pub bot: usize,
}

/// Whether an address to listen on stays on this machine (a loopback address): any other one
/// is reachable by others, and the server warns that its traffic is not encrypted.
pub fn is_loopback(address: &std::net::SocketAddr) -> bool {
    address.ip().is_loopback()
}
