//! The JSON Schemas under `protocol/` describe exactly what the referee sends and records: every
//! message of a real game and every record line is checked against them (fields, required
//! fields, types, constants and enumerations; patterns are left to full validators).

use crate::support::*;
use serde_json::Value;
use std::path::Path;

fn load(path: &str) -> Value {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let text = std::fs::read_to_string(&full).expect("schema file");
    serde_json::from_str(&text).expect("schema is JSON")
}

/// Checks `value` against `schema`; returns the first mismatch as a path and a reason.
fn check(value: &Value, schema: &Value, root: &Value, path: &str) -> Result<(), String> {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r.trim_start_matches("#/$defs/");
        return check(value, &root["$defs"][name], root, path);
    }
    if let Some(options) = schema.get("oneOf").and_then(Value::as_array) {
        let fits = options
            .iter()
            .filter(|o| check(value, o, root, path).is_ok())
            .count();
        return if fits == 1 {
            Ok(())
        } else {
            Err(format!("{path}: fits {fits} of the oneOf branches"))
        };
    }
    if let Some(c) = schema.get("const") {
        if c != value {
            return Err(format!("{path}: {value} is not {c}"));
        }
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array) {
        if !e.contains(value) {
            return Err(format!("{path}: {value} is not one of {e:?}"));
        }
    }
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let actual = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        let ok = types.contains(&actual) || (actual == "integer" && types.contains(&"number"));
        if !ok {
            return Err(format!("{path}: a {actual}, not {types:?}"));
        }
    }
    if let (Some(props), Some(obj)) = (
        schema.get("properties").and_then(Value::as_object),
        value.as_object(),
    ) {
        for (key, v) in obj {
            let sub = props
                .get(key)
                .ok_or_else(|| format!("{path}: field '{key}' is not in the schema"))?;
            check(v, sub, root, &format!("{path}.{key}"))?;
        }
        for req in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let key = req.as_str().unwrap_or_default();
            if !obj.contains_key(key) {
                return Err(format!("{path}: required field '{key}' is missing"));
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), value.as_array()) {
        for (i, v) in arr.iter().enumerate() {
            check(v, items, root, &format!("{path}[{i}]"))?;
        }
    }
    Ok(())
}

#[test]
fn messages_and_records_match_their_schemas() {
    let dir = temp_dir("schemas");
    let (input, output, record) = (dir.join("in"), dir.join("out"), dir.join("games.jsonl"));
    let exe = env!("CARGO_BIN_EXE_multiversi");
    // A built-in bot behind `tee`, to see both directions of its pipes.
    let spy = format!(
        "sh -c 'tee -a {} | {exe} bot greedy | tee -a {}'",
        input.display(),
        output.display()
    );
    let illegal = format!(
        "python3 {}/tests/bots/bad.py {} illegal 3",
        env!("CARGO_MANIFEST_DIR"),
        dir.join("pids").display()
    );
    let out = run(&[
        "match",
        &spy,
        &illegal,
        "builtin:random",
        "builtin:greedy",
        "--games",
        "2",
        "--clock-ms",
        "60000",
        "--increment-ms",
        "10",
        "--blocked",
        "b2",
        "--record",
        record.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    crate::faults::assert_no_process_left(&dir.join("pids"));
    let mut seen = std::collections::BTreeSet::new();
    for file in [&input, &output] {
        for line in std::fs::read_to_string(file).unwrap().lines() {
            let msg: Value = serde_json::from_str(line).unwrap();
            let kind = msg["type"].as_str().unwrap().to_string();
            let schema = load(&format!("protocol/schema/{kind}.json"));
            check(&msg, &schema, &schema, &kind).unwrap_or_else(|e| panic!("{e}\n{line}"));
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
        check(&value, &schema, &schema, "record").unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn the_checker_notices_a_stray_or_missing_field() {
    let schema = load("protocol/schema/end.json");
    let mut msg: Value = serde_json::json!({"type": "end", "game": "g", "result": {"kind": "draw"},
        "scores": [1, 2, 3], "rows": ["........"], "faults": []});
    assert!(check(&msg, &schema, &schema, "end").is_ok());
    msg["extra"] = Value::from(1);
    assert!(check(&msg, &schema, &schema, "end").is_err());
    msg.as_object_mut().unwrap().remove("extra");
    msg.as_object_mut().unwrap().remove("scores");
    assert!(check(&msg, &schema, &schema, "end").is_err());
    msg["scores"] = serde_json::json!([1, 2, 3]);
    msg["result"] = serde_json::json!({"kind": "win"});
    assert!(check(&msg, &schema, &schema, "end").is_err());
}
