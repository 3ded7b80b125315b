//! The records one benchmark cart writes on today's layout, as the floor
//! ([`crate::bench::floor`]) writes them: their tables, sizes and how many of
//! each a cart of the benchmark's Company writes on average.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Map, Value, json};

use crate::bench::company::customer_code;
use crate::storage::write_lanes::WriteLane;

/// The Company the floor's records belong to.
pub(crate) const COMPANY: &str = "bench";

/// The Instant Wins every benchmark cart draws (campaign files `n % 10 == 7`
/// of 50), each with a limited prize won one draw in ten.
const CART_DRAWS: [i64; 5] = [10_007, 10_017, 10_027, 10_037, 10_047];

/// The shards a limited prize's stock is kept in.
const STOCK_SHARDS: i64 = 16;

/// The records one benchmark cart writes, by table.
#[derive(Debug, Default)]
pub struct CartRecords {
    rows: Vec<(&'static str, Value)>,
}

impl CartRecords {
    /// The records of cart `n` of a Customer drawn among `customers`, as the
    /// service writes them for a cart of the benchmark's Company: the cart
    /// (1 to 15 lines), the Customer's purchase totals, a points ledger record
    /// and its balance (and a wallet's for a large basket), the participation
    /// counts of its five Instant Win draws and their audit, a unit of stock
    /// for each prize won (one draw in ten), and the discounts it got. As in
    /// the service, the Customer is one of `lane`'s and a prize's unit comes
    /// from one of the lane's stock shards, so that concurrent batches of
    /// different lanes do not write the same records.
    pub fn of(n: u64, customers: u64, seed: u64, lane: WriteLane) -> CartRecords {
        let mut rng = StdRng::seed_from_u64(seed ^ n.rotate_left(29));
        let customer = loop {
            let code = customer_code(rng.random_range(0..customers.max(1)));
            if customers < u64::from(lane.count)
                || WriteLane::of(&code, lane.count as usize) == lane
            {
                break code;
            }
        };
        let code = format!("F{seed:x}-{n}");
        let at = "2026-11-27T10:00:00Z";
        let mut records = CartRecords::default();
        let count = rng.random_range(1..=15);
        let mut total = 0.0;
        let lines: Vec<Value> = (0..count)
            .map(|_| {
                let price = f64::from(rng.random_range(50u32..4_000)) / 100.0;
                let quantity = f64::from(rng.random_range(1u32..=3));
                total += price * quantity;
                json!({
                    "product_code": format!("P{:05}", rng.random_range(0..2_000)),
                    "quantity": quantity, "price": price, "discount": 0.0,
                    "taxonomies": [], "features": {},
                })
            })
            .collect();
        let discounted = rng.random_bool(0.8);
        records.push(
            "cart",
            json!({
                "id": [COMPANY, code], "code": code, "company": COMPANY,
                "customer_id": customer, "date": at, "location_code": "store-7",
                "lines": lines, "total": total, "discount_total": 1.5,
                "points_earned": total as i64, "created_at": at,
            }),
        );
        records.push(
            "customer_stats",
            json!({
                "id": [COMPANY, customer], "company": COMPANY, "customer_id": customer,
                "lifetime_spend": total, "cart_count": 1, "last_purchase": at,
            }),
        );
        let mut balances = vec![("points", total as i64)];
        if total >= 80.0 {
            balances.push(("wallet", (total * 2.0) as i64));
        }
        for (i, (kind, points)) in balances.into_iter().enumerate() {
            let entry_id = format!("pt_{code}_{i}");
            records.push(
                "ledger_write",
                json!({
                    "id": entry_id, "entry_id": entry_id, "company": COMPANY,
                    "customer_id": customer, "kind": kind, "cart_id": code,
                    "expires_from": null, "expires_until": null,
                    "entries": [{
                        "id": entry_id, "points": points, "reason": "cart",
                        "rule_id": 10_002, "created_at": at,
                    }],
                }),
            );
            records.push(
                "points_balance",
                json!({
                    "id": [COMPANY, customer, kind], "company": COMPANY,
                    "customer_id": customer, "kind": kind, "balance": points,
                }),
            );
        }
        let mut counts = Map::new();
        let mut draws = Vec::new();
        for rule in CART_DRAWS {
            counts.insert(rule.to_string(), json!({ "day:2026-11-27": 1 }));
            let won = rng.random_bool(0.1);
            draws.push(json!({
                "rule_id": rule, "random": rng.random::<f64>(),
                "weights": [0.1, 0.9], "stock_seen": 999_000,
                "prize": if won { json!({"prize_id": "gift"}) } else { Value::Null },
            }));
            if won {
                let shard = loop {
                    let shard = rng.random_range(0..STOCK_SHARDS);
                    if lane.owns_shard(shard) {
                        break shard;
                    }
                };
                records.push(
                    "iw_given",
                    json!({
                        "id": [COMPANY, rule, "gift", shard], "company": COMPANY,
                        "rule_id": rule, "prize_id": "gift", "shard": shard, "given": 1,
                    }),
                );
            }
        }
        records.push(
            "iw_counts",
            json!({
                "id": [COMPANY, customer], "company": COMPANY, "customer_id": customer,
                "rules": counts,
            }),
        );
        records.push(
            "iw_draws",
            json!({
                "id": format!("drw_{code}"), "company": COMPANY, "customer_id": customer,
                "source": {"cart_id": code}, "created_at": at, "draws": draws,
            }),
        );
        if discounted {
            records.push(
                "discount_transaction",
                json!({
                    "id": [COMPANY, format!("cart:{code}")], "tid": format!("cart:{code}"),
                    "company": COMPANY, "customer_id": customer, "cart_id": code,
                    "created_at": at, "amount": "1.50",
                    "discounts": [{"rule_id": 10_000, "amount": "1.50"}],
                }),
            );
        }
        records
    }

    /// The records, each with its table.
    pub fn into_rows(self) -> Vec<(&'static str, Value)> {
        self.rows
    }

    fn push(&mut self, table: &'static str, row: Value) {
        self.rows.push((table, row));
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cart_writes_one_cart_its_totals_draws_and_at_least_one_ledger_record() {
        for n in 0..50 {
            let records = CartRecords::of(n, 100, 7, WriteLane::ONLY);
            let count = |table: &str| records.rows.iter().filter(|(t, _)| *t == table).count();
            assert_eq!(count("cart"), 1);
            assert_eq!(count("customer_stats"), 1);
            assert_eq!(count("iw_counts"), 1);
            assert_eq!(count("iw_draws"), 1);
            assert!((1..=2).contains(&count("ledger_write")));
            assert_eq!(count("ledger_write"), count("points_balance"));
            assert!(count("iw_given") <= CART_DRAWS.len());
        }
    }

    #[test]
    fn each_writer_writes_the_customers_and_stock_shards_of_its_own_lane() {
        for index in 0..2 {
            let lane = WriteLane { index, count: 2 };
            for n in 0..40 {
                let records = CartRecords::of(n, 1_000, 3, lane);
                for (table, row) in &records.rows {
                    if let Some(customer) = row["customer_id"].as_str() {
                        assert_eq!(WriteLane::of(customer, 2), lane, "{table}");
                    }
                    if *table == "iw_given" {
                        assert!(lane.owns_shard(row["shard"].as_i64().unwrap()));
                    }
                }
            }
        }
    }
}
