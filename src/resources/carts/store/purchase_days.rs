//! A Customer's purchase days as the store keeps them: a record per Customer
//! and month (`purchase_month`, see the carts' `schema.surql`) that the
//! group commit adds each cart to, read back as [`PurchaseDays`].

use chrono::NaiveDate;
use serde_json::{Value, json};

use crate::common::amount::Amount;
use crate::resources::carts::purchase_days::PurchaseDay;
use crate::resources::carts::purchase_days::PurchaseDays;
use crate::storage::event_transaction::BatchPart;

/// Part of the group commit: the purchase days the batch's carts move
/// (`$purchase_days`, one row per cart, made by [`cart_rows`]), in a record
/// per Customer and month holding its days, `{ "DD": { spent, carts } }`:
/// the history a rule reads is a range of a dozen records a year, whatever
/// the Customer bought. (The days stay out of the Customer's state, which every
/// cart rewrites whole: a year of them there cost more than the rest of the
/// cart's write, BENCHMARKS.md, "The floor on the proposed layout".)
pub(crate) const STORE_PURCHASE_DAYS: BatchPart = BatchPart {
    binding: "purchase_days",
    statements: "
    INSERT INTO purchase_month $purchase_days ON DUPLICATE KEY UPDATE
        days = object::extend(days ?? {}, object::from_entries([[$input.day, {
            spent: <decimal> (days[$input.day].spent ?? 0) + <decimal> $input.spent,
            carts: (days[$input.day].carts ?? 0) + 1
        }]]))
        RETURN NONE;",
};

/// The row [`STORE_PURCHASE_DAYS`] writes for the cart of `write` of
/// `company` (its `total`, on its cart's `day`, "YYYY-MM-DD"): inserted whole when
/// its month has no record yet, added to the record's day otherwise.
pub(super) fn purchase_day_row(company: &str, write: &Value) -> Value {
    let day = write["cart"]["day"].as_str().unwrap_or_default();
    let (month, day_of_month) = day.rsplit_once('-').unwrap_or((day, ""));
    json!({
        "id": [company, write["customer"], month],
        "company": company,
        "customer_id": write["customer"],
        "month": month,
        "days": {day_of_month: {"spent": write["total"], "carts": 1}},
        "day": day_of_month,
        "spent": write["total"],
    })
}

/// The purchase days of stored `purchase_month` records (`month` and its
/// `days`, as [`STORE_PURCHASE_DAYS`] and `fn::recount_purchase_days` write
/// them), skipping unreadable ones.
pub(crate) fn days_from_months(months: &[Value]) -> PurchaseDays {
    let days = months.iter().flat_map(|record| {
        let month = record.get("month").and_then(Value::as_str).unwrap_or("");
        let days = record.get("days").and_then(Value::as_object);
        days.into_iter().flatten().filter_map(move |(day, bucket)| {
            Some(PurchaseDay {
                day: NaiveDate::parse_from_str(&format!("{month}-{day}"), "%Y-%m-%d").ok()?,
                spent: Amount::from_stored(bucket.get("spent")?).ok()?.0,
                carts: bucket.get("carts")?.as_i64()?,
            })
        })
    });
    PurchaseDays::of(days)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::resources::carts::model::Cart;
    use crate::resources::carts::store::CartWrite;
    use crate::resources::carts::store::RECOUNT_TOTALS;
    use crate::storage::Store;
    use crate::storage::execute;
    use crate::storage::first;

    /// The purchase days of Customer `x` of Company `c`, as "day spent carts".
    async fn days_of(store: &Store) -> Vec<String> {
        days_of_customer(store, "x").await
    }

    /// The purchase days of Customer `customer` of Company `c`.
    async fn days_of_customer(store: &Store, customer: &str) -> Vec<String> {
        let months: Vec<Value> = first(
            store
                .db
                .query("SELECT month, days FROM purchase_month:['c', $customer, '']..['c', $customer, '~']")
                .bind(("customer", customer.to_string())),
        )
        .await
        .unwrap();
        days_from_months(&months)
            .days()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    async fn record(store: &Store, code: &str, total: f64, date: &str, day: &str) {
        record_of(store, "x", code, total, date, day).await;
    }

    async fn record_of(
        store: &Store,
        customer: &str,
        code: &str,
        total: f64,
        date: &str,
        day: &str,
    ) {
        let cart: Cart = serde_json::from_value(json!({
            "id": code, "customer_id": customer, "date": date,
            "lines": [{"product_code": "A", "quantity": 1.0, "price": total}],
            "total": total, "discount_total": 0.0, "points_earned": 0,
            "created_at": date,
        }))
        .unwrap();
        let write = CartWrite {
            day: day.parse().unwrap(),
            ..CartWrite::earning_only(&cart, &[])
        };
        store.insert_cart("c", write).await.unwrap();
    }

    /// Recounts the totals and days of Customer `x` of Company `c`.
    pub(crate) async fn recount(store: &Store) {
        execute(
            store
                .db
                .query(RECOUNT_TOTALS)
                .bind(("company", "c".to_string()))
                .bind(("customer", "x".to_string())),
        )
        .await
        .unwrap();
    }

    #[tokio::test]
    async fn each_cart_adds_to_its_day_and_a_recount_finds_the_same_days() {
        let store = Store::connect("mem://", None).await.unwrap();
        // Two carts on a day (0.1 and 0.2 make 0.3), one the next month;
        // the day is the one given (a Location's), not the date's UTC day.
        record(&store, "A", 0.1, "2026-10-31T23:30:00Z", "2026-11-01").await;
        record(&store, "B", 0.2, "2026-11-01T09:00:00Z", "2026-11-01").await;
        record(&store, "C", 7.0, "2026-10-03T10:00:00Z", "2026-10-03").await;
        let written = days_of(&store).await;
        assert_eq!(written, ["2026-10-03 7 1", "2026-11-01 0.3 2"]);
        recount(&store).await;
        assert_eq!(days_of(&store).await, written);
        // Another Customer's days are its own.
        let others: Vec<Value> = first(
            store
                .db
                .query("SELECT VALUE month FROM purchase_month WHERE customer_id != 'x'"),
        )
        .await
        .unwrap();
        assert!(others.is_empty());
    }

    #[tokio::test]
    async fn a_store_written_before_days_were_kept_gets_them_once() {
        let store = Store::connect("mem://", None).await.unwrap();
        // Carts as they were written before: no day kept with them, no
        // purchase days; one cancelled, with its cancellation.
        execute(store.db.query(
            "CREATE type::record('cart', ['c', 'OLD-1']) CONTENT {
                 company: 'c', code: 'OLD-1', customer_id: 'x', date: '2026-05-03T22:30:00Z',
                 total: '5.00', discount_total: '0', lines: []
             };
             CREATE type::record('cart', ['c', 'OLD-2']) CONTENT {
                 company: 'c', code: 'OLD-2', customer_id: 'x', date: '2026-05-03T08:00:00Z',
                 total: 2.5dec, discount_total: 0dec, lines: []
             };
             CREATE type::record('cart', ['c', 'OLD-3']) CONTENT {
                 company: 'c', code: 'OLD-3', customer_id: 'x', date: '2026-05-02T08:00:00Z',
                 total: '9', discount_total: '0', lines: [], cancelled_by: 'OLD-3-c'
             };
             CREATE type::record('cart', ['c', 'OLD-3-c']) CONTENT {
                 company: 'c', code: 'OLD-3-c', customer_id: 'x', date: '2026-05-02T08:00:00Z',
                 total: '-9', discount_total: '0', lines: [], cancels: 'OLD-3'
             };
             DELETE purchase_month;
             DELETE migration:purchase_days;",
        ))
        .await
        .unwrap();
        assert!(days_of(&store).await.is_empty());
        store.apply_schema().await.unwrap();
        // Each on its UTC day; the cancelled cart and its cancellation on none.
        assert_eq!(days_of(&store).await, ["2026-05-03 7.5 2"]);
        // Carts recorded since add to their days, and a restart counts
        // nothing again.
        record(&store, "NEW", 1.0, "2026-05-03T23:00:00Z", "2026-05-04").await;
        execute(
            store
                .db
                .query("DELETE purchase_month:['c', 'x', '2026-05'];"),
        )
        .await
        .unwrap();
        store.apply_schema().await.unwrap();
        assert!(days_of(&store).await.is_empty(), "the migration ran once");
        recount(&store).await;
        assert_eq!(
            days_of(&store).await,
            ["2026-05-03 7.5 2", "2026-05-04 1 1"]
        );
    }

    #[tokio::test]
    async fn a_merge_moves_the_merged_customers_days_to_the_target() {
        use crate::resources::merges::store::CustomerChanges;

        let store = Store::connect("mem://", None).await.unwrap();
        record(&store, "X1", 2.0, "2026-11-02T10:00:00Z", "2026-11-02").await;
        record_of(&store, "y", "Y1", 0.5, "2026-11-02T12:00:00Z", "2026-11-02").await;
        record_of(&store, "y", "Y2", 4.0, "2026-10-20T12:00:00Z", "2026-10-20").await;
        // The merge moves y's carts to x and recounts both, as the merge
        // service plans it.
        let merge = CustomerChanges {
            cart_moves: vec![
                ("Y1".into(), "y".into(), "x".into()),
                ("Y2".into(), "y".into(), "x".into()),
            ],
            restat: vec!["x".into(), "y".into()],
            ..Default::default()
        };
        store.apply_customer_changes("c", &merge).await.unwrap();
        assert_eq!(
            days_of(&store).await,
            ["2026-10-20 4 1", "2026-11-02 2.5 2"]
        );
        assert!(days_of_customer(&store, "y").await.is_empty());
    }
}
