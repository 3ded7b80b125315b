//! What the use-cases of Products and Locations share: reading one by id or
//! code, the checks of their codes, names and attributes, and writing one
//! with its keys.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::pagination::{Page, PageRequest};
use crate::common::validate::validate_language;
use crate::common::validate::validate_slug;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::http::idempotency::answer::answer_now;
use crate::resources::customers::model::normalise_code;
use crate::resources::master_data::model::FeatureMap;
use crate::resources::master_data::model::document_from_record;
use crate::resources::master_data::model::feature_key;
use crate::resources::master_data::model::feature_refs;
use crate::resources::master_data::model::record_from_document;
use crate::resources::master_data::search_by::MasterSearchBy;
use crate::resources::master_data::store::RecordKind;
use crate::resources::master_data::store::RecordWrite;
use crate::resources::taxonomies::model::Scope;
use crate::services::Services;

/// The unique keys of a record: its code, then its aliases, each trimmed
/// and checked; `invalid_request` when one repeats another.
pub(crate) fn record_keys(code: &str, aliases: &[String]) -> ApiResult<Vec<String>> {
    let mut keys = vec![normalise_code(code)?];
    for alias in aliases {
        let alias = normalise_code(alias)
            .map_err(|_| ApiError::invalid("each alias must be 1 to 128 printable characters"))?;
        if keys.contains(&alias) {
            return Err(ApiError::invalid(format!(
                "`{alias}` is given twice among the code and aliases"
            )));
        }
        keys.push(alias);
    }
    Ok(keys)
}

/// Checks names by language: each key a language code, each name 1 to 200
/// characters.
pub(crate) fn check_names(names: &BTreeMap<String, String>) -> ApiResult<()> {
    for (language, name) in names {
        validate_language(language)?;
        let length = name.trim().chars().count();
        if length == 0 || length > 200 {
            return Err(ApiError::invalid(format!(
                "`names.{language}` must be 1 to 200 characters"
            )));
        }
    }
    Ok(())
}

/// Checks the Company's own fields: slug keys, values of at most 1,000
/// characters as JSON.
pub(crate) fn check_attributes(attributes: &BTreeMap<String, Value>) -> ApiResult<()> {
    for (key, value) in attributes {
        validate_slug("attribute", key)?;
        if value.to_string().len() > 1000 {
            return Err(ApiError::invalid(format!(
                "attribute `{key}` is longer than 1,000 characters"
            )));
        }
    }
    Ok(())
}

impl Services {
    /// The record of `kind` named by `id` as `by` says, as its API record
    /// reads it; the kind's `missing` code when there is none.
    pub(crate) async fn find_master_record<T: serde::de::DeserializeOwned>(
        &self,
        kind: RecordKind,
        company: &str,
        id: &str,
        by: MasterSearchBy,
    ) -> ApiResult<T> {
        let id = id.trim();
        let stored = match by {
            MasterSearchBy::Id => {
                self.store
                    .master_record(kind, company, Some(id), None)
                    .await?
            }
            MasterSearchBy::Code => {
                self.store
                    .master_record(kind, company, None, Some(id))
                    .await?
            }
        };
        let stored = stored.ok_or_else(|| {
            ApiError::new(
                kind.missing,
                format!(
                    "no {} has the {} `{id}`",
                    kind.label,
                    match by {
                        MasterSearchBy::Id => "id",
                        MasterSearchBy::Code => "code",
                    }
                ),
            )
        })?;
        serde_json::from_value(record_from_document(&stored))
            .map_err(|e| ApiError::internal(format!("stored {} unreadable: {e}", kind.label)))
    }

    /// A page of the records of `kind`, in id order; with `feature`
    /// (`taxonomy:feature`), only those carrying it or a feature below it.
    pub(crate) async fn list_master_records<T: serde::de::DeserializeOwned>(
        &self,
        kind: RecordKind,
        company: &str,
        feature: Option<&str>,
        page: &PageRequest,
    ) -> ApiResult<Page<T>> {
        let feature_keys = match feature {
            None => None,
            Some(feature) => {
                let Some((taxonomy, slug)) = feature.split_once(':') else {
                    return Err(ApiError::invalid(format!(
                        "`feature` is `taxonomy:feature`, not `{feature}`"
                    )));
                };
                let catalogue = self.master_data.company(company);
                let tree = match kind.scope {
                    Scope::Product => &catalogue.product_tree,
                    Scope::Location => &catalogue.location_tree,
                };
                Some(
                    tree.with_descendants(taxonomy, slug)
                        .iter()
                        .map(|slug| feature_key(taxonomy, slug))
                        .collect(),
                )
            }
        };
        let documents = self
            .store
            .master_records_page(
                kind,
                company,
                page.starting_after.as_deref(),
                feature_keys,
                page.fetch_limit(),
            )
            .await?;
        let records = documents
            .iter()
            .map(|document| {
                serde_json::from_value(record_from_document(document)).map_err(|e| {
                    ApiError::internal(format!("stored {} unreadable: {e}", kind.label))
                })
            })
            .collect::<ApiResult<Vec<T>>>()?;
        let ids: Vec<String> = documents
            .iter()
            .map(|document| document["rid"].as_str().unwrap_or_default().to_string())
            .collect();
        let mut page =
            Page::from_fetched(records.into_iter().zip(ids).collect(), page, |(_, id)| {
                id.clone()
            });
        Ok(Page {
            items: page.items.drain(..).map(|(record, _)| record).collect(),
            next_token_starts_after: page.next_token_starts_after,
        })
    }

    /// Writes `record` (created, or replacing the stored one) with its
    /// `keys` and the `features` it carries, then refreshes this server's
    /// catalogue so the next event sees it. The record is the request's
    /// answer, written with it.
    pub(crate) async fn write_master_record<R: serde::Serialize + 'static>(
        &self,
        kind: RecordKind,
        company: &str,
        (record, keys, features): (&R, &[String], &FeatureMap),
        replace: bool,
    ) -> ApiResult<()> {
        let document = document_from_record(company, record);
        answer_now(record).await;
        self.store
            .write_master_record(
                kind,
                company,
                RecordWrite {
                    document: &document,
                    keys,
                    feature_refs: &feature_refs(features),
                },
                replace,
            )
            .await?;
        self.refresh_master_data_of(company).await
    }

    /// Deletes the record of `kind` with id `id`.
    pub(crate) async fn delete_master_record(
        &self,
        kind: RecordKind,
        company: &str,
        id: &str,
    ) -> ApiResult<()> {
        let now = serde_json::json!(self.now());
        self.store
            .delete_master_record(kind, company, id, &now)
            .await?;
        self.refresh_master_data_of(company).await
    }
}
