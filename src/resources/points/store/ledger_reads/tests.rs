use super::*;
use crate::storage::execute;

/// Writes an old-style `points_ledger` record and forgets the migrations
/// from `since` on, as a store from before them.
async fn store_from_before(records: &str, forget: &str) -> Store {
    let store = Store::connect("mem://", None).await.unwrap();
    execute(store.db.query(format!(
        "DEFINE TABLE IF NOT EXISTS points_ledger SCHEMALESS; {records} {forget}"
    )))
    .await
    .unwrap();
    store.apply_schema().await.unwrap();
    store.apply_schema().await.unwrap();
    store
}

#[tokio::test]
async fn entries_and_balances_from_before_kinds_are_migrated_once() {
    let store = store_from_before(
        "CREATE points_ledger CONTENT { company: 'c', customer_id: 'x', points: 5, reason: 'cart', rule_id: 1, cart_id: 'T1', created_at: '2026-01-01T00:00:00Z' };
         CREATE type::record('points_balance', ['c', 'x']) CONTENT { company: 'c', customer_id: 'x', balance: 5 };",
        "DELETE migration:ledger_kinds; DELETE migration:ledger_writes; DELETE migration:customer_state;",
    )
    .await;
    assert_eq!(
        store.balance("c", "x", PointsKind::Points).await.unwrap(),
        5
    );
    assert_eq!(
        store
            .ledger_sum("c", "x", PointsKind::Points)
            .await
            .unwrap(),
        5
    );
    let entries = store
        .ledger_entries("c", "x", Some(PointsKind::Points), None, 10)
        .await
        .unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].points, 5);
    assert!(!entries[0].id.is_empty());
}

#[tokio::test]
async fn entries_from_before_writes_are_read_like_new_ones() {
    let store = store_from_before(
        "CREATE points_ledger:pt_000000000001000aaaaaaaaaa CONTENT { company: 'c', customer_id: 'x', kind: 'points', entry_id: 'pt_000000000001000aaaaaaaaaa', points: 8, reason: 'cart', rule_id: 2, cart_id: 'T1', expires_at: '2026-03-01T00:00:00Z', created_at: '2026-01-01T00:00:00Z' };
         CREATE points_ledger:pt_000000000002000aaaaaaaaaa CONTENT { company: 'c', customer_id: 'x', kind: 'points', entry_id: 'pt_000000000002000aaaaaaaaaa', points: -3, reason: 'redemption', rule_id: NULL, cart_id: NULL, created_at: '2026-01-02T00:00:00Z' };",
        "DELETE migration:ledger_writes;",
    )
    .await;
    let newest_first = store
        .ledger_entries("c", "x", None, None, 10)
        .await
        .unwrap();
    let ids: Vec<&str> = newest_first.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "pt_000000000002000aaaaaaaaaa",
            "pt_000000000001000aaaaaaaaaa"
        ]
    );
    assert_eq!(newest_first[0].cart_id, None);
    assert_eq!(
        newest_first[1].expires_at.unwrap().to_string(),
        "2026-03-01T00:00:00Z"
    );
    assert_eq!(store.cart_ledger("c", "T1").await.unwrap().len(), 1);
    assert_eq!(
        store
            .ledger_sum("c", "x", PointsKind::Points)
            .await
            .unwrap(),
        5
    );
    let expiring = store
        .expiring_balances(
            &ExpiryWatermark::default(),
            "2026-04-01T00:00:00Z".parse().unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(expiring, [("c".into(), "x".into(), PointsKind::Points)]);
    assert_eq!(
        store.newest_entry_id().await.unwrap().as_deref(),
        Some("pt_000000000002000aaaaaaaaaa")
    );
}

#[tokio::test]
async fn entries_read_back_whole_whether_their_write_keeps_their_fields_or_they_do() {
    let store = Store::connect("mem://", None).await.unwrap();
    let at: Timestamp = "2026-11-22T10:00:00Z".parse().unwrap();
    let later: Timestamp = "2026-11-22T10:00:01Z".parse().unwrap();
    let of_cart = |points, reason: &str, at| LedgerEntry {
        cart_id: Some("T1".into()),
        rule_id: Some(points),
        ..LedgerEntry::new("x", PointsKind::Points, points, reason, at)
    };
    let shared = [of_cart(1, "cart", at), of_cart(2, "cart", at)];
    let differing = [of_cart(3, "cart", at), of_cart(4, "instant_win", later)];
    store.append_ledger("c", &shared, None, &[]).await.unwrap();
    store
        .append_ledger("c", &differing, None, &[])
        .await
        .unwrap();
    // A write of the layout before: every field and id on its entry.
    store
        .db
        .query(
            "CREATE ledger_write:pt_000000000001000aaaaaaaaaa CONTENT { company: 'c', customer_id: 'x', kind: 'points', cart_id: 'T1', entry_id: 'pt_000000000001000aaaaaaaaaa',
             entries: [{ id: 'pt_000000000001000aaaaaaaaaa', points: 5, reason: 'cart', rule_id: 5, cart_id: 'T1', created_at: '2026-01-01T00:00:00Z' }] }",
        )
        .await
        .unwrap()
        .check()
        .unwrap();
    let read = store.cart_ledger("c", "T1").await.unwrap();
    let seen: Vec<(i64, &str, String)> = read
        .iter()
        .map(|e| (e.points, e.reason.as_str(), e.created_at.to_string()))
        .collect();
    assert_eq!(
        seen,
        [
            (1, "cart", at.to_string()),
            (2, "cart", at.to_string()),
            (3, "cart", at.to_string()),
            (4, "instant_win", later.to_string()),
            (5, "cart", "2026-01-01T00:00:00Z".to_string()),
        ]
    );
    assert!(read.iter().all(|e| e.cart_id.as_deref() == Some("T1")));
    let listed = store
        .ledger_entries("c", "x", None, None, 10)
        .await
        .unwrap();
    let mut ids: Vec<&str> = listed.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids.last(), Some(&"pt_000000000001000aaaaaaaaaa"));
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 5, "every entry has an id of its own");
    let next = store
        .ledger_entries("c", "x", None, Some(listed[1].id.as_str()), 10)
        .await
        .unwrap();
    assert_eq!(next.len(), 3, "an entry's id is a cursor");
}

#[tokio::test]
async fn listing_pages_through_the_entries_of_many_writes_in_order() {
    let store = Store::connect("mem://", None).await.unwrap();
    let at: Timestamp = "2026-11-22T10:00:00Z".parse().unwrap();
    for write in 0..4 {
        let ledger: Vec<LedgerEntry> = (0..3)
            .map(|entry| LedgerEntry::new("x", PointsKind::Points, write * 10 + entry, "cart", at))
            .collect();
        store.append_ledger("c", &ledger, None, &[]).await.unwrap();
    }
    let all = store
        .ledger_history("c", "x", PointsKind::Points)
        .await
        .unwrap();
    let points: Vec<i64> = all.iter().map(|entry| entry.points).collect();
    assert_eq!(points, [0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32]);
    let mut paged = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let page = store
            .ledger_entries("c", "x", Some(PointsKind::Points), after.as_deref(), 5)
            .await
            .unwrap();
        if page.is_empty() {
            break;
        }
        assert!(page.len() <= 5);
        after = page.last().map(|entry| entry.id.clone());
        paged.extend(page.into_iter().map(|entry| entry.points));
    }
    let newest_first: Vec<i64> = points.iter().rev().copied().collect();
    assert_eq!(paged, newest_first);
}

#[tokio::test]
async fn a_companys_ledger_is_exported_a_page_at_a_time_each_entry_once_in_its_period() {
    let store = Store::connect("mem://", None).await.unwrap();
    for (n, day) in ["2026-11-01", "2026-11-02", "2026-11-03"]
        .iter()
        .enumerate()
    {
        let at: Timestamp = format!("{day}T10:00:00Z").parse().unwrap();
        for (company, customer) in [("c", "x"), ("d", "y"), ("c", "z")] {
            let entry = LedgerEntry {
                cart_id: Some(format!("T{n}")),
                ..LedgerEntry::new(customer, PointsKind::Points, 5, "cart", at)
            };
            store
                .append_ledger(company, &[entry], None, &[])
                .await
                .unwrap();
        }
    }
    let export = |from: Option<&str>| {
        let store = &store;
        let period = Period {
            from: from.map(|at| at.parse().unwrap()),
            until: None,
        };
        async move {
            let (mut every, mut after) = (Vec::new(), None::<String>);
            loop {
                let (entries, next) = store
                    .ledger_export("c", period, after.as_deref(), 2)
                    .await
                    .unwrap();
                every.extend(entries);
                match next {
                    Some(next) => after = Some(next),
                    None => return every,
                }
            }
        }
    };
    let every = export(None).await;
    let customers: Vec<&str> = every.iter().map(|e| e.customer_id.as_str()).collect();
    assert_eq!(
        customers,
        ["x", "z", "x", "z", "x", "z"],
        "Company c's only, in order"
    );
    let ids: std::collections::HashSet<&str> = every.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids.len(), 6, "each entry once");
    let since = export(Some("2026-11-02T00:00:00Z")).await;
    assert_eq!(since.len(), 4);
}
