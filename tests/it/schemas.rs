//! The JSON Schemas under `protocol/` describe exactly what the referee sends and records: every
//! message of a real game and every record line is validated against them with a complete JSON
//! Schema implementation (the `jsonschema` crate: types, constants, enumerations, patterns,
//! bounds, item counts, references). The schemas let readers ignore unknown fields; here every
//! object is also closed (`additionalProperties: false`), so the referee sends no field the
//! schemas do not document.

use crate::support::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

pub(crate) fn load(path: &str) -> Value {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let text = std::fs::read_to_string(&full).expect("schema file");
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    if let Err(e) = jsonschema::meta::validate(&schema) {
        panic!("{path} is not a valid JSON Schema: {e}");
    }
    schema
}

/// The schema with every object that lists its properties closed to other fields.
fn closed(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out: serde_json::Map<String, Value> =
                map.iter().map(|(k, v)| (k.clone(), closed(v))).collect();
            if map.contains_key("properties") && !map.contains_key("additionalProperties") {
                out.insert("additionalProperties".into(), Value::Bool(false));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(closed).collect()),
        other => other.clone(),
    }
}

/// Validates `value` against `schema` (closed); returns every error, one per line.
pub(crate) fn check(value: &Value, schema: &Value) -> Result<(), String> {
    let validator = jsonschema::validator_for(&closed(schema)).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{}: {e}", e.instance_path))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

/// A real match in `dir` with `options`: a built-in bot behind `tee` in seat 0, to see both
/// directions of its pipes, and a bot that plays an illegal move at its third turn, so that the
/// records hold a fault. Returns the files of what the spied bot read, what it wrote, and the
/// records.
pub(crate) fn spied_match(dir: &Path, options: &[&str]) -> (PathBuf, PathBuf, PathBuf) {
    let (input, output, record) = (dir.join("in"), dir.join("out"), dir.join("games.jsonl"));
    let exe = env!("CARGO_BIN_EXE_multiversi");
    let script = format!(
        "tee -a {} | {} bot greedy | tee -a {}",
        shell_word(utf8(&input)),
        shell_word(exe),
        shell_word(utf8(&output))
    );
    let spy = bot_cmd(&["sh", "-c", &script]);
    let pids = dir.join("pids");
    let illegal = bot_cmd(&["python3", &test_bot("bad.py"), utf8(&pids), "illegal", "3"]);
    multiversi("match")
        .args(&[&spy, &illegal, "builtin:random", "builtin:greedy"])
        .args(options)
        .record(&record)
        .ok();
    assert_no_process_left(&pids);
    (input, output, record)
}

#[test]
fn messages_and_records_match_their_schemas() {
    let dir = temp_dir("schemas");
    let (input, output, record) = spied_match(
        &dir,
        &[
            "--games",
            "2",
            "--clock-ms",
            "60000",
            "--increment-ms",
            "10",
            "--blocked",
            "b2",
        ],
    );
    let mut seen = std::collections::BTreeSet::new();
    for file in [&input, &output] {
        for line in std::fs::read_to_string(file).unwrap().lines() {
            let msg: Value = serde_json::from_str(line).unwrap();
            let kind = msg["type"].as_str().unwrap().to_string();
            let schema = load(&format!("protocol/schema/{kind}.json"));
            check(&msg, &schema).unwrap_or_else(|e| panic!("{kind}: {e}\n{line}"));
            if kind == "turn" {
                assert!(!msg["legal"].as_array().unwrap().is_empty(), "{line}");
            }
            seen.insert(kind);
        }
    }
    assert_eq!(
        seen.into_iter().collect::<Vec<_>>(),
        ["end", "move", "ready", "start", "turn"]
    );
    let schema = load("protocol/record.schema.json");
    let records = read_records(&record);
    assert!(records.iter().any(|r| !r.faults.is_empty()));
    for line in std::fs::read_to_string(&record).unwrap().lines() {
        let value: Value = serde_json::from_str(line).unwrap();
        check(&value, &schema).unwrap_or_else(|e| panic!("record: {e}"));
    }
}

#[test]
fn the_checker_notices_what_the_schemas_forbid() {
    let schema = load("protocol/schema/end.json");
    let end = json!({"type": "end", "game": "g", "result": {"kind": "draw"},
        "scores": [1, 2, 3], "rows": vec!["........"; 8], "faults": []});
    check(&end, &schema).expect("a valid end message");
    let refused = |change: &dyn Fn(&mut Value), what: &str| {
        let mut msg = end.clone();
        change(&mut msg);
        assert!(check(&msg, &schema).is_err(), "{what} passed: {msg}");
    };
    refused(&|m| m["extra"] = json!(1), "a stray field");
    refused(
        &|m| {
            m.as_object_mut().unwrap().remove("scores");
        },
        "a missing field",
    );
    refused(
        &|m| m["result"] = json!({"kind": "win"}),
        "a win without winner",
    );

    // Bounds, item counts and patterns, which the protocol's schemas rely on.
    let schema = load("protocol/schema/turn.json");
    let turn = json!({"type": "turn", "game": "g", "ply": 3, "seat": 0,
        "rows": vec!["........"; 8], "moves": [{"ply": 1, "seat": 1, "square": "e6"}],
        "legal": ["g2", "j10"], "kind": "flipping", "time_ms": 500,
        "clocks_ms": [null, 20, null], "out": [2], "last_move_ms": 12.345});
    check(&turn, &schema).expect("a valid turn message");
    let refused = |change: &dyn Fn(&mut Value), what: &str| {
        let mut msg = turn.clone();
        change(&mut msg);
        assert!(check(&msg, &schema).is_err(), "{what} passed: {msg}");
    };
    refused(&|m| m["legal"] = json!([]), "legal empty (minItems)");
    refused(&|m| m["ply"] = json!(-1), "a negative ply (minimum)");
    refused(&|m| m["seat"] = json!(4), "seat 4 (maximum)");
    refused(&|m| m["out"] = json!([7]), "seat 7 out (maximum)");
    refused(
        &|m| m["clocks_ms"] = json!([-5, null, null]),
        "a negative clock",
    );
    refused(&|m| m["last_move_ms"] = json!(-0.5), "a negative move time");
    refused(
        &|m| {
            m.as_object_mut().unwrap().remove("last_move_ms");
        },
        "a turn without last_move_ms",
    );
    refused(
        &|m| m["rows"] = json!(vec!["........"; 7]),
        "7 rows (minItems)",
    );
    refused(
        &|m| m["rows"] = json!(vec!["........"; 11]),
        "11 rows (maxItems)",
    );
    refused(
        &|m| m["rows"][2] = json!("...X...."),
        "a row with X (pattern)",
    );
    refused(&|m| m["legal"][0] = json!("k1"), "square k1 (pattern)");
    refused(&|m| m["legal"][0] = json!("a11"), "square a11 (pattern)");
    refused(&|m| m["legal"][0] = json!("a0"), "square a0 (pattern)");
    refused(
        &|m| m["moves"][0]["square"] = json!("D3"),
        "square D3 (pattern)",
    );
    refused(&|m| m["kind"] = json!("passing"), "an unknown kind (enum)");
    refused(
        &|m| m["time_ms"] = json!(1.5),
        "a fractional time (integer)",
    );
}

/// The echo (`game` in `ready`, `ply` in `move`) is an optional field of version 1: an answer
/// with it and one without both match, and a ply that is no ply does not.
#[test]
fn answers_match_their_schemas_with_and_without_the_echo() {
    let ready = load("protocol/schema/ready.json");
    check(&json!({"type": "ready", "name": "b"}), &ready).expect("a ready without its echo");
    check(
        &json!({"type": "ready", "name": "b", "version": "1", "game": "g-1"}),
        &ready,
    )
    .expect("a ready with its echo");
    assert!(check(&json!({"type": "ready", "game": 7}), &ready).is_err());

    let mv = load("protocol/schema/move.json");
    check(&json!({"type": "move", "square": "d3"}), &mv).expect("a move without its echo");
    check(&json!({"type": "move", "square": "d3", "ply": 14}), &mv).expect("with its echo");
    check(&json!({"type": "move", "square": "d3", "ply": 0}), &mv).expect("at ply 0");
    for ply in [json!(-1), json!(1.5), json!("14")] {
        let line = json!({"type": "move", "square": "d3", "ply": ply});
        assert!(check(&line, &mv).is_err(), "{line} passed");
    }
}

/// The fault kinds' words are written once in the code (`FaultKind::as_str`); the schemas of the
/// record and of the `end` message list the same words, in the same order.
#[test]
fn the_schemas_name_the_fault_kinds_as_the_code_does() {
    let words: Vec<Value> = multiversi::record::FaultKind::ALL
        .iter()
        .map(|k| Value::from(k.as_str()))
        .collect();
    let record = load("protocol/record.schema.json");
    assert_eq!(
        record["properties"]["faults"]["items"]["properties"]["kind"]["enum"],
        Value::Array(words.clone())
    );
    let end = load("protocol/schema/end.json");
    assert_eq!(end["$defs"]["fault_kind"]["enum"], Value::Array(words));
}
