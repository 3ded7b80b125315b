//! The documentation a newcomer walks: the README stays a short door into
//! `docs/`, every relative link and anchor of the Markdown files leads
//! somewhere, and no pasted test output passes for documentation.

use std::collections::BTreeSet;
use std::path::PathBuf;

/// The repository's root, where Cargo.toml is.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every Markdown file a reader is sent to: the top-level ones, the book
/// under `docs/`, and the authors' and QA's references.
fn markdown_files() -> Vec<PathBuf> {
    let root = root();
    let mut files: Vec<PathBuf> = [
        "README.md",
        "CONTRIBUTING.md",
        "BENCHMARKS.md",
        "RELIABILITY.md",
        "campaigns/README.md",
        "scenarios/README.md",
    ]
    .iter()
    .map(|name| root.join(name))
    .collect();
    let mut folders = vec![root.join("docs")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("docs/ is readable") {
            let path = entry.expect("a docs/ entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|ext| ext == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The anchor GitHub gives a heading: lower case, punctuation dropped,
/// spaces made hyphens.
fn anchor_of(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings (outside code blocks).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut in_code = false;
    let mut found = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            found.insert(anchor_of(line.trim_start_matches('#')));
        }
    }
    found
}

/// The targets of a text's inline links `[text](target)`, outside code
/// blocks, with their line numbers.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut in_code = false;
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let mut rest = line;
        while let Some(start) = rest.find("](") {
            let after = &rest[start + 2..];
            let Some(end) = after.find(')') else { break };
            found.push((number + 1, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    found
}

#[test]
fn every_relative_link_and_anchor_of_the_docs_leads_somewhere() {
    let mut broken = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).expect("a Markdown file is readable");
        let folder = file.parent().expect("a file has a folder");
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let linked = if path.is_empty() {
                file.clone()
            } else {
                folder.join(path)
            };
            let place = format!("{}:{line}: {target}", file.display());
            if !linked.exists() {
                broken.push(format!("{place}: no such file"));
                continue;
            }
            if let Some(anchor) = anchor
                && linked.extension().is_some_and(|ext| ext == "md")
            {
                let headings =
                    anchors(&std::fs::read_to_string(&linked).expect("a linked file is readable"));
                if !headings.contains(anchor) {
                    broken.push(format!("{place}: no heading with that anchor"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_is_a_short_door_into_the_book() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let lines = readme.lines().count();
    assert!(
        lines < 250,
        "README.md has {lines} lines: what it is, run it, test it, a first cart and links \
         fit in 250; the rest belongs in docs/"
    );
    for page in [
        "docs/README.md",
        "docs/architecture.md",
        "docs/http.md",
        "docs/errors.md",
        "docs/operating.md",
        "docs/deploy.md",
    ] {
        assert!(
            readme.contains(&format!("]({page}")),
            "README.md links {page}"
        );
    }
}

#[test]
fn no_document_holds_pasted_test_output() {
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).expect("a Markdown file is readable");
        for marker in ["stack backtrace:", "rust_begin_unwind", "panicked at"] {
            assert!(
                !text.contains(marker),
                "{} holds pasted test output ({marker})",
                file.display()
            );
        }
    }
}

#[test]
fn the_crate_map_reads_in_100_columns() {
    let map = std::fs::read_to_string(root().join("src/lib.rs")).expect("src/lib.rs");
    let long: Vec<String> = map
        .lines()
        .enumerate()
        .filter(|(_, line)| line.chars().count() > 100)
        .map(|(number, line)| format!("src/lib.rs:{}: {} columns", number + 1, line.len()))
        .collect();
    assert!(long.is_empty(), "{}", long.join("\n"));
}

/// A link checker that cannot fail checks nothing: it must see a broken
/// link and a broken anchor.
#[test]
fn the_link_checker_sees_broken_links() {
    let text = "# Title\n\n## Two words\n[a](#two-words) [b](#three)\n```\n[c](nowhere)\n```\n";
    assert_eq!(
        links(text),
        vec![(4, "#two-words".to_string()), (4, "#three".to_string())]
    );
    let headings = anchors(text);
    assert!(headings.contains("two-words"));
    assert!(!headings.contains("three"));
    assert_eq!(
        anchor_of(" `loyalty bench`: the figures"),
        "loyalty-bench-the-figures"
    );
}
