//! Vouchers in the store, keyed by [company, code key] (the code's one
//! normalisation, [`code_key`]): the store itself refuses a second Voucher
//! with the same code, however it is written. What issued a Voucher is kept
//! under its issue key, so issuing again for the same reason gives the same
//! Voucher back.

use serde_json::{Value, json};

use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::store::WRITE_ANSWER;
use crate::resources::vouchers::codes::code_key;
use crate::resources::vouchers::model::Voucher;
use crate::resources::vouchers::redemption_store::seen_document;
use crate::resources::vouchers::redemption_store::voucher_unchanged_sql;
use crate::storage::Store;
use crate::storage::first;
use crate::storage::page_query::PageQuery;

/// A Voucher from its stored document.
pub(crate) fn voucher_from(mut document: Value) -> ApiResult<Voucher> {
    if let Some(object) = document.as_object_mut() {
        object.remove("company");
        object.remove("key");
        object.remove("issue_key");
        if let Some(id) = object.remove("vid") {
            object.insert("id".into(), id);
        }
    }
    serde_json::from_value(document)
        .map_err(|e| ApiError::internal(format!("stored voucher unreadable: {e}")))
}

/// `voucher` as stored under `key`, with why it was issued when it was.
pub(crate) fn voucher_document(
    company: &str,
    key: &str,
    voucher: &Voucher,
    issue_key: Option<&str>,
) -> Value {
    let mut value = json!(voucher);
    if let Some(object) = value.as_object_mut() {
        let id = object.remove("id").unwrap_or(Value::Null);
        object.insert("vid".into(), id);
        object.insert("company".into(), json!(company));
        object.insert("key".into(), json!(key));
        if let Some(issue_key) = issue_key {
            object.insert("issue_key".into(), json!(issue_key));
        }
    }
    value
}

impl Store {
    /// The Voucher of `company` with `code`, however the code is written.
    pub async fn voucher_by_code(&self, company: &str, code: &str) -> ApiResult<Option<Voucher>> {
        let Some(key) = code_key(code) else {
            return Ok(None);
        };
        let document: Option<Value> = first(
            self.db
                .query("SELECT * OMIT id FROM ONLY type::record('voucher', [$company, $key])")
                .bind(("company", company.to_string()))
                .bind(("key", key)),
        )
        .await?;
        document.map(voucher_from).transpose()
    }

    /// Stores `voucher` under `key` unless a Voucher is stored there already
    /// (then that one stays as it is).
    pub async fn store_voucher_once(
        &self,
        company: &str,
        key: &str,
        voucher: &Voucher,
    ) -> ApiResult<()> {
        let document = voucher_document(company, key, voucher, None);
        self.transact(|db| {
            db.query(
                "BEGIN TRANSACTION;
                 LET $record = type::record('voucher', [$company, $key]);
                 IF !record::exists($record) {
                     CREATE $record CONTENT $voucher RETURN NONE;
                 };
                 COMMIT TRANSACTION;",
            )
            .bind(("company", company.to_string()))
            .bind(("key", key.to_string()))
            .bind(("voucher", document.clone()))
        })
        .await?;
        Ok(())
    }

    /// The Vouchers of `company` stored under `keys`, in one read; a key
    /// no Voucher has is left out.
    pub async fn vouchers_by_keys(
        &self,
        company: &str,
        keys: &[String],
    ) -> ApiResult<Vec<Voucher>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let rows: Vec<Value> = first(
            self.db
                .query(
                    "SELECT * OMIT id FROM array::map($keys, |$key| type::record('voucher', [$company, $key]))",
                )
                .bind(("company", company.to_string()))
                .bind(("keys", keys.to_vec())),
        )
        .await?;
        rows.into_iter().map(voucher_from).collect()
    }

    /// A page of the Vouchers of `company`, optionally of one Customer and
    /// one Coupon, in issue order.
    pub async fn voucher_page(
        &self,
        company: &str,
        customer_id: Option<&str>,
        coupon_id: Option<i64>,
        starting_after: Option<&str>,
        limit: usize,
    ) -> ApiResult<Vec<Voucher>> {
        let documents = PageQuery::new("SELECT * OMIT id FROM voucher", "vid")
            .filter_if("customer_id = $customer", "customer", customer_id)
            .filter_if("coupon_id = $coupon", "coupon", coupon_id)
            .fetch(self, company, starting_after, limit)
            .await?;
        documents.into_iter().map(voucher_from).collect()
    }

    /// Vouchers of `company` whose `field` (`customer_id`,
    /// `loyalty_rule_history_id` or `campaign_history_id`) is `value`, oldest
    /// first.
    pub async fn vouchers_by(
        &self,
        company: &str,
        field: &str,
        value: &str,
    ) -> ApiResult<Vec<Voucher>> {
        if ![
            "customer_id",
            "loyalty_rule_history_id",
            "campaign_history_id",
        ]
        .contains(&field)
        {
            return Err(ApiError::internal(format!(
                "vouchers cannot be looked up by {field}"
            )));
        }
        let rows: Vec<Value> = first(
            self.db
                .query(format!(
                    "SELECT * OMIT id FROM voucher WHERE company = $company AND {field} = $value ORDER BY vid"
                ))
                .bind(("company", company.to_string()))
                .bind(("value", value.to_string())),
        )
        .await?;
        rows.into_iter().map(voucher_from).collect()
    }
}

impl Store {
    /// Forgets the choices `customer_id` made about their Vouchers (which
    /// they selected, which a checkout of theirs holds) when they are
    /// anonymized; the Vouchers and their redemptions stay, under the
    /// Customer's id alone, for the Company's accounts.
    pub async fn forget_voucher_choices(&self, company: &str, customer_id: &str) -> ApiResult<()> {
        crate::storage::execute(
            self.db
                .query(
                    "UPDATE voucher SET selected_at = NONE, reservations = []
                     WHERE company = $company AND customer_id = $customer RETURN NONE",
                )
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string())),
        )
        .await
    }

    /// Stamps each Voucher of `stamped` (its key, and the Voucher as read)
    /// (selected at, or not selected, or printed at), all or none:
    /// `voucher_not_found` when one is no longer `customer_id`'s,
    /// `concurrent_modification` when one changed since it was read.
    /// Selecting again keeps the first time.
    pub async fn stamp_vouchers(
        &self,
        company: &str,
        customer_id: &str,
        stamped: &[(String, &Voucher)],
        stamp: VoucherStamp,
    ) -> ApiResult<()> {
        let (set, at) = match stamp {
            VoucherStamp::Selected(Some(at)) => ("selected_at = selected_at ?? $at", Some(at)),
            VoucherStamp::Selected(None) => ("selected_at = NONE", None),
            VoucherStamp::Printed(at) => ("printed_at = $at", Some(at)),
        };
        let query = format!(
            "BEGIN TRANSACTION;
             FOR $stamped IN $vouchers {{
                 LET $record = type::record('voucher', [$company, $stamped.key]);
                 LET $held = ($record.{{vid, customer_id, uses_left, reservations}});
                 IF $held.customer_id != $customer {{
                     THROW '{refused}{not_found}|the Voucher is held by another Customer';
                 }};
                 LET $seen = $stamped.seen;
                 {unchanged}
                 UPDATE $record SET {set} RETURN NONE;
             }};
             {WRITE_ANSWER}
             COMMIT TRANSACTION;",
            refused = crate::storage::REFUSED,
            not_found = ErrorCode::VoucherNotFound.code(),
            unchanged = voucher_unchanged_sql!(),
        );
        let vouchers: Vec<Value> = stamped
            .iter()
            .map(|(key, voucher)| json!({"key": key, "seen": seen_document(voucher)}))
            .collect();
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string()))
                .bind(("vouchers", vouchers.clone()))
                .bind(("at", at.as_ref().map(Timestamp::to_string)))
        })
        .await?;
        Ok(())
    }
}

/// What [`Store::stamp_vouchers`] writes on Vouchers.
#[derive(Debug, Clone, Copy)]
pub enum VoucherStamp {
    /// Selected at this time (kept if selected already), or deselected.
    Selected(Option<Timestamp>),
    /// Printed at this time.
    Printed(Timestamp),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::time::Timestamp;
    use crate::resources::vouchers::model::NewVoucher;
    use crate::resources::vouchers::model::VoucherIssue;
    use crate::resources::vouchers::model::VoucherState;
    use crate::storage::execute;

    fn issue(code: &str, customer: &str, reason: &str) -> VoucherIssue {
        VoucherIssue {
            issue_key: reason.into(),
            issues_per_customer: None,
            voucher: Voucher {
                id: format!("vch_{code}"),
                ..Voucher::issued(
                    crate::common::ids::time_ordered_id("vch"),
                    NewVoucher {
                        code: code.into(),
                        coupon_id: 1_000_000,
                        coupon_name: "Five off".into(),
                        customer_id: customer.into(),
                        uses_left: 1,
                        source: "trigger",
                        created_at: Timestamp::now(),
                        valid_until: None,
                    },
                )
            },
        }
    }

    #[tokio::test]
    async fn a_code_is_issued_once_however_it_is_written_and_a_reason_once() {
        let store = Store::connect("mem://", None).await.unwrap();
        let first = store
            .issue_vouchers("demo", &[issue("FIVE-0001", "cus_a", "r1")])
            .await
            .unwrap();
        assert_eq!(first[0].code, "FIVE-0001");
        // The same code, written otherwise, for another reason: refused, and
        // nothing of the batch is issued.
        let refused = store
            .issue_vouchers(
                "demo",
                &[
                    issue("FIVE-0002", "cus_b", "r2"),
                    issue("five oool", "cus_b", "r3"),
                ],
            )
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::VoucherCodeTaken);
        assert_eq!(
            store.voucher_by_code("demo", "FIVE-0002").await.unwrap(),
            None
        );
        // The same reason again gives the Voucher issued then.
        let again = store
            .issue_vouchers("demo", &[issue("FIVE-0003", "cus_a", "r1")])
            .await
            .unwrap();
        assert_eq!(again, first);
        assert_eq!(
            store.voucher_by_code("demo", "five 0oo1").await.unwrap(),
            Some(first[0].clone())
        );
        // Another Company's code is not this one's.
        assert_eq!(
            store.voucher_by_code("other", "FIVE-0001").await.unwrap(),
            None
        );
    }

    #[tokio::test]
    async fn vouchers_of_an_older_store_move_to_their_codes_keys() {
        let store = Store::connect("mem://", None).await.unwrap();
        execute(store.db.query(
            "DELETE migration:voucher_codes;
             CREATE type::record('voucher', ['demo', 24, 'cus_a']) CONTENT {
                 company: 'demo', vid: 'vch_1', code: 'VIP-3FA2C', customer_id: 'cus_a',
                 rule_id: 24, coupon_id: 9001, coupon_name: 'Ticket', static_code: 'VIP',
                 campaign_history_id: 'ch_1', loyalty_rule_history_id: 'lrh_1',
                 created_at: '2026-11-01T00:00:00Z' };",
        ))
        .await
        .unwrap();
        store.apply_schema().await.unwrap();
        let moved = store
            .voucher_by_code("demo", "vip-3fa2c")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(moved.rule_id, Some(24));
        assert_eq!(moved.state, VoucherState::Active);
        assert_eq!(moved.uses_left, 1);
        assert_eq!(moved.source, "targeted_delivery");
        let all = store
            .vouchers_by("demo", "customer_id", "cus_a")
            .await
            .unwrap();
        assert_eq!(all, vec![moved.clone()]);
        // Assigning the campaign again to the Customer gives the same Voucher.
        let mut again = issue("VIP-99999", "cus_a", "targeted_delivery:24:cus_a");
        again.voucher.rule_id = Some(24);
        let issued = store.issue_vouchers("demo", &[again]).await.unwrap();
        assert_eq!(issued, vec![moved]);
    }
}
