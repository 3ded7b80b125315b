//! Vouchers in carts: named in `coupons_desired` (or selected), applied
//! after the discount campaigns on the lines their Coupon does not exclude,
//! redeemed in the cart's own transaction, refused without failing the sale,
//! given back by the cart's cancellation.

use super::*;

/// A Monday morning: the demo's coffee discount applies.
pub const MONDAY: &str = "2026-07-06T08:00:00Z";

/// A cart at store S1 with a coffee, a gift card, tobacco and a shirt.
pub fn cart(customer: &str, code: &str, coupons: Value) -> Value {
    json!({
        "customer_id": customer,
        "code": code,
        "location_code": "S1",
        "coupons_desired": coupons,
        "lines": [
            // 5.00, of which the demo's coffee campaign takes 0.50.
            {"product_code": "COFFEE", "quantity": 2, "price": 2.5},
            {"product_code": "GIFTCARD", "quantity": 1, "price": 20},
            {"product_code": "CIGS", "quantity": 1, "price": 6, "taxonomies": ["tobacco"]},
            {"product_code": "SHIRT", "quantity": 1, "price": 15.5}
        ]
    })
}

/// The effects of `answer` of `kind`.
pub fn effects_of<'a>(answer: &'a Value, kind: &str) -> Vec<&'a Value> {
    answer["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|effect| effect["type"] == kind)
        .collect()
}

/// (line, value) of the `voucher` effects of `code` in `answer`.
pub fn shares(answer: &Value, code: &str) -> Vec<(i64, f64)> {
    effects_of(answer, "voucher")
        .into_iter()
        .filter(|effect| effect["voucher_code"] == code)
        .map(|effect| {
            (
                effect["line"].as_i64().unwrap(),
                effect["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// (voucher_code, code) of the `voucher_rejected` effects of `answer`.
pub fn rejections(answer: &Value) -> Vec<(String, String)> {
    effects_of(answer, "voucher_rejected")
        .into_iter()
        .map(|effect| {
            (
                effect["voucher_code"].as_str().unwrap().to_string(),
                effect["code"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

pub async fn post_cart_ok(server: &TestServer, key: &CreatedApiKey, body: Value) -> Value {
    post_cart_ok_at(server, key, "/carts/realtime", body).await
}

pub async fn post_cart_ok_at(
    server: &TestServer,
    key: &CreatedApiKey,
    path: &str,
    body: Value,
) -> Value {
    let (status, answer) = server.call_as("POST", path, key, Some(body)).await;
    assert_eq!(status, 200, "{answer}");
    answer
}

async fn uses_left(server: &TestServer, key: &CreatedApiKey, customer: &str, code: &str) -> i64 {
    let (_, listed) = server
        .get_as(&format!("/vouchers?customer_id={customer}"), key)
        .await;
    listed["vouchers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|voucher| voucher["code"] == code)
        .map(|voucher| voucher["uses_left"].as_i64().unwrap())
        .unwrap()
}

#[tokio::test]
async fn vouchers_take_off_their_eligible_lines_and_are_redeemed_with_the_cart() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let bob = customer(&server, &key, "bob@example.com").await;
    let tenth = create_coupon(
        &server,
        &key,
        json!({"name": "A tenth off", "discount": {"percent": 10},
               "excluded_products": ["GIFTCARD"], "excluded_categories": ["tobacco"]}),
    )
    .await;
    let five = create_coupon(
        &server,
        &key,
        json!({"name": "Five off", "discount": {"amount": 5}}),
    )
    .await;
    let tenth_code = issued_code(&server, &key, &ana, &tenth).await;
    let five_code = issued_code(&server, &key, &ana, &five).await;
    let bobs = issued_code(&server, &key, &bob, &five).await;
    let desired = json!([tenth_code.to_lowercase(), five_code, "NO-SUCH-CODE", bobs]);

    // A simulation shows what the cart would get and redeems nothing.
    let simulated = post_cart_ok_at(
        &server,
        &key,
        "/carts/simulate",
        cart(&ana, "T-1", desired.clone()),
    )
    .await;
    // A tenth of what is left of the coffee (4.50) and the shirt (15.50):
    // 2.00, shared in proportion; the gift card and tobacco are excluded.
    assert_eq!(shares(&simulated, &tenth_code), [(1, 0.45), (4, 1.55)]);
    // Five off, over what is left of every line.
    let five_shares = shares(&simulated, &five_code);
    assert_eq!(five_shares.len(), 4, "{simulated}");
    let five_total: f64 = five_shares.iter().map(|(_, value)| value).sum();
    assert!((five_total - 5.0).abs() < 1e-9, "{five_shares:?}");
    assert_eq!(
        rejections(&simulated),
        [
            ("NO-SUCH-CODE".to_string(), "voucher_not_found".to_string()),
            (bobs.clone(), "voucher_not_found".to_string()),
        ]
    );
    let applied = effects_of(&simulated, "voucher");
    assert_eq!(applied[0]["rule_id"], tenth["id"]);
    assert_eq!(applied[0]["rule_name"], "A tenth off");
    assert_eq!(applied[0]["effect_type"], "percent");
    assert_eq!(
        applied[0]["coupon_info"]["voucher_code"],
        tenth_code.as_str()
    );
    assert_eq!(applied[0]["coupon_info"]["coupon_id"], tenth["id"]);
    assert_eq!(applied[0]["coupon_info"]["coupon_name"], "A tenth off");
    assert!(applied[0]["coupon_info"]["voucher_id"].is_string());
    assert_eq!(simulated["cart"]["discount_total"], 7.5, "{simulated}");
    assert_eq!(uses_left(&server, &key, &ana, &tenth_code).await, 1);

    // The realtime cart gets the same and takes one use of each.
    let recorded = post_cart_ok_at(
        &server,
        &key,
        "/carts/realtime",
        cart(&ana, "T-1", desired.clone()),
    )
    .await;
    assert_eq!(recorded["effects"], simulated["effects"]);
    assert_eq!(recorded["cart"]["lines"][3]["discount"], 1.55 + 1.59);
    for code in [&tenth_code, &five_code] {
        assert_eq!(uses_left(&server, &key, &ana, code).await, 0);
        let (status, refused) = server.get_as(&format!("/vouchers/{code}"), &key).await;
        assert_error(status, &refused, 422, "voucher_redeemed");
    }
    // A second cart goes through without them.
    let second = post_cart_ok_at(
        &server,
        &key,
        "/carts/realtime",
        cart(&ana, "T-2", desired.clone()),
    )
    .await;
    assert!(effects_of(&second, "voucher").is_empty(), "{second}");
    assert_eq!(
        rejections(&second)[..2],
        [
            (tenth_code.to_lowercase(), "voucher_redeemed".to_string()),
            (five_code.clone(), "voucher_redeemed".to_string()),
        ]
    );
    assert_eq!(second["cart"]["discount_total"], 0.5);

    // Cancelling the first cart gives the uses back, once.
    let (status, cancelled) = server
        .call_as(
            "POST",
            "/carts/cancellation",
            &key,
            Some(json!({"cart_id": "T-1"})),
        )
        .await;
    assert_eq!(status, 200, "{cancelled}");
    for code in [&tenth_code, &five_code] {
        assert_eq!(uses_left(&server, &key, &ana, code).await, 1);
        let (status, valid) = server.get_as(&format!("/vouchers/{code}"), &key).await;
        assert_eq!((status, &valid["state"]), (200, &json!("active")));
    }
    let (status, again) = server
        .call_as(
            "POST",
            "/carts/cancellation",
            &key,
            Some(json!({"cart_id": "T-1"})),
        )
        .await;
    assert_error(status, &again, 409, "cart_already_cancelled");
    // The cancellation itself is no cart to cancel.
    let (status, refused) = server
        .call_as(
            "POST",
            "/carts/cancellation",
            &key,
            Some(json!({"cart_id": "T-1-cancellation"})),
        )
        .await;
    assert_error(status, &refused, 422, "cart_is_cancellation");
    assert_eq!(uses_left(&server, &key, &ana, &tenth_code).await, 1);
    // Cancelling the second cart gives back nothing it did not take.
    let (status, _) = server
        .call_as(
            "POST",
            "/carts/cancellation",
            &key,
            Some(json!({"cart_id": "T-2"})),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(uses_left(&server, &key, &ana, &five_code).await, 1);
}

#[tokio::test]
async fn a_voucher_that_cannot_be_used_never_fails_the_sale() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let issue = |body: Value| {
        let (server, key, ana) = (&server, &key, &ana);
        async move {
            let coupon = create_coupon(server, key, body).await;
            issued_code(server, key, ana, &coupon).await
        }
    };
    let elsewhere =
        issue(json!({"name": "S2 only", "discount": {"percent": 5}, "locations": ["S2"]})).await;
    let weekends = issue(
        json!({"name": "Weekends", "discount": {"percent": 5}, "weekdays": ["saturday", "sunday"]}),
    )
    .await;
    let later = issue(
        json!({"name": "Later", "discount": {"percent": 5}, "valid_from": "2026-08-01T00:00:00Z"}),
    )
    .await;
    let big_carts = issue(
        json!({"name": "Big carts", "discount": {"percent": 5}, "when": "cart.total >= 100"}),
    )
    .await;
    let excluded = issue(json!({"name": "Not these", "discount": {"percent": 5},
        "excluded_products": ["COFFEE", "GIFTCARD", "SHIRT"], "excluded_categories": ["tobacco"]}))
    .await;
    let inactive_coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Off", "discount": {"percent": 5}}),
    )
    .await;
    let inactive = issued_code(&server, &key, &ana, &inactive_coupon).await;
    let (status, _) = server
        .call_as(
            "PATCH",
            &format!("/coupons/{}", inactive_coupon["id"]),
            &key,
            Some(json!({"active": false})),
        )
        .await;
    assert_eq!(status, 200);
    let ok = issue(json!({"name": "Fine", "discount": {"amount": 1}})).await;
    let desired = json!([
        elsewhere, weekends, later, big_carts, excluded, inactive, ok
    ]);
    let answer =
        post_cart_ok_at(&server, &key, "/carts/realtime", cart(&ana, "R-1", desired)).await;
    let refused: Vec<String> = rejections(&answer)
        .into_iter()
        .map(|(_, code)| code)
        .collect();
    assert_eq!(
        refused,
        [
            "voucher_out_location",
            "voucher_out_date",
            "voucher_out_date",
            "voucher_not_applicable",
            "voucher_not_applicable",
            "voucher_inactive",
        ],
        "{answer}"
    );
    for effect in effects_of(&answer, "voucher_rejected") {
        assert!(!effect["error"].as_str().unwrap().is_empty(), "{effect}");
        assert_eq!(effect["value"], 0.0);
    }
    // The one that could be used was; the others keep their use.
    let applied: f64 = shares(&answer, &ok).iter().map(|(_, value)| value).sum();
    assert!((applied - 1.0).abs() < 1e-9, "{answer}");
    assert_eq!(uses_left(&server, &key, &ana, &ok).await, 0);
    for code in [
        &elsewhere, &weekends, &later, &big_carts, &excluded, &inactive,
    ] {
        assert_eq!(uses_left(&server, &key, &ana, code).await, 1, "{code}");
    }
    // With explain, the Coupon whose condition failed says so.
    let (status, explained) = server
        .call_as(
            "POST",
            "/carts/simulate?explain=true",
            &key,
            Some(cart(&ana, "R-2", json!([big_carts]))),
        )
        .await;
    assert_eq!(status, 200, "{explained}");
    let reason = explained["explanations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["applied"] == false
                && e["reason"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("cart.total >= 100")
        });
    assert!(reason.is_some(), "{explained}");
}

#[tokio::test]
async fn selected_and_frozen_vouchers_in_a_cart() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Two off", "discount": {"amount": 2}}),
    )
    .await;
    let clipped = issued_code(&server, &key, &ana, &coupon).await;
    let held = issued_code(&server, &key, &ana, &coupon).await;
    let (status, _) = server
        .call_as(
            "POST",
            &format!("/vouchers/{clipped}/select"),
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_eq!(status, 200);
    let (status, frozen) = server
        .call_as(
            "POST",
            &format!("/vouchers/{held}/freeze"),
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_eq!(status, 200, "{frozen}");
    let reservation = frozen["reservation_id"].as_str().unwrap().to_string();

    // `selected` brings the clipped one; the frozen one needs its hold.
    let answer = post_cart_ok_at(
        &server,
        &key,
        "/carts/simulate",
        cart(&ana, "F-1", json!(["selected", held])),
    )
    .await;
    assert_eq!(
        shares(&answer, &clipped)
            .iter()
            .map(|(_, v)| v)
            .sum::<f64>(),
        2.0
    );
    assert_eq!(
        rejections(&answer),
        [(held.clone(), "voucher_frozen".to_string())]
    );
    let mut with_hold = cart(&ana, "F-1", json!(["selected", held]));
    with_hold["reservation_ids"] = json!([reservation]);
    let answer = post_cart_ok_at(&server, &key, "/carts/realtime", with_hold).await;
    assert!(rejections(&answer).is_empty(), "{answer}");
    assert_eq!(
        effects_of(&answer, "voucher").len(),
        8,
        "two Vouchers over four lines: {answer}"
    );
    assert_eq!(uses_left(&server, &key, &ana, &held).await, 0);
    assert_eq!(uses_left(&server, &key, &ana, &clipped).await, 0);
    // A used-up selected Voucher is left out without a word.
    let answer = post_cart_ok_at(
        &server,
        &key,
        "/carts/realtime",
        cart(&ana, "F-2", json!(["all"])),
    )
    .await;
    assert!(
        effects_of(&answer, "voucher").is_empty() && rejections(&answer).is_empty(),
        "{answer}"
    );
}

#[tokio::test]
async fn one_single_use_voucher_raced_by_carts_and_redemptions_is_used_once() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Once", "discount": {"percent": 10}}),
    )
    .await;
    let code = issued_code(&server, &key, &ana, &coupon).await;
    let requests = (0..64)
        .map(|n| {
            if n % 2 == 0 {
                server
                    .request_as("POST", "/carts/realtime", &key)
                    .json(&cart(&ana, &format!("RACE-{n}"), json!([code])))
            } else {
                server
                    .request_as("POST", "/vouchers/redeem", &key)
                    .json(&json!({"customer_id": ana, "codes": [code], "location_code": "S1"}))
            }
        })
        .collect();
    // Answers come in the order they complete: a cart's has its `cart`.
    let answers = all_at_once(requests).await;
    let carts = answers
        .iter()
        .filter(|(_, body)| body.get("cart").is_some())
        .count();
    assert_eq!(carts, 32, "every sale goes through: {answers:?}");
    let mut uses = 0;
    for (status, body) in &answers {
        if body.get("cart").is_some() {
            // Every sale goes through, with or without the Voucher.
            assert_eq!(*status, 200, "{body}");
            if effects_of(body, "voucher").is_empty() {
                let refused = rejections(body);
                assert!(
                    refused == [(code.clone(), "voucher_redeemed".to_string())],
                    "{body}"
                );
            } else {
                uses += 1;
            }
        } else if *status == 200 {
            uses += 1;
        } else {
            assert_error(*status, body, 422, "voucher_redeemed");
        }
    }
    assert_eq!(uses, 1, "{answers:?}");
    assert_eq!(uses_left(&server, &key, &ana, &code).await, 0);
}

#[tokio::test]
async fn an_all_or_none_redemption_racing_a_cart_for_one_of_its_codes() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Once", "discount": {"amount": 1}}),
    )
    .await;
    for round in 0..8 {
        let shared = issued_code(&server, &key, &ana, &coupon).await;
        let other = issued_code(&server, &key, &ana, &coupon).await;
        let answers = all_at_once(vec![
            server.request_as("POST", "/vouchers/redeem", &key).json(
                &json!({"customer_id": ana, "codes": [other, shared], "location_code": "S1"}),
            ),
            server
                .request_as("POST", "/carts/realtime", &key)
                .json(&cart(&ana, &format!("AON-{round}"), json!([shared]))),
        ])
        .await;
        // Answers come in the order they complete: the cart's has its `cart`.
        let (sale, redemption): (Vec<_>, Vec<_>) = answers
            .iter()
            .partition(|(_, body)| body.get("cart").is_some());
        let ((cart_status, sold), (redeem_status, redeemed)) = (sale[0], redemption[0]);
        assert_eq!(*cart_status, 200, "{sold}");
        let cart_used = !effects_of(sold, "voucher").is_empty();
        // Exactly one of them has the shared code; when the cart has it the
        // redemption took nothing, not even the other code.
        assert_eq!(cart_used, *redeem_status != 200, "{redeemed} {sold}");
        let other_left = uses_left(&server, &key, &ana, &other).await;
        assert_eq!(other_left, if cart_used { 1 } else { 0 }, "{redeemed}");
        assert_eq!(uses_left(&server, &key, &ana, &shared).await, 0);
    }
}
