//! Exact money and the Company's local time, over HTTP: amounts a float
//! would get wrong by a cent come back right and stay right after a
//! restart; cart discounts are shared out over the lines to the cent; bad
//! amounts are refused naming field and line, changing nothing; weekdays and
//! once-a-day Instant Wins follow the Company's clocks.

use loyalty::resources::companies::model::CreatedApiKey;
use loyalty::server::ServerSettings;
use serde_json::{Value, json};

use crate::common::{OPERATOR_TOKEN, TestServer, manual_clock};

/// 10% off any Saturday cart; 10% off `TENTH` lines; 1.00 off three-line
/// carts; 10% off a `PEEK` cart for two purchase histories (16, 17); a
/// once-a-day Instant Win with only the No Prize entry; 100 points per unit
/// of currency.
const CAMPAIGNS: &[(&str, &str)] = &[
    (
        "saturday.yaml",
        "id: 11\nkind: discount\nname: Saturday\non: cart\nwhen: weekday == \"saturday\"\ndiscount:\n  applies_to: cart\n  percent: 10\n",
    ),
    (
        "tenth.yaml",
        "id: 12\nkind: discount\nname: Tenth\non: cart\nwhen: cart.lines.len() == 1 && cart.lines[0].product_code == \"TENTH\"\ndiscount:\n  applies_to: lines\n  lines: line.product_code == \"TENTH\"\n  percent: 10\n",
    ),
    (
        "third.yaml",
        "id: 13\nkind: discount\nname: Third off\non: cart\nwhen: cart.lines.len() == 3\ndiscount:\n  applies_to: cart\n  amount: 1.00\n",
    ),
    (
        "hundred.yaml",
        "id: 15\nkind: points\nname: Hundred per euro\non: cart\npoints:\n  per_amount: 100\n",
    ),
    (
        "today.yaml",
        "id: 16\nkind: discount\nname: Today's two\non: cart\nwhen: cart.lines[0].product_code == \"PEEK\" && history.spent_last_days(1) == 7.5 && history.carts_last_days(1) == 2 && history.spent_last_days(2) == 11.5\ndiscount:\n  applies_to: cart\n  percent: 10\n",
    ),
    (
        "today-after-cancel.yaml",
        "id: 17\nkind: discount\nname: Today's one\non: cart\nwhen: cart.lines[0].product_code == \"PEEK\" && history.spent_last_days(1) == 5.0 && history.carts_last_days(1) == 1 && history.carts_last_days(2) == 2\ndiscount:\n  applies_to: cart\n  percent: 10\n",
    ),
    (
        "daily-draw.yaml",
        "id: 14\nkind: instant_win\nname: Daily draw\non: cart\nwhen: cart.lines[0].product_code == \"DRAW\"\nselect_customers: loyalty\nonce: day\nonce_limit: 1\ninstant_win:\n  instant_win_prizes:\n    - id: none\n      name: No prize\n      weight: 1\n",
    ),
];

/// A server whose Companies `madrid` (Europe/Madrid) and `utc` share
/// [`CAMPAIGNS`], on the store at `store`.
async fn server_on(store: &str, campaigns: &std::path::Path) -> TestServer {
    for company in ["madrid", "utc"] {
        let dir = campaigns.join(company).join("campaigns");
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in CAMPAIGNS {
            std::fs::write(dir.join(name), text).unwrap();
        }
    }
    let mut settings = ServerSettings::for_store(store, OPERATOR_TOKEN);
    settings.campaigns = campaigns.to_path_buf();
    settings.clock = manual_clock("2026-05-04T10:00:00Z");
    TestServer::start_with(settings).await
}

async fn member(server: &TestServer, key: &CreatedApiKey) -> String {
    let (status, customer) = server
        .call_as(
            "POST",
            "/customers",
            key,
            Some(json!({"email": "m@example.com", "enroll": true})),
        )
        .await;
    assert_eq!(status, 200, "{customer}");
    customer["id"].as_str().unwrap().to_string()
}

fn cart(customer: &str, code: &str, date: &str, lines: Value) -> Value {
    json!({"customer_id": customer, "code": code, "date": date, "lines": lines})
}

/// The (line, value) of each discount effect of campaign `rule_id`.
fn discounts_of(answer: &Value, rule_id: i64) -> Vec<(i64, String)> {
    answer["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "discount" && e["rule_id"] == rule_id)
        .map(|e| (e["line"].as_i64().unwrap(), e["value"].to_string()))
        .collect()
}

#[tokio::test]
async fn amounts_a_float_gets_wrong_come_back_exact_and_stay_exact_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("surrealkv://{}", dir.path().join("store").display());
    let campaigns = dir.path().join("campaigns");
    let server = server_on(&store, &campaigns).await;
    let key = server.company_with_key("utc").await;
    let customer = member(&server, &key).await;

    // 10% of 10.05 is 1.005: half away from zero gives 1.01, where rounding
    // the float (1.00499999…) gives 1.00.
    assert_eq!((10.05f64 * 10.0 / 100.0 * 100.0).round() / 100.0, 1.0);
    let (status, tenth) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(cart(
                &customer,
                "EXACT-1",
                "2026-05-04T10:00:00Z",
                json!([{"product_code": "TENTH", "quantity": 1, "price": 10.05}]),
            )),
        )
        .await;
    assert_eq!(status, 200, "{tenth}");
    assert_eq!(discounts_of(&tenth, 12), [(1, "1.01".to_string())]);
    assert_eq!(tenth["cart"]["discount_total"], json!(1.01));
    assert_eq!(tenth["cart"]["lines"][0]["discount"], json!(1.01));
    assert_eq!(tenth["cart"]["points_earned"], 1005);

    // Three lines of 0.1, 0.2 and 3.33 (as floats 0.1 + 0.2 is not 0.3):
    // the total is exactly 3.63, and 1.00 off is shared in proportion,
    // 0.02 + 0.05 + 0.91 rounded down and the two cents left going to the
    // largest remainders: 0.03, 0.05, 0.92.
    let (status, shared) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(cart(
                &customer,
                "EXACT-2",
                "2026-05-04T10:00:00Z",
                json!([
                    {"product_code": "A", "quantity": 1, "price": 0.1},
                    {"product_code": "B", "quantity": 1, "price": 0.2},
                    {"product_code": "C", "quantity": 1, "price": 3.33}
                ]),
            )),
        )
        .await;
    assert_eq!(status, 200, "{shared}");
    assert_eq!(shared["cart"]["total"], json!(3.63));
    let shares = discounts_of(&shared, 13);
    assert_eq!(
        shares,
        [
            (1, "0.03".to_string()),
            (2, "0.05".to_string()),
            (3, "0.92".to_string())
        ]
    );
    assert!(
        shared["effects"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["rule_id"] == 13)
            .all(|e| e["distribution_type"] == "cart")
    );
    assert_eq!(shared["cart"]["discount_total"], json!(1.0));

    // 19.99 × 100 points is 1999; as floats it is 1998.9999999999998, which
    // rounds down to 1998.
    assert_eq!((19.99f64 * 100.0).floor(), 1998.0);
    let (status, points_cart) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(cart(
                &customer,
                "EXACT-3",
                "2026-05-04T10:00:00Z",
                json!([{"product_code": "P", "quantity": 1, "price": 19.99}]),
            )),
        )
        .await;
    assert_eq!(status, 200, "{points_cart}");
    assert_eq!(points_cart["cart"]["points_earned"], 1999);

    let (_, attributes) = server
        .call_as(
            "GET",
            &format!("/customers/{customer}/attributes"),
            &key,
            None,
        )
        .await;
    assert_eq!(attributes["lifetime_spend"], json!(33.67));
    let points = format!("/customers/{customer}/points");
    let (_, balance) = server.call_as("GET", &points, &key, None).await;
    assert_eq!(balance["points"], 1005 + 363 + 1999, "{balance}");

    let first_carts = (
        server.call_as("GET", "/carts/EXACT-1", &key, None).await.1,
        server.call_as("GET", "/carts/EXACT-2", &key, None).await.1,
    );
    assert_eq!(first_carts.0, tenth["cart"]);
    assert_eq!(first_carts.1, shared["cart"]);
    server.running.shutdown().await.expect("shutdown");

    let restarted = server_on(&store, &campaigns).await;
    let after = (
        restarted
            .call_as("GET", "/carts/EXACT-1", &key, None)
            .await
            .1,
        restarted
            .call_as("GET", "/carts/EXACT-2", &key, None)
            .await
            .1,
    );
    assert_eq!(after, first_carts, "the stored carts keep their figures");
    let (_, balance_after) = restarted.call_as("GET", &points, &key, None).await;
    assert_eq!(balance_after, balance, "and the ledger its points");
    let (_, attributes) = restarted
        .call_as(
            "GET",
            &format!("/customers/{customer}/attributes"),
            &key,
            None,
        )
        .await;
    assert_eq!(attributes["lifetime_spend"], json!(33.67));
}

#[tokio::test]
async fn bad_amounts_are_refused_naming_field_and_line_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = server_on("mem://", dir.path()).await;
    let key = server.company_with_key("utc").await;
    let customer = member(&server, &key).await;
    let line = |price: Value| json!({"product_code": "A", "quantity": 1, "price": price});
    let cases = [
        (
            json!([line(json!(1.5)), line(json!(-1))]),
            None,
            "`lines[1].price` must be at least 0",
        ),
        (
            json!([line(json!(1.005))]),
            None,
            "`lines[0].price` 1.005 has more than 2 decimals",
        ),
        (
            json!([line(json!("12.34"))]),
            None,
            "`lines[0].price` must be a number",
        ),
        (
            json!([line(json!(null))]),
            None,
            "`lines[0].price` must not be null",
        ),
        (
            json!([line(json!(1e300))]),
            None,
            "`lines[0].price` must be at most 10000000000",
        ),
        (
            json!([line(json!(2))]),
            Some(json!(2.001)),
            "`total` 2.001 has more than 2 decimals",
        ),
        (
            json!([line(json!(2))]),
            Some(json!(-2)),
            "`total` must be at least 0",
        ),
        (
            json!([line(json!(2))]),
            Some(json!("2")),
            "`total` must be a number",
        ),
    ];
    for (index, (lines, total, message)) in cases.into_iter().enumerate() {
        let mut body = cart(
            &customer,
            &format!("BAD-{index}"),
            "2026-05-04T10:00:00Z",
            lines,
        );
        if let Some(total) = total {
            body["total"] = total;
        }
        let (status, error) = server
            .call_as("POST", "/carts/realtime", &key, Some(body))
            .await;
        assert_eq!(status, 400, "{error}");
        assert_eq!(error["code"], "invalid_request", "{error}");
        let said = error["error"].as_str().unwrap();
        assert!(said.starts_with(message), "{said} (wanted {message})");
    }
    let (_, carts) = server
        .call_as("GET", &format!("/carts?customer_id={customer}"), &key, None)
        .await;
    assert_eq!(carts["carts"], json!([]), "{carts}");
}

/// Effects of type `instant_win` in an answer.
fn draws(answer: &Value) -> usize {
    answer["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "instant_win")
        .count()
}

#[tokio::test]
async fn weekdays_and_days_are_the_companys_own() {
    let dir = tempfile::tempdir().unwrap();
    let server = server_on("mem://", dir.path()).await;
    let madrid = server.company_in_zone("madrid", "Europe/Madrid").await;
    let utc = server.company_with_key("utc").await;
    let in_madrid = member(&server, &madrid).await;
    let in_utc = member(&server, &utc).await;
    let post = |key: &CreatedApiKey, body: Value| {
        let key = key.clone();
        let server = &server;
        async move {
            // Campaigns see the time the cart is received.
            server.set_time(body["date"].as_str().unwrap());
            server
                .call_as("POST", "/carts/realtime", &key, Some(body))
                .await
        }
    };
    let plain = json!([{"product_code": "A", "quantity": 1, "price": 20}]);

    // 2026-05-01T23:30Z is Friday in UTC and 01:30 on Saturday in Madrid.
    let (_, answer) = post(
        &madrid,
        cart(&in_madrid, "SAT-1", "2026-05-01T23:30:00Z", plain.clone()),
    )
    .await;
    assert_eq!(
        discounts_of(&answer, 11)
            .iter()
            .map(|d| &d.1)
            .collect::<Vec<_>>(),
        ["2.0"],
        "{answer}"
    );
    let (_, answer) = post(
        &utc,
        cart(&in_utc, "SAT-1", "2026-05-01T23:30:00Z", plain.clone()),
    )
    .await;
    assert!(discounts_of(&answer, 11).is_empty(), "{answer}");
    // And 22:30Z on the Saturday is still Saturday in UTC, Sunday in Madrid.
    let (_, answer) = post(
        &madrid,
        cart(&in_madrid, "SAT-2", "2026-05-02T22:30:00Z", plain.clone()),
    )
    .await;
    assert!(discounts_of(&answer, 11).is_empty(), "{answer}");
    let (_, answer) = post(&utc, cart(&in_utc, "SAT-2", "2026-05-02T22:30:00Z", plain)).await;
    assert_eq!(discounts_of(&answer, 11).len(), 1, "{answer}");

    // A once-a-day draw: 21:30Z (23:30 in Madrid), then 22:30Z (00:30 the
    // next day in Madrid, the same day in UTC), then 00:30Z (a new UTC day,
    // the same Madrid day).
    let draw = json!([{"product_code": "DRAW", "quantity": 1, "price": 1}]);
    let mut seen = Vec::new();
    for (code, date) in [
        ("D-1", "2026-05-01T21:30:00Z"),
        ("D-2", "2026-05-01T22:30:00Z"),
        ("D-3", "2026-05-02T00:30:00Z"),
    ] {
        let (_, in_zone) = post(&madrid, cart(&in_madrid, code, date, draw.clone())).await;
        let (_, in_utc_zone) = post(&utc, cart(&in_utc, code, date, draw.clone())).await;
        seen.push((draws(&in_zone), draws(&in_utc_zone)));
    }
    assert_eq!(seen, [(1, 1), (1, 0), (0, 1)]);
}

#[tokio::test]
async fn the_days_around_a_daylight_saving_change_are_whole_days() {
    let dir = tempfile::tempdir().unwrap();
    let server = server_on("mem://", dir.path()).await;
    let madrid = server.company_in_zone("madrid", "Europe/Madrid").await;
    let customer = member(&server, &madrid).await;
    let draw = json!([{"product_code": "DRAW", "quantity": 1, "price": 1}]);
    // Madrid's clocks go forward at 02:00 on Sunday 2026-03-29 (a 23-hour
    // day) and back at 03:00 on Sunday 2026-10-25 (a 25-hour day).
    let mut seen = Vec::new();
    for (code, date) in [
        ("S-1", "2026-03-28T23:00:00Z"), // Sunday 00:00 (+01:00)
        ("S-2", "2026-03-29T21:59:00Z"), // Sunday 23:59 (+02:00)
        ("S-3", "2026-03-29T22:00:00Z"), // Monday 00:00
        ("A-1", "2026-10-24T22:00:00Z"), // Sunday 00:00 (+02:00)
        ("A-2", "2026-10-25T22:59:00Z"), // Sunday 23:59 (+01:00)
        ("A-3", "2026-10-25T23:00:00Z"), // Monday 00:00
    ] {
        server.set_time(date);
        let (status, answer) = server
            .call_as(
                "POST",
                "/carts/realtime",
                &madrid,
                Some(cart(&customer, code, date, draw.clone())),
            )
            .await;
        assert_eq!(status, 200, "{answer}");
        seen.push(draws(&answer));
    }
    assert_eq!(seen, [1, 0, 1, 1, 0, 1]);
}

/// The simulation of a `PEEK` cart at 10:00 UTC on 4 May, which campaigns
/// 16 and 17 answer with a discount when the Customer's history is as they
/// expect.
async fn peek_at_history(server: &TestServer, key: &CreatedApiKey, customer: &str) -> Value {
    let (status, answer) = server
        .call_as(
            "POST",
            "/carts/simulate",
            key,
            Some(cart(
                customer,
                "PEEK",
                "2026-05-04T10:00:00Z",
                json!([{"product_code": "PEEK", "quantity": 1, "price": 10}]),
            )),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    answer
}

#[tokio::test]
async fn history_windows_are_the_companys_days_and_a_cancelled_cart_counts_on_none() {
    let dir = tempfile::tempdir().unwrap();
    let server = server_on("mem://", dir.path()).await;
    let madrid = server.company_in_zone("madrid", "Europe/Madrid").await;
    let customer = member(&server, &madrid).await;
    let line = |price: f64| json!([{"product_code": "A", "quantity": 1, "price": price}]);
    // The clock stands at 12:00 on 4 May in Madrid. 22:30 UTC on the 3rd is
    // already the 4th there, 21:30 UTC still the 3rd.
    for (code, date, price) in [
        ("H-1", "2026-05-03T22:30:00Z", 5.0),
        ("H-2", "2026-05-04T09:00:00Z", 2.5),
        ("H-3", "2026-05-03T21:30:00Z", 4.0),
    ] {
        let (status, answer) = server
            .call_as(
                "POST",
                "/carts/realtime",
                &madrid,
                Some(cart(&customer, code, date, line(price))),
            )
            .await;
        assert_eq!(status, 200, "{answer}");
    }
    let peek = || async {
        let answer = peek_at_history(&server, &madrid, &customer).await;
        (
            !discounts_of(&answer, 16).is_empty(),
            !discounts_of(&answer, 17).is_empty(),
        )
    };
    // Today: 5.00 and 2.50 in two carts; yesterday 4.
    assert_eq!(peek().await, (true, false));
    let (status, answer) = server
        .call_as(
            "POST",
            "/carts/cancellation",
            &madrid,
            Some(json!({"cart_id": "H-2"})),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    // Today: 5.00 in one cart; the cancelled cart and its cancellation
    // count on no day.
    assert_eq!(peek().await, (false, true));
}

#[tokio::test]
async fn a_cart_counts_on_the_day_of_its_locations_time_zone() {
    let dir = tempfile::tempdir().unwrap();
    let server = server_on("mem://", dir.path()).await;
    let madrid = server.company_in_zone("madrid", "Europe/Madrid").await;
    let (status, location) = server
        .call_as(
            "POST",
            "/locations",
            &madrid,
            Some(json!({"code": "NYC", "name": "New York", "country": "US", "time_zone": "America/New_York"})),
        )
        .await;
    assert_eq!(status, 200, "{location}");
    let customer = member(&server, &madrid).await;
    let line = |price: f64| json!([{"product_code": "A", "quantity": 1, "price": price}]);
    // 02:00 UTC on 4 May is 04:00 on the 4th in Madrid but 22:00 on the 3rd
    // in New York: the store there sold on the 3rd.
    let carts = [
        ("Z-1", "2026-05-03T22:30:00Z", None, 5.0),
        ("Z-2", "2026-05-04T09:00:00Z", None, 2.5),
        ("Z-3", "2026-05-04T02:00:00Z", Some("NYC"), 4.0),
    ];
    for (code, date, location, price) in carts {
        let mut body = cart(&customer, code, date, line(price));
        if let Some(location) = location {
            body["location_code"] = json!(location);
        }
        let (status, answer) = server
            .call_as("POST", "/carts/realtime", &madrid, Some(body))
            .await;
        assert_eq!(status, 200, "{answer}");
    }
    // In Madrid on the 4th: today 5.00 and 2.50 in two carts, the two days
    // 11.50 (campaign 16); counted on Madrid's day the New York cart would
    // make today 11.50 in three.
    let answer = peek_at_history(&server, &madrid, &customer).await;
    assert!(!discounts_of(&answer, 16).is_empty(), "{answer}");
}

#[tokio::test]
async fn back_dated_and_future_dated_carts_cannot_buy_more_draws() {
    let dir = tempfile::tempdir().unwrap();
    let server = server_on("mem://", dir.path()).await;
    let madrid = server.company_in_zone("madrid", "Europe/Madrid").await;
    let customer = member(&server, &madrid).await;
    let draw = json!([{"product_code": "DRAW", "quantity": 1, "price": 1}]);
    // The service's clock stands at 2026-05-04T10:00:00Z: six carts dated
    // on six earlier days, sent within the same minute, are six purchases
    // recorded at their dates, and one day's draw.
    let mut drawn = 0;
    for day in 0..6 {
        let date = format!("2026-04-{:02}T10:00:00Z", 20 + day);
        let (status, answer) = server
            .call_as(
                "POST",
                "/carts/realtime",
                &madrid,
                Some(cart(&customer, &format!("OLD-{day}"), &date, draw.clone())),
            )
            .await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["cart"]["date"], date.as_str(), "the date is kept");
        drawn += draws(&answer);
    }
    assert_eq!(drawn, 1, "once a day means once on the day it is received");
    // Ahead of the clock by more than a till's drift, or far in the past:
    // refused, and nothing recorded.
    for (code, date, message) in [
        (
            "AHEAD",
            "2026-05-04T10:11:00Z",
            "is more than 10 minutes after",
        ),
        (
            "FUTURE",
            "2199-01-01T00:00:00Z",
            "is more than 10 minutes after",
        ),
        (
            "ANCIENT",
            "2025-05-03T10:00:00Z",
            "is more than 365 days before",
        ),
    ] {
        let (status, answer) = server
            .call_as(
                "POST",
                "/carts/realtime",
                &madrid,
                Some(cart(&customer, code, date, draw.clone())),
            )
            .await;
        assert_eq!(status, 400, "{answer}");
        assert!(
            answer["error"].as_str().unwrap().contains(message),
            "{answer}"
        );
    }
    let (_, carts) = server
        .call_as(
            "GET",
            &format!("/carts?customer_id={customer}"),
            &madrid,
            None,
        )
        .await;
    assert_eq!(carts["carts"].as_array().unwrap().len(), 6, "{carts}");
    // The next day by the service's clock, the draw opens again.
    server.set_time("2026-05-05T10:00:00Z");
    let (_, answer) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &madrid,
            Some(cart(
                &customer,
                "NEXT",
                "2026-04-20T10:00:00Z",
                draw.clone(),
            )),
        )
        .await;
    assert_eq!(draws(&answer), 1, "{answer}");
}
