//! A bot's two byte streams as the referee sees them, whatever carries them: the bytes written to
//! it (non-blocking, the rest kept and written while the referee waits) and the lines read from
//! it (capped, against one absolute deadline). A local bot's streams are its stdin and stdout
//! pipes (`child`); a remote bot's are the two directions of its network connection
//! (`crate::remote`). Both go through this one reader, so a line from the network meets the same
//! cap, the same buffer limit and the same words as a line from a pipe.

use super::log::BotLog;
use super::safety::interrupted;
use std::fs::File;
use std::io::{self, Write};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// What waiting for a line from a bot produced.
#[derive(Debug, PartialEq, Eq)]
pub enum Received {
    /// A complete line (without its `\n` and a trailing `\r`), and when it arrived.
    Line(Vec<u8>, Instant),
    /// The line grew past the cap before its end; the first bytes of it.
    TooLong(Vec<u8>),
    /// The bot's output ended (it exited or closed stdout; a connection closed).
    Eof,
    /// The deadline passed first.
    Timeout,
    /// The end watch fired (see `Wire::watch_end`: a local bot's process exited) while the
    /// output stays open, and what the output held then was no complete line: whoever still
    /// holds it open is not the one that owed the answer.
    Gone,
}

/// What the output read from a bot holds at its start.
enum News {
    /// A complete line: its `\n` is at `end`, and it has `len` bytes without its line end.
    Line { end: usize, len: usize },
    /// A line longer than the cap, complete or not.
    TooLong,
    /// The output ended after a last line without its newline.
    LastLine,
    /// The output ended.
    Eof,
    /// The end watch fired; the output is still open and holds no complete line.
    Gone,
}

/// The most a bot's unread output may occupy in the referee, whatever the bot writes: room for
/// a complete line of the longest length the protocol allows (with `\r\n`) and one more. When
/// this much is buffered, the buffer always holds news (a complete line or an over-long one), so
/// the referee reads no more until it has dealt with that.
pub const READ_LIMIT: usize = 2 * (crate::protocol::MAX_LINE_BYTES + 2);

/// How much one read takes at most. A reply is a few dozen bytes; a larger output is read in
/// several. On the stack of the thread that reads, not in each wire: 16 KB kept per bot for its
/// whole life was the largest part of a worker's heap while it played.
const SCRATCH: usize = 4096;

/// The referee's side of a bot's streams.
pub struct Wire {
    /// Where messages go (a bot's stdin; a connection's sending side). None once closed.
    input: Option<File>,
    /// Where answers come from (a bot's stdout; a connection's receiving side).
    output: File,
    /// Bytes written that the stream has not taken yet.
    pending: Vec<u8>,
    /// Whether the input is a pipe, whose unread bytes the kernel can count (`unread_input`).
    pipe: bool,
    /// Bytes sent that a broken input never took: its reader was gone before they were written.
    lost: usize,
    /// Bytes read that do not yet form a complete line.
    buffer: Vec<u8>,
    /// Where the search for `\n` in `buffer` resumes.
    scanned: usize,
    eof: bool,
    /// Why the output ended, when it ended in an error rather than an orderly end (a connection
    /// reset by the network).
    error: Option<io::Error>,
    /// When the last read returned: the arrival time of the lines it completed.
    read_at: Instant,
    /// When the end of the output was read: the arrival time of a last line without its `\n`.
    eof_at: Option<Instant>,
    /// The bot's log, if the run keeps logs.
    log: Option<BotLog>,
    /// A descriptor that becomes readable when the writer of the output is gone for good, even
    /// though the output may stay open (see `watch_end`); None for a stream without one.
    end_watch: Option<OwnedFd>,
    /// Whether the end watch has fired. It stays readable once it has, so it is not polled again.
    gone: bool,
    /// Whether the grace after the end watch fired has been waited (`settle_after_end`).
    settled: bool,
}

fn set_nonblocking(fd: impl AsFd) -> io::Result<()> {
    use nix::fcntl::{fcntl, FcntlArg, OFlag};
    let fd = fd.as_fd();
    let flags = OFlag::from_bits_retain(fcntl(fd, FcntlArg::F_GETFL)?);
    fcntl(fd, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
    Ok(())
}

impl Wire {
    /// The streams `input` (written to) and `output` (read from), made non-blocking.
    pub fn new(input: OwnedFd, output: OwnedFd, log: Option<BotLog>) -> io::Result<Wire> {
        set_nonblocking(&input)?;
        set_nonblocking(&output)?;
        let pipe = nix::sys::stat::fstat(&input).is_ok_and(|st| {
            nix::sys::stat::SFlag::from_bits_truncate(st.st_mode)
                .contains(nix::sys::stat::SFlag::S_IFIFO)
        });
        Ok(Wire {
            input: Some(File::from(input)),
            output: File::from(output),
            pending: Vec::new(),
            pipe,
            lost: 0,
            buffer: Vec::new(),
            scanned: 0,
            eof: false,
            error: None,
            read_at: Instant::now(),
            eof_at: None,
            log,
            end_watch: None,
            gone: false,
            settled: false,
        })
    }

    /// Watches `fd` while waiting for output: once it is readable, whoever owed the output has
    /// ended, so what the output holds then (read at once: it was written before the end) is
    /// all there will be, and a wait without a complete line ends as `Received::Gone` rather
    /// than at the deadline. The transport knows what the descriptor stands for (for a local
    /// bot, its main process: a pidfd, which a helper holding the bot's stdout open does not
    /// keep from firing); the wire knows only that readable means gone.
    pub fn watch_end(&mut self, fd: OwnedFd) {
        self.end_watch = Some(fd);
    }

    /// Waits up to `wait` for the end watch to fire, reading and writing nothing: whether it
    /// fired, or None at once when there is no end watch. For a shutdown, which waits for the
    /// bot's exit itself rather than for its output.
    pub fn wait_end(&self, wait: Duration) -> Option<bool> {
        let watch = self.end_watch.as_ref()?;
        let mut entry = [libc::pollfd {
            fd: watch.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        }];
        Some(ppoll(&mut entry, wait))
    }

    pub fn log(&self) -> Option<&BotLog> {
        self.log.as_ref()
    }

    /// Queues bytes for the bot and writes as much as the stream takes now, never waiting. The
    /// rest is written while the referee waits in `recv_line`. A bot that has closed its input
    /// simply stops receiving; its silence is judged when an answer is due.
    pub fn send(&mut self, bytes: &[u8]) {
        if let Some(log) = &self.log {
            log.protocol_line('>', bytes);
        }
        if self.input.is_none() {
            return;
        }
        if self.pending.is_empty() {
            let written = self.write_some(bytes);
            if written < bytes.len() && self.input.is_some() {
                self.pending.extend_from_slice(&bytes[written..]);
            }
        } else {
            self.pending.extend_from_slice(bytes);
            self.flush_pending();
        }
    }

    /// One non-blocking write; returns how many bytes the stream took. A broken stream closes
    /// the input.
    fn write_some(&mut self, bytes: &[u8]) -> usize {
        let Some(input) = self.input.as_mut() else {
            return 0;
        };
        let mut done = 0;
        while done < bytes.len() {
            match input.write(&bytes[done..]) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(_) => {
                    self.input = None;
                    self.lost += bytes.len() - done + self.pending.len();
                    self.pending.clear();
                    break;
                }
            }
        }
        done
    }

    fn flush_pending(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        let n = self.write_some(&pending);
        if self.input.is_some() {
            self.pending = pending[n..].to_vec();
        }
    }

    /// Closes the input (the bot sees its end), dropping anything not yet written.
    pub fn close_input(&mut self) {
        self.pending.clear();
        self.input = None;
        // What it had read is no longer known.
        self.pipe = false;
    }

    /// Bytes written but not yet taken by the stream.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Whether the input broke while the bot had bytes to take (it closed its stdin, or
    /// exited): they were never written.
    pub fn input_broken(&self) -> bool {
        self.lost > 0
    }

    /// How many of the bytes sent the bot has not read: those the pipe still holds (the kernel
    /// keeps them, and counts them, after the bot has exited, as long as the referee's end is
    /// open), those not yet written, and those a broken pipe never took. None where that cannot
    /// be known: a socket (what the peer's kernel took is not what the bot read).
    pub fn unread_input(&self) -> Option<usize> {
        if !self.pipe {
            return None;
        }
        let in_pipe = match &self.input {
            Some(input) => {
                let mut n: libc::c_int = 0;
                // SAFETY: FIONREAD writes one int through the pointer, which points at `n`.
                if unsafe { libc::ioctl(input.as_raw_fd(), libc::FIONREAD, &mut n) } != 0 {
                    return None;
                }
                n.max(0) as usize
            }
            None => 0,
        };
        Some(in_pipe + self.pending.len() + self.lost)
    }

    /// What the output read so far holds for a reader with line cap `cap`, without taking it.
    fn news(&self, cap: usize) -> Option<News> {
        if let Some(pos) = memchr::memchr(b'\n', &self.buffer[self.scanned..]) {
            let end = self.scanned + pos;
            // The cap counts the line without its `\n` and without a `\r` before it.
            let len = if end > 0 && self.buffer[end - 1] == b'\r' {
                end - 1
            } else {
                end
            };
            return Some(if len > cap {
                News::TooLong
            } else {
                News::Line { end, len }
            });
        }
        // No end of line yet: the line is already too long once it cannot be a capped line
        // still waiting for its `\r\n` or `\n`.
        let len = self.buffer.len();
        if len > cap + 1 || (len == cap + 1 && self.buffer[cap] != b'\r') {
            return Some(News::TooLong);
        }
        if self.eof {
            return Some(if len == 0 { News::Eof } else { News::LastLine });
        }
        if self.gone {
            return Some(News::Gone);
        }
        None
    }

    /// Takes what `news` found, if anything, and logs it as protocol traffic.
    fn take_news(&mut self, cap: usize) -> Option<Received> {
        let received = self.take_news_unlogged(cap)?;
        if let Some(log) = self.log.as_ref().filter(|log| log.protocol) {
            match &received {
                Received::Line(line, _) => log.protocol_line('<', line),
                Received::TooLong(prefix) => {
                    let mut note = format!("(a line longer than {cap} bytes, from) ").into_bytes();
                    note.extend_from_slice(&prefix[..prefix.len().min(200)]);
                    log.protocol_line('<', &note);
                }
                Received::Eof => log.protocol_line('<', b"(end of output)"),
                Received::Gone => log.protocol_line('<', b"(ended, its output still open)"),
                Received::Timeout => {}
            }
        }
        Some(received)
    }

    fn take_news_unlogged(&mut self, cap: usize) -> Option<Received> {
        let mut news = self.news(cap);
        if matches!(news, Some(News::Gone)) && !self.settled {
            // Before saying so, give a wrapper the moment it takes to let go of the output.
            self.settle_after_end();
            news = self.news(cap);
        }
        if news.is_none() {
            // Nothing before the end of the buffer: the next search starts where this one ended.
            self.scanned = self.buffer.len();
        }
        Some(match news? {
            News::Line { end, len } => {
                let mut line: Vec<u8> = self.buffer.drain(..=end).collect();
                line.truncate(len);
                self.scanned = 0;
                Received::Line(line, self.read_at)
            }
            News::TooLong => Received::TooLong(self.buffer[..cap.min(self.buffer.len())].to_vec()),
            News::LastLine => {
                // A last line without its newline still counts as a line, ended by the end of
                // the output: it arrived when that end was read, not when its bytes were
                // (PROTOCOL.md: the time runs until the complete line has been read).
                let line = std::mem::take(&mut self.buffer);
                self.scanned = 0;
                Received::Line(line, self.eof_at.unwrap_or(self.read_at))
            }
            News::Eof => Received::Eof,
            News::Gone => Received::Gone,
        })
    }

    /// Waits for the next line until `deadline`, reading at most `cap` bytes of it. The deadline
    /// is absolute: nothing the bot writes extends it.
    pub fn recv_line(&mut self, deadline: Instant, cap: usize) -> Received {
        loop {
            if let Some(received) = self.take_news(cap) {
                return received;
            }
            let now = Instant::now();
            if now >= deadline {
                return Received::Timeout;
            }
            if interrupted() {
                // The caller checks the flag and stops; what is returned does not count.
                return Received::Eof;
            }
            wait_any(&mut [self], deadline - now);
        }
    }

    /// Whether the buffer holds all the output the referee may keep (see `READ_LIMIT`).
    fn buffer_full(&self) -> bool {
        self.buffer.len() >= READ_LIMIT
    }

    /// The descriptors to wait on: the output for reading (unless it has ended or the buffer is
    /// full), the input for writing when bytes are pending, the end watch until it has fired
    /// (and while the output has not ended: its end says more).
    fn poll_fds(&self) -> [libc::pollfd; ENTRIES] {
        let input = match &self.input {
            Some(input) if !self.pending.is_empty() => input.as_raw_fd(),
            _ => -1,
        };
        [
            libc::pollfd {
                fd: if self.eof || self.buffer_full() {
                    -1
                } else {
                    self.output.as_raw_fd()
                },
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: input,
                events: libc::POLLOUT,
                revents: 0,
            },
            libc::pollfd {
                fd: match &self.end_watch {
                    Some(watch) if !self.gone && !self.eof => watch.as_raw_fd(),
                    _ => -1,
                },
                events: libc::POLLIN,
                revents: 0,
            },
        ]
    }

    /// Reads whatever the output holds, without waiting and without asking `ppoll` first: one
    /// system call where an answer is usually there already (a bot that answered while the
    /// referee was still returning from its write, as on one CPU), one wasted `read` otherwise.
    pub fn read_now(&mut self) {
        self.read_available();
    }

    /// Reads whatever the bot has written, without waiting.
    pub fn poll_now(&mut self) {
        wait_any(&mut [self], Duration::ZERO);
    }

    /// Whether the output has ended and everything in it has been taken.
    pub fn output_ended(&self) -> bool {
        self.eof && self.buffer.is_empty()
    }

    /// The bytes read that do not form a line yet: a move written without its newline, which
    /// the words for a timeout name.
    pub fn partial_line(&self) -> &[u8] {
        &self.buffer
    }

    /// Whether the output has ended (there may still be lines to take).
    pub fn eof(&self) -> bool {
        self.eof
    }

    /// The error that ended the output, if it ended in one (a reset connection).
    pub fn error(&self) -> Option<&io::Error> {
        self.error.as_ref()
    }

    /// Whether `recv_line` would return at once (a line, an over-long line, the end of output,
    /// or the end watch fired).
    pub fn has_news(&self, cap: usize) -> bool {
        self.news(cap).is_some()
    }

    /// Reads what the stream holds, but never more than `READ_LIMIT` bytes in all: a bot that
    /// writes without end costs the referee no more memory than two capped lines.
    fn read_available(&mut self) {
        let mut scratch = [MaybeUninit::<u8>::uninit(); SCRATCH];
        loop {
            let room = READ_LIMIT.saturating_sub(self.buffer.len());
            if room == 0 || self.eof {
                return;
            }
            let want = room.min(SCRATCH);
            match read_into(&self.output, &mut scratch[..want]) {
                Ok([]) => {
                    self.eof = true;
                    self.eof_at = Some(Instant::now());
                    return;
                }
                Ok(bytes) => {
                    self.read_at = Instant::now();
                    self.buffer.extend_from_slice(bytes);
                    if bytes.len() < want {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) => {
                    self.eof = true;
                    self.error = Some(e);
                    return;
                }
            }
        }
    }

    /// Once the end watch has fired and no complete line is left: waits up to `END_GRACE` for
    /// the output's end (or a line), reading what comes. The one that owed the output has gone,
    /// but a process that only wrapped it (a sandbox's init, a shell that did not `exec`) may
    /// still hold the output for the moment it takes to exit: that exit is a plain end of
    /// output, as it was before the watch, and only an output still held after the grace is a
    /// helper's. Done once: a helper's hold is not waited for again.
    fn settle_after_end(&mut self) {
        self.settled = true;
        let until = Instant::now() + END_GRACE;
        self.read_available();
        while !(self.eof || self.buffer_full() || memchr::memchr(b'\n', &self.buffer).is_some()) {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            // The end watch has fired, so it is not polled: this waits on the output alone.
            wait_any(&mut [&mut *self], left);
        }
    }

    /// Writes a note of the referee's into the bot's log (game starts, faults), so the log can
    /// be read alongside the record.
    pub fn log_note(&self, note: &str) {
        if let Some(log) = &self.log {
            log.note(format!("[multiversi] {note}\n").as_bytes());
        }
    }

    #[cfg(test)]
    pub(super) fn clear_buffer(&mut self) {
        self.buffer.clear();
        self.scanned = 0;
    }

    #[cfg(test)]
    pub(super) fn buffered(&self) -> &[u8] {
        &self.buffer
    }
}

/// One `read` of `file` into `buf`, which need not be zeroed first; the bytes read. The referee
/// reads every answer into a 4 KB scratch on its stack, and zeroing it before each read was a
/// third of the instructions it ran per move (`valgrind --tool=callgrind`, four instant bots).
fn read_into<'a>(file: &File, buf: &'a mut [MaybeUninit<u8>]) -> io::Result<&'a [u8]> {
    // SAFETY: the kernel writes at most `buf.len()` bytes at `buf`'s start, and returns how
    // many, or -1.
    let n = unsafe { libc::read(file.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel wrote the first `n` bytes of `buf` (n <= buf.len()).
    Ok(unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), n as usize) })
}

/// How many wires' descriptors `ppoll` is given from the stack rather than from the heap: more
/// than the seats of a game, which the referee polls before every turn.
const STACK_WIRES: usize = 8;

const NO_FD: libc::pollfd = libc::pollfd {
    fd: -1,
    events: 0,
    revents: 0,
};

/// How many `ppoll` entries a wire has (see `Wire::poll_fds`): its output, its input, its end
/// watch, each -1 when not waited on, so that every wire's entries stay at fixed places.
const ENTRIES: usize = 3;

/// How long the output may stay open after the end watch fired, once no line is left, before a
/// process other than the one watched is taken to hold it (see `Wire::settle_after_end`): a
/// wrapper's own exit takes a millisecond or so.
const END_GRACE: Duration = Duration::from_millis(100);

/// `ENTRIES` `ppoll` entries per wire, on the stack for a game's few bots.
struct PollSet {
    stack: [libc::pollfd; ENTRIES * STACK_WIRES],
    heap: Vec<libc::pollfd>,
    len: usize,
}

impl PollSet {
    fn new(wires: usize) -> PollSet {
        let len = ENTRIES * wires;
        PollSet {
            stack: [NO_FD; ENTRIES * STACK_WIRES],
            heap: if wires > STACK_WIRES {
                vec![NO_FD; len]
            } else {
                Vec::new()
            },
            len,
        }
    }

    fn fds(&mut self) -> &mut [libc::pollfd] {
        if self.heap.is_empty() {
            &mut self.stack[..self.len]
        } else {
            &mut self.heap
        }
    }

    /// Waits up to `wait` for any entry; whether any is ready.
    fn ppoll(&mut self, wait: Duration) -> bool {
        ppoll(self.fds(), wait)
    }
}

/// Waits up to `wait` for any of `fds`; whether any is ready.
fn ppoll(fds: &mut [libc::pollfd], wait: Duration) -> bool {
    let timeout = libc::timespec {
        tv_sec: wait.as_secs().min(i32::MAX as u64) as libc::time_t,
        tv_nsec: wait.subsec_nanos() as libc::c_long,
    };
    // SAFETY: valid pollfd entries (fd -1 is ignored by the kernel) and a valid timespec.
    let ready = unsafe {
        libc::ppoll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            &timeout,
            std::ptr::null(),
        )
    };
    ready > 0
}

impl Wire {
    /// Does what `ppoll` found possible for this wire's entries. When the end watch fired, the
    /// output is read whether or not its own entry said so: everything written before the end
    /// is in it, and a complete line there is still an answer.
    fn after_poll(&mut self, entries: &[libc::pollfd]) {
        if entries[1].revents != 0 {
            self.flush_pending();
        }
        if entries[2].revents != 0 {
            self.gone = true;
        }
        if entries[0].revents != 0 || entries[2].revents != 0 {
            self.read_available();
        }
    }
}

/// Waits up to `wait` until any of the wires has output (or takes pending input), and reads and
/// writes what it can. Used to wait for several bots against one deadline (the `ready` answers)
/// without letting one slow bot delay noticing the others.
pub fn wait_any(wires: &mut [&mut Wire], wait: Duration) {
    // libc, not nix: nix's `PollFd` holds a borrowed descriptor, so it cannot express the
    // kernel's "skip this entry" (-1), which keeps a bot's entries at fixed places, nor
    // outlive the borrow of the bots that the reads and writes below need.
    let mut set = PollSet::new(wires.len());
    for (entries, wire) in set.fds().chunks_exact_mut(ENTRIES).zip(wires.iter()) {
        entries.copy_from_slice(&wire.poll_fds());
    }
    if !set.ppoll(wait) {
        return;
    }
    for (wire, entries) in wires.iter_mut().zip(set.fds().chunks_exact(ENTRIES)) {
        wire.after_poll(entries);
    }
}

/// `wait_any` for the wires of `items[i]` for each `i` in `indices` (an item without a wire,
/// such as a bot that is not running, is skipped): the referee's wait before every turn, which
/// this way builds no list of the bots it waits for.
pub fn wait_among<T>(
    items: &mut [T],
    indices: &[usize],
    mut wire: impl FnMut(&mut T) -> Option<&mut Wire>,
    wait: Duration,
) {
    let mut set = PollSet::new(indices.len());
    for (entries, &i) in set.fds().chunks_exact_mut(ENTRIES).zip(indices) {
        if let Some(w) = items.get_mut(i).and_then(&mut wire) {
            entries.copy_from_slice(&w.poll_fds());
        }
    }
    if !set.ppoll(wait) {
        return;
    }
    for (entries, &i) in set.fds().chunks_exact(ENTRIES).zip(indices) {
        if let Some(w) = items.get_mut(i).and_then(&mut wire) {
            w.after_poll(entries);
        }
    }
}
