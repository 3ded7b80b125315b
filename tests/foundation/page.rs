//! The back-office page over real HTTP: sign-in, the session cookie, CSRF,
//! the security headers, Companies, keys (the secret shown once, a disabled
//! key refused by the API), campaign files, and escaping.

use crate::common::browser::{Browser, csrf_of};
use crate::common::{OPERATOR_TOKEN, TestServer};
use loyalty::resources::companies::keys::NewKey;
use reqwest::header::SET_COOKIE;

async fn company_count(server: &TestServer) -> usize {
    server
        .running
        .services
        .companies()
        .await
        .expect("listed")
        .len()
}

#[tokio::test]
async fn a_visitor_without_a_session_is_sent_to_the_sign_in_form() {
    let server = TestServer::start().await;
    let mut browser = Browser::new(&server);
    for path in ["/", "/companies/demo", "/companies/demo/campaigns"] {
        let answer = browser.get(path).await;
        assert_eq!(answer.status, 303, "{path}");
        assert_eq!(answer.location(), Some("/login"), "{path}");
    }
    let answer = browser
        .post(
            "/companies",
            &[("slug", "acme"), ("environment", "sandbox")],
        )
        .await;
    assert_eq!(answer.location(), Some("/login"));
    assert_eq!(company_count(&server).await, 1, "nothing was created");
    let form = browser.get("/login").await;
    assert_eq!(form.status, 200);
    assert!(form.body.contains("type=\"password\" name=\"token\""));
}

#[tokio::test]
async fn signing_in_takes_the_token_from_the_form_and_sets_a_strict_http_only_cookie() {
    let server = TestServer::start().await;
    let mut browser = Browser::new(&server);
    let wrong = browser.post("/login", &[("token", "not-the-token")]).await;
    assert_eq!(wrong.status, 401);
    assert!(wrong.body.contains("not the operator token"));
    assert!(browser.cookie.is_none());

    let right = browser.post("/login", &[("token", OPERATOR_TOKEN)]).await;
    assert_eq!(right.status, 303);
    assert_eq!(right.location(), Some("/"));
    let set_cookie = right.headers[SET_COOKIE].to_str().unwrap();
    assert!(set_cookie.contains("HttpOnly"), "{set_cookie}");
    assert!(set_cookie.contains("SameSite=Strict"), "{set_cookie}");
    assert!(
        !set_cookie.contains(OPERATOR_TOKEN),
        "the token is not the cookie"
    );

    let home = browser.get("/").await;
    assert_eq!(home.status, 200);
    assert!(
        home.body.contains("href=\"/companies/demo\""),
        "{}",
        home.body
    );
    for header in [
        "content-security-policy",
        "x-content-type-options",
        "x-frame-options",
        "referrer-policy",
    ] {
        assert!(home.headers.contains_key(header), "{header}");
    }
    assert_eq!(home.headers["cache-control"], "no-store");

    let csrf = csrf_of(&home.body);
    let out = browser.post("/logout", &[("csrf", &csrf)]).await;
    assert_eq!(out.location(), Some("/login"));
    assert_eq!(browser.get("/").await.location(), Some("/login"));
}

#[tokio::test]
async fn wrong_tokens_are_refused_for_a_minute_after_ten() {
    let server = TestServer::start().await;
    let mut browser = Browser::new(&server);
    for _ in 0..10 {
        assert_eq!(
            browser.post("/login", &[("token", "guess")]).await.status,
            401
        );
    }
    let answer = browser.post("/login", &[("token", OPERATOR_TOKEN)]).await;
    assert_eq!(answer.status, 429, "even the right token waits");
    assert!(browser.cookie.is_none());
}

#[tokio::test]
async fn a_form_without_the_session_token_or_from_another_site_changes_nothing() {
    let server = TestServer::start().await;
    let mut browser = Browser::signed_in(&server).await;
    let company = [
        ("slug", "acme"),
        ("environment", "sandbox"),
        ("language", "en"),
    ];

    let without = browser.post("/companies", &company).await;
    assert_eq!(without.status, 403);
    let mut forged = company.to_vec();
    forged.push(("csrf", "0000"));
    assert_eq!(browser.post("/companies", &forged).await.status, 403);

    let csrf = browser.csrf().await;
    let mut cross_site = company.to_vec();
    cross_site.push(("csrf", &csrf));
    let request = browser
        .http
        .post(format!("{}/companies", browser.base))
        .header("origin", "http://evil.example")
        .form(&cross_site);
    assert_eq!(browser.send(request).await.status, 403);
    assert_eq!(company_count(&server).await, 1, "nothing was created");

    let created = browser.submit("/companies", &company).await;
    assert_eq!(created.status, 303);
    assert_eq!(created.location(), Some("/companies/acme"));
    assert_eq!(company_count(&server).await, 2);
    let page = browser.get("/companies/acme").await;
    assert!(page.body.contains("Company acme created."), "{}", page.body);
}

#[tokio::test]
async fn a_key_created_on_the_page_shows_its_secret_once_and_disabling_it_closes_the_api() {
    let server = TestServer::start().await;
    let mut browser = Browser::signed_in(&server).await;
    let missing = browser
        .submit("/companies/demo/keys", &[("description", "till 4")])
        .await;
    assert_eq!(missing.status, 303, "the enabled choice is required");
    assert!(
        browser
            .get("/companies/demo")
            .await
            .body
            .contains("say whether the key is enabled")
    );

    let created = browser
        .submit(
            "/companies/demo/keys",
            &[("description", "till 4"), ("enabled", "true")],
        )
        .await;
    assert_eq!(created.status, 200);
    assert_eq!(created.headers["cache-control"], "no-store");
    let keys = server.running.services.keys(Some("demo")).await.unwrap();
    let key = keys
        .iter()
        .find(|k| k.description == "till 4")
        .expect("stored");
    let marker = "id=\"secret\">";
    let secret_at = created.body.find(marker).expect("the secret") + marker.len();
    let secret = created.body[secret_at..secret_at + 67].to_string();
    assert!(secret.starts_with("ls_"), "{secret}");
    assert!(created.body.contains("shown on this page only, once"));
    let credentials = loyalty::resources::companies::model::CreatedApiKey {
        key: key.clone(),
        secret: secret.clone(),
    };
    assert_eq!(server.get_as("/check", &credentials).await.0, 200);

    let page = browser.get("/companies/demo").await;
    assert!(
        !page.body.contains(&secret),
        "the secret is never shown again"
    );
    assert!(page.body.contains(&key.key));
    assert_eq!(
        page.body.matches("<td>never</td>").count(),
        1,
        "only the unused bootstrap key was never used: {}",
        page.body
    );

    let path = format!("/companies/demo/keys/{}/disable", key.key);
    assert_eq!(
        browser.submit(&path, &[]).await.location(),
        Some("/companies/demo")
    );
    assert_eq!(server.get_as("/check", &credentials).await.0, 403);
    let page = browser.get("/companies/demo").await;
    assert!(
        page.body.contains("disabled: calls with it are refused"),
        "{}",
        page.body
    );

    let path = format!("/companies/demo/keys/{}/enable", key.key);
    browser.submit(&path, &[]).await;
    assert_eq!(server.get_as("/check", &credentials).await.0, 200);
}

#[tokio::test]
async fn a_key_of_another_company_or_a_system_key_is_not_switched_from_a_page() {
    let server = TestServer::start().await;
    let acme = server.company_with_key("acme").await;
    let mut browser = Browser::signed_in(&server).await;

    let path = format!("/companies/demo/keys/{}/disable", acme.key.key);
    browser.submit(&path, &[]).await;
    let page = browser.get("/companies/demo").await;
    assert!(page.body.contains("api_key_not_found"), "{}", page.body);
    assert!(
        !page.body.contains(&acme.key.key),
        "nothing of acme on demo's page"
    );
    assert_eq!(server.get_as("/check", &acme).await.0, 200, "still enabled");

    let bootstrap = server.bootstrap_key();
    assert!(page.body.contains("Not editable: a system key"));
    let path = format!("/companies/demo/keys/{}/disable", bootstrap.key.key);
    browser.submit(&path, &[]).await;
    let page = browser.get("/companies/demo").await;
    assert!(
        page.body.contains("system_key_not_editable"),
        "{}",
        page.body
    );
    assert_eq!(server.get_as("/check", &bootstrap).await.0, 200);
}

#[tokio::test]
async fn what_operators_type_is_escaped_on_every_page() {
    let server = TestServer::start().await;
    server
        .back_office()
        .await
        .create_key(NewKey {
            company: "demo".into(),
            description: "<script>alert('x')</script>".into(),
            enabled: true,
        })
        .await
        .expect("created");
    let mut browser = Browser::signed_in(&server).await;
    let page = browser.get("/companies/demo").await;
    assert!(!page.body.contains("<script>alert"), "{}", page.body);
    assert!(page.body.contains("&lt;script&gt;alert"));
    let refused = browser
        .submit(
            "/companies",
            &[
                ("slug", "<b>bad</b>"),
                ("environment", "sandbox"),
                ("language", "en"),
            ],
        )
        .await;
    assert_eq!(refused.location(), Some("/"));
    let home = browser.get("/").await;
    assert!(home.body.contains("notice error"), "{}", home.body);
    assert!(!home.body.contains("<b>bad</b>"));
}

#[tokio::test]
async fn settings_changed_on_the_page_apply_to_the_company() {
    let server = TestServer::start().await;
    let mut browser = Browser::signed_in(&server).await;
    browser
        .submit(
            "/companies/demo/rate_limits",
            &[("critical", "70"), ("moderate", "30"), ("low", "12")],
        )
        .await;
    browser
        .submit(
            "/companies/demo/languages",
            &[("language", "es"), ("languages", "en, fr")],
        )
        .await;
    browser
        .submit(
            "/companies/demo/locale",
            &[
                ("currency", "JPY"),
                ("minor_units", ""),
                ("time_zone", "Asia/Tokyo"),
            ],
        )
        .await;
    let refused = browser
        .submit(
            "/companies/demo/rate_limits",
            &[("critical", "0"), ("moderate", "30"), ("low", "12")],
        )
        .await;
    assert_eq!(refused.location(), Some("/companies/demo"));
    let page = browser.get("/companies/demo").await;
    assert!(page.body.contains("must be between 1 and"), "{}", page.body);

    let demo = server.running.services.company("demo").await.unwrap();
    assert_eq!(
        (
            demo.rate_limits.critical,
            demo.rate_limits.moderate,
            demo.rate_limits.low
        ),
        (70, 30, 12)
    );
    assert_eq!(demo.default_language, "es");
    assert_eq!(demo.languages, ["es", "en", "fr"]);
    assert_eq!((demo.currency.as_str(), demo.minor_units), ("JPY", 0));
    assert_eq!(demo.time_zone, "Asia/Tokyo");
}

#[tokio::test]
async fn the_campaigns_page_names_a_broken_file_and_its_line() {
    let files = [
        (
            "points.yaml",
            "id: 320\nkind: points\nname: Points\non: cart\npoints: { fixed: 1 }\n",
        ),
        (
            "broken.yaml",
            "id: 321\nkind: points\nname: Broken\non: cart\nwhen: cart.total >\npoints: { fixed: 2 }\n",
        ),
    ];
    let (server, _dir) =
        TestServer::start_with_campaigns(&files, "2026-11-23T10:00:00Z", None).await;
    let mut browser = Browser::signed_in(&server).await;
    let page = browser.get("/companies/demo/campaigns").await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("held back"), "{}", page.body);
    assert!(page.body.contains("broken.yaml:5"), "{}", page.body);
    assert!(page.body.contains("leaving out"), "{}", page.body);

    let missing = browser.get("/companies/nobody/campaigns").await;
    assert_eq!(missing.status, 404);
    assert!(missing.body.contains("company_not_found"));
}

#[tokio::test]
async fn the_json_api_lives_under_api_and_takes_only_the_bearer_token() {
    let server = TestServer::start().await;
    let mut browser = Browser::signed_in(&server).await;
    let with_cookie = browser.get("/api/companies").await;
    assert_eq!(
        with_cookie.status, 401,
        "a session is not the operator's bearer token"
    );
    let with_token = reqwest::Client::new()
        .get(format!("{}/api/companies", server.admin_url()))
        .bearer_auth(OPERATOR_TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(with_token.status(), 200);
    let spec = browser.get("/openapi.json").await;
    let spec: serde_json::Value = serde_json::from_str(&spec.body).expect("JSON");
    assert_eq!(spec["servers"][0]["url"], "/api");
}

#[tokio::test]
async fn a_customer_is_looked_up_with_what_the_api_gives_and_only_in_its_company() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let (status, customer) = server
        .call_as(
            "POST",
            "/customers",
            &key,
            Some(serde_json::json!({"code": "page-1", "email": "ana@example.com"})),
        )
        .await;
    assert_eq!(status, 200, "{customer}");
    let id = customer["id"].as_str().unwrap().to_string();
    let (status, cart) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(serde_json::json!({
                "customer_id": id, "code": "PAGE-CART-1", "date": "2026-11-23T10:00:00Z",
                "lines": [{"product_code": "A", "quantity": 2, "price": 10.0}]
            })),
        )
        .await;
    assert_eq!(status, 200, "{cart}");
    let acme = server.company_with_key("acme").await;
    let (_, other) = server
        .call_as(
            "POST",
            "/customers",
            &acme,
            Some(serde_json::json!({"email": "bob@example.com"})),
        )
        .await;
    let other_id = other["id"].as_str().unwrap().to_string();

    let mut browser = Browser::signed_in(&server).await;
    let form = browser.get("/companies/demo/customers").await;
    assert_eq!(form.status, 200);
    let found = browser
        .submit(
            "/companies/demo/customers",
            &[("by", "email"), ("find", "ana@example.com")],
        )
        .await;
    assert_eq!(found.status, 200, "{}", found.body);
    assert!(found.body.contains(&id));
    assert!(found.body.contains("PAGE-CART-1"), "the cart is listed");
    assert!(found.body.contains("Points and wallet ledger"));
    assert!(
        found.body.contains("Instant Win participations"),
        "the demo Company's Instant Wins with the Customer's participations"
    );
    assert!(
        found.body.contains("remaining_participations"),
        "{}",
        found.body
    );
    let (_, balance) = server
        .call_as("GET", &format!("/customers/{id}/points"), &key, None)
        .await;
    let points = balance["points"].as_i64().unwrap();
    assert!(
        found
            .body
            .contains(&format!("<strong>{points}</strong> points")),
        "the balance the API gives: {points}"
    );

    let by_code = browser
        .submit(
            "/companies/demo/customers",
            &[("by", "code"), ("find", "page-1")],
        )
        .await;
    assert!(by_code.body.contains(&id));
    let missing = browser
        .submit(
            "/companies/demo/customers",
            &[("by", "email"), ("find", "nobody@example.com")],
        )
        .await;
    assert_eq!(missing.status, 404);
    assert!(missing.body.contains("customer_not_found"));
    let elsewhere = browser
        .submit(
            "/companies/demo/customers",
            &[("by", "id"), ("find", &other_id)],
        )
        .await;
    assert_eq!(
        elsewhere.status, 404,
        "acme's Customer is not found from demo"
    );
    assert!(!elsewhere.body.contains("bob@example.com"));
    let wrong_kind = browser
        .submit(
            "/companies/demo/customers",
            &[("by", "shoe-size"), ("find", "42")],
        )
        .await;
    assert_eq!(wrong_kind.status, 400);
}

#[tokio::test]
async fn a_form_larger_than_the_page_takes_is_refused_unread() {
    let server = TestServer::start().await;
    let mut browser = Browser::new(&server);
    let huge = "x".repeat(200 * 1024);
    let answer = browser.post("/login", &[("token", huge.as_str())]).await;
    assert_eq!(answer.status, 413);
    let mut browser = Browser::signed_in(&server).await;
    let answer = browser
        .submit(
            "/companies",
            &[("slug", huge.as_str()), ("environment", "sandbox")],
        )
        .await;
    assert_eq!(answer.status, 413);
    assert_eq!(company_count(&server).await, 1);
}

#[tokio::test]
async fn a_campaign_failing_on_an_event_is_counted_logged_and_shown_with_its_last_error() {
    // A Customer's attributes are a map authors fill: no check can know
    // that this Customer has no `budget`, so the product fails when a cart
    // meets it (`() * 2`), an error of the campaign, not a miss (a missing
    // value compared is only false).
    let files = [(
        "budget.yaml",
        "id: 330\nkind: points\nname: Budget\non: cart\nwhen: customer.attributes.budget * 2 > 10\npoints: { fixed: 1 }\n",
    )];
    let at = "2026-11-23T10:00:00Z";
    let (server, _dir) = TestServer::start_with_campaigns(&files, at, None).await;
    let key = server.bootstrap_key();
    server
        .create_customer(&key, serde_json::json!({"code": "NO-BUDGET"}))
        .await;
    for code in ["FAIL-1", "FAIL-2"] {
        let cart = serde_json::json!({
            "customer_code": "NO-BUDGET",
            "code": code,
            "date": at,
            "lines": [{"product_code": "PASTRY", "quantity": 1, "price": 2.5}]
        });
        let (status, answer) = server
            .call_as("POST", "/carts/realtime?explain=true", &key, Some(cart))
            .await;
        assert_eq!(status, 200, "{answer}");
        let reason = answer["explanations"][0]["reason"].as_str().unwrap_or("");
        assert!(reason.starts_with("condition failed"), "{answer}");
    }
    let metrics = server.metrics().await;
    assert_eq!(
        crate::common::metric_sample(
            &metrics,
            "loyalty_campaign_evaluation_errors_total{campaign=\"330\",company=\"demo\"}"
        ),
        Some(2.0),
        "{metrics}"
    );
    let mut browser = Browser::signed_in(&server).await;
    let page = browser.get("/companies/demo/campaigns").await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("budget.yaml:5"), "{}", page.body);
    assert!(page.body.contains("condition failed"), "{}", page.body);
    assert!(
        page.body.contains("2 since this server started"),
        "{}",
        page.body
    );
}
