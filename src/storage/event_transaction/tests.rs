use super::*;

/// A cart of `customer` with points and a draw, as the pipeline writes it.
fn cart_write(code: &str, customer: &str) -> EventWrite {
    json!({
        "company": "c", "customer": customer, "now": "2026-11-22T10:00:00Z",
        "cart": {"code": code, "company": "c", "customer_id": customer, "day": "2026-11-23"},
        "event": null, "total": "10", "date": "2026-11-22T10:00:00Z",
        "ledger": [{"id": format!("pt_{code}"), "customer_id": customer}],
        "balances": [{"customer_id": customer, "kind": "points", "delta": 10}],
        "draw_write": {
            "id": format!("drw_{code}"), "customer_id": customer,
            "seen": {}, "next": {"1": [1]}, "used": [], "played": [],
            "limited": [], "won": [],
            "audit": {"company": "c", "customer_id": customer, "created_at": "2026-11-22T10:00:00Z", "draws": []}
        },
        "voucher_issues": null, "challenges": null, "limit_takes": null,
        "answer": null, "voucher_uses": [], "discounts": null
    })
}

#[test]
fn a_batch_runs_the_same_statements_whatever_its_size() {
    let two: Vec<EventWrite> = (0..2).map(|i| cart_write(&format!("A{i}"), "x")).collect();
    let sixteen: Vec<EventWrite> = (0..16)
        .map(|i| cart_write(&format!("B{i}"), &format!("c{}", i % 5)))
        .collect();
    let (small, _) = BatchTransaction::of(&two).into_query();
    let (large, bindings) = BatchTransaction::of(&sixteen).into_query();
    assert_eq!(small, large);
    assert_eq!(bindings["carts"].as_array().unwrap().len(), 16);
    assert_eq!(bindings["state_moves"].as_array().unwrap().len(), 16);
    // Nothing rare: no loop over the events one by one.
    assert!(!large.contains("$rare"), "{large}");
    assert!(bindings.get(RARE).is_none());
}

#[test]
fn a_retry_binds_the_rows_the_first_attempt_did() {
    let writes: Vec<EventWrite> = (0..3)
        .map(|i| cart_write(&format!("R{i}"), &format!("c{i}")))
        .collect();
    let (_, built) = BatchTransaction::of(&writes).into_query();
    let bindings = BatchBindings::new(built.clone(), &writes);
    assert_eq!(bindings.for_attempt(), built);
    assert_eq!(bindings.for_attempt(), built);
}

#[test]
fn only_the_parts_some_event_needs_are_in_the_text() {
    let mut keyed = cart_write("K", "x");
    keyed["answer"] = json!({"company": "c", "key": "k", "fingerprint": "f", "response": {}});
    keyed["draw_write"] = Value::Null;
    let (text, bindings) = BatchTransaction::of(&[keyed]).into_query();
    assert!(text.contains("FOR $write IN $rare"), "{text}");
    assert!(text.contains("INSERT INTO cart $carts"), "{text}");
    assert!(!text.contains("draw_count_ids"), "{text}");
    assert!(!text.contains("custom_event"), "{text}");
    assert_eq!(bindings[RARE].as_array().unwrap().len(), 1);
}

#[test]
fn a_cart_takes_its_voucher_uses_then_its_discount_limits_then_each_kinds_part() {
    let mut write = cart_write("V", "x");
    write["voucher_uses"] = json!([{"key": "V1"}]);
    write["discount_limit_takes"] = json!([{"rule_id": 5}]);
    write["discounts"] = json!({"key": "cart:V", "value": "1.00"});
    let (text, bindings) = BatchTransaction::of(&[write]).into_query();
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle}: {text}"))
    };
    assert!(at("$write.voucher_uses") < at("$write.discount_limit_takes"));
    assert!(at("$write.discount_limit_takes") < at("$write.voucher_issues"));
    assert!(at("$write.voucher_issues") < at("LET $answer"));
    // The discounts themselves are one row of the batch's INSERT.
    assert!(
        text.contains("INSERT INTO discount_transaction $discounts"),
        "{text}"
    );
    assert_eq!(bindings["discounts"][0]["id"], json!(["c", "cart:V"]));
    assert_eq!(bindings[RARE].as_array().unwrap().len(), 1);
}

#[test]
fn a_plain_cart_tells_what_it_changed_and_a_rarer_one_does_not() {
    let mut write = cart_write("P", "x");
    write["total"] = json!("12.30");
    write["balances"] = json!([
        {"customer_id": "x", "kind": "points", "delta": 10},
        {"customer_id": "x", "kind": "wallet", "delta": 99}
    ]);
    let change = recorded_change(&write, "x").expect("a plain cart");
    assert_eq!(
        change.purchase,
        Some(RecordedPurchase {
            at: "2026-11-22T10:00:00Z"
                .parse::<Timestamp>()
                .unwrap()
                .as_datetime(),
            day: "2026-11-23".parse().unwrap(),
            total: "12.30".parse().unwrap(),
        })
    );
    assert_eq!(change.points, 10, "the wallet is not the points balance");
    assert_eq!(change.draw_counts, Some(json!({"1": [1]})));
    for (field, value) in [
        ("voucher_uses", json!([{"key": "V"}])),
        ("challenges", json!([{"rule_id": 7}])),
        ("voucher_issues", json!([{"code": "W"}])),
        ("limit_takes", json!([{"rule_id": 3}])),
        ("discount_limit_takes", json!([{"rule_id": 5}])),
        (
            "balances",
            json!([{"customer_id": "y", "kind": "points", "delta": 5}]),
        ),
    ] {
        let mut rarer = write.clone();
        rarer[field] = value;
        assert_eq!(recorded_change(&rarer, "x"), None, "{field}");
    }
    // The discounts a cart got move nothing the Customer's kept state holds.
    let mut discounted = write.clone();
    discounted["discounts"] = json!({"key": "cart:P", "value": "1.00"});
    assert!(recorded_change(&discounted, "x").is_some());
    let mut played = write.clone();
    played["draw_write"]["played"] = json!([4]);
    assert_eq!(recorded_change(&played, "x"), None);
    // A Custom Event: no purchase, no draw.
    let mut event = write.clone();
    event["cart"] = Value::Null;
    event["draw_write"] = Value::Null;
    let change = recorded_change(&event, "x").expect("a plain event");
    assert_eq!((change.purchase, change.draw_counts), (None, None));
}

#[test]
fn a_cart_code_twice_in_a_batch_is_told() {
    let writes = [cart_write("SAME", "x"), cart_write("SAME", "y")];
    assert!(BatchTransaction::of(&writes).repeats_a_cart());
    let refusal = BatchTransaction::of(&writes).refused_whole();
    assert_eq!(refusal.map(|e| e.code), Some(ErrorCode::CartAlreadyExists));
    let writes = [cart_write("ONE", "x"), cart_write("TWO", "x")];
    assert!(!BatchTransaction::of(&writes).repeats_a_cart());
}

#[test]
fn a_customer_drawing_twice_in_a_batch_is_told() {
    let refusal = |writes: &[EventWrite]| BatchTransaction::of(writes).refused_whole();
    let writes = [cart_write("ONE", "x"), cart_write("TWO", "x")];
    assert_eq!(
        refusal(&writes).map(|e| e.code),
        Some(ErrorCode::DrawContended)
    );
    let writes = [cart_write("ONE", "x"), cart_write("TWO", "y")];
    assert!(refusal(&writes).is_none());
    // A Customer's second event that drew nothing shares the batch.
    let mut no_draw = cart_write("TWO", "x");
    no_draw["draw_write"] = Value::Null;
    let writes = [cart_write("ONE", "x"), no_draw];
    assert!(refusal(&writes).is_none());
}
