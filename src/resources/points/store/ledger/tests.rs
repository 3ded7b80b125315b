use super::*;

#[test]
fn the_entries_of_one_balance_move_it_together() {
    let at: Timestamp = "2026-11-22T10:00:00Z".parse().unwrap();
    let ledger = [
        LedgerEntry::new("x", PointsKind::Points, 30, "cart", at),
        LedgerEntry::new("x", PointsKind::Wallet, 5, "cart", at),
        LedgerEntry::new("y", PointsKind::Points, -4, "transfer", at),
        LedgerEntry::new("x", PointsKind::Points, -10, "cancellation", at),
    ];
    let write = ledger_documents(&StampClock::default(), "c", &ledger);
    assert_eq!(write.records.len(), 3, "one stored write per balance");
    assert_eq!(
        write.balances,
        vec![
            json!({"customer_id": "x", "kind": "points", "delta": 20}),
            json!({"customer_id": "x", "kind": "wallet", "delta": 5}),
            json!({"customer_id": "y", "kind": "points", "delta": -4}),
        ]
    );
    assert!(
        ledger_documents(&StampClock::default(), "c", &[])
            .balances
            .is_empty()
    );
}

#[tokio::test]
async fn a_write_gives_the_balances_it_moved_as_its_transaction_left_them() {
    let store = Store::connect("mem://", None).await.unwrap();
    let at: Timestamp = "2026-11-22T10:00:00Z".parse().unwrap();
    let after = |customer: &str, kind, balance| BalanceAfter {
        customer_id: customer.into(),
        kind,
        balance,
    };
    let credits = [
        LedgerEntry::new("x", PointsKind::Points, 30, "manual", at),
        LedgerEntry::new("x", PointsKind::Wallet, 500, "manual", at),
        LedgerEntry::new("y", PointsKind::Points, 4, "manual", at),
    ];
    assert_eq!(
        store.append_ledger("c", &credits, None, &[]).await.unwrap(),
        [
            after("x", PointsKind::Points, 30),
            after("x", PointsKind::Wallet, 500),
            after("y", PointsKind::Points, 4),
        ]
    );
    let debit = [LedgerEntry::new(
        "x",
        PointsKind::Points,
        -12,
        "redemption",
        at,
    )];
    let expected = [("x", PointsKind::Points, 30)];
    assert_eq!(
        store
            .append_ledger("c", &debit, None, &expected)
            .await
            .unwrap(),
        [after("x", PointsKind::Points, 18)]
    );
    assert_eq!(
        store.balance("c", "x", PointsKind::Points).await.unwrap(),
        18
    );
    // Refused, it writes and gives nothing.
    let too_much = [LedgerEntry::new(
        "y",
        PointsKind::Points,
        -5,
        "redemption",
        at,
    )];
    let refused = store.append_ledger("c", &too_much, None, &[]).await;
    assert_eq!(
        refused.map_err(|e| e.code),
        Err(ErrorCode::CustomerNotEnoughScore)
    );
    assert_eq!(
        store.balance("c", "y", PointsKind::Points).await.unwrap(),
        4
    );
}

#[test]
fn a_write_holds_the_entries_of_one_balance_and_cart_in_id_order() {
    let at: Timestamp = "2026-11-22T10:00:00Z".parse().unwrap();
    let soon: Timestamp = "2027-01-01T00:00:00Z".parse().unwrap();
    let late: Timestamp = "2027-06-01T00:00:00Z".parse().unwrap();
    let credit = |points, expires_at, cart: &str| LedgerEntry {
        expires_at,
        cart_id: Some(cart.to_string()),
        ..LedgerEntry::new("x", PointsKind::Points, points, "cart", at)
    };
    let ledger = [
        credit(10, Some(late), "T1"),
        credit(-3, Some(at), "T1"),
        credit(5, Some(soon), "T1"),
        credit(7, None, "T2"),
    ];
    let write = ledger_documents(&StampClock::default(), "c", &ledger);
    assert_eq!(write.records.len(), 2, "one stored write per cart");
    let first = &write.records[0];
    assert_eq!(first["cart_id"], "T1");
    let stored_points: i64 = first["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["points"].as_i64().unwrap())
        .sum();
    assert_eq!(stored_points, 12);
    // Only credits expire: the debit's instant is not the earliest.
    assert_eq!(first["expires_from"], soon.to_string());
    assert_eq!(first["expires_until"], late.to_string());
    // What the entries share is kept once, on the write; their ids follow
    // from the first's and their place.
    let entries = first["entries"].as_array().unwrap();
    for field in [
        "id",
        "customer_id",
        "kind",
        "cart_id",
        "created_at",
        "reason",
    ] {
        assert!(
            entries.iter().all(|entry| entry.get(field).is_none()),
            "{field}"
        );
    }
    assert_eq!(first["created_at"], at.to_string());
    assert_eq!(first["reason"], "cart");
    let first_id = first["entry_id"].as_str().unwrap();
    let ids: Vec<String> = (0..entries.len())
        .map(|index| entry_id(entry_id_prefix(first_id), index))
        .collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(ids[0], first_id);
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    // The other write's ids do not fall between them.
    let other = write.records[1]["entry_id"].as_str().unwrap();
    assert!(other < ids[0].as_str() || other > ids[2].as_str());
    assert_eq!(write.records[1].get("expires_from"), None);
}

#[test]
fn entries_that_differ_in_instant_or_reason_keep_their_own() {
    let at: Timestamp = "2026-11-22T10:00:00Z".parse().unwrap();
    let later: Timestamp = "2026-11-22T10:00:01Z".parse().unwrap();
    let ledger = [
        LedgerEntry::new("x", PointsKind::Points, 10, "cart", at),
        LedgerEntry::new("x", PointsKind::Points, 5, "instant_win", at),
        LedgerEntry::new("x", PointsKind::Points, 2, "cart", later),
    ];
    let write = ledger_documents(&StampClock::default(), "c", &ledger);
    let record = &write.records[0];
    assert_eq!(record.get("reason"), None);
    assert_eq!(record.get("created_at"), None);
    let reasons: Vec<&str> = record["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["cart", "instant_win", "cart"]);
    assert_eq!(record["entries"][2]["created_at"], later.to_string());
}
