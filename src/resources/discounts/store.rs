//! Discount transactions in the store: a cart's written in its own
//! transaction (the group commit, [`crate::storage::group_commit`]), marked
//! by its cancellation's, and the ones given outside a cart.

use serde_json::{Value, json};

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::discounts::model::DiscountTransaction;
use crate::storage::Store;
use crate::storage::page_query::PageQuery;

/// SurrealQL recording the discount transactions `$write.discounts` of a
/// cart (made by [`transaction_documents`]).
pub(crate) const STORE_DISCOUNTS: &str = "
    FOR $given IN $write.discounts {
        CREATE type::record('discount_transaction', [$company, $given.tid])
            CONTENT $given RETURN NONE;
    };";

/// SurrealQL marking the discount transactions of the cart `$original_code`
/// cancelled at `$now`: part of its cancellation's transaction.
pub(crate) const CANCEL_DISCOUNTS: &str = "
    UPDATE discount_transaction SET cancelled_at = $now
        WHERE company = $company AND cart_code = $original_code RETURN NONE;";

/// `given` as stored for `company`.
pub(crate) fn transaction_documents(company: &str, given: &[DiscountTransaction]) -> Vec<Value> {
    given
        .iter()
        .map(|transaction| {
            let mut document = json!(transaction);
            if let Some(object) = document.as_object_mut() {
                let id = object.remove("id").unwrap_or(Value::Null);
                object.insert("tid".into(), id);
                object.insert("company".into(), json!(company));
            }
            document
        })
        .collect()
}

fn transaction_from(mut document: Value) -> ApiResult<DiscountTransaction> {
    if let Some(object) = document.as_object_mut() {
        object.remove("id");
        object.remove("company");
        if let Some(id) = object.remove("tid") {
            object.insert("id".into(), id);
        }
    }
    serde_json::from_value(document)
        .map_err(|e| ApiError::internal(format!("stored discount transaction unreadable: {e}")))
}

impl Store {
    /// Records `transaction`, a discount given outside a cart.
    pub async fn insert_discount_transaction(
        &self,
        company: &str,
        transaction: &DiscountTransaction,
    ) -> ApiResult<()> {
        let document = transaction_documents(company, std::slice::from_ref(transaction));
        self.transact(|db| {
            db.query(
                "CREATE type::record('discount_transaction', [$company, $document.tid])
                     CONTENT $document RETURN NONE",
            )
            .bind(("company", company.to_string()))
            .bind(("document", document[0].clone()))
        })
        .await?;
        Ok(())
    }

    /// The discount transactions of `customer_id`, newest first, after
    /// `starting_after`, at most `limit`.
    pub async fn discount_transactions(
        &self,
        company: &str,
        customer_id: &str,
        starting_after: Option<&str>,
        limit: usize,
    ) -> ApiResult<Vec<DiscountTransaction>> {
        let documents = PageQuery::new("SELECT * FROM discount_transaction", "tid")
            .newest_first()
            .filter("customer_id = $customer", "customer", customer_id)
            .fetch(self, company, starting_after, limit)
            .await?;
        documents.into_iter().map(transaction_from).collect()
    }
}
