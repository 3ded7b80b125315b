//! Problems found in one rule file, each reported at the line of the key it
//! concerns, so authors see `FILE:LINE: message`.

use std::path::Path;

use crate::common::locale::CampaignTime;
use crate::engine::script::RuleError;

/// Reports problems of one file, each at the line of the key it concerns.
pub struct Problems<'a> {
    pub path: &'a Path,
    pub text: &'a str,
    /// What was found so far.
    pub errors: Vec<RuleError>,
}

impl Problems<'_> {
    /// The instant written at `key`, when one is: with an offset, that
    /// instant; without one, that time on the Company's clocks. A problem
    /// when it is neither.
    pub fn time(&mut self, key: &str, value: Option<String>) -> Option<CampaignTime> {
        let value = value?;
        let time = CampaignTime::parse(&value);
        if time.is_none() {
            self.at_key(
                key,
                format!(
                    "`{value}` is not a DateTime such as 2026-01-31T00:00:00Z, or 2026-01-31T00:00:00 on the Company's clocks"
                ),
            );
        }
        time
    }

    /// A problem at the line where `key:` is first written.
    pub fn at_key(&mut self, key: &str, message: impl Into<String>) {
        self.at_key_from(0, key, message);
    }

    /// A problem at the first line from `line` on where `key:` is written.
    pub fn at_key_from(&mut self, line: usize, key: &str, message: impl Into<String>) {
        let line = self.nth_line_from(line, key, 0);
        self.at_line(line, message);
    }

    /// A problem at `line`.
    pub fn at_line(&mut self, line: usize, message: impl Into<String>) {
        self.errors.push(RuleError::new(self.path, line, message));
    }

    /// The line where `key:` is first written (0 when absent).
    pub fn line_of(&self, key: &str) -> usize {
        self.nth_line_from(0, key, 0)
    }

    /// The 1-based line of the `n`th (from 0) `key:` at or after line `from`;
    /// `from` (or 0) when there is none.
    pub fn nth_line_from(&self, from: usize, key: &str, n: usize) -> usize {
        let prefix = format!("{key}:");
        self.text
            .lines()
            .enumerate()
            .skip(from.saturating_sub(1))
            .filter(|(_, line)| {
                let line = line.trim_start();
                line.strip_prefix("- ")
                    .unwrap_or(line)
                    .trim_start_matches(['{', ' '])
                    .starts_with(&prefix)
                    || line.contains(&format!(" {prefix}")) && line.contains('{')
            })
            .nth(n)
            .map_or(from, |(index, _)| index + 1)
    }
}
