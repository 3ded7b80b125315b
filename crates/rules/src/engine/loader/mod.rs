//! Where campaign files come from. The catalog reads them through a
//! [`CampaignLoader`], so the engine itself does no I/O: the server and the
//! CLI load a directory ([`files::FileSystemLoader`], the one place that
//! touches the file system), tests and embedders hand over text
//! ([`MemoryLoader`]).

pub mod files;

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A version of one file: changes whenever the file does (`None` when it
/// cannot be told).
pub type Stamp = Option<u128>;

/// A source of Companies' campaign files: one folder per Company slug, every
/// YAML file under it.
pub trait CampaignLoader: Debug + Send + Sync {
    /// The Companies that have files, in name order.
    fn companies(&self) -> Vec<String>;

    /// The YAML files of `company`, in path order, each with its stamp.
    fn files(&self, company: &str) -> Vec<(PathBuf, Stamp)>;

    /// The text of the file at `path` (one [`CampaignLoader::files`] named).
    fn read(&self, path: &Path) -> Result<String, String>;

    /// The file at `path` (one [`CampaignLoader::files`] named for
    /// `company`) within the Company's folder: what names it wherever the
    /// folder lies (the last good versions are kept under it).
    fn within_company(&self, _company: &str, path: &Path) -> PathBuf {
        path.components().skip(1).collect()
    }
}

/// A shared loader, so its owner can keep writing to it (a [`MemoryLoader`]
/// a test edits while the catalog reads it).
impl<L: CampaignLoader> CampaignLoader for std::sync::Arc<L> {
    fn companies(&self) -> Vec<String> {
        (**self).companies()
    }

    fn files(&self, company: &str) -> Vec<(PathBuf, Stamp)> {
        (**self).files(company)
    }

    fn read(&self, path: &Path) -> Result<String, String> {
        (**self).read(path)
    }

    fn within_company(&self, company: &str, path: &Path) -> PathBuf {
        (**self).within_company(company, path)
    }
}

/// Campaign files held in memory, keyed by `company/relative/path.yaml`.
#[derive(Debug, Default)]
pub struct MemoryLoader {
    files: Mutex<BTreeMap<PathBuf, (String, u128)>>,
}

impl MemoryLoader {
    /// An empty set of files.
    pub fn new() -> Self {
        MemoryLoader::default()
    }

    /// Writes (or rewrites) the file `path` (its first component is the
    /// Company's slug) with `text`.
    pub fn write(&self, path: impl Into<PathBuf>, text: impl Into<String>) {
        let mut files = match self.files.lock() {
            Ok(files) => files,
            Err(poisoned) => poisoned.into_inner(),
        };
        let path = path.into();
        let version = files.get(&path).map_or(0, |(_, version)| version + 1);
        files.insert(path, (text.into(), version));
    }

    fn snapshot(&self) -> BTreeMap<PathBuf, (String, u128)> {
        match self.files.lock() {
            Ok(files) => files.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
}

/// The Company slug a path is filed under.
fn company_of(path: &Path) -> Option<String> {
    path.components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
}

impl CampaignLoader for MemoryLoader {
    fn companies(&self) -> Vec<String> {
        let mut companies: Vec<String> = self
            .snapshot()
            .keys()
            .filter_map(|p| company_of(p))
            .collect();
        companies.dedup();
        companies
    }

    fn files(&self, company: &str) -> Vec<(PathBuf, Stamp)> {
        self.snapshot()
            .into_iter()
            .filter(|(path, _)| company_of(path).as_deref() == Some(company))
            .map(|(path, (_, version))| (path, Some(version)))
            .collect()
    }

    fn read(&self, path: &Path) -> Result<String, String> {
        self.snapshot()
            .remove(path)
            .map(|(text, _)| text)
            .ok_or_else(|| "no such file".to_string())
    }
}
