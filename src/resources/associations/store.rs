//! Repository of associations between Customers.

use serde_json::Value;

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::store::WRITE_ANSWER;
use crate::resources::associations::model::Association;
use crate::resources::associations::model::pair_key;
use crate::storage::REFUSED;
use crate::storage::Store;
use crate::storage::execute;
use crate::storage::first;

/// SurrealQL marking both Customers of the pair `$low`, `$high` of
/// `$company` as associated (the `associated` table, see `schema.surql`):
/// part of every transaction that makes an association, so that a
/// Customer's facts read its associations only when it may have one.
pub(crate) const MARK_ASSOCIATED: &str = "
    UPSERT type::record('associated', [$company, $low]) RETURN NONE;
    UPSERT type::record('associated', [$company, $high]) RETURN NONE;";

/// SurrealQL reading the associations `$customer` of `$company` takes part
/// in (as the one named first, then as the other) in one result, empty
/// without a look when the Customer was never marked associated
/// ([`MARK_ASSOCIATED`]). Two single-index selects rather than one `OR`:
/// the planner fuses indexes for an `OR`, which costs more than both reads.
/// For a Customer never associated they cost a fifth of the selects (the
/// mark read as an expression; `record::exists` costs as much again), and
/// one statement for both costs a quarter less than a statement each
/// (BENCHMARKS.md, "A Customer's associations looked for only when it has
/// one").
pub(crate) const ASSOCIATIONS_OF_CUSTOMER: &str = "
    IF type::record('associated', [$company, $customer]).id {
        array::concat(
            (SELECT * OMIT id, company FROM association WHERE company = $company AND customer_id = $customer),
            (SELECT * OMIT id, company FROM association WHERE company = $company AND associate_id = $customer)
        )
    } ELSE { [] };";

pub(crate) fn from_document(document: Value) -> ApiResult<Association> {
    serde_json::from_value(document)
        .map_err(|e| ApiError::internal(format!("stored association unreadable: {e}")))
}

impl Store {
    /// Stores a new association; `association_already_exists` if the pair is linked.
    pub async fn insert_association(
        &self,
        company: &str,
        association: &Association,
    ) -> ApiResult<()> {
        let (low, high) = pair_key(&association.customer_id, &association.associate_id);
        let mut doc = serde_json::to_value(association).map_err(ApiError::internal)?;
        doc["company"] = Value::String(company.to_string());
        let query = format!(
            "BEGIN TRANSACTION;
             LET $key = type::record('association', [$company, $low, $high]);
             IF record::exists($key) {{
                 THROW '{REFUSED}{code}|the Customers are already associated';
             }};
             CREATE $key CONTENT $doc RETURN NONE;
             {MARK_ASSOCIATED}
             {WRITE_ANSWER}
             COMMIT TRANSACTION;",
            code = ErrorCode::AssociationAlreadyExists.code()
        );
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("low", low.clone()))
                .bind(("high", high.clone()))
                .bind(("doc", doc.clone()))
        })
        .await?;
        Ok(())
    }

    /// The association of the pair, if any.
    pub async fn association(
        &self,
        company: &str,
        a: &str,
        b: &str,
    ) -> ApiResult<Option<Association>> {
        let (low, high) = pair_key(a, b);
        let document: Option<Value> = first(self
            .db
            .query("SELECT * OMIT id, company FROM ONLY type::record('association', [$company, $low, $high])")
            .bind(("company", company.to_string()))
            .bind(("low", low))
            .bind(("high", high))).await?;
        document.map(from_document).transpose()
    }

    /// Writes `changed`, the pair's association with its new type, if the
    /// association it was made from is still stored (created at the same
    /// time); `concurrent_modification` otherwise.
    pub async fn update_association_kind(
        &self,
        company: &str,
        changed: &Association,
    ) -> ApiResult<()> {
        let (low, high) = pair_key(&changed.customer_id, &changed.associate_id);
        let query = format!(
            "BEGIN TRANSACTION;
             LET $key = type::record('association', [$company, $low, $high]);
             IF ($key.created_at) != $created_at {{
                 THROW '{REFUSED}{moved}|the association was removed or made again meanwhile';
             }};
             UPDATE $key SET type = $kind, updated_at = $updated_at RETURN NONE;
             {WRITE_ANSWER}
             COMMIT TRANSACTION;",
            moved = ErrorCode::ConcurrentModification.code()
        );
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("low", low.clone()))
                .bind(("high", high.clone()))
                .bind(("created_at", serde_json::json!(changed.created_at)))
                .bind(("kind", changed.kind.clone()))
                .bind(("updated_at", serde_json::json!(changed.updated_at)))
        })
        .await?;
        Ok(())
    }

    /// Deletes the pair's association; false if there was none.
    pub async fn delete_association(&self, company: &str, a: &str, b: &str) -> ApiResult<bool> {
        let (low, high) = pair_key(a, b);
        let before: Option<Value> = first(self
            .db
            .query("DELETE ONLY type::record('association', [$company, $low, $high]) RETURN BEFORE")
            .bind(("company", company.to_string()))
            .bind(("low", low))
            .bind(("high", high))).await?;
        Ok(before.is_some())
    }

    /// Every association `customer_id` takes part in, oldest first.
    pub async fn associations_of(
        &self,
        company: &str,
        customer_id: &str,
    ) -> ApiResult<Vec<Association>> {
        let documents: Vec<Value> = first(
            self.db
                .query(
                    "SELECT * OMIT id, company FROM association \
                 WHERE company = $company AND (customer_id = $id OR associate_id = $id) \
                 ORDER BY created_at, customer_id, associate_id",
                )
                .bind(("company", company.to_string()))
                .bind(("id", customer_id.to_string())),
        )
        .await?;
        documents.into_iter().map(from_document).collect()
    }

    /// Deletes every association `customer_id` takes part in.
    pub async fn delete_associations_of(&self, company: &str, customer_id: &str) -> ApiResult<()> {
        execute(self.db
            .query(
                "DELETE association WHERE company = $company AND (customer_id = $id OR associate_id = $id)",
            )
            .bind(("company", company.to_string()))
            .bind(("id", customer_id.to_string()))).await?;
        Ok(())
    }
}
