//! What a load did with a Company whose files have problems: each broken
//! file is held back alone. The Company's other files are in force as they
//! are on disk; a held-back file serves its last good version (the text that
//! last loaded, kept in the store so that it survives restarts), or is left
//! out when it never loaded. Said in the log at every load and by the back
//! office (`GET /companies/{slug}/campaigns`); the Company's events are
//! never refused because of one file.

use std::path::PathBuf;

use crate::engine::script::RuleError;

/// What serves in place of a file held back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Serving {
    /// Its last good version.
    LastGood,
    /// Nothing: it never loaded (or its last good version no longer fits
    /// the Company's other files).
    LeftOut,
}

/// One file held back.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldFile {
    /// The file, as the loader names it.
    pub file: PathBuf,
    /// What serves in its place.
    pub serving: Serving,
}

/// A Company's files held back by a load.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldBack {
    /// The Company.
    pub company: String,
    /// The files held back, in path order.
    pub files: Vec<HeldFile>,
    /// Every problem of the files as they are, at its file and line.
    pub problems: Vec<RuleError>,
    /// How many files the Company has.
    pub files_in_all: usize,
}

impl HeldBack {
    /// The files held back that serve `serving`.
    pub fn serving(&self, serving: Serving) -> Vec<PathBuf> {
        self.files
            .iter()
            .filter(|held| held.serving == serving)
            .map(|held| held.file.clone())
            .collect()
    }

    /// Whether no file of the Company is in force or serves a last good
    /// version: it has no rules at all.
    pub fn nothing_loaded(&self) -> bool {
        self.files.len() == self.files_in_all
            && self
                .files
                .iter()
                .all(|held| held.serving == Serving::LeftOut)
    }

    /// What happened, as one sentence for the log and the back office.
    pub fn summary(&self) -> String {
        let list = |files: Vec<PathBuf>| {
            files
                .iter()
                .map(|file| file.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut parts = Vec::new();
        let last_good = self.serving(Serving::LastGood);
        if !last_good.is_empty() {
            parts.push(format!(
                "serving the last good version of {}",
                list(last_good)
            ));
        }
        let left_out = self.serving(Serving::LeftOut);
        if !left_out.is_empty() {
            parts.push(format!(
                "leaving out {} (no good version to serve)",
                list(left_out)
            ));
        }
        let rest = self.files_in_all - self.files.len();
        format!(
            "{}: {} problem(s); {}; its {rest} other file(s) are in force as they are on disk",
            self.company,
            self.problems.len(),
            parts.join("; "),
        )
    }
}
