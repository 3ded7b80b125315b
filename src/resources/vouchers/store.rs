//! Vouchers in the store: issued once per Customer and campaign, found by
//! code or by holder.

use serde_json::{Value, json};

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::vouchers::model::Voucher;
use crate::storage::REFUSED;
use crate::storage::Store;
use crate::storage::first;

/// A Voucher from its stored document.
pub(crate) fn voucher_from(mut document: Value) -> ApiResult<Voucher> {
    if let Some(object) = document.as_object_mut() {
        object.remove("company");
        if let Some(id) = object.remove("vid") {
            object.insert("id".into(), id);
        }
    }
    serde_json::from_value(document)
        .map_err(|e| ApiError::internal(format!("stored voucher unreadable: {e}")))
}

impl Store {
    /// Issues `vouchers` (one per Customer and campaign); a Customer who
    /// already holds a Voucher of the campaign keeps it, and it is returned
    /// instead.
    pub async fn issue_vouchers(
        &self,
        company: &str,
        vouchers: &[Voucher],
    ) -> ApiResult<Vec<Voucher>> {
        let documents: Vec<Value> = vouchers
            .iter()
            .map(|voucher| {
                let mut value = json!(voucher);
                if let Some(object) = value.as_object_mut() {
                    let id = object.remove("id").unwrap_or(Value::Null);
                    object.insert("vid".into(), id);
                    object.insert("company".into(), Value::String(company.to_string()));
                }
                value
            })
            .collect();
        let query = format!(
            "BEGIN TRANSACTION;
             FOR $voucher IN $vouchers {{
                 LET $key = type::record('voucher', [$company, $voucher.rule_id, $voucher.customer_id]);
                 IF !record::exists($key) {{
                     IF (SELECT VALUE vid FROM voucher WHERE company = $company AND code = $voucher.code LIMIT 1)[0] != NONE {{
                         THROW '{REFUSED}{code}|voucher code ' + $voucher.code + ' is taken';
                     }};
                     CREATE $key CONTENT $voucher RETURN NONE;
                 }};
             }};
             COMMIT TRANSACTION;",
            code = ErrorCode::ConcurrentModification.code()
        );
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("vouchers", documents.clone()))
        })
        .await?;
        let keys: Vec<(i64, String)> = vouchers
            .iter()
            .map(|v| (v.rule_id, v.customer_id.clone()))
            .collect();
        let mut issued = Vec::new();
        for (rule_id, customer_id) in keys {
            let document: Option<Value> = first(
                self.db
                    .query("SELECT * OMIT id FROM ONLY type::record('voucher', [$company, $rule, $customer])")
                    .bind(("company", company.to_string()))
                    .bind(("rule", rule_id))
                    .bind(("customer", customer_id)),
            )
            .await?;
            if let Some(document) = document {
                issued.push(voucher_from(document)?);
            }
        }
        Ok(issued)
    }

    /// Vouchers of `company` whose `field` (`customer_id`,
    /// `loyalty_rule_history_id` or `campaign_history_id`) is `value`.
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
                    "SELECT * OMIT id FROM voucher WHERE company = $company AND {field} = $value ORDER BY rule_id"
                ))
                .bind(("company", company.to_string()))
                .bind(("value", value.to_string())),
        )
        .await?;
        rows.into_iter().map(voucher_from).collect()
    }
}
