//! The layer rules, checked on the source tree: a forbidden import fails
//! `cargo test` naming the file and line.
//!
//! - HTTP code (`src/http/**` and every `api.rs`) does not touch store types.
//! - Store code (`src/storage/**`, every `store.rs` and `store/` folder) does
//!   not depend on campaign evaluation (the engine, `rules`, `kinds`).
//! - The engine (`src/engine/**`, every `rules.rs` and `rules/` folder) does
//!   no I/O and reads no clock: no storage, HTTP, tokio, file system or
//!   `now()`. Its one door to the file system is
//!   `engine/loader/files.rs`.
//! - Time comes from the injected clock ([`crate::common::clock::Clock`]):
//!   no direct `now()` outside the clock itself and the places that need
//!   the wall clock on purpose (time-ordered ids, the ledger's entry order,
//!   the benchmark, scenarios and the CLI).
//!
//! Test modules (from a file's `#[cfg(test)]` on) are not checked. What
//! the engine reaches through other modules is checked on the module graph
//! ([`graph`]).

use std::path::{Path, PathBuf};

mod graph;

/// The layer a source file belongs to, by where it sits and what it is named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layer {
    Http,
    Store,
    Engine,
    Other,
}

fn layer_of(relative: &str) -> Layer {
    let parts: Vec<&str> = relative.split('/').collect();
    let file = parts.last().copied().unwrap_or_default();
    let folders = &parts[..parts.len().saturating_sub(1)];
    if relative.starts_with("storage/") || file == "store.rs" || folders.contains(&"store") {
        Layer::Store
    } else if relative.starts_with("engine/") || file == "rules.rs" || folders.contains(&"rules") {
        Layer::Engine
    } else if file == "api.rs"
        || relative.starts_with("http/") && !matches!(file, "service.rs" | "model.rs")
    {
        Layer::Http
    } else {
        Layer::Other
    }
}

/// What a layer may not mention, each with why.
fn forbidden(layer: Layer, relative: &str) -> Vec<(&'static str, &'static str)> {
    match layer {
        Layer::Http => vec![
            ("crate::storage", "HTTP code does not touch the store"),
            ("::store::", "HTTP code does not touch store types"),
            ("surrealdb", "HTTP code does not touch the database"),
        ],
        Layer::Store => vec![
            ("crate::engine", "store code does not depend on the engine"),
            (
                "::rules::",
                "store code does not depend on campaign evaluation",
            ),
        ],
        Layer::Engine if relative == "engine/loader/files.rs" => Vec::new(),
        Layer::Engine => vec![
            ("crate::storage", "the engine does no I/O"),
            ("::store::", "the engine does no I/O"),
            ("surrealdb", "the engine does no I/O"),
            ("crate::http", "the engine knows nothing of HTTP"),
            ("crate::services", "the engine calls no use-case"),
            ("tokio", "the engine does no I/O"),
            ("std::fs", "the engine reads files through its loader"),
        ],
        Layer::Other => Vec::new(),
    }
}

/// Files that read the wall clock on purpose.
const WALL_CLOCK_READERS: &[&str] = &[
    "common/clock.rs",
    "common/time.rs",
    "common/ids.rs",
    "resources/points/store/ledger/mod.rs",
    "layer_rules.rs",
];

/// Folders that read the wall clock on purpose: they measure or drive the
/// service from outside.
const WALL_CLOCK_FOLDERS: &[&str] = &["bench/", "scenarios/", "cli/"];

const CLOCK_READS: &[&str] = &["Utc::now()", "Timestamp::now()", "SystemTime::now()"];

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

/// Every broken rule in the source tree under `src`, as `file:line: why`.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut found = Vec::new();
    for path in files {
        let relative = path
            .strip_prefix(src)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        // A module of tests (`tests.rs`, or a file under a `tests/` folder)
        // is test code throughout, as a file's `#[cfg(test)]` tail is.
        if relative.ends_with("/tests.rs") || relative.contains("/tests/") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let mut rules = forbidden(layer_of(&relative), &relative);
        let wall_clock = WALL_CLOCK_READERS.contains(&relative.as_str())
            || WALL_CLOCK_FOLDERS.iter().any(|f| relative.starts_with(f));
        if !wall_clock {
            rules.extend(
                CLOCK_READS
                    .iter()
                    .map(|read| (*read, "time comes from the injected clock")),
            );
        }
        for (index, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("#[cfg(test)]") {
                break;
            }
            let code = line.split("//").next().unwrap_or_default();
            for (pattern, why) in &rules {
                if code.contains(pattern) {
                    found.push(format!("src/{relative}:{}: `{pattern}`: {why}", index + 1));
                }
            }
        }
    }
    found
}

#[test]
fn every_layer_keeps_to_its_rules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = violations(&src);
    assert!(
        found.is_empty(),
        "layer rules broken:\n{}",
        found.join("\n")
    );
}

#[test]
fn files_are_placed_in_their_layer() {
    assert_eq!(layer_of("http/auth/mod.rs"), Layer::Http);
    assert_eq!(layer_of("resources/carts/api.rs"), Layer::Http);
    assert_eq!(layer_of("http/idempotency/store.rs"), Layer::Store);
    assert_eq!(layer_of("resources/points/store/ledger.rs"), Layer::Store);
    assert_eq!(layer_of("storage/group_commit.rs"), Layer::Store);
    assert_eq!(
        layer_of("resources/instant_wins/rules/draws.rs"),
        Layer::Engine
    );
    assert_eq!(layer_of("resources/discounts/rules.rs"), Layer::Engine);
    assert_eq!(layer_of("engine/evaluate.rs"), Layer::Engine);
    assert_eq!(layer_of("resources/carts/service.rs"), Layer::Other);
}

#[test]
fn a_forbidden_import_is_caught_with_its_file_and_line() {
    let src = tempfile::tempdir().unwrap();
    let folder = src.path().join("resources/shop");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("api.rs"),
        "//! Shop.\n\nuse crate::resources::shop::store::Row;\n",
    )
    .unwrap();
    std::fs::write(
        folder.join("service.rs"),
        "fn stamp() { let _ = chrono::Utc::now(); }\n#[cfg(test)]\nmod tests { fn t() { chrono::Utc::now(); } }\n",
    )
    .unwrap();
    std::fs::write(
        folder.join("tests.rs"),
        "fn t() { let _ = chrono::Utc::now(); }\n",
    )
    .unwrap();
    let found = violations(src.path());
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].starts_with("src/resources/shop/api.rs:3:"),
        "{found:?}"
    );
    assert!(
        found[1].starts_with("src/resources/shop/service.rs:1:"),
        "{found:?}"
    );
}
