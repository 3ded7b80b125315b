//! Master data in the store: the Company's revision every change moves (so
//! every server sees what changed since it last looked) and the statements
//! Products and Locations share to check the features they name.

use serde_json::Value;

use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::store::WRITE_ANSWER;
use crate::resources::master_data::snapshot::MasterChanges;
use crate::storage::REFUSED;
use crate::storage::Store;
use crate::storage::first;
use crate::storage::first_rows;

/// Moves the Company's master-data revision by one, into `$revision`. Every
/// write of Products, Locations, taxonomies or features runs it, so two of
/// them on one Company never commit at once unseen by each other (the
/// second conflicts and is retried) and records stamped with `$revision`
/// appear in revision order.
pub(crate) const BUMP_REVISION: &str = "
    LET $revision_key = type::record('master_revision', [$company]);
    LET $revision = (($revision_key.revision) ?? 0) + 1;
    UPSERT $revision_key SET company = $company, revision = $revision RETURN NONE;";

/// Refuses with `unknown_feature` unless every `[taxonomy, feature]` of
/// `$feature_refs` is a feature of `$scope` of the Company.
pub(crate) fn check_features() -> String {
    format!(
        "FOR $reference IN $feature_refs {{
             IF !record::exists(type::record('feature', [$company, $scope, $reference[0], $reference[1]])) {{
                 THROW '{REFUSED}{unknown}|the Company has no ' + $scope + ' feature `' + $reference[1]
                     + '` in taxonomy `' + $reference[0] + '`: create it first';
             }};
         }};",
        unknown = ErrorCode::UnknownFeature.code(),
    )
}

impl Store {
    /// (Company, revision) of every Company with master data: one small read
    /// that tells a server which Companies changed.
    pub async fn master_revisions(&self) -> ApiResult<Vec<(String, i64)>> {
        first_rows(
            self.db
                .query("SELECT company, revision FROM master_revision"),
            &["company", "revision"],
        )
        .await
    }

    /// The Company's master data changed after revision `since`, read in one
    /// statement so it is one consistent revision.
    pub async fn master_changes(&self, company: &str, since: i64) -> ApiResult<MasterChanges> {
        let read: Option<Value> = first(
            self.db
                .query(
                    "RETURN {
                         revision: (type::record('master_revision', [$company]).revision) ?? 0,
                         taxonomies: (SELECT * FROM taxonomy WHERE company = $company),
                         features: (SELECT * FROM feature WHERE company = $company),
                         products: (SELECT * FROM product WHERE company = $company AND revision > $since),
                         locations: (SELECT * FROM location WHERE company = $company AND revision > $since),
                     }",
                )
                .bind(("company", company.to_string()))
                .bind(("since", since)),
        )
        .await?;
        let read = read.unwrap_or_default();
        let rows = |field: &str| read[field].as_array().cloned().unwrap_or_default();
        Ok(MasterChanges {
            revision: read["revision"].as_i64().unwrap_or(0),
            taxonomies: rows("taxonomies"),
            features: rows("features"),
            products: rows("products"),
            locations: rows("locations"),
        })
    }
}

/// What tells Products and Locations apart in the store: their tables, the
/// field their id is kept in, and the codes their refusals answer.
#[derive(Debug, Clone, Copy)]
pub struct RecordKind {
    /// The records' table (`product`, `location`).
    pub table: &'static str,
    /// The table of their unique keys (codes, aliases), keyed by [company, key].
    pub keys_table: &'static str,
    /// The scope of the features they carry.
    pub scope: crate::resources::taxonomies::model::Scope,
    /// What messages call one (`Product`).
    pub label: &'static str,
    /// A key already another record's.
    pub taken: ErrorCode,
    /// No such record.
    pub missing: ErrorCode,
}

/// A record to write: its document (its id in `rid`), its unique keys and
/// the features it carries as `[taxonomy, feature]`.
#[derive(Debug, Clone)]
pub struct RecordWrite<'a> {
    /// The stored document.
    pub document: &'a Value,
    /// Its code and aliases, unique among the Company's records of its kind.
    pub keys: &'a [String],
    /// The features it names, each checked to exist.
    pub feature_refs: &'a [[String; 2]],
}

impl Store {
    /// Creates (`replace: false`) or replaces a record with its keys, in one
    /// transaction: refused with the kind's `taken` code when a key is
    /// another record's, `unknown_feature` when a feature is missing, and
    /// its `missing` code when the record to replace is gone.
    pub async fn write_master_record(
        &self,
        kind: RecordKind,
        company: &str,
        write: RecordWrite<'_>,
        replace: bool,
    ) -> ApiResult<()> {
        let query = format!(
            "BEGIN TRANSACTION;
             LET $key = type::record($table, [$company, $document.rid]);
             LET $stored = $key.*;
             IF $replace AND ($stored == NONE OR $stored.deleted_at != NONE) {{
                 THROW '{REFUSED}' + $missing + '|no ' + $label + ' ' + $document.rid;
             }};
             {check}
             FOR $old IN ($stored.keys ?? []) {{
                 DELETE type::record($keys_table, [$company, $old]) RETURN NONE;
             }};
             FOR $k IN $keys {{
                 IF record::exists(type::record($keys_table, [$company, $k])) {{
                     THROW '{REFUSED}' + $taken + '|another ' + $label + ' already has the code or alias `' + $k + '`';
                 }};
                 CREATE type::record($keys_table, [$company, $k]) SET company = $company, rid = $document.rid RETURN NONE;
             }};
             {BUMP_REVISION}
             UPSERT $key CONTENT object::extend($document, {{ keys: $keys, revision: $revision }}) RETURN NONE;
             {WRITE_ANSWER}
             COMMIT TRANSACTION;",
            check = check_features(),
        );
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("table", kind.table))
                .bind(("keys_table", kind.keys_table))
                .bind(("scope", kind.scope.as_str()))
                .bind(("label", kind.label))
                .bind(("taken", kind.taken.code()))
                .bind(("missing", kind.missing.code()))
                .bind(("replace", replace))
                .bind(("document", write.document.clone()))
                .bind(("keys", write.keys.to_vec()))
                .bind(("feature_refs", write.feature_refs.to_vec()))
        })
        .await?;
        Ok(())
    }

    /// Deletes record `id`: its keys are free again; the record stays as a
    /// tombstone (`deleted_at`) so every server's catalogue drops it.
    pub async fn delete_master_record(
        &self,
        kind: RecordKind,
        company: &str,
        id: &str,
        now: &Value,
    ) -> ApiResult<()> {
        let query = format!(
            "BEGIN TRANSACTION;
             LET $key = type::record($table, [$company, $id]);
             LET $stored = $key.*;
             IF $stored == NONE OR $stored.deleted_at != NONE {{
                 THROW '{REFUSED}' + $missing + '|no ' + $label + ' ' + $id;
             }};
             FOR $old IN ($stored.keys ?? []) {{
                 DELETE type::record($keys_table, [$company, $old]) RETURN NONE;
             }};
             {BUMP_REVISION}
             UPDATE $key SET deleted_at = $now, keys = [], feature_keys = [], revision = $revision RETURN NONE;
             COMMIT TRANSACTION;"
        );
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("table", kind.table))
                .bind(("keys_table", kind.keys_table))
                .bind(("label", kind.label))
                .bind(("missing", kind.missing.code()))
                .bind(("id", id.to_string()))
                .bind(("now", now.clone()))
        })
        .await?;
        Ok(())
    }

    /// The record `id`, or the one whose code or alias is `key` when `id`
    /// is `None`; deleted ones are not found.
    pub async fn master_record(
        &self,
        kind: RecordKind,
        company: &str,
        id: Option<&str>,
        key: Option<&str>,
    ) -> ApiResult<Option<Value>> {
        let rid = match (id, key) {
            (Some(id), _) => Some(id.to_string()),
            (None, Some(key)) => {
                first::<Option<String>>(
                    self.db
                        .query("RETURN type::record($keys_table, [$company, $key]).rid")
                        .bind(("company", company.to_string()))
                        .bind(("keys_table", kind.keys_table))
                        .bind(("key", key.to_string())),
                )
                .await?
            }
            (None, None) => None,
        };
        let Some(rid) = rid else {
            return Ok(None);
        };
        let record: Option<Value> = first(
            self.db
                .query("RETURN type::record($table, [$company, $rid]).*")
                .bind(("company", company.to_string()))
                .bind(("table", kind.table))
                .bind(("rid", rid)),
        )
        .await?;
        Ok(record.filter(|r| r.get("deleted_at").is_none_or(Value::is_null)))
    }
}

impl Store {
    /// Up to `limit` records of `kind` not deleted, in id order, after the
    /// one with id `after`; only those carrying one of `feature_keys`
    /// (`taxonomy/feature`) when given. Read along the records' ids (no
    /// index), so a page costs the same however large the catalogue.
    pub async fn master_records_page(
        &self,
        kind: RecordKind,
        company: &str,
        after: Option<&str>,
        feature_keys: Option<Vec<String>>,
        limit: usize,
    ) -> ApiResult<Vec<Value>> {
        let filter = if feature_keys.is_some() {
            " AND feature_keys CONTAINSANY $feature_keys"
        } else {
            ""
        };
        let query = format!(
            "SELECT * FROM {table}:[$company, $after]>..[$company, ..]
                 WHERE deleted_at = NONE{filter} LIMIT $limit",
            table = kind.table,
        );
        first(
            self.db
                .query(query)
                .bind(("company", company.to_string()))
                .bind(("after", after.unwrap_or_default().to_string()))
                .bind(("feature_keys", feature_keys))
                .bind(("limit", limit as i64)),
        )
        .await
    }
}
