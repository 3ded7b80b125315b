//! Who holds a Voucher when Customers change: a merge moves Vouchers and
//! their selection to the survivor; anonymizing erases who a Customer was,
//! not what the Company gave (Vouchers, redemptions and discount
//! transactions stay under the bare id, wallet choices go, and the Vouchers
//! can no longer be used).

use super::carts::{MONDAY, cart, effects_of, post_cart_ok};
use super::*;

#[tokio::test]
async fn anonymizing_keeps_the_redemption_history_without_personal_data() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let (status, created) = server
        .call_as(
            "POST",
            "/customers",
            &key,
            Some(json!({"email": "ana@example.com", "first_name": "Ana", "code": "ANA-1"})),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    let ana = created["id"].as_str().unwrap().to_string();
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Five off", "discount": {"amount": 5}, "code_pattern": "FIVE-######"}),
    )
    .await;
    let used = issued_code(&server, &key, &ana, &coupon).await;
    let kept = issued_code(&server, &key, &ana, &coupon).await;
    let (status, body) = server
        .call_as(
            "POST",
            &format!("/vouchers/{kept}/select"),
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = server
        .call_as(
            "POST",
            &format!("/vouchers/{kept}/freeze"),
            &key,
            Some(json!({"customer_id": ana})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let answer = post_cart_ok(&server, &key, cart(&ana, "A-1", json!([used]))).await;
    assert!(!effects_of(&answer, "voucher").is_empty(), "{answer}");

    let (status, body) = server
        .call_as("DELETE", &format!("/customers/{ana}"), &key, None)
        .await;
    assert_eq!(status, 200, "{body}");

    // The history stays, under the bare id.
    let (status, history) = server
        .get_as(&format!("/discounts/transactions?customer_id={ana}"), &key)
        .await;
    assert_eq!(status, 200, "{history}");
    assert_eq!(
        history["transactions"].as_array().unwrap().len(),
        1,
        "{history}"
    );
    let store = server.running.services.store();
    let redemptions = store
        .raw_documents("voucher_redemption", "demo")
        .await
        .unwrap();
    assert_eq!(redemptions.len(), 1);
    let vouchers = store.raw_documents("voucher", "demo").await.unwrap();
    assert_eq!(vouchers.len(), 2);
    // Nothing in it says who Ana was; her wallet choices are gone.
    for record in redemptions.iter().chain(&vouchers) {
        let text = record.to_string();
        for personal in ["ana@example.com", "Ana\"", "ANA-1"] {
            assert!(!text.contains(personal), "{personal} in {text}");
        }
        assert!(
            record.get("selected_at").is_none_or(Value::is_null),
            "{record}"
        );
        assert!(
            record["reservations"].as_array().is_none_or(Vec::is_empty),
            "{record}"
        );
    }
    // Her Vouchers are hers alone, and she is gone: no one uses them.
    let (status, body) = server
        .call_as(
            "POST",
            "/vouchers/redeem",
            &key,
            Some(json!({"customer_id": ana, "codes": [kept]})),
        )
        .await;
    assert_error(status, &body, 422, "customer_inactive");
}

#[tokio::test]
async fn a_merge_moves_vouchers_and_their_selection_to_the_survivor() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let main = customer(&server, &key, "main@example.com").await;
    let duplicate = customer(&server, &key, "dup@example.com").await;
    let coupon = create_coupon(
        &server,
        &key,
        json!({"name": "Five off", "discount": {"amount": 5}, "code_pattern": "FIVE-######"}),
    )
    .await;
    let code = issued_code(&server, &key, &duplicate, &coupon).await;
    let (status, body) = server
        .call_as(
            "POST",
            &format!("/vouchers/{code}/select"),
            &key,
            Some(json!({"customer_id": duplicate})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, merged) = server
        .call_as(
            "POST",
            "/customers/transfer",
            &key,
            Some(json!({"from_customer_id": duplicate, "to_customer_id": main})),
        )
        .await;
    assert_eq!(status, 200, "{merged}");
    let (status, selected) = server
        .get_as(&format!("/customers/{main}/vouchers/selected"), &key)
        .await;
    assert_eq!(status, 200, "{selected}");
    assert_eq!(selected["vouchers"][0]["code"], code.as_str(), "{selected}");
    assert_eq!(selected["vouchers"][0]["customer_id"], main.as_str());
    // The survivor's cart uses it by naming its selection.
    let answer = post_cart_ok(&server, &key, cart(&main, "M-1", json!(["selected"]))).await;
    assert!(!effects_of(&answer, "voucher").is_empty(), "{answer}");
}
