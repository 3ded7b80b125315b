//! Discount transactions in the store: a cart's one record written in its
//! own transaction (the group commit, [`crate::storage::group_commit`]),
//! marked by its cancellation's, and the ones given outside a cart.

use serde_json::{Value, json};

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::discounts::model::DiscountTransaction;
use crate::storage::Store;
use crate::storage::page_query::PageQuery;

/// SurrealQL recording a cart's discount transaction `$write.discounts`
/// (made by [`transaction_document`]): one record, with no index but the
/// Customer's, so a cart with many discounts costs one write.
pub(crate) const STORE_DISCOUNTS: &str = "
    CREATE type::record('discount_transaction', [$company, $write.discounts.key])
        CONTENT $write.discounts RETURN NONE;";

/// SurrealQL marking the discount transaction of the cart `$original_code`
/// cancelled at `$now`: part of its cancellation's transaction.
pub(crate) const CANCEL_DISCOUNTS: &str = "
    UPDATE type::record('discount_transaction', [$company, 'cart:' + $original_code])
        SET cancelled_at = $now RETURN NONE;";

/// The key of the discount transaction of the cart `code`.
fn cart_key(code: &str) -> String {
    format!("cart:{code}")
}

/// `transaction` as stored for `company`: its amounts as exact decimal
/// text (a JSON number would reach the store as a binary float).
pub(crate) fn transaction_document(company: &str, transaction: &DiscountTransaction) -> Value {
    let text = |amount: &crate::common::amount::Amount| json!(amount.0.to_string());
    let mut document = json!(transaction);
    if let Some(object) = document.as_object_mut() {
        let id = object.remove("id").unwrap_or(Value::Null);
        let key = match &transaction.cart_code {
            Some(code) => cart_key(code),
            None => id.as_str().unwrap_or_default().to_string(),
        };
        object.insert("key".into(), json!(key));
        object.insert("tid".into(), id);
        object.insert("company".into(), json!(company));
        object.insert("value".into(), text(&transaction.value));
        if let Some(base) = &transaction.base_amount {
            object.insert("base_amount".into(), text(base));
        }
        let discounts: Vec<Value> = transaction
            .discounts
            .iter()
            .map(|given| {
                let mut item = json!(given);
                item["value"] = text(&given.value);
                item
            })
            .collect();
        object.insert("discounts".into(), json!(discounts));
    }
    document
}

fn transaction_from(mut document: Value) -> ApiResult<DiscountTransaction> {
    if let Some(object) = document.as_object_mut() {
        object.remove("id");
        object.remove("company");
        object.remove("key");
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
        let document = transaction_document(company, transaction);
        self.transact(|db| {
            db.query(
                "CREATE type::record('discount_transaction', [$company, $document.key])
                     CONTENT $document RETURN NONE",
            )
            .bind(("company", company.to_string()))
            .bind(("document", document.clone()))
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
