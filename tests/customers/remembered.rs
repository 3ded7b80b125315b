//! The Customers the service keeps in memory: whatever changes a Customer,
//! through whichever operation, is answered at once by the reads after it,
//! alone or under concurrent carts.

use super::*;

const AT: &str = "2026-05-04T09:30:00Z";

/// A cart of the demo Company for the Customer with code `customer_code`.
fn cart(customer_code: &str, code: &str, price: f64) -> Value {
    json!({
        "customer_code": customer_code,
        "code": code,
        "date": AT,
        "location_code": "STORE-1",
        "lines": [{"product_code": "PASTRY", "quantity": 1, "price": price}]
    })
}

/// `(cart_count, lifetime_spend, points_balance)` of the Customer `id`.
async fn standing(server: &TestServer, key: &CreatedApiKey, id: &str) -> (i64, f64, i64) {
    let (status, attributes) = server
        .get_as(&format!("/customers/{id}/attributes"), key)
        .await;
    assert_eq!(status, 200, "{attributes}");
    (
        attributes["cart_count"].as_i64().unwrap(),
        attributes["lifetime_spend"].as_f64().unwrap(),
        attributes["points_balance"].as_i64().unwrap(),
    )
}

async fn call(server: &TestServer, key: &CreatedApiKey, method: &str, path: &str, body: Value) {
    let (status, answer) = server.call_as(method, path, key, Some(body)).await;
    assert_eq!(status, 200, "{method} {path}: {answer}");
}

#[tokio::test]
async fn every_change_is_read_back_at_once_whichever_operation_made_it() {
    let server = TestServer::start_at(AT).await;
    let key = server.bootstrap_key();
    let id = server
        .create_customer(&key, json!({"code": "MEM-1", "email": "mem@example.com"}))
        .await;
    let by_code = "/customers/MEM-1?search_by=code";
    // Each read below is served from memory when nothing changed since the
    // one before it.
    assert_eq!(standing(&server, &key, &id).await, (0, 0.0, 0));
    assert_eq!(server.get_as(by_code, &key).await.0, 200);

    call(
        &server,
        &key,
        "POST",
        "/carts/realtime",
        cart("MEM-1", "MEM-C1", 12.0),
    )
    .await;
    let (carts, spend, earned) = standing(&server, &key, &id).await;
    assert_eq!((carts, spend), (1, 12.0));
    assert!(earned > 0, "the demo Company gives points for pastries");

    call(
        &server,
        &key,
        "POST",
        "/scores/trigger",
        json!({"customer_id": id, "points": 50}),
    )
    .await;
    assert_eq!(standing(&server, &key, &id).await.2, earned + 50);

    call(
        &server,
        &key,
        "POST",
        "/points/redeem",
        json!({"customer_id": id, "points": 5}),
    )
    .await;
    assert_eq!(standing(&server, &key, &id).await.2, earned + 45);

    call(
        &server,
        &key,
        "POST",
        "/carts/cancellation",
        json!({"cart_id": "MEM-C1"}),
    )
    .await;
    let (carts, spend, points) = standing(&server, &key, &id).await;
    assert_eq!(
        (carts, spend, points),
        (0, 0.0, 45),
        "the cancelled cart's points are taken back"
    );

    call(
        &server,
        &key,
        "PATCH",
        &format!("/customers/{id}"),
        json!({"code": "MEM-2"}),
    )
    .await;
    let (status, gone) = server.get_as(by_code, &key).await;
    assert_eq!(
        (status, gone["code"].as_str()),
        (404, Some("customer_not_found")),
        "{gone}"
    );
    let (status, moved) = server.get_as("/customers/MEM-2?search_by=code", &key).await;
    assert_eq!(
        (status, moved["id"].as_str()),
        (200, Some(id.as_str())),
        "{moved}"
    );
    let (status, refused) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(cart("MEM-1", "MEM-C2", 3.0)),
        )
        .await;
    assert_eq!(
        (status, refused["code"].as_str()),
        (404, Some("customer_not_found"))
    );

    let (status, _) = server
        .call_as("DELETE", &format!("/customers/{id}"), &key, None)
        .await;
    assert_eq!(status, 200);
    let (status, shell) = server.get_as(&format!("/customers/{id}"), &key).await;
    assert_eq!(
        (status, &shell["active"]),
        (200, &json!(false)),
        "anonymized: {shell}"
    );
    assert_eq!(
        server
            .get_as("/customers/MEM-2?search_by=code", &key)
            .await
            .0,
        404
    );
    let mut by_id = cart("MEM-2", "MEM-C3", 3.0);
    by_id.as_object_mut().unwrap().remove("customer_code");
    by_id["customer_id"] = json!(id);
    let (status, refused) = server
        .call_as("POST", "/carts/realtime", &key, Some(by_id))
        .await;
    assert_eq!(
        (status, refused["code"].as_str()),
        (422, Some("customer_inactive")),
        "{refused}"
    );
}

#[tokio::test]
async fn carts_recorded_among_concurrent_reads_are_all_counted_by_the_next_read() {
    let server = TestServer::start_at(AT).await;
    let key = server.bootstrap_key();
    let ids = [
        server
            .create_customer(&key, json!({"code": "RACE-1"}))
            .await,
        server
            .create_customer(&key, json!({"code": "RACE-2"}))
            .await,
    ];
    let mut requests = Vec::new();
    for n in 0..24 {
        let code = if n % 2 == 0 { "RACE-1" } else { "RACE-2" };
        let post = server
            .request_as("POST", "/carts/realtime", &key)
            .json(&cart(code, &format!("RACE-C{n}"), 1.0 + f64::from(n)));
        requests.push(post);
        // Reads that keep what they read while the carts are written.
        let id = &ids[n as usize % 2];
        requests.push(server.request_as("GET", &format!("/customers/{id}/attributes"), &key));
        let simulate = server
            .request_as("POST", "/carts/simulate", &key)
            .json(&cart(code, &format!("RACE-S{n}"), 1.0));
        requests.push(simulate);
    }
    for (status, answer) in all_at_once(requests).await {
        assert_eq!(status, 200, "{answer}");
    }
    let spend = |parity: i32| -> f64 {
        (0..24)
            .filter(|n| n % 2 == parity)
            .map(|n| 1.0 + f64::from(n))
            .sum()
    };
    for (parity, id) in ids.iter().enumerate() {
        let (carts, lifetime, _) = standing(&server, &key, id).await;
        assert_eq!((carts, lifetime), (12, spend(parity as i32)), "{id}");
    }
}

#[tokio::test]
async fn a_challenges_progress_kept_in_memory_moves_with_every_cart_and_return() {
    let server = TestServer::start_at(AT).await;
    let key = server.bootstrap_key();
    let id = server
        .create_customer(&key, json!({"code": "CLUB-1"}))
        .await;
    // Read before the enrolment, which the next reads must see.
    call(
        &server,
        &key,
        "POST",
        "/carts/simulate",
        cart("CLUB-1", "CLUB-S0", 4.0),
    )
    .await;
    call(
        &server,
        &key,
        "POST",
        "/challenges/701/enroll",
        json!({"customer_id": id}),
    )
    .await;
    let progress = || async {
        let (status, mine) = server
            .get_as(&format!("/customers/{id}/challenges/701"), &key)
            .await;
        assert_eq!(status, 200, "{mine}");
        mine["progress"].as_f64().unwrap()
    };
    let points_before = standing(&server, &key, &id).await.2;
    for visit in 1..=3 {
        // The simulation keeps the Customer's progress in memory; the cart
        // is decided on it.
        let code = format!("CLUB-C{visit}");
        call(
            &server,
            &key,
            "POST",
            "/carts/simulate",
            cart("CLUB-1", &code, 4.0),
        )
        .await;
        call(
            &server,
            &key,
            "POST",
            "/carts/realtime",
            cart("CLUB-1", &code, 4.0),
        )
        .await;
        assert_eq!(progress().await, f64::from(visit), "visit {visit}");
    }
    let points_after = standing(&server, &key, &id).await.2;
    assert!(
        points_after >= points_before + 50,
        "{points_before} -> {points_after}"
    );
    call(
        &server,
        &key,
        "POST",
        "/carts/simulate",
        cart("CLUB-1", "CLUB-S4", 4.0),
    )
    .await;
    call(
        &server,
        &key,
        "POST",
        "/carts/cancellation",
        json!({"cart_id": "CLUB-C3"}),
    )
    .await;
    assert_eq!(progress().await, 2.0, "the returned visit is taken back");
    call(
        &server,
        &key,
        "POST",
        "/carts/simulate",
        cart("CLUB-1", "CLUB-S5", 4.0),
    )
    .await;
    call(
        &server,
        &key,
        "POST",
        "/carts/realtime",
        cart("CLUB-1", "CLUB-C4", 4.0),
    )
    .await;
    assert_eq!(progress().await, 3.0);
}
