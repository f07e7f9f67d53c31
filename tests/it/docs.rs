//! The documentation against the program: every example message and record in `protocol/`
//! (PROTOCOL.md, RECORD.md, transcript.txt) has the fields a real run writes, of the same types,
//! and passes its schema; every game id in the docs has the shape of a real one; and the docs
//! call the program one way. A change to what the program writes that the docs do not follow
//! fails here, so the docs cannot drift from it again.

use crate::schemas::{check, load, spied_match};
use crate::support::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The docs a person reads to use the program or write a bot.
const DOCS: &[&str] = &[
    "README.md",
    "bots/README.md",
    "protocol/PROTOCOL.md",
    "protocol/RECORD.md",
    "protocol/RULES.md",
    "protocol/STANDINGS.md",
    "protocol/transcript.txt",
];

fn doc(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The ```json blocks of a Markdown text, each with the line it starts on.
fn json_blocks(text: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        match (&mut open, line.trim_start()) {
            (None, "```json") => open = Some((i + 1, String::new())),
            (Some(_), "```") => blocks.extend(open.take()),
            (Some((_, block)), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

/// Where the documented value differs from the real one in its fields or their types: an object
/// must have exactly the real object's fields, an array's items the shape of the real array's
/// first item. `null` stands for any value (a first turn's `last_move_ms`, a seat with no ready).
fn differences(doc: &Value, real: &Value, at: &str, out: &mut Vec<String>) {
    match (doc, real) {
        (Value::Null, _) | (_, Value::Null) => {}
        // A result of another kind (a draw where the docs show a win) has other fields: the
        // real game decides its kind, and the schema checks each kind's fields.
        (Value::Object(d), Value::Object(r))
            if at.ends_with(".result") && d["kind"] != r["kind"] => {}
        (Value::Object(d), Value::Object(r)) => {
            let missing: Vec<&String> = r.keys().filter(|k| !d.contains_key(*k)).collect();
            let unknown: Vec<&String> = d.keys().filter(|k| !r.contains_key(*k)).collect();
            if !missing.is_empty() || !unknown.is_empty() {
                out.push(format!(
                    "{at}: the docs lack {missing:?} and have {unknown:?}, which a real run \
                     does not write"
                ));
            }
            for (key, value) in d {
                if let Some(real) = r.get(key) {
                    differences(value, real, &format!("{at}.{key}"), out);
                }
            }
        }
        (Value::Array(d), Value::Array(r)) => {
            if let Some(first) = r.first() {
                for (i, item) in d.iter().enumerate() {
                    differences(item, first, &format!("{at}[{i}]"), out);
                }
            }
        }
        (Value::Bool(_), Value::Bool(_))
        | (Value::Number(_), Value::Number(_))
        | (Value::String(_), Value::String(_)) => {}
        _ => out.push(format!(
            "{at}: the docs show {doc}, a real run writes {real}"
        )),
    }
}

/// The shape of a game id: its parts between dashes, each as its length and whether it is all
/// digits, all hexadecimal or other text (`20261129-115226-3f9a0c21-0001` is 8 digits, 6 digits,
/// 8 hex digits, 4 digits). A random tag that happens to hold no letter is still hexadecimal.
fn id_shape(id: &str) -> Vec<(usize, &'static str)> {
    id.split('-')
        .map(|part| {
            let class = if part.chars().all(|c| c.is_ascii_hexdigit()) {
                "hex"
            } else {
                "text"
            };
            (part.len(), class)
        })
        .collect()
}

/// Every match game id in a text: a date of 8 digits, a dash, a time of 6 digits, and whatever
/// dash-joined letters and digits follow.
fn match_ids(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut ids = Vec::new();
    let mut i = 0;
    while i + 15 <= bytes.len() {
        let starts = (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
            && bytes[i..i + 8].iter().all(u8::is_ascii_digit)
            && bytes[i + 8] == b'-'
            && bytes[i + 9..i + 15].iter().all(u8::is_ascii_digit);
        if !starts {
            i += 1;
            continue;
        }
        let mut end = i + 15;
        while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'-') {
            end += 1;
        }
        ids.push(text[i..end].trim_end_matches('-').to_string());
        i = end;
    }
    ids
}

/// What a real match writes: the messages of each type (one of each, as the spy saw them) and
/// its records.
struct RealRun {
    messages: BTreeMap<String, Value>,
    records: Vec<Value>,
    seed: u64,
}

fn real_match(dir: &Path) -> RealRun {
    let seed = 5;
    let (input, output, record) = spied_match(dir, &["--games", "2", "--seed", &seed.to_string()]);
    let mut messages = BTreeMap::new();
    for file in [&input, &output] {
        for line in std::fs::read_to_string(file).unwrap().lines() {
            let msg: Value = serde_json::from_str(line).unwrap();
            let kind = msg["type"].as_str().unwrap().to_string();
            // A turn after the bot's first, so that `last_move_ms` is a number.
            if kind == "turn" && msg["last_move_ms"].is_null() {
                continue;
            }
            messages.entry(kind).or_insert(msg);
        }
    }
    let records: Vec<Value> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(records
        .iter()
        .any(|r| !r["faults"].as_array().unwrap().is_empty()));
    RealRun {
        messages,
        records,
        seed,
    }
}

/// The record a real run writes that is most like the docs' example: one with a fault.
fn record_with_fault(run: &RealRun) -> &Value {
    run.records
        .iter()
        .find(|r| !r["faults"].as_array().unwrap().is_empty())
        .unwrap()
}

#[test]
fn documented_messages_records_and_ids_are_what_a_real_run_writes() {
    let dir = temp_dir("docs-examples");
    let run = real_match(&dir);
    let mut problems = Vec::new();
    let mut shown = BTreeMap::<String, usize>::new();
    let compare = |source: String, example: &Value, problems: &mut Vec<String>| {
        let (schema, real) = if example["format"] == "multiversi-game" {
            (load("protocol/record.schema.json"), record_with_fault(&run))
        } else {
            let kind = example["type"].as_str().unwrap_or("?");
            let Some(real) = run.messages.get(kind) else {
                problems.push(format!("{source}: a message of type {kind:?}, never sent"));
                return;
            };
            (load(&format!("protocol/schema/{kind}.json")), real)
        };
        if let Err(e) = check(example, &schema) {
            problems.push(format!("{source}: does not pass its schema: {e}"));
        }
        let mut found = Vec::new();
        differences(example, real, &source, &mut found);
        problems.extend(found);
    };

    // The messages of PROTOCOL.md and the example record of RECORD.md, one per ```json block.
    for path in ["protocol/PROTOCOL.md", "protocol/RECORD.md"] {
        for (line, block) in json_blocks(&doc(path)) {
            // RECORD.md shows its record wrapped, with the middle of `moves` left out.
            let text = block.replace(", …]", "]").replace('\n', "");
            let example: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{path}:{line}: the example is not JSON: {e}"));
            let kind = example["type"]
                .as_str()
                .or(example["format"].as_str())
                .unwrap_or("?");
            *shown.entry(kind.to_string()).or_default() += 1;
            compare(format!("{path}:{line}"), &example, &mut problems);
        }
    }
    // The transcript: a real game, every line whole.
    for (i, line) in doc("protocol/transcript.txt").lines().enumerate() {
        let Some(message) = line.strip_prefix("> ").or(line.strip_prefix("< ")) else {
            continue;
        };
        let example: Value = serde_json::from_str(message)
            .unwrap_or_else(|e| panic!("transcript.txt:{}: not JSON: {e}", i + 1));
        compare(
            format!("protocol/transcript.txt:{}", i + 1),
            &example,
            &mut problems,
        );
    }
    assert_eq!(
        shown.keys().collect::<Vec<_>>(),
        ["end", "move", "multiversi-game", "ready", "start", "turn"],
        "the docs show one example of every message and a record"
    );

    // Every match game id the docs mention has the shape of the ids a real match gives (or of
    // the match's own id, a record's `schedule.run`: the game id without its number).
    let real_id = run.records[0]["game"].as_str().unwrap();
    let real_run = run.records[0]["schedule"]["run"].as_str().unwrap();
    assert_eq!(run.messages["start"]["game"], real_id);
    assert!(real_id.starts_with(real_run), "{real_id} {real_run}");
    for path in DOCS {
        for (n, line) in doc(path).lines().enumerate() {
            for id in match_ids(line) {
                if id_shape(&id) != id_shape(real_id) && id_shape(&id) != id_shape(real_run) {
                    problems.push(format!(
                        "{path}:{}: game id {id} is not shaped like a real one ({real_id})",
                        n + 1
                    ));
                }
            }
        }
    }

    // RECORD.md: a match's seed is `--seed` plus the deal's index.
    for record in &run.records {
        let deal = record["schedule"]["deal"].as_u64().unwrap();
        assert_eq!(record["seed"].as_u64(), Some(run.seed + deal), "{record}");
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// A league's game ids as RECORD.md spells them (`club-r1-1.2.3.4-8x8-s05`): the same parts as
/// the ids a real league gives.
#[test]
fn the_documented_league_game_id_is_what_a_real_league_writes() {
    let dir = temp_dir("docs-league-ids");
    let bot = toml_string(&bot_cmd(&[env!("CARGO_BIN_EXE_multiversi"), "bench-bot"]));
    let mut config = "name = \"club\"\nseed = 1\nplayers = 4\nmove_ms = 2000\n".to_string();
    for i in 0..4 {
        config += &format!("[[bot]]\nname = \"b{i}\"\ncommand = {bot}\n");
    }
    let path = dir.join("club.toml");
    std::fs::write(&path, config).unwrap();
    let out = dir.join("out");
    multiversi("league")
        .args(&[utf8(&path), "--out", utf8(&out)])
        .run()
        .assert_ok();
    let records = read_records(&out.join("games.jsonl"));
    let documented = "club-r1-1.2.3.4-8x8-s05";
    assert!(doc("protocol/RECORD.md").contains(&format!("(`{documented}`)")));
    // Digits may differ; the parts and their separators may not.
    let shape = |id: &str| -> String {
        let mut s = String::new();
        for c in id.chars() {
            if c.is_ascii_digit() {
                if !s.ends_with('9') {
                    s.push('9');
                }
            } else {
                s.push(c);
            }
        }
        s
    };
    assert!(
        records.iter().any(|r| r.game == documented),
        "{:?}",
        records.iter().map(|r| &r.game).collect::<Vec<_>>()
    );
    for r in &records {
        assert_eq!(shape(&r.game), shape(documented), "{}", r.game);
    }
}

/// The docs call the program `multiversi` (installed once with `cargo install --path .`, which
/// each README says before its first command), with `cargo run --release --` only in the README's
/// first screen, before the install step; never `target/release/multiversi`.
#[test]
fn the_docs_call_the_program_one_way() {
    const SUBCOMMANDS: &[&str] = &[
        "match",
        "league",
        "check-bot",
        "replay",
        "standings",
        "perft",
        "bot",
    ];
    let mut problems = Vec::new();
    for path in DOCS {
        let text = doc(path);
        let install = text.find("cargo install --path .");
        let first_section = text.find("\n## ").unwrap_or(text.len());
        for (n, line) in text.lines().enumerate() {
            let at = format!("{path}:{}", n + 1);
            for other in ["target/release/multiversi", "target/debug/multiversi"] {
                // The program itself, not a starter's binary (`…/multiversi-starter`).
                let named = line.match_indices(other).any(|(i, _)| {
                    let next = line[i + other.len()..].chars().next();
                    !next.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
                });
                if named {
                    problems.push(format!("{at}: {other} (write multiversi)"));
                }
            }
        }
        for (i, _) in text.match_indices("cargo run --release --") {
            let rest = &text[i + "cargo run --release --".len()..];
            if rest.starts_with("example") {
                continue;
            }
            if *path != "README.md" || i > first_section {
                let line = text[..i].lines().count();
                problems.push(format!(
                    "{path}:{line}: cargo run --release -- outside the README's first screen \
                     (write multiversi)"
                ));
            }
        }
        // The first command that calls the program comes after the install step, in every doc
        // that has commands (the protocol's pages name it only in passing).
        if !path.ends_with("README.md") {
            continue;
        }
        let first_use = SUBCOMMANDS
            .iter()
            .filter_map(|sub| text.find(&format!("multiversi {sub} ")))
            .min();
        match (install, first_use) {
            (Some(install), Some(used)) if used < install => problems.push(format!(
                "{path}:{}: multiversi used before the install step (cargo install --path .)",
                text[..used].lines().count()
            )),
            (None, Some(_)) => problems.push(format!("{path}: no install step")),
            _ => {}
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// RECORD.md's example is the record its command writes (the command it names, run in a
/// directory laid out like the repository's top): every field a run decides, move and fault
/// included, is the one shown; only the id, the times and the moves' `ms` may differ.
#[test]
fn the_example_record_is_the_one_its_command_writes() {
    let text = doc("protocol/RECORD.md");
    let block = json_blocks(&text)
        .into_iter()
        .map(|(_, b)| b)
        .find(|b| b.contains("\"multiversi-game\""))
        .expect("RECORD.md has an example record");
    let example: Value = serde_json::from_str(&block.replace(", …]", "]").replace('\n', ""))
        .expect("the example is JSON");
    let dir = temp_dir("docs-record-example");
    std::fs::create_dir_all(dir.join("tests/bots")).unwrap();
    std::fs::copy(test_bot("bad.py"), dir.join("tests/bots/bad.py")).unwrap();
    let record = dir.join("games.jsonl");
    multiversi("match")
        .args(&[
            "python3 tests/bots/bad.py pids illegal 2 0",
            "builtin:random",
            "builtin:greedy",
            "builtin:random",
            "--seed",
            "5",
            "--games",
            "1",
        ])
        .record(&record)
        .current_dir(&dir)
        .ok();
    assert_no_process_left(&dir.join("pids"));
    let real: Value =
        serde_json::from_str(std::fs::read_to_string(&record).unwrap().trim()).unwrap();
    let regenerate = format!("the real record, to show in RECORD.md:\n{real}");
    for key in [
        "format",
        "version",
        "rules",
        "seed",
        "seats",
        "initial_rows",
        "faults",
        "final_rows",
        "scores",
        "result",
        "ranking",
    ] {
        assert_eq!(example[key], real[key], "{key} differs; {regenerate}");
    }
    let without_ms = |m: &Value| {
        let mut m = m.clone();
        m.as_object_mut().unwrap().remove("ms");
        m
    };
    let shown = example["moves"].as_array().unwrap();
    assert!(!shown.is_empty());
    for (i, m) in shown.iter().enumerate() {
        assert_eq!(
            without_ms(m),
            without_ms(&real["moves"][i]),
            "move {i} differs; {regenerate}"
        );
    }
    let schedule = |r: &Value| {
        let mut s = r["schedule"].clone();
        s.as_object_mut().unwrap().remove("run");
        s
    };
    assert_eq!(schedule(&example), schedule(&real), "{regenerate}");
}

/// PROTOCOL.md's "A whole game" shows the beginning of transcript.txt: each line it shows is a
/// line of the transcript with parts left out (`…`), in the transcript's order.
#[test]
fn the_protocols_excerpt_is_the_transcripts_beginning() {
    let protocol = doc("protocol/PROTOCOL.md");
    let section = protocol
        .split("## A whole game")
        .nth(1)
        .expect("PROTOCOL.md has \"A whole game\"");
    let excerpt: Vec<&str> = section
        .split("```")
        .nth(1)
        .expect("a block")
        .lines()
        .filter(|l| l.starts_with("> ") || l.starts_with("< "))
        .collect();
    assert!(excerpt.len() >= 4, "{excerpt:?}");
    let transcript = doc("protocol/transcript.txt");
    let mut lines = transcript
        .lines()
        .filter(|l| l.starts_with("> ") || l.starts_with("< "));
    for shown in excerpt {
        let parts: Vec<&str> = shown.split('…').filter(|p| !p.is_empty()).collect();
        let holds = |line: &str| {
            let mut rest = line;
            parts.iter().all(|part| match rest.find(part) {
                Some(at) => {
                    rest = &rest[at + part.len()..];
                    true
                }
                None => false,
            })
        };
        assert!(
            lines.any(holds),
            "PROTOCOL.md shows a line the transcript does not have (in this order): {shown}"
        );
    }
}
