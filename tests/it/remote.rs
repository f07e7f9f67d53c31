//! Bots over the network, on loopback: a league in which some bots are local processes and some
//! play through `multiversi connect`, the faults of a bot whose connection ends or stays silent,
//! a bot that never connects, and the errors a person can make with tokens.

use crate::support::{check_record, multiversi, read_records, temp_dir, toml_string, Running};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A port free on loopback now (the system's choice), for a league to listen on.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// `multiversi token NAME --token-file DIR/NAME.token`: the token file and the config lines.
fn token(dir: &Path, name: &str) -> (PathBuf, String) {
    let file = dir.join(format!("{name}.token"));
    let out = multiversi("token")
        .arg(name)
        .arg("--token-file")
        .arg(&file)
        .ok();
    let token = std::fs::read_to_string(&file).expect("the token file");
    // The config lines hold the hash, never the token.
    assert!(!out.stdout().contains(token.trim()), "{}", out.stdout());
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "the token file is its owner's only");
    let lines: String = out
        .stdout()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(lines.contains("remote = \"sha256:"), "{lines}");
    (file, lines)
}

/// `multiversi connect` for one bot, left running until the league says goodbye.
fn connect(port: u16, token: &Path, bot: &[&str]) -> Running {
    multiversi("connect")
        .arg(format!("127.0.0.1:{port}"))
        .arg("--token-file")
        .arg(token)
        .args(&["--retry", "120", "--times", "--"])
        .args(bot)
        .timeout(Duration::from_secs(300))
        .spawn()
}

const HEAD: &str = "name = \"net\"\nplayers = 3\nmove_ms = 1000\nstartup_ms = 10000\n";

/// `multiversi league CONFIG --listen 127.0.0.1:PORT --out OUT`.
fn listening_league(config: &Path, port: u16, out: &Path) -> crate::support::TestCommand {
    multiversi("league")
        .arg(config)
        .arg("--listen")
        .arg(format!("127.0.0.1:{port}"))
        .arg("--out")
        .arg(out)
}

/// `DIR/league.toml`: `HEAD`, then `rest`.
fn league_config(dir: &Path, rest: &str) -> PathBuf {
    let config = dir.join("league.toml");
    std::fs::write(&config, format!("{HEAD}{rest}")).unwrap();
    config
}

fn local_bot(name: &str, command: &str) -> String {
    format!(
        "[[bot]]\nname = {}\ncommand = {}\n",
        toml_string(name),
        toml_string(command)
    )
}

/// The form of a JSON document: the keys of its objects, by path (a list's items share one).
fn form(value: &serde_json::Value, path: &str, keys: &mut BTreeSet<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                let at = format!("{path}.{k}");
                keys.insert(at.clone());
                form(v, &at, keys);
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                form(item, &format!("{path}[]"), keys);
            }
        }
        _ => {}
    }
}

fn standings_form(dir: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(dir.join("standings.json")).expect("standings.json");
    let mut keys = BTreeSet::new();
    form(&serde_json::from_str(&text).unwrap(), "", &mut keys);
    keys
}

#[test]
fn a_league_of_local_and_remote_bots_has_the_standings_of_a_local_league() {
    let dir = temp_dir("remote-league");
    let (alice_token, alice) = token(&dir, "alice");
    let (bob_token, bob) = token(&dir, "bob");
    let port = free_port();
    let local = local_bot("r1", "builtin:random") + &local_bot("g1", "builtin:greedy");
    let config = league_config(&dir, &format!("concurrency = 2\n{local}{alice}{bob}"));
    // The participants start their clients first; they wait for the server.
    let clients = [
        connect(port, &alice_token, &["builtin:greedy"]),
        connect(port, &bob_token, &["builtin:random"]),
    ];
    let out = dir.join("league");
    let run = listening_league(&config, port, &out).run();
    run.assert_ok();
    run.assert_stderr_has(&format!("listening on 127.0.0.1:{port}"));
    assert!(!run.stderr().contains("warning"), "{}", run.stderr());
    for client in clients {
        let client = client.finish();
        client.assert_ok();
        client.assert_stderr_has("the server said goodbye: the league is over");
        // What the client measured, for its owner: the bot's own answer times.
        client.assert_stderr_has("ms at most here (the server's time adds the network)");
    }
    let records = read_records(&out.join("games.jsonl"));
    assert_eq!(records.len(), 24);
    for r in &records {
        check_record(r);
        assert!(r.faults.is_empty(), "{:?}", r.faults);
        for seat in &r.seats {
            let ready = seat.ready.as_ref().expect("every bot answered start");
            match seat.name.as_str() {
                "alice" => {
                    assert_eq!(seat.command, ["remote:alice"]);
                    assert_eq!(ready.name.as_deref(), Some("greedy"));
                }
                "bob" => assert_eq!(seat.command, ["remote:bob"]),
                _ => assert!(seat.command[0].starts_with("builtin:")),
            }
        }
    }
    // The same league with every bot local: standings of the same form.
    let local_dir = dir.join("local");
    std::fs::create_dir_all(&local_dir).unwrap();
    let all_local =
        local + &local_bot("alice", "builtin:greedy") + &local_bot("bob", "builtin:random");
    let local_config = local_dir.join("league.toml");
    std::fs::write(&local_config, format!("{HEAD}concurrency = 2\n{all_local}")).unwrap();
    let local_run = multiversi("league")
        .arg(&local_config)
        .arg("--out")
        .arg(local_dir.join("league"))
        .ok();
    assert_eq!(
        standings_form(&out),
        standings_form(&local_dir.join("league"))
    );
    fn header(text: &str) -> Option<Vec<String>> {
        text.lines()
            .find(|l| l.trim_start().starts_with('#'))
            .map(|l| l.split_whitespace().map(str::to_string).collect())
    }
    assert_eq!(header(&run.stdout()), header(&local_run.stdout()));
    // The lobby's log says who came and went, and holds no token.
    let log = std::fs::read_to_string(out.join("remote.log")).unwrap();
    assert!(
        log.contains("bot alice connected") && log.contains("bot bob connected"),
        "{log}"
    );
    for file in [&alice_token, &bob_token] {
        let token = std::fs::read_to_string(file).unwrap();
        assert!(!log.contains(token.trim()));
    }
}

#[test]
fn a_remote_bot_that_drops_or_stays_silent_is_faulted_in_words_that_say_which_and_plays_on() {
    let dir = temp_dir("remote-faults");
    let (dropper_token, dropper) = token(&dir, "dropper");
    let (sleeper_token, sleeper) = token(&dir, "sleeper");
    // Both answer `start`; at their first turn one ends, the other says nothing.
    let drops = dir.join("drops.sh");
    std::fs::write(
        &drops,
        "read start\necho '{\"type\":\"ready\",\"name\":\"drops\"}'\nread turn\nexit 3\n",
    )
    .unwrap();
    let sleeps = dir.join("sleeps.sh");
    std::fs::write(
        &sleeps,
        "read start\necho '{\"type\":\"ready\",\"name\":\"sleeps\"}'\nread turn\nsleep 60\n",
    )
    .unwrap();
    let port = free_port();
    let config = dir.join("league.toml");
    std::fs::write(
        &config,
        format!(
            "name = \"net\"\nplayers = 3\nmove_ms = 300\nstartup_ms = 10000\nconcurrency = 1\n{}{dropper}{sleeper}",
            local_bot("r1", "builtin:random")
        ),
    )
    .unwrap();
    let clients = [
        connect(port, &dropper_token, &["sh", drops.to_str().unwrap()]),
        connect(port, &sleeper_token, &["sh", sleeps.to_str().unwrap()]),
    ];
    let out = dir.join("league");
    listening_league(&config, port, &out).ok();
    for client in clients {
        client.finish().assert_ok();
    }
    let records = read_records(&out.join("games.jsonl"));
    assert_eq!(records.len(), 6);
    for r in &records {
        check_record(r);
        // Every game began with both remote bots there: each client came back between games
        // with a fresh process of its bot.
        assert!(r.seats.iter().all(|s| s.ready.is_some()), "{}", r.game);
        assert_eq!(r.faults.len(), 2, "{:?}", r.faults);
        for fault in &r.faults {
            match r.seats[fault.seat].name.as_str() {
                "dropper" => {
                    assert_eq!(fault.kind, multiversi::record::FaultKind::Crash);
                    assert!(
                        fault.detail.contains("closed its network connection (its program ended, or its multiversi connect stopped"),
                        "{}",
                        fault.detail
                    );
                }
                "sleeper" => {
                    assert_eq!(fault.kind, multiversi::record::FaultKind::Timeout);
                    assert!(
                        fault.detail.contains("network included"),
                        "{}",
                        fault.detail
                    );
                }
                other => panic!("{other} faulted: {fault:?}"),
            }
        }
    }
}

/// A league stopped before its end (Ctrl-C) says no goodbye: its clients keep trying, and when
/// the league is run again they play on, to its end, where it says goodbye.
#[test]
fn clients_of_a_stopped_league_wait_for_it_and_play_on_when_it_resumes() {
    let dir = temp_dir("remote-resume");
    let (alice_token, alice) = token(&dir, "alice");
    let port = free_port();
    let local = local_bot("r1", "builtin:random") + &local_bot("r2", "builtin:random");
    // One deal of 6 games a round: 120 games, more than are played before the signal.
    let config = league_config(
        &dir,
        &format!("rounds = 20\nconcurrency = 1\n{local}{alice}"),
    );
    let mut client = connect(port, &alice_token, &["builtin:random"]);
    let out = dir.join("league");
    let league = || listening_league(&config, port, &out).timeout(Duration::from_secs(120));
    let first = league().spawn();
    let records = out.join("games.jsonl");
    let played = |path: &Path| std::fs::read_to_string(path).map_or(0, |text| text.lines().count());
    let started = std::time::Instant::now();
    while played(&records) < 3 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no games recorded"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    first.signal(libc::SIGINT);
    let first = first.finish();
    first.assert_code(130);
    let kept = played(&records);
    assert!(
        kept < 120,
        "the league ended before the signal: {kept} games"
    );
    // The client was not told goodbye: it is still there, trying to connect again.
    std::thread::sleep(Duration::from_secs(1));
    assert!(
        client.try_wait().is_none(),
        "the client ended with the stopped league"
    );
    let log = std::fs::read_to_string(out.join("remote.log")).unwrap();
    assert!(log.contains("stopped before the league's end"), "{log}");
    // Run again: the league plays the games left, with the same client.
    let second = league().run();
    second.assert_ok();
    let client = client.finish();
    client.assert_ok();
    client.assert_stderr_has("the server said goodbye: the league is over");
    let all = read_records(&records);
    assert_eq!(all.len(), 120);
    let mut ids: Vec<&str> = all.iter().map(|r| r.game.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 120, "a game recorded twice");
    for r in &all {
        check_record(r);
        let seat = r
            .seats
            .iter()
            .find(|s| s.name == "alice")
            .expect("alice plays");
        assert_eq!(seat.command, ["remote:alice"]);
    }
    // Games after the resumption were played by the client's bot too.
    assert!(all[kept..].iter().all(|r| r.faults.is_empty()));
}

#[test]
fn a_remote_bot_that_never_connects_is_left_out_after_the_wait_and_wrong_tokens_are_refused() {
    let dir = temp_dir("remote-absent");
    let (_, ghost) = token(&dir, "ghost");
    // A real token, of a bot this league does not list.
    let (wrong, _) = token(&dir, "stranger");
    let wrong_text = std::fs::read_to_string(&wrong).unwrap();
    let port = free_port();
    let config = dir.join("league.toml");
    let local = local_bot("r1", "builtin:random")
        + &local_bot("r2", "builtin:random")
        + &local_bot("g1", "builtin:greedy");
    std::fs::write(&config, format!("{HEAD}concurrency = 1\n{local}{ghost}")).unwrap();
    let intruder = connect(port, &wrong, &["builtin:random"]);
    let out = dir.join("league");
    // Listening on every address: a warning that the traffic is not encrypted.
    let run = multiversi("league")
        .arg(&config)
        .arg("--listen")
        .arg(format!("0.0.0.0:{port}"))
        .args(&["--remote-wait", "1"])
        .arg("--out")
        .arg(&out)
        .run();
    run.assert_code(4);
    run.assert_stderr_has("warning");
    run.assert_stderr_has("not encrypted");
    run.assert_stderr_has(
        "remote bot ghost is not connected (no connection with its token within 1 s)",
    );
    run.assert_stderr_has("a remote bot plays only while its owner runs multiversi connect");
    // Only the deal without the missing bot counts.
    let records = read_records(&out.join("games.jsonl"));
    assert_eq!(records.len(), 6);
    assert!(records
        .iter()
        .all(|r| r.seats.iter().all(|s| s.name != "ghost")));
    let intruder = intruder.finish();
    intruder.assert_code(2);
    intruder.assert_stderr_has("the server refused the connection: unknown token");
    let log = std::fs::read_to_string(out.join("remote.log")).unwrap();
    assert!(log.contains("refused: unknown token"), "{log}");
    assert!(!log.contains(wrong_text.trim()), "{log}");
}

#[test]
fn token_and_config_mistakes_are_named() {
    let dir = temp_dir("remote-mistakes");
    let (file, lines) = token(&dir, "alice");
    // A token file is never overwritten.
    multiversi("token")
        .arg("alice")
        .arg("--token-file")
        .arg(&file)
        .run()
        .assert_code(5);
    let base = local_bot("r1", "builtin:random")
        + &local_bot("r2", "builtin:random")
        + &local_bot("r3", "builtin:random");
    let config = dir.join("league.toml");
    // The token pasted where its hash belongs.
    let token = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &config,
        format!(
            "{HEAD}{base}[[bot]]\nname = \"alice\"\nremote = {}\n",
            toml_string(token.trim())
        ),
    )
    .unwrap();
    let run = multiversi("league").arg(&config).run();
    run.assert_code(2);
    run.assert_stderr_has("this is a token, not its hash");
    assert!(!run.stderr().contains(token.trim()), "{}", run.stderr());
    // A remote bot needs a place to connect to.
    std::fs::write(&config, format!("{HEAD}{base}{lines}")).unwrap();
    multiversi("league")
        .arg(&config)
        .run()
        .assert_code(2)
        .assert_stderr_has("bot alice is remote: give --listen ADDR");
    // A token file holding the config's hash line instead of the token.
    let hash = dir.join("hash.token");
    std::fs::write(
        &hash,
        lines
            .lines()
            .last()
            .unwrap()
            .replace("remote = ", "")
            .replace('"', ""),
    )
    .unwrap();
    multiversi("connect")
        .args(&["127.0.0.1:9", "--token-file"])
        .arg(&hash)
        .args(&["--", "builtin:random"])
        .run()
        .assert_code(3)
        .assert_stderr_has("holds a token's hash");
    // A file holding something else: named here, not sent for the server to refuse, and not
    // echoed (it may be another secret in the wrong file).
    let garbage = dir.join("garbage.token");
    std::fs::write(&garbage, "hunter2\n").unwrap();
    let run = multiversi("connect")
        .args(&["127.0.0.1:9", "--token-file"])
        .arg(&garbage)
        .args(&["--", "builtin:random"])
        .run();
    run.assert_code(3)
        .assert_stderr_has("not a token: a token is mvt1-, then 64 hexadecimal digits");
    assert!(!run.stderr().contains("hunter2"), "{}", run.stderr());
}
