//! A scenario's Customers, created before its first step: the body of
//! POST /customers, plus what they start with.
//!
//! ```yaml
//! customers:
//!   ana:
//!     email: ana@example.com
//!     attributes: { vip: true }
//!     points: 100                       # credited at the start; `wallet` too
//!     purchases:                        # their history, oldest first or not
//!       - { days_ago: 40, total: 600.00 }
//!       - { at: 2026-01-10T12:00:00Z, total: 80.00, location_code: MAD-1 }
//!     tier: silver                      # checked once the purchases are made
//! ```
//!
//! Each purchase is a real cart (POST /carts/realtime) sent with the clock
//! set to its time, so the history, the tiers and the limits it fills are
//! the ones the service keeps; the clock then returns to the scenario's.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::scenarios::format::Scenario;
use crate::scenarios::harness::Harness;
use crate::scenarios::run::StepFailure;

/// One purchase of a Customer's history.
struct Purchase {
    at: Timestamp,
    total: Value,
    location_code: Option<Value>,
}

/// Creates every Customer of `scenario`, in name order, with its starting
/// balances, purchases and tier: each name's id, or the failure of the
/// creation the service refused.
pub(crate) async fn create_customers(
    scenario: &Scenario,
    harness: &Harness,
) -> ApiResult<Result<BTreeMap<String, String>, StepFailure>> {
    let mut ids = BTreeMap::new();
    for (name, body) in &scenario.customers {
        let problem = |text: String| {
            ApiError::invalid(format!(
                "{}: Customer {name}: {text}",
                scenario.file.display()
            ))
        };
        let mut body = body.clone();
        let Some(fields) = body.as_object_mut() else {
            return Err(problem(
                "is not a map of the fields of POST /customers".into(),
            ));
        };
        let starting: Vec<(&str, Value)> = ["points", "wallet"]
            .into_iter()
            .filter_map(|kind| Some((kind, fields.remove(kind)?)))
            .collect();
        let purchases = purchases(fields.remove("purchases"), scenario.clock).map_err(problem)?;
        let tier = fields.remove("tier");
        let (status, created) = harness
            .send("POST", "/customers", Some(&body), &BTreeMap::new())
            .await?;
        let Some(id) = created["id"].as_str().filter(|_| status == 200) else {
            return Ok(Err(StepFailure {
                line: 0,
                step: format!("create Customer {name}"),
                differences: vec![format!("the Customer was not created ({status})")],
                expected: None,
                actual: (status, created),
                explanations: None,
            }));
        };
        for (kind, points) in starting {
            let credit = json!({"customer_id": id, "points": points, "kind": kind, "description": "scenario start"});
            let (status, answer) = harness
                .send("POST", "/scores/trigger", Some(&credit), &BTreeMap::new())
                .await?;
            if status != 200 {
                return Err(problem(format!(
                    "cannot start with {points} {kind}: {answer}"
                )));
            }
        }
        make_purchases(harness, scenario, name, id, &purchases)
            .await
            .map_err(problem)?;
        if let Some(tier) = tier {
            check_tier(harness, id, &tier).await.map_err(problem)?;
        }
        ids.insert(name.clone(), id.to_string());
    }
    Ok(Ok(ids))
}

/// The purchases `written`, oldest first; each `at` an instant or
/// `days_ago` days before the scenario's clock, before it either way.
fn purchases(written: Option<Value>, clock: Timestamp) -> Result<Vec<Purchase>, String> {
    let Some(written) = written else {
        return Ok(Vec::new());
    };
    let Value::Array(items) = written else {
        return Err("`purchases` is a list of `{ days_ago: 30, total: 25.00 }` or `{ at: 2026-01-10T12:00:00Z, total: 25.00 }`".into());
    };
    let mut purchases = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let said = |what: &str| format!("purchase {}: {what}", index + 1);
        let at = match (item.get("at"), item.get("days_ago")) {
            (Some(at), None) => at
                .as_str()
                .and_then(|at| at.parse::<Timestamp>().ok())
                .ok_or_else(|| said(&format!("`at` {at} is not a DateTime")))?,
            (None, Some(days)) => {
                let days = days
                    .as_i64()
                    .filter(|days| *days > 0)
                    .ok_or_else(|| said("`days_ago` is a whole number of days, 1 or more"))?;
                Timestamp::from(clock.as_datetime() - chrono::Duration::days(days))
            }
            _ => return Err(said("gives either `at` or `days_ago`")),
        };
        if at >= clock {
            return Err(said(&format!(
                "is at {at}, not before the scenario's clock ({clock})"
            )));
        }
        let total = item
            .get("total")
            .filter(|total| total.is_number() || total.is_string())
            .cloned()
            .ok_or_else(|| said("has no `total`"))?;
        purchases.push(Purchase {
            at,
            total,
            location_code: item.get("location_code").cloned(),
        });
    }
    purchases.sort_by_key(|purchase| purchase.at);
    Ok(purchases)
}

/// Sends each purchase as a cart of one line at its time, then puts the
/// clock back.
async fn make_purchases(
    harness: &Harness,
    scenario: &Scenario,
    name: &str,
    id: &str,
    purchases: &[Purchase],
) -> Result<(), String> {
    for (index, purchase) in purchases.iter().enumerate() {
        harness.clock.set(purchase.at);
        let mut cart = json!({
            "customer_id": id,
            "code": format!("HISTORY-{name}-{}", index + 1),
            "lines": [{"product_code": "HISTORY", "quantity": 1, "price": purchase.total}],
        });
        if let Some(location) = &purchase.location_code {
            cart["location_code"] = location.clone();
        }
        let sent = harness
            .send("POST", "/carts/realtime", Some(&cart), &BTreeMap::new())
            .await;
        harness.clock.set(scenario.clock);
        match sent {
            Ok((200, _)) => {}
            Ok((status, answer)) => {
                return Err(format!(
                    "purchase {} was refused ({status}): {answer}",
                    index + 1
                ));
            }
            Err(error) => return Err(error.to_string()),
        }
    }
    Ok(())
}

/// Whether the Customer `id` reached `tier` (its `segments.yaml`'s id); what
/// it reached instead when not.
async fn check_tier(harness: &Harness, id: &str, tier: &Value) -> Result<(), String> {
    let path = format!("/customers/{id}/tiers");
    let (status, answer) = harness
        .send("GET", &path, None, &BTreeMap::new())
        .await
        .map_err(|error| error.to_string())?;
    if status != 200 {
        return Err(format!("its tiers cannot be read ({status}): {answer}"));
    }
    let reached = answer.get("current_tier").cloned().unwrap_or(Value::Null);
    if &reached == tier {
        return Ok(());
    }
    let known: Vec<&str> = answer["tiers"]
        .as_array()
        .map(|tiers| tiers.iter().filter_map(|t| t["id"].as_str()).collect())
        .unwrap_or_default();
    Err(format!(
        "is to be in tier {tier}, but its attributes and purchases reach {} (the Company's tiers: {}); \
         tiers follow segments.yaml's conditions: give the purchases that reach it",
        if reached.is_null() {
            "none".to_string()
        } else {
            reached.to_string()
        },
        if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        }
    ))
}
