//! The records one benchmark cart writes, as the floor
//! ([`crate::bench::floor`]) writes them: the cart itself, drawn once
//! ([`BenchCart`]), and its records on each [`FloorLayout`]: their tables,
//! sizes and how many of each a cart of the benchmark's Company writes on
//! average.

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

/// The instant every floor cart is dated.
const AT: &str = "2026-11-27T10:00:00Z";

/// [`AT`] in milliseconds since the epoch: the time part of an event's id.
const AT_MILLIS: u64 = 1_795_773_600_000;

/// Which records a cart writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloorLayout {
    /// The service's layout today: a record per fact in a table per kind
    /// of fact, with the secondary indexes the service's schema defines.
    Today,
    /// The layout #55 proposes: one document per event keyed
    /// `[company, customer, time-ordered id]` holding its lines, ledger
    /// entries, draws and discounts; a record keying its code (a code is
    /// recorded once); one per-Customer state document (totals, balances,
    /// participation counts) moved by one upsert; the day buckets of its
    /// purchases in a record per month; stock shards as today. No secondary
    /// index.
    OneDocument,
}

impl FloorLayout {
    /// Both layouts, today's first.
    pub const ALL: [FloorLayout; 2] = [FloorLayout::Today, FloorLayout::OneDocument];

    /// The layout's name in the report and its JSON.
    pub fn name(self) -> &'static str {
        match self {
            FloorLayout::Today => "today",
            FloorLayout::OneDocument => "one-document",
        }
    }
}

/// One benchmark cart, drawn once and written on either layout.
#[derive(Debug, Clone)]
pub struct BenchCart {
    /// Its sequence number among the floor's carts (time-ordered).
    n: u64,
    customer: String,
    code: String,
    lines: Vec<Value>,
    total: f64,
    /// (balance kind, points) the cart moves: points, and a wallet's for a
    /// large basket.
    balances: Vec<(&'static str, i64)>,
    /// Its five Instant Win draws' audit.
    draws: Vec<Value>,
    /// (rule, stock shard) of each prize won.
    won: Vec<(i64, i64)>,
    discounted: bool,
}

impl BenchCart {
    /// Cart `n` of a Customer drawn among `customers`, as a cart of the
    /// benchmark's Company: 1 to 15 lines, points (and a wallet's credit
    /// for a large basket), five Instant Win draws each won one time in ten,
    /// a discount four times in five. As in the service, the Customer is
    /// one of `lane`'s and a prize's unit comes from one of the lane's stock
    /// shards, so that concurrent batches of different lanes do not write
    /// the same records.
    pub fn of(n: u64, customers: u64, seed: u64, lane: WriteLane) -> BenchCart {
        let mut rng = StdRng::seed_from_u64(seed ^ n.rotate_left(29));
        let customer = loop {
            let code = customer_code(rng.random_range(0..customers.max(1)));
            if customers < u64::from(lane.count)
                || WriteLane::of(&code, lane.count as usize) == lane
            {
                break code;
            }
        };
        let count = rng.random_range(1..=15);
        let mut total = 0.0;
        let lines: Vec<Value> = (0..count)
            .map(|_| {
                let price = f64::from(rng.random_range(50u32..4_000)) / 100.0;
                let quantity = f64::from(rng.random_range(1u32..=3));
                total += price * quantity;
                json!({
                    "product_code": format!("P{:05}", rng.random_range(0..2_000)),
                    "quantity": quantity, "price": price,
                })
            })
            .collect();
        let discounted = rng.random_bool(0.8);
        let mut balances = vec![("points", total as i64)];
        if total >= 80.0 {
            balances.push(("wallet", (total * 2.0) as i64));
        }
        let mut draws = Vec::new();
        let mut won = Vec::new();
        for rule in CART_DRAWS {
            let wins = rng.random_bool(0.1);
            draws.push(json!({
                "rule_id": rule, "random": rng.random::<f64>(),
                "weights": [0.1, 0.9], "stock_seen": 999_000,
                "prize": if wins { json!({"prize_id": "gift"}) } else { Value::Null },
            }));
            if wins {
                let shard = loop {
                    let shard = rng.random_range(0..STOCK_SHARDS);
                    if lane.owns_shard(shard) {
                        break shard;
                    }
                };
                won.push((rule, shard));
            }
        }
        BenchCart {
            n,
            customer,
            code: format!("F{seed:x}-{n}"),
            lines,
            total,
            balances,
            draws,
            won,
            discounted,
        }
    }

    /// The cart's records on `layout`.
    pub fn records(&self, layout: FloorLayout) -> CartRecords {
        let mut records = CartRecords::default();
        match layout {
            FloorLayout::Today => self.today(&mut records),
            FloorLayout::OneDocument => self.one_document(&mut records),
        }
        for (rule, shard) in &self.won {
            records.push(
                "iw_given",
                json!({
                    "id": [COMPANY, rule, "gift", shard], "company": COMPANY,
                    "rule_id": rule, "prize_id": "gift", "shard": shard, "given": 1,
                }),
            );
        }
        records
    }

    /// The participation counts of the cart's draws, by rule.
    fn counts(&self) -> Map<String, Value> {
        CART_DRAWS
            .iter()
            .map(|rule| (rule.to_string(), json!({ "day:2026-11-27": 1 })))
            .collect()
    }

    /// The month's day buckets of the Customer's purchases after the cart,
    /// as the service keeps them: a weekly shopper's four days of the
    /// month, today's included.
    fn purchase_month(&self) -> Value {
        let days: Map<String, Value> = ["06", "13", "20"]
            .iter()
            .map(|day| (day.to_string(), json!({"spent": "42.10", "carts": 1})))
            .chain([(
                "27".to_string(),
                json!({"spent": format!("{:.2}", self.total), "carts": 1}),
            )])
            .collect();
        json!({
            "id": [COMPANY, self.customer, "2026-11"], "company": COMPANY,
            "customer_id": self.customer, "month": "2026-11", "days": days,
        })
    }

    /// The discounts the cart got, as a record of them holds them.
    fn discounts(&self) -> Value {
        json!({ "amount": "1.50", "discounts": [{"rule_id": 10_000, "amount": "1.50"}] })
    }

    /// The cart's records on today's layout: the cart, the Customer's
    /// purchase days, a ledger record per balance moved, the Customer's state
    /// (totals, balances, participation counts), the draws' audit, the
    /// discounts.
    fn today(&self, records: &mut CartRecords) {
        let (customer, code, total) = (&self.customer, &self.code, self.total);
        records.push(
            "cart",
            json!({
                "id": [COMPANY, code], "code": code, "company": COMPANY,
                "customer_id": customer, "date": AT, "location_code": "store-7",
                "lines": self.lines, "total": total, "discount_total": 1.5,
                "points_earned": total as i64, "created_at": AT,
            }),
        );
        records.push("purchase_month", self.purchase_month());
        for (i, (kind, points)) in self.balances.iter().enumerate() {
            let entry_id = format!("pt_{code}_{i}");
            records.push(
                "ledger_write",
                json!({
                    "id": entry_id, "entry_id": entry_id, "company": COMPANY,
                    "customer_id": customer, "kind": kind, "cart_id": code,
                    "reason": "cart", "created_at": AT,
                    "entries": [{ "points": points, "rule_id": 10_002 }],
                }),
            );
        }
        let mut state = json!({
            "id": [COMPANY, customer], "company": COMPANY, "customer_id": customer,
            "lifetime_spend": total, "cart_count": 1, "last_purchase": AT,
            "points": 0, "wallet": 0, "rules": self.counts(),
        });
        for (kind, points) in &self.balances {
            state[*kind] = json!(points);
        }
        records.push("customer_state", state);
        records.push(
            "iw_draws",
            json!({
                "id": format!("drw_{code}"), "company": COMPANY, "customer_id": customer,
                "source": {"cart_id": code}, "created_at": AT, "draws": self.draws,
            }),
        );
        if self.discounted {
            let mut discounts = self.discounts();
            discounts["id"] = json!([COMPANY, format!("cart:{code}")]);
            discounts["tid"] = json!(format!("cart:{code}"));
            discounts["company"] = json!(COMPANY);
            discounts["customer_id"] = json!(customer);
            discounts["cart_id"] = json!(code);
            discounts["created_at"] = json!(AT);
            records.push("discount_transaction", discounts);
        }
    }

    /// The cart's records on the one-document layout: the event document
    /// with everything the cart caused, its code's key, the Customer's state
    /// as the service would hold it after the cart (written whole), and the
    /// month's day buckets of its purchases (a weekly shopper's four or five
    /// days, today's included). The buckets are not in the state document:
    /// a year of them there (52 days) cost 0.15 to 0.19 ms more per cart at
    /// the floor, rewritten by every event (BENCHMARKS.md).
    fn one_document(&self, records: &mut CartRecords) {
        let (customer, code, total) = (&self.customer, &self.code, self.total);
        // Time-ordered within the Customer: the instant, then a sequence.
        let event_id = format!("{AT_MILLIS:013x}{:07x}", self.n);
        let id = json!([COMPANY, customer, event_id]);
        let ledger: Vec<Value> = self
            .balances
            .iter()
            .enumerate()
            .map(|(i, (kind, points))| {
                json!({
                    "id": format!("pt_{code}_{i}"), "kind": kind, "points": points,
                    "reason": "cart", "rule_id": 10_002,
                    "expires_from": null, "expires_until": null,
                })
            })
            .collect();
        records.push(
            "event",
            json!({
                "id": id, "kind": "cart", "code": code, "date": AT, "created_at": AT,
                "location_code": "store-7", "lines": self.lines, "total": total,
                "discount_total": 1.5, "points_earned": total as i64,
                "ledger": ledger, "draws": self.draws,
                "discounts": if self.discounted { self.discounts() } else { Value::Null },
            }),
        );
        records.push("event_code", json!({ "id": [COMPANY, code], "event": id }));
        records.push("purchase_month", self.purchase_month());
        let balances: Map<String, Value> = self
            .balances
            .iter()
            .map(|(kind, points)| (kind.to_string(), json!(points)))
            .collect();
        records.push(
            "customer_state",
            json!({
                "id": [COMPANY, customer], "version": 1,
                "lifetime_spend": format!("{:.2}", total + 2_189.2), "cart_count": 53,
                "last_purchase": AT, "balances": balances, "draws": self.counts(),
            }),
        );
    }
}

/// The records one cart writes on a layout, by table.
#[derive(Debug, Default)]
pub struct CartRecords {
    rows: Vec<(&'static str, Value)>,
}

impl CartRecords {
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

    fn records(
        n: u64,
        customers: u64,
        seed: u64,
        lane: WriteLane,
        layout: FloorLayout,
    ) -> CartRecords {
        BenchCart::of(n, customers, seed, lane).records(layout)
    }

    #[test]
    fn a_cart_writes_one_cart_its_totals_draws_and_at_least_one_ledger_record() {
        for n in 0..50 {
            let records = records(n, 100, 7, WriteLane::ONLY, FloorLayout::Today);
            let count = |table: &str| records.rows.iter().filter(|(t, _)| *t == table).count();
            assert_eq!(count("cart"), 1);
            assert_eq!(count("purchase_month"), 1);
            assert_eq!(count("customer_state"), 1);
            assert_eq!(count("iw_draws"), 1);
            assert!((1..=2).contains(&count("ledger_write")));
            assert!(count("iw_given") <= CART_DRAWS.len());
        }
    }

    #[test]
    fn on_one_document_a_cart_writes_its_event_its_code_and_its_customers_state() {
        for n in 0..50 {
            let cart = BenchCart::of(n, 100, 7, WriteLane::ONLY);
            let today = cart.records(FloorLayout::Today).into_rows();
            let one = cart.records(FloorLayout::OneDocument).into_rows();
            let count = |rows: &[(&str, Value)], table: &str| {
                rows.iter().filter(|(t, _)| *t == table).count()
            };
            assert_eq!(count(&one, "event"), 1);
            assert_eq!(count(&one, "event_code"), 1);
            assert_eq!(count(&one, "customer_state"), 1);
            assert_eq!(count(&one, "purchase_month"), 1);
            // The same prizes are won on both.
            assert_eq!(count(&one, "iw_given"), count(&today, "iw_given"));
            assert_eq!(one.len(), 4 + count(&today, "iw_given"));
            let (_, event) = one.iter().find(|(t, _)| *t == "event").expect("an event");
            assert_eq!(event["id"][1], json!(cart.customer));
            assert_eq!(
                event["ledger"].as_array().map(Vec::len),
                Some(count(&today, "ledger_write"))
            );
            assert_eq!(
                event["draws"].as_array().map(Vec::len),
                Some(CART_DRAWS.len())
            );
        }
    }

    #[test]
    fn an_events_id_starts_with_the_instant_it_is_dated() {
        let at: chrono::DateTime<chrono::Utc> = AT.parse().expect("an instant");
        assert_eq!(at.timestamp_millis() as u64, AT_MILLIS);
    }

    #[test]
    fn each_writer_writes_the_customers_and_stock_shards_of_its_own_lane() {
        for index in 0..2 {
            let lane = WriteLane { index, count: 2 };
            for n in 0..40 {
                for layout in FloorLayout::ALL {
                    for (table, row) in records(n, 1_000, 3, lane, layout).rows {
                        let customer = row["customer_id"].as_str().or(row["id"][1].as_str());
                        if let Some(customer) = customer.filter(|_| table != "event_code") {
                            assert_eq!(WriteLane::of(customer, 2), lane, "{table}");
                        }
                        if table == "iw_given" {
                            assert!(lane.owns_shard(row["shard"].as_i64().unwrap()));
                        }
                    }
                }
            }
        }
    }
}
