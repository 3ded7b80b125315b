//! Discount transactions in the store: a cart's one record written in its
//! own transaction (the group commit, [`crate::storage::group_commit`]),
//! marked by its cancellation's, and the ones given outside a cart.

use serde_json::{Value, json};

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::http::idempotency::store::write_answer_sql;
use crate::resources::discounts::model::DiscountGiver;
use crate::resources::discounts::model::DiscountTransaction;
use crate::resources::limits::LimitTake;
use crate::resources::limits::store::give_back_limits_sql;
use crate::resources::limits::store::limit_take_documents;
use crate::resources::limits::store::take_limits_sql;
use crate::storage::Store;
use crate::storage::event_transaction::BatchPart;
use crate::storage::event_transaction::insert_rows;
use crate::storage::event_transaction::keyed_row;
use crate::storage::page_query::PageQuery;

/// Part of the group commit ([`crate::storage::event_transaction`]): the
/// discount transactions of the batch's carts (`$discounts`, made by
/// [`discount_row`]): one record per cart, with no index but the
/// Customer's, so a cart with many discounts costs one write. What their
/// campaigns take from their limits runs cart by cart, with the cart's
/// other rare parts.
pub(crate) const STORE_DISCOUNTS: BatchPart = insert_rows!("discounts" into "discount_transaction");

/// The row [`STORE_DISCOUNTS`] writes for `discounts` (made by
/// [`transaction_document`], or null) of `company`.
pub(crate) fn discount_row(company: &str, discounts: &Value) -> Option<Value> {
    keyed_row(company, discounts, "key")
}

/// SurrealQL marking the discount transaction of the cart `$original_code`
/// cancelled at `$now`, and giving back what its campaigns took from their
/// limits: part of its cancellation's transaction.
pub(crate) const CANCEL_DISCOUNTS: &str = concat!(
    "
    LET $cancelled = type::record('discount_transaction', [$company, 'cart:' + $original_code]);
    LET $limit_takes = ($cancelled.limit_takes) ?? [];",
    give_back_limits_sql!(),
    "
    UPDATE $cancelled SET cancelled_at = $now RETURN NONE;"
);

/// The key of the discount transaction of the cart `code`.
fn cart_key(code: &str) -> String {
    format!("cart:{code}")
}

/// `transaction` as stored for `company`, with what its campaigns take from
/// their limits: its amounts as exact decimal text (a JSON number would
/// reach the store as a binary float), and a discount given by a campaign,
/// the usual giver, stored without saying so.
pub(crate) fn transaction_document(
    company: &str,
    transaction: &DiscountTransaction,
    limit_takes: &[LimitTake],
) -> Value {
    let text = |amount: &crate::common::amount::Amount| amount.to_stored();
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
                if given.given_by == DiscountGiver::default()
                    && let Some(item) = item.as_object_mut()
                {
                    item.remove("given_by");
                }
                item
            })
            .collect();
        object.insert("discounts".into(), json!(discounts));
        if !limit_takes.is_empty() {
            object.insert(
                "limit_takes".into(),
                json!(limit_take_documents(limit_takes)),
            );
        }
    }
    document
}

fn transaction_from(mut document: Value) -> ApiResult<DiscountTransaction> {
    if let Some(object) = document.as_object_mut() {
        object.remove("id");
        object.remove("company");
        object.remove("key");
        object.remove("limit_takes");
        if let Some(id) = object.remove("tid") {
            object.insert("id".into(), id);
        }
    }
    serde_json::from_value(document)
        .map_err(|e| ApiError::internal(format!("stored discount transaction unreadable: {e}")))
}

impl Store {
    /// Records `transaction`, a discount given outside a cart, taking
    /// `limit_takes` from its campaign's limits: the refusal of the first
    /// limit reached, and nothing recorded, when one is.
    pub async fn insert_discount_transaction(
        &self,
        company: &str,
        transaction: &DiscountTransaction,
        limit_takes: &[LimitTake],
    ) -> ApiResult<()> {
        let document = transaction_document(company, transaction, limit_takes);
        let query = concat!(
            "BEGIN TRANSACTION;
             CREATE type::record('discount_transaction', [$company, $document.key])
                 CONTENT $document RETURN NONE;
             LET $limit_takes = $document.limit_takes ?? [];",
            take_limits_sql!(),
            "
",
            write_answer_sql!(),
            "
             COMMIT TRANSACTION;"
        );
        self.transact(|db| {
            db.query(query)
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
