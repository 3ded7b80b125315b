//! Stacking over HTTP: the `stacking` of discount campaigns and Coupons set
//! through the API decides which offers share a cart, and every offer left
//! out says why.

use super::carts::{MONDAY, cart, effects_of, post_cart_ok, rejections};
use super::*;

/// What each campaign or Coupon took off `answer` in all, in cents, by
/// rule id.
fn taken(answer: &Value) -> std::collections::BTreeMap<i64, i64> {
    let mut totals = std::collections::BTreeMap::new();
    for effect in answer["effects"].as_array().unwrap() {
        if effect["type"] == "discount" || effect["type"] == "voucher" {
            let cents = (effect["value"].as_f64().unwrap() * 100.0).round() as i64;
            *totals
                .entry(effect["rule_id"].as_i64().unwrap())
                .or_insert(0) += cents;
        }
    }
    totals
}

/// The reason the explanation of `rule_id` gives for not applying.
fn reason(answer: &Value, rule_id: i64) -> String {
    let explanation = answer["explanations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["rule_id"] == rule_id)
        .unwrap_or_else(|| panic!("no explanation of {rule_id}: {answer}"));
    assert_eq!(explanation["applied"], false, "{explanation}");
    explanation["reason"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn stacking_set_through_the_api_decides_which_offers_share_a_cart() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let (status, sale) = server
        .call_as(
            "POST",
            "/discounts",
            &key,
            Some(json!({
                "name": "Summer sale",
                "discount": {"percent": 20},
                "stacking": {"exclusive": true}
            })),
        )
        .await;
    assert_eq!(status, 200, "{sale}");
    assert_eq!(
        sale["stacking"],
        json!({"priority": 0, "exclusive": true, "base": "original"})
    );
    let sale_id = sale["id"].as_i64().unwrap();
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Ten off", "discount": {"amount": 10}, "stacking": {"max_per_cart": 1}}),
    )
    .await;
    assert_eq!(
        coupon["stacking"],
        json!({"priority": 0, "exclusive": false, "base": "discounted", "max_per_cart": 1})
    );
    let coupon_id = coupon["id"].as_i64().unwrap();
    let mut codes = Vec::new();
    for _ in 0..2 {
        let voucher = trigger(&server, &key, &ana, &coupon).await;
        codes.push(voucher["code"].as_str().unwrap().to_string());
    }

    // 46.50 of goods: the exclusive 20 % (9.30) against the coffee
    // campaign (0.50) and one Voucher (10.00), worth 10.50 together. The
    // second Voucher is over the Coupon's one per cart.
    let answer = post_cart_ok(
        &server,
        &key,
        cart(&ana, "S-1", json!([codes[0], codes[1]])),
    )
    .await;
    assert_eq!(
        taken(&answer),
        [(101, 50), (coupon_id, 1000)].into_iter().collect()
    );
    assert_eq!(
        rejections(&answer),
        [(codes[1].clone(), "voucher_not_combinable".to_string())]
    );
    let rejected = effects_of(&answer, "voucher_rejected")[0];
    assert!(
        rejected["error"]
            .as_str()
            .unwrap()
            .contains("at most 1 Voucher"),
        "{rejected}"
    );
    // Only the Voucher that applied was used.
    let (_, second) = server
        .get_as(&format!("/vouchers/{}?customer_id={ana}", codes[1]), &key)
        .await;
    assert_eq!(second["uses_left"], 1, "{second}");

    // Why the sale did not apply, and by how much it lost.
    let (status, explained) = server
        .call_as(
            "POST",
            "/carts/simulate?explain=true",
            &key,
            Some(cart(&ana, "S-2", json!([codes[1]]))),
        )
        .await;
    assert_eq!(status, 200, "{explained}");
    let why = reason(&explained, sale_id);
    assert!(
        why.contains("`Ten off`")
            && why.contains("take 10.50 off, 1.20 more than the best choice with this one (9.30)"),
        "{why}"
    );

    // First by priority, the sale wins whatever it is worth: the Voucher is
    // refused as not combinable and the coffee campaign says why.
    let (status, changed) = server
        .call_as(
            "PATCH",
            &format!("/discounts/{sale_id}"),
            &key,
            Some(json!({"stacking": {"priority": 1}})),
        )
        .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(
        changed["stacking"],
        json!({"priority": 1, "exclusive": true, "base": "original"})
    );
    let (status, explained) = server
        .call_as(
            "POST",
            "/carts/simulate?explain=true",
            &key,
            Some(cart(&ana, "S-3", json!([codes[1]]))),
        )
        .await;
    assert_eq!(status, 200, "{explained}");
    assert_eq!(taken(&explained), [(sale_id, 930)].into_iter().collect());
    assert_eq!(
        rejections(&explained),
        [(codes[1].clone(), "voucher_not_combinable".to_string())]
    );
    assert_eq!(
        reason(&explained, 101),
        format!(
            "does not combine with `Summer sale` (rule {sale_id}), which comes first (priority 1 over 0)"
        )
    );

    // Naming the groups it combines with replaces `exclusive`.
    let (status, changed) = server
        .call_as(
            "PATCH",
            &format!("/discounts/{sale_id}"),
            &key,
            Some(json!({"stacking": {"group": "sales", "combines_with": ["sales"]}})),
        )
        .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(
        changed["stacking"],
        json!({"priority": 1, "group": "sales", "combines_with": ["sales"], "exclusive": false, "base": "original"})
    );
}

#[tokio::test]
async fn stacking_that_cannot_mean_anything_is_refused_and_creates_nothing() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    for (path, body, why) in [
        (
            "/discounts",
            json!({"name": "X", "discount": {"percent": 5}, "stacking": {"exclusive": true, "combines_with": ["a"]}}),
            "not both",
        ),
        (
            "/discounts",
            json!({"name": "X", "discount": {"percent": 5}, "stacking": {"max_per_cart": 1}}),
            "max_per_cart",
        ),
        (
            "/coupons",
            json!({"name": "X", "discount": {"percent": 5}, "stacking": {"max_per_cart": 0}}),
            "max_per_cart",
        ),
        (
            "/coupons",
            json!({"name": "X", "discount": {"percent": 5}, "stacking": {"prority": 1}}),
            "prority",
        ),
        (
            "/coupons",
            json!({"name": "X", "discount": {"percent": 5}, "stacking": {"base": "lowest"}}),
            "base",
        ),
    ] {
        let (status, refused) = server.call_as("POST", path, &key, Some(body)).await;
        assert_error(status, &refused, 400, "invalid_request");
        assert!(
            refused["error"].as_str().unwrap().contains(why),
            "{why}: {refused}"
        );
    }
    let (_, discounts) = server.get_as("/discounts", &key).await;
    assert!(
        discounts["discounts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["source"] == "file"),
        "{discounts}"
    );
}
