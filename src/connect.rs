//! The commands of bots over the network, on both sides: `multiversi token` (the organiser: a
//! fresh token and the config line that holds its hash) and `multiversi connect` (the
//! participant: their bot, run on their machine, playing in a league on the server).
//!
//! The client is a relay. It opens as many connections as the server's welcome asks for (the
//! games the league may play with the bot at once); on each, it waits for the server's first
//! protocol line, starts the bot's command, and copies bytes both ways unchanged until either
//! side ends. Then it ends the bot and connects again for the next game, so a bot that the
//! referee disqualified (which cuts the connection) plays its next game with a fresh process,
//! as a local bot would. The server keeps the clock; the client judges nothing.

use crate::exit::{self, fail};
use crate::remote::hello::{self, Answer, Hello, HANDSHAKE_VERSION, MAX_HELLO_BYTES};
use crate::remote::token::{self, TokenHash};
use anyhow::Result;
use clap::Args;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// How long a bot has to exit after its input ends, before its group is killed (the server
/// waits a little longer than this for the client to come back at a league's end).
const BOT_GRACE: Duration = Duration::from_secs(2);

/// The longest first line the client waits for before starting the bot (a `start`).
const MAX_FIRST_LINE: u64 = 1 << 20;

#[derive(Args, Debug)]
pub struct TokenArgs {
    /// The bot's name in the league config.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Write the token to FILE (created readable by its owner only; never overwritten) instead
    /// of printing it.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
}

/// Runs `multiversi token`.
pub fn run_token(args: &TokenArgs) -> Result<()> {
    let token = token::fresh()
        .map_err(|e| fail(exit::OUTPUT, format!("cannot draw a random token: {e}")))?;
    let hash = TokenHash::of(&token).to_text();
    let mut text = String::new();
    match &args.token_file {
        Some(path) => {
            use std::os::unix::fs::OpenOptionsExt;
            let mut file = std::fs::File::options()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(path)
                .map_err(|e| {
                    fail(
                        exit::OUTPUT,
                        format!("{}: cannot create the token file: {e}", path.display()),
                    )
                })?;
            file.write_all(format!("{token}\n").as_bytes())
                .and_then(|()| file.sync_all())
                .map_err(|e| fail(exit::OUTPUT, format!("{}: {e}", path.display())))?;
            text += &format!(
                "# The token of bot {} is in {}: give that file to the bot's owner only.\n",
                args.name,
                path.display()
            );
        }
        None => {
            text += &format!(
                "# The token of bot {}: give it to the bot's owner only (they pass it to \
                 multiversi connect --token-file).\n{token}\n",
                args.name
            );
        }
    }
    text += &format!(
        "# For the league config (it holds only the token's hash):\n[[bot]]\nname = {}\nremote = \
         \"{hash}\"\n",
        toml_string(&args.name)
    );
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(exit::stdout_error)
}

fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

#[derive(Args, Debug)]
pub struct ConnectArgs {
    /// The league server's address, as its organiser gave it (HOST:PORT).
    #[arg(value_name = "HOST:PORT")]
    pub address: String,
    /// The file holding the bot's token (from `multiversi token`).
    #[arg(long, value_name = "FILE")]
    pub token_file: PathBuf,
    /// The bot the token is for: the server refuses the connection if it is another bot's.
    #[arg(long, value_name = "NAME")]
    pub bot: Option<String>,
    /// Keep trying to reach the server for this long, at the start and whenever a connection
    /// is lost, before giving up.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub retry: u64,
    /// After each connection's games, print how long the bot took to answer, measured here
    /// (for diagnosis: the server's clock, network included, is the one that counts).
    #[arg(long)]
    pub times: bool,
    /// The bot: a program and its arguments (put `--` before them), or one argument split like a
    /// BOT of `match`, or builtin:NAME.
    #[arg(
        value_name = "COMMAND",
        required = true,
        num_args = 1..,
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub command: Vec<String>,
    /// Whether COMMAND came after `--` (as `check-bot`'s: set by `cli`): then the words are the
    /// argument list as given.
    #[arg(skip)]
    pub after_dashes: bool,
}

/// What the client needs on every connection.
struct Client {
    address: String,
    token: String,
    bot: Option<String>,
    retry: Duration,
    times: bool,
    argv: Vec<String>,
    /// Set when a slot learns that the whole client must stop (a refused token, a bot that
    /// cannot start): the other slots stop too.
    stop: AtomicBool,
}

/// A connection whose handshake has been done.
struct Session {
    stream: TcpStream,
    reader: BufReader<TcpStream>,
}

/// Why connecting failed.
enum NoSession {
    /// The server said no for good.
    Refused(String),
    /// The server could not be reached (or said no for now) until the deadline.
    Unreachable(String),
    Stopped,
}

/// How a slot ended.
enum SlotEnd {
    Bye(String),
    Refused(String),
    Unreachable,
    BotFailed(String),
    Stopped,
}

fn read_token(path: &std::path::Path) -> Result<String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        fail(
            exit::BAD_INPUT,
            format!("{}: cannot read the token file: {e}", path.display()),
        )
    })?;
    let token = text.trim().to_string();
    if token.is_empty() {
        return Err(fail(
            exit::BAD_INPUT,
            format!(
                "{}: empty: it should hold the bot's token, as multiversi token wrote it",
                path.display()
            ),
        ));
    }
    if token.starts_with(token::HASH_PREFIX) {
        return Err(fail(
            exit::BAD_INPUT,
            format!(
                "{}: holds a token's hash (the line of the league config), not the token",
                path.display()
            ),
        ));
    }
    if !token::is_well_formed(&token) {
        // Not echoed: it may be some other secret put in the wrong file.
        return Err(fail(
            exit::BAD_INPUT,
            format!(
                "{}: not a token: a token is {}, then 64 hexadecimal digits, as multiversi \
                 token wrote it",
                path.display(),
                token::TOKEN_PREFIX
            ),
        ));
    }
    Ok(token)
}

/// Runs `multiversi connect`.
pub fn run_connect(args: &ConnectArgs) -> Result<()> {
    let token = read_token(&args.token_file)?;
    let exe = crate::run::setup::this_program()?;
    let spec = crate::run::lineup::from_words(&args.command, args.after_dashes, None, &exe, None)
        .map_err(|e| fail(exit::USAGE, format!("the bot's command: {e}")))?;
    let client = Arc::new(Client {
        address: args.address.clone(),
        token,
        bot: args.bot.clone(),
        retry: Duration::from_secs(args.retry),
        times: args.times,
        argv: spec.argv,
        stop: AtomicBool::new(false),
    });
    let (first, bot, sessions) = match client.connect(Instant::now() + client.retry) {
        Ok(connected) => connected,
        Err(NoSession::Refused(reason)) => {
            return Err(fail(
                exit::USAGE,
                format!(
                    "{}: the server refused the connection: {reason}",
                    args.address
                ),
            ))
        }
        Err(NoSession::Unreachable(why)) => {
            return Err(fail(
                exit::BOT_START,
                format!(
                    "{}: cannot reach the server within {} s: {why}",
                    args.address, args.retry
                ),
            ))
        }
        Err(NoSession::Stopped) => return Ok(()),
    };
    crate::stderr_line!(
        "multiversi connect: connected to {} as bot {bot}; it may play {sessions} game(s) at \
         once, each with its own process of the bot",
        args.address
    );
    let mut slots = Vec::new();
    for n in 1..sessions.max(1) {
        let client = client.clone();
        let spawned = thread::Builder::new()
            .name(format!("session-{n}"))
            .spawn(move || client.slot(n, None));
        match spawned {
            Ok(handle) => slots.push(handle),
            Err(e) => crate::stderr_line!("multiversi connect: cannot open session {n}: {e}"),
        }
    }
    let mut ends = vec![client.slot(0, Some(first))];
    ends.extend(slots.into_iter().filter_map(|h| h.join().ok()));
    let mut bye = None;
    for end in ends {
        match end {
            SlotEnd::Bye(reason) => bye = Some(reason),
            SlotEnd::BotFailed(why) => {
                return Err(fail(exit::BOT_START, format!("the bot: {why}")));
            }
            SlotEnd::Refused(reason) => {
                return Err(fail(
                    exit::USAGE,
                    format!(
                        "{}: the server refused the connection: {reason}",
                        args.address
                    ),
                ));
            }
            SlotEnd::Unreachable | SlotEnd::Stopped => {}
        }
    }
    match bye {
        Some(reason) => {
            crate::stderr_line!("multiversi connect: the server said goodbye: {reason}");
            Ok(())
        }
        None => Err(fail(
            exit::BOT_START,
            format!(
                "{}: lost the server and could not reach it again within {} s (a league \
                 stopped before its end plays on with its clients if it runs again within \
                 their --retry)",
                args.address, args.retry
            ),
        )),
    }
}

impl Client {
    /// Connects and shakes hands, trying again until `until` while the server cannot be
    /// reached or says "not now".
    fn connect(&self, until: Instant) -> Result<(Session, String, usize), NoSession> {
        let mut pause = Duration::from_millis(100);
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Err(NoSession::Stopped);
            }
            let why = match self.try_connect() {
                Ok(connected) => return Ok(connected),
                Err(Attempt::Refused(reason)) => return Err(NoSession::Refused(reason)),
                Err(Attempt::Again(why)) => why,
            };
            let now = Instant::now();
            if now >= until {
                return Err(NoSession::Unreachable(why));
            }
            thread::sleep(pause.min(until - now));
            pause = (pause * 2).min(Duration::from_secs(2));
        }
    }

    fn try_connect(&self) -> Result<(Session, String, usize), Attempt> {
        let again = |e: io::Error| Attempt::Again(e.to_string());
        let addresses: Vec<_> = self
            .address
            .to_socket_addrs()
            .map_err(|e| Attempt::Again(format!("cannot resolve: {e}")))?
            .collect();
        let mut last = Attempt::Again("no address".into());
        let mut stream = None;
        for address in addresses {
            match TcpStream::connect_timeout(&address, Duration::from_secs(10)) {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = again(e),
            }
        }
        let mut stream = stream.ok_or(last)?;
        stream.set_nodelay(true).map_err(again)?;
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(again)?;
        let hello = hello::line(&Hello {
            protocol: HANDSHAKE_VERSION,
            token: self.token.clone(),
            bot: self.bot.clone(),
            client: Some(format!("multiversi {}", env!("CARGO_PKG_VERSION"))),
        });
        stream.write_all(&hello).map_err(again)?;
        let mut reader = BufReader::new(stream.try_clone().map_err(again)?);
        let mut line = Vec::new();
        (&mut reader)
            .take(MAX_HELLO_BYTES as u64 * 4)
            .read_until(b'\n', &mut line)
            .map_err(again)?;
        let answer: Answer = serde_json::from_slice(&line).map_err(|_| {
            Attempt::Again(if line.is_empty() {
                "the server closed the connection".into()
            } else {
                "the server's answer is not a handshake message".into()
            })
        })?;
        stream.set_read_timeout(None).map_err(again)?;
        match answer {
            Answer::Welcome { bot, sessions, .. } => {
                Ok((Session { stream, reader }, bot, sessions))
            }
            Answer::Refused {
                reason,
                retry: true,
            } => Err(Attempt::Again(reason)),
            Answer::Refused { reason, .. } => Err(Attempt::Refused(reason)),
        }
    }

    /// One connection after another, each for the games the server plays on it, until the
    /// server says goodbye or cannot be reached for `retry`.
    fn slot(&self, n: usize, mut first: Option<Session>) -> SlotEnd {
        loop {
            let session = match first.take() {
                Some(session) => session,
                None => match self.connect(Instant::now() + self.retry) {
                    Ok((session, _, _)) => session,
                    Err(NoSession::Refused(reason)) => {
                        self.stop.store(true, Ordering::SeqCst);
                        return SlotEnd::Refused(reason);
                    }
                    Err(NoSession::Unreachable(why)) => {
                        crate::stderr_line!(
                            "multiversi connect: session {}: cannot reach the server: {why}",
                            n + 1
                        );
                        return SlotEnd::Unreachable;
                    }
                    Err(NoSession::Stopped) => return SlotEnd::Stopped,
                },
            };
            match self.play(n, session) {
                Played::Ended => {}
                Played::NoGame => crate::stderr_line!(
                    "multiversi connect: session {}: the server closed the connection before a \
                     game; connecting again, for up to {} s",
                    n + 1,
                    self.retry.as_secs()
                ),
                Played::Bye(reason) => {
                    // No game will come on any connection: the other sessions stop too.
                    self.stop.store(true, Ordering::SeqCst);
                    return SlotEnd::Bye(reason);
                }
                Played::BotFailed(why) => {
                    self.stop.store(true, Ordering::SeqCst);
                    return SlotEnd::BotFailed(why);
                }
            }
            if self.stop.load(Ordering::SeqCst) {
                return SlotEnd::Stopped;
            }
        }
    }

    /// One connection's games: waits for the server's first line, starts the bot, relays both
    /// ways until either side ends, and ends the bot.
    fn play(&self, n: usize, session: Session) -> Played {
        let Session { stream, mut reader } = session;
        let mut first = Vec::new();
        match (&mut reader)
            .take(MAX_FIRST_LINE)
            .read_until(b'\n', &mut first)
        {
            Ok(0) | Err(_) => return Played::NoGame,
            Ok(_) => {}
        }
        if let Some(reason) = hello::is_bye(&first) {
            return Played::Bye(reason);
        }
        let mut child = match start_bot(&self.argv) {
            Ok(child) => child,
            Err(e) => return Played::BotFailed(format!("cannot start {}: {e}", self.argv[0])),
        };
        let pgid = child.id() as i32;
        let (Some(mut stdin), Some(mut stdout)) = (child.stdin.take(), child.stdout.take()) else {
            kill_group(pgid);
            let _ = child.wait();
            return Played::BotFailed("no pipes to the bot".into());
        };
        let finished = Arc::new(AtomicBool::new(false));
        let clock = Arc::new(BotClock::default());
        // Server → bot, on a thread of its own: the first line, then whatever comes.
        let to_bot = {
            let finished = finished.clone();
            let clock = clock.clone();
            thread::spawn(move || {
                clock.asked();
                if stdin.write_all(&first).is_ok() {
                    let _ = relay(&mut reader, &mut stdin, || clock.asked());
                }
                // The server is done with this connection (or it broke): the bot's input ends,
                // and it has a moment to exit by itself.
                drop(stdin);
                let until = Instant::now() + BOT_GRACE;
                while !finished.load(Ordering::SeqCst) && Instant::now() < until {
                    thread::sleep(Duration::from_millis(10));
                }
                if !finished.load(Ordering::SeqCst) {
                    kill_group(pgid);
                }
            })
        };
        // Bot → server, here.
        let mut to_server = &stream;
        let relayed = relay(&mut stdout, &mut to_server, || clock.answered());
        if relayed.is_err() {
            // The server is gone: the bot has nobody to talk to.
            kill_group(pgid);
        }
        let status = wait_bot(&mut child, pgid);
        finished.store(true, Ordering::SeqCst);
        let _ = stream.shutdown(Shutdown::Both);
        let _ = to_bot.join();
        kill_group(pgid);
        if let Some(status) = status.filter(|s| !s.success()) {
            crate::stderr_line!(
                "multiversi connect: session {}: the bot ended ({})",
                n + 1,
                crate::process::describe_status(Some(status))
            );
        }
        if self.times {
            if let Some(summary) = clock.summary() {
                crate::stderr_line!("multiversi connect: session {}: {summary}", n + 1);
            }
        }
        Played::Ended
    }
}

/// Copies bytes as they come until the end of `from`, calling `line_end` after passing on bytes
/// that end a line. Not `io::copy`: on Linux it splices a pipe into a socket, and the kernel
/// holds spliced bytes back while it expects more, so a bot's answer could wait in the socket
/// until its next one.
fn relay(from: &mut impl Read, to: &mut impl Write, mut line_end: impl FnMut()) -> io::Result<()> {
    let mut buffer = [0u8; 16384];
    loop {
        let n = match from.read(&mut buffer) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        to.write_all(&buffer[..n])?;
        to.flush()?;
        if buffer[..n].contains(&b'\n') {
            line_end();
        }
    }
}

/// The bot's own answer times as the client sees them, from passing a line to the bot to
/// passing on its answer: for the participant's diagnosis only (the server keeps the clock that
/// counts, network included). Approximate: it sees lines, not which message they are.
#[derive(Default)]
struct BotClock {
    inner: std::sync::Mutex<ClockState>,
}

#[derive(Default)]
struct ClockState {
    asked: Option<Instant>,
    answers: u32,
    total: Duration,
    max: Duration,
}

impl BotClock {
    fn asked(&self) {
        if let Ok(mut c) = self.inner.lock() {
            c.asked = Some(Instant::now());
        }
    }

    fn answered(&self) {
        if let Ok(mut c) = self.inner.lock() {
            if let Some(asked) = c.asked.take() {
                let took = asked.elapsed();
                c.answers += 1;
                c.total += took;
                c.max = c.max.max(took);
            }
        }
    }

    fn summary(&self) -> Option<String> {
        let c = self.inner.lock().ok()?;
        (c.answers > 0).then(|| {
            format!(
                "{} answer(s), {:.1} ms on average and {:.1} ms at most here (the server's time \
                 adds the network)",
                c.answers,
                c.total.as_secs_f64() * 1000.0 / f64::from(c.answers),
                c.max.as_secs_f64() * 1000.0
            )
        })
    }
}

enum Attempt {
    Refused(String),
    Again(String),
}

enum Played {
    Ended,
    /// The server closed the connection before its first game: it stopped (a league stopped
    /// before its end says no `bye`), or it let the connection go.
    NoGame,
    Bye(String),
    BotFailed(String),
}

/// Starts the bot in a process group of its own, killed if this client dies.
fn start_bot(argv: &[String]) -> io::Result<Child> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty command"))?;
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0);
    // SAFETY: the closure makes two system calls and allocates nothing.
    unsafe {
        command.pre_exec(|| {
            nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)?;
            crate::process::restore_for_child()
        });
    }
    command.spawn()
}

/// Waits for the bot to exit after its output ended, killing its group after a grace.
fn wait_bot(child: &mut Child, pgid: i32) -> Option<std::process::ExitStatus> {
    let until = Instant::now() + BOT_GRACE;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                kill_group(pgid);
                return child.wait().ok();
            }
            Err(_) => return None,
        }
    }
}

fn kill_group(pgid: i32) {
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pgid),
        nix::sys::signal::Signal::SIGKILL,
    );
}
