//! Repository of Instant Win state: participations per Customer and period,
//! units given per prize, and the audit record of every draw.
//!
//! Every limit is a counter record changed by the transaction that uses it
//! ([`crate::storage::group_commit`]): two draws racing for the last participation, or for the
//! last unit of a stock shard, write the same record, so one of them
//! conflicts and, on retry, sees the other. A prize's stock is split over
//! [`crate::resources::instant_wins::store::stock::STOCK_SHARDS`] counters so that winners of a popular prize seldom
//! collide ([`crate::resources::instant_wins::store::stock`]).

pub mod draw_batch;
pub mod draw_state;
pub mod participations;
pub mod prizes;
pub mod stock;
pub mod stock_view;

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::resources::instant_wins::draw_record::DrawRecord;
use crate::resources::instant_wins::store::participations::ParticipationCounts;
use crate::resources::instant_wins::store::stock::StockShard;
use crate::resources::vouchers::codes::code_key;
use crate::storage::Store;
use crate::storage::first;

// The draws of one event (`$draw_write`, made by [`draw_write`]) are recorded
// inside the transaction of their event by [`draw_batch`].

/// Fields every draw of one event shares, stored once on its audit record
/// and given back to each draw when read.
const SHARED_DRAW_FIELDS: [&str; 4] = ["company", "customer_id", "source", "created_at"];

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

#[cfg(test)]
impl PlannedDraw {
    /// A draw of campaign `rule_id` in `period` that won nothing (tests).
    pub(crate) fn lost(id: &str, rule_id: i64, period: &str) -> Self {
        PlannedDraw {
            id: id.to_string(),
            record: DrawRecord {
                rule_id,
                period: period.to_string(),
                once_limit: 3,
                participations_seen: 0,
                weights: vec![0.5],
                stock_seen: vec![],
                random: 0.75,
                forced: false,
                drawn_index: -1,
                prize: None,
                voucher_code: None,
                voucher_used: false,
                participation_used: false,
            },
            shard: None,
        }
    }
}

/// What the group commit ([`crate::storage::group_commit`]) writes for `draws` of one event of `customer_id`,
/// decided on the participation counts `seen`; `NULL` when there are none.
pub fn draw_write(
    company: &str,
    customer_id: &str,
    source: &str,
    draws: &[PlannedDraw],
    seen: &ParticipationCounts,
    at: Timestamp,
) -> Value {
    let Some(first_draw) = draws.first() else {
        return Value::Null;
    };
    let documents: Vec<Value> = draws
        .iter()
        .map(|draw| {
            let mut value = json!(draw.record);
            value["draw_id"] = Value::String(draw.id.clone());
            if let Some(shard) = draw.shard {
                value["shard"] = json!({"index": shard.index, "allowance": shard.allowance});
            }
            value
        })
        .collect();
    let limited: Vec<&Value> = documents
        .iter()
        .filter(|draw| {
            draw["prize"]["stock"]
                .as_i64()
                .is_some_and(|stock| stock >= 0)
        })
        .collect();
    // Points prizes are ledger entries of the event ([`crate::resources::instant_wins::draw_record::WonPrize::needs_delivery`]).
    let won: Vec<&Value> = documents
        .iter()
        .zip(draws)
        .filter(|(_, draw)| {
            draw.record
                .prize
                .as_ref()
                .is_some_and(|prize| prize.needs_delivery())
        })
        .map(|(document, _)| document)
        .collect();
    // The Vouchers whose uses the draws take, by their store key.
    let used: Vec<String> = draws
        .iter()
        .filter(|draw| draw.record.voucher_used)
        .filter_map(|draw| draw.record.voucher_code.as_deref().and_then(code_key))
        .collect();
    // The games whose participations given the draws use.
    let played: Vec<i64> = draws
        .iter()
        .filter(|draw| draw.record.participation_used)
        .map(|draw| draw.record.rule_id)
        .collect();
    json!({
        "id": first_draw.id,
        "customer_id": customer_id,
        "used": used,
        "played": played,
        "seen": seen.stored(),
        "next": seen.after(draws).stored(),
        "limited": limited,
        "won": won,
        "audit": {
            "company": company,
            "customer_id": customer_id,
            "source": source,
            "created_at": at.to_string(),
            "draws": documents,
        },
    })
}

/// The draws of a stored audit record, each with the fields they share.
fn draws_of(mut audit: Value) -> Vec<Value> {
    let Some(Value::Array(draws)) = audit.get_mut("draws").map(Value::take) else {
        return Vec::new();
    };
    draws
        .into_iter()
        .map(|mut draw| {
            for field in SHARED_DRAW_FIELDS {
                draw[field] = audit[field].clone();
            }
            draw
        })
        .collect()
}

/// `iw_given` rows of `$company` whose rule is one of the `count` in
/// `$param`: one equality per rule, which the planner answers from the
/// (company, rule_id) index. It answers `rule_id IN $param` by reading every
/// stock row of the Company and filtering.
pub(crate) fn of_rules(param: &str, count: usize) -> String {
    let one: Vec<String> = (0..count)
        .map(|index| format!("(company = $company AND rule_id = ${param}[{index}])"))
        .collect();
    one.join(" OR ")
}

impl Store {
    /// Units given of every prize of `rules` (rule id, prize id → units), all
    /// stock shards together.
    pub async fn prizes_given(
        &self,
        company: &str,
        rules: &[i64],
    ) -> ApiResult<HashMap<(i64, String), i64>> {
        if rules.is_empty() {
            // No rule: nothing to read (and `WHERE` would have no condition).
            return Ok(HashMap::new());
        }
        let rows: Vec<Value> = first(
            self.db
                .query(format!(
                    "SELECT rule_id, prize_id, given FROM iw_given WHERE {}",
                    of_rules("rules", rules.len())
                ))
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
        let audits: Vec<Value> = first(
            self.db
                .query(format!(
                    "SELECT * OMIT id FROM iw_draws WHERE company = $company {condition} ORDER BY created_at, id"
                ))
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.unwrap_or_default().to_string())),
        )
        .await?;
        Ok(audits.into_iter().flat_map(draws_of).collect())
    }

    /// The draws of `company` whose audit records were made within `age`
    /// (by their time-ordered ids: a range of the table, not a scan of the
    /// Company's history), newest first, from at most `records` audit
    /// records.
    pub async fn draws_within(
        &self,
        company: &str,
        age: chrono::TimeDelta,
        records: usize,
    ) -> ApiResult<Vec<Value>> {
        // The id is made here from a number, so it is safe in the text.
        let since = crate::common::ids::earliest_id_within("drw", age);
        let audits: Vec<Value> = first(
            self.db
                .query(format!(
                    "SELECT * OMIT id FROM iw_draws:⟨{since}⟩.. WHERE company = $company ORDER BY created_at DESC LIMIT $records"
                ))
                .bind(("company", company.to_string()))
                .bind(("records", records as i64)),
        )
        .await?;
        Ok(audits.into_iter().flat_map(draws_of).collect())
    }

    /// Participations of `customer_id` in each (rule id, period key).
    pub async fn participations(
        &self,
        company: &str,
        customer_id: &str,
        periods: &[(i64, String)],
    ) -> ApiResult<HashMap<i64, i64>> {
        let stored: Option<Value> = first(
            self.db
                .query("RETURN type::record('customer_state', [$company, $customer]).rules")
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string())),
        )
        .await?;
        let counts = ParticipationCounts::from_stored(stored.as_ref());
        Ok(periods
            .iter()
            .map(|(rule, period)| (*rule, counts.count(*rule, period)))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::pipeline::occurrence::Earned;
    use crate::resources::instant_wins::store::draw_state::StateQuery;

    fn draw(id: &str, rule_id: i64, period: &str) -> PlannedDraw {
        PlannedDraw::lost(id, rule_id, period)
    }

    async fn record(store: &Store, write: &Value) -> ApiResult<()> {
        let customer = write["customer_id"].as_str().unwrap_or_default();
        store
            .insert_event(
                "c",
                customer,
                None,
                &Earned {
                    ledger: &[],
                    draw_write: write,
                    parts: &[],
                },
            )
            .await
    }

    #[tokio::test]
    async fn draws_decided_on_counts_that_changed_since_are_refused() {
        let store = Store::connect("mem://", None).await.unwrap();
        let at: Timestamp = "2026-11-22T10:00:00Z".parse().unwrap();
        let seen = ParticipationCounts::default();
        let first = draw_write(
            "c",
            "x",
            "cart:A",
            &[draw("drw_a", 7, "2026-11-22")],
            &seen,
            at,
        );
        let second = draw_write(
            "c",
            "x",
            "cart:B",
            &[draw("drw_b", 7, "2026-11-22")],
            &seen,
            at,
        );
        record(&store, &first).await.unwrap();
        let refused = record(&store, &second).await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::DrawContended);
        let counts = store
            .participations("c", "x", &[(7, "2026-11-22".to_string())])
            .await
            .unwrap();
        assert_eq!(counts[&7], 1, "the refused draw counted nothing");
        let draws = store.draws("c", Some("x")).await.unwrap();
        assert_eq!(draws.len(), 1);
        assert_eq!(draws[0]["draw_id"], "drw_a");
        assert_eq!(draws[0]["source"], "cart:A");
        assert_eq!(draws[0]["customer_id"], "x");
    }

    /// A draw of rule 7 that won one unit of `gift` (stock 2) from `shard`.
    fn won_gift(id: &str, shard: i64) -> PlannedDraw {
        let mut won = draw(id, 7, "campaign");
        won.record.prize = Some(crate::resources::instant_wins::draw_record::WonPrize {
            prize_id: "gift".into(),
            promotion_type: "reward",
            promotion_id: 11,
            points: None,
            points_kind: None,
            points_expire_at: None,
            stock: 2,
        });
        won.shard = Some(StockShard {
            index: shard,
            allowance: 1,
        });
        won
    }

    async fn gifts_given(store: &Store) -> i64 {
        let query = StateQuery {
            rule_id: 7,
            period: "campaign".into(),
            prize_ids: vec!["gift".into()],
            limited: true,
            targeted: false,
            game: false,
            challenge: false,
        };
        let state = store.instant_win_states("c", "x", &[query]).await.unwrap();
        state.counters[&(7, "gift".to_string())].total()
    }

    #[tokio::test]
    async fn units_given_come_from_the_view_until_a_draw_is_refused_on_them() {
        let store = Store::connect("mem://", None).await.unwrap();
        let at: Timestamp = "2026-11-22T10:00:00Z".parse().unwrap();
        let seen = ParticipationCounts::default();
        assert_eq!(gifts_given(&store).await, 0);
        let first = draw_write("c", "x", "cart:A", &[won_gift("drw_a", 0)], &seen, at);
        record(&store, &first).await.unwrap();
        // Another process sharing the store takes shard 1's unit.
        crate::storage::execute(store.db.query(
            "UPSERT type::record('iw_given', ['c', 7, 'gift', 1]) CONTENT { company: 'c', rule_id: 7, prize_id: 'gift', shard: 1, given: 1 };",
        ))
        .await
        .unwrap();
        assert_eq!(
            gifts_given(&store).await,
            1,
            "the view counts this process's unit and has not seen the other"
        );
        let second = draw_write("c", "y", "cart:B", &[won_gift("drw_b", 1)], &seen, at);
        let refused = record(&store, &second).await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::DrawContended);
        assert_eq!(gifts_given(&store).await, 2, "read again after the refusal");
    }

    #[tokio::test]
    async fn participations_and_draws_from_before_per_customer_records_are_migrated_once() {
        let store = Store::connect("mem://", None).await.unwrap();
        crate::storage::execute(store.db.query(
            "CREATE type::record('iw_participation', ['c', 7, 'x', '2026-11-21']) CONTENT { company: 'c', rule_id: 7, customer_id: 'x', period: '2026-11-21', count: 2 };
             CREATE type::record('iw_participation', ['c', 7, 'x', '2026-11-22']) CONTENT { company: 'c', rule_id: 7, customer_id: 'x', period: '2026-11-22', count: 1 };
             CREATE type::record('iw_participation', ['c', 8, 'x', 'campaign']) CONTENT { company: 'c', rule_id: 8, customer_id: 'x', period: 'campaign', count: 4 };
             CREATE type::record('iw_draw', 'drw_old') CONTENT { company: 'c', customer_id: 'x', draw_id: 'drw_old', rule_id: 7, source: 'cart:T1', created_at: '2026-11-21T09:00:00Z', random: 0.5 };
             DELETE migration:iw_per_customer; DELETE migration:customer_state;",
        ))
        .await
        .unwrap();
        store.apply_schema().await.unwrap();
        store.apply_schema().await.unwrap();
        let counts = store
            .participations(
                "c",
                "x",
                &[(7, "2026-11-21".to_string()), (8, "campaign".to_string())],
            )
            .await
            .unwrap();
        assert_eq!(counts[&7], 2);
        assert_eq!(counts[&8], 4);
        let today = store
            .participations("c", "x", &[(7, "2026-11-22".to_string())])
            .await
            .unwrap();
        assert_eq!(today[&7], 1);
        let draws = store.draws("c", Some("x")).await.unwrap();
        assert_eq!(draws.len(), 1);
        assert_eq!(draws[0]["draw_id"], "drw_old");
        assert_eq!(draws[0]["source"], "cart:T1");
    }
}
