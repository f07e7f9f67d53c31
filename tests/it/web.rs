//! The live view (`league --web ADDR`), on loopback: what it serves while a league plays, what it
//! refuses (other paths, other methods, a path out of the league, a huge request head), the caps
//! on connections and on a client that sends nothing, and streams that no one reads, which must
//! not hold up the league. Every attack is bounded in count and time.

use crate::support::{multiversi, probe, read_records, temp_dir, toml_string, Running};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

/// A league config of `bots`, `rounds` rounds, `concurrency` games at a time.
fn config(
    dir: &Path,
    bots: &[(&str, String)],
    rounds: u32,
    concurrency: u32,
) -> std::path::PathBuf {
    let mut text = format!(
        "name = \"live\"\nplayers = 3\nmove_ms = 2000\nrounds = {rounds}\nconcurrency = {concurrency}\n"
    );
    for (name, command) in bots {
        text += &format!(
            "[[bot]]\nname = {}\ncommand = {}\n",
            toml_string(name),
            toml_string(command)
        );
    }
    let path = dir.join("league.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// One round of three bots, one game at a time, whose first bot (a probe, writing to
/// `dir/slow.log`) waits `delay_ms` before each move: games that last long enough to be watched.
fn slow_league(dir: &Path, delay_ms: u32) -> std::path::PathBuf {
    let slow = probe(dir, "slow.log", &[&format!("delay={delay_ms}")]);
    let bots = [
        ("slow", slow),
        ("greedy", "builtin:greedy".into()),
        ("random", "builtin:random".into()),
    ];
    config(dir, &bots, 1, 1)
}

/// Starts `league CONFIG --web 127.0.0.1:0` and returns it with the address it serves on, read
/// from its stderr (in `dir/stderr`).
pub fn start_league(dir: &Path, config: &Path) -> (Running, SocketAddr) {
    let stderr = std::fs::File::create(dir.join("stderr")).unwrap();
    let running = multiversi("league")
        .arg(config)
        .arg("--out")
        .arg(dir.join("out"))
        .args(&["--web", "127.0.0.1:0"])
        .stderr_to(stderr)
        .timeout(Duration::from_secs(240))
        .spawn();
    let start = Instant::now();
    loop {
        let text = std::fs::read_to_string(dir.join("stderr")).unwrap_or_default();
        if let Some(rest) = text.split("watch it live at http://").nth(1) {
            let address = rest.split('/').next().unwrap();
            return (running, address.parse().expect("an address"));
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no address on stderr:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An address that is taken is refused (exit 2) before the league's directory is written.
#[test]
fn a_taken_address_is_refused_before_the_directory_is_written() {
    let dir = temp_dir("web_taken");
    let config = config(
        &dir,
        &[
            ("a", "builtin:random".into()),
            ("b", "builtin:random".into()),
            ("c", "builtin:greedy".into()),
        ],
        1,
        1,
    );
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    for option in ["--web", "--listen"] {
        multiversi("league")
            .arg(&config)
            .arg("--out")
            .arg(dir.join("out"))
            .args(&[option, &address])
            .run()
            .assert_code(2)
            .assert_stderr_has(&format!("{option} {address}: cannot listen"));
        assert!(
            !dir.join("out").exists(),
            "{option}: the directory was written"
        );
        // No port: what the option needs is said.
        multiversi("league")
            .arg(&config)
            .arg("--out")
            .arg(dir.join("out"))
            .args(&[option, "localhost"])
            .run()
            .assert_code(2)
            .assert_stderr_has("(give HOST:PORT, such as 127.0.0.1:8080)");
        assert!(!dir.join("out").exists());
    }
}

/// One request, as raw bytes; the whole answer (the server closes every connection).
fn request(address: SocketAddr, raw: &[u8]) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    stream.write_all(raw).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

fn get(address: SocketAddr, path: &str) -> String {
    request(
        address,
        format!("GET {path} HTTP/1.1\r\nhost: x\r\n\r\n").as_bytes(),
    )
}

/// A stream of server-sent events, read a message at a time.
struct Events {
    stream: std::io::BufReader<TcpStream>,
}

impl Events {
    fn open(address: SocketAddr) -> Events {
        let mut stream = TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        stream
            .write_all(b"GET /events HTTP/1.1\r\nhost: x\r\naccept: text/event-stream\r\n\r\n")
            .unwrap();
        Events {
            stream: std::io::BufReader::new(stream),
        }
    }

    /// The next message's JSON (skipping the head, chunk sizes, comments and `retry`).
    fn next(&mut self) -> Option<serde_json::Value> {
        use std::io::BufRead;
        let mut line = String::new();
        loop {
            line.clear();
            if self.stream.read_line(&mut line).ok()? == 0 {
                return None;
            }
            if let Some(data) = line.trim_end().strip_prefix("data: ") {
                return serde_json::from_str(data).ok();
            }
        }
    }

    /// Messages until one of this type.
    fn until(&mut self, kind: &str) -> serde_json::Value {
        loop {
            let message = self
                .next()
                .unwrap_or_else(|| panic!("the stream ended before {kind}"));
            if message["type"] == kind {
                return message;
            }
        }
    }
}

#[test]
fn the_live_view_serves_the_league_and_refuses_everything_else() {
    let dir = temp_dir("web-serves");
    let cfg = slow_league(&dir, 40);
    let (league, address) = start_league(&dir, &cfg);

    // The stream: the whole state first, then the games' moves as they are played.
    let mut events = Events::open(address);
    let first = events.next().expect("a first message");
    assert_eq!(first["type"], "snapshot", "{first}");
    assert_eq!(first["title"], "league live");
    assert_eq!(first["total"], 6);
    let moved = events.until("move");
    assert!(
        moved["rows"].as_array().is_some_and(|r| r.len() == 8),
        "{moved}"
    );
    let ended = events.until("game_end");
    let id = ended["game"].as_str().unwrap().to_string();
    events.until("standings");

    let page = get(address, "/");
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(page.contains("text/html") && page.contains("new EventSource(\"events\")"));
    assert!(page
        .to_ascii_lowercase()
        .contains("content-security-policy"));
    let state = get(address, "/state");
    assert!(state.starts_with("HTTP/1.1 200") && state.contains("\"finished_total\""));
    // A finished game in the replay viewer, by its id (escaped as a browser would).
    let viewer = get(address, &format!("/game/{}", id.replace('.', "%2E")));
    assert!(viewer.starts_with("HTTP/1.1 200"), "{viewer}");
    assert!(viewer.contains(&format!("\"game\":\"{id}\"")));
    // Its source is named by the file's name alone, not where the league directory is.
    assert!(viewer.contains("\"source\":\"games.jsonl:"), "{viewer}");

    // Nothing else: no other path, no way out of the league, no other method.
    for path in [
        "/nothing",
        "/game/nothing",
        "/../../etc/passwd",
        "/game/../../../../etc/passwd",
        "/game/..%2F..%2F..%2Fetc%2Fpasswd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/game/%2e%2e%2fgames.jsonl",
        "/game/%ff",
        "/league.toml",
        "/games.jsonl",
        "//etc/passwd",
    ] {
        let answer = get(address, path);
        assert!(answer.starts_with("HTTP/1.1 404"), "{path}: {answer}");
        assert!(!answer.contains("root:"), "{path}: {answer}");
    }
    let absolute = request(address, b"GET /etc/passwd HTTP/1.1\r\nhost: x\r\n\r\n");
    assert!(absolute.starts_with("HTTP/1.1 404"), "{absolute}");
    for method in ["POST", "PUT", "DELETE", "OPTIONS"] {
        let answer = request(
            address,
            format!("{method} / HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n\r\nhello").as_bytes(),
        );
        assert!(answer.starts_with("HTTP/1.1 405"), "{method}: {answer}");
    }
    // A request head beyond the cap (16 KiB), and garbage.
    let huge = format!(
        "GET / HTTP/1.1\r\nhost: x\r\nx-junk: {}\r\n\r\n",
        "a".repeat(64 * 1024)
    );
    let answer = request(address, huge.as_bytes());
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 431"),
        "{answer}"
    );
    let garbage = request(address, b"\x16\x03\x01\x02\x00garbage\r\n\r\n");
    assert!(
        garbage.is_empty() || garbage.starts_with("HTTP/1.1 400"),
        "{garbage}"
    );

    let run = league.finish();
    run.assert_ok();
    let records = read_records(&dir.join("out/games.jsonl"));
    assert_eq!(records.len(), 6);
}

#[test]
fn connections_are_capped_and_a_silent_one_is_closed() {
    let dir = temp_dir("web-caps");
    let cfg = slow_league(&dir, 100);
    let (league, address) = start_league(&dir, &cfg);
    // A flood from one address: 40 connections that send nothing (slowloris). The cap per
    // address is 32: the rest are refused at once.
    let held: Vec<TcpStream> = (0..40)
        .map(|_| TcpStream::connect(address).unwrap())
        .collect();
    let mut refused = 0;
    for stream in &held[32..] {
        stream
            .set_read_timeout(Some(Duration::from_secs(3)))
            .unwrap();
        let mut answer = Vec::new();
        let _ = (&*stream).read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer);
        assert!(
            answer.is_empty() || answer.starts_with("HTTP/1.1 503"),
            "{answer}"
        );
        refused += 1;
    }
    assert_eq!(refused, 8);
    // The held ones are closed once the time to send a request head (5 s) is over.
    let start = Instant::now();
    let mut first = &held[0];
    first
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut rest = Vec::new();
    let _ = first.read_to_end(&mut rest);
    let waited = start.elapsed();
    assert!(waited < Duration::from_secs(12), "held for {waited:?}");
    // A slow sender too: a byte a second never finishes its head.
    let mut slow_sender = TcpStream::connect(address).unwrap();
    let start = Instant::now();
    let mut closed = false;
    for b in b"GET / HTTP/1.1\r\nhost: x\r\n".iter().take(12) {
        if slow_sender.write_all(&[*b]).is_err() {
            closed = true;
            break;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    slow_sender
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut answer = Vec::new();
    let _ = slow_sender.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        closed || answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
    assert!(start.elapsed() < Duration::from_secs(25));
    drop(held);
    // Once they are gone, the page answers again.
    std::thread::sleep(Duration::from_millis(200));
    assert!(get(address, "/state").starts_with("HTTP/1.1 200"));
    league.finish().assert_ok();
}

#[test]
fn streams_no_one_reads_do_not_hold_up_the_league() {
    let dir = temp_dir("web-stalled");
    // Quick bots, many games: far more events than a stalled client's socket holds.
    let cfg = config(
        &dir,
        &[
            ("a", "builtin:random".into()),
            ("b", "builtin:greedy".into()),
            ("c", "builtin:random".into()),
        ],
        40,
        2,
    );
    let (league, address) = start_league(&dir, &cfg);
    // Streams that are opened and never read, with the smallest receive buffer.
    let stalled: Vec<TcpStream> = (0..16)
        .map(|_| {
            let mut s = TcpStream::connect(address).unwrap();
            let size: libc::c_int = 1024;
            // SAFETY: setsockopt on a socket this test owns, with a pointer to a local int.
            unsafe {
                libc::setsockopt(
                    std::os::fd::AsRawFd::as_raw_fd(&s),
                    libc::SOL_SOCKET,
                    libc::SO_RCVBUF,
                    (&size as *const libc::c_int).cast(),
                    std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                );
            }
            s.write_all(b"GET /events HTTP/1.1\r\nhost: x\r\n\r\n")
                .unwrap();
            s
        })
        .collect();
    // One that reads keeps seeing the league to its end.
    let mut reader = Events::open(address);
    let mut ended = 0;
    while let Some(message) = reader.next() {
        if message["type"] == "game_end" {
            ended += 1;
        }
        if message["type"] == "over" {
            break;
        }
    }
    let run = league.finish();
    run.assert_ok();
    assert_eq!(read_records(&dir.join("out/games.jsonl")).len(), 240);
    assert!(ended > 0, "the reading stream saw no game end");
    drop(stalled);
}

#[test]
fn the_live_page_shows_the_refereed_moves_in_chromium() {
    let browser = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    assert!(
        Path::new(&chromium).exists() && browser.join("node_modules/playwright-core").exists(),
        "the live page's browser test needs chromium and tests/browser/node_modules: run `bash \
         .ci/setup-browser`"
    );
    let dir = temp_dir("web-browser");
    let cfg = slow_league(&dir, 150);
    let (league, address) = start_league(&dir, &cfg);
    let screenshot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("live-view.png");
    let out = std::process::Command::new("node")
        .current_dir(&browser)
        .env("CHROMIUM", &chromium)
        .arg("live.test.mjs")
        .arg("--url")
        .arg(format!("http://{address}/"))
        .arg("--screenshot")
        .arg(&screenshot)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "browser test failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
    league.finish().assert_ok();
    // What the page showed is what the referee played: the board after that many moves of the
    // recorded game, computed by the engine.
    let records = read_records(&dir.join("out/games.jsonl"));
    let mut seen = 0;
    for line in stdout.lines() {
        let Some(json) = line.strip_prefix("OBSERVED ") else {
            continue;
        };
        let observed: serde_json::Value = serde_json::from_str(json).unwrap();
        let game = observed["game"].as_str().unwrap();
        let ply = observed["ply"].as_u64().unwrap() as usize;
        let record = records
            .iter()
            .find(|r| r.game == game)
            .unwrap_or_else(|| panic!("no record of {game}"));
        assert!(
            ply <= record.moves.len(),
            "the page showed {game} after {ply} moves"
        );
        let rows: Vec<String> = observed["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            rows,
            crate::support::samples::rows_at(record, ply),
            "{game} after {ply}"
        );
        seen += 1;
    }
    assert_eq!(seen, 2, "{stdout}");
}
