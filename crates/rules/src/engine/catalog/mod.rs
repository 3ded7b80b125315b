//! The rules of every Company, loaded through a
//! [`crate::engine::loader::CampaignLoader`] and reloaded when a file changes.
//! A file with a problem is held back alone ([`HeldBack`]): its last good
//! version serves in its place, or nothing when it never loaded, and the
//! Company's other files load as they are.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use crate::engine::campaign::Campaign;
use crate::engine::held_back::HeldBack;
use crate::engine::loader::CampaignLoader;
use crate::engine::loader::MemoryLoader;
use crate::engine::loader::Stamp;
use crate::engine::loader::files::FileSystemLoader;
use crate::engine::script::RuleError;
use crate::engine::script::ScriptEngine;
use crate::resources::cashback::rules::Cashback;
use crate::resources::segments::rules::Segments;

mod company_load;

/// The compiled rules of one Company.
#[derive(Debug, Clone, Default)]
pub struct CompanyRules {
    /// Tiers, audiences and calculated attributes.
    pub segments: Segments,
    /// Campaigns, by ascending id.
    pub campaigns: Vec<Campaign>,
    /// Points-to-wallet conversion (`cashback.yaml`).
    pub cashback: Cashback,
    /// How many days of purchases the expressions look back at through
    /// `history`; `None` when none does, so no purchase list is read.
    pub history_days: Option<i64>,
}

/// Longest look-back when an expression's window is not a literal number.
const MAX_HISTORY_DAYS: i64 = 3650;

/// The look-back, in days, of the `history` calls in `sources`.
fn history_days<'a>(sources: impl Iterator<Item = &'a str>) -> Option<i64> {
    let mut days: Option<i64> = None;
    for source in sources {
        for (index, _) in source.match_indices("history.") {
            let call = &source[index + "history.".len()..];
            let window = if call.starts_with("days_since") {
                MAX_HISTORY_DAYS
            } else {
                call.split_once('(')
                    .and_then(|(_, rest)| rest.split_once(')'))
                    .and_then(|(argument, _)| argument.trim().parse::<i64>().ok())
                    .map_or(MAX_HISTORY_DAYS, |n| n.clamp(0, MAX_HISTORY_DAYS))
            };
            days = Some(days.map_or(window, |d| d.max(window)));
        }
    }
    days
}

/// A campaign file's last good version: its text when it last loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct GoodFile {
    /// The Company.
    pub company: String,
    /// The file within the Company's folder (`campaigns/weekend.yaml`).
    pub file: PathBuf,
    /// Its text.
    pub text: String,
}

/// Every Company's rules, swapped atomically on reload.
#[derive(Debug)]
pub struct Catalog {
    engine: ScriptEngine,
    loader: Box<dyn CampaignLoader>,
    loaded: RwLock<Loaded>,
    /// Each file's last good version, by Company and file within it.
    last_good: RwLock<HashMap<(String, PathBuf), String>>,
}

#[derive(Debug, Default)]
struct Loaded {
    /// What evaluation sees: each Company's file rules with its API campaigns.
    companies: HashMap<String, Arc<CompanyRules>>,
    /// Each Company's rules from its files alone.
    files: HashMap<String, Arc<CompanyRules>>,
    /// Campaigns created through the API, per Company.
    api: HashMap<String, Vec<Campaign>>,
    /// Each Company's files and their modification times as last read, to notice changes.
    stamps: HashMap<String, Vec<(PathBuf, Stamp)>>,
    /// Companies whose last load held files back, with what it held back.
    held_back: HashMap<String, HeldBack>,
}

/// The outcome of a (re)load.
#[derive(Debug, Default)]
pub struct LoadReport {
    /// Companies whose files all loaded as they are.
    pub loaded: Vec<String>,
    /// Problems, with file and line.
    pub errors: Vec<RuleError>,
    /// The Companies that have files held back, with what serves in their
    /// place (their other files loaded).
    pub held_back: Vec<HeldBack>,
    /// Files that loaded as they are and are not yet kept as their last
    /// good version: the caller keeps them where the next start finds them
    /// ([`Catalog::keep_last_good`]).
    pub good_files: Vec<GoodFile>,
}

impl Loaded {
    /// Rebuilds what evaluation sees of `company`: its file rules plus its
    /// API campaigns, by id.
    fn combine(&mut self, company: &str) {
        let files = self.files.get(company).cloned().unwrap_or_default();
        let api = self.api.get(company).map(Vec::as_slice).unwrap_or_default();
        let combined = if api.is_empty() {
            files
        } else {
            let mut rules = (*files).clone();
            rules.campaigns.extend(api.iter().cloned());
            rules.campaigns.sort_by_key(|c| c.id);
            rules.history_days = history_days(
                rules
                    .segments
                    .sources()
                    .chain(rules.campaigns.iter().flat_map(Campaign::sources)),
            );
            Arc::new(rules)
        };
        self.companies.insert(company.to_string(), combined);
    }
}

impl Catalog {
    /// A catalog of the campaign directory `dir`, loaded now.
    pub fn load(dir: &Path) -> (Catalog, LoadReport) {
        Catalog::with_loader(Box::new(FileSystemLoader::new(dir)))
    }

    /// A catalog of the files `loader` gives, loaded now.
    pub fn with_loader(loader: Box<dyn CampaignLoader>) -> (Catalog, LoadReport) {
        Catalog::with_last_good(loader, Vec::new())
    }

    /// A catalog of the files `loader` gives, loaded now, a file with a
    /// problem served by its version in `last_good` (kept by earlier loads).
    pub fn with_last_good(
        loader: Box<dyn CampaignLoader>,
        last_good: Vec<GoodFile>,
    ) -> (Catalog, LoadReport) {
        let catalog = Catalog {
            engine: ScriptEngine::new(),
            loader,
            loaded: RwLock::new(Loaded::default()),
            last_good: RwLock::new(HashMap::new()),
        };
        catalog.keep_last_good(last_good);
        let report = catalog.reload();
        (catalog, report)
    }

    /// Takes `files` as their last good versions (a load of this process,
    /// or of another sharing the store).
    pub fn keep_last_good(&self, files: Vec<GoodFile>) {
        if let Ok(mut last_good) = self.last_good.write() {
            for file in files {
                last_good.insert((file.company, file.file), file.text);
            }
        }
    }

    /// An empty catalog (no campaign files).
    pub fn empty() -> Catalog {
        Catalog {
            engine: ScriptEngine::new(),
            loader: Box::new(MemoryLoader::new()),
            loaded: RwLock::new(Loaded::default()),
            last_good: RwLock::new(HashMap::new()),
        }
    }

    /// The engine expressions are evaluated with.
    pub fn engine(&self) -> &ScriptEngine {
        &self.engine
    }

    /// The rules of `company` (empty when it has none).
    pub fn company(&self, company: &str) -> Arc<CompanyRules> {
        self.loaded
            .read()
            .ok()
            .and_then(|loaded| loaded.companies.get(company).cloned())
            .unwrap_or_default()
    }

    /// Replaces the campaigns `company` created through the API; evaluation
    /// sees them with the Company's file campaigns from now on.
    pub fn set_api_campaigns(&self, company: &str, campaigns: Vec<Campaign>) {
        if let Ok(mut loaded) = self.loaded.write() {
            loaded.api.insert(company.to_string(), campaigns);
            loaded.combine(company);
        }
    }

    /// The Companies that have campaigns created through the API.
    pub fn api_companies(&self) -> Vec<String> {
        self.loaded
            .read()
            .map(|loaded| loaded.api.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// What the last load of `company` held back, when it held files
    /// back (they have problems that are not fixed yet).
    pub fn held_back(&self, company: &str) -> Option<HeldBack> {
        self.loaded.read().ok()?.held_back.get(company).cloned()
    }

    /// The problems of `company`'s files, when any is held back.
    pub fn problems(&self, company: &str) -> Option<Vec<RuleError>> {
        self.held_back(company).map(|held| held.problems)
    }

    /// Reloads every Company whose files changed since the last load. A
    /// file with a problem is held back alone: its last good version serves
    /// in its place (nothing, when it never loaded), the others load.
    pub fn reload(&self) -> LoadReport {
        let mut report = LoadReport::default();
        for company in self.loader.companies() {
            let stamp = self.loader.files(&company);
            let unchanged = self
                .loaded
                .read()
                .map(|l| l.stamps.get(&company) == Some(&stamp))
                .unwrap_or(false);
            if unchanged {
                continue;
            }
            let files: Vec<PathBuf> = stamp.iter().map(|(path, _)| path.clone()).collect();
            let outcome = self.load_company(&company, &files);
            let good_files = self.newly_good(&company, &outcome.on_disk);
            let Ok(mut loaded) = self.loaded.write() else {
                continue;
            };
            loaded.stamps.insert(company.clone(), stamp);
            loaded
                .files
                .insert(company.clone(), Arc::new(outcome.rules));
            loaded.combine(&company);
            report.good_files.extend(good_files);
            match outcome.held {
                None => {
                    loaded.held_back.remove(&company);
                    report.loaded.push(company);
                }
                Some(held) => {
                    loaded.held_back.insert(company.clone(), held.clone());
                    report.errors.extend(held.problems.iter().cloned());
                    report.held_back.push(held);
                }
            }
        }
        report
    }
}

#[cfg(test)]
mod tests;
