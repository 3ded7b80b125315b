//! Repository of Instant Win state: participations per Customer and period,
//! units given per prize, the audit record of every draw, and Vouchers.
//!
//! Every limit is a counter record changed by the transaction that uses it
//! ([`RECORD_DRAWS`]): two draws racing for the last participation, or for the
//! last unit of a stock shard, write the same record, so one of them
//! conflicts and, on retry, sees the other. A prize's stock is split over
//! [`super::STOCK_SHARDS`] counters so that winners of a popular prize seldom
//! collide ([`super::stock`]).

use std::collections::HashMap;

use serde_json::{Value, json};

use super::stock::{PrizeCounters, StockShard};
use super::{REFUSED, Store, first};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::model::Timestamp;
use crate::model::voucher::Voucher;
use crate::rules::draws::{DrawRecord, InstantWinState};

/// One Instant Win whose state an event needs.
#[derive(Debug, Clone)]
pub struct StateQuery {
    /// Rule id.
    pub rule_id: i64,
    /// Key of the current participation period.
    pub period: String,
    /// The prize ids, in order.
    pub prize_ids: Vec<String>,
}

/// SurrealQL recording every draw of `$draws` inside the caller's transaction:
/// checks the participation limit, takes one unit of a won prize from the
/// stock shard the draw picked ([`super::stock`]), stores the draw and, on a
/// win, the prize's delivery in the outbox. A check that fails throws
/// `draw_contended`: the caller evaluates the event again on fresh state.
pub(super) const RECORD_DRAWS: &str = "
    FOR $draw IN $draws {
        LET $participation = type::record('iw_participation', [$company, $draw.rule_id, $draw.customer_id, $draw.period]);
        LET $count = (SELECT VALUE count FROM ONLY $participation) ?? 0;
        IF $count >= $draw.once_limit {
            THROW 'REFUSED|draw_contended|participations changed during the draw';
        };
        UPSERT $participation SET company = $company, rule_id = $draw.rule_id,
            customer_id = $draw.customer_id, period = $draw.period, count = $count + 1
            RETURN NONE;
        IF $draw.prize AND $draw.prize.stock >= 0 {
            LET $unit = type::record('iw_given', [$company, $draw.rule_id, $draw.prize.prize_id, $draw.shard.index]);
            LET $given = (SELECT VALUE given FROM ONLY $unit) ?? 0;
            IF $given >= $draw.shard.allowance {
                THROW 'REFUSED|draw_contended|the prize ran out during the draw';
            };
            UPSERT $unit SET company = $company, rule_id = $draw.rule_id,
                prize_id = $draw.prize.prize_id, shard = $draw.shard.index, given = $given + 1
                RETURN NONE;
        };
        CREATE type::record('iw_draw', $draw.draw_id) CONTENT $draw RETURN NONE;
        IF $draw.prize {
            CREATE type::record('prize_outbox', $draw.draw_id) CONTENT {
                company: $company,
                draw_id: $draw.draw_id,
                customer_id: $draw.customer_id,
                rule_id: $draw.rule_id,
                prize_id: $draw.prize.prize_id,
                promotion_type: $draw.prize.promotion_type,
                promotion_id: $draw.prize.promotion_id,
                points: $draw.prize.points,
                points_kind: $draw.prize.points_kind,
                points_expire_at: $draw.prize.points_expire_at,
                pending: true,
                created_at: $draw.created_at
            } RETURN NONE;
        };
    };";

/// A draw to record: its id, its audit record, and for a prize with a
/// limited stock the shard its unit comes from.
#[derive(Debug, Clone)]
pub struct PlannedDraw {
    /// Time-ordered id (`drw_...`).
    pub id: String,
    /// What was drawn.
    pub record: DrawRecord,
    /// Where the won unit is taken from.
    pub shard: Option<StockShard>,
}

/// What the draws of one event need from the store.
#[derive(Debug, Clone, Default)]
pub struct DrawState {
    /// Per Instant Win rule id.
    pub states: HashMap<i64, InstantWinState>,
    /// Stock counters per (rule id, prize id).
    pub counters: HashMap<(i64, String), PrizeCounters>,
}

/// The documents [`RECORD_DRAWS`] stores for `draws` of one event.
pub fn draw_documents(
    company: &str,
    customer_id: &str,
    source: &str,
    draws: &[PlannedDraw],
    at: Timestamp,
) -> Vec<Value> {
    draws
        .iter()
        .map(|draw| {
            let mut value = json!(draw.record);
            value["draw_id"] = Value::String(draw.id.clone());
            if let Some(shard) = draw.shard {
                value["shard"] = json!({"index": shard.index, "allowance": shard.allowance});
            }
            value["company"] = Value::String(company.to_string());
            value["customer_id"] = Value::String(customer_id.to_string());
            value["source"] = Value::String(source.to_string());
            value["created_at"] = Value::String(at.to_string());
            value
        })
        .collect()
}

fn voucher_from(mut document: Value) -> ApiResult<Voucher> {
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
    /// Participations, units given and Vouchers of `customer_id` for `queries`.
    pub async fn instant_win_states(
        &self,
        company: &str,
        customer_id: &str,
        queries: &[StateQuery],
    ) -> ApiResult<DrawState> {
        let rules: Vec<i64> = queries.iter().map(|q| q.rule_id).collect();
        let periods: Vec<String> = queries.iter().map(|q| q.period.clone()).collect();
        let mut response = self
            .db
            .query(
                "SELECT rule_id, period, count FROM iw_participation
                     WHERE company = $company AND customer_id = $customer AND rule_id IN $rules AND period IN $periods;
                 SELECT rule_id, prize_id, shard, given FROM iw_given WHERE company = $company AND rule_id IN $rules;
                 SELECT * OMIT id FROM voucher WHERE company = $company AND customer_id = $customer AND rule_id IN $rules;",
            )
            .bind(("company", company.to_string()))
            .bind(("customer", customer_id.to_string()))
            .bind(("rules", rules))
            .bind(("periods", periods))
            .await
            .and_then(|r| r.check())
            .map_err(super::store_error)?;
        let participations: Vec<Value> = response.take(0).map_err(super::store_error)?;
        let given: Vec<Value> = response.take(1).map_err(super::store_error)?;
        let vouchers: Vec<Value> = response.take(2).map_err(super::store_error)?;
        let mut states = HashMap::new();
        let mut counters = HashMap::new();
        for query in queries {
            for prize in &query.prize_ids {
                let rows = given.iter().filter(|row| {
                    row["rule_id"].as_i64() == Some(query.rule_id)
                        && row["prize_id"].as_str() == Some(prize.as_str())
                });
                counters.insert(
                    (query.rule_id, prize.clone()),
                    PrizeCounters::from_rows(rows),
                );
            }
            let mut state = InstantWinState {
                participations: participations
                    .iter()
                    .find(|row| {
                        row["rule_id"].as_i64() == Some(query.rule_id)
                            && row["period"].as_str() == Some(query.period.as_str())
                    })
                    .and_then(|row| row["count"].as_i64())
                    .unwrap_or(0),
                given: query
                    .prize_ids
                    .iter()
                    .map(|prize| counters[&(query.rule_id, prize.clone())].total())
                    .collect(),
                voucher: None,
            };
            if let Some(document) = vouchers
                .iter()
                .find(|row| row["rule_id"].as_i64() == Some(query.rule_id))
            {
                state.voucher = Some(voucher_from(document.clone())?);
            }
            states.insert(query.rule_id, state);
        }
        Ok(DrawState { states, counters })
    }

    /// Units given of every prize of `rules` (rule id, prize id → units), all
    /// stock shards together.
    pub async fn prizes_given(
        &self,
        company: &str,
        rules: &[i64],
    ) -> ApiResult<HashMap<(i64, String), i64>> {
        let rows: Vec<Value> = first(
            self.db
                .query("SELECT rule_id, prize_id, given FROM iw_given WHERE company = $company AND rule_id IN $rules")
                .bind(("company", company.to_string()))
                .bind(("rules", rules.to_vec())),
        )
        .await?;
        let mut given = HashMap::new();
        for row in &rows {
            if let (Some(rule), Some(prize), Some(units)) = (
                row["rule_id"].as_i64(),
                row["prize_id"].as_str(),
                row["given"].as_i64(),
            ) {
                *given.entry((rule, prize.to_string())).or_insert(0) += units;
            }
        }
        Ok(given)
    }

    /// The audit records of the draws of `company`, oldest first, optionally
    /// of one Customer.
    pub async fn draws(&self, company: &str, customer_id: Option<&str>) -> ApiResult<Vec<Value>> {
        let condition = if customer_id.is_some() {
            "AND customer_id = $customer"
        } else {
            ""
        };
        first(
            self.db
                .query(format!(
                    "SELECT * OMIT id FROM iw_draw WHERE company = $company {condition} ORDER BY created_at, id"
                ))
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.unwrap_or_default().to_string())),
        )
        .await
    }

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

    /// Participations of `customer_id` in each (rule id, period key).
    pub async fn participations(
        &self,
        company: &str,
        customer_id: &str,
        periods: &[(i64, String)],
    ) -> ApiResult<HashMap<i64, i64>> {
        let rules: Vec<i64> = periods.iter().map(|(rule, _)| *rule).collect();
        let rows: Vec<Value> = first(
            self.db
                .query("SELECT rule_id, period, count FROM iw_participation WHERE company = $company AND customer_id = $customer AND rule_id IN $rules")
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string()))
                .bind(("rules", rules)),
        )
        .await?;
        Ok(periods
            .iter()
            .map(|(rule, period)| {
                let count = rows
                    .iter()
                    .find(|row| {
                        row["rule_id"].as_i64() == Some(*rule)
                            && row["period"].as_str() == Some(period.as_str())
                    })
                    .and_then(|row| row["count"].as_i64())
                    .unwrap_or(0);
                (*rule, count)
            })
            .collect())
    }
}
