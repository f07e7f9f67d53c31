//! The starter bots in `bots/` (Python, JavaScript, C, Rust), run as real processes.
//!
//! Each bot is built if it needs building (gcc for C, cargo for the standalone Rust crate, both
//! into `CARGO_TARGET_TMPDIR`), then checked two ways:
//! - a fixed transcript piped in at once: hand-made positions whose greedy answer is known (a line
//!   of mixed colours and a neutral disc closed by our disc; a line that only a bot treating a
//!   blocked square as a disc would count), a placing turn, unknown message types and fields, a
//!   second game after an `end`, and exit when stdin closes;
//! - whole games against a small referee written here on the rules engine: every move the bot
//!   sends must be legal and be the first legal move that flips the most discs, across several
//!   games in one process (8x8, 10x10, octagon; 3 and 4 players; blocked squares; anti), one of
//!   them with turn messages that carry no `legal` list, so the bot must find its moves itself;
//! - real `multiversi match` runs against built-in bots: no fault, greedy moves, records replay.
//!
//! The toolchains (python3, node, gcc, cargo) must be installed; a missing one fails the test.

use crate::support::{bot, check_record, multiversi, read_records, repo, temp_dir, Bot};
use multiversi::rng::Rng;
use multiversi::rules::{BoardKind, Colour, MoveKind, Position, Rules, Square};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;
use wait_timeout::ChildExt;

/// How long a bot may take for one answer or to exit; generous, for a loaded machine.
const PATIENCE: Duration = Duration::from_secs(20);

/// A running bot process: lines to its stdin, its stdout lines through a channel (so a silent bot
/// fails the test after `PATIENCE` instead of hanging it), its stderr kept for failure messages.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: Arc<Mutex<String>>,
}

impl Session {
    fn start(bot: &Bot) -> Session {
        let mut child = Command::new(&bot.command[0])
            .args(&bot.command[1..])
            // A bot must flush by itself, as it would on a user's machine.
            .env_remove("PYTHONUNBUFFERED")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", bot.command));
        let (tx, lines) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err = child.stderr.take().unwrap();
        let sink = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = err.read(&mut buf) {
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Session {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
        }
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        writeln!(stdin, "{message}")
            .and_then(|_| stdin.flush())
            .unwrap_or_else(|e| panic!("bot stopped reading ({e}); stderr:\n{}", self.stderr()));
    }

    fn send_raw(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// The bot's next line, which must be a JSON object with the given `type`.
    fn reply(&mut self, kind: &str) -> Value {
        let line = self.lines.recv_timeout(PATIENCE).unwrap_or_else(|e| {
            panic!(
                "no `{kind}` from the bot ({e:?}); stderr:\n{}",
                self.stderr()
            )
        });
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("bot line is not JSON ({e}): {line:?}"));
        assert_eq!(message["type"], kind, "expected a `{kind}`, got {line:?}");
        message
    }

    /// Closes stdin; the bot must exit cleanly and must not have written anything more.
    fn finish(mut self) -> ExitStatus {
        drop(self.stdin.take());
        let status = self
            .child
            .wait_timeout(PATIENCE)
            .unwrap()
            .unwrap_or_else(|| {
                let _ = self.child.kill();
                panic!(
                    "bot did not exit after stdin closed; stderr:\n{}",
                    self.stderr()
                )
            });
        let extra: Vec<String> = self.lines.try_iter().collect();
        assert!(extra.is_empty(), "unexpected extra output: {extra:?}");
        status
    }
}

// ------------------------------------------------------------------ the fixed transcript

/// Two games piped in at once, with hand-made positions. Returns the bot's stdout lines.
fn transcript_check(bot: &Bot) {
    let blank8 = "........";
    let start1 = json!({"type":"start","protocol":1,"game":"t-1","seat":1,"colour":"white",
        "players":[{"seat":0,"colour":"black","name":"a"},{"seat":1,"colour":"white","name":"me"},
                   {"seat":2,"colour":"red","name":"b"},{"seat":3,"colour":"green","name":"c"}],
        "rules":{"players":4,"board":"8x8","anti":false,"blocked":["b8"]},"size":8,
        "rows":[blank8,blank8,blank8,"...BW...","...GR...",blank8,blank8,".#......"],
        "time":{"move_ms":1000,"clock_ms":null,"increment_ms":0,"startup_ms":10000},
        "future_field":{"nested":[1,"]}"]}});
    // White (W) to move. c6 flips d5 (1). g8 flips g7 (1); westwards R R R R then the blocked b8
    // and a W behind it: a bot treating `#` as a disc would count 5 more. a4 flips the line
    // B N R closed by e4 (3): the greedy move, found only if the neutral disc counts as a disc
    // that is not ours.
    let turn1 = json!({"type":"turn","game":"t-1","ply":9,"seat":1,
        "rows":[blank8,blank8,blank8,".BNRW...","...GR...","......W.","......R.","W#RRRR.."],
        "moves":[{"ply":8,"seat":0,"square":"b4"}],"legal":["c6","g8","a4"],"kind":"flipping",
        "time_ms":1000,"clocks_ms":[null,null,null,null],"hint":"ignore me"});
    let end1 = json!({"type":"end","game":"t-1","result":{"kind":"win","winner":2},
        "scores":[10,14,25,9],"rows":[blank8,blank8,blank8,blank8,blank8,blank8,blank8,blank8],
        "faults":[]});
    let blank10 = "..........";
    let centre = "....BW....";
    let start2 = json!({"type":"start","protocol":1,"game":"t-2","seat":2,"colour":"red",
        "players":[{"seat":0,"colour":"black","name":"a"},{"seat":1,"colour":"white","name":"b"},
                   {"seat":2,"colour":"red","name":"me"}],
        "rules":{"players":3,"board":"10x10","anti":true,"blocked":[]},"size":10,
        "rows":[blank10,blank10,blank10,blank10,centre,"....NR....",blank10,blank10,blank10,blank10],
        "time":{"move_ms":1000,"clock_ms":60000,"increment_ms":100,"startup_ms":10000}});
    // Red (R) has no disc left, so nothing flips: a placing turn, any listed square is fine.
    let turn2 = json!({"type":"turn","game":"t-2","ply":2,"seat":2,
        "rows":[blank10,blank10,blank10,blank10,centre,"....NB....",blank10,blank10,blank10,blank10],
        "moves":[{"ply":0,"seat":0,"square":"g6"},{"ply":1,"seat":1,"square":"d4"}],
        "legal":["g7","d4","e4","f4"],"kind":"placing","time_ms":1000,
        "clocks_ms":[59000,59500,60000]});
    let end2 = json!({"type":"end","game":"t-2","result":{"kind":"draw"},"scores":[20,20,20],
        "rows":[],"faults":[{"seat":0,"kind":"timeout","ply":1}]});
    let input = [
        start1.to_string(),
        json!({"type":"gossip","text":"an unknown message: ignore it"}).to_string(),
        turn1.to_string(),
        String::new(),
        end1.to_string(),
        start2.to_string(),
        turn2.to_string(),
        end2.to_string(),
    ]
    .join("\n")
        + "\n";

    let mut session = Session::start(bot);
    session.send_raw(&input);
    let ready = session.reply("ready");
    assert_eq!(ready["name"], bot.name);
    assert_eq!(session.reply("move")["square"], "a4", "the greedy move");
    assert_eq!(session.reply("ready")["name"], bot.name);
    let square = session.reply("move")["square"].clone();
    assert!(
        ["g7", "d4", "e4", "f4"].iter().any(|s| square == *s),
        "placing move {square} is not one of the listed squares"
    );
    let status = session.finish();
    assert!(status.success(), "exit status {status}");
}

// ------------------------------------------------------------------ whole games

struct Game {
    name: &'static str,
    rules: Rules,
    /// The bot's seat.
    seat: usize,
    /// Send turn messages without `legal` and `kind`: the bot must find its moves itself.
    hide_legal: bool,
    seed: u64,
}

fn games() -> Vec<Game> {
    let sq = |s: &str| s.parse::<Square>().unwrap();
    let blocked = |list: &[&str]| list.iter().map(|s| sq(s)).collect::<Vec<_>>();
    vec![
        Game {
            name: "8x8-4p",
            rules: Rules::new(4, BoardKind::Eight, false).unwrap(),
            seat: 1,
            hide_legal: false,
            seed: 1,
        },
        Game {
            name: "10x10-3p-blocked",
            rules: Rules::with_blocked(
                3,
                BoardKind::Ten,
                false,
                blocked(&["c3", "d7", "f4", "g8", "h2", "b9"]),
            )
            .unwrap(),
            seat: 2,
            hide_legal: false,
            seed: 2,
        },
        Game {
            name: "octagon-4p-anti",
            rules: Rules::new(4, BoardKind::Octagon, true).unwrap(),
            seat: 0,
            hide_legal: false,
            seed: 3,
        },
        Game {
            name: "8x8-3p-blocked-no-legal-list",
            rules: Rules::with_blocked(
                3,
                BoardKind::Eight,
                false,
                blocked(&["c3", "f3", "c6", "f6", "b5", "g4"]),
            )
            .unwrap(),
            seat: 0,
            hide_legal: true,
            seed: 4,
        },
        Game {
            name: "8x8-4p-seat-3",
            rules: Rules::new(4, BoardKind::Eight, false).unwrap(),
            seat: 3,
            hide_legal: true,
            seed: 5,
        },
    ]
}

/// What the bot's moves were, over all games.
#[derive(Default)]
struct Tally {
    flipping: usize,
    placing: usize,
}

/// Plays one game with the bot in `game.seat` and the other seats playing random legal moves,
/// checking every move of the bot.
fn play(session: &mut Session, bot: &Bot, game: &Game, tally: &mut Tally) {
    let rules = &game.rules;
    let mut pos = Position::new(rules.clone());
    let mut rng = Rng::new(game.seed);
    let players: Vec<Value> = (0..rules.players as usize)
        .map(|s| json!({"seat": s, "colour": Colour::of_seat(s).name(), "name": format!("p{s}")}))
        .collect();
    session.send(&json!({
        "type": "start", "protocol": 1, "game": game.name, "seat": game.seat,
        "colour": Colour::of_seat(game.seat).name(), "players": players,
        "rules": serde_json::to_value(rules).unwrap(), "size": rules.side(), "rows": pos.rows(),
        "time": {"move_ms": 1000, "clock_ms": null, "increment_ms": 0, "startup_ms": 10000},
    }));
    let ready = session.reply("ready");
    assert_eq!(ready["name"], bot.name);

    let mut since_last = Vec::new();
    while !pos.is_over() {
        let seat = pos.to_move();
        let (legal, kind) = pos.legal_moves();
        let square = if seat == game.seat {
            let mut turn = json!({
                "type": "turn", "game": game.name, "ply": pos.ply(), "seat": seat,
                "rows": pos.rows(), "moves": since_last, "time_ms": 1000,
                "clocks_ms": vec![Value::Null; rules.players as usize],
            });
            if !game.hide_legal {
                turn["legal"] = json!(legal.iter().map(Square::to_string).collect::<Vec<_>>());
                turn["kind"] = serde_json::to_value(kind).unwrap();
            }
            session.send(&turn);
            since_last.clear();
            let reply = session.reply("move");
            let name = reply["square"].as_str().expect("square is a string");
            let square: Square = name.parse().expect("a square name");
            let played = pos
                .check(square)
                .unwrap_or_else(|e| panic!("{}, ply {}: {e}\n{pos}", game.name, pos.ply()));
            // Greedy: the first legal square (board order) among those that flip the most.
            let flips = |sq: &Square| pos.check(*sq).unwrap().flips.len();
            let most = legal.iter().map(flips).max().unwrap();
            let expected = legal.iter().find(|sq| flips(sq) == most).unwrap();
            assert_eq!(
                square,
                *expected,
                "{}, ply {}: played {name} flipping {}, the greedy move flips {most}\n{pos}",
                game.name,
                pos.ply(),
                played.flips.len()
            );
            match kind {
                MoveKind::Flipping => tally.flipping += 1,
                MoveKind::Placing => tally.placing += 1,
            }
            square
        } else {
            legal[rng.below(legal.len() as u64) as usize]
        };
        since_last.push(json!({"ply": pos.ply(), "seat": seat, "square": square.to_string()}));
        pos.play(square).unwrap();
    }
    let result = serde_json::to_value(pos.outcome().unwrap()).unwrap();
    session.send(&json!({
        "type": "end", "game": game.name, "result": result, "scores": pos.scores(),
        "rows": pos.rows(), "faults": [],
    }));
}

fn games_check(bot: &Bot) {
    let mut session = Session::start(bot);
    let mut tally = Tally::default();
    for game in games() {
        play(&mut session, bot, &game, &mut tally);
    }
    // The games are fixed (seeded), so these hold for a correct bot; they make sure both kinds
    // of turn were really exercised.
    assert!(
        tally.flipping >= 40,
        "only {} flipping turns",
        tally.flipping
    );
    assert!(tally.placing >= 1, "no placing turn was played");
    let status = session.finish();
    assert!(status.success(), "exit status {status}");
}

// ------------------------------------------------------------------ real matches

/// Plays the bot in a real `multiversi match` against built-in bots (one bot process for all the
/// games, seats rotating) and checks: exit code 0; in the record, no fault of the bot, every game
/// replays, and each of the bot's moves was the first legal move that flips the most; in the bot's
/// log, one `end` seen per game.
fn match_check(bot: &Bot, label: &str, options: &[&str], opponents: &[&str]) {
    let players = opponents.len() + 1;
    let dir = temp_dir(&format!("{}-{label}", bot.name));
    let (record, logs) = (dir.join("games.jsonl"), dir.join("logs"));
    multiversi("match")
        .current_dir(repo())
        .env_remove("PYTHONUNBUFFERED")
        .args(&["--move-ms", "5000", "--games", &players.to_string()])
        .args(options)
        .record(&record)
        .arg("--log-dir")
        .arg(&logs)
        .arg(&bot.arg)
        .args(opponents)
        .ok();
    let records = read_records(&record);
    assert_eq!(records.len(), players, "{label}: one record per game");
    let mut seats = Vec::new();
    for r in &records {
        let seat = r
            .seats
            .iter()
            .position(|s| s.ready.as_ref().and_then(|i| i.name.as_deref()) == Some(bot.name))
            .unwrap_or_else(|| {
                panic!(
                    "{label}: no seat answered ready as {}; faults: {:?}",
                    bot.name, r.faults
                )
            });
        assert!(
            r.faults.iter().all(|f| f.seat != seat),
            "{label}: the starter faulted: {:?}",
            r.faults
        );
        check_record(r);
        let mut pos = Position::new(r.rules.clone());
        let mut faults = r.faults.iter().peekable();
        let mut own = 0;
        for m in &r.moves {
            while let Some(f) = faults.next_if(|f| f.ply <= m.ply) {
                pos.remove_seat(f.seat);
            }
            if m.seat == seat {
                let (legal, _) = pos.legal_moves();
                let flips = |sq: &Square| pos.check(*sq).unwrap().flips.len();
                let most = legal.iter().map(flips).max().unwrap();
                let greedy = legal.iter().find(|sq| flips(sq) == most).unwrap();
                assert_eq!(m.square, *greedy, "{label}, game {}, ply {}", r.game, m.ply);
                own += 1;
            }
            pos.play(m.square).unwrap();
        }
        assert!(own > 0, "{label}: the starter never moved in {}", r.game);
        seats.push(seat);
    }
    seats.sort_unstable();
    assert_eq!(
        seats,
        (0..players).collect::<Vec<_>>(),
        "{label}: seats rotate"
    );
    let log = std::fs::read_dir(&logs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("bot1-")
        })
        .unwrap_or_else(|| panic!("{label}: no log of the starter in {}", logs.display()));
    let log = std::fs::read_to_string(log).unwrap();
    assert_eq!(
        log.matches(" over: ").count(),
        players,
        "{label}: the starter logs each end it sees:\n{log}"
    );
}

fn matches_check(bot: &Bot) {
    match_check(
        bot,
        "8x8-4p",
        &["--seed", "11"],
        &["builtin:greedy", "builtin:greedy", "builtin:random"],
    );
    match_check(
        bot,
        "octagon-3p-anti-blocked",
        &[
            "--seed",
            "12",
            "--board",
            "octagon",
            "--anti",
            "--blocked-random",
            "5",
        ],
        &["builtin:greedy", "builtin:random"],
    );
}

#[test]
fn python_starter_transcript() {
    transcript_check(&bot("python"));
}

#[test]
fn python_starter_plays_greedy_through_several_games() {
    games_check(&bot("python"));
}

#[test]
fn js_starter_transcript() {
    transcript_check(&bot("js"));
}

#[test]
fn js_starter_plays_greedy_through_several_games() {
    games_check(&bot("js"));
}

#[test]
fn c_starter_transcript() {
    transcript_check(&bot("c"));
}

#[test]
fn c_starter_plays_greedy_through_several_games() {
    games_check(&bot("c"));
}

#[test]
fn rust_starter_transcript() {
    transcript_check(&bot("rust"));
}

#[test]
fn rust_starter_plays_greedy_through_several_games() {
    games_check(&bot("rust"));
}

#[test]
fn python_starter_plays_real_matches_without_faults() {
    matches_check(&bot("python"));
}

#[test]
fn js_starter_plays_real_matches_without_faults() {
    matches_check(&bot("js"));
}

#[test]
fn c_starter_plays_real_matches_without_faults() {
    matches_check(&bot("c"));
}

#[test]
fn rust_starter_plays_real_matches_without_faults() {
    matches_check(&bot("rust"));
}
