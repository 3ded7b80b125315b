//! Hostile and careless input: each finding of the API fuzzing report is a
//! test here. Every refusal is 400 `invalid_request` naming the field, and
//! nothing is recorded.

use serde_json::{Value, json};

use crate::common::{TestServer, read};

async fn customer(server: &TestServer) -> String {
    let (status, customer) = server
        .call_as(
            "POST",
            "/customers",
            &server.bootstrap_key(),
            Some(json!({"email": "hostile@example.com"})),
        )
        .await;
    assert_eq!(status, 200, "{customer}");
    customer["id"].as_str().unwrap().to_string()
}

/// Posts the raw `body` to `path` as JSON with the demo key.
async fn post_raw(server: &TestServer, path: &str, body: impl Into<reqwest::Body>) -> (u16, Value) {
    let request = server
        .request_as("POST", path, &server.bootstrap_key())
        .header("content-type", "application/json")
        .body(body);
    read(request.send().await.unwrap()).await
}

/// Asserts a 400 `invalid_request` whose message starts with `message`.
fn assert_refused(status: u16, answer: &Value, message: &str) {
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["code"], "invalid_request", "{answer}");
    let said = answer["error"].as_str().unwrap();
    assert!(said.starts_with(message), "{said}\n(wanted: {message})");
}

/// The carts and points of `customer`: both must stay empty after refusals.
async fn assert_nothing_recorded(server: &TestServer, customer: &str) {
    let key = server.bootstrap_key();
    let (_, carts) = server
        .call_as("GET", &format!("/carts?customer_id={customer}"), &key, None)
        .await;
    assert_eq!(carts["carts"], json!([]), "{carts}");
    let (_, events) = server
        .call_as(
            "GET",
            &format!("/custom_events?customer_id={customer}"),
            &key,
            None,
        )
        .await;
    assert!(
        events["custom_events"]
            .as_array()
            .is_none_or(|events| events.is_empty()),
        "{events}"
    );
    let (_, balance) = server
        .call_as("GET", &format!("/customers/{customer}/points"), &key, None)
        .await;
    assert_eq!(balance["points"], 0, "{balance}");
}

fn cart(customer: &str, code: &str, lines: Value) -> Value {
    json!({"customer_id": customer, "code": code, "lines": lines})
}

fn line(price: Value) -> Value {
    json!({"product_code": "A", "quantity": 1, "price": price})
}

#[tokio::test]
async fn booleans_and_numbers_are_not_taken_for_strings() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server).await;
    let cases = [
        (
            "/custom_events",
            json!({"customer_id": id, "type": false}),
            "`type` must be a string, not false",
        ),
        (
            "/customers",
            json!({"email": "n@example.com", "first_name": 123}),
            "`first_name` must be a string, not 123",
        ),
        (
            "/customers",
            json!({"email": "c@example.com", "cards": [{"number": false}]}),
            "`cards[0].number` must be a string, not false",
        ),
        (
            "/carts/realtime",
            cart(
                &id,
                "T-1",
                json!([{"product_code": 7, "quantity": 1, "price": 1}]),
            ),
            "`lines[0].product_code` must be a string, not 7",
        ),
        (
            "/carts/realtime",
            cart(
                &id,
                "T-2",
                json!([{"product_code": "A", "quantity": "1", "price": 1}]),
            ),
            "`lines[0].quantity` must be a number, not \"1\"",
        ),
    ];
    for (path, body, message) in cases {
        let (status, answer) = server.call_as("POST", path, &key, Some(body)).await;
        assert_refused(status, &answer, message);
    }
    let (_, found) = server
        .call_as("GET", "/customers/n@example.com?by=email", &key, None)
        .await;
    assert_eq!(found["code"], "customer_not_found", "{found}");
    assert_nothing_recorded(&server, &id).await;
}

#[tokio::test]
async fn a_key_repeated_in_one_object_is_refused() {
    let server = TestServer::start().await;
    let id = customer(&server).await;
    let body = format!(
        r#"{{"customer_id":"{id}","code":"DUP","lines":[{{"product_code":"A","quantity":1,"price":1,"price":1000}}]}}"#
    );
    let (status, answer) = post_raw(&server, "/carts/realtime", body).await;
    assert_refused(
        status,
        &answer,
        "the body is not valid JSON: the key `price` appears twice in one object",
    );
    assert_nothing_recorded(&server, &id).await;
}

#[tokio::test]
async fn very_long_strings_are_refused_in_every_text_field() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server).await;
    let long = "x".repeat(900_000);
    let mut located = cart(&id, "LONG-1", json!([line(json!(1))]));
    located["location_code"] = json!(long);
    let (status, answer) = server
        .call_as("POST", "/carts/realtime", &key, Some(located))
        .await;
    assert_refused(
        status,
        &answer,
        "`location_code` has 900000 characters; at most 128 are accepted",
    );
    let cases = [
        (
            "/carts/realtime",
            cart(&id, &"C".repeat(129), json!([line(json!(1))])),
            "`code` has 129 characters; at most 128 are accepted",
        ),
        (
            "/customers",
            json!({"email": "l@example.com", "last_name": "L".repeat(201)}),
            "`last_name` has 201 characters; at most 200 are accepted",
        ),
        (
            "/custom_events",
            json!({"customer_id": id, "type": "visit", "data": {"note": "n".repeat(1001)}}),
            "`data.note` has 1001 characters; at most 1000 are accepted",
        ),
    ];
    for (path, body, message) in cases {
        let (status, answer) = server.call_as("POST", path, &key, Some(body)).await;
        assert_refused(status, &answer, message);
    }
    assert_nothing_recorded(&server, &id).await;
}

#[tokio::test]
async fn control_and_direction_override_characters_are_refused_in_names_and_codes() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server).await;
    for (field, value) in [
        ("first_name", "Ana\u{0}"),
        ("last_name", "gpj.\u{202e}exe"),
        ("code", "C\u{7}1"),
    ] {
        let mut body = json!({"email": "ctl@example.com"});
        body[field] = json!(value);
        let (status, answer) = server.call_as("POST", "/customers", &key, Some(body)).await;
        assert_refused(
            status,
            &answer,
            &format!("`{field}` contains a control, invisible or direction-override character"),
        );
    }
    let (status, answer) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(cart(&id, "CTL\u{0}", json!([line(json!(1))]))),
        )
        .await;
    assert_refused(
        status,
        &answer,
        "`code` contains a control, invisible or direction-override character",
    );
    assert_nothing_recorded(&server, &id).await;
}

#[tokio::test]
async fn identifiers_are_compared_in_nfc_and_invisible_characters_are_refused() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    // Zero-width space, joiner, BOM, word joiner, soft hyphen, left-to-right mark.
    for invisible in [
        '\u{200b}', '\u{200d}', '\u{feff}', '\u{2060}', '\u{ad}', '\u{200e}',
    ] {
        for (field, value) in [
            ("code", format!("ANA{invisible}1")),
            ("email", format!("ana{invisible}@example.com")),
        ] {
            let mut body = json!({});
            body[field] = json!(value);
            let (status, answer) = server.call_as("POST", "/customers", &key, Some(body)).await;
            assert_refused(status, &answer, &format!("`{field}` contains "));
            let said = answer["error"].as_str().unwrap();
            let named = format!("(U+{:04X})", u32::from(invisible));
            assert!(said.contains(&named), "{said} names {named}");
        }
    }
    // Created in NFC (an app), looked up and claimed in NFD (a till).
    let (status, jose) = server
        .call_as(
            "POST",
            "/customers",
            &key,
            Some(json!({"code": "JOS\u{c9}-1", "email": "jos\u{e9}@example.com"})),
        )
        .await;
    assert_eq!(status, 200, "{jose}");
    let decomposed_code = "JOSE\u{301}-1";
    let (status, found) = server
        .call_as(
            "GET",
            &format!("/customers/{decomposed_code}?search_by=code"),
            &key,
            None,
        )
        .await;
    assert_eq!((status, &found["id"]), (200, &jose["id"]), "{found}");
    for (field, value) in [
        ("code", decomposed_code),
        ("email", "jose\u{301}@example.com"),
    ] {
        let mut body = json!({});
        body[field] = json!(value);
        let (status, answer) = server.call_as("POST", "/customers", &key, Some(body)).await;
        assert_eq!(
            (status, answer["code"].as_str()),
            (409, Some("customer_already_exists")),
            "{field}: {answer}"
        );
    }
}

#[tokio::test]
async fn absurd_dates_are_refused() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server).await;
    for (date, message) in [
        (
            "0001-01-01T00:00:00Z",
            "`date` 0001-01-01T00:00:00Z is outside the accepted dates",
        ),
        (
            "9999-12-31T00:00:00Z",
            "`date` 9999-12-31T00:00:00Z is outside the accepted dates",
        ),
        (
            "2999-01-01T00:00:00Z",
            "`date` 2999-01-01T00:00:00Z is outside the accepted dates",
        ),
        (
            "1970-01-01T00:00:00Z",
            "`date` 1970-01-01T00:00:00Z is more than 365 days before",
        ),
        (
            "2150-01-01T00:00:00Z",
            "`date` 2150-01-01T00:00:00Z is more than 10 minutes after",
        ),
    ] {
        let mut body = cart(&id, &format!("D-{}", &date[..4]), json!([line(json!(5))]));
        body["date"] = json!(date);
        let (status, answer) = server
            .call_as("POST", "/carts/realtime", &key, Some(body))
            .await;
        assert_refused(status, &answer, message);
        let event = json!({"customer_id": id, "type": "visit", "date": date});
        let (status, answer) = server
            .call_as("POST", "/custom_events", &key, Some(event))
            .await;
        assert_refused(status, &answer, message);
    }
    for (birth_date, message) in [
        (
            "2999-01-01",
            "`birth_date` 2999-01-01 is outside the accepted dates",
        ),
        ("2100-01-01", "`birth_date` 2100-01-01 is in the future"),
    ] {
        let (status, answer) = server
            .call_as(
                "POST",
                "/customers",
                &key,
                Some(json!({"email": "born@example.com", "birth_date": birth_date})),
            )
            .await;
        assert_refused(status, &answer, message);
    }
    assert_nothing_recorded(&server, &id).await;
}

#[tokio::test]
async fn huge_amounts_are_refused_before_they_reach_a_balance() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server).await;
    let cases = [
        (
            cart(&id, "H-1", json!([line(json!(1e18))])),
            "`lines[0].price` must be at most 10000000000",
        ),
        (
            cart(&id, "H-2", json!([line(json!(1e19))])),
            "`lines[0].price` must be at most 10000000000",
        ),
        (
            cart(
                &id,
                "H-3",
                json!([{"product_code": "A", "quantity": 1e300, "price": 1}]),
            ),
            "`lines[0].quantity` must be at most 1000000",
        ),
        (
            json!({"customer_id": id, "code": "H-4", "lines": [line(json!(1))], "total": 1e300}),
            "`total` must be at most 10000000000",
        ),
    ];
    for (body, message) in cases {
        let (status, answer) = server
            .call_as("POST", "/carts/realtime", &key, Some(body))
            .await;
        assert_refused(status, &answer, message);
    }
    let (status, answer) = server
        .call_as(
            "POST",
            "/scores/trigger",
            &key,
            Some(json!({"customer_id": id, "points": 10_000_000_000_000_000_000u64})),
        )
        .await;
    assert_refused(
        status,
        &answer,
        "`points` 10000000000000000000 is out of range",
    );
    assert_nothing_recorded(&server, &id).await;
}

#[tokio::test]
async fn a_total_above_its_lines_is_refused_and_a_lower_one_is_what_was_paid() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server).await;
    let mut inflated = cart(&id, "TOT-1", json!([line(json!(1))]));
    inflated["total"] = json!(100000);
    let (status, answer) = server
        .call_as("POST", "/carts/realtime", &key, Some(inflated))
        .await;
    assert_refused(
        status,
        &answer,
        "`total` 100000 is more than the lines add up to (1)",
    );
    assert_nothing_recorded(&server, &id).await;

    // One minor unit per line is rounding; less is a ticket discount.
    let mut rounded = cart(&id, "TOT-2", json!([line(json!(10)), line(json!(10))]));
    rounded["total"] = json!(20.02);
    let (status, answer) = server
        .call_as("POST", "/carts/realtime", &key, Some(rounded))
        .await;
    assert_eq!(status, 200, "{answer}");
    let mut discounted = cart(&id, "TOT-3", json!([line(json!(30))]));
    discounted["total"] = json!(25);
    let (status, answer) = server
        .call_as("POST", "/carts/realtime", &key, Some(discounted))
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["cart"]["total"], 25.0, "{answer}");
    assert_eq!(
        answer["cart"]["points_earned"], 25,
        "points on what was paid"
    );
}

#[tokio::test]
async fn deep_nesting_and_invalid_utf8_are_refused() {
    let server = TestServer::start().await;
    let id = customer(&server).await;
    let deep = format!(
        r#"{{"customer_id":"{id}","type":"visit","data":{{"x":{}1{}}}}}"#,
        "[".repeat(40),
        "]".repeat(40)
    );
    let (status, answer) = post_raw(&server, "/custom_events", deep).await;
    assert_refused(
        status,
        &answer,
        "the body is not valid JSON: nesting deeper than 32 levels",
    );
    let mut invalid =
        format!(r#"{{"customer_id":"{id}","type":"visit","data":{{"x":""#).into_bytes();
    invalid.extend_from_slice(b"\xff\xfe\"}}");
    let (status, answer) = post_raw(&server, "/custom_events", invalid).await;
    assert_refused(status, &answer, "the body is not valid JSON");
    assert_nothing_recorded(&server, &id).await;
}

/// Every request body takes a fixed set of fields: the spec closes each one
/// (`additionalProperties: false`), every operation with a body publishes an
/// example, and that example with one unknown top-level field added is
/// refused 400 naming the field, before anything is looked up or recorded.
#[tokio::test]
async fn an_unknown_field_in_any_request_body_is_refused_naming_it() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let spec = server.spec().await;
    let mut bodies = 0;
    for (path, operations) in spec["paths"].as_object().unwrap() {
        for (method, operation) in operations.as_object().unwrap() {
            let Some(content) = operation["requestBody"]["content"].as_object() else {
                continue;
            };
            let operation_name = format!("{} {path}", method.to_uppercase());
            let media = content
                .get("application/json")
                .unwrap_or_else(|| panic!("{operation_name}: {content:?}"));
            let reference = media["schema"]["$ref"].as_str().unwrap();
            let schema_name = reference.rsplit('/').next().unwrap();
            let schema = &spec["components"]["schemas"][schema_name];
            assert_eq!(
                schema["additionalProperties"],
                json!(false),
                "{operation_name}: {schema_name} is not closed"
            );
            let mut example = media["example"].clone();
            assert!(example.is_object(), "{operation_name} has no example");
            example["zz_unknown"] = json!(true);
            let concrete = path
                .replace("{id}", "1")
                .replace("{value}", "EXT-1")
                .replace("{code}", "NO-SUCH-CODE")
                .replace("{slug}", "brand")
                .replace("{taxonomy_slug}", "brand");
            let (status, answer) = server
                .call_as(&method.to_uppercase(), &concrete, &key, Some(example))
                .await;
            assert_eq!(status, 400, "{operation_name}: {answer}");
            assert_eq!(answer["code"], "invalid_request", "{operation_name}");
            let error = answer["error"].as_str().unwrap();
            assert!(error.contains("zz_unknown"), "{operation_name}: {error}");
            bodies += 1;
        }
    }
    assert!(bodies >= 55, "only {bodies} operations with a body");
    let (_, customers) = server.get_as("/customers", &key).await;
    assert_eq!(customers["customers"], json!([]), "nothing was recorded");
}

/// Values a parser would quietly bend are refused instead: a leap second
/// (read as second 59), a time with more fractional digits than a
/// nanosecond (cut), and a quantity below a thousandth (a denormal float
/// that rounds every line to nothing).
#[tokio::test]
async fn times_and_quantities_that_would_be_bent_are_refused() {
    let server = TestServer::start_at("2026-11-27T10:00:00Z").await;
    let key = server.bootstrap_key();
    let id = customer(&server).await;
    let dated = |code: &str, date: &str| {
        let mut body = cart(&id, code, json!([line(json!(1))]));
        body["date"] = json!(date);
        body
    };
    let cases = [
        (
            dated("T-LEAP", "2026-11-27T09:59:60Z"),
            "`date` \"2026-11-27T09:59:60Z\": a leap second (second 60) is not accepted",
        ),
        (
            dated("T-PRECISE", "2026-11-27T09:59:00.123456789012Z"),
            "`date` \"2026-11-27T09:59:00.123456789012Z\": at most 9 fractional digits",
        ),
        (
            cart(
                &id,
                "T-TINY",
                json!([{"product_code": "A", "quantity": 5e-324, "price": 1}]),
            ),
            "`lines[0].quantity` must be at least 0.001",
        ),
    ];
    for (body, message) in cases {
        let (status, answer) = server
            .call_as("POST", "/carts/realtime", &key, Some(body))
            .await;
        assert_refused(status, &answer, message);
    }
    // Nine digits and a gram are fine.
    let (status, answer) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(dated("T-FINE", "2026-11-27T09:59:00.123456789Z")),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    let gram = cart(
        &id,
        "T-GRAM",
        json!([{"product_code": "A", "quantity": 0.001, "price": 1}]),
    );
    let (status, answer) = server
        .call_as("POST", "/carts/realtime", &key, Some(gram))
        .await;
    assert_eq!(status, 200, "{answer}");
    let (_, carts) = server
        .get_as(&format!("/carts?customer_id={id}"), &key)
        .await;
    assert_eq!(carts["carts"].as_array().unwrap().len(), 2, "{carts}");
}
