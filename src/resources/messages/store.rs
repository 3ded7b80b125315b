//! What was printed for whom: one record per Customer and message
//! (`message_print`, keyed by [company, customer, message]), with how many
//! times and when; a `once` message's record is what keeps it from being
//! printed, or shown, again.

use serde_json::Value;
use serde_json::json;

use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::store::WRITE_ANSWER;
use crate::storage::REFUSED;
use crate::storage::Store;
use crate::storage::first;

/// A message being printed for a Customer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintEntry {
    /// `RULE_ID:KEY`.
    pub message: String,
    /// Its campaign.
    pub rule_id: i64,
    /// Printed once per Customer.
    pub once: bool,
}

/// The `once` messages printed for `$customer` of `$company`.
pub(crate) const PRINTED_ONCE: &str = "SELECT VALUE message FROM message_print
     WHERE company = $company AND customer = $customer AND once = true;";

impl Store {
    /// Which of the `once` messages `messages` the Customer was printed.
    pub async fn printed_once(
        &self,
        company: &str,
        customer_id: &str,
        messages: Option<&[String]>,
    ) -> ApiResult<Vec<String>> {
        let query = match messages {
            Some(_) => {
                "SELECT VALUE message FROM $messages.map(|$m| type::record('message_print', [$company, $customer, $m]))
                     WHERE once = true"
            }
            None => PRINTED_ONCE,
        };
        first(
            self.db
                .query(query)
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string()))
                .bind(("messages", messages.map(<[String]>::to_vec))),
        )
        .await
    }

    /// Records `entries` printed for the Customer at `now`, in one
    /// transaction; `concurrent_modification` (nothing written) when a
    /// `once` one of them was printed meanwhile.
    pub async fn record_prints(
        &self,
        company: &str,
        customer_id: &str,
        entries: &[PrintEntry],
        now: &Value,
    ) -> ApiResult<()> {
        let query = format!(
            "BEGIN TRANSACTION;
             LET $once = $entries.filter(|$e| $e.once)
                 .map(|$e| type::record('message_print', [$company, $customer, $e.message]));
             IF array::len(SELECT VALUE id FROM $once) > 0 {{
                 THROW '{REFUSED}{moved}|a message meant once was printed meanwhile';
             }};
             FOR $e IN $entries {{
                 UPSERT type::record('message_print', [$company, $customer, $e.message]) SET
                     company = $company, customer = $customer, message = $e.message,
                     rule_id = $e.rule_id, once = $e.once, count = (count ?? 0) + 1,
                     first_printed_at = first_printed_at ?? $now, last_printed_at = $now
                     RETURN NONE;
             }};
             {WRITE_ANSWER}
             COMMIT TRANSACTION;",
            moved = ErrorCode::ConcurrentModification.code(),
        );
        let entries: Vec<Value> = entries
            .iter()
            .map(|entry| json!({"message": entry.message, "rule_id": entry.rule_id, "once": entry.once}))
            .collect();
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string()))
                .bind(("entries", entries.clone()))
                .bind(("now", now.clone()))
        })
        .await?;
        Ok(())
    }
}
