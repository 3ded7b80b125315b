//! Campaign files on disk: `DIR/<company>/**/*.yaml`. The one place the
//! engine's inputs touch the file system.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use crate::engine::loader::CampaignLoader;
use crate::engine::loader::Stamp;

/// The campaign directory `dir`, one sub-directory per Company.
#[derive(Debug, Clone)]
pub struct FileSystemLoader {
    dir: PathBuf,
}

impl FileSystemLoader {
    /// The campaign files under `dir`.
    pub fn new(dir: &Path) -> Self {
        FileSystemLoader {
            dir: dir.to_path_buf(),
        }
    }
}

/// When the file was last modified, in nanoseconds since the epoch.
fn modified(path: &Path) -> Stamp {
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
    modified
        .duration_since(UNIX_EPOCH)
        .ok()
        .map(|d| d.as_nanos())
}

/// Every `*.yaml` file under `dir`, recursively, in path order.
fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

impl CampaignLoader for FileSystemLoader {
    fn companies(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut companies: Vec<String> = entries
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        companies.sort();
        companies
    }

    fn files(&self, company: &str) -> Vec<(PathBuf, Stamp)> {
        yaml_files(&self.dir.join(company))
            .into_iter()
            .map(|path| {
                let stamp = modified(&path);
                (path, stamp)
            })
            .collect()
    }

    fn read(&self, path: &Path) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }

    fn within_company(&self, company: &str, path: &Path) -> PathBuf {
        path.strip_prefix(self.dir.join(company))
            .map_or_else(|_| path.to_path_buf(), Path::to_path_buf)
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::*;

    #[test]
    fn companies_are_folders_and_a_rewrite_changes_the_stamp() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("shop/campaigns")).unwrap();
        let file = dir.path().join("shop/campaigns/a.yaml");
        std::fs::write(&file, "id: 1\n").unwrap();
        std::fs::write(dir.path().join("shop/notes.txt"), "not a campaign").unwrap();
        let loader = FileSystemLoader::new(dir.path());
        assert_eq!(loader.companies(), vec!["shop".to_string()]);
        let files = loader.files("shop");
        assert_eq!(files.len(), 1);
        assert_eq!(loader.read(&files[0].0).unwrap(), "id: 1\n");

        // Filesystems with coarse timestamps could hide a quick rewrite.
        let later = SystemTime::now() + Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(later)
            .unwrap();
        assert_ne!(loader.files("shop")[0].1, files[0].1);
    }
}
