//! The layer rules of ARCHITECTURE.md ("Who may use whom") held against the code: the table there
//! says which top-level modules each module may use, and every `crate::…` path in `src/` (in
//! `use` trees and written inline) must be one the table allows. Test code is left out: a unit
//! test may reach wherever it needs to. Besides, no two top-level modules may use each other,
//! however indirectly: an import circle is a layer that runs back up. A failure names the file,
//! the line, the path and the rule it breaks, so that either the import or the table is changed
//! on purpose.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One row of the table: the modules it is for and what they may use (`run`, or `run::events`
/// for one part of a module), or every module.
struct Rule {
    modules: Vec<String>,
    may_use: Vec<String>,
    everything: bool,
}

/// A use of another module: `target` is the top-level module, `part` the name after it.
#[derive(Debug)]
struct Use {
    file: String,
    line: usize,
    target: String,
    part: Option<String>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The words in backticks of a table cell, those in parentheses (remarks) left out.
fn ticked(cell: &str) -> Vec<String> {
    let mut bare = String::new();
    let mut depth = 0;
    for c in cell.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if depth == 0 => bare.push(c),
            _ => {}
        }
    }
    bare.split('`')
        .skip(1)
        .step_by(2)
        .map(|w| w.trim_end_matches(".rs").trim_end_matches('/').to_string())
        .collect()
}

/// The table under "Who may use whom": rows `| modules | may use |`; a first cell of "every
/// module" makes a row apply to every module, a second cell of "every module" allows everything.
fn rules(architecture: &str) -> (Vec<Rule>, Vec<String>) {
    let section = architecture
        .split("\n## ")
        .find(|s| s.starts_with("Who may use whom"))
        .expect("ARCHITECTURE.md has a section \"Who may use whom\"");
    let mut rules = Vec::new();
    let mut base = Vec::new();
    for row in section.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        let [who, what] = cells[..] else {
            panic!("ARCHITECTURE.md: a row of the layer table has two cells: {row}")
        };
        if who == "module" || who.starts_with("---") {
            continue;
        }
        if who.starts_with("every module") {
            base.extend(ticked(what));
            continue;
        }
        rules.push(Rule {
            modules: ticked(who),
            may_use: ticked(what),
            everything: what.starts_with("every module"),
        });
    }
    assert!(!rules.is_empty(), "ARCHITECTURE.md: no layer table found");
    (rules, base)
}

/// The `.rs` files under `dir`, test-only files (`tests.rs`) left out.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to: `src/run/workers.rs` → `run`, `src/cli.rs` → `cli`.
fn module_of(relative: &Path) -> String {
    let first = relative.components().next().unwrap().as_os_str();
    first.to_string_lossy().trim_end_matches(".rs").to_string()
}

/// The code of a file without its comments and without its test module (from a top-level
/// `#[cfg(test)]` on), line by line.
fn code_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.starts_with("#[cfg(test)]") {
            break;
        }
        let code = match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        };
        lines.push(code.to_string());
    }
    lines
}

/// The top-level names a use tree reaches, each with the name after it: `run::{events::Sink,
/// Run}` → (run, events), (run, Run); `{a::b, c}` → (a, b), (c, none).
fn tree_uses(tree: &str) -> Vec<(String, Option<String>)> {
    /// Splits a group's inside at its top-level commas.
    fn items(inside: &str) -> Vec<&str> {
        let (mut depth, mut start, mut out) = (0, 0, Vec::new());
        for (i, c) in inside.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(&inside[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        out.push(&inside[start..]);
        out.into_iter()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect()
    }
    fn group(tree: &str) -> Option<&str> {
        tree.strip_prefix('{')?.strip_suffix('}')
    }
    let tree = tree.trim();
    let mut out = Vec::new();
    let tops = match group(tree) {
        Some(inside) => items(inside),
        None => vec![tree],
    };
    for top in tops {
        let (name, rest) = match top.split_once("::") {
            Some((name, rest)) => (name, Some(rest)),
            None => (top, None),
        };
        let name = name.split(" as ").next().unwrap_or(name).to_string();
        match rest {
            None => out.push((name, None)),
            Some(rest) => match group(rest) {
                Some(inside) => {
                    for item in items(inside) {
                        let part = item.split("::").next().unwrap_or(item);
                        let part = part.split(" as ").next().unwrap_or(part).trim();
                        let part = (part != "self").then(|| part.to_string());
                        out.push((name.clone(), part));
                    }
                }
                None => {
                    let part = rest.split("::").next().unwrap_or(rest);
                    let part = part.split(" as ").next().unwrap_or(part).trim();
                    out.push((name.clone(), Some(part.to_string())));
                }
            },
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every use of a module of the crate in one file's code: `use crate::…;` trees (over several
/// lines too) and `crate::…` paths written inline.
fn uses_in(file: &str, lines: &[String]) -> Vec<Use> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in lines.iter().enumerate() {
        let number = i + 1;
        let mut rest = line.as_str();
        if let Some((start, mut tree)) = pending.take() {
            match rest.split_once(';') {
                Some((end, after)) => {
                    tree.push_str(end);
                    for (target, part) in tree_uses(&tree) {
                        out.push(Use {
                            file: file.into(),
                            line: start,
                            target,
                            part,
                        });
                    }
                    rest = after;
                }
                None => {
                    tree.push_str(rest);
                    pending = Some((start, tree));
                    continue;
                }
            }
        }
        let trimmed = rest.trim_start();
        let after_use = trimmed
            .strip_prefix("pub(crate) use crate::")
            .or_else(|| trimmed.strip_prefix("pub use crate::"))
            .or_else(|| trimmed.strip_prefix("use crate::"));
        if let Some(tree) = after_use {
            match tree.split_once(';') {
                Some((tree, _)) => {
                    for (target, part) in tree_uses(tree) {
                        out.push(Use {
                            file: file.into(),
                            line: number,
                            target,
                            part,
                        });
                    }
                }
                None => pending = Some((number, tree.to_string())),
            }
            continue;
        }
        let mut at = 0;
        while let Some(found) = rest[at..].find("crate::") {
            let start = at + found;
            at = start + "crate::".len();
            if rest[..start]
                .chars()
                .next_back()
                .is_some_and(|c| is_ident(c) || c == '$')
            {
                continue; // `$crate::`, `mycrate::`
            }
            let path: String = rest[at..]
                .chars()
                .take_while(|&c| is_ident(c) || c == ':')
                .collect();
            let mut names = path.split("::").filter(|s| !s.is_empty());
            let Some(target) = names.next() else { continue };
            out.push(Use {
                file: file.into(),
                line: number,
                target: target.into(),
                part: names.next().map(str::to_string),
            });
        }
    }
    out
}

/// Every use of another top-level module in `src/`, by the module that makes it.
fn crate_uses() -> (BTreeMap<String, Vec<Use>>, BTreeSet<String>) {
    let src = root().join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .map(|f| module_of(f.strip_prefix(&src).unwrap()))
        .filter(|m| m != "lib" && m != "main")
        .collect();
    let mut by_module: BTreeMap<String, Vec<Use>> = BTreeMap::new();
    for path in &files {
        let relative = path.strip_prefix(&src).unwrap();
        let module = module_of(relative);
        let text = std::fs::read_to_string(path).unwrap();
        let name = format!("src/{}", relative.display());
        let uses = uses_in(&name, &code_lines(&text))
            .into_iter()
            // Macros exported at the crate's root (`crate::stderr_line!`) are not modules.
            .filter(|u| modules.contains(&u.target) && u.target != module)
            .collect::<Vec<_>>();
        by_module.entry(module).or_default().extend(uses);
    }
    (by_module, modules)
}

#[test]
fn every_import_keeps_to_the_layer_rules_of_architecture_md() {
    let architecture = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let (rules, base) = rules(&architecture);
    let (uses, modules) = crate_uses();
    let mut broken = Vec::new();
    // The table speaks of the modules there are, and of each once.
    let mut ruled = BTreeMap::new();
    for rule in &rules {
        for module in &rule.modules {
            if ruled.insert(module.clone(), rule).is_some() {
                broken.push(format!("ARCHITECTURE.md: `{module}` has two rows"));
            }
        }
    }
    for name in rules
        .iter()
        .flat_map(|r| r.modules.iter().chain(&r.may_use))
        .chain(&base)
    {
        let top = name.split("::").next().unwrap();
        if !modules.contains(top) && top != "main" {
            broken.push(format!(
                "ARCHITECTURE.md: the layer table names `{name}`, which is no module of src/"
            ));
        }
    }
    for module in &modules {
        if !ruled.contains_key(module) {
            broken.push(format!(
                "ARCHITECTURE.md: `{module}` has no row in the layer table: say what it may use"
            ));
        }
    }
    for (module, uses) in &uses {
        let Some(rule) = ruled.get(module) else {
            continue;
        };
        for u in uses {
            let whole = &u.target;
            let part = u.part.as_ref().map(|p| format!("{whole}::{p}"));
            let allowed = rule.everything
                || base.contains(whole)
                || rule.may_use.contains(whole)
                || part.as_ref().is_some_and(|p| rule.may_use.contains(p));
            if !allowed {
                broken.push(format!(
                    "{}:{}: `{module}` uses `{}`, but ARCHITECTURE.md lets it use only {} and the \
                     base ({})",
                    u.file,
                    u.line,
                    part.as_ref().unwrap_or(whole),
                    rule.may_use
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    base.join(", ")
                ));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "the layer rules are broken:\n{}",
        broken.join("\n")
    );
}

#[test]
fn no_two_top_level_modules_use_each_other_even_through_others() {
    let (uses, _) = crate_uses();
    // One example of each edge, to show where it is made.
    let mut edges: BTreeMap<&str, BTreeMap<&str, &Use>> = BTreeMap::new();
    for (module, uses) in &uses {
        for u in uses {
            edges
                .entry(module)
                .or_default()
                .entry(&u.target)
                .or_insert(u);
        }
    }
    // Depth-first search; a module met again on the current path closes a circle.
    fn visit<'a>(
        at: &'a str,
        edges: &BTreeMap<&'a str, BTreeMap<&'a str, &Use>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
        circles: &mut Vec<String>,
    ) {
        if let Some(from) = path.iter().position(|m| *m == at) {
            let circle = &path[from..];
            let steps: Vec<String> = circle
                .iter()
                .zip(circle.iter().skip(1).chain([&at]))
                .map(|(a, b)| {
                    let u = edges[a][b];
                    format!("`{a}` → `{b}` ({}:{})", u.file, u.line)
                })
                .collect();
            circles.push(steps.join(", "));
            return;
        }
        if !done.insert(at) {
            return;
        }
        path.push(at);
        for next in edges.get(at).into_iter().flat_map(|e| e.keys()) {
            visit(next, edges, path, done, circles);
        }
        path.pop();
    }
    let mut circles = Vec::new();
    let mut done = BTreeSet::new();
    for module in edges.keys() {
        visit(module, &edges, &mut Vec::new(), &mut done, &mut circles);
    }
    assert!(
        circles.is_empty(),
        "import circles between top-level modules:\n{}",
        circles.join("\n")
    );
}

#[test]
fn use_trees_are_read_to_their_top_level_names() {
    let names = |tree: &str| -> Vec<String> {
        tree_uses(tree)
            .into_iter()
            .map(|(t, p)| match p {
                Some(p) => format!("{t}::{p}"),
                None => t,
            })
            .collect()
    };
    assert_eq!(
        names("replay::draw::{board_text, seat_label}"),
        ["replay::draw"]
    );
    assert_eq!(
        names("run::{events::Sink, Run}"),
        ["run::events", "run::Run"]
    );
    assert_eq!(
        names("{exit::{self, fail}, rules}"),
        ["exit", "exit::fail", "rules"]
    );
    assert_eq!(names("rules::Seat as S"), ["rules::Seat"]);
    let lines: Vec<String> = [
        "use crate::process::{",
        "    interrupted, Received,",
        "};",
        "let x = crate::run::lineup::from(1); $crate::no",
    ]
    .map(String::from)
    .to_vec();
    let found: Vec<(usize, String, Option<String>)> = uses_in("f.rs", &lines)
        .into_iter()
        .map(|u| (u.line, u.target, u.part))
        .collect();
    assert_eq!(
        found,
        [
            (1, "process".into(), Some("interrupted".into())),
            (1, "process".into(), Some("Received".into())),
            (4, "run".into(), Some("lineup".into())),
        ]
    );
}
