//! The web side of `--web`: hyper's HTTP/1 server on a one-thread tokio runtime of its own.
//!
//! It answers GET (and HEAD) only, on these paths: `/` (the live page), `/events` (server-sent
//! events: the whole state first, then every change), `/state` (the whole state as JSON),
//! `/game/ID` (a finished game of this run in the replay viewer, read from the run's own record
//! files by its id), `/favicon.ico` (none) and nothing else (404). No path from a request reaches the file system.
//!
//! What a browser can hold is capped: connections in all and per address (`Limits`), the
//! request head's size and the time to send it, the time of any response but a stream. A
//! stream's client that reads nothing for `Limits::stalled` is closed; one that reads slowly
//! misses events (the run's queue to it is a bounded broadcast that never waits) and is sent
//! the whole state again.

use super::{Live, Update};
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::Value;
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io::{BufRead, Read, Seek};
use std::net::IpAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, oneshot};

/// The live page: styles and script inline, everything else from `/events`.
const PAGE: &str = include_str!("live.html");
/// Messages kept for the streams: a client this far behind is sent the whole state instead.
const BACKLOG: usize = 1024;
/// Messages waiting to be written to one client; past that the client is behind.
const PER_CLIENT: usize = 16;
/// A comment sent on a quiet stream, so that a dead client is noticed and proxies keep it open.
const KEEPALIVE: Duration = Duration::from_secs(15);

/// What the web side lets a browser hold.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections open at once, in all and from one address.
    pub connections: usize,
    pub per_address: usize,
    /// The request line and headers, in bytes (hyper's least is 8 KiB), and the time to send
    /// them.
    pub head_bytes: usize,
    pub head_time: Duration,
    /// The time to send any response but a stream.
    pub response_time: Duration,
    /// A stream whose client has read nothing for this long is closed.
    pub stalled: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            connections: 256,
            per_address: 32,
            head_bytes: 16 * 1024,
            head_time: Duration::from_secs(5),
            response_time: Duration::from_secs(10),
            stalled: Duration::from_secs(30),
        }
    }
}

/// What the connections share.
struct Shared {
    /// The web side's copy of what the page shows.
    live: Mutex<Live>,
    /// Every change, as a server-sent event, to every stream.
    events: broadcast::Sender<Bytes>,
    records: Mutex<Records>,
    limits: Limits,
    /// Connections open: in all, and per address.
    open: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

/// Starts the web side on a thread of its own, serving on `listener`.
pub fn spawn(
    listener: std::net::TcpListener,
    changes: mpsc::Receiver<Update>,
    live: Live,
    records: Vec<PathBuf>,
    limits: Limits,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()?;
    let shared = Arc::new(Shared {
        live: Mutex::new(live),
        events: broadcast::channel(BACKLOG).0,
        records: Mutex::new(Records::new(records)),
        limits,
        open: Mutex::new((0, HashMap::new())),
    });
    std::thread::Builder::new()
        .name("web".into())
        .spawn(move || {
            runtime.block_on(async move {
                let listener = match tokio::net::TcpListener::from_std(listener) {
                    Ok(listener) => listener,
                    Err(e) => {
                        crate::stderr_line!("multiversi: --web: cannot serve: {e}");
                        return;
                    }
                };
                tokio::spawn(pump(changes, shared.clone()));
                accept(listener, shared).await;
            })
        })?;
    Ok(())
}

/// A change as a server-sent event.
fn message(value: &Value) -> Bytes {
    Bytes::from(format!("data: {value}\n\n"))
}

/// Applies the sink's changes to the web side's copy and sends each to every stream. The copy
/// and the broadcast change under one lock, which a new stream takes to subscribe and read the
/// state: every change is in its first message or after it, once.
async fn pump(mut changes: mpsc::Receiver<Update>, shared: Arc<Shared>) {
    while let Some(update) = changes.recv().await {
        let Ok(mut live) = shared.live.lock() else {
            return;
        };
        let sent = match update {
            Update::Change(change) => {
                live.apply(&change);
                message(&change)
            }
            Update::Snapshot(whole) => {
                *live = *whole;
                message(&live.snapshot())
            }
        };
        // No stream listening is no error.
        let _ = shared.events.send(sent);
    }
}

/// A connection's place within the caps, given back when it closes.
struct Slot {
    shared: Arc<Shared>,
    address: IpAddr,
}

impl Slot {
    fn take(shared: &Arc<Shared>, address: IpAddr) -> Option<Slot> {
        let mut open = shared.open.lock().ok()?;
        let (total, per) = &mut *open;
        let mine = per.entry(address).or_insert(0);
        if *total >= shared.limits.connections || *mine >= shared.limits.per_address {
            return None;
        }
        *total += 1;
        *mine += 1;
        Some(Slot {
            shared: shared.clone(),
            address,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Ok(mut open) = self.shared.open.lock() {
            let (total, per) = &mut *open;
            *total = total.saturating_sub(1);
            if let Some(mine) = per.get_mut(&self.address) {
                *mine -= 1;
                if *mine == 0 {
                    per.remove(&self.address);
                }
            }
        }
    }
}

async fn accept(listener: tokio::net::TcpListener, shared: Arc<Shared>) {
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of descriptors, or a connection reset before it was accepted: try again soon.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(slot) = Slot::take(&shared, peer.ip()) else {
            // One try, never waiting: the connection is closed either way.
            let _ = stream.try_write(
                b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
            );
            continue;
        };
        let shared = shared.clone();
        tokio::spawn(async move {
            serve(stream, &shared).await;
            drop(slot);
        });
    }
}

/// Polls `a` and `b` until either is done.
async fn either<A: Future + ?Sized, B: Future + ?Sized>(mut a: Pin<&mut A>, mut b: Pin<&mut B>) {
    std::future::poll_fn(|cx| {
        if a.as_mut().poll(cx).is_ready() || b.as_mut().poll(cx).is_ready() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await
}

/// One connection, one request (no keep-alive): its head within the caps, its response within
/// `response_time` unless it is a stream, which lasts while its client reads it.
async fn serve(stream: tokio::net::TcpStream, shared: &Arc<Shared>) {
    let _ = stream.set_nodelay(true);
    let limits = shared.limits;
    let streaming = Arc::new(AtomicBool::new(false));
    // The stream's task holds the sender: when it gives up on a stalled client, the connection
    // is dropped, whatever hyper was waiting to write.
    let (alive, gone) = oneshot::channel::<()>();
    let alive = Arc::new(Mutex::new(Some(alive)));
    let service = {
        let (shared, streaming) = (shared.clone(), streaming.clone());
        hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
            let response = respond(&shared, &streaming, &alive, &request);
            async move { Ok::<_, Infallible>(response) }
        })
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(limits.head_time)
        .max_buf_size(limits.head_bytes.max(8192))
        .max_headers(64)
        .keep_alive(false);
    let connection = builder.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
    let mut connection = std::pin::pin!(connection);
    let mut gone = std::pin::pin!(gone);
    let timed = tokio::time::timeout(
        limits.response_time,
        either(connection.as_mut(), gone.as_mut()),
    )
    .await;
    if timed.is_err() && streaming.load(Ordering::SeqCst) {
        either(connection.as_mut(), gone.as_mut()).await;
    }
}

/// The headers of every response: nothing is cached or sniffed, the page loads nothing from
/// elsewhere and may not be framed.
fn response(status: StatusCode, kind: &'static str, body: WebBody) -> Response<WebBody> {
    let mut response = Response::new(body);
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
             connect-src 'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'; \
             form-action 'none'",
        ),
    );
    response
}

fn text(status: StatusCode, body: &str) -> Response<WebBody> {
    response(
        status,
        "text/plain; charset=utf-8",
        WebBody::full(format!("{body}\n")),
    )
}

fn respond(
    shared: &Arc<Shared>,
    streaming: &AtomicBool,
    alive: &Mutex<Option<oneshot::Sender<()>>>,
    request: &Request<hyper::body::Incoming>,
) -> Response<WebBody> {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let mut refused = text(
            StatusCode::METHOD_NOT_ALLOWED,
            "read-only: only GET is answered",
        );
        refused
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return refused;
    }
    let path = request.uri().path();
    match path {
        "/" => response(
            StatusCode::OK,
            "text/html; charset=utf-8",
            WebBody::full(PAGE),
        ),
        "/state" => match shared.live.lock() {
            Ok(live) => response(
                StatusCode::OK,
                "application/json",
                WebBody::full(live.snapshot().to_string()),
            ),
            Err(_) => text(StatusCode::INTERNAL_SERVER_ERROR, "unavailable"),
        },
        "/events" => {
            let Some(keep) = alive.lock().ok().and_then(|mut a| a.take()) else {
                return text(StatusCode::INTERNAL_SERVER_ERROR, "unavailable");
            };
            streaming.store(true, Ordering::SeqCst);
            let mut stream = response(StatusCode::OK, "text/event-stream", stream(shared, keep));
            // Tells nginx and the like not to buffer the stream.
            stream
                .headers_mut()
                .insert("x-accel-buffering", HeaderValue::from_static("no"));
            stream
        }
        _ => match path.strip_prefix("/game/").and_then(percent_decoded) {
            Some(id) => game(shared, &id),
            None => text(StatusCode::NOT_FOUND, "not found"),
        },
    }
}

/// A finished game of this run in the replay viewer, by its id.
fn game(shared: &Shared, id: &str) -> Response<WebBody> {
    let loaded = shared.records.lock().ok().and_then(|mut r| r.load(id));
    match loaded {
        Some(loaded) => response(
            StatusCode::OK,
            "text/html; charset=utf-8",
            WebBody::full(crate::replay::html::render(&[&loaded], None)),
        ),
        None => text(
            StatusCode::NOT_FOUND,
            "no finished game of this run has that id",
        ),
    }
}

/// `%XX` escapes decoded; None for a bad escape or bytes that are not UTF-8.
fn percent_decoded(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A new stream: the whole state first, then every change, from a task that gives up on a
/// client that reads nothing for `Limits::stalled`.
fn stream(shared: &Arc<Shared>, alive: oneshot::Sender<()>) -> WebBody {
    let (tx, rx) = mpsc::channel::<Bytes>(PER_CLIENT);
    if let Some((events, first)) = subscribe(shared) {
        tokio::spawn(forward(shared.clone(), events, first, tx, alive));
    }
    WebBody::Stream(rx)
}

/// A receiver of every change from now on, and the state now as a message (under the lock the
/// changes are applied under).
fn subscribe(shared: &Shared) -> Option<(broadcast::Receiver<Bytes>, Bytes)> {
    let live = shared.live.lock().ok()?;
    Some((shared.events.subscribe(), message(&live.snapshot())))
}

async fn forward(
    shared: Arc<Shared>,
    mut events: broadcast::Receiver<Bytes>,
    first: Bytes,
    tx: mpsc::Sender<Bytes>,
    _alive: oneshot::Sender<()>,
) {
    // A browser that loses the stream tries again after this long.
    if tx
        .send(Bytes::from_static(b"retry: 2000\n\n"))
        .await
        .is_err()
    {
        return;
    }
    let mut next = Some(first);
    loop {
        let sent = match next.take() {
            Some(sent) => sent,
            None => match tokio::time::timeout(KEEPALIVE, events.recv()).await {
                Err(_) => Bytes::from_static(b": keepalive\n\n"),
                Ok(Ok(sent)) => sent,
                // Behind: the whole state again, and the changes from then on.
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => match subscribe(&shared) {
                    Some((again, whole)) => {
                        events = again;
                        whole
                    }
                    None => return,
                },
                Ok(Err(broadcast::error::RecvError::Closed)) => return,
            },
        };
        match tokio::time::timeout(shared.limits.stalled, tx.send(sent)).await {
            Ok(Ok(())) => {}
            // The client went away, or has read nothing for too long.
            _ => return,
        }
    }
}

/// A response's body: a whole one, or a stream's messages as they come.
enum WebBody {
    Full(Option<Bytes>),
    Stream(mpsc::Receiver<Bytes>),
}

impl WebBody {
    fn full(body: impl Into<Bytes>) -> WebBody {
        WebBody::Full(Some(body.into()))
    }
}

impl Body for WebBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            WebBody::Full(body) => Poll::Ready(body.take().map(|b| Ok(Frame::data(b)))),
            WebBody::Stream(rx) => rx.poll_recv(cx).map(|m| m.map(|b| Ok(Frame::data(b)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, WebBody::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            WebBody::Full(Some(body)) => SizeHint::with_exact(body.len() as u64),
            WebBody::Full(None) => SizeHint::with_exact(0),
            WebBody::Stream(_) => SizeHint::default(),
        }
    }
}

/// Where a finished game's record is: its file, the line's offset and length, its number.
#[derive(Clone, Copy, Debug)]
struct At {
    file: usize,
    offset: u64,
    len: usize,
    line: usize,
}

/// The run's record files, indexed by game id as far as they have been read (whole lines only).
pub struct Records {
    files: Vec<PathBuf>,
    /// Per file: bytes and lines read so far.
    read: Vec<(u64, usize)>,
    at: HashMap<String, At>,
}

impl Records {
    pub fn new(files: Vec<PathBuf>) -> Records {
        Records {
            read: vec![(0, 0); files.len()],
            files,
            at: HashMap::new(),
        }
    }

    /// Reads what was appended to the files since the last time.
    fn refresh(&mut self) {
        #[derive(serde::Deserialize)]
        struct Id {
            game: String,
        }
        for (file, path) in self.files.iter().enumerate() {
            let Ok(mut handle) = std::fs::File::open(path) else {
                continue;
            };
            let (mut offset, mut line) = self.read[file];
            if handle.seek(std::io::SeekFrom::Start(offset)).is_err() {
                continue;
            }
            let mut reader = std::io::BufReader::new(handle);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(n) if n > 0 && buf.ends_with(b"\n") => {
                        line += 1;
                        if let Ok(id) = serde_json::from_slice::<Id>(&buf) {
                            self.at.insert(
                                id.game,
                                At {
                                    file,
                                    offset,
                                    len: n,
                                    line,
                                },
                            );
                        }
                        offset += n as u64;
                    }
                    // The end, or a line still being written: read again next time.
                    _ => break,
                }
            }
            self.read[file] = (offset, line);
        }
    }

    /// The game with this id, read from its file.
    pub fn load(&mut self, id: &str) -> Option<crate::replay::read::Loaded> {
        if !self.at.contains_key(id) {
            self.refresh();
        }
        let at = *self.at.get(id)?;
        let path = &self.files[at.file];
        let mut handle = std::fs::File::open(path).ok()?;
        handle.seek(std::io::SeekFrom::Start(at.offset)).ok()?;
        let mut line = vec![0; at.len];
        handle.read_exact(&mut line).ok()?;
        let record = crate::replay::read::read_line(line.trim_ascii_end()).ok()?;
        Some(crate::replay::read::Loaded {
            source: crate::replay::read::Source {
                // The file's name only: the page need not show where the league directory is.
                path: path.file_name().map(PathBuf::from).unwrap_or_default(),
                line: at.line,
            },
            record,
        })
    }
}
