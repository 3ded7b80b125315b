//! What a reload did with a Company whose files have a problem: the set is
//! loaded whole or not at all, so every one of its files is held back (valid
//! edits to the others included) and the previous set stays in force. Said
//! in the log at every reload and by the back office
//! (`GET /companies/{slug}/campaigns`).

use std::path::PathBuf;

use crate::engine::script::RuleError;

/// A Company's files held back by a reload.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldBack {
    /// The Company.
    pub company: String,
    /// Every file of its set, all held back.
    pub files: Vec<PathBuf>,
    /// Every problem, at its file and line.
    pub problems: Vec<RuleError>,
    /// How many campaigns stay in force from the previous set; `None` when
    /// the Company's files never loaded (its events are refused).
    pub previous_campaigns: Option<usize>,
}

impl HeldBack {
    /// The files that have problems, each once, in order.
    pub fn files_with_problems(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = Vec::new();
        for problem in &self.problems {
            if !files.contains(&problem.file) {
                files.push(problem.file.clone());
            }
        }
        files
    }

    /// What happened, as one sentence for the log and the back office.
    pub fn summary(&self) -> String {
        let broken: Vec<String> = self
            .files_with_problems()
            .iter()
            .map(|file| file.display().to_string())
            .collect();
        let kept = match self.previous_campaigns {
            Some(campaigns) => format!(
                "the previous version of the set ({campaigns} campaigns) stays in force, and edits to its other files wait until these are fixed"
            ),
            None => "the Company's files never loaded, so its events are refused (`campaigns_unavailable`) until they are fixed".to_string(),
        };
        format!(
            "{}: {} problem(s) in {} of its {} files ({}); the whole set is held back: {kept}",
            self.company,
            self.problems.len(),
            broken.len(),
            self.files.len(),
            broken.join(", ")
        )
    }
}
