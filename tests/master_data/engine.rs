//! Campaigns reading the catalogue: a cart that sends only product codes is
//! seen with its Products' features (and the features above them) and its
//! Location's, changes reach the next cart without a restart, Products no
//! discount may touch are left out, and a cart's hour is its Location's.

use super::*;

/// 10% off dairy lines; 7 points at northern stores; 3 points at 9 in the
/// morning.
const FILES: [(&str, &str); 3] = [
    (
        "dairy.yaml",
        "id: 301\nkind: discount\nname: Dairy days\non: cart\ndiscount:\n  applies_to: lines\n  lines: line.has_feature(\"department\", \"dairy\")\n  percent: 10\n",
    ),
    (
        "north.yaml",
        "id: 302\nkind: points\nname: Northern stores\non: cart\nwhen: location.has_feature(\"region\", \"north\") && location.country == \"ES\"\npoints:\n  fixed: 7\n",
    ),
    (
        "nine.yaml",
        "id: 303\nkind: points\nname: Nine o'clock\non: cart\nwhen: hour == 9\npoints:\n  fixed: 3\n",
    ),
];

/// Monday 20:00 in UTC: Tuesday 09:00 in Auckland.
const MONDAY_EVENING: &str = "2026-11-23T20:00:00Z";

/// A new Customer; their id.
async fn customer(server: &TestServer, key: &CreatedApiKey) -> String {
    let created = ok(
        server,
        key,
        "POST",
        "/customers",
        Some(json!({"email": "ana@example.com"})),
    )
    .await;
    created["id"].as_str().unwrap().to_string()
}

/// Records a cart of `lines` at `location` with `explain=true`; its answer.
async fn buy(
    server: &TestServer,
    key: &CreatedApiKey,
    customer: &str,
    code: &str,
    location: Option<&str>,
    lines: Value,
) -> Value {
    ok(
        server,
        key,
        "POST",
        "/carts/realtime?explain=true",
        Some(json!({
            "customer_id": customer, "code": code, "location_code": location, "lines": lines
        })),
    )
    .await
}

/// (rule id, line, value) of each discount effect; (rule id, points) of each
/// points effect.
type Applied = (Vec<(i64, i64, f64)>, Vec<(i64, i64)>);

/// The discounts and points `answer` applied.
fn effects(answer: &Value) -> Applied {
    let all = answer["effects"].as_array().unwrap();
    let discounts = all
        .iter()
        .filter(|e| e["type"] == "discount")
        .map(|e| {
            (
                e["rule_id"].as_i64().unwrap(),
                e["line"].as_i64().unwrap(),
                e["value"].as_f64().unwrap(),
            )
        })
        .collect();
    let points = all
        .iter()
        .filter(|e| e["type"] == "points")
        .map(|e| {
            (
                e["rule_id"].as_i64().unwrap(),
                e["points"].as_i64().unwrap(),
            )
        })
        .collect();
    (discounts, points)
}

/// The cheese, bread and milk lines: only product codes, quantities and prices.
fn basket() -> Value {
    json!([
        {"product_code": "CHEESE", "quantity": 1, "price": 4.0},
        {"product_code": "BREAD", "quantity": 2, "price": 1.5},
        {"product_code": "8410000000017", "quantity": 1, "price": 1.0}
    ])
}

#[tokio::test]
async fn a_cart_that_sends_only_codes_is_seen_with_the_catalogues_features() {
    let (server, _dir) = server_with(&FILES, MONDAY_EVENING).await;
    let key = server.bootstrap_key();
    departments(&server, &key).await;
    ok(
        &server,
        &key,
        "POST",
        "/products",
        Some(json!({"code": "CHEESE", "name": "Manchego", "features": {"department": ["cheese"]}})),
    )
    .await;
    ok(
        &server,
        &key,
        "POST",
        "/products",
        Some(json!({"code": "BREAD", "name": "Bread", "features": {"department": ["bakery"]}})),
    )
    .await;
    ok(&server, &key, "POST", "/products", Some(json!({"code": "MILK", "name": "Milk", "aliases": ["8410000000017"], "features": {"department": ["dairy"]}}))).await;
    ok(
        &server,
        &key,
        "POST",
        "/locations/taxonomies",
        Some(json!({"slug": "region", "name": "Region"})),
    )
    .await;
    ok(
        &server,
        &key,
        "POST",
        "/locations/taxonomies/region/features",
        Some(json!({"slug": "north", "name": "North"})),
    )
    .await;
    ok(&server, &key, "POST", "/locations", Some(json!({"code": "S1", "name": "Bilbao", "country": "ES", "features": {"region": ["north"]}}))).await;
    ok(
        &server,
        &key,
        "POST",
        "/locations",
        Some(json!({"code": "S2", "name": "Sevilla", "country": "ES"})),
    )
    .await;
    let ana = customer(&server, &key).await;

    // Cheese lies under dairy; milk is named by its EAN alias.
    let answer = buy(&server, &key, &ana, "T1", Some("S1"), basket()).await;
    let (discounts, points) = effects(&answer);
    assert_eq!(discounts, vec![(301, 1, 0.4), (301, 3, 0.1)], "{answer}");
    assert_eq!(points, vec![(302, 7)], "{answer}");

    // Another store: no northern points; what the cart sends wins over the
    // catalogue (the till says this cheese is bakery).
    let mut lines = basket();
    lines[0]["features"] = json!({"department": "bakery"});
    let answer = buy(&server, &key, &ana, "T2", Some("S2"), lines).await;
    let (discounts, points) = effects(&answer);
    assert_eq!(
        (discounts, points),
        (vec![(301, 3, 0.1)], vec![]),
        "{answer}"
    );
    let why = answer["explanations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["rule_id"] == 302)
        .unwrap();
    assert!(why.to_string().contains("location.has_feature"), "{why}");

    // A change reaches the next cart, without a restart.
    ok(
        &server,
        &key,
        "PATCH",
        "/products/CHEESE?search_by=code",
        Some(json!({"features": {"department": ["bakery"]}})),
    )
    .await;
    ok(
        &server,
        &key,
        "PATCH",
        "/locations/S2?search_by=code",
        Some(json!({"features": {"region": ["north"]}})),
    )
    .await;
    let answer = buy(&server, &key, &ana, "T3", Some("S2"), basket()).await;
    assert_eq!(
        effects(&answer),
        (vec![(301, 3, 0.1)], vec![(302, 7)]),
        "{answer}"
    );
    // Moving a feature under another reaches it too: bakery under dairy.
    ok(
        &server,
        &key,
        "PATCH",
        "/taxonomies/department/features/bakery",
        Some(json!({"parent": "dairy"})),
    )
    .await;
    let answer = buy(&server, &key, &ana, "T4", None, basket()).await;
    let (discounts, _) = effects(&answer);
    assert_eq!(
        discounts,
        vec![(301, 1, 0.4), (301, 2, 0.3), (301, 3, 0.1)],
        "{answer}"
    );
}

#[tokio::test]
async fn products_no_discount_may_touch_are_left_out_of_its_base() {
    let whole_cart = [(
        "tenth.yaml",
        "id: 311\nkind: discount\nname: A tenth off\non: cart\ndiscount:\n  applies_to: cart\n  percent: 10\n",
    )];
    let (server, _dir) = server_with(&whole_cart, MONDAY_EVENING).await;
    let key = server.bootstrap_key();
    departments(&server, &key).await;
    ok(
        &server,
        &key,
        "POST",
        "/products",
        Some(json!({"code": "GIFTCARD", "name": "Gift card", "discountable": false})),
    )
    .await;
    ok(
        &server,
        &key,
        "POST",
        "/products",
        Some(
            json!({"code": "CIGS", "name": "Cigarettes", "features": {"department": ["tobacco"]}}),
        ),
    )
    .await;
    let ana = customer(&server, &key).await;
    let answer = buy(
        &server,
        &key,
        &ana,
        "T1",
        None,
        json!([
            {"product_code": "SHIRT", "quantity": 1, "price": 20.0},
            {"product_code": "GIFTCARD", "quantity": 1, "price": 50.0},
            {"product_code": "CIGS", "quantity": 1, "price": 6.0}
        ]),
    )
    .await;
    let (discounts, _) = effects(&answer);
    assert_eq!(discounts, vec![(311, 1, 2.0)], "{answer}");
    // Only undiscountable lines: the campaign says why it gives nothing.
    let answer = buy(
        &server,
        &key,
        &ana,
        "T2",
        None,
        json!([{"product_code": "GIFTCARD", "quantity": 1, "price": 50.0}]),
    )
    .await;
    assert_eq!(effects(&answer).0, vec![], "{answer}");
}

#[tokio::test]
async fn a_carts_hour_is_its_locations() {
    let (server, _dir) = server_with(&FILES, MONDAY_EVENING).await;
    let key = server.bootstrap_key();
    ok(&server, &key, "POST", "/locations", Some(json!({"code": "AKL", "name": "Auckland", "country": "NZ", "time_zone": "Pacific/Auckland"}))).await;
    let ana = customer(&server, &key).await;
    let lines = json!([{"product_code": "TEA", "quantity": 1, "price": 3.0}]);
    // 20:00 at the Company's clock (UTC); 09:00 in Auckland.
    let at_home = buy(&server, &key, &ana, "T1", None, lines.clone()).await;
    assert_eq!(effects(&at_home).1, vec![], "{at_home}");
    let in_auckland = buy(&server, &key, &ana, "T2", Some("AKL"), lines.clone()).await;
    assert_eq!(effects(&in_auckland).1, vec![(303, 3)], "{in_auckland}");
    // A Location the catalogue does not know keeps the Company's clock.
    let unknown = buy(&server, &key, &ana, "T3", Some("NOWHERE"), lines).await;
    assert_eq!(effects(&unknown).1, vec![], "{unknown}");
}

/// Runs `loyalty campaigns check` on `dir` against `server`: success and
/// what it printed on stderr.
async fn check(server: &TestServer, dir: &std::path::Path) -> (bool, String) {
    let (passed, _, stderr) = check_with(server, dir, &[]).await;
    (passed, stderr)
}

/// `loyalty campaigns check` of `dir` with `extra` arguments against
/// `server`: whether it passed, its standard output and its errors.
async fn check_with(
    server: &TestServer,
    dir: &std::path::Path,
    extra: &[&str],
) -> (bool, String, String) {
    let dir = dir.to_str().expect("a UTF-8 path");
    let admin_url = server.admin_url();
    let mut args = vec!["campaigns", "check", "--campaigns", dir];
    args.extend_from_slice(extra);
    args.extend([
        "--admin-url",
        &admin_url,
        "--admin-token",
        common::OPERATOR_TOKEN,
    ]);
    common::loyalty(&args).await
}

#[tokio::test]
async fn a_campaign_naming_a_feature_the_company_lacks_is_reported_at_its_line() {
    let typo = [(
        "typo.yaml",
        "id: 310\nkind: points\nname: Typo\non: cart\nwhen: location.has_feature(\"region\", \"nort\")\nlocations: [\"format:mall\"]\npoints: { fixed: 1 }\n",
    )];
    let (server, dir) = server_with(&typo, MONDAY_EVENING).await;
    let key = server.bootstrap_key();
    ok(
        &server,
        &key,
        "POST",
        "/locations/taxonomies",
        Some(json!({"slug": "region", "name": "Region"})),
    )
    .await;
    ok(
        &server,
        &key,
        "POST",
        "/locations/taxonomies/region/features",
        Some(json!({"slug": "north", "name": "North"})),
    )
    .await;

    // The server knows (and logs it); the check names both, each at its line.
    let problems: Vec<String> = server
        .running
        .services
        .unknown_features_of("demo")
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(problems.len(), 2, "{problems:?}");
    // A warning, as the server says it: the campaign loads and can never
    // match that feature.
    let (passed, stderr) = check(&server, dir.path()).await;
    assert!(passed, "{stderr}");
    assert!(stderr.contains("warning: "), "{stderr}");
    assert!(
        stderr.contains("typo.yaml:5:7: `has_feature` names `region:nort`, but the Location taxonomy `region` has no feature `nort` (it has: north)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("typo.yaml:6: `locations` names `format:mall`, but the Company has no Location taxonomy `format` (it has: region)"),
        "{stderr}"
    );
    let (passed, stdout, _) = check_with(&server, dir.path(), &["--json"]).await;
    assert!(passed, "{stdout}");
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    assert_eq!(
        (
            report["ok"].clone(),
            report["errors"].clone(),
            report["warnings"].clone()
        ),
        (json!(true), json!(0), json!(2)),
        "{report}"
    );
    let first = &report["problems"][0];
    assert!(
        first["file"].as_str().unwrap().ends_with("typo.yaml"),
        "{report}"
    );
    assert_eq!(
        (
            first["line"].clone(),
            first["column"].clone(),
            first["severity"].clone()
        ),
        (json!(5), json!(7), json!("warning")),
        "{report}"
    );
    assert_eq!(report["companies"][0]["company"], "demo", "{report}");

    // Once the catalogue has them, the same files pass.
    ok(
        &server,
        &key,
        "POST",
        "/locations/taxonomies/region/features",
        Some(json!({"slug": "nort", "name": "Nort"})),
    )
    .await;
    ok(
        &server,
        &key,
        "POST",
        "/locations/taxonomies",
        Some(json!({"slug": "format", "name": "Format"})),
    )
    .await;
    ok(
        &server,
        &key,
        "POST",
        "/locations/taxonomies/format/features",
        Some(json!({"slug": "mall", "name": "Mall"})),
    )
    .await;
    assert!(
        server
            .running
            .services
            .unknown_features_of("demo")
            .is_empty()
    );
    let (passed, stderr) = check(&server, dir.path()).await;
    assert!(passed, "{stderr}");
}

/// A reload that finds one broken file holds that file back alone and says
/// so over the back office: which file, every problem, and that its last
/// good version serves while the other file's edit is in force.
#[tokio::test]
async fn the_back_office_says_which_files_a_broken_edit_holds_back() {
    let files = [
        (
            "points.yaml",
            "id: 320\nkind: points\nname: Points\non: cart\npoints: { fixed: 1 }\n",
        ),
        (
            "coffee.yaml",
            "id: 321\nkind: points\nname: Coffee\non: cart\nwhen: cart.total > 1.0\npoints: { fixed: 2 }\n",
        ),
    ];
    let (server, dir) = server_with(&files, MONDAY_EVENING).await;
    let status = |server: &TestServer| {
        let url = format!("{}/api/companies/demo/campaigns", server.admin_url());
        async move {
            let response = reqwest::Client::new()
                .get(url)
                .bearer_auth(common::OPERATOR_TOKEN)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200);
            response.json::<Value>().await.unwrap()
        }
    };
    let in_force = status(&server).await;
    assert_eq!(in_force["state"], "in_force", "{in_force}");
    assert_eq!(in_force["campaigns_in_force"], 2);

    // One valid edit and one broken one, reloaded together.
    let company = dir.path().join("demo");
    std::fs::write(
        company.join("points.yaml"),
        "id: 320\nkind: points\nname: Points\non: cart\npoints: { fixed: 5 }\n",
    )
    .unwrap();
    std::fs::write(
        company.join("coffee.yaml"),
        "id: 321\nkind: points\nname: Coffee\non: cart\nwhen: cart.totl > 1.0\npoints: { fixed: 2 }\n",
    )
    .unwrap();
    // Reloaded now (or by the server's own watch, whichever comes first).
    server.running.services.catalog().reload();
    let held = status(&server).await;
    assert_eq!(held["state"], "held_back", "{held}");
    assert_eq!(held["campaigns_in_force"], 2);
    assert_eq!(
        held["held_back_files"].as_array().unwrap().len(),
        1,
        "{held}"
    );
    assert!(
        held["files_serving_last_good"][0]
            .as_str()
            .unwrap()
            .ends_with("coffee.yaml"),
        "{held}"
    );
    assert_eq!(held["files_left_out"], json!([]), "{held}");
    let broken = held["files_with_problems"][0].as_str().unwrap();
    assert!(broken.ends_with("coffee.yaml"), "{held}");
    assert!(
        held["problems"][0]
            .as_str()
            .unwrap()
            .ends_with("coffee.yaml:5:12: `cart` has no field `totl` (did you mean `total`?); its fields are code, total, lines, location_code, coupons_desired, date"),
        "{held}"
    );
    assert!(
        held["summary"]
            .as_str()
            .unwrap()
            .contains("coffee.yaml; its 1 other file(s) are in force as they are on disk"),
        "{held}"
    );
    // The valid edit (`fixed: 5`) is in force beside coffee.yaml's last
    // good version.
    let key = server.bootstrap_key();
    let (_, customer) = server
        .call_as(
            "POST",
            "/customers",
            &key,
            Some(json!({"email": "held@example.com"})),
        )
        .await;
    let cart = json!({"customer_id": customer["id"], "code": "H1", "lines": [{"product_code": "A", "quantity": 1, "price": 3.0}]});
    let (_, answer) = server
        .call_as("POST", "/carts/simulate", &key, Some(cart))
        .await;
    let points: Vec<i64> = answer["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["rule_id"] == 320)
        .filter_map(|e| e["points"].as_i64())
        .collect();
    assert_eq!(points, [5], "{answer}");
    let coffee: Vec<&Value> = answer["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["rule_id"] == 321)
        .collect();
    assert_eq!(coffee.len(), 1, "the last good version applies: {answer}");
}

#[tokio::test]
async fn check_json_is_one_document_of_errors_at_their_file_line_and_column() {
    let broken = [(
        "closure.yaml",
        "id: 330\nkind: points\nname: Wine\non: cart\nwhen: cart.lines.some(|l| l.has_feture(\"category\", \"wine\"))\npoints: { fixed: 1 }\n",
    )];
    let (server, dir) = server_with(&broken, MONDAY_EVENING).await;
    let (passed, stdout, _) = check_with(&server, dir.path(), &["--json"]).await;
    assert!(!passed, "an error fails the check: {stdout}");
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    assert_eq!(report["ok"], json!(false), "{report}");
    assert_eq!(report["errors"], json!(1), "{report}");
    let problem = &report["problems"][0];
    assert_eq!(
        (
            problem["line"].clone(),
            problem["column"].clone(),
            problem["severity"].clone()
        ),
        (json!(5), json!(29), json!("error")),
        "{report}"
    );
    assert!(
        problem["message"]
            .as_str()
            .unwrap()
            .contains("`l` has no method `has_feture` (did you mean `has_feature`?)"),
        "{report}"
    );
}

#[tokio::test]
async fn two_exclusive_discounts_that_may_meet_on_one_cart_are_a_warning_at_the_later_ones_stacking()
 {
    let exclusive = |id: i64, name: &str, days: &str| {
        format!(
            "id: {id}\nkind: discount\nname: {name}\non: cart\n{days}discount: {{ applies_to: cart, percent: 10 }}\nstacking: {{ exclusive: true }}\n"
        )
    };
    let basket = exclusive(340, "Basket 10%", "");
    let weekend = exclusive(341, "Weekend 10%", "recurrence_days: [saturday, sunday]\n");
    let monday = exclusive(342, "Monday 10%", "recurrence_days: [monday]\n");
    let files = [
        ("basket.yaml", basket.as_str()),
        ("weekend.yaml", weekend.as_str()),
        ("monday.yaml", monday.as_str()),
    ];
    let (server, dir) = server_with(&files, MONDAY_EVENING).await;
    let (passed, stdout, _) = check_with(&server, dir.path(), &["--json"]).await;
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    // A warning, not an error: the files load and the check passes.
    assert!(passed, "{report}");
    assert_eq!(report["errors"], json!(0), "{report}");
    // The basket meets both; Monday and the weekend never meet.
    assert_eq!(report["warnings"], json!(2), "{report}");
    let warnings: Vec<(String, u64, String)> = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["file"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string(),
                p["line"].as_u64().unwrap(),
                p["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        warnings
            .iter()
            .all(|(_, _, severity)| severity == "warning"),
        "{report}"
    );
    assert!(
        report["problems"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["message"]
                .as_str()
                .unwrap()
                .contains("are both exclusive and may apply to the same cart")),
        "{report}"
    );
    let lines: Vec<u64> = warnings.iter().map(|(_, line, _)| *line).collect();
    assert!(
        lines.iter().all(|line| *line == 7),
        "at `stacking:`: {report}"
    );
}
