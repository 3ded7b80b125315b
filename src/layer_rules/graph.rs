//! The layers checked on the module graph, not on one file's `use` lines:
//! from the engine (`src/engine/**`, every `rules.rs` and `rules/` folder)
//! no chain of module references may reach the store, HTTP, the pipeline or
//! a use-case, however many pure-looking files it passes through.
//!
//! Every `crate::`, `super::` and `self::` path of a file (outside its tests)
//! is an edge to the module file it names. A crossing of the line (an edge
//! from a file the engine reaches without crossing into one it may not reach)
//! fails the test with the chain of files that reaches it; [`CROSSINGS_LEFT`]
//! stays empty.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

/// The crossings the tree still has: (from, to), relative to `src/`. None:
/// a crossing is cut where it appears, never listed.
const CROSSINGS_LEFT: &[(&str, &str)] = &[];

/// Whether a file may be reached from the engine: nothing that does I/O,
/// speaks HTTP, runs the pipeline or is a use-case.
fn reachable_from_the_engine(relative: &str) -> bool {
    let file = relative.rsplit('/').next().unwrap_or_default();
    let folders: Vec<&str> = relative.split('/').collect();
    let folders = &folders[..folders.len().saturating_sub(1)];
    !(relative.starts_with("storage/")
        || relative.starts_with("http/")
        || relative.starts_with("pipeline/")
        || relative.starts_with("cli/")
        || relative == "services.rs"
        || relative == "server.rs"
        || matches!(file, "service.rs" | "store.rs" | "api.rs")
        || folders.contains(&"service")
        || folders.contains(&"store"))
}

/// Where the engine starts: its own folder and every kind's `rules`.
fn in_the_engine(relative: &str) -> bool {
    relative.starts_with("engine/")
        || relative.starts_with("resources/")
            && (relative.ends_with("/rules.rs") || relative.contains("/rules/"))
}

/// The module path of a file: `a/b.rs` and `a/b/mod.rs` are `a::b`.
fn module_of(relative: &str) -> Vec<String> {
    let without = relative.trim_end_matches(".rs");
    let mut parts: Vec<String> = without.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    parts
}

/// The file of the longest prefix of `path` that is a module of `files`.
fn file_of(path: &[String], files: &BTreeSet<String>) -> Option<String> {
    (1..=path.len()).rev().find_map(|n| {
        let base = path[..n].join("/");
        [format!("{base}.rs"), format!("{base}/mod.rs")]
            .into_iter()
            .find(|candidate| files.contains(candidate))
    })
}

/// The code of a file a module graph reads: up to its tests, without
/// comments.
fn code_of(text: &str) -> String {
    let mut code = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        code.push_str(line.split("//").next().unwrap_or_default());
        code.push('\n');
    }
    code
}

/// The paths `text` names after `root::` (at `start`): `a::b::C`, or each
/// leaf of a group `a::{b::C, d}`.
fn paths_at(text: &str, start: usize) -> Vec<Vec<String>> {
    let mut prefix = Vec::new();
    let mut rest = &text[start..];
    loop {
        let length = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if length == 0 {
            break;
        }
        prefix.push(rest[..length].to_string());
        rest = &rest[length..];
        match rest.strip_prefix("::") {
            Some(after) => rest = after,
            None => return vec![prefix],
        }
    }
    let Some(group) = rest.strip_prefix('{') else {
        return vec![prefix];
    };
    // The group's items, split at the commas of its own level.
    let mut items = Vec::new();
    let (mut depth, mut from) = (0, 0);
    for (at, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[from..at]);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[from..at]);
                from = at + 1;
            }
            _ => {}
        }
    }
    let mut paths = Vec::new();
    for item in items {
        let item = item.trim();
        if item.is_empty() || item == "self" {
            paths.push(prefix.clone());
            continue;
        }
        for tail in paths_at(item, 0) {
            paths.push(prefix.iter().cloned().chain(tail).collect());
        }
    }
    paths
}

/// Every file each file names, relative to `src/`.
pub(super) fn edges(sources: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let files: BTreeSet<String> = sources.keys().cloned().collect();
    let mut edges = BTreeMap::new();
    for (relative, text) in sources {
        let code = code_of(text);
        let module = module_of(relative);
        let mut named = BTreeSet::new();
        for (root, base) in [
            ("crate::", Vec::new()),
            ("super::", module[..module.len().saturating_sub(1)].to_vec()),
            ("self::", module.clone()),
        ] {
            for (at, _) in code.match_indices(root) {
                let before = code[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                for path in paths_at(&code, at + root.len()) {
                    let full: Vec<String> = base.iter().cloned().chain(path).collect();
                    if let Some(target) = file_of(&full, &files)
                        && target != *relative
                    {
                        named.insert(target);
                    }
                }
            }
        }
        edges.insert(relative.clone(), named);
    }
    edges
}

/// The crossings of the line: each edge from a file the engine reaches
/// (without crossing) into one it may not reach, with the chain of files
/// from the engine that leads to it.
pub(super) fn crossings(
    edges: &BTreeMap<String, BTreeSet<String>>,
) -> BTreeMap<(String, String), Vec<String>> {
    let mut came_from: BTreeMap<&str, Option<&str>> = BTreeMap::new();
    let mut queue = VecDeque::new();
    for file in edges.keys().filter(|file| in_the_engine(file)) {
        came_from.insert(file, None);
        queue.push_back(file.as_str());
    }
    let mut found = BTreeMap::new();
    while let Some(file) = queue.pop_front() {
        for target in edges.get(file).into_iter().flatten() {
            if !reachable_from_the_engine(target) {
                let mut chain = vec![target.clone(), file.to_string()];
                let mut at = file;
                while let Some(Some(previous)) = came_from.get(at) {
                    chain.push(previous.to_string());
                    at = previous;
                }
                chain.reverse();
                found
                    .entry((file.to_string(), target.clone()))
                    .or_insert(chain);
            } else if !came_from.contains_key(target.as_str()) {
                came_from.insert(target, Some(file));
                queue.push_back(target);
            }
        }
    }
    found
}

/// Every `.rs` file under `src`, relative to it, with its text; test
/// modules left out.
fn sources(src: &Path) -> BTreeMap<String, String> {
    let mut paths = Vec::new();
    super::rust_files(src, &mut paths);
    paths
        .into_iter()
        .filter_map(|path| {
            let relative = path
                .strip_prefix(src)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            if relative.ends_with("/tests.rs") || relative.contains("/tests/") {
                return None;
            }
            Some((relative, std::fs::read_to_string(&path).ok()?))
        })
        .collect()
}

/// The files the engine reaches without crossing: where the rules crate's
/// code will come from.
fn reached(edges: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<String> {
    let mut reached: BTreeSet<String> = edges
        .keys()
        .filter(|file| in_the_engine(file))
        .cloned()
        .collect();
    let mut queue: VecDeque<String> = reached.iter().cloned().collect();
    while let Some(file) = queue.pop_front() {
        for target in edges.get(&file).into_iter().flatten() {
            if reachable_from_the_engine(target) && reached.insert(target.clone()) {
                queue.push_back(target.clone());
            }
        }
    }
    reached
}

/// The crates the rules crate may not depend on, as a path names them.
const IO_CRATES: &[&str] = &["surrealdb::", "tokio::", "poem::", "poem_openapi::"];

/// The I/O crates each reached file's code names.
fn crates_named(sources: &BTreeMap<String, String>, file: &str) -> Vec<&'static str> {
    let code = code_of(&sources[file]);
    IO_CRATES
        .iter()
        .copied()
        .filter(|name| {
            code.match_indices(name).any(|(at, _)| {
                !code[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        })
        .collect()
}

#[test]
fn what_the_engine_reaches_names_no_io_crate() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let sources = sources(&src);
    let reached = reached(&edges(&sources));
    let mut found = Vec::new();
    for file in &reached {
        let named = crates_named(&sources, file);
        if !named.is_empty() {
            found.push(format!("  src/{file}: {}", named.join(", ")));
        }
    }
    assert!(
        found.is_empty(),
        "files the engine reaches name I/O crates:\n{}",
        found.join("\n")
    );
}

#[test]
fn no_chain_of_modules_leads_from_the_engine_to_io() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = crossings(&edges(&sources(&src)));
    let left: BTreeSet<(String, String)> = CROSSINGS_LEFT
        .iter()
        .map(|(from, to)| (from.to_string(), to.to_string()))
        .collect();
    let new: Vec<String> = found
        .iter()
        .filter(|(edge, _)| !left.contains(*edge))
        .map(|(_, chain)| format!("  {}", chain.join(" -> ")))
        .collect();
    let cut: Vec<String> = left
        .iter()
        .filter(|edge| !found.contains_key(*edge))
        .map(|(from, to)| format!("  ({from:?}, {to:?})"))
        .collect();
    assert!(
        new.is_empty(),
        "the engine reaches I/O, HTTP, the pipeline or a use-case:\n{}",
        new.join("\n")
    );
    assert!(
        cut.is_empty(),
        "crossings cut: take them out of CROSSINGS_LEFT:\n{}",
        cut.join("\n")
    );
}

#[test]
fn a_chain_through_pure_looking_files_is_caught() {
    let sources: BTreeMap<String, String> = [
        (
            "engine/kinds.rs",
            "use crate::resources::shop::rules::Offer;\n",
        ),
        (
            "resources/shop/rules.rs",
            "use crate::resources::shop::{limits::{MAX, MIN}, model};\n",
        ),
        ("resources/shop/limits.rs", "pub use super::service::MAX;\n"),
        (
            "resources/shop/model.rs",
            "// crate::storage::Store in a comment\n",
        ),
        ("resources/shop/service.rs", "use crate::storage::Store;\n"),
        ("storage/mod.rs", ""),
    ]
    .into_iter()
    .map(|(file, text)| (file.to_string(), text.to_string()))
    .collect();
    let edges = edges(&sources);
    assert_eq!(
        edges["resources/shop/rules.rs"],
        BTreeSet::from([
            "resources/shop/limits.rs".to_string(),
            "resources/shop/model.rs".to_string()
        ])
    );
    assert!(
        edges["resources/shop/model.rs"].is_empty(),
        "comments name nothing"
    );
    let found = crossings(&edges);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[&(
            "resources/shop/limits.rs".to_string(),
            "resources/shop/service.rs".to_string()
        )],
        [
            "resources/shop/rules.rs",
            "resources/shop/limits.rs",
            "resources/shop/service.rs"
        ]
    );
}
