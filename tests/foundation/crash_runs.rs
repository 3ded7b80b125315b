//! The runs of `crashes.rs`: keyed writes of each area of the interface,
//! each "crashed" between the commit of its work and its key's completion,
//! retried, and the state read before and after the retries compared.

use super::*;
use crate::crashes::Crashing;

/// Carts, their cancellation, Custom Events, triggers, a new Customer and
/// the points operations.
pub(super) async fn points_carts_and_events() -> Vec<(String, String)> {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let customer = server
        .create_customer(&key, json!({"email": "crash@example.com"}))
        .await;
    server
        .create_customer(
            &key,
            json!({"email": "friend@example.com", "code": "friend"}),
        )
        .await;
    for (on, points) in [
        (json!({"custom_event": "review"}), 30),
        (json!({"trigger": "visit"}), 5),
    ] {
        let (status, campaign) = server
            .call_as(
                "POST",
                "/points",
                &key,
                Some(json!({"name": "Bonus", "on": on, "points": {"fixed": points}})),
            )
            .await;
        assert_eq!(status, 200, "{campaign}");
    }
    let balance = || async {
        let (_, points) = server
            .get_as(&format!("/customers/{customer}/points"), &key)
            .await;
        points["points"].as_i64().unwrap()
    };
    let requests = [
        (
            "/carts/realtime",
            json!({
                "customer_id": customer, "code": "CRASH-1",
                "lines": [{"product_code": "TEA", "quantity": 2, "price": 10.0}]
            }),
        ),
        (
            "/custom_events",
            json!({"customer_id": customer, "type": "review"}),
        ),
        (
            "/trigger",
            json!({"customer_id": customer, "type": "visit"}),
        ),
        ("/carts/cancellation", json!({"cart_id": "CRASH-1"})),
        ("/customers", json!({"email": "second@example.com"})),
        (
            "/scores/trigger",
            json!({"customer_id": customer, "points": 100, "description": "goodwill"}),
        ),
        (
            "/points/redeem",
            json!({"customer_id": customer, "points": 40}),
        ),
        (
            "/points/transfer",
            json!({"from_customer_id": customer, "to_customer_code": "friend", "points": 10}),
        ),
        (
            "/scores/transfer",
            json!({"from_customer_id": customer, "to_customer_code": "friend", "points": 3}),
        ),
        (
            "/carts/realtime",
            json!({
                "customer_id": customer, "code": "CRASH-2",
                "lines": [{"product_code": "TEA", "quantity": 1, "price": 8.0}]
            }),
        ),
        (
            "/points/redeem_cart",
            json!({"cart_id": "CRASH-2", "points": 5}),
        ),
    ];
    let mut crashing = Crashing::new(&server, &key);
    for (path, body) in requests {
        crashing.send("POST", path, body).await;
    }
    let credited = balance().await;
    assert_eq!(
        credited,
        30 + 5 + 100 - 40 - 10 - 3 + 8 - 5,
        "the cart's 20 points taken back by its cancellation; the review; the visit; \
         the goodwill; the redemption; the transfers; the second cart and its redemption"
    );
    let covered = crashing.retry_all().await;
    assert_eq!(balance().await, credited, "nothing was applied twice");
    let (_, events) = server
        .get_as(&format!("/custom_events?customer_id={customer}"), &key)
        .await;
    assert_eq!(events["custom_events"].as_array().unwrap().len(), 1);
    let (_, found) = server
        .call_as(
            "POST",
            "/customers/search",
            &key,
            Some(json!({"filters": {"email": "second@example.com"}})),
        )
        .await;
    assert_eq!(found["customers"].as_array().unwrap().len(), 1, "{found}");
    covered
}

/// A Reward (100 points, 3 in stock), a Reward giving a dice roll, the
/// dice (50 points a roll), a Challenge to enrol in, a goodwill discount, a
/// Coupon of generated codes and receipt messages (one printed once).
const ENGAGEMENT: [(&str, &str); 8] = [
    (
        "welcome.yaml",
        "id: 402\nkind: message\nname: Welcome\non: { custom_event: app_open }\nmessages:\n  - key: welcome\n    text: Welcome to the club!\n    once: true\n  - key: thanks\n    text: Thank you\n",
    ),
    (
        "coffee.yaml",
        "id: 401\nkind: reward\nname: Coffee\npoints_cost: 100\nstock: 3\n",
    ),
    (
        "dice-roll.yaml",
        "id: 420\nkind: reward\nname: A dice roll\npoints_cost: 10\ngives: { game: 502 }\n",
    ),
    (
        "dice.yaml",
        "id: 502\nkind: game\nname: Dice\ninstant_win:\n  instant_win_prizes:\n    - id: points\n      name: Fifty points\n      outcome: { promotion_type: points, promotion_id: 204 }\n      weight: 1\n",
    ),
    (
        "prize-points.yaml",
        "id: 204\nkind: points\nname: Prize points\npoints:\n  fixed: 50\n",
    ),
    (
        "spend.yaml",
        "id: 602\nkind: challenge\nname: Spend fifty\non: cart\nenrollment: required\ngoal: { sum: cart.total, target: 50 }\nreward: { points: 5 }\n",
    ),
    (
        "goodwill.yaml",
        "id: 11\nkind: discount\nname: Goodwill\non: cart\ndiscount:\n  applies_to: cart\n  amount: 5\n",
    ),
    (
        "five-off.yaml",
        "id: 31\nkind: coupon\nname: Five off\ncoupon:\n  discount: { amount: 5 }\n  code_pattern: FIVE-######\n",
    ),
];

/// Rewards, games, Challenges, messages, discounts and Vouchers.
pub(super) async fn engagement_and_vouchers() -> Vec<(String, String)> {
    let (server, _campaigns) =
        TestServer::start_with_campaigns(&ENGAGEMENT, "2026-11-23T10:00:00Z", None).await;
    let key = server.bootstrap_key();
    let customer = server
        .create_customer(&key, json!({"email": "crash@example.com"}))
        .await;
    server.credit(&key, &customer, 1000).await;
    let who = json!({"customer_id": customer});
    let mut crashing = Crashing::new(&server, &key);
    let coffee = crashing
        .send("POST", "/rewards/401/redeem", who.clone())
        .await;
    let transaction = coffee["id"].as_str().unwrap().to_string();
    crashing
        .send(
            "POST",
            &format!("/rewards/transactions/{transaction}/rollback"),
            json!({"reason": "returned"}),
        )
        .await;
    crashing
        .send("POST", "/rewards/401/redeem", who.clone())
        .await;
    crashing
        .send("POST", "/rewards/420/redeem", who.clone())
        .await;
    let played = crashing.send("POST", "/games/502/play", who.clone()).await;
    assert_eq!(played["participations_left"], 0, "{played}");
    crashing
        .send("POST", "/challenges/602/enroll", who.clone())
        .await;
    let messages = json!({"customer_id": customer, "messages": ["402:welcome", "402:thanks"]});
    let printed = crashing
        .send("POST", "/messages/print", messages.clone())
        .await;
    assert_eq!(printed["messages"][0]["printed"], true, "{printed}");
    let again = crashing.send("POST", "/messages/print", messages).await;
    assert_eq!(
        again["messages"][0]["printed"], false,
        "printed once: {again}"
    );
    crashing
        .send(
            "POST",
            "/discounts/redeem",
            json!({"customer_id": customer, "discount_id": 11, "base_amount": 20.0}),
        )
        .await;
    let voucher = crashing
        .send(
            "POST",
            "/discounts/trigger",
            json!({"customer_id": customer, "coupon_id": 31}),
        )
        .await;
    let code = voucher["code"].as_str().unwrap().to_string();
    let holder_codes = json!({"customer_id": customer, "codes": [code]});
    for (method, path, body) in [
        ("POST", format!("/vouchers/{code}/select"), who.clone()),
        ("POST", format!("/vouchers/{code}/deselect"), who.clone()),
        ("PUT", "/vouchers/select".to_string(), holder_codes.clone()),
        (
            "PUT",
            "/vouchers/deselect".to_string(),
            holder_codes.clone(),
        ),
        ("PUT", "/vouchers/print".to_string(), holder_codes.clone()),
        ("POST", "/vouchers/print".to_string(), who.clone()),
    ] {
        crashing.send(method, &path, body).await;
    }
    let frozen = crashing
        .send("POST", &format!("/vouchers/{code}/freeze"), who.clone())
        .await;
    assert_eq!(frozen["voucher"]["state"], "frozen", "{frozen}");
    let released = crashing
        .send(
            "POST",
            &format!("/vouchers/{code}/unfreeze"),
            json!({"customer_id": customer, "reservation_id": frozen["reservation_id"]}),
        )
        .await;
    assert_eq!(released["state"], "active", "{released}");
    let frozen = crashing
        .send("POST", &format!("/vouchers/{code}/freeze"), who.clone())
        .await;
    let redeemed = crashing
        .send(
            "POST",
            "/vouchers/redeem",
            json!({"customer_id": customer, "codes": [code], "reservation_id": frozen["reservation_id"]}),
        )
        .await;
    assert_eq!(redeemed["vouchers"][0]["uses_left"], 0, "{redeemed}");
    let redemption = redeemed["redemptions"][0]["redemption_id"].clone();
    crashing
        .send(
            "POST",
            "/vouchers/rollback",
            json!({"redemption_ids": [redemption]}),
        )
        .await;
    // What each write left, read before and after the retries.
    let reads = vec![
        format!("/customers/{customer}/points"),
        format!("/rewards/401?customer_id={customer}"),
        format!("/rewards/transactions?customer_id={customer}"),
        format!("/games/502?customer_id={customer}"),
        format!("/challenges/602?customer_id={customer}"),
        format!("/discounts/transactions?customer_id={customer}"),
        format!("/vouchers?customer_id={customer}"),
    ];
    let state = || server.read_all(&key, &reads);
    let before = state().await;
    assert_eq!(
        before[0]["points"],
        1000 - 100 - 10 + 50,
        "a coffee kept, a roll bought and won: {}",
        before[0]
    );
    let covered = crashing.retry_all().await;
    assert_eq!(state().await, before, "nothing was applied twice");
    covered
}

/// Customer edits and cards, associations, merges and an unmerge.
pub(super) async fn customers_and_links() -> Vec<(String, String)> {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = server
        .create_customer(&key, json!({"email": "ana@example.com"}))
        .await;
    let ben = server
        .create_customer(&key, json!({"email": "ben@example.com"}))
        .await;
    let cy = server
        .create_customer(&key, json!({"email": "cy@example.com"}))
        .await;
    let mut crashing = Crashing::new(&server, &key);
    crashing
        .send(
            "PATCH",
            &format!("/customers/{ana}"),
            json!({"first_name": "Ana"}),
        )
        .await;
    crashing
        .send(
            "POST",
            &format!("/customers/{ana}/cards"),
            json!({"number": "CARD-0001"}),
        )
        .await;
    let pair = |kind: &str| json!({"customer_id": ana, "associate_id": ben, "type": kind});
    crashing.send("POST", "/associations", pair("family")).await;
    crashing
        .send("PATCH", "/associations", pair("friend"))
        .await;
    let merged = crashing
        .send(
            "POST",
            "/customers/transfer",
            json!({"from_customer_id": cy, "to_customer_id": ben}),
        )
        .await;
    assert_eq!(merged["merged"]["merged_into"], ben.as_str(), "{merged}");
    crashing
        .send("POST", &format!("/customers/{cy}/unmerge"), json!({}))
        .await;
    let moved = crashing
        .send(
            "POST",
            "/customers/transfer-new",
            json!({"from_customer_id": cy}),
        )
        .await;
    let new_customer = moved["target"]["id"].as_str().unwrap().to_string();
    let reads = vec![
        format!("/customers/{ana}"),
        format!("/customers/{ben}"),
        format!("/customers/{cy}"),
        format!("/customers/{new_customer}"),
        format!("/customers/{ana}/associates"),
    ];
    let state = || server.read_all(&key, &reads);
    let before = state().await;
    let covered = crashing.retry_all().await;
    assert_eq!(state().await, before, "nothing was applied twice");
    let (_, found) = server
        .call_as(
            "POST",
            "/customers/search",
            &key,
            Some(json!({"filters": {"email": "cy@example.com"}})),
        )
        .await;
    assert_eq!(
        found["customers"].as_array().unwrap().len(),
        1,
        "one new Customer took the e-mail: {found}"
    );
    covered
}

/// The catalogue (Products, Locations, taxonomies and features of both)
/// and the campaigns written through the API.
pub(super) async fn catalogue_and_campaigns() -> Vec<(String, String)> {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let mut crashing = Crashing::new(&server, &key);
    let mut reads = Vec::new();
    for scope in ["", "/locations"] {
        let (taxonomy, feature) = if scope.is_empty() {
            ("department", "dairy")
        } else {
            ("region", "north")
        };
        crashing
            .send(
                "POST",
                &format!("{scope}/taxonomies"),
                json!({"slug": taxonomy, "name": "Grouping"}),
            )
            .await;
        crashing
            .send(
                "PATCH",
                &format!("{scope}/taxonomies/{taxonomy}"),
                json!({"name": "Groupings"}),
            )
            .await;
        crashing
            .send(
                "POST",
                &format!("{scope}/taxonomies/{taxonomy}/features"),
                json!({"slug": feature, "name": "A group"}),
            )
            .await;
        crashing
            .send(
                "PATCH",
                &format!("{scope}/taxonomies/{taxonomy}/features/{feature}"),
                json!({"name": "The group"}),
            )
            .await;
        reads.push(format!("{scope}/taxonomies/{taxonomy}"));
    }
    let product = crashing
        .send(
            "POST",
            "/products",
            json!({"code": "MILK-1L", "name": "Milk", "features": {"department": ["dairy"]}}),
        )
        .await;
    let product = product["id"].as_str().unwrap().to_string();
    crashing
        .send(
            "PATCH",
            &format!("/products/{product}"),
            json!({"price": 1.29}),
        )
        .await;
    let location = crashing
        .send(
            "POST",
            "/locations",
            json!({"code": "S9", "name": "Store 9", "country": "ES", "features": {"region": ["north"]}}),
        )
        .await;
    let location = location["id"].as_str().unwrap().to_string();
    crashing
        .send(
            "PATCH",
            &format!("/locations/{location}"),
            json!({"name": "Store Nine"}),
        )
        .await;
    reads.extend([
        format!("/products/{product}"),
        format!("/locations/{location}"),
    ]);
    for (path, body, change) in [
        (
            "/coupons",
            json!({"name": "Five off", "discount": {"amount": 5}, "code_pattern": "FIVE-#####"}),
            json!({"name": "Five off!"}),
        ),
        (
            "/discounts",
            json!({"name": "Two off", "discount": {"amount": 2}}),
            json!({"active": false}),
        ),
        (
            "/points",
            json!({"name": "Reviews", "on": {"custom_event": "review"}, "points": {"fixed": 5}}),
            json!({"name": "Good reviews"}),
        ),
        (
            "/promotions",
            json!({"name": {"en": "Dairy week"}, "percent": 15, "products": ["MILK-1L"]}),
            json!({"percent": 20}),
        ),
    ] {
        let created = crashing.send("POST", path, body).await;
        let id = created["id"].to_string();
        crashing
            .send("PATCH", &format!("{path}/{id}"), change)
            .await;
        reads.push(format!("{path}/{id}"));
    }
    let state = || server.read_all(&key, &reads);
    let before = state().await;
    let covered = crashing.retry_all().await;
    assert_eq!(state().await, before, "nothing was applied twice");
    let (_, coupons) = server.get_as("/coupons", &key).await;
    let through_the_api = coupons["coupons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|coupon| coupon["source"] == "api")
        .count();
    assert_eq!(through_the_api, 1, "one Coupon created: {coupons}");
    covered
}
