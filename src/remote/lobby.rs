//! The server's side of remote bots: the listening socket, the handshake that tells a bot's
//! client from anyone else, and per bot a pool of authenticated connections waiting for a game.
//!
//! Every connection starts unauthenticated. Until its `hello` line names a bot's token it holds
//! a thread of its own (there are at most `MAX_PENDING` such, `MAX_PENDING_PER_ADDRESS` from one
//! address), at most `MAX_HELLO_BYTES` of memory, and `HELLO_TIMEOUT` of time; then it is
//! closed. Nothing it sends reaches a game or a record. An authenticated connection joins its
//! bot's pool (at most `sessions` per bot), where a worker takes it for a game (`take`), as it
//! would start a local bot's process. The connection is the bot's process for the referee: a
//! fault closes it, as a fault kills a process, and the participant's client connects again
//! with a fresh bot process for the next game.
//!
//! Tokens are compared as hashes in constant time (`super::token`) and never logged. What the
//! lobby does is logged (`remote.log` in a league directory): who connected from where, what
//! was refused and why.

use super::hello::{self, Answer, Bye, Hello, HANDSHAKE_VERSION, MAX_HELLO_BYTES};
use super::token::{self, TokenHash, MAX_TOKEN_CHARS};
use crate::process::{interrupted, BotLog, Wire};
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{self, Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long a connection may take to send its `hello` before it is closed.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(5);
/// Unauthenticated connections at once, in all and from one address.
pub const MAX_PENDING: usize = 16;
pub const MAX_PENDING_PER_ADDRESS: usize = 4;
/// Connections at once from one address, authenticated or not.
pub const MAX_PER_ADDRESS: usize = 64;
/// How long the lobby, as the league ends, waits for clients whose connection has just ended to
/// come back, so that it can tell them `bye` rather than refuse them: longer than a client gives
/// its bot to exit before it connects again (2 s).
const LINGER: Duration = Duration::from_secs(3);

/// Why a client is asked to come back later as the run stops before the league's end.
const STOPPED: &str = "the league has stopped before its end; it plays on when it is run again";

/// What the lobby needs to know.
pub struct LobbyConfig {
    /// The remote bots: their names and the hashes of their tokens.
    pub bots: Vec<(String, TokenHash)>,
    /// Connections (games at once) per bot: the run's concurrency.
    pub sessions: usize,
    /// How long a game waits for a bot that is not connected, counted from the moment it was
    /// first missed (see `take`).
    pub wait: Duration,
}

/// The listening lobby; dropping it (or `close`) says `bye` to idle clients and stops
/// listening.
pub struct Lobby {
    shared: Remotes,
    acceptor: Option<JoinHandle<()>>,
    address: SocketAddr,
}

/// The lobby as the bots' connections reach it: cheap to clone, one per remote bot spec.
#[derive(Clone)]
pub struct Remotes {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Remotes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remotes").finish_non_exhaustive()
    }
}

struct Inner {
    names: Vec<String>,
    hashes: Vec<TokenHash>,
    sessions: usize,
    wait: Duration,
    state: Mutex<State>,
    arrived: Condvar,
    /// Set as the league ends: games take no more connections, but clients coming back are
    /// still welcome, to be told `bye`.
    closing: AtomicBool,
    /// Set once the waiting clients have been told `bye`, or let go (`stopped`): a client that
    /// completes its handshake now is told `bye` at once, or to come back later.
    closed: AtomicBool,
    /// Set when the run stops before the league's end (`Lobby::stop`): the league will go on when
    /// it is run again, so clients are not told `bye`, which would end them.
    stopped: AtomicBool,
    log: Mutex<LobbyLog>,
}

/// The most a run writes to the lobby's log. A flood of connections is refused cheaply, but
/// each refusal is a note: without a cap, anyone who can reach the port could fill the disk.
const LOBBY_LOG_CAP: u64 = 1 << 20;

/// The lobby's log file, with what this run wrote to it and the notes left out past the cap.
struct LobbyLog {
    file: Option<File>,
    written: u64,
    left_out: u64,
}

impl LobbyLog {
    fn write(&mut self, text: &str) {
        let Some(file) = self.file.as_mut() else {
            return;
        };
        let stamp = crate::record::rfc3339(std::time::SystemTime::now());
        let line = format!("{stamp} {}\n", crate::text::visible(text));
        if file.write_all(line.as_bytes()).is_err() {
            self.file = None;
        }
        self.written += line.len() as u64;
    }
}

#[derive(Default)]
struct State {
    /// Per bot, authenticated connections waiting for a game.
    pools: Vec<VecDeque<Session>>,
    /// Per bot, connections taken for games.
    in_use: Vec<usize>,
    /// Per bot, the most connections it has had at once.
    peak: Vec<usize>,
    /// Per bot, since when a game has been waiting for it in vain (None: it is connected, or
    /// nobody has missed it).
    absent_since: Vec<Option<Instant>>,
    /// Open connections per address, and unauthenticated ones.
    per_address: HashMap<IpAddr, usize>,
    pending_per_address: HashMap<IpAddr, usize>,
    pending: usize,
}

/// A connection's place in the counts; given back when it is dropped.
struct Ticket {
    inner: Arc<Inner>,
    ip: IpAddr,
    pending: bool,
}

impl Ticket {
    fn authenticated(&mut self, state: &mut State) {
        if self.pending {
            self.pending = false;
            state.pending -= 1;
            decrement(&mut state.pending_per_address, self.ip);
        }
    }
}

fn decrement(counts: &mut HashMap<IpAddr, usize>, ip: IpAddr) {
    if let Some(n) = counts.get_mut(&ip) {
        *n -= 1;
        if *n == 0 {
            counts.remove(&ip);
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let inner = self.inner.clone();
        let mut state = inner.lock();
        self.authenticated(&mut state);
        decrement(&mut state.per_address, self.ip);
    }
}

/// An authenticated connection waiting in its bot's pool.
struct Session {
    stream: TcpStream,
    peer: SocketAddr,
    ticket: Ticket,
}

impl Session {
    /// Whether the client is still there, as far as can be seen without waiting.
    fn alive(&self) -> bool {
        let _ = self.stream.set_nonblocking(true);
        let mut byte = [0u8; 1];
        let alive = match self.stream.peek(&mut byte) {
            Ok(0) => false,
            Ok(_) => true,
            Err(e) => e.kind() == io::ErrorKind::WouldBlock,
        };
        let _ = self.stream.set_nonblocking(false);
        alive
    }
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A worker that panicked holding the lock leaves counts that are still right.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A line in the lobby's log, after the time. Never a token: callers pass what happened.
    /// Past `LOBBY_LOG_CAP` this run, notes are counted, not written, until `last_note`.
    fn note(&self, text: &str) {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        if log.written >= LOBBY_LOG_CAP {
            log.left_out += 1;
            return;
        }
        log.write(text);
        if log.written >= LOBBY_LOG_CAP {
            log.write(&format!(
                "the log is full ({} KiB this run): later notes are counted, not written, until \
                 the lobby closes",
                LOBBY_LOG_CAP >> 10
            ));
        }
    }

    /// The lobby's last line, written past the cap too: how it closed, and how many notes
    /// the cap left out.
    fn last_note(&self, text: &str) {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        let left_out = std::mem::take(&mut log.left_out);
        if left_out > 0 {
            log.write(&format!(
                "{left_out} note(s) were left out past the log's cap"
            ));
        }
        log.write(text);
    }
}

impl Lobby {
    /// Listens on `address` for the bots of `config`, logging to `log` if given.
    pub fn listen(address: &str, config: LobbyConfig, log: Option<&Path>) -> io::Result<Lobby> {
        let listener = TcpListener::bind(address)?;
        let address = listener.local_addr()?;
        listener.set_nonblocking(true)?;
        let log = match log {
            Some(path) => Some(File::options().create(true).append(true).open(path)?),
            None => None,
        };
        let n = config.bots.len();
        let state = State {
            pools: (0..n).map(|_| VecDeque::new()).collect(),
            in_use: vec![0; n],
            peak: vec![0; n],
            absent_since: vec![None; n],
            ..State::default()
        };
        let (names, hashes) = config.bots.into_iter().unzip();
        let inner = Arc::new(Inner {
            names,
            hashes,
            sessions: config.sessions.max(1),
            wait: config.wait,
            state: Mutex::new(state),
            arrived: Condvar::new(),
            closing: AtomicBool::new(false),
            stopped: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            log: Mutex::new(LobbyLog {
                file: log,
                written: 0,
                left_out: 0,
            }),
        });
        inner.note(&format!(
            "listening on {address} for {} remote bot(s), {} connection(s) each",
            inner.names.len(),
            inner.sessions
        ));
        let acceptor = {
            let inner = inner.clone();
            thread::Builder::new()
                .name("lobby".into())
                .spawn(move || accept_loop(&inner, &listener))?
        };
        Ok(Lobby {
            shared: Remotes { inner },
            acceptor: Some(acceptor),
            address,
        })
    }

    /// The address listened on (with the port the system chose, for port 0).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    pub fn remotes(&self) -> Remotes {
        self.shared.clone()
    }

    /// Ends the lobby as the league ends: games can no longer take connections; clients whose
    /// connection just ended get a moment to come back, then every waiting client is told `bye`
    /// and disconnected, and the listening socket is closed.
    pub fn close(&mut self) {
        let inner = &self.shared.inner;
        if inner.closing.swap(true, Ordering::SeqCst) {
            return;
        }
        if inner.stopped.load(Ordering::SeqCst) {
            return self.let_go();
        }
        let until = Instant::now() + LINGER;
        let mut state = inner.lock();
        loop {
            let back = (0..inner.names.len())
                .all(|b| state.pools[b].len() + state.in_use[b] >= state.peak[b]);
            let now = Instant::now();
            if back || now >= until {
                break;
            }
            state = match inner.arrived.wait_timeout(state, until - now) {
                Ok((s, _)) => s,
                Err(e) => e.into_inner().0,
            };
        }
        inner.closed.store(true, Ordering::SeqCst);
        let idle: Vec<Session> = state.pools.iter_mut().flat_map(|p| p.drain(..)).collect();
        drop(state);
        for session in idle {
            say_bye(&session.stream);
        }
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        inner.last_note("closed");
    }

    /// Ends the lobby as a run stops before the league's end (interrupted, or a fault that stops
    /// it): the league goes on when it is run again, so no client is told `bye`, which would end
    /// it. Waiting connections are closed, and a client that completes its handshake meanwhile
    /// is told to come back later: each keeps trying for its `--retry` and plays on if the
    /// league runs again by then.
    pub fn stop(&mut self) {
        let inner = &self.shared.inner;
        inner.stopped.store(true, Ordering::SeqCst);
        if inner.closing.swap(true, Ordering::SeqCst) {
            return;
        }
        self.let_go();
    }

    fn let_go(&mut self) {
        let inner = &self.shared.inner;
        inner.closed.store(true, Ordering::SeqCst);
        let idle: Vec<Session> = inner
            .lock()
            .pools
            .iter_mut()
            .flat_map(|p| p.drain(..))
            .collect();
        let waiting = idle.len();
        for session in idle {
            let _ = session.stream.shutdown(Shutdown::Both);
        }
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        inner.last_note(&format!(
            "stopped before the league's end: {waiting} waiting connection(s) closed without \
             bye, so that their clients connect again when the league runs again"
        ));
    }
}

/// A lobby dropped without `close` (the run ended early, by an error) stops: its clients may
/// come back when the league runs again.
impl Drop for Lobby {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Tells a waiting client that no game will come, and closes its connection.
fn say_bye(stream: &TcpStream) {
    let bye = hello::line(&Bye {
        reason: "the league is over".into(),
    });
    let _ = stream.set_write_timeout(Some(Duration::from_millis(200)));
    let _ = (&*stream).write_all(&bye);
    let _ = stream.shutdown(Shutdown::Both);
}

/// Accepts connections until the lobby closes, each handshake on a thread of its own.
fn accept_loop(inner: &Arc<Inner>, listener: &TcpListener) {
    while !inner.closed.load(Ordering::SeqCst) {
        let mut fds = [libc::pollfd {
            fd: listener.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        }];
        // SAFETY: one valid pollfd; a timeout so that closing is noticed.
        unsafe { libc::poll(fds.as_mut_ptr(), 1, 100) };
        loop {
            match listener.accept() {
                Ok((stream, peer)) => admit(inner, stream, peer),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    // Out of descriptors and the like: wait a little rather than spin.
                    inner.note(&format!("cannot accept a connection: {e}"));
                    thread::sleep(Duration::from_millis(100));
                    break;
                }
            }
        }
    }
}

/// Refuses a connection in one line, without waiting for a slow reader, and closes it.
fn refuse(stream: &TcpStream, reason: &str) {
    refuse_with(stream, reason, false);
}

/// `refuse`, saying whether the same hello may be welcome later (`retry`).
fn refuse_with(stream: &TcpStream, reason: &str, retry: bool) {
    let _ = stream.set_nonblocking(true);
    let _ = (&*stream).write(&hello::line(&Answer::Refused {
        reason: reason.into(),
        retry,
    }));
    let _ = stream.shutdown(Shutdown::Both);
}

/// A new connection: counted and handed to a handshake thread, or refused at once when a cap
/// is reached.
fn admit(inner: &Arc<Inner>, stream: TcpStream, peer: SocketAddr) {
    let ip = peer.ip();
    let refused = {
        let mut state = inner.lock();
        let from_here = state.per_address.get(&ip).copied().unwrap_or(0);
        let pending_here = state.pending_per_address.get(&ip).copied().unwrap_or(0);
        if from_here >= MAX_PER_ADDRESS {
            Some("too many connections from this address")
        } else if state.pending >= MAX_PENDING || pending_here >= MAX_PENDING_PER_ADDRESS {
            Some("too many connections waiting for their handshake")
        } else {
            *state.per_address.entry(ip).or_default() += 1;
            *state.pending_per_address.entry(ip).or_default() += 1;
            state.pending += 1;
            None
        }
    };
    if let Some(reason) = refused {
        inner.note(&format!("{peer}: refused: {reason}"));
        refuse_with(&stream, reason, true);
        return;
    }
    let ticket = Ticket {
        inner: inner.clone(),
        ip,
        pending: true,
    };
    let spawned = {
        let inner = inner.clone();
        thread::Builder::new()
            .name("handshake".into())
            .spawn(move || handshake(&inner, stream, peer, ticket))
    };
    if let Err(e) = spawned {
        // The ticket went with the closure and is given back as it drops.
        inner.note(&format!("{peer}: refused: cannot start its handshake: {e}"));
    }
}

/// Reads the `hello` line: at most `MAX_HELLO_BYTES`, by `HELLO_TIMEOUT` after the connection.
fn read_hello(stream: &mut TcpStream) -> Result<Vec<u8>, &'static str> {
    let until = Instant::now() + HELLO_TIMEOUT;
    let mut line = Vec::with_capacity(128);
    let mut byte = [0u8; 1];
    loop {
        let now = Instant::now();
        if now >= until {
            return Err("no hello line in time");
        }
        if stream.set_read_timeout(Some(until - now)).is_err() {
            return Err("the connection failed");
        }
        // A byte at a time: nothing after the hello line is taken from the stream, and the
        // handshake is a few hundred bytes once per game at most.
        match stream.read(&mut byte) {
            Ok(0) => return Err("closed before its hello line"),
            Ok(_) if byte[0] == b'\n' => return Ok(line),
            Ok(_) if line.len() + 1 >= MAX_HELLO_BYTES => return Err("hello line too long"),
            Ok(_) => line.push(byte[0]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err("no hello line in time")
            }
            Err(_) => return Err("the connection failed"),
        }
    }
}

/// One connection's handshake: a bot's token makes it that bot's, anything else closes it.
fn handshake(inner: &Arc<Inner>, mut stream: TcpStream, peer: SocketAddr, mut ticket: Ticket) {
    let line = match read_hello(&mut stream) {
        Ok(line) => line,
        Err(why) => {
            inner.note(&format!("{peer}: refused: {why}"));
            refuse(&stream, why);
            return;
        }
    };
    let hello: Hello = match serde_json::from_slice(&line) {
        Ok(hello) => hello,
        Err(_) => {
            let why = "the first line must be a hello message (see PROTOCOL.md, \"Bots over the \
                       network\")";
            inner.note(&format!("{peer}: refused: not a hello line"));
            refuse(&stream, why);
            return;
        }
    };
    if hello.protocol != HANDSHAKE_VERSION {
        let why = format!(
            "handshake version {} is not known here (this server speaks {HANDSHAKE_VERSION})",
            hello.protocol
        );
        inner.note(&format!("{peer}: refused: {why}"));
        refuse(&stream, &why);
        return;
    }
    let bot = if hello.token.len() > MAX_TOKEN_CHARS {
        None
    } else {
        token::find(&inner.hashes, &hello.token)
    };
    let Some(bot) = bot else {
        inner.note(&format!("{peer}: refused: unknown token"));
        // A moment before the answer: guessing tokens is slow as well as hopeless.
        thread::sleep(Duration::from_millis(200));
        refuse(&stream, "unknown token");
        return;
    };
    let name = &inner.names[bot];
    if let Some(claimed) = hello.bot.as_deref().filter(|c| c != name) {
        let why = format!(
            "this token is not bot {}'s",
            crate::protocol::truncate(claimed, 64)
        );
        inner.note(&format!(
            "{peer}: refused: asked to be bot {} with another bot's token",
            crate::protocol::truncate(claimed, 64)
        ));
        refuse(&stream, &why);
        return;
    }
    let welcome = hello::line(&Answer::Welcome {
        protocol: HANDSHAKE_VERSION,
        bot: name.clone(),
        sessions: inner.sessions,
    });
    let mut state = inner.lock();
    // A connection the referee has just cut (a fault) is given back a moment after the client
    // sees it end: a client that comes straight back waits for that moment.
    let until = Instant::now() + Duration::from_secs(1);
    let mut held = state.pools[bot].len() + state.in_use[bot];
    while held >= inner.sessions && Instant::now() < until {
        state = match inner.arrived.wait_timeout(state, Duration::from_millis(50)) {
            Ok((s, _)) => s,
            Err(e) => e.into_inner().0,
        };
        held = state.pools[bot].len() + state.in_use[bot];
    }
    if inner.closed.load(Ordering::SeqCst) {
        drop(state);
        if inner.stopped.load(Ordering::SeqCst) {
            refuse_with(&stream, STOPPED, true);
        } else if stream.write_all(&welcome).is_ok() {
            say_bye(&stream);
        }
        return;
    }
    if held >= inner.sessions {
        drop(state);
        let why = format!(
            "bot {name} already has {held} connection(s), as many as the league plays its games \
             at once"
        );
        inner.note(&format!("{peer}: refused: {why}"));
        refuse_with(&stream, &why, true);
        return;
    }
    let _ = stream.set_write_timeout(Some(HELLO_TIMEOUT));
    if stream.write_all(&welcome).is_err() {
        drop(state);
        inner.note(&format!(
            "{peer}: bot {name}: the welcome could not be sent"
        ));
        return;
    }
    let _ = stream.set_read_timeout(None);
    let _ = stream.set_write_timeout(None);
    let _ = stream.set_nodelay(true);
    ticket.authenticated(&mut state);
    state.pools[bot].push_back(Session {
        stream,
        peer,
        ticket,
    });
    held += 1;
    state.peak[bot] = state.peak[bot].max(held);
    drop(state);
    inner.arrived.notify_all();
    inner.note(&format!(
        "{peer}: bot {name} connected ({held} of {} connection(s)){}",
        inner.sessions,
        hello
            .client
            .as_deref()
            .map(|c| format!(", client {}", crate::protocol::truncate(c, 64)))
            .unwrap_or_default()
    ));
}

impl Remotes {
    /// A connection of remote bot `bot` for a game, as a worker would start a local bot. When
    /// none is waiting, waits for one until the bot has been missed for the lobby's `wait`:
    /// the first game to miss it waits that long, and later games only for what is left of it,
    /// so that a bot that stays away does not hold up every game of its.
    pub fn take(&self, bot: usize, log: Option<BotLog>) -> io::Result<RemoteBot> {
        let inner = &self.inner;
        let name = inner.names.get(bot).cloned().unwrap_or_default();
        let mut dead = Vec::new();
        let mut state = inner.lock();
        let session = loop {
            if inner.closing.load(Ordering::SeqCst) || interrupted() {
                return Err(io::Error::other("the league is ending"));
            }
            let mut found = None;
            while let Some(session) = state.pools[bot].pop_front() {
                if session.alive() {
                    found = Some(session);
                    break;
                }
                dead.push(session);
            }
            if let Some(session) = found {
                state.absent_since[bot] = None;
                state.in_use[bot] += 1;
                break session;
            }
            let now = Instant::now();
            let missed = *state.absent_since[bot].get_or_insert(now);
            let until = missed + inner.wait;
            if now >= until {
                let away = now.duration_since(missed).as_secs_f64();
                return Err(io::Error::other(if away < inner.wait.as_secs_f64() + 1.0 {
                    format!(
                        "remote bot {name} is not connected (no connection with its token \
                         within {} s)",
                        seconds(inner.wait)
                    )
                } else {
                    format!(
                        "remote bot {name} is not connected (missed for {} s, longer than the \
                         {} s a game waits)",
                        away.round(),
                        seconds(inner.wait)
                    )
                }));
            }
            // In slices, so that an interruption is noticed.
            let slice = (until - now).min(Duration::from_millis(100));
            state = match inner.arrived.wait_timeout(state, slice) {
                Ok((s, _)) => s,
                Err(e) => e.into_inner().0,
            };
        };
        drop(state);
        drop(dead);
        RemoteBot::new(self.clone(), bot, name, session, log)
    }

    /// How long a game waits for a bot that is not connected.
    pub fn wait(&self) -> Duration {
        self.inner.wait
    }

    fn given_back(&self, bot: usize) {
        let mut state = self.inner.lock();
        state.in_use[bot] = state.in_use[bot].saturating_sub(1);
        drop(state);
        self.inner.arrived.notify_all();
    }
}

fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s:.1}")
    }
}

/// A remote bot in a game: its connection, as the referee writes to and reads from it.
pub struct RemoteBot {
    remotes: Remotes,
    bot: usize,
    name: String,
    stream: TcpStream,
    peer: SocketAddr,
    wire: Wire,
    _ticket: Ticket,
}

impl RemoteBot {
    fn new(
        remotes: Remotes,
        bot: usize,
        name: String,
        session: Session,
        log: Option<BotLog>,
    ) -> io::Result<RemoteBot> {
        let Session {
            stream,
            peer,
            ticket,
        } = session;
        let made = stream.try_clone().and_then(|input| {
            let output = stream.try_clone()?;
            Wire::new(OwnedFd::from(input), OwnedFd::from(output), log)
        });
        let wire = match made {
            Ok(wire) => wire,
            Err(e) => {
                remotes.given_back(bot);
                return Err(e);
            }
        };
        let bot = RemoteBot {
            remotes,
            bot,
            name,
            stream,
            peer,
            wire,
            _ticket: ticket,
        };
        bot.wire.log_note(&format!(
            "connected from {} (remote bot {})",
            bot.peer, bot.name
        ));
        Ok(bot)
    }

    pub fn wire(&self) -> &Wire {
        &self.wire
    }

    pub fn wire_mut(&mut self) -> &mut Wire {
        &mut self.wire
    }

    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// Whether the client has closed its side (or the connection broke).
    pub fn ended(&mut self) -> bool {
        self.wire.poll_now();
        self.wire.eof()
    }

    /// The end of the bot's output, in words that tell a network failure from a bot that
    /// ended: the referee's crash fault says which.
    pub fn describe_end(&self) -> String {
        match self.wire.error() {
            Some(e) => format!(
                "lost its network connection ({e}): the connection broke, the bot did not answer"
            ),
            None => "closed its network connection (its program ended, or its multiversi \
                     connect stopped, on its owner's machine)"
                .to_string(),
        }
    }

    /// No more messages: the client sees the end of its input and ends its bot.
    pub fn finish_input(&mut self) {
        self.wire.close_input();
        let _ = self.stream.shutdown(Shutdown::Write);
    }

    /// Waits up to `grace` for the client to close its side after `finish_input`; what it
    /// sends meanwhile is dropped.
    pub fn wait_closed(&mut self, grace: Duration) -> bool {
        let until = Instant::now() + grace;
        loop {
            match self.wire.recv_line(until, crate::protocol::MAX_LINE_BYTES) {
                crate::process::Received::Eof | crate::process::Received::Gone => return true,
                crate::process::Received::Line(..) => {}
                // An over-long line is never taken from the buffer: stop here.
                crate::process::Received::Timeout | crate::process::Received::TooLong(_) => {
                    return false
                }
            }
        }
    }

    /// Cuts the connection at once: the sanction for a fault, like killing a process.
    pub fn disconnect(&mut self) {
        self.wire.close_input();
        let _ = self.stream.shutdown(Shutdown::Both);
    }

    /// A note of the referee's in the bot's log.
    pub fn log_note(&self, note: &str) {
        self.wire.log_note(note);
    }
}

impl Drop for RemoteBot {
    fn drop(&mut self) {
        let _ = self.stream.shutdown(Shutdown::Both);
        self.remotes
            .inner
            .note(&format!("{}: bot {} disconnected", self.peer, self.name));
        self.remotes.given_back(self.bot);
    }
}

/// Attacks on a lobby listening on loopback, each bounded in count and time: what an
/// unauthenticated peer gets (a refusal and a closed connection), and that none of it reaches
/// a bot's connection or the log's text beyond what happened.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::connection::{BotSpec, Connection};
    use crate::remote::RemoteRef;
    use std::io::BufRead;

    struct Test {
        lobby: Lobby,
        tokens: Vec<String>,
        log: std::path::PathBuf,
    }

    fn lobby(name: &str, sessions: usize, wait: Duration) -> Test {
        let tokens: Vec<String> = (0..2).map(|_| token::fresh().unwrap()).collect();
        let log = std::env::temp_dir().join(format!(
            "multiversi-lobby-{name}-{}.log",
            std::process::id()
        ));
        let _ = std::fs::remove_file(&log);
        let config = LobbyConfig {
            bots: vec![
                ("alice".into(), TokenHash::of(&tokens[0])),
                ("bob".into(), TokenHash::of(&tokens[1])),
            ],
            sessions,
            wait,
        };
        let lobby = Lobby::listen("127.0.0.1:0", config, Some(&log)).unwrap();
        Test { lobby, tokens, log }
    }

    fn connect(test: &Test) -> TcpStream {
        let stream = TcpStream::connect(test.lobby.address()).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        stream
    }

    fn hello_line(token: &str, bot: Option<&str>) -> Vec<u8> {
        hello::line(&Hello {
            protocol: HANDSHAKE_VERSION,
            token: token.into(),
            bot: bot.map(str::to_string),
            client: None,
        })
    }

    /// The server's answer and whether it then closed the connection.
    fn answer(stream: &TcpStream) -> (Option<Answer>, bool) {
        let mut reader = io::BufReader::new(stream.try_clone().unwrap());
        let mut line = Vec::new();
        let _ = reader.read_until(b'\n', &mut line);
        let answer = serde_json::from_slice(&line).ok();
        let mut rest = Vec::new();
        let closed = reader.read_to_end(&mut rest).is_ok() && rest.is_empty();
        (answer, closed)
    }

    fn refused(answer: (Option<Answer>, bool)) -> String {
        match answer {
            (Some(Answer::Refused { reason, .. }), true) => reason,
            other => panic!("expected a refusal and a closed connection, got {other:?}"),
        }
    }

    #[test]
    fn wrong_tokens_garbage_and_another_bots_name_are_refused_and_never_logged() {
        let test = lobby("refusals", 1, Duration::from_secs(1));
        let wrong = token::fresh().unwrap();
        let mut s = connect(&test);
        s.write_all(&hello_line(&wrong, None)).unwrap();
        assert_eq!(refused(answer(&s)), "unknown token");
        let mut s = connect(&test);
        s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        assert!(refused(answer(&s)).contains("must be a hello message"));
        let mut s = connect(&test);
        s.write_all(&[0xff, 0x00, 0x17, b'\n']).unwrap();
        assert!(refused(answer(&s)).contains("must be a hello message"));
        // Alice's token, asking to be bob: refused, and nothing of it joins any pool.
        let mut s = connect(&test);
        s.write_all(&hello_line(&test.tokens[0], Some("bob")))
            .unwrap();
        assert_eq!(refused(answer(&s)), "this token is not bot bob's");
        // A huge first line: read no further than the cap, then closed.
        let mut s = connect(&test);
        let huge = vec![b'x'; 1 << 20];
        let _ = s.write_all(&huge);
        assert_eq!(refused(answer(&s)), "hello line too long");
        {
            let state = test.lobby.shared.inner.lock();
            assert!(state.pools.iter().all(|p| p.is_empty()));
        }
        // The right token is welcome, as the bot it is for.
        let mut s = connect(&test);
        s.write_all(&hello_line(&test.tokens[1], Some("bob")))
            .unwrap();
        let mut reader = io::BufReader::new(s.try_clone().unwrap());
        let mut line = Vec::new();
        reader.read_until(b'\n', &mut line).unwrap();
        assert_eq!(
            serde_json::from_slice::<Answer>(&line).unwrap(),
            Answer::Welcome {
                protocol: HANDSHAKE_VERSION,
                bot: "bob".into(),
                sessions: 1
            }
        );
        // One connection per game at once: a second one for bob is refused for now.
        let mut again = connect(&test);
        again.write_all(&hello_line(&test.tokens[1], None)).unwrap();
        match answer(&again) {
            (Some(Answer::Refused { reason, retry }), true) => {
                assert!(
                    retry && reason.contains("already has 1 connection"),
                    "{reason}"
                )
            }
            other => panic!("{other:?}"),
        }
        let log = std::fs::read_to_string(&test.log).unwrap();
        for token in test.tokens.iter().chain([&wrong]) {
            assert!(!log.contains(token.as_str()), "{log}");
        }
        assert!(log.contains("refused: unknown token"), "{log}");
        assert!(log.contains("bot bob connected"), "{log}");
    }

    #[test]
    fn a_slow_sender_is_cut_off_and_a_flood_is_capped() {
        let test = lobby("flood", 1, Duration::from_secs(1));
        let started = Instant::now();
        // A flood: more connections than may wait for their handshake from one address.
        let flood: Vec<TcpStream> = (0..3 * MAX_PENDING_PER_ADDRESS)
            .map(|_| connect(&test))
            .collect();
        let mut refused_now = 0;
        for s in &flood[MAX_PENDING_PER_ADDRESS..] {
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            if let (Some(Answer::Refused { reason, retry }), true) = answer(s) {
                assert!(reason.contains("too many connections"), "{reason}");
                assert!(retry);
                refused_now += 1;
            }
        }
        assert_eq!(refused_now, 2 * MAX_PENDING_PER_ADDRESS);
        {
            let state = test.lobby.shared.inner.lock();
            assert!(
                state.pending <= MAX_PENDING_PER_ADDRESS,
                "{}",
                state.pending
            );
        }
        // The ones let in, slow senders all: a byte now and then, never a line. They are closed
        // once their time is up, whatever they send.
        for s in &flood[..MAX_PENDING_PER_ADDRESS] {
            (&*s).write_all(b"{").unwrap();
        }
        for s in &flood[..MAX_PENDING_PER_ADDRESS] {
            assert_eq!(refused(answer(s)), "no hello line in time");
        }
        let took = started.elapsed();
        assert!(
            took >= HELLO_TIMEOUT && took < HELLO_TIMEOUT * 4,
            "{took:?}"
        );
        // Once the flood is gone, a bot's client gets in from the same address.
        drop(flood);
        let until = Instant::now() + Duration::from_secs(5);
        loop {
            let mut s = connect(&test);
            s.write_all(&hello_line(&test.tokens[0], None)).unwrap();
            let mut reader = io::BufReader::new(s.try_clone().unwrap());
            let mut line = Vec::new();
            reader.read_until(b'\n', &mut line).unwrap();
            match serde_json::from_slice::<Answer>(&line).unwrap() {
                Answer::Welcome { bot, .. } => {
                    assert_eq!(bot, "alice");
                    break;
                }
                other => assert!(Instant::now() < until, "{other:?}"),
            }
            thread::sleep(Duration::from_millis(50));
        }
        // Every handshake is over: the count of those waiting comes back to 0 (a handshake's
        // thread counts itself out just after it answers, so on a loaded machine a moment later).
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let pending = test.lobby.shared.inner.lock().pending;
            if pending == 0 {
                break;
            }
            assert!(
                Instant::now() < until,
                "{pending} handshake(s) still counted"
            );
            thread::sleep(Duration::from_millis(10));
        }
    }

    fn remote_connection(test: &Test, bot: usize) -> Connection {
        let mut spec = crate::run::lineup::remote_spec(["alice", "bob"][bot]);
        spec.remote = Some(RemoteRef {
            remotes: test.lobby.remotes(),
            bot,
        });
        let spec: BotSpec = spec;
        Connection::new(spec)
    }

    /// A client that has shaken hands: the stream, and a reader of what the server sends.
    fn client(test: &Test, bot: usize) -> (TcpStream, io::BufReader<TcpStream>) {
        let mut s = connect(test);
        s.write_all(&hello_line(&test.tokens[bot], None)).unwrap();
        let mut reader = io::BufReader::new(s.try_clone().unwrap());
        let mut line = Vec::new();
        reader.read_until(b'\n', &mut line).unwrap();
        assert!(matches!(
            serde_json::from_slice::<Answer>(&line),
            Ok(Answer::Welcome { .. })
        ));
        (s, reader)
    }

    #[test]
    fn a_flood_of_notes_stops_at_the_logs_cap_and_the_close_says_how_many_were_left_out() {
        let mut test = lobby("log-cap", 1, Duration::from_millis(100));
        let note = "x".repeat(100);
        let notes = 2 * LOBBY_LOG_CAP / 100;
        for _ in 0..notes {
            test.lobby
                .shared
                .inner
                .note(&format!("127.0.0.1:9: refused: {note}"));
        }
        test.lobby.close();
        let log = std::fs::read_to_string(&test.log).unwrap();
        let cap = LOBBY_LOG_CAP as usize;
        assert!(log.len() > cap && log.len() < cap + 1024, "{}", log.len());
        assert!(log.contains("the log is full (1024 KiB this run)"));
        let lines: Vec<&str> = log.lines().collect();
        let written = lines.iter().filter(|l| l.contains(&note)).count() as u64;
        let summary = lines[lines.len() - 2];
        assert!(
            summary.ends_with(&format!(
                " {} note(s) were left out past the log's cap",
                notes - written
            )),
            "{summary}"
        );
        assert!(lines[lines.len() - 1].ends_with(" closed"));
    }

    #[test]
    fn a_remote_bots_lines_meet_the_same_cap_and_words_as_a_local_bots() {
        let test = lobby("caps", 1, Duration::from_millis(300));
        // Not connected: the game waits for the lobby's limit, then cannot start the bot.
        let mut bot = remote_connection(&test, 0);
        let started = Instant::now();
        let e = bot.ensure_started(None).unwrap_err().to_string();
        assert!(e.contains("remote bot alice is not connected"), "{e}");
        assert!(started.elapsed() >= Duration::from_millis(300));
        // A later game does not wait again for a bot still away.
        let started = Instant::now();
        assert!(bot.ensure_started(None).is_err());
        assert!(started.elapsed() < Duration::from_millis(250));

        let (mut s, mut reader) = client(&test, 0);
        bot.ensure_started(None).unwrap();
        bot.send(b"{\"type\":\"start\"}\n");
        let mut line = Vec::new();
        reader.read_until(b'\n', &mut line).unwrap();
        assert_eq!(line, b"{\"type\":\"start\"}\n");
        // An answer in time is a line, as from a pipe.
        s.write_all(b"{\"type\":\"ready\"}\r\n").unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let (answer, _) = bot.answer(deadline, 10_000, "ready").unwrap();
        assert_eq!(answer, b"{\"type\":\"ready\"}");
        // Silence is a timeout, in words that say where the time was measured.
        let deadline = Instant::now() + Duration::from_millis(100);
        let fault = bot.answer(deadline, 100, "move").unwrap_err();
        assert_eq!(fault.kind, crate::record::FaultKind::Timeout);
        assert!(
            fault.detail.contains("network included"),
            "{}",
            fault.detail
        );
        // A huge line: malformed at the protocol's cap, whatever follows.
        let huge = vec![b'x'; 4 * crate::protocol::MAX_LINE_BYTES];
        let writer = {
            let mut s = s.try_clone().unwrap();
            thread::spawn(move || {
                let _ = s.write_all(&huge);
            })
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        let fault = bot.answer(deadline, 10_000, "move").unwrap_err();
        assert_eq!(fault.kind, crate::record::FaultKind::Malformed);
        assert_eq!(
            fault.detail,
            format!(
                "a line longer than {} bytes",
                crate::protocol::MAX_LINE_BYTES
            )
        );
        // The sanction cuts the connection, as it kills a process.
        let (detail, tail) = bot.disqualify(fault.kind, fault.detail, "test", 100);
        assert!(detail.starts_with("a line longer"));
        assert_eq!(tail, "");
        assert!(!bot.is_running());
        let _ = writer.join();
        let mut rest = Vec::new();
        let _ = reader.read_to_end(&mut rest);

        // A client that closes its side mid-game: a crash, said to be the connection's end.
        let (s, _reader) = client(&test, 0);
        bot.ensure_started(None).unwrap();
        s.shutdown(Shutdown::Both).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let fault = bot.answer(deadline, 10_000, "move").unwrap_err();
        assert_eq!(fault.kind, crate::record::FaultKind::Crash);
        assert!(
            fault.detail.contains("closed its network connection"),
            "{}",
            fault.detail
        );
    }
}
