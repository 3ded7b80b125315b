//! Who takes part in a draw: targeted Instant Wins and their Vouchers in
//! `coupons_desired`, recurrence, dates and Locations; simulations that
//! consume nothing; every draw stored for audit.

use super::*;

#[tokio::test]
async fn targeted_instant_wins_need_the_voucher_in_coupons_desired() {
    let setup = setup().await;
    let holder = setup.customer("holder@example.com").await;
    let stranger = setup.customer("stranger@example.com").await;
    let vouchers = setup
        .server
        .back_office()
        .await
        .assign_instant_win("demo", 24, std::slice::from_ref(&holder))
        .await
        .unwrap();
    let voucher = &vouchers[0];
    assert!(voucher.code.starts_with("VIPTICKET-"), "{}", voucher.code);
    let trigger = |customer: &str, coupons: Value| json!({"customer_id": customer, "type": "weekly_draw", "coupons_desired": coupons, "date": "2026-03-02T10:00:00Z"});
    let call = |body: Value| {
        let setup = &setup;
        let server = &setup.server;
        let key = &setup.key;
        async move {
            setup.received_at_its_date(&body);
            let (status, answer) = server
                .call_as("POST", "/trigger?explain=true", key, Some(body))
                .await;
            assert_eq!(status, 200, "{answer}");
            answer
        }
    };
    let without = call(trigger(&holder, json!([]))).await;
    assert!(draw_of(&without, 24).is_none(), "the Voucher was not named");
    assert!(reason_of(&without, 24).contains("coupons_desired"));
    let other_code = call(trigger(&holder, json!(["SOMETHING-ELSE"]))).await;
    assert!(draw_of(&other_code, 24).is_none());
    let stranger_answer = call(trigger(&stranger, json!(["all"]))).await;
    assert!(draw_of(&stranger_answer, 24).is_none(), "no Voucher");
    assert!(reason_of(&stranger_answer, 24).contains("holds no Voucher"));

    let by_code = call(trigger(&holder, json!([voucher.code]))).await;
    let effect = draw_of(&by_code, 24).expect("the Voucher code lets the holder take part");
    assert_eq!(effect["select_customers"], "targeted");
    assert_eq!(
        effect["campaign_history_id"],
        voucher.campaign_history_id.as_deref().unwrap()
    );
    assert_eq!(
        effect["coupon_info"],
        json!({
            "voucher_id": voucher.id,
            "voucher_code": voucher.code,
            "coupon_id": 9001,
            "coupon_name": "VIP ticket",
            "static_code": "VIPTICKET"
        })
    );
    let again = call(trigger(&holder, json!(["all"]))).await;
    assert!(draw_of(&again, 24).is_none(), "once a week");
    let next_week = call(json!({"customer_id": holder, "type": "weekly_draw", "coupons_desired": ["all"], "date": "2026-03-09T10:00:00Z"})).await;
    assert!(
        draw_of(&next_week, 24).is_some(),
        "`all` names every Voucher"
    );
    let rewards = setup
        .eventually(
            &format!("/rewards/transactions?customer_id={holder}"),
            |b| b["reward_transactions"].as_array().unwrap().len() == 2,
        )
        .await;
    assert_eq!(rewards["reward_transactions"][0]["reward_id"], 11);
    assert_eq!(rewards["reward_transactions"][0]["state"], "available");

    // Assigning again keeps the Voucher the Customer holds.
    let again = setup
        .server
        .back_office()
        .await
        .assign_instant_win("demo", 24, std::slice::from_ref(&holder))
        .await
        .unwrap();
    assert_eq!(again[0].code, voucher.code);
    let loyalty = setup
        .server
        .back_office()
        .await
        .assign_instant_win("demo", 20, std::slice::from_ref(&holder))
        .await
        .unwrap_err();
    assert_eq!(loyalty.code.code(), "invalid_request");
}

#[tokio::test]
async fn a_targeted_voucher_with_uses_gives_that_many_draws_even_at_once() {
    let campaigns = tempfile::tempdir().unwrap();
    let company = campaigns.path().join("demo");
    std::fs::create_dir_all(&company).unwrap();
    std::fs::write(
        company.join("coffee.yaml"),
        "id: 11\nkind: reward\nname: Coffee\n",
    )
    .unwrap();
    std::fs::write(
        company.join("tickets.yaml"),
        "id: 30
kind: instant_win
name: Two tickets
on: { trigger: spin }
select_customers: targeted
coupon: { id: 9030, name: Two spins, static_code: TWOSPINS, uses_per_voucher: 2 }
once: day
once_limit: 10
instant_win:
  instant_win_prizes:
    - { id: coffee, name: Coffee, outcome: { promotion_type: reward, promotion_id: 11 }, weight: 1 }
",
    )
    .unwrap();
    let mut settings = ServerSettings::for_store("mem://", common::OPERATOR_TOKEN);
    settings.campaigns = campaigns.path().to_path_buf();
    settings.clock = common::manual_clock("2026-03-02T10:00:00Z");
    let server = TestServer::start_with(settings).await;
    let key = server.bootstrap_key();
    let (_, created) = server
        .call_as(
            "POST",
            "/customers",
            &key,
            Some(json!({"email": "t@example.com"})),
        )
        .await;
    let holder = created["id"].as_str().unwrap().to_string();
    let voucher = server
        .back_office()
        .await
        .assign_instant_win("demo", 30, std::slice::from_ref(&holder))
        .await
        .unwrap()
        .remove(0);
    assert_eq!(voucher.uses_left, 2);
    let spin = json!({"customer_id": holder, "type": "spin", "coupons_desired": [voucher.code]});
    let requests = (0..6)
        .map(|_| {
            server
                .request_as("POST", "/trigger?explain=true", &key)
                .json(&spin)
        })
        .collect();
    let answers = all_at_once(requests).await;
    assert!(
        answers.iter().all(|(status, _)| *status == 200),
        "{answers:?}"
    );
    let drawn = answers
        .iter()
        .filter(|(_, answer)| draw_of(answer, 30).is_some())
        .count();
    assert_eq!(drawn, 2, "two uses, two draws: {answers:?}");
    let (_, left_out) = answers
        .iter()
        .find(|(_, answer)| draw_of(answer, 30).is_none())
        .unwrap();
    assert!(
        reason_of(left_out, 30).contains("has given its 2 draws"),
        "{left_out}"
    );
    let (status, read) = server
        .get_as(&format!("/vouchers?customer_id={holder}"), &key)
        .await;
    assert_eq!(status, 200, "{read}");
    assert_eq!(read["vouchers"][0]["uses_left"], 0);
    assert_eq!(read["vouchers"][0]["state"], "redeemed");
}

#[tokio::test]
async fn recurrence_dates_and_locations_decide_who_takes_part() {
    let setup = setup().await;
    let customer = setup.customer("cart@example.com").await;
    let cart = |code: &str, date: &str, location: &str, total: f64| {
        json!({
            "code": code, "customer_id": customer, "date": date, "location_code": location,
            "lines": [{"product_code": "X", "quantity": 1, "price": total}]
        })
    };
    let send = |body: Value| {
        let setup = &setup;
        let server = &setup.server;
        let key = &setup.key;
        async move {
            setup.received_at_its_date(&body);
            let (status, answer) = server
                .call_as("POST", "/carts/realtime?explain=true", key, Some(body))
                .await;
            assert_eq!(status, 200, "{answer}");
            answer
        }
    };
    // 2026-03-02 is a Monday, 2026-03-03 a Tuesday.
    let monday = send(cart("C1", "2026-03-02T10:00:00Z", "STORE1", 12.0)).await;
    assert!(draw_of(&monday, 25).is_some(), "{monday}");
    assert_eq!(monday["effects"].as_array().unwrap().len(), 1);
    assert_eq!(
        monday["cart"]["discount_total"], 0.0,
        "an Instant Win never changes line values"
    );
    let tuesday = send(cart("C2", "2026-03-03T10:00:00Z", "STORE1", 12.0)).await;
    assert!(draw_of(&tuesday, 25).is_none());
    assert_eq!(
        reason_of(&tuesday, 25),
        "runs only on monday, and it is tuesday"
    );
    let elsewhere = send(cart("C3", "2026-03-02T11:00:00Z", "STORE9", 12.0)).await;
    assert!(draw_of(&elsewhere, 25).is_none());
    assert!(reason_of(&elsewhere, 25).contains("STORE9"));
    let small = send(cart("C4", "2026-03-02T12:00:00Z", "STORE1", 5.0)).await;
    assert!(draw_of(&small, 25).is_none(), "victory condition unmet");
    let next_year = send(cart("C5", "2027-03-01T10:00:00Z", "STORE1", 12.0)).await;
    assert!(
        draw_of(&next_year, 25).is_none(),
        "outside the availability dates"
    );
    assert!(reason_of(&next_year, 25).starts_with("not available since"));
    // A Customer of another country: a store outside the catalogue has no
    // country, so the Customer's decides.
    let (_, portuguese) = setup
        .server
        .call_as(
            "POST",
            "/customers",
            &setup.key,
            Some(json!({"email": "pt@example.com", "country": "PT"})),
        )
        .await;
    let abroad = send(json!({
        "code": "C6", "customer_id": portuguese["id"], "date": "2026-03-02T13:00:00Z",
        "location_code": "STORE1", "lines": [{"product_code": "X", "quantity": 1, "price": 12.0}]
    }))
    .await;
    assert!(draw_of(&abroad, 25).is_none(), "{abroad}");
    assert!(reason_of(&abroad, 25).contains("not in PT"), "{abroad}");
}

#[tokio::test]
async fn simulate_draws_but_consumes_nothing() {
    let setup = setup().await;
    let customer = setup.customer("sim@example.com").await;
    let body = json!({
        "code": "SIM", "customer_id": customer, "date": "2026-03-02T10:00:00Z", "location_code": "STORE1",
        "lines": [{"product_code": "X", "quantity": 1, "price": 20.0}]
    });
    for _ in 0..6 {
        let (status, answer) = setup
            .server
            .call_as("POST", "/carts/simulate", &setup.key, Some(body.clone()))
            .await;
        assert_eq!(status, 200, "{answer}");
        assert!(
            draw_of(&answer, 25).is_some(),
            "simulated draws never use up the 5 participations"
        );
    }
    let draws = setup
        .server
        .running
        .services
        .store()
        .draws("demo", Some(&customer))
        .await
        .unwrap();
    assert!(draws.is_empty(), "{draws:?}");
    let (_, listed) = setup
        .get(&format!("/instant_wins/25?customer_id={customer}"))
        .await;
    assert_eq!(listed["remaining_participations"], 5);
}

#[tokio::test]
async fn every_draw_is_stored_for_audit() {
    let setup = setup().await;
    let customer = setup.customer("audit@example.com").await;
    setup.event(&customer, "scratch", json!({})).await;
    setup.event(&customer, "scratch", json!({})).await;
    let draws = setup
        .server
        .running
        .services
        .store()
        .draws("demo", Some(&customer))
        .await
        .unwrap();
    assert_eq!(draws.len(), 2);
    let first = &draws[0];
    assert_eq!(first["rule_id"], 21);
    assert_eq!(first["weights"], json!([1.0, 0.0]));
    assert_eq!(
        first["stock_seen"],
        json!([{"prize_id": "coffee", "stock": 1, "given": 0}])
    );
    assert_eq!(first["prize"]["prize_id"], "coffee");
    assert!(first["random"].as_f64().unwrap() < 1.0);
    assert!(
        first["source"]
            .as_str()
            .unwrap()
            .starts_with("custom_event:")
    );
    let second = &draws[1];
    assert_eq!(
        second["weights"],
        json!([0.0, 1.0]),
        "the prize ran out: remove_prize"
    );
    assert_eq!(second["prize"], Value::Null);
}
