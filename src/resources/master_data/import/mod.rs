//! Imports of the catalogue from a file (`loyalty catalog import`, the
//! back office's POST /companies/{slug}/catalog/import): every line read
//! as the body of its record's POST and checked the same way, then every
//! record written in one transaction, or none, with every problem at its
//! line. A record whose code is a stored one's replaces it (same id).

pub mod rows;
pub mod store;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use poem_openapi::types::ParseFromJSON;
use poem_openapi::{Enum, Object};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::common::ids::time_ordered_id;
use crate::common::retry::{CHANGED, Tries};
use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::locations::model::NewLocation;
use crate::resources::locations::service::{LOCATIONS, checked_location, new_location};
use crate::resources::master_data::import::rows::{ImportFormat, LineErrors, rows};
use crate::resources::master_data::import::store::{ImportBatch, ImportChunk};
use crate::resources::master_data::model::{FeatureMap, document_from_record};
use crate::resources::master_data::snapshot::FeatureTree;
use crate::resources::master_data::store::RecordKind;
use crate::resources::products::model::NewProduct;
use crate::resources::products::service::{PRODUCTS, checked_product, new_product};
use crate::services::Services;

/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Enum)]
#[oai(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum CatalogKind {
    /// Products (`POST /products` bodies).
    Products,
    /// Locations (`POST /locations` bodies).
    Locations,
}

/// What an import did.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
pub struct ImportReport {
    /// What was imported.
    pub kind: CatalogKind,
    /// Records created.
    pub created: u64,
    /// Stored records replaced (same code).
    pub updated: u64,
}

/// Most problems one refusal lists.
const LISTED_PROBLEMS: usize = 50;

/// One `invalid_request` listing `errors` as `line N: ...`, one a line.
fn refusal(mut errors: LineErrors) -> ApiError {
    errors.sort_by_key(|(line, _)| *line);
    let total = errors.len();
    let mut listed: Vec<String> = errors
        .into_iter()
        .take(LISTED_PROBLEMS)
        .map(|(line, message)| format!("line {line}: {message}"))
        .collect();
    if total > LISTED_PROBLEMS {
        listed.push(format!("... and {} more", total - LISTED_PROBLEMS));
    }
    ApiError::invalid(format!(
        "nothing was imported; {total} problem(s):\n{}",
        listed.join("\n")
    ))
}

/// A record of the file, checked: its API record, keys and code.
struct Checked {
    document: Value,
    keys: Vec<String>,
    code: String,
}

/// How many times an import is checked again when the catalogue changed
/// while it was.
const IMPORT_ATTEMPTS: u32 = 3;

impl Services {
    /// Imports the records of `kind` in `text` (a file in `format`) into
    /// the Company's catalogue, all or none.
    pub async fn import_catalog(
        &self,
        company: &str,
        kind: CatalogKind,
        format: ImportFormat,
        text: &str,
    ) -> ApiResult<ImportReport> {
        let rows = rows(format, text).map_err(refusal)?;
        if rows.is_empty() {
            return Err(ApiError::invalid("the file holds no record"));
        }
        let record_kind = match kind {
            CatalogKind::Products => PRODUCTS,
            CatalogKind::Locations => LOCATIONS,
        };
        let locale = self.company_locale(company).await?;
        let mut tries = Tries::at_most(IMPORT_ATTEMPTS);
        loop {
            let index = self.store.record_index(record_kind, company).await?;
            self.refresh_master_data_of(company).await?;
            let catalogue = self.master_data.company(company);
            if catalogue.revision != index.revision && tries.another() {
                continue;
            }
            let tree = match kind {
                CatalogKind::Products => &catalogue.product_tree,
                CatalogKind::Locations => &catalogue.location_tree,
            };
            let now = self.now();
            let mut checked = Vec::with_capacity(rows.len());
            let mut errors = LineErrors::new();
            for (line, row) in &rows {
                match check_row(kind, row.clone(), now, &locale, tree) {
                    Ok(record) => checked.push((*line, record)),
                    Err(message) => errors.push((*line, message)),
                }
            }
            let chunks = plan(company, record_kind, &index, checked, &mut errors);
            if !errors.is_empty() {
                return Err(refusal(errors));
            }
            let report = ImportReport {
                kind,
                created: chunks.iter().map(|c| c.created.len() as u64).sum(),
                updated: chunks.iter().map(|c| c.replaced.len() as u64).sum(),
            };
            let batch = time_ordered_id("imp");
            let import = ImportBatch {
                company,
                batch: &batch,
                kind: record_kind,
            };
            let written = self.write_chunks(import, index.revision, &chunks).await;
            if tries.again(&written, CHANGED) {
                continue;
            }
            written?;
            self.refresh_master_data_of(company).await?;
            tracing::info!(company, kind = ?kind, created = report.created, updated = report.updated, "catalogue imported");
            return Ok(report);
        }
    }

    /// Writes `chunks` as one import from revision `revision`, or takes back
    /// whatever of it was written.
    async fn write_chunks(
        &self,
        import: ImportBatch<'_>,
        revision: i64,
        chunks: &[ImportChunk],
    ) -> ApiResult<()> {
        let now = json!(self.now());
        self.store.start_import(import, revision, &now).await?;
        for (number, chunk) in chunks.iter().enumerate() {
            let written = self
                .store
                .write_import_chunk(
                    import,
                    (number as u64, revision + number as i64),
                    chunk,
                    &json!(self.now()),
                )
                .await;
            if let Err(error) = written {
                tracing::warn!(company = import.company, batch = import.batch, %error, "import failed; taking back what it wrote");
                self.store.roll_back_import(import).await?;
                self.refresh_master_data_of(import.company).await?;
                return Err(error);
            }
        }
        self.store.finish_import(import).await
    }

    /// Takes back the imports a stopped process left unfinished (no chunk
    /// written for [`STALLED_AFTER`]): at start and now and then.
    pub async fn roll_back_stalled_imports(&self) -> ApiResult<()> {
        let before = json!(crate::common::time::Timestamp(
            self.now().as_datetime() - STALLED_AFTER
        ));
        for (company, batch, table) in self.store.stalled_imports(&before).await? {
            let kind = if table == LOCATIONS.table {
                LOCATIONS
            } else {
                PRODUCTS
            };
            tracing::warn!(%company, %batch, "an import was left unfinished; taking it back");
            self.store
                .roll_back_import(ImportBatch {
                    company: &company,
                    batch: &batch,
                    kind,
                })
                .await?;
            self.refresh_master_data_of(&company).await?;
        }
        Ok(())
    }
}

/// How long an import may go without writing a chunk before another
/// process takes it back.
const STALLED_AFTER: chrono::Duration = chrono::Duration::minutes(2);

/// Records written per chunk (per transaction).
const CHUNK_RECORDS: usize = 250;

/// One row checked as its POST would check it, its features against `tree`.
fn check_row(
    kind: CatalogKind,
    row: Value,
    now: Timestamp,
    locale: &crate::common::locale::Locale,
    tree: &FeatureTree,
) -> Result<Checked, String> {
    let (record, keys, features, code): (Value, Vec<String>, FeatureMap, String) = match kind {
        CatalogKind::Products => {
            let new = NewProduct::parse_from_json(Some(row)).map_err(|e| e.into_message())?;
            let product = new_product(new, time_ordered_id("prd"), now, locale.minor_units)
                .map_err(|e| e.message)?;
            let (product, keys) = checked_product(product).map_err(|e| e.message)?;
            (json!(product), keys, product.features, product.code)
        }
        CatalogKind::Locations => {
            let new = NewLocation::parse_from_json(Some(row)).map_err(|e| e.into_message())?;
            let location = new_location(new, time_ordered_id("loc"), now, locale.time_zone)
                .map_err(|e| e.message)?;
            let (location, keys) = checked_location(location).map_err(|e| e.message)?;
            (json!(location), keys, location.features, location.code)
        }
    };
    for (taxonomy, slugs) in &features {
        if let Some(slug) = slugs.iter().find(|slug| !tree.has(taxonomy, slug)) {
            return Err(format!(
                "the Company has no feature `{slug}` in taxonomy `{taxonomy}`"
            ));
        }
    }
    Ok(Checked {
        document: record,
        keys,
        code,
    })
}

/// The write of `checked` over the stored records of `index`: a record
/// whose code is a stored one's replaces it; a key repeated in the file,
/// or held by a stored record the file does not replace, is a problem.
fn plan(
    company: &str,
    kind: RecordKind,
    index: &crate::resources::master_data::import::store::RecordIndex,
    checked: Vec<(usize, Checked)>,
    errors: &mut LineErrors,
) -> Vec<ImportChunk> {
    let stored_by_code: HashMap<&str, &Value> = index
        .records
        .iter()
        .filter_map(|record| Some((record["code"].as_str()?, record)))
        .collect();
    let mut stored_key_owner: HashMap<&str, &str> = HashMap::new();
    for record in &index.records {
        let code = record["code"].as_str().unwrap_or_default();
        for key in record["keys"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            stored_key_owner.insert(key, code);
        }
    }
    let file_codes: std::collections::HashSet<&str> =
        checked.iter().map(|(_, c)| c.code.as_str()).collect();
    let mut file_keys: HashMap<String, usize> = HashMap::new();
    let mut chunks: Vec<ImportChunk> = Vec::new();
    for (line, record) in &checked {
        for key in &record.keys {
            if let Some(first) = file_keys.insert(key.clone(), *line) {
                errors.push((
                    *line,
                    format!("`{key}` is also the code or an alias of line {first}"),
                ));
            }
            if let Some(owner) = stored_key_owner.get(key.as_str())
                && *owner != record.code
                && !file_codes.contains(owner)
            {
                errors.push((
                    *line,
                    format!("`{key}` already names the {} `{owner}`", kind.label),
                ));
            }
        }
    }
    if !errors.is_empty() {
        return chunks;
    }
    for (position, (_, record)) in checked.into_iter().enumerate() {
        if position % CHUNK_RECORDS == 0 {
            chunks.push(ImportChunk::default());
        }
        let Some(write) = chunks.last_mut() else {
            continue;
        };
        // Stamped with the revision its chunk moves the Company to.
        let revision = index.revision + (position / CHUNK_RECORDS) as i64 + 1;
        let mut document = document_from_record(company, &record.document);
        let stored = stored_by_code.get(record.code.as_str());
        if let (Some(stored), Some(object)) = (stored, document.as_object_mut()) {
            object.insert("rid".into(), stored["rid"].clone());
            object.insert("created_at".into(), stored["created_at"].clone());
            write.old_keys.extend(
                stored["keys"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|key| json!({"key": key, "rid": stored["rid"]})),
            );
        }
        let rid = document["rid"].clone();
        for key in &record.keys {
            // Held by a stored record the file replaces: moved over.
            if stored_key_owner
                .get(key.as_str())
                .is_some_and(|owner| *owner != record.code)
            {
                write.taken_keys.push(key.clone());
            }
            write
                .keys
                .push(json!({"id": [company, key], "company": company, "rid": rid}));
        }
        document["keys"] = json!(record.keys);
        document["revision"] = json!(revision);
        if stored.is_some() {
            write.replaced.push(document);
        } else {
            document["id"] = json!([company, rid]);
            write.created.push(document);
        }
    }
    chunks
}
