use serde_json::{Value, json};

use super::*;
use crate::pipeline::store::FactsOf;
use crate::pipeline::store::FactsRead;
use crate::resources::points::model::PointsKind;
use crate::storage::Store;
use crate::storage::execute;
use crate::storage::first;

/// A cart of `customer` (`code`, `total` as decimal text, dated `date`)
/// earning `points`, drawing when `rules` is set.
fn cart(
    code: &str,
    customer: &str,
    total: &str,
    date: &str,
    points: i64,
    rules: Option<Value>,
) -> Value {
    json!({
        "company": "c", "customer": customer,
        "cart": {"code": code}, "total": total, "date": date,
        "balances": [{"customer_id": customer, "kind": "points", "delta": points}],
        "draw_write": rules.map(|rules| json!({"customer_id": customer, "next": rules})),
    })
}

/// The stored state of `customer` of `c`.
async fn state(store: &Store, customer: &str) -> Value {
    let state: Option<Value> = first(
        store
            .db
            .query("RETURN type::record('customer_state', ['c', $customer]).{lifetime_spend: <string> lifetime_spend, cart_count, last_purchase, points, wallet, rules}")
            .bind(("customer", customer.to_string())),
    )
    .await
    .unwrap();
    state.unwrap_or(Value::Null)
}

#[test]
fn an_event_moves_the_state_of_each_customer_it_changes_once() {
    let mut write = cart(
        "T1",
        "x",
        "12.30",
        "2026-11-27T10:00:00Z",
        12,
        Some(json!({"7": {"2026-11-27": 1}})),
    );
    write["balances"] = json!([
        {"customer_id": "x", "kind": "points", "delta": 12},
        {"customer_id": "x", "kind": "wallet", "delta": 500},
        {"customer_id": "y", "kind": "points", "delta": -3},
        {"customer_id": "x", "kind": "points", "delta": 2},
    ]);
    let moves = state_moves("c", &write);
    assert_eq!(
        moves,
        [
            json!({
                "id": ["c", "x"], "company": "c", "customer_id": "x",
                "lifetime_spend": "12.30", "cart_count": 1, "last_purchase": "2026-11-27T10:00:00Z",
                "points": 14, "wallet": 500, "rules": {"7": {"2026-11-27": 1}},
            }),
            json!({
                "id": ["c", "y"], "company": "c", "customer_id": "y",
                "lifetime_spend": "0", "cart_count": 0, "points": -3, "wallet": 0,
            }),
        ]
    );

    // A Custom Event earning nothing changes no state.
    let nothing = json!({"company": "c", "customer": "x", "cart": null, "event": {}, "balances": [], "draw_write": null});
    assert!(state_moves("c", &nothing).is_empty());
}

#[test]
fn every_points_kind_is_a_balance_of_the_state() {
    for kind in [PointsKind::Points, PointsKind::Wallet] {
        // A kind added to PointsKind stops this match from compiling: add
        // it to the list above and to BALANCE_KINDS.
        match kind {
            PointsKind::Points | PointsKind::Wallet => {}
        }
        assert!(BALANCE_KINDS.contains(&kind.name()), "{kind:?}");
    }
}

#[tokio::test]
async fn a_batch_of_moves_adds_up_exactly_and_keeps_the_newest_purchase() {
    let store = Store::connect("mem://", None).await.unwrap();
    let rules = json!({"7": {"2026-11-27": 1}});
    let events = [
        cart(
            "T1",
            "x",
            "0.10",
            "2026-11-27T10:00:00Z",
            5,
            Some(rules.clone()),
        ),
        cart("T2", "x", "0.20", "2026-11-20T10:00:00Z", 7, None),
        cart("T3", "y", "4346658.73", "2026-11-21T10:00:00Z", 0, None),
    ];
    let rows: Vec<Value> = events.iter().flat_map(|e| state_moves("c", e)).collect();
    let text = format!("BEGIN; {} COMMIT;", MOVE_CUSTOMER_STATES.statements);
    execute(store.db.query(text.as_str()).bind(("state_moves", rows)))
        .await
        .unwrap();
    assert_eq!(
        state(&store, "x").await,
        json!({
            "lifetime_spend": "0.3", "cart_count": 2, "last_purchase": "2026-11-27T10:00:00Z",
            "points": 12, "wallet": 0, "rules": rules,
        })
    );
    assert_eq!(state(&store, "y").await["lifetime_spend"], "4346658.73");

    // A later batch adds to what is stored; counts it does not draw stay.
    let later = state_moves("c", &cart("T4", "x", "1", "2026-11-28T09:00:00Z", -2, None));
    execute(store.db.query(text.as_str()).bind(("state_moves", later)))
        .await
        .unwrap();
    let x = state(&store, "x").await;
    assert_eq!(
        (
            &x["lifetime_spend"],
            &x["cart_count"],
            &x["points"],
            &x["rules"]
        ),
        (&json!("1.3"), &json!(3), &json!(10), &rules)
    );
    assert_eq!(x["last_purchase"], "2026-11-28T09:00:00Z");
}

#[tokio::test]
async fn a_store_written_before_folds_its_three_tables_into_states_once() {
    let store = Store::connect("mem://", None).await.unwrap();
    execute(store.db.query(
        "CREATE type::record('customer_stats', ['c', 'x']) CONTENT {
             company: 'c', customer_id: 'x', lifetime_spend: 3.63dec, cart_count: 2,
             last_purchase: '2026-11-01T10:00:00Z'
         };
         CREATE type::record('points_balance', ['c', 'x', 'points']) CONTENT { company: 'c', customer_id: 'x', kind: 'points', balance: 40 };
         CREATE type::record('points_balance', ['c', 'x', 'wallet']) CONTENT { company: 'c', customer_id: 'x', kind: 'wallet', balance: 250 };
         CREATE type::record('points_balance', ['c', 'y', 'points']) CONTENT { company: 'c', customer_id: 'y', kind: 'points', balance: 3 };
         CREATE type::record('iw_counts', ['c', 'y']) CONTENT { company: 'c', customer_id: 'y', rules: { '7': { '2026-11-22': 2 } } };
         DELETE migration:customer_state;",
    ))
    .await
    .unwrap();
    store.apply_schema().await.unwrap();
    store.apply_schema().await.unwrap();

    let facts = |id: &'static str| {
        let store = store.clone();
        async move {
            let read = FactsRead {
                of: FactsOf::Id(id),
                history_since: None,
                queries: &[],
                printed_once: false,
            };
            store.read_facts("c", read).await.unwrap().facts
        }
    };
    let x = facts("x").await;
    assert_eq!(
        (
            x.totals.lifetime_spend,
            x.totals.cart_count,
            x.points_balance
        ),
        (3.63, 2, 40)
    );
    assert_eq!(
        x.totals.last_purchase.map(|at| at.to_rfc3339()),
        Some("2026-11-01T10:00:00+00:00".to_string())
    );
    assert_eq!(
        store.balance("c", "x", PointsKind::Wallet).await.unwrap(),
        250
    );
    assert_eq!(facts("y").await.points_balance, 3);
    let counted = store
        .participations("c", "y", &[(7, "2026-11-22".to_string())])
        .await
        .unwrap();
    assert_eq!(counted[&7], 2);

    // The three tables are gone, and the next start writes nothing again.
    let tables: Vec<String> = first(store.db.query("RETURN object::keys((INFO FOR DB).tables)"))
        .await
        .unwrap();
    for gone in ["customer_stats", "points_balance", "iw_counts"] {
        assert!(!tables.iter().any(|name| name == gone), "{tables:?}");
    }
    assert!(
        tables.iter().any(|name| name == "customer_state"),
        "{tables:?}"
    );
}
