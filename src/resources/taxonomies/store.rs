//! Taxonomies and features in the store, keyed by [company, scope, slug] and
//! [company, scope, taxonomy, slug]. Every write moves the Company's
//! master-data revision ([`BUMP_REVISION`]), so the engine's catalogue on
//! every server sees it; a delete that would leave a Product or Location
//! naming a feature that is gone either refuses or takes it off them.

use serde_json::{Value, json};

use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::store::WRITE_ANSWER;
use crate::resources::master_data::store::BUMP_REVISION;
use crate::resources::taxonomies::model::Scope;
use crate::storage::REFUSED;
use crate::storage::Store;
use crate::storage::first;
use crate::storage::store_error;

/// The table of the records a scope's features are carried by.
pub(crate) const fn records_table(scope: Scope) -> &'static str {
    match scope {
        Scope::Product => "product",
        Scope::Location => "location",
    }
}

/// One taxonomy as read: the taxonomy, its features, and the Company's
/// master-data revision they were read at.
#[derive(Debug, Clone, Default)]
pub struct TaxonomyRead {
    /// The stored taxonomy, when there is one.
    pub taxonomy: Option<Value>,
    /// Its stored features.
    pub features: Vec<Value>,
    /// The revision read.
    pub revision: i64,
}

/// A feature to write: created, or changed from what was read at `expected`.
#[derive(Debug, Clone)]
pub struct FeatureWrite<'a> {
    /// The feature document (`fid`, `taxonomy`, `slug`, ...).
    pub document: &'a Value,
    /// The revision its checks (the parent exists, no cycle) were made at;
    /// the write refuses with `concurrent_modification` when it moved.
    pub expected_revision: i64,
    /// Create (refused when the slug is taken) or replace.
    pub create: bool,
}

/// The statements of a delete's refusal or detach: `$keys` are the feature
/// keys going away; Products or Locations carrying any of them refuse the
/// delete (`$in_use`) unless `$detach`, which takes them off.
fn detach_statements() -> String {
    format!(
        "LET $users = SELECT VALUE id FROM type::table($records)
             WHERE company = $company AND deleted_at = NONE AND feature_keys CONTAINSANY $keys;
         IF array::len($users) > 0 AND !$detach {{
             THROW '{REFUSED}' + $in_use + '|' + <string> array::len($users) + ' ' + $records
                 + '(s) still carry it; delete with detach=true to take it off them';
         }};
         {BUMP_REVISION}
         UPDATE $users SET feature_keys = array::complement(feature_keys, $keys),
             revision = $revision, updated_at = $now RETURN NONE;"
    )
}

impl Store {
    /// Every taxonomy of `scope` and every feature of them.
    pub async fn taxonomies(
        &self,
        company: &str,
        scope: Scope,
    ) -> ApiResult<(Vec<Value>, Vec<Value>)> {
        let mut response = self
            .db
            .query(
                "SELECT * FROM taxonomy WHERE company = $company AND scope = $scope ORDER BY slug;
                 SELECT * FROM feature WHERE company = $company AND scope = $scope ORDER BY slug;",
            )
            .bind(("company", company.to_string()))
            .bind(("scope", scope.as_str()))
            .await
            .and_then(|r| r.check())
            .map_err(store_error)?;
        let taxonomies: Vec<Value> = response.take(0).map_err(store_error)?;
        let features: Vec<Value> = response.take(1).map_err(store_error)?;
        Ok((taxonomies, features))
    }

    /// Taxonomy `slug` of `scope`, its features, and the revision they were
    /// read at, in one transaction.
    pub async fn taxonomy(
        &self,
        company: &str,
        scope: Scope,
        slug: &str,
    ) -> ApiResult<TaxonomyRead> {
        let read: Option<Value> = first(
            self.db
                .query(
                    "RETURN {
                         revision: (type::record('master_revision', [$company]).revision) ?? 0,
                         taxonomy: (type::record('taxonomy', [$company, $scope, $slug]).*),
                         features: (SELECT * FROM feature
                             WHERE company = $company AND scope = $scope AND taxonomy = $slug ORDER BY slug),
                     }",
                )
                .bind(("company", company.to_string()))
                .bind(("scope", scope.as_str()))
                .bind(("slug", slug.to_string())),
        )
        .await?;
        let read = read.unwrap_or_default();
        Ok(TaxonomyRead {
            taxonomy: Some(read["taxonomy"].clone()).filter(|t| t.is_object()),
            features: read["features"].as_array().cloned().unwrap_or_default(),
            revision: read["revision"].as_i64().unwrap_or(0),
        })
    }

    /// Creates (`replace: false`, refused with `taxonomy_already_exists`
    /// when the slug is taken) or replaces (refused with
    /// `taxonomy_not_found` when there is none) taxonomy `document.slug`.
    pub async fn write_taxonomy(
        &self,
        company: &str,
        scope: Scope,
        document: &Value,
        replace: bool,
    ) -> ApiResult<()> {
        let checks = format!(
            "LET $key = type::record('taxonomy', [$company, $scope, $document.slug]);
             IF !$replace AND record::exists($key) {{
                 THROW '{REFUSED}{taken}|the Company already has a ' + $scope + ' taxonomy `' + $document.slug + '`';
             }};
             IF $replace AND !record::exists($key) {{
                 THROW '{REFUSED}{missing}|the Company has no ' + $scope + ' taxonomy `' + $document.slug + '`';
             }};",
            taken = ErrorCode::TaxonomyAlreadyExists.code(),
            missing = ErrorCode::TaxonomyNotFound.code(),
        );
        let flags = [("replace", json!(replace))];
        self.write_document(&checks, (company, scope), document, &flags)
            .await
    }

    /// Deletes taxonomy `slug` and its features; refuses with
    /// `taxonomy_in_use` while records carry its features, unless `detach`,
    /// which takes them off. Answers how many records it took them off.
    pub async fn delete_taxonomy(&self, deletion: Deletion<'_>, slug: &str) -> ApiResult<u64> {
        let query = format!(
            "BEGIN TRANSACTION;
             LET $key = type::record('taxonomy', [$company, $scope, $slug]);
             IF !record::exists($key) {{
                 THROW '{REFUSED}{missing}|the Company has no ' + $scope + ' taxonomy `' + $slug + '`';
             }};
             LET $keys = SELECT VALUE taxonomy + '/' + slug FROM feature
                 WHERE company = $company AND scope = $scope AND taxonomy = $slug;
             {detach}
             DELETE feature WHERE company = $company AND scope = $scope AND taxonomy = $slug RETURN NONE;
             DELETE $key RETURN NONE;
             RETURN array::len($users);
             COMMIT TRANSACTION;",
            missing = ErrorCode::TaxonomyNotFound.code(),
            detach = detach_statements(),
        );
        let named = [("slug", slug)];
        self.delete_detaching(&query, (deletion, ErrorCode::TaxonomyInUse), &named)
            .await
    }

    /// Creates or replaces a feature, checking its taxonomy and its parent
    /// exist; `concurrent_modification` when the master data moved since
    /// `write.expected_revision`.
    pub async fn write_feature(
        &self,
        company: &str,
        scope: Scope,
        write: FeatureWrite<'_>,
    ) -> ApiResult<()> {
        let checks = format!(
            "IF ((type::record('master_revision', [$company]).revision) ?? 0) != $expected {{
                 THROW '{REFUSED}{moved}|the taxonomies changed while the request ran; retry';
             }};
             IF !record::exists(type::record('taxonomy', [$company, $scope, $document.taxonomy])) {{
                 THROW '{REFUSED}{no_taxonomy}|the Company has no ' + $scope + ' taxonomy `' + $document.taxonomy + '`';
             }};
             LET $key = type::record('feature', [$company, $scope, $document.taxonomy, $document.slug]);
             IF $create AND record::exists($key) {{
                 THROW '{REFUSED}{taken}|taxonomy `' + $document.taxonomy + '` already has a feature `' + $document.slug + '`';
             }};
             IF $document.parent
                 AND !record::exists(type::record('feature', [$company, $scope, $document.taxonomy, $document.parent])) {{
                 THROW '{REFUSED}{unknown}|taxonomy `' + $document.taxonomy + '` has no feature `' + $document.parent + '` to be the parent';
             }};",
            moved = ErrorCode::ConcurrentModification.code(),
            no_taxonomy = ErrorCode::TaxonomyNotFound.code(),
            taken = ErrorCode::FeatureAlreadyExists.code(),
            unknown = ErrorCode::UnknownFeature.code(),
        );
        let flags = [
            ("expected", json!(write.expected_revision)),
            ("create", json!(write.create)),
        ];
        self.write_document(&checks, (company, scope), write.document, &flags)
            .await
    }

    /// Writes the taxonomy or feature `document` of `company` in `scope` at
    /// `$key` (a record `checks` sets, after its refusals), moving the
    /// master data's revision and writing the request's answer with it;
    /// `flags` are bound for the checks.
    async fn write_document(
        &self,
        checks: &str,
        (company, scope): (&str, Scope),
        document: &Value,
        flags: &[(&'static str, Value)],
    ) -> ApiResult<()> {
        let query = format!(
            "BEGIN TRANSACTION;
             {checks}
             {BUMP_REVISION}
             UPSERT $key CONTENT $document RETURN NONE;
             {WRITE_ANSWER}
             COMMIT TRANSACTION;"
        );
        self.transact(|db| {
            let mut statements = db
                .query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("scope", scope.as_str()))
                .bind(("document", document.clone()));
            for (name, value) in flags {
                statements = statements.bind((*name, value.clone()));
            }
            statements
        })
        .await?;
        Ok(())
    }

    /// Deletes feature `slug` of `taxonomy`; refuses with `feature_in_use`
    /// while records carry it or features have it as their parent, unless
    /// `detach`: then it is taken off them and its children move up to its
    /// parent. Answers how many records it took it off.
    pub async fn delete_feature(
        &self,
        deletion: Deletion<'_>,
        (taxonomy, slug): (&str, &str),
    ) -> ApiResult<u64> {
        let query = format!(
            "BEGIN TRANSACTION;
             LET $key = type::record('feature', [$company, $scope, $taxonomy, $slug]);
             LET $feature = $key.*;
             IF $feature == NONE {{
                 THROW '{REFUSED}{missing}|taxonomy `' + $taxonomy + '` has no feature `' + $slug + '`';
             }};
             LET $keys = [$taxonomy + '/' + $slug];
             LET $children = SELECT VALUE id FROM feature
                 WHERE company = $company AND scope = $scope AND taxonomy = $taxonomy AND parent = $slug;
             IF array::len($children) > 0 AND !$detach {{
                 THROW '{REFUSED}{in_use}|' + <string> array::len($children)
                     + ' feature(s) have it as their parent; delete with detach=true to move them up';
             }};
             {detach}
             UPDATE $children SET parent = $feature.parent, updated_at = $now RETURN NONE;
             DELETE $key RETURN NONE;
             RETURN array::len($users);
             COMMIT TRANSACTION;",
            missing = ErrorCode::FeatureNotFound.code(),
            in_use = ErrorCode::FeatureInUse.code(),
            detach = detach_statements(),
        );
        let named = [("taxonomy", taxonomy), ("slug", slug)];
        self.delete_detaching(&query, (deletion, ErrorCode::FeatureInUse), &named)
            .await
    }

    /// Runs the delete `query` of a taxonomy or feature (ending with
    /// [`detach_statements`]' count, refusing with `in_use` while records
    /// carry it, unless they are detached), with `named` (its slug, and a
    /// feature's taxonomy) bound beside what every such delete reads.
    async fn delete_detaching(
        &self,
        query: &str,
        (deleted, in_use): (Deletion<'_>, ErrorCode),
        named: &[(&'static str, &str)],
    ) -> ApiResult<u64> {
        let mut response = self
            .transact(|db| {
                let mut statements = db
                    .query(query)
                    .bind(("company", deleted.company.to_string()))
                    .bind(("scope", deleted.scope.as_str()))
                    .bind(("records", records_table(deleted.scope)))
                    .bind(("detach", deleted.detach))
                    .bind(("in_use", in_use.code()))
                    .bind(("now", deleted.now.clone()));
                for (name, value) in named {
                    statements = statements.bind((*name, value.to_string()));
                }
                statements
            })
            .await?;
        Ok(returned_count(&mut response))
    }
}

/// A delete of a taxonomy or feature: whose, of which scope, whether the
/// records carrying it are detached (else the delete is refused), and when.
#[derive(Debug, Clone)]
pub struct Deletion<'a> {
    /// The Company.
    pub company: &'a str,
    /// Products' or Locations' taxonomies.
    pub scope: Scope,
    /// Whether records carrying it are detached.
    pub detach: bool,
    /// When, as stored.
    pub now: String,
}

impl<'a> Deletion<'a> {
    /// A delete in `company`'s `scope` at `now`, detaching the records
    /// that carry it when `detach`.
    pub fn at(company: &'a str, scope: Scope, detach: bool, now: Timestamp) -> Self {
        Deletion {
            company,
            scope,
            detach,
            now: json!(now).as_str().unwrap_or_default().to_string(),
        }
    }
}

/// The number a transaction ends with (`RETURN array::len($users);` before
/// its `COMMIT`): the last statement whose result is one.
fn returned_count(response: &mut surrealdb::IndexedResults) -> u64 {
    (0..response.num_statements())
        .rev()
        .find_map(|index| response.take::<Option<u64>>(index).ok().flatten())
        .unwrap_or(0)
}

/// A stored feature or taxonomy document without its record id.
pub(crate) fn without_record_id(mut document: Value) -> Value {
    if let Some(object) = document.as_object_mut() {
        object.remove("id");
        object.remove("company");
    }
    document
}

/// `ApiError` for a stored document that does not read back.
pub(crate) fn unreadable(what: &str, error: impl std::fmt::Display) -> ApiError {
    ApiError::internal(format!("stored {what} unreadable: {error}"))
}

/// The document `value` stored with its Company.
pub(crate) fn with_company(company: &str, value: &impl serde::Serialize) -> Value {
    let mut document = json!(value);
    if let Some(object) = document.as_object_mut() {
        object.insert("company".into(), json!(company));
    }
    document
}
