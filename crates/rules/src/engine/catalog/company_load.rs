//! One Company's load: its files compiled together, and each file with a
//! problem held back alone, its last good version (or nothing) in its place,
//! until what is left compiles.

use std::path::{Path, PathBuf};

use super::{Catalog, CompanyRules, GoodFile, history_days};
use crate::engine::campaign::Campaign;
use crate::engine::check::Known;
use crate::engine::check::check_segments;
use crate::engine::held_back::{HeldBack, HeldFile, Serving};
use crate::engine::script::RuleError;
use crate::resources::cashback::rules::CASHBACK_FILE;
use crate::resources::cashback::rules::Cashback;
use crate::resources::segments::rules::SEGMENTS_FILE;
use crate::resources::segments::rules::Segments;

/// The version of a file a load compiles.
enum Version {
    /// As it is on disk.
    OnDisk(String),
    /// Its last good version, the one on disk having a problem.
    LastGood(String),
    /// None: left out.
    Out,
}

impl Version {
    fn text(&self) -> Option<&str> {
        match self {
            Version::OnDisk(text) | Version::LastGood(text) => Some(text),
            Version::Out => None,
        }
    }
}

/// What one Company's load came to.
pub(super) struct CompanyLoad {
    pub(super) rules: CompanyRules,
    /// The files held back, when any is.
    pub(super) held: Option<HeldBack>,
    /// The files in force as they are on disk, with their text.
    pub(super) on_disk: Vec<(PathBuf, String)>,
}

impl Catalog {
    /// The files of `on_disk` whose text is not their last good version
    /// yet, now taken as it.
    pub(super) fn newly_good(&self, company: &str, on_disk: &[(PathBuf, String)]) -> Vec<GoodFile> {
        let Ok(mut last_good) = self.last_good.write() else {
            return Vec::new();
        };
        let mut newly = Vec::new();
        for (path, text) in on_disk {
            let key = (
                company.to_string(),
                self.loader.within_company(company, path),
            );
            if last_good.get(&key) != Some(text) {
                last_good.insert(key.clone(), text.clone());
                newly.push(GoodFile {
                    company: key.0,
                    file: key.1,
                    text: text.clone(),
                });
            }
        }
        newly
    }

    /// Loads one Company's `files`: every problem of the files as they are,
    /// each file with one held back (its last good version in its place, or
    /// none), until what is left compiles together.
    pub(super) fn load_company(&self, company: &str, files: &[PathBuf]) -> CompanyLoad {
        let last_good = |path: &Path| {
            let key = (
                company.to_string(),
                self.loader.within_company(company, path),
            );
            self.last_good
                .read()
                .ok()
                .and_then(|last_good| last_good.get(&key).cloned())
        };
        let mut problems = Vec::new();
        let mut versions: Vec<(PathBuf, Version)> = files
            .iter()
            .map(|path| match self.loader.read(path) {
                Ok(text) => (path.clone(), Version::OnDisk(text)),
                Err(e) => {
                    problems.push(RuleError::new(path, 0, format!("cannot read: {e}")));
                    let version = last_good(path).map_or(Version::Out, Version::LastGood);
                    (path.clone(), version)
                }
            })
            .collect();
        // Each round holds back at least one more file, so it ends.
        let rules = loop {
            let texts: Vec<(PathBuf, String)> = versions
                .iter()
                .filter_map(|(path, version)| Some((path.clone(), version.text()?.to_string())))
                .collect();
            let errors = match self.compile(&texts) {
                Ok(rules) => break rules,
                Err(errors) => errors,
            };
            let mut held_more = false;
            for (path, version) in &mut versions {
                let file_errors: Vec<&RuleError> =
                    errors.iter().filter(|error| error.file == *path).collect();
                if file_errors.is_empty() {
                    continue;
                }
                held_more = true;
                *version = match version {
                    Version::OnDisk(text) => {
                        // Problems of a last good version are not the
                        // author's to fix: only those of the files as
                        // they are.
                        problems.extend(file_errors.into_iter().cloned());
                        match last_good(path) {
                            Some(good) if good != *text => Version::LastGood(good),
                            _ => Version::Out,
                        }
                    }
                    Version::LastGood(_) | Version::Out => Version::Out,
                }
            }
            if !held_more {
                // Problems no file is named by: nothing can be told to
                // load, so nothing does.
                problems.extend(errors);
                for (_, version) in &mut versions {
                    *version = Version::Out;
                }
            }
        };
        let held: Vec<HeldFile> = versions
            .iter()
            .filter_map(|(path, version)| match version {
                Version::OnDisk(_) => None,
                Version::LastGood(_) => Some(HeldFile {
                    file: path.clone(),
                    serving: Serving::LastGood,
                }),
                Version::Out => Some(HeldFile {
                    file: path.clone(),
                    serving: Serving::LeftOut,
                }),
            })
            .collect();
        problems.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
        problems.dedup();
        CompanyLoad {
            rules,
            held: (!held.is_empty()).then(|| HeldBack {
                company: company.to_string(),
                files: held,
                problems,
                files_in_all: files.len(),
            }),
            on_disk: versions
                .into_iter()
                .filter_map(|(path, version)| match version {
                    Version::OnDisk(text) => Some((path, text)),
                    _ => None,
                })
                .collect(),
        }
    }

    /// Compiles one Company's files (path and text); all problems at once.
    fn compile(&self, files: &[(PathBuf, String)]) -> Result<CompanyRules, Vec<RuleError>> {
        let mut errors = Vec::new();
        let mut segments = Segments::default();
        let mut cashback = Cashback::default();
        let mut campaign_files = Vec::new();
        for (path, text) in files {
            if path.file_name().is_some_and(|name| name == SEGMENTS_FILE) {
                match Segments::parse(&self.engine, path, text) {
                    Ok(parsed) => segments = parsed,
                    Err(mut problems) => errors.append(&mut problems),
                }
            } else if path.file_name().is_some_and(|name| name == CASHBACK_FILE) {
                match Cashback::parse(path, text) {
                    Ok(parsed) => cashback = parsed,
                    Err(mut problems) => errors.append(&mut problems),
                }
            } else {
                campaign_files.push((path.clone(), text.clone()));
            }
        }
        // Conditions are checked against the tiers and audiences of the
        // Company's segments, when they load.
        let known = errors.is_empty().then(|| Known::of(&segments));
        if known.is_some() {
            errors.extend(check_segments(&segments, self.engine.functions()));
        }
        let campaigns = Campaign::load_all_checked(&self.engine, &campaign_files, known.as_ref())
            .unwrap_or_else(|mut problems| {
                errors.append(&mut problems);
                Vec::new()
            });
        if errors.is_empty() {
            let history_days = history_days(
                segments
                    .sources()
                    .chain(campaigns.iter().flat_map(Campaign::sources)),
            );
            Ok(CompanyRules {
                segments,
                campaigns,
                cashback,
                history_days,
            })
        } else {
            Err(errors)
        }
    }
}
