//! The rules of every Company, loaded from the campaigns directory and
//! reloaded when a file changes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

use super::script::{RuleError, ScriptEngine};
use super::segments::{SEGMENTS_FILE, Segments};

/// The compiled rules of one Company.
#[derive(Debug, Clone, Default)]
pub struct CompanyRules {
    /// Tiers, audiences and calculated attributes.
    pub segments: Segments,
}

/// Every Company's rules, swapped atomically on reload.
#[derive(Debug)]
pub struct Catalog {
    engine: ScriptEngine,
    dir: PathBuf,
    loaded: RwLock<Loaded>,
}

#[derive(Debug, Default)]
struct Loaded {
    companies: HashMap<String, Arc<CompanyRules>>,
    /// Modification time of each file as last read, to notice changes.
    stamps: HashMap<PathBuf, Option<SystemTime>>,
}

/// The outcome of a (re)load.
#[derive(Debug, Default)]
pub struct LoadReport {
    /// Companies whose rules were (re)loaded.
    pub loaded: Vec<String>,
    /// Problems, with file and line; a file with problems keeps its previous version.
    pub errors: Vec<RuleError>,
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl Catalog {
    /// A catalog of the campaign directory `dir`, loaded now.
    pub fn load(dir: &Path) -> (Catalog, LoadReport) {
        let catalog = Catalog {
            engine: ScriptEngine::new(),
            dir: dir.to_path_buf(),
            loaded: RwLock::new(Loaded::default()),
        };
        let report = catalog.reload();
        (catalog, report)
    }

    /// An empty catalog (no campaign directory).
    pub fn empty() -> Catalog {
        Catalog {
            engine: ScriptEngine::new(),
            dir: PathBuf::new(),
            loaded: RwLock::new(Loaded::default()),
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

    /// Reloads the files that changed since the last load. A file with errors
    /// is reported and its previous version stays in force.
    pub fn reload(&self) -> LoadReport {
        let mut report = LoadReport::default();
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return report;
        };
        let mut companies: Vec<(String, PathBuf)> = entries
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .collect();
        companies.sort();
        for (company, dir) in companies {
            let path = dir.join(SEGMENTS_FILE);
            let stamp = modified(&path);
            let unchanged = self
                .loaded
                .read()
                .map(|l| l.stamps.get(&path) == Some(&stamp))
                .unwrap_or(false);
            if unchanged {
                continue;
            }
            let segments = match stamp {
                None => Ok(Segments::default()),
                Some(_) => Segments::load(&self.engine, &path),
            };
            let Ok(mut loaded) = self.loaded.write() else {
                continue;
            };
            loaded.stamps.insert(path.clone(), stamp);
            match segments {
                Ok(segments) => {
                    loaded
                        .companies
                        .insert(company.clone(), Arc::new(CompanyRules { segments }));
                    report.loaded.push(company);
                }
                Err(errors) => report.errors.extend(errors),
            }
        }
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_edit_keeps_the_previous_rules_and_a_fix_reloads() {
        let dir = tempfile::tempdir().unwrap();
        let company = dir.path().join("shop");
        std::fs::create_dir(&company).unwrap();
        let file = company.join(SEGMENTS_FILE);
        std::fs::write(
            &file,
            "tiers:\n  - id: silver\n    name: Silver\n    condition: lifetime_spend > 1.0\n",
        )
        .unwrap();
        let (catalog, report) = Catalog::load(dir.path());
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        assert_eq!(catalog.company("shop").segments.tiers.len(), 1);

        // Broken edit: reported, old rules stay.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(
            &file,
            "tiers:\n  - id: silver\n    name: Silver\n    condition: lifetime_spend >\n",
        )
        .unwrap();
        set_later_mtime(&file, 1);
        let report = catalog.reload();
        assert_eq!(report.errors.len(), 1);
        assert_eq!(report.errors[0].line, 4);
        assert_eq!(catalog.company("shop").segments.tiers.len(), 1);

        // Fixed edit with two tiers: loaded.
        std::fs::write(&file, "tiers:\n  - id: silver\n    name: Silver\n    condition: \"true\"\n  - id: gold\n    name: Gold\n    condition: \"false\"\n").unwrap();
        set_later_mtime(&file, 2);
        let report = catalog.reload();
        assert!(report.errors.is_empty());
        assert_eq!(catalog.company("shop").segments.tiers.len(), 2);
        assert!(catalog.company("nobody").segments.tiers.is_empty());
    }

    /// Filesystems with coarse timestamps could hide a quick rewrite.
    fn set_later_mtime(path: &Path, seconds: u64) {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        let time = SystemTime::now() + std::time::Duration::from_secs(seconds);
        file.set_modified(time).unwrap();
    }
}
