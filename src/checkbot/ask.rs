//! One exchange with the bot under check: a message sent, its answer waited for against the
//! limit from the moment it was written, and what came back judged by the connection exactly as
//! in a match (`crate::connection`). Where the referee stops waiting, the checker listens a little
//! longer, only to tell a slow bot from a silent one.

use crate::connection::{Connection, Fault};
use crate::record::FaultKind;
use std::time::{Duration, Instant};

/// The longest the checker keeps listening past a limit to tell a late answer from none.
const LATE_WAIT_CAP: Duration = Duration::from_millis(2000);

/// What came back for one message, judged by the connection exactly as in a match.
pub(super) enum Heard {
    /// A line within the limit, and how long it took.
    Answer(Vec<u8>, f64),
    /// The fault a match would record. For a timeout, `late` is the answer that came after the
    /// limit while the checker listened on (and how long it took): a slow bot, not a silent one.
    Fault { fault: Fault, late: Option<f64> },
    /// A line the bot wrote before the message went out, owed to nobody: the fault a match
    /// records for it. The message was not sent (nor is it shown as sent).
    Unasked(Fault),
}

pub(super) fn line_text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes.strip_suffix(b"\n").unwrap_or(bytes)).into_owned()
}

pub(super) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Sends one message and waits for the answer against `limit_ms` from the moment it was written,
/// as the referee does. Whatever the bot wrote before the message went out was owed to nobody:
/// a match disqualifies it for that before sending anything more, and so does the check.
pub(super) fn ask(bot: &mut Connection, message: &[u8], limit_ms: u64, what: &str) -> Heard {
    if let Some(fault) = bot.unasked() {
        return Heard::Unasked(fault);
    }
    bot.send(message);
    let sent = Instant::now();
    let limit = Duration::from_millis(limit_ms);
    let deadline = sent + limit;
    match bot.answer(deadline, limit_ms, what) {
        Ok((line, at)) => Heard::Answer(line, ms(at - sent)),
        Err(fault) if fault.kind == FaultKind::Timeout => {
            // Where the referee stops waiting, listen a little longer, only to tell a slow bot
            // from a silent one.
            let late = match &fault.text {
                Some(_) => Some(ms(Instant::now() - sent)),
                None => bot
                    .late_line(deadline + limit.min(LATE_WAIT_CAP))
                    .map(|(_, at)| ms(at - sent)),
            };
            Heard::Fault { fault, late }
        }
        Err(fault) => Heard::Fault { fault, late: None },
    }
}
