//! Where a rule's expression comes from (file, line, column) and the errors
//! that point there.

use std::fmt;
use std::path::{Path, PathBuf};

use rhai::Position;

/// Where an expression comes from: a file and the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The YAML file.
    pub file: PathBuf,
    /// 1-based line of the expression's first line in that file.
    pub line: usize,
    /// 1-based column where the expression starts on that line (0 when unknown).
    pub column: usize,
}

impl Origin {
    /// The file's line and column (0 when unknown) of `position` within
    /// the expression that starts here.
    pub fn place(&self, position: Position) -> (usize, usize) {
        let script_line = position.line().unwrap_or(1);
        let line = self.line + script_line.saturating_sub(1);
        let column = match (script_line, position.position()) {
            (1, Some(column)) if self.column > 0 => self.column + column - 1,
            (_, Some(column)) => column,
            _ => 0,
        };
        (line, column)
    }

    /// Where `source` starts in `text` (the content of `file`), looking from
    /// the line that defines `anchor` (e.g. `id: gold`) on.
    pub fn locate(file: &Path, text: &str, anchor: Option<&str>, source: &str) -> Origin {
        let lines: Vec<&str> = text.lines().collect();
        let start = anchor
            .and_then(|anchor| lines.iter().position(|line| line.contains(anchor)))
            .unwrap_or(0);
        // Folded YAML scalars join lines, so look for ever shorter prefixes (by
        // words) of the expression's first line.
        let first = source
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("");
        let words: Vec<&str> = first.split_whitespace().collect();
        for take in (1..=words.len()).rev() {
            let prefix = words[..take].join(" ");
            for (offset, line) in lines[start.min(lines.len())..].iter().enumerate() {
                if let Some(column) = line.find(&prefix) {
                    return Origin {
                        file: file.to_path_buf(),
                        line: start + offset + 1,
                        column: column + 1,
                    };
                }
            }
        }
        Origin {
            file: file.to_path_buf(),
            line: if anchor.is_some() && start < lines.len() {
                start + 1
            } else {
                0
            },
            column: 0,
        }
    }
}

/// An error in a rule file or in evaluating one of its expressions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    /// The file.
    pub file: PathBuf,
    /// 1-based line in the file (0 when unknown).
    pub line: usize,
    /// 1-based column in the line (0 when unknown).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl RuleError {
    /// An error at `line` of `file`.
    pub fn new(file: &Path, line: usize, message: impl Into<String>) -> Self {
        RuleError {
            file: file.to_path_buf(),
            line,
            column: 0,
            message: message.into(),
        }
    }

    /// The same error at `column`.
    pub fn with_column(mut self, column: usize) -> Self {
        self.column = column;
        self
    }

    pub fn at(origin: &Origin, position: Position, message: impl Into<String>) -> Self {
        let (line, column) = origin.place(position);
        RuleError::new(&origin.file, line, message).with_column(column)
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:", self.file.display(), self.line)?;
        if self.column > 0 {
            write!(f, "{}:", self.column)?;
        }
        write!(f, " {}", self.message)
    }
}

impl std::error::Error for RuleError {}
