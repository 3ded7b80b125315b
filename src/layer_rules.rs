//! The layer rules, checked on the source trees of the workspace: a
//! forbidden import fails `cargo test` naming the file and line.
//!
//! - HTTP code (`src/http/**` and every `api.rs`) does not touch store types.
//! - Store code (`src/storage/**`, every `store.rs` and `store/` folder) does
//!   not depend on campaign evaluation (the engine, `rules`, `kinds`).
//! - The rules (`crates/rules`) cannot reach the store, HTTP or a runtime:
//!   their crate does not depend on them ([`the_rules_build_on_no_io_crate`]
//!   checks the manifests), so the compiler refuses any such path. What the
//!   compiler would let through is checked here: they read no file but
//!   through `engine/loader/files.rs`, and no clock.
//! - Time comes from the injected clock ([`crate::common::clock::Clock`]):
//!   no direct `now()` outside the clock itself and the places that need
//!   the wall clock on purpose (time-ordered ids, the ledger's entry order,
//!   the benchmark, scenarios and the CLI).
//!
//! Test modules (from a file's `#[cfg(test)]` on) are not checked.

use std::path::{Path, PathBuf};

/// The source trees checked, from the workspace's root.
const TREES: &[&str] = &["src", "crates/rules/src", "crates/types/src"];

/// The layer a source file belongs to, by where it sits and what it is named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layer {
    Http,
    Store,
    Engine,
    Other,
}

/// The layer of `path`, relative to the workspace's root.
fn layer_of(path: &str) -> Layer {
    let parts: Vec<&str> = path.split('/').collect();
    let file = parts.last().copied().unwrap_or_default();
    let folders = &parts[..parts.len().saturating_sub(1)];
    if path.starts_with("crates/rules/") {
        Layer::Engine
    } else if path.starts_with("src/storage/") || file == "store.rs" || folders.contains(&"store") {
        Layer::Store
    } else if file == "api.rs"
        || path.starts_with("src/http/") && !matches!(file, "service.rs" | "model.rs")
    {
        Layer::Http
    } else {
        Layer::Other
    }
}

/// What a layer may not mention, each with why.
fn forbidden(layer: Layer, path: &str) -> Vec<(&'static str, &'static str)> {
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
        Layer::Engine if path == "crates/rules/src/engine/loader/files.rs" => Vec::new(),
        Layer::Engine => vec![("std::fs", "the rules read files through their loader")],
        Layer::Other => Vec::new(),
    }
}

/// Files that read the wall clock on purpose.
const WALL_CLOCK_READERS: &[&str] = &[
    "src/common/clock.rs",
    "crates/types/src/time.rs",
    "crates/rules/src/common/ids.rs",
    "src/common/stamps.rs",
    "src/layer_rules.rs",
];

/// Folders that read the wall clock on purpose: they measure or drive the
/// service from outside.
const WALL_CLOCK_FOLDERS: &[&str] = &["src/bench/", "src/scenarios/", "src/cli/"];

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

/// Every broken rule in the source trees under `root`, as `file:line: why`.
fn violations(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for tree in TREES {
        rust_files(&root.join(tree), &mut files);
    }
    files.sort();
    let mut found = Vec::new();
    for path in files {
        let relative = path
            .strip_prefix(root)
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
                    found.push(format!("{relative}:{}: `{pattern}`: {why}", index + 1));
                }
            }
        }
    }
    found
}

#[test]
fn every_layer_keeps_to_its_rules() {
    let found = violations(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(
        found.is_empty(),
        "layer rules broken:\n{}",
        found.join("\n")
    );
}

#[test]
fn files_are_placed_in_their_layer() {
    assert_eq!(layer_of("src/http/auth/mod.rs"), Layer::Http);
    assert_eq!(layer_of("src/resources/carts/api.rs"), Layer::Http);
    assert_eq!(layer_of("src/http/idempotency/store.rs"), Layer::Store);
    assert_eq!(
        layer_of("src/resources/points/store/ledger.rs"),
        Layer::Store
    );
    assert_eq!(layer_of("src/storage/group_commit.rs"), Layer::Store);
    assert_eq!(
        layer_of("crates/rules/src/resources/instant_wins/rules/draws.rs"),
        Layer::Engine
    );
    assert_eq!(
        layer_of("crates/rules/src/engine/evaluate.rs"),
        Layer::Engine
    );
    assert_eq!(layer_of("src/http/spec/rules.rs"), Layer::Http);
    assert_eq!(layer_of("src/resources/carts/service.rs"), Layer::Other);
}

#[test]
fn a_forbidden_import_is_caught_with_its_file_and_line() {
    let root = tempfile::tempdir().unwrap();
    let folder = root.path().join("src/resources/shop");
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
    let rules = root.path().join("crates/rules/src/engine");
    std::fs::create_dir_all(&rules).unwrap();
    std::fs::write(
        rules.join("read.rs"),
        "fn read() { std::fs::read(\"x\"); }\n",
    )
    .unwrap();
    let found = violations(root.path());
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(
        found[0].starts_with("crates/rules/src/engine/read.rs:1:"),
        "{found:?}"
    );
    assert!(
        found[1].starts_with("src/resources/shop/api.rs:3:"),
        "{found:?}"
    );
    assert!(
        found[2].starts_with("src/resources/shop/service.rs:1:"),
        "{found:?}"
    );
}

/// The crates the rules may not be built on: the store, HTTP, a runtime.
const IO_CRATES: &[&str] = &["surrealdb", "poem", "poem-openapi", "tokio", "reqwest"];

/// The dependencies a manifest builds its library with, with whether each
/// is optional: its `[dependencies]` and `[target.*.dependencies]` tables,
/// and each `[dependencies.NAME]` table (counted as required).
fn dependencies(manifest: &str) -> Vec<(String, bool)> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let mut names = Vec::new();
    let mut in_dependencies = false;
    for line in text.lines() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            let header = header.trim_end_matches(']');
            // A `[dependencies.NAME]` table's keys are NAME's, not dependencies.
            in_dependencies = header == "dependencies" || header.ends_with(".dependencies");
            if let Some(name) = header.strip_prefix("dependencies.") {
                names.push((name.to_string(), false));
            }
        } else if in_dependencies
            && !line.starts_with('#')
            && let Some((name, spec)) = line.split_once('=')
        {
            names.push((name.trim().to_string(), spec.contains("optional = true")));
        }
    }
    names
}

#[test]
fn the_rules_build_on_no_io_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = |crate_dir: &str| {
        root.join(crate_dir)
            .join("Cargo.toml")
            .to_string_lossy()
            .into_owned()
    };
    let rules = dependencies(&manifest("crates/rules"));
    assert!(rules.iter().any(|(name, _)| name == "rhai"), "{rules:?}");
    let named: Vec<&String> = rules
        .iter()
        .map(|(name, _)| name)
        .filter(|name| IO_CRATES.contains(&name.as_str()))
        .collect();
    assert!(named.is_empty(), "crates/rules depends on {named:?}");
    // The records they share with the API describe their OpenAPI schema
    // only behind a feature the rules do not turn on.
    let types = dependencies(&manifest("crates/types"));
    let required: Vec<&String> = types
        .iter()
        .filter(|(name, optional)| IO_CRATES.contains(&name.as_str()) && !optional)
        .map(|(name, _)| name)
        .collect();
    assert!(required.is_empty(), "crates/types requires {required:?}");
    assert!(
        rules.iter().any(|(name, _)| name == "loyalty-types"),
        "{rules:?}"
    );
    let rules_manifest = std::fs::read_to_string(manifest("crates/rules")).unwrap();
    assert!(
        !rules_manifest.contains("openapi"),
        "crates/rules turns on the types' OpenAPI"
    );
}

#[test]
fn every_way_a_manifest_names_a_dependency_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("Cargo.toml");
    std::fs::write(
        &manifest,
        "[package]\nname = \"x\"\n\n[dependencies]\nrhai = \"1\"\n\
         poem = { version = \"3\", optional = true }\n\n\
         [dependencies.tokio]\nversion = \"1\"\n\n\
         [target.'cfg(unix)'.dependencies]\nsurrealdb = \"3\"\n\n\
         [dev-dependencies]\nreqwest = \"0.12\"\n",
    )
    .unwrap();
    let found = dependencies(&manifest.to_string_lossy());
    assert_eq!(
        found,
        vec![
            ("rhai".to_string(), false),
            ("poem".to_string(), true),
            ("tokio".to_string(), false),
            ("surrealdb".to_string(), false),
        ]
    );
}
