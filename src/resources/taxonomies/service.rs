//! Taxonomies and features: created, changed and deleted for Products and
//! Locations alike, each change reaching the engine's catalogue at once on
//! this server and within a second on the others.

use poem_openapi::types::MaybeUndefined;
use serde_json::{Value, json};

use crate::common::ids::time_ordered_id;
use crate::common::retry::{CHANGED, Tries};
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::answer::answer_now;
use crate::resources::taxonomies::model::DeletedMasterRecord;
use crate::resources::taxonomies::model::Feature;
use crate::resources::taxonomies::model::FeatureChanges;
use crate::resources::taxonomies::model::NewFeature;
use crate::resources::taxonomies::model::NewTaxonomy;
use crate::resources::taxonomies::model::Scope;
use crate::resources::taxonomies::model::Taxonomy;
use crate::resources::taxonomies::model::TaxonomyChanges;
use crate::resources::taxonomies::store::Deletion;
use crate::resources::taxonomies::store::FeatureWrite;
use crate::resources::taxonomies::store::TaxonomyRead;
use crate::resources::taxonomies::store::unreadable;
use crate::resources::taxonomies::store::with_company;
use crate::resources::taxonomies::store::without_record_id;
use crate::services::Services;

/// How often a feature write is tried again when other master data changed
/// between its checks and its write.
const FEATURE_WRITE_ATTEMPTS: u32 = 5;

/// A stored feature as the API answers it.
pub(crate) fn feature_from(document: &Value) -> ApiResult<Feature> {
    let mut document = without_record_id(document.clone());
    if let Some(object) = document.as_object_mut()
        && let Some(id) = object.remove("fid")
    {
        object.insert("id".into(), id);
    }
    serde_json::from_value(document).map_err(|e| unreadable("feature", e))
}

/// A feature as it is stored.
fn feature_document(company: &str, scope: Scope, feature: &Feature) -> Value {
    let mut document = with_company(company, feature);
    if let Some(object) = document.as_object_mut() {
        let id = object.remove("id").unwrap_or(Value::Null);
        object.insert("fid".into(), id);
        object.insert("scope".into(), json!(scope));
    }
    document
}

/// A stored taxonomy with `features` (stored features of every taxonomy;
/// only its own are kept), as the API answers it.
pub(crate) fn taxonomy_from(document: &Value, features: &[Value]) -> ApiResult<Taxonomy> {
    let mut taxonomy: Taxonomy = serde_json::from_value(without_record_id(document.clone()))
        .map_err(|e| unreadable("taxonomy", e))?;
    taxonomy.features = features
        .iter()
        .filter(|f| f["taxonomy"].as_str() == Some(taxonomy.slug.as_str()))
        .map(feature_from)
        .collect::<ApiResult<_>>()?;
    Ok(taxonomy)
}

/// A taxonomy as it is stored: its features are records of their own.
fn taxonomy_document(company: &str, taxonomy: &Taxonomy) -> Value {
    let mut document = with_company(company, taxonomy);
    if let Some(object) = document.as_object_mut() {
        object.remove("features");
    }
    document
}

/// The feature of `read` whose slug, or else id, is `id`.
fn find_feature(read: &TaxonomyRead, taxonomy: &str, id: &str) -> ApiResult<Feature> {
    let by = |field: &str| read.features.iter().find(|f| f[field].as_str() == Some(id));
    by("slug")
        .or_else(|| by("fid"))
        .map(feature_from)
        .unwrap_or_else(|| {
            Err(ApiError::new(
                ErrorCode::FeatureNotFound,
                format!("taxonomy `{taxonomy}` has no feature `{id}`"),
            ))
        })
}

/// `taxonomy_not_found` for `slug` of `scope`.
fn no_taxonomy(scope: Scope, slug: &str) -> ApiError {
    ApiError::new(
        ErrorCode::TaxonomyNotFound,
        format!("the Company has no {} taxonomy `{slug}`", scope.as_str()),
    )
}

/// `feature_parent_cycle` when `parent` is `slug` or lies under it among
/// `features`.
fn check_no_cycle(features: &[Value], slug: &str, parent: &str) -> ApiResult<()> {
    let parent_of = |of: &str| {
        features
            .iter()
            .find(|f| f["slug"].as_str() == Some(of))
            .and_then(|f| f["parent"].as_str())
    };
    let mut at = Some(parent);
    // A tree never needs more steps than it has features.
    for _ in 0..=features.len() {
        match at {
            Some(ancestor) if ancestor == slug => {
                return Err(ApiError::new(
                    ErrorCode::FeatureParentCycle,
                    format!(
                        "`{parent}` is `{slug}` or lies under it; a feature cannot be its own ancestor"
                    ),
                ));
            }
            Some(ancestor) => at = parent_of(ancestor),
            None => return Ok(()),
        }
    }
    Ok(())
}

impl Services {
    /// Every taxonomy of `scope`, with its features.
    pub async fn taxonomy_list(&self, company: &str, scope: Scope) -> ApiResult<Vec<Taxonomy>> {
        let (taxonomies, features) = self.store.taxonomies(company, scope).await?;
        taxonomies
            .iter()
            .map(|taxonomy| taxonomy_from(taxonomy, &features))
            .collect()
    }

    /// Taxonomy `slug` of `scope`, with its features.
    pub async fn taxonomy(&self, company: &str, scope: Scope, slug: &str) -> ApiResult<Taxonomy> {
        let read = self.store.taxonomy(company, scope, slug).await?;
        let stored = read
            .taxonomy
            .as_ref()
            .ok_or_else(|| no_taxonomy(scope, slug))?;
        taxonomy_from(stored, &read.features)
    }

    /// Creates a taxonomy of `scope`.
    pub async fn create_taxonomy(
        &self,
        company: &str,
        scope: Scope,
        new: NewTaxonomy,
    ) -> ApiResult<Taxonomy> {
        crate::common::validate::validate_slug("slug", &new.slug)?;
        let now = self.now();
        let taxonomy = Taxonomy {
            slug: new.slug,
            name: new.name,
            description: new.description,
            scope,
            features: Vec::new(),
            created_at: now,
            updated_at: now,
        };
        self.save_taxonomy(company, &taxonomy, false).await?;
        tracing::info!(company, scope = scope.as_str(), slug = %taxonomy.slug, "taxonomy created");
        Ok(taxonomy)
    }

    /// Changes the name or description of taxonomy `slug`.
    pub async fn update_taxonomy(
        &self,
        company: &str,
        scope: Scope,
        slug: &str,
        changes: TaxonomyChanges,
    ) -> ApiResult<Taxonomy> {
        let mut taxonomy = self.taxonomy(company, scope, slug).await?;
        if let Some(name) = changes.name {
            taxonomy.name = name;
        }
        match changes.description {
            MaybeUndefined::Value(text) => taxonomy.description = Some(text),
            MaybeUndefined::Null => taxonomy.description = None,
            MaybeUndefined::Undefined => {}
        }
        taxonomy.updated_at = self.now();
        self.save_taxonomy(company, &taxonomy, true).await?;
        Ok(taxonomy)
    }

    /// Writes `taxonomy` (a new one, or `replace`s the stored one) with
    /// the request's answer, and reads the master data again.
    async fn save_taxonomy(
        &self,
        company: &str,
        taxonomy: &Taxonomy,
        replace: bool,
    ) -> ApiResult<()> {
        let document = taxonomy_document(company, taxonomy);
        answer_now(taxonomy).await;
        self.store
            .write_taxonomy(company, taxonomy.scope, &document, replace)
            .await?;
        self.refresh_master_data_of(company).await
    }

    /// Deletes taxonomy `slug` and its features (see
    /// [`crate::storage::Store::delete_taxonomy`]).
    pub async fn delete_taxonomy(
        &self,
        company: &str,
        scope: Scope,
        slug: &str,
        detach: bool,
    ) -> ApiResult<DeletedMasterRecord> {
        let deletion = Deletion::at(company, scope, detach, self.now());
        let detached = self.store.delete_taxonomy(deletion, slug).await?;
        self.refresh_master_data_of(company).await?;
        tracing::info!(
            company,
            scope = scope.as_str(),
            slug,
            detached,
            "taxonomy deleted"
        );
        Ok(DeletedMasterRecord {
            id: slug.to_string(),
            result: "deleted".into(),
            detached,
        })
    }

    /// Creates a feature of taxonomy `taxonomy`.
    pub async fn create_feature(
        &self,
        company: &str,
        scope: Scope,
        taxonomy: &str,
        new: NewFeature,
    ) -> ApiResult<Feature> {
        crate::common::validate::validate_slug("slug", &new.slug)?;
        check_discountable_scope(scope, new.discountable)?;
        let id = time_ordered_id("ftr");
        self.write_feature(company, scope, taxonomy, true, |read, now| {
            let parent = match &new.parent {
                Some(parent) => Some(
                    find_feature(read, taxonomy, parent)
                        .map_err(unknown_parent)?
                        .slug,
                ),
                None => None,
            };
            Ok(Feature {
                id: id.clone(),
                taxonomy: taxonomy.to_string(),
                slug: new.slug.clone(),
                name: new.name.clone(),
                parent,
                discountable: new.discountable.unwrap_or(true),
                created_at: now,
                updated_at: now,
            })
        })
        .await
    }

    /// Changes feature `id` (its id or slug) of taxonomy `taxonomy`.
    pub async fn update_feature(
        &self,
        company: &str,
        scope: Scope,
        taxonomy: &str,
        id: &str,
        changes: FeatureChanges,
    ) -> ApiResult<Feature> {
        check_discountable_scope(scope, changes.discountable)?;
        self.write_feature(company, scope, taxonomy, false, |read, now| {
            let mut feature = find_feature(read, taxonomy, id)?;
            if let Some(name) = &changes.name {
                feature.name.clone_from(name);
            }
            match &changes.parent {
                MaybeUndefined::Value(parent) => {
                    let parent = find_feature(read, taxonomy, parent)
                        .map_err(unknown_parent)?
                        .slug;
                    check_no_cycle(&read.features, &feature.slug, &parent)?;
                    feature.parent = Some(parent);
                }
                MaybeUndefined::Null => feature.parent = None,
                MaybeUndefined::Undefined => {}
            }
            if let Some(discountable) = changes.discountable {
                feature.discountable = discountable;
            }
            feature.updated_at = now;
            Ok(feature)
        })
        .await
    }

    /// Reads taxonomy `taxonomy`, makes the feature to write with `make`
    /// and writes it, trying again when other master data changed meanwhile.
    async fn write_feature(
        &self,
        company: &str,
        scope: Scope,
        taxonomy: &str,
        create: bool,
        make: impl Fn(&TaxonomyRead, crate::common::time::Timestamp) -> ApiResult<Feature>,
    ) -> ApiResult<Feature> {
        let mut tries = Tries::at_most(FEATURE_WRITE_ATTEMPTS);
        loop {
            let read = self.store.taxonomy(company, scope, taxonomy).await?;
            if read.taxonomy.is_none() {
                return Err(no_taxonomy(scope, taxonomy));
            }
            let feature = make(&read, self.now())?;
            let document = feature_document(company, scope, &feature);
            answer_now(&feature).await;
            let written = self
                .store
                .write_feature(
                    company,
                    scope,
                    FeatureWrite {
                        document: &document,
                        expected_revision: read.revision,
                        create,
                    },
                )
                .await;
            if tries.again(&written, CHANGED) {
                continue;
            }
            written?;
            self.refresh_master_data_of(company).await?;
            return Ok(feature);
        }
    }

    /// Deletes feature `id` (its id or slug) of taxonomy `taxonomy` (see
    /// [`crate::storage::Store::delete_feature`]).
    pub async fn delete_feature(
        &self,
        company: &str,
        scope: Scope,
        taxonomy: &str,
        id: &str,
        detach: bool,
    ) -> ApiResult<DeletedMasterRecord> {
        let read = self.store.taxonomy(company, scope, taxonomy).await?;
        if read.taxonomy.is_none() {
            return Err(no_taxonomy(scope, taxonomy));
        }
        let feature = find_feature(&read, taxonomy, id)?;
        let deletion = Deletion::at(company, scope, detach, self.now());
        let detached = self
            .store
            .delete_feature(deletion, (taxonomy, &feature.slug))
            .await?;
        self.refresh_master_data_of(company).await?;
        tracing::info!(company, scope = scope.as_str(), taxonomy, feature = %feature.slug, detached, "feature deleted");
        Ok(DeletedMasterRecord {
            id: feature.id,
            result: "deleted".into(),
            detached,
        })
    }
}

/// A parent that is not a feature of the taxonomy is a reference to a
/// missing feature (422), not a missing path (404).
fn unknown_parent(error: ApiError) -> ApiError {
    ApiError::new(ErrorCode::UnknownFeature, error.message)
}

/// `discountable` belongs to product features only.
fn check_discountable_scope(scope: Scope, discountable: Option<bool>) -> ApiResult<()> {
    if scope == Scope::Location && discountable.is_some() {
        return Err(ApiError::invalid(
            "`discountable` belongs to product features; Location features have none",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parent_under_the_feature_is_a_cycle() {
        let features = vec![
            json!({"slug": "dairy", "parent": null}),
            json!({"slug": "cheese", "parent": "dairy"}),
            json!({"slug": "blue", "parent": "cheese"}),
        ];
        assert!(check_no_cycle(&features, "dairy", "blue").is_err());
        assert!(check_no_cycle(&features, "dairy", "dairy").is_err());
        assert!(check_no_cycle(&features, "blue", "dairy").is_ok());
    }
}
