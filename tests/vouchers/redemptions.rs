//! Redemptions all or none and rollbacks once, also under concurrency; a
//! single-use Voucher used once whatever the race.

use super::*;

#[tokio::test]
async fn vouchers_are_redeemed_all_or_none_and_rolled_back_once() {
    let server = TestServer::start_at("2026-07-04T10:00:00Z").await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let bob = customer(&server, &key, "bob@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Two uses", "discount": {"amount": 5}, "uses_per_voucher": 2, "locations": ["S1"]}),
    )
    .await;
    let first = trigger(&server, &key, &ana, &coupon).await;
    let second = trigger(&server, &key, &ana, &coupon).await;
    let bobs = trigger(&server, &key, &bob, &coupon).await;
    let (first_code, second_code) = (
        first["code"].as_str().unwrap().to_string(),
        second["code"].as_str().unwrap().to_string(),
    );
    let redeem = |body: Value| {
        let server = &server;
        let key = &key;
        async move {
            server
                .call_as("POST", "/vouchers/redeem", key, Some(body))
                .await
        }
    };
    // One code of the list cannot be used: nothing is redeemed, and the
    // refusal names each failing code.
    let (status, refused) = redeem(json!({
        "customer_id": ana, "location_code": "S1",
        "codes": [first_code, bobs["code"], "NOPE-0000"],
    }))
    .await;
    assert_error(status, &refused, 404, "voucher_not_found");
    let errors = refused["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{refused}");
    assert_eq!(errors[0]["voucher_code"], bobs["code"]);
    assert_eq!(errors[1]["voucher_code"], "NOPE-0000");
    assert!(
        errors.iter().all(|e| e["code"] == "voucher_not_found"),
        "{refused}"
    );
    let (status, refused) = redeem(json!({"customer_id": ana, "codes": [first_code]})).await;
    assert_error(status, &refused, 422, "voucher_out_location");
    let (status, refused) = redeem(json!({
        "customer_id": ana, "location_code": "S1", "codes": [first_code, first_code.to_lowercase()],
    }))
    .await;
    assert_error(status, &refused, 400, "invalid_request");
    let (_, unchanged) = server
        .get_as(&format!("/vouchers/{first_code}"), &key)
        .await;
    assert_eq!(unchanged["uses_left"], 2, "nothing was used: {unchanged}");

    let (status, redeemed) = redeem(json!({
        "customer_id": ana, "location_code": "S1", "cart_code": "T-1", "codes": [first_code, second_code],
    }))
    .await;
    assert_eq!(status, 200, "{redeemed}");
    let redemptions = redeemed["redemptions"].as_array().unwrap();
    assert_eq!(redemptions.len(), 2);
    assert_eq!(redemptions[0]["voucher_code"], first_code.as_str());
    assert_eq!(redemptions[0]["cart_code"], "T-1");
    assert_eq!(redeemed["vouchers"][0]["uses_left"], 1);
    let (status, _) =
        redeem(json!({"customer_id": ana, "location_code": "S1", "codes": [first_code]})).await;
    assert_eq!(status, 200);
    let (status, refused) =
        redeem(json!({"customer_id": ana, "location_code": "S1", "codes": [first_code]})).await;
    assert_error(status, &refused, 422, "voucher_redeemed");
    let (_, spent) = server
        .get_as(&format!("/vouchers?customer_id={ana}"), &key)
        .await;
    assert_eq!(spent["vouchers"][0]["state"], "redeemed", "{spent}");

    // Rolled back by code: its latest use returns, once.
    let rollback = |body: Value| {
        let server = &server;
        let key = &key;
        async move {
            server
                .call_as("POST", "/vouchers/rollback", key, Some(body))
                .await
        }
    };
    let (status, rolled) = rollback(json!({"customer_id": ana, "codes": [first_code]})).await;
    assert_eq!(status, 200, "{rolled}");
    assert!(
        rolled["redemptions"][0]["rolled_back_at"].is_string(),
        "{rolled}"
    );
    let (_, back) = server
        .get_as(&format!("/vouchers/{first_code}"), &key)
        .await;
    assert_eq!(
        (back["state"].as_str(), back["uses_left"].as_i64()),
        (Some("active"), Some(1))
    );
    // By id: the first redemption, then never again.
    let first_use = redemptions[0]["redemption_id"].as_str().unwrap();
    let (status, rolled) = rollback(json!({"redemption_ids": [first_use]})).await;
    assert_eq!(status, 200, "{rolled}");
    let (status, refused) = rollback(json!({"redemption_ids": [first_use]})).await;
    assert_error(status, &refused, 422, "voucher_not_redeemed");
    let (status, refused) = rollback(json!({"customer_id": ana, "codes": [first_code]})).await;
    assert_error(status, &refused, 422, "voucher_not_redeemed");
    let (_, back) = server
        .get_as(&format!("/vouchers/{first_code}"), &key)
        .await;
    assert_eq!(
        back["uses_left"], 2,
        "each use returned exactly once: {back}"
    );
    let (status, refused) = rollback(json!({"redemption_ids": ["rdm_nothing"]})).await;
    assert_error(status, &refused, 404, "redemption_not_found");
    let (status, refused) = rollback(json!({"customer_id": bob, "codes": [second_code]})).await;
    assert_error(status, &refused, 404, "voucher_not_found");
    let (status, refused) = rollback(json!({"codes": [second_code]})).await;
    assert_error(status, &refused, 400, "invalid_request");
    let (status, refused) = rollback(json!({"customer_id": ana})).await;
    assert_error(status, &refused, 400, "invalid_request");

    // A retried rollback with its Idempotency-Key replays the first answer.
    let second_use = redemptions[1]["redemption_id"].as_str().unwrap();
    let retried = || {
        server
            .request_as("POST", "/vouchers/rollback", &key)
            .header("Idempotency-Key", "rollback-1")
            .json(&json!({"redemption_ids": [second_use]}))
    };
    let (status, answer) = server.send(retried()).await;
    assert_eq!(status, 200, "{answer}");
    let (status, replayed) = server.send(retried()).await;
    assert_eq!((status, &replayed), (200, &answer));
}

#[tokio::test]
async fn concurrent_rollbacks_by_code_give_back_each_use_once() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Four", "discount": {"percent": 5}, "uses_per_voucher": 4}),
    )
    .await;
    let code = issued_code(&server, &key, &ana, &coupon).await;
    let body = json!({"customer_id": ana, "codes": [code]});
    for _ in 0..4 {
        let (status, used) = server
            .call_as("POST", "/vouchers/redeem", &key, Some(body.clone()))
            .await;
        assert_eq!(status, 200, "{used}");
    }
    let requests = (0..6)
        .map(|_| {
            server
                .request_as("POST", "/vouchers/rollback", &key)
                .json(&body)
        })
        .collect();
    let answers = all_at_once(requests).await;
    let given_back: Vec<String> = answers
        .iter()
        .filter(|(status, _)| *status == 200)
        .map(|(_, answer)| {
            answer["redemptions"][0]["redemption_id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(given_back.len(), 4, "each use once: {answers:?}");
    let distinct: std::collections::HashSet<&String> = given_back.iter().collect();
    assert_eq!(distinct.len(), 4, "{given_back:?}");
    for (status, answer) in answers.iter().filter(|(status, _)| *status != 200) {
        assert_error(*status, answer, 422, "voucher_not_redeemed");
    }
    let (_, read) = server
        .get_as(&format!("/vouchers/{code}?customer_id={ana}"), &key)
        .await;
    assert_eq!(read["uses_left"], 4, "{read}");
}

#[tokio::test]
async fn a_single_use_voucher_is_used_once_whatever_the_race() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Once", "discount": {"percent": 10}}),
    )
    .await;
    let voucher = trigger(&server, &key, &ana, &coupon).await;
    let code = voucher["code"].as_str().unwrap();
    let requests = (0..64)
        .map(|n| {
            // The same code, written in as many ways as tills write it.
            let written = if n % 2 == 0 {
                code.to_string()
            } else {
                code.to_lowercase()
            };
            server
                .request_as("POST", "/vouchers/redeem", &key)
                .json(&json!({"customer_id": ana, "codes": [written]}))
        })
        .collect();
    let answers = all_at_once(requests).await;
    let won = answers.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(won, 1, "{answers:?}");
    for (status, body) in answers.iter().filter(|(status, _)| *status != 200) {
        assert_error(*status, body, 422, "voucher_redeemed");
        assert_eq!(
            body["errors"][0]["voucher_code"]
                .as_str()
                .map(str::to_uppercase),
            Some(code.to_string())
        );
    }
    let (_, after) = server.get_as(&format!("/vouchers/{code}"), &key).await;
    assert_error(422, &after, 422, "voucher_redeemed");
}
