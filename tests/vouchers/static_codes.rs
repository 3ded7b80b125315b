//! Static codes: one code (the demo's SUMMER10) every Customer presents,
//! its uses counted per Customer, in carts, redemptions, holds and triggers.

use super::carts::{MONDAY, cart, effects_of, post_cart_ok, rejections, shares};
use super::*;

#[tokio::test]
async fn a_static_code_is_each_customers_to_use_once() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let bob = customer(&server, &key, "bob@example.com").await;

    // Looked up without a Customer: the code as anyone would present it.
    let (status, anyone) = server.get_as("/vouchers/SUMMER10", &key).await;
    assert_eq!(status, 200, "{anyone}");
    assert_eq!(anyone["coupon_id"], 601);
    assert_eq!(anyone["customer_id"], "");
    assert_eq!(
        (anyone["state"].as_str(), anyone["uses_left"].as_i64()),
        (Some("active"), Some(1))
    );
    // For Ana, at one of its stores, however it is written.
    let (status, anas) = server
        .get_as(
            &format!("/vouchers/summer-1o?customer_id={ana}&location_code=S1"),
            &key,
        )
        .await;
    assert_eq!(status, 200, "{anas}");
    assert_eq!(anas["code"], "SUMMER10");
    assert_eq!(anas["customer_id"], ana.as_str());
    assert_eq!(anas["source"], "static_code");
    let (status, refused) = server
        .get_as(
            &format!("/vouchers/SUMMER10?customer_id={ana}&location_code=S9"),
            &key,
        )
        .await;
    assert_error(status, &refused, 422, "voucher_out_location");

    // Ana's cart takes a tenth off what is not excluded, and uses her use.
    let sold = post_cart_ok(&server, &key, cart(&ana, "S-1", json!(["summer10"]))).await;
    // COFFEE (4.50 left after the demo's coffee discount) and SHIRT 15.50.
    assert_eq!(shares(&sold, "SUMMER10"), [(1, 0.45), (4, 1.55)], "{sold}");
    let applied = effects_of(&sold, "voucher");
    assert_eq!(applied[0]["coupon_info"]["static_code"], "SUMMER10");
    assert_eq!(applied[0]["coupon_info"]["coupon_id"], 601);
    let (status, used) = server
        .get_as(&format!("/vouchers/SUMMER10?customer_id={ana}"), &key)
        .await;
    assert_error(status, &used, 422, "voucher_redeemed");
    let again = post_cart_ok(&server, &key, cart(&ana, "S-2", json!(["SUMMER10"]))).await;
    assert_eq!(
        rejections(&again),
        [("SUMMER10".to_string(), "voucher_redeemed".to_string())]
    );
    // Bob's use is his own.
    let bobs = post_cart_ok(&server, &key, cart(&bob, "S-3", json!(["SUMMER10"]))).await;
    assert_eq!(effects_of(&bobs, "voucher").len(), 2, "{bobs}");
    // Her cancelled cart gives her use back.
    let (status, _) = server
        .call_as(
            "POST",
            "/carts/cancellation",
            &key,
            Some(json!({"cart_id": "S-1"})),
        )
        .await;
    assert_eq!(status, 200);
    let (status, back) = server
        .get_as(&format!("/vouchers/SUMMER10?customer_id={ana}"), &key)
        .await;
    assert_eq!((status, &back["uses_left"]), (200, &json!(1)), "{back}");
    let (_, listed) = server
        .get_as(&format!("/vouchers?customer_id={ana}"), &key)
        .await;
    assert_eq!(listed["vouchers"][0]["code"], "SUMMER10", "{listed}");

    // Through POST /vouchers/redeem, once, then refused; rolled back by code.
    let carol = customer(&server, &key, "carol@example.com").await;
    let redeem = || {
        server.call_as(
            "POST",
            "/vouchers/redeem",
            &key,
            Some(json!({"customer_id": carol, "codes": ["SUMMER10"], "location_code": "S2"})),
        )
    };
    let (status, redeemed) = redeem().await;
    assert_eq!(status, 200, "{redeemed}");
    let (status, refused) = redeem().await;
    assert_error(status, &refused, 422, "voucher_redeemed");
    let (status, rolled) = server
        .call_as(
            "POST",
            "/vouchers/rollback",
            &key,
            Some(json!({"customer_id": carol, "codes": ["SUMMER10"]})),
        )
        .await;
    assert_eq!(status, 200, "{rolled}");
    let (status, redeemed) = redeem().await;
    assert_eq!(status, 200, "{redeemed}");
}

#[tokio::test]
async fn a_static_code_is_triggered_held_and_raced_as_one_voucher_per_customer() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let erin = customer(&server, &key, "erin@example.com").await;
    let trigger_summer = || {
        server.call_as(
            "POST",
            "/discounts/trigger",
            &key,
            Some(json!({"customer_id": erin, "coupon_id": 601})),
        )
    };
    let (status, first) = trigger_summer().await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(
        (first["code"].as_str(), first["source"].as_str()),
        (Some("SUMMER10"), Some("static_code"))
    );
    let (_, second) = trigger_summer().await;
    assert_eq!(second["id"], first["id"], "one Voucher per Customer");

    // A hold keeps her use for her checkout.
    let (status, frozen) = server
        .call_as(
            "POST",
            "/vouchers/SUMMER10/freeze",
            &key,
            Some(json!({"customer_id": erin})),
        )
        .await;
    assert_eq!(status, 200, "{frozen}");
    let unheld = post_cart_ok(&server, &key, cart(&erin, "H-1", json!(["SUMMER10"]))).await;
    assert_eq!(
        rejections(&unheld),
        [("SUMMER10".to_string(), "voucher_frozen".to_string())]
    );
    let mut held = cart(&erin, "H-2", json!(["SUMMER10"]));
    held["reservation_ids"] = json!([frozen["reservation_id"]]);
    let held = post_cart_ok(&server, &key, held).await;
    assert_eq!(effects_of(&held, "voucher").len(), 2, "{held}");

    // A Customer's first use, raced by many tills at once: one takes it.
    let dave = customer(&server, &key, "dave@example.com").await;
    let requests = (0..16)
        .map(|n| {
            server
                .request_as("POST", "/carts/realtime", &key)
                .json(&cart(&dave, &format!("D-{n}"), json!(["SUMMER10"])))
        })
        .collect();
    let answers = all_at_once(requests).await;
    let mut used = 0;
    for (status, body) in &answers {
        assert_eq!(*status, 200, "{body}");
        if effects_of(body, "voucher").is_empty() {
            assert_eq!(
                rejections(body),
                [("SUMMER10".to_string(), "voucher_redeemed".to_string())]
            );
        } else {
            used += 1;
        }
    }
    assert_eq!(used, 1, "{answers:?}");
}

#[tokio::test]
async fn a_static_code_never_used_is_printed_for_its_customer() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let gus = customer(&server, &key, "gus@example.com").await;
    let (status, printed) = server
        .call_as(
            "PUT",
            "/vouchers/print",
            &key,
            Some(json!({"customer_id": gus, "codes": ["summer10"]})),
        )
        .await;
    assert_eq!(status, 200, "{printed}");
    let voucher = &printed["printed"][0]["voucher"];
    assert_eq!(
        (voucher["code"].as_str(), voucher["customer_id"].as_str()),
        (Some("SUMMER10"), Some(gus.as_str()))
    );
    assert!(voucher["printed_at"].is_string(), "{printed}");
    // Stored with its print: listed, and still unused.
    let (_, listed) = server
        .get_as(&format!("/vouchers?customer_id={gus}"), &key)
        .await;
    assert_eq!(listed["vouchers"][0]["uses_left"], 1, "{listed}");
    assert!(listed["vouchers"][0]["printed_at"].is_string(), "{listed}");
}

#[tokio::test]
async fn deselecting_a_static_code_never_selected_answers_it_and_changes_nothing() {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let holder = json!({"customer_id": ana});
    let (status, answer) = server
        .call_as(
            "POST",
            "/vouchers/SUMMER10/deselect",
            &key,
            Some(holder.clone()),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["static_code"], "SUMMER10", "{answer}");
    assert!(answer["selected_at"].is_null(), "{answer}");
    let (status, selected) = server
        .get_as(&format!("/customers/{ana}/vouchers/selected"), &key)
        .await;
    assert_eq!(
        (status, &selected["vouchers"]),
        (200, &json!([])),
        "{selected}"
    );
    let (status, answer) = server
        .call_as(
            "PUT",
            "/vouchers/deselect",
            &key,
            Some(json!({"customer_id": ana, "codes": ["SUMMER10"]})),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["vouchers"].as_array().unwrap().len(), 1, "{answer}");
}

#[tokio::test]
async fn a_static_code_another_voucher_or_coupon_holds_is_refused_however_written_and_under_concurrency()
 {
    let server = TestServer::start_at(MONDAY).await;
    let key = server.bootstrap_key();
    let ana = customer(&server, &key, "ana@example.com").await;
    let unique = create_coupon(
        &server,
        &key,
        json!({"name": "Unique", "discount": {"percent": 10}, "code_pattern": "UQ-####-####"}),
    )
    .await;
    let issued = issued_code(&server, &key, &ana, &unique).await;
    let static_coupon =
        |code: &str| json!({"name": "Static", "discount": {"amount": 5}, "static_code": code});
    let taken = [
        // An issued Voucher's code, as written, in another case, without its dashes.
        issued.clone(),
        issued.to_lowercase(),
        issued.replace('-', ""),
        // A file Coupon's static code (SUMMER10) with a lookalike O for its 0.
        "summer-1O".to_string(),
    ];
    for code in &taken {
        let (status, refused) = server
            .call_as("POST", "/coupons", &key, Some(static_coupon(code)))
            .await;
        assert_error(status, &refused, 409, "voucher_code_taken");
    }
    // Another API Coupon's static code, and a PATCH taking a taken code.
    let winter = create_coupon(&server, &key, static_coupon("WINTER5")).await;
    let (status, refused) = server
        .call_as("POST", "/coupons", &key, Some(static_coupon("winter 5")))
        .await;
    assert_error(status, &refused, 409, "voucher_code_taken");
    let (status, refused) = server
        .call_as(
            "PATCH",
            &format!("/coupons/{}", winter["id"]),
            &key,
            Some(json!({"static_code": issued})),
        )
        .await;
    assert_error(status, &refused, 409, "voucher_code_taken");
    // Its own code again is no clash.
    let (status, same) = server
        .call_as(
            "PATCH",
            &format!("/coupons/{}", winter["id"]),
            &key,
            Some(json!({"static_code": "winter5"})),
        )
        .await;
    assert_eq!(status, 200, "{same}");

    // Sixteen Coupons of one code at once: one takes it.
    let requests = (0..16)
        .map(|_| {
            server
                .request_as("POST", "/coupons", &key)
                .json(&static_coupon("RACE16"))
        })
        .collect();
    let answers = all_at_once(requests).await;
    let created = answers.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(created, 1, "{answers:?}");
    for (status, body) in answers.iter().filter(|(status, _)| *status != 200) {
        assert_error(*status, body, 409, "voucher_code_taken");
    }

    // The issued Voucher is still the unique Coupon's, for its owner.
    let (status, voucher) = server
        .get_as(&format!("/vouchers/{issued}?customer_id={ana}"), &key)
        .await;
    assert_eq!(status, 200, "{voucher}");
    assert_eq!(voucher["coupon_id"], unique["id"], "{voucher}");
}
