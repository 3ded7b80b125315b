//! Limit counters in the store, keyed by [company, rule, period kind, whom
//! or where, which period] ([`super::OfferLimit::counter_key`]): read before
//! a cart is evaluated, changed in the transaction that redeems, given back
//! by the one that cancels or rolls back.

use std::collections::HashMap;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde_json::{Value, json};

use crate::error::ApiResult;
use crate::resources::limits::Counted;
use crate::resources::limits::LimitTake;
use crate::storage::REFUSED;
use crate::storage::Store;
use crate::storage::first;

/// SurrealQL taking one redemption from the counter of each of
/// `$limit_takes` (made by [`limit_take_documents`]) for `$company`,
/// throwing the take's refusal when the counter would go past its limit.
/// A macro, so the statements that redeem can hold it in their own `const`
/// text.
macro_rules! take_limits_sql {
    () => {
        "
        FOR $take IN $limit_takes {
            LET $limit_record = type::record('offer_limit', array::concat([$company], $take.key));
            LET $counted = ($limit_record.{redemptions, amount});
            LET $redemptions = ($counted.redemptions ?? 0) + 1;
            LET $spent = <decimal> ($counted.amount ?? '0') + <decimal> $take.amount;
            IF $take.max_redemptions != NONE AND $redemptions > $take.max_redemptions {
                THROW $take.refusal;
            };
            IF $take.max_amount != NONE AND $spent > <decimal> $take.max_amount {
                THROW $take.refusal;
            };
            UPSERT $limit_record SET key = $take.key, redemptions = $redemptions,
                amount = <string> $spent RETURN NONE;
        };"
    };
}
pub(crate) use take_limits_sql;

/// Part of the group commit ([`crate::storage::group_commit`]): what the
/// points campaigns of an event take from their limits (`$part`).
pub(crate) const TAKE_EVENT_LIMITS: &str = concat!(
    "
    LET $limit_takes = $part;",
    take_limits_sql!()
);

/// SurrealQL giving back to its counter the redemption of each of
/// `$limit_takes` (as stored with the redemption) for `$company`.
macro_rules! give_back_limits_sql {
    () => {
        "
        FOR $take IN $limit_takes {
            UPDATE type::record('offer_limit', array::concat([$company], $take.key))
                SET redemptions = redemptions - 1,
                    amount = <string> (<decimal> amount - <decimal> $take.amount) RETURN NONE;
        };"
    };
}
pub(crate) use give_back_limits_sql;

/// `takes` as [`take_limits_sql`] reads them and redemptions keep them:
/// amounts as exact decimal text, a limit that is not counted left out.
pub(crate) fn limit_take_documents(takes: &[LimitTake]) -> Vec<Value> {
    takes
        .iter()
        .map(|take| {
            let mut document = json!({
                "key": take.key,
                "amount": take.amount.to_string(),
                "refusal": format!("{REFUSED}{}|{}", take.refusal.0.code(), take.refusal.1),
            });
            if let Some(most) = take.max_redemptions {
                document["max_redemptions"] = json!(most);
            }
            if let Some(most) = take.max_amount {
                document["max_amount"] = json!(most.to_string());
            }
            document
        })
        .collect()
}

impl Store {
    /// What the counters `keys` of `company` counted; a counter never
    /// written is missing.
    pub async fn limit_counters(
        &self,
        company: &str,
        keys: &[Vec<String>],
    ) -> ApiResult<HashMap<Vec<String>, Counted>> {
        if keys.is_empty() {
            return Ok(HashMap::new());
        }
        let rows: Vec<Value> = first(
            self.db
                .query(
                    "SELECT key, redemptions, amount FROM array::map($keys, |$key|
                         type::record('offer_limit', array::concat([$company], $key)))",
                )
                .bind(("company", company.to_string()))
                .bind(("keys", keys.to_vec())),
        )
        .await?;
        Ok(rows
            .into_iter()
            .filter_map(|row| {
                let key: Vec<String> = serde_json::from_value(row.get("key")?.clone()).ok()?;
                let counted = Counted {
                    redemptions: row.get("redemptions")?.as_u64().unwrap_or(0),
                    amount: row
                        .get("amount")
                        .and_then(Value::as_str)
                        .and_then(|text| Decimal::from_str(text).ok())
                        .unwrap_or_default(),
                };
                Some((key, counted))
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    /// Runs `statements` (one of the macros) on `takes` in a transaction.
    async fn run(store: &Store, statements: &'static str, takes: &[LimitTake]) -> ApiResult<()> {
        let query = format!(
            "BEGIN TRANSACTION; LET $limit_takes = $takes; {statements} COMMIT TRANSACTION;"
        );
        let takes = limit_take_documents(takes);
        store
            .transact(|db| {
                db.query(query.as_str())
                    .bind(("company", "c".to_string()))
                    .bind(("takes", takes.clone()))
            })
            .await
            .map(drop)
    }

    async fn take(store: &Store, takes: &[LimitTake]) -> ApiResult<()> {
        run(store, take_limits_sql!(), takes).await
    }

    async fn give_back(store: &Store, takes: &[LimitTake]) {
        run(store, give_back_limits_sql!(), takes).await.unwrap();
    }

    #[tokio::test]
    async fn a_counter_refuses_past_its_limit_and_takes_back_what_is_given_back() {
        let store = Store::connect("mem://", None).await.unwrap();
        let key: Vec<String> = ["7", "ever", "company", "ever"].map(String::from).to_vec();
        let limit = LimitTake {
            key: key.clone(),
            amount: Decimal::new(250, 2),
            max_redemptions: Some(2),
            max_amount: Some(Decimal::new(600, 2)),
            refusal: (ErrorCode::VoucherLimitReached, "two only".into()),
        };
        take(&store, std::slice::from_ref(&limit)).await.unwrap();
        take(&store, std::slice::from_ref(&limit)).await.unwrap();
        let refused = take(&store, std::slice::from_ref(&limit))
            .await
            .unwrap_err();
        assert_eq!(
            (refused.code, refused.message.as_str()),
            (ErrorCode::VoucherLimitReached, "two only")
        );
        let counted = store
            .limit_counters("c", std::slice::from_ref(&key))
            .await
            .unwrap();
        assert_eq!(
            counted[&key],
            Counted {
                redemptions: 2,
                amount: Decimal::new(500, 2)
            }
        );
        give_back(&store, std::slice::from_ref(&limit)).await;
        // 2.50 + 3.60 is past the 6.00 of money.
        let dearer = LimitTake {
            amount: Decimal::new(360, 2),
            ..limit.clone()
        };
        assert!(take(&store, std::slice::from_ref(&dearer)).await.is_err());
        take(&store, std::slice::from_ref(&limit)).await.unwrap();
        let counted = store
            .limit_counters("c", std::slice::from_ref(&key))
            .await
            .unwrap();
        assert_eq!(counted[&key].redemptions, 2);
        assert_eq!(counted[&key].amount, Decimal::new(500, 2));
    }
}
