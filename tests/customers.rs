//! Customers over real HTTP with a real SurrealDB: enrollment, identifiers,
//! look-ups, updates, cards, search and pagination, anonymization, deletion,
//! tenancy, uniqueness under concurrent requests, and the Customers kept in
//! memory answering every change at once.

mod common;
#[path = "customers/remembered.rs"]
mod remembered;
#[path = "customers/welcome.rs"]
mod welcome;

use common::{TestServer, all_at_once, read};
use loyalty::resources::companies::model::CreatedApiKey;
use serde_json::{Value, json};

async fn create(server: &TestServer, key: &CreatedApiKey, body: Value) -> Value {
    let (status, customer) = server.call_as("POST", "/customers", key, Some(body)).await;
    assert_eq!(status, 200, "{customer}");
    customer
}

fn assert_error(status: u16, body: &Value, expected_status: u16, code: &str) {
    assert_eq!(status, expected_status, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["error"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
}

mod enrollment {
    use super::*;

    #[tokio::test]
    async fn a_customer_is_created_enrolled_and_normalised() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let customer = create(
            &server,
            &key,
            json!({
                "code": " EXT-1 ",
                "email": "Ana.Garcia@Example.COM",
                "phone": "+34 600 11 22 33",
                "first_name": "Ana",
                "last_name": "García",
                "birth_date": "1990-01-31",
                "country": "es",
                "language": "es",
                "consents": {"terms": true, "marketing_email": true},
                "cards": [{"number": "4000-0001", "kind": "physical"}],
                "attributes": {"favourite_store": "12", "vip": true}
            }),
        )
        .await;
        assert!(customer["id"].as_str().unwrap().starts_with("cus_"));
        assert_eq!(customer["code"], "EXT-1");
        assert_eq!(customer["email"], "ana.garcia@example.com");
        assert_eq!(customer["phone"], "+34600112233");
        assert_eq!(customer["country"], "ES");
        assert_eq!(customer["birth_date"], "1990-01-31");
        assert_eq!(customer["active"], true);
        assert_eq!(customer["loyalty_member"], true);
        assert!(customer["enrolled_at"].as_str().unwrap().ends_with('Z'));
        assert_eq!(customer["consents"]["terms"], true);
        assert_eq!(customer["consents"]["marketing_sms"], false);
        assert!(customer["consents"]["recorded_at"].is_string());
        assert_eq!(customer["cards"][0]["number"], "4000-0001");
        assert_eq!(customer["attributes"]["vip"], true);
    }

    #[tokio::test]
    async fn a_customer_can_be_created_without_enrolling() {
        let server = TestServer::start().await;
        let customer = create(
            &server,
            &server.bootstrap_key(),
            json!({"email": "x@y.es", "enroll": false}),
        )
        .await;
        assert_eq!(customer["loyalty_member"], false);
        assert!(customer["enrolled_at"].is_null());
        // Membership is asked for as `enroll`; `loyalty_member` is how
        // answers say it, and a create naming it is refused, not ignored.
        let (status, refused) = server
            .call_as(
                "POST",
                "/customers",
                &server.bootstrap_key(),
                Some(json!({"email": "n@y.es", "loyalty_member": false})),
            )
            .await;
        assert_eq!(status, 400, "{refused}");
        assert!(
            refused["error"]
                .as_str()
                .unwrap()
                .contains("`loyalty_member`"),
            "{refused}"
        );
    }

    #[tokio::test]
    async fn an_existing_customer_is_refused_not_duplicated() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        create(
            &server,
            &key,
            json!({"email": "ana@example.com", "code": "A1", "cards": [{"number": "C1"}]}),
        )
        .await;
        for duplicate in [
            json!({"email": "ANA@example.com"}),
            json!({"code": "A1"}),
            json!({"email": "other@example.com", "cards": [{"number": "C1"}]}),
        ] {
            let (status, body) = server
                .call_as("POST", "/customers", &key, Some(duplicate.clone()))
                .await;
            assert_error(status, &body, 409, "customer_already_exists");
        }
        let (_, found) = server
            .call_as("POST", "/customers/search", &key, Some(json!({})))
            .await;
        assert_eq!(
            found["customers"].as_array().unwrap().len(),
            1,
            "nothing was created"
        );
        // A refused create released nothing and claimed nothing: `other@` is free.
        create(&server, &key, json!({"email": "other@example.com"})).await;
    }

    #[tokio::test]
    async fn invalid_input_is_refused_with_400_and_changes_nothing() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        for bad in [
            json!({"email": "not-an-email"}),
            json!({"phone": "12"}),
            json!({"country": "Spain"}),
            json!({"language": "Spanish"}),
            json!({"birth_date": "31/01/1990"}),
            json!({"cards": [{"number": "has space"}]}),
            json!({"cards": [{"number": "C9"}, {"number": "C9"}]}),
            json!({"attributes": {"bad name": 1}}),
            json!({"email": 42}),
        ] {
            let (status, body) = server
                .call_as("POST", "/customers", &key, Some(bad.clone()))
                .await;
            assert_error(status, &body, 400, "invalid_request");
        }
        let (_, found) = server
            .call_as("POST", "/customers/search", &key, Some(json!({})))
            .await;
        assert_eq!(found["customers"], json!([]));
    }

    #[tokio::test]
    async fn malformed_json_and_wrong_content_types_get_the_error_shape() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let base = |content_type: &str, body: &'static str| {
            server
                .http
                .post(server.url("/customers"))
                .header("X-Api-Key", &key.key.key)
                .header("X-Api-Secret", &key.secret)
                .header("X-Api-Version", "1")
                .header("content-type", content_type)
                .body(body)
        };
        let (status, body) = read(
            base("application/json", "{\"email\": ")
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_error(status, &body, 400, "invalid_request");
        let (status, body) = read(base("text/plain", "email=x").send().await.unwrap()).await;
        assert_error(status, &body, 415, "unsupported_media_type");
        // Without credentials the body is never looked at.
        let (status, body) = read(
            server
                .http
                .post(server.url("/customers"))
                .header("content-type", "application/json")
                .body("{")
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!((status, body), (403, json!({"message": "Forbidden"})));
    }
}

mod lookups {
    use super::*;

    #[tokio::test]
    async fn a_customer_is_found_by_every_identifier() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let customer = create(
            &server,
            &key,
            json!({"code": "EXT-9", "email": "b@example.com", "phone": "+34600000009", "cards": [{"number": "CARD-9"}]}),
        )
        .await;
        let id = customer["id"].as_str().unwrap();
        for path in [
            format!("/customers/{id}"),
            format!("/customers/{id}?search_by=id"),
            "/customers/EXT-9?search_by=code".to_string(),
            "/customers/B@EXAMPLE.COM?search_by=email".to_string(),
            "/customers/%2B34600000009?search_by=phone".to_string(),
            "/customers/CARD-9?search_by=card".to_string(),
        ] {
            let (status, found) = server.call_as("GET", &path, &key, None).await;
            assert_eq!(status, 200, "{path}: {found}");
            assert_eq!(found, customer, "{path}");
        }
        for path in [
            "/customers/cus_nope",
            "/customers/EXT-0?search_by=code",
            "/customers/nobody@example.com?search_by=email",
            "/customers/not-an-email?search_by=email",
        ] {
            let (status, body) = server.call_as("GET", path, &key, None).await;
            assert_error(status, &body, 404, "customer_not_found");
        }
        let (status, body) = server
            .call_as("GET", "/customers/x?search_by=shoe_size", &key, None)
            .await;
        assert_error(status, &body, 400, "invalid_request");
    }

    #[tokio::test]
    async fn customers_are_listed_by_ids_or_phones() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let a = create(&server, &key, json!({"phone": "+34600000001"})).await;
        let b = create(&server, &key, json!({"phone": "+34600000002"})).await;
        let c = create(&server, &key, json!({"phone": "+34600000003"})).await;
        let path = format!(
            "/customers?ids={},{},cus_unknown&phones=%2B34600000003",
            a["id"].as_str().unwrap(),
            b["id"].as_str().unwrap()
        );
        let (status, list) = server.call_as("GET", &path, &key, None).await;
        assert_eq!(status, 200, "{list}");
        assert_eq!(list["customers"], json!([a, b, c]));
        let (status, body) = server.call_as("GET", "/customers", &key, None).await;
        assert_eq!(
            (status, body),
            (200, json!({"customers": []})),
            "naming no Customer lists none"
        );
    }

    #[tokio::test]
    async fn an_id_and_a_code_sent_together_must_name_the_same_customer() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let ana = create(&server, &key, json!({"code": "ANA-1"})).await;
        let bob = create(&server, &key, json!({"code": "BOB-1"})).await;
        let ana_id = ana["id"].as_str().unwrap();
        // In a query: the till may send the id it cached and the card's code.
        let (status, body) = server
            .call_as(
                "GET",
                &format!("/points/transactions?customer_id={ana_id}&customer_code=ANA-1"),
                &key,
                None,
            )
            .await;
        assert_eq!(status, 200, "{body}");
        let (status, body) = server
            .call_as(
                "GET",
                &format!("/points/transactions?customer_id={ana_id}&customer_code=BOB-1"),
                &key,
                None,
            )
            .await;
        assert_error(status, &body, 404, "customer_not_found");
        // In a body: a disagreeing pair records nothing.
        let event =
            |code: &str| json!({"type": "visit", "customer_id": ana_id, "customer_code": code});
        let (status, body) = server
            .call_as("POST", "/custom_events", &key, Some(event("ANA-1")))
            .await;
        assert_eq!(status, 200, "{body}");
        let (status, body) = server
            .call_as("POST", "/custom_events", &key, Some(event("BOB-1")))
            .await;
        assert_error(status, &body, 404, "customer_not_found");
        let (_, bobs) = server
            .call_as(
                "GET",
                &format!("/custom_events?customer_id={}", bob["id"].as_str().unwrap()),
                &key,
                None,
            )
            .await;
        assert_eq!(bobs["custom_events"], json!([]), "{bobs}");
        // Neither, or null for one of them, is refused by the request's shape.
        for body in [
            json!({"type": "visit"}),
            json!({"type": "visit", "customer_id": null, "customer_code": "ANA-1"}),
        ] {
            let (status, answer) = server
                .call_as("POST", "/custom_events", &key, Some(body))
                .await;
            assert_error(status, &answer, 400, "invalid_request");
        }
    }

    #[tokio::test]
    async fn a_location_id_and_code_sent_together_must_name_the_same_store() {
        let server = TestServer::start().await;
        // A Company without campaigns: listing none once answered 500.
        let key = server.company_with_key("acme").await;
        for (query, expected) in [
            ("location_id=S1&location_code=S1", 200),
            ("location_id=S1&location_code=S2", 404),
            ("campaign_audience=targeted", 200),
        ] {
            let (status, body) = server
                .call_as("GET", &format!("/instant_wins?{query}"), &key, None)
                .await;
            assert_eq!(status, expected, "{query}: {body}");
            if expected == 404 {
                assert_error(status, &body, 404, "location_not_found");
            }
        }
    }

    #[tokio::test]
    async fn another_companys_customer_is_a_404() {
        let server = TestServer::start().await;
        let demo = server.bootstrap_key();
        let acme = server.company_with_key("acme").await;
        let customer = create(
            &server,
            &demo,
            json!({"email": "c@example.com", "code": "C", "cards": [{"number": "K1"}]}),
        )
        .await;
        let id = customer["id"].as_str().unwrap();
        for (method, path, body) in [
            ("GET", format!("/customers/{id}"), None),
            (
                "GET",
                "/customers/c@example.com?search_by=email".to_string(),
                None,
            ),
            ("GET", "/customers/K1?search_by=card".to_string(), None),
            (
                "PATCH",
                format!("/customers/{id}"),
                Some(json!({"first_name": "Mallory"})),
            ),
            ("DELETE", format!("/customers/{id}"), None),
            (
                "POST",
                format!("/customers/{id}/cards"),
                Some(json!({"number": "K2"})),
            ),
        ] {
            let (status, answer) = server.call_as(method, &path, &acme, body).await;
            assert_error(status, &answer, 404, "customer_not_found");
        }
        let (_, listed) = server
            .call_as("GET", &format!("/customers?ids={id}"), &acme, None)
            .await;
        assert_eq!(listed["customers"], json!([]));
        let (_, searched) = server
            .call_as(
                "POST",
                "/customers/search",
                &acme,
                Some(json!({"filters": {"email": "c@example.com"}})),
            )
            .await;
        assert_eq!(searched["customers"], json!([]));
        // Identifiers are unique per Company, not globally.
        create(
            &server,
            &acme,
            json!({"email": "c@example.com", "code": "C", "cards": [{"number": "K1"}]}),
        )
        .await;
        let (_, unchanged) = server
            .call_as("GET", &format!("/customers/{id}"), &demo, None)
            .await;
        assert_eq!(unchanged, customer);
    }
}

mod updates {
    use super::*;

    #[tokio::test]
    async fn a_patch_changes_only_what_it_names() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let customer = create(
            &server,
            &key,
            json!({"email": "old@example.com", "phone": "+34600000100", "first_name": "Ana", "attributes": {"a": 1, "b": 2}}),
        )
        .await;
        let id = customer["id"].as_str().unwrap();
        let (status, updated) = server
            .call_as(
                "PATCH",
                &format!("/customers/{id}"),
                &key,
                Some(json!({"email": "New@Example.com", "phone": null, "attributes": {"a": null, "c": "x"}, "active": false})),
            )
            .await;
        assert_eq!(status, 200, "{updated}");
        assert_eq!(updated["email"], "new@example.com");
        assert!(updated["phone"].is_null());
        assert_eq!(updated["first_name"], "Ana");
        assert_eq!(updated["attributes"], json!({"b": 2, "c": "x"}));
        assert_eq!(updated["active"], false);
        let (status, _) = server
            .call_as(
                "GET",
                "/customers/old@example.com?search_by=email",
                &key,
                None,
            )
            .await;
        assert_eq!(status, 404, "the old e-mail no longer finds the Customer");
        let (status, _) = server
            .call_as(
                "GET",
                "/customers/%2B34600000100?search_by=phone",
                &key,
                None,
            )
            .await;
        assert_eq!(status, 404, "the cleared phone is released");
        let (status, found) = server
            .call_as(
                "GET",
                "/customers/new@example.com?search_by=email",
                &key,
                None,
            )
            .await;
        assert_eq!((status, &found["id"]), (200, &customer["id"]));
        // The released phone can be taken by someone else.
        create(&server, &key, json!({"phone": "+34600000100"})).await;
    }

    #[tokio::test]
    async fn a_patch_cannot_take_another_customers_identifier() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        create(&server, &key, json!({"email": "taken@example.com"})).await;
        let customer = create(&server, &key, json!({"email": "mine@example.com"})).await;
        let path = format!("/customers/{}", customer["id"].as_str().unwrap());
        let (status, body) = server
            .call_as(
                "PATCH",
                &path,
                &key,
                Some(json!({"email": "taken@example.com", "first_name": "X"})),
            )
            .await;
        assert_error(status, &body, 409, "identifier_in_use");
        let (_, unchanged) = server.call_as("GET", &path, &key, None).await;
        assert_eq!(unchanged, customer, "a refused patch changes nothing");
        let (status, body) = server
            .call_as("PATCH", &path, &key, Some(json!({"email": "nope"})))
            .await;
        assert_error(status, &body, 400, "invalid_request");
    }

    #[tokio::test]
    async fn concurrent_patches_of_one_customer_lose_nothing() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let customer = create(&server, &key, json!({"email": "busy@example.com"})).await;
        let path = format!("/customers/{}", customer["id"].as_str().unwrap());
        let mut requests = Vec::new();
        for n in 0..12 {
            let request = server
                .request_as("PATCH", &path, &key)
                .json(&json!({"attributes": {format!("field_{n}"): n}}));
            requests.push(request);
        }
        for (status, body) in all_at_once(requests).await {
            assert_eq!(status, 200, "{body}");
        }
        let (_, final_state) = server.call_as("GET", &path, &key, None).await;
        let attributes = final_state["attributes"].as_object().unwrap();
        assert_eq!(
            attributes.len(),
            12,
            "every concurrent patch is kept: {attributes:?}"
        );
    }

    #[tokio::test]
    async fn cards_are_attached_and_unique_per_company() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let ana = create(&server, &key, json!({"email": "ana@example.com"})).await;
        let bob = create(
            &server,
            &key,
            json!({"email": "bob@example.com", "cards": [{"number": "B-1"}]}),
        )
        .await;
        let ana_cards = format!("/customers/{}/cards", ana["id"].as_str().unwrap());
        let (status, with_card) = server
            .call_as(
                "POST",
                &ana_cards,
                &key,
                Some(json!({"number": "A-1", "kind": "digital"})),
            )
            .await;
        assert_eq!(status, 200, "{with_card}");
        assert_eq!(with_card["cards"][0]["number"], "A-1");
        let (status, with_two) = server
            .call_as("POST", &ana_cards, &key, Some(json!({"number": "A-2"})))
            .await;
        assert_eq!(status, 200);
        assert_eq!(with_two["cards"].as_array().unwrap().len(), 2);
        let (_, found) = server
            .call_as("GET", "/customers/A-2?search_by=card", &key, None)
            .await;
        assert_eq!(found["id"], ana["id"]);

        let (status, body) = server
            .call_as("POST", &ana_cards, &key, Some(json!({"number": "B-1"})))
            .await;
        assert_error(status, &body, 409, "identifier_in_use");
        let (status, body) = server
            .call_as("POST", &ana_cards, &key, Some(json!({"number": "A-1"})))
            .await;
        assert_error(status, &body, 409, "identifier_in_use");
        let (_, bob_now) = server
            .call_as("GET", "/customers/B-1?search_by=card", &key, None)
            .await;
        assert_eq!(bob_now, bob);

        let bob_path = format!("/customers/{}", bob["id"].as_str().unwrap());
        server
            .call_as("PATCH", &bob_path, &key, Some(json!({"active": false})))
            .await;
        let (status, body) = server
            .call_as(
                "POST",
                &format!("{bob_path}/cards"),
                &key,
                Some(json!({"number": "B-2"})),
            )
            .await;
        assert_error(status, &body, 422, "customer_inactive");
    }
}

mod search {
    use super::*;

    #[tokio::test]
    async fn search_filters_by_fields_and_pages_through_results() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let mut madrid = Vec::new();
        for n in 0..7 {
            let customer = create(
                &server,
                &key,
                json!({"email": format!("m{n}@example.com"), "attributes": {"city": "madrid"}, "country": "ES"}),
            )
            .await;
            madrid.push(customer["id"].as_str().unwrap().to_string());
        }
        create(
            &server,
            &key,
            json!({"email": "p@example.com", "attributes": {"city": "paris"}, "country": "FR"}),
        )
        .await;

        let mut seen = Vec::new();
        let mut token: Option<String> = None;
        let mut pages = 0;
        loop {
            let mut body =
                json!({"filters": {"attributes.city": "madrid", "country": "es"}, "per_page": 3});
            if let Some(token) = &token {
                body["starting_after"] = json!(token);
            }
            let (status, page) = server
                .call_as("POST", "/customers/search", &key, Some(body))
                .await;
            assert_eq!(status, 200, "{page}");
            pages += 1;
            for customer in page["customers"].as_array().unwrap() {
                seen.push(customer["id"].as_str().unwrap().to_string());
            }
            match page.get("next_token_starts_after").and_then(Value::as_str) {
                Some(next) => token = Some(next.to_string()),
                None => break,
            }
        }
        assert_eq!(pages, 3);
        assert_eq!(seen, madrid, "every match once, in creation order");

        let (_, by_email) = server
            .call_as(
                "POST",
                "/customers/search",
                &key,
                Some(json!({"filters": {"email": "M3@example.com"}})),
            )
            .await;
        assert_eq!(by_email["customers"][0]["id"], madrid[3].as_str());
        // An id with surrounding spaces is trimmed, as in paths and `?ids=`.
        let (_, by_id) = server
            .call_as(
                "POST",
                "/customers/search",
                &key,
                Some(json!({"filters": {"id": format!("  {} ", madrid[1])}})),
            )
            .await;
        assert_eq!(by_id["customers"][0]["id"], madrid[1].as_str(), "{by_id}");
    }

    /// A search by `filters` and every Customer id it answers, across pages.
    async fn found(server: &TestServer, key: &CreatedApiKey, filters: Value) -> Vec<String> {
        let mut ids = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let mut body = json!({"filters": filters, "per_page": 2});
            if let Some(token) = &token {
                body["starting_after"] = json!(token);
            }
            let (status, page) = server
                .call_as("POST", "/customers/search", key, Some(body))
                .await;
            assert_eq!(status, 200, "{filters}: {page}");
            for customer in page["customers"].as_array().expect("customers") {
                ids.push(customer["id"].as_str().expect("id").to_string());
            }
            match page["next_token_starts_after"].as_str() {
                Some(next) => token = Some(next.to_string()),
                None => return ids,
            }
        }
    }

    /// The names of the indexes a plan reads, and whether it scans a table.
    fn indexes_read(plan: &Value, into: &mut Vec<String>) -> bool {
        let mut scans_a_table = plan["operator"] == "TableScan";
        if plan["operator"] == "IndexScan" {
            into.push(
                plan["attributes"]["index"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            );
        }
        for child in plan["children"].as_array().into_iter().flatten() {
            scans_a_table |= indexes_read(child, into);
        }
        scans_a_table
    }

    #[tokio::test]
    async fn every_search_field_is_read_from_an_index() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let full = json!({
            "code": "IDX-1", "email": "idx@example.com", "phone": "+34 600 000 001",
            "first_name": "Ines", "last_name": "Diaz", "birth_date": "1991-02-03",
            "gender": "female", "language": "es", "country": "ES", "postal_code": "28001",
            "enroll": true, "cards": [{"number": "7000-0001", "kind": "plastic"}],
            "attributes": {"tier": "gold", "visits": 3, "vip": true}
        });
        let wanted = create(&server, &key, full).await["id"]
            .as_str()
            .expect("id")
            .to_string();
        create(
            &server,
            &key,
            json!({"code": "IDX-2", "first_name": "Other", "attributes": {"tier": "silver"}}),
        )
        .await;
        let filters = [
            ("id", json!(wanted), "customer_company"),
            ("code", json!("IDX-1"), "customer_company"),
            ("email", json!("IDX@example.com"), "customer_company"),
            ("phone", json!("+34600000001"), "customer_company"),
            ("card", json!("7000-0001"), "customer_company"),
            ("first_name", json!("Ines"), "customer_first_name"),
            ("last_name", json!("Diaz"), "customer_last_name"),
            ("birth_date", json!("1991-02-03"), "customer_birth_date"),
            ("gender", json!("female"), "customer_gender"),
            ("language", json!("es"), "customer_language"),
            ("country", json!("es"), "customer_country"),
            ("postal_code", json!("28001"), "customer_postal_code"),
            ("active", json!(true), "customer_active"),
            ("loyalty_member", json!(true), "customer_loyalty_member"),
            ("attributes.tier", json!("gold"), "customer_attribute_value"),
            ("attributes.visits", json!(3), "customer_attribute_value"),
            ("attributes.vip", json!(true), "customer_attribute_value"),
        ];
        let services = &server.running.services;
        for (field, value, index) in filters {
            let one = std::collections::BTreeMap::from([(field.to_string(), value.clone())]);
            let plan = services
                .explain_customer_search("demo", one)
                .await
                .expect("explained")
                .unwrap_or_else(|| panic!("{field}: the identifier names the Customer"));
            let mut read = Vec::new();
            let scans = indexes_read(&plan, &mut read);
            assert!(!scans, "{field} scans a table: {plan}");
            assert_eq!(read, [index], "{field}: {plan}");
            let answered = found(&server, &key, json!({field: value})).await;
            assert!(answered.contains(&wanted), "{field}: {answered:?}");
        }
    }

    #[tokio::test]
    async fn a_search_by_attributes_follows_every_change_of_them() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let mut gold = Vec::new();
        for n in 0..5 {
            let customer = create(
                &server,
                &key,
                json!({"code": format!("ATTR-{n}"), "country": if n % 2 == 0 { "ES" } else { "FR" },
                       "attributes": {"tier": "gold", "visits": n}}),
            )
            .await;
            gold.push(customer["id"].as_str().expect("id").to_string());
        }
        assert_eq!(
            found(&server, &key, json!({"attributes.tier": "gold"})).await,
            gold
        );
        // A number matches whether sent as 2 or 2.0.
        assert_eq!(
            found(&server, &key, json!({"attributes.visits": 2.0})).await,
            [gold[2].clone()]
        );
        // Two attributes, and an attribute with a field.
        assert_eq!(
            found(
                &server,
                &key,
                json!({"attributes.tier": "gold", "attributes.visits": 4})
            )
            .await,
            [gold[4].clone()]
        );
        assert_eq!(
            found(
                &server,
                &key,
                json!({"attributes.tier": "gold", "country": "FR"})
            )
            .await,
            [gold[1].clone(), gold[3].clone()]
        );

        // Changed, removed, deleted: the index follows.
        let (status, _) = server
            .call_as(
                "PATCH",
                &format!("/customers/{}", gold[0]),
                &key,
                Some(json!({"attributes": {"tier": "silver"}})),
            )
            .await;
        assert_eq!(status, 200);
        let (status, _) = server
            .call_as(
                "PATCH",
                &format!("/customers/{}", gold[1]),
                &key,
                // A null removes the attribute.
                Some(json!({"attributes": {"tier": null, "visits": null}})),
            )
            .await;
        assert_eq!(status, 200);
        let (status, body) = server
            .call_as("DELETE", &format!("/customers/{}", gold[2]), &key, None)
            .await;
        assert!(status == 200 || status == 204, "{body}");
        assert_eq!(
            found(&server, &key, json!({"attributes.tier": "gold"})).await,
            [gold[3].clone(), gold[4].clone()]
        );
        assert_eq!(
            found(&server, &key, json!({"attributes.tier": "silver"})).await,
            [gold[0].clone()]
        );
        assert!(
            found(&server, &key, json!({"attributes.visits": 1}))
                .await
                .is_empty()
        );
    }

    #[tokio::test]
    async fn bad_search_requests_are_refused() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        for bad in [
            // The filters at the top level: refused, not every Customer answered.
            json!({"email": "m3@example.com"}),
            json!({"per_page": 0}),
            json!({"per_page": 101}),
            json!({"filters": {"shoe_size": 42}}),
            json!({"filters": {"attributes.bad name": 1}}),
            json!({"filters": {"active": "yes"}}),
            json!({"filters": {"attributes.x": {"nested": true}}}),
        ] {
            let (status, body) = server
                .call_as("POST", "/customers/search", &key, Some(bad.clone()))
                .await;
            assert_error(status, &body, 400, "invalid_request");
            if bad.get("email").is_some() {
                assert!(
                    body["error"].as_str().unwrap().contains("email"),
                    "the field is named: {body}"
                );
            }
        }
    }
}

mod removal {
    use super::*;

    #[tokio::test]
    async fn anonymization_erases_personal_data_for_good() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let customer = create(
            &server,
            &key,
            json!({
                "code": "PII-1", "email": "pii@example.com", "phone": "+34600999999",
                "first_name": "Secreta", "last_name": "Persona", "birth_date": "1970-05-05",
                "postal_code": "28001", "cards": [{"number": "PII-CARD"}], "attributes": {"note": "lives at Calle Falsa 123"}
            }),
        )
        .await;
        let id = customer["id"].as_str().unwrap();
        let (status, deleted) = server
            .call_as("DELETE", &format!("/customers/{id}"), &key, None)
            .await;
        assert_eq!(status, 200);
        assert_eq!(deleted, json!({"id": id, "result": "anonymized"}));

        for path in [
            "/customers/PII-1?search_by=code",
            "/customers/pii@example.com?search_by=email",
            "/customers/%2B34600999999?search_by=phone",
            "/customers/PII-CARD?search_by=card",
        ] {
            let (status, _) = server.call_as("GET", path, &key, None).await;
            assert_eq!(status, 404, "{path}");
        }
        let (status, shell) = server
            .call_as("GET", &format!("/customers/{id}"), &key, None)
            .await;
        assert_eq!(status, 200);
        assert!(shell["anonymized_at"].is_string());
        assert_eq!(shell["active"], false);

        // What is stored, not only what the API shows, holds no personal data.
        let store = server.running.services.store();
        let mut stored = store.raw_documents("customer", "demo").await.unwrap();
        stored.extend(store.raw_documents("customer_claim", "demo").await.unwrap());
        let text = serde_json::to_string(&stored).unwrap();
        for personal in [
            "PII-1",
            "pii@example.com",
            "600999999",
            "Secreta",
            "Persona",
            "1970-05-05",
            "28001",
            "PII-CARD",
            "Calle Falsa",
        ] {
            assert!(
                !text.contains(personal),
                "{personal} is still stored: {text}"
            );
        }

        let (status, body) = server
            .call_as(
                "PATCH",
                &format!("/customers/{id}"),
                &key,
                Some(json!({"email": "back@example.com"})),
            )
            .await;
        assert_error(status, &body, 422, "customer_inactive");
        // Its former identifiers are free for a new Customer.
        create(
            &server,
            &key,
            json!({"email": "pii@example.com", "cards": [{"number": "PII-CARD"}]}),
        )
        .await;
    }

    #[tokio::test]
    async fn delete_mode_removes_the_customer_outright() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let customer = create(
            &server,
            &key,
            json!({"code": "GONE", "email": "gone@example.com"}),
        )
        .await;
        let (status, deleted) = server
            .call_as(
                "DELETE",
                "/customers/GONE?search_by=code&mode=delete",
                &key,
                None,
            )
            .await;
        assert_eq!(status, 200);
        assert_eq!(deleted, json!({"id": customer["id"], "result": "deleted"}));
        let (status, body) = server
            .call_as(
                "GET",
                &format!("/customers/{}", customer["id"].as_str().unwrap()),
                &key,
                None,
            )
            .await;
        assert_error(status, &body, 404, "customer_not_found");
        let store = server.running.services.store();
        assert_eq!(
            store.raw_documents("customer", "demo").await.unwrap(),
            Vec::<Value>::new()
        );
        assert_eq!(
            store.raw_documents("customer_claim", "demo").await.unwrap(),
            Vec::<Value>::new()
        );
        let (status, body) = server
            .call_as("DELETE", "/customers/GONE?search_by=code", &key, None)
            .await;
        assert_error(status, &body, 404, "customer_not_found");
    }
}

mod concurrency {
    use super::*;

    async fn concurrent_creates(
        server: &TestServer,
        key: &CreatedApiKey,
        bodies: Vec<Value>,
    ) -> Vec<(u16, Value)> {
        let requests = bodies
            .iter()
            .map(|body| server.request_as("POST", "/customers", key).json(body))
            .collect();
        all_at_once(requests).await
    }

    #[tokio::test]
    async fn one_identifier_is_claimed_once_under_concurrent_creates() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let bodies = (0..24)
            .map(|n| match n % 3 {
                0 => json!({"email": "race@example.com", "first_name": format!("e{n}")}),
                1 => json!({"code": "RACE", "first_name": format!("c{n}")}),
                _ => json!({"cards": [{"number": "RACE-CARD"}], "first_name": format!("k{n}")}),
            })
            .collect();
        let results = concurrent_creates(&server, &key, bodies).await;
        let created = results.iter().filter(|(status, _)| *status == 200).count();
        assert_eq!(created, 3, "exactly one winner per identifier");
        for (status, body) in &results {
            if *status != 200 {
                assert_error(*status, body, 409, "customer_already_exists");
            }
        }
        let stored = server
            .running
            .services
            .store()
            .raw_documents("customer", "demo")
            .await
            .unwrap();
        assert_eq!(stored.len(), 3);
        let claims = server
            .running
            .services
            .store()
            .raw_documents("customer_claim", "demo")
            .await
            .unwrap();
        assert_eq!(claims.len(), 3);
    }
}

mod associations {
    use super::*;

    #[tokio::test]
    async fn customers_are_linked_listed_retyped_and_unlinked() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let ana = create(&server, &key, json!({"email": "ana@example.com"})).await;
        let bob = create(&server, &key, json!({"email": "bob@example.com"})).await;
        let eva = create(&server, &key, json!({"email": "eva@example.com"})).await;
        let (ana_id, bob_id, eva_id) = (
            ana["id"].as_str().unwrap(),
            bob["id"].as_str().unwrap(),
            eva["id"].as_str().unwrap(),
        );
        let (status, link) = server
            .call_as(
                "POST",
                "/associations",
                &key,
                Some(json!({"customer_id": ana_id, "associate_id": bob_id, "type": "family"})),
            )
            .await;
        assert_eq!(status, 200, "{link}");
        assert_eq!(link["type"], "family");
        server
            .call_as("POST", "/associations", &key, Some(json!({"customer_id": eva_id, "associate_id": ana_id, "type": "company_account"})))
            .await;

        // Either direction of an existing pair is refused.
        let (status, body) = server
            .call_as(
                "POST",
                "/associations",
                &key,
                Some(json!({"customer_id": bob_id, "associate_id": ana_id, "type": "friends"})),
            )
            .await;
        assert_error(status, &body, 409, "association_already_exists");

        let (status, list) = server
            .call_as(
                "GET",
                &format!("/customers/{ana_id}/associates"),
                &key,
                None,
            )
            .await;
        assert_eq!(status, 200);
        let associates = list["associates"].as_array().unwrap();
        assert_eq!(associates.len(), 2);
        assert_eq!(associates[0]["customer"]["id"], bob_id);
        assert_eq!(associates[0]["type"], "family");
        assert_eq!(associates[1]["customer"]["id"], eva_id);
        let (_, from_bob) = server
            .call_as(
                "GET",
                &format!("/customers/{bob_id}/associates"),
                &key,
                None,
            )
            .await;
        assert_eq!(from_bob["associates"][0]["customer"]["id"], ana_id);

        let (status, retyped) = server
            .call_as(
                "PATCH",
                "/associations",
                &key,
                Some(json!({"customer_id": bob_id, "associate_id": ana_id, "type": "partner"})),
            )
            .await;
        assert_eq!(status, 200, "{retyped}");
        assert_eq!(retyped["type"], "partner");

        let (status, deleted) = server
            .call_as(
                "DELETE",
                &format!("/associations?customer_id={bob_id}&associate_id={ana_id}"),
                &key,
                None,
            )
            .await;
        assert_eq!(status, 200, "{deleted}");
        assert_eq!(deleted["deleted"], true);
        let (status, body) = server
            .call_as(
                "DELETE",
                &format!("/associations?customer_id={bob_id}&associate_id={ana_id}"),
                &key,
                None,
            )
            .await;
        assert_error(status, &body, 404, "association_not_found");
        let (status, body) = server
            .call_as(
                "PATCH",
                "/associations",
                &key,
                Some(json!({"customer_id": bob_id, "associate_id": ana_id, "type": "x"})),
            )
            .await;
        assert_error(status, &body, 404, "association_not_found");
        let (_, left) = server
            .call_as(
                "GET",
                &format!("/customers/{ana_id}/associates"),
                &key,
                None,
            )
            .await;
        assert_eq!(left["associates"].as_array().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn bad_associations_are_refused() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let acme = server.company_with_key("acme").await;
        let ana = create(&server, &key, json!({"email": "ana@example.com"})).await;
        let gone = create(&server, &key, json!({"email": "gone@example.com"})).await;
        let foreign = create(&server, &acme, json!({"email": "x@example.com"})).await;
        let (ana_id, gone_id, foreign_id) = (
            ana["id"].as_str().unwrap(),
            gone["id"].as_str().unwrap(),
            foreign["id"].as_str().unwrap(),
        );
        server
            .call_as("DELETE", &format!("/customers/{gone_id}"), &key, None)
            .await;
        let cases = [
            (
                json!({"customer_id": ana_id, "associate_id": ana_id, "type": "self"}),
                422,
                "same_customer",
            ),
            (
                json!({"customer_id": ana_id, "associate_id": "cus_nope", "type": "family"}),
                404,
                "customer_not_found",
            ),
            (
                json!({"customer_id": ana_id, "associate_id": foreign_id, "type": "family"}),
                404,
                "customer_not_found",
            ),
            (
                json!({"customer_id": ana_id, "associate_id": gone_id, "type": "family"}),
                422,
                "customer_inactive",
            ),
            (
                json!({"customer_id": ana_id, "associate_id": gone_id, "type": "bad type"}),
                400,
                "invalid_request",
            ),
        ];
        for (body, status_expected, code) in cases {
            let (status, answer) = server
                .call_as("POST", "/associations", &key, Some(body.clone()))
                .await;
            assert_error(status, &answer, status_expected, code);
        }
        let (_, list) = server
            .call_as(
                "GET",
                &format!("/customers/{ana_id}/associates"),
                &key,
                None,
            )
            .await;
        assert_eq!(list["associates"], json!([]));
    }

    #[tokio::test]
    async fn anonymizing_a_customer_removes_its_links() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let ana = create(&server, &key, json!({"email": "ana@example.com"})).await;
        let bob = create(&server, &key, json!({"email": "bob@example.com"})).await;
        let (ana_id, bob_id) = (ana["id"].as_str().unwrap(), bob["id"].as_str().unwrap());
        server
            .call_as(
                "POST",
                "/associations",
                &key,
                Some(json!({"customer_id": ana_id, "associate_id": bob_id, "type": "family"})),
            )
            .await;
        server
            .call_as("DELETE", &format!("/customers/{bob_id}"), &key, None)
            .await;
        let (_, list) = server
            .call_as(
                "GET",
                &format!("/customers/{ana_id}/associates"),
                &key,
                None,
            )
            .await;
        assert_eq!(list["associates"], json!([]));
        let stored = server
            .running
            .services
            .store()
            .raw_documents("association", "demo")
            .await
            .unwrap();
        assert!(stored.is_empty(), "{stored:?}");
    }

    #[tokio::test]
    async fn one_pair_is_linked_once_under_concurrent_requests() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let ana = create(&server, &key, json!({"email": "ana@example.com"})).await;
        let bob = create(&server, &key, json!({"email": "bob@example.com"})).await;
        let mut requests = Vec::new();
        for n in 0..16 {
            let (from, to) = if n % 2 == 0 {
                (&ana, &bob)
            } else {
                (&bob, &ana)
            };
            let request = server.request_as("POST", "/associations", &key).json(
                &json!({"customer_id": from["id"], "associate_id": to["id"], "type": "family"}),
            );
            requests.push(request);
        }
        let mut created = 0;
        for (status, body) in all_at_once(requests).await {
            match status {
                200 => created += 1,
                _ => assert_error(status, &body, 409, "association_already_exists"),
            }
        }
        assert_eq!(created, 1);
        let stored = server
            .running
            .services
            .store()
            .raw_documents("association", "demo")
            .await
            .unwrap();
        assert_eq!(stored.len(), 1);
    }
}

mod merges {
    use super::*;

    /// Everything a merge moves, for comparing before and after.
    async fn footprint(server: &TestServer, key: &CreatedApiKey, id: &str) -> Value {
        let (status, customer) = server
            .call_as("GET", &format!("/customers/{id}"), key, None)
            .await;
        assert_eq!(status, 200, "{customer}");
        let (_, associates) = server
            .call_as("GET", &format!("/customers/{id}/associates"), key, None)
            .await;
        let links: Vec<Value> = associates["associates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| json!([a["customer"]["id"], a["type"]]))
            .collect();
        json!({
            "code": customer["code"], "email": customer["email"], "phone": customer["phone"],
            "active": customer["active"], "merged_into": customer["merged_into"],
            "cards": customer["cards"].as_array().unwrap().iter().map(|c| c["number"].clone()).collect::<Vec<_>>(),
            "links": links,
        })
    }

    async fn link(server: &TestServer, key: &CreatedApiKey, a: &Value, b: &Value, kind: &str) {
        let (status, body) = server
            .call_as(
                "POST",
                "/associations",
                key,
                Some(json!({"customer_id": a["id"], "associate_id": b["id"], "type": kind})),
            )
            .await;
        assert_eq!(status, 200, "{body}");
    }

    #[tokio::test]
    async fn transfer_moves_cards_and_links_and_unmerge_gives_them_back() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let dup = create(
            &server,
            &key,
            json!({"email": "dup@example.com", "cards": [{"number": "D-1"}, {"number": "D-2"}]}),
        )
        .await;
        let main = create(
            &server,
            &key,
            json!({"email": "main@example.com", "cards": [{"number": "M-1"}]}),
        )
        .await;
        let kid = create(&server, &key, json!({"email": "kid@example.com"})).await;
        let boss = create(&server, &key, json!({"email": "boss@example.com"})).await;
        link(&server, &key, &dup, &kid, "family").await;
        link(&server, &key, &dup, &boss, "company_account").await;
        link(&server, &key, &main, &boss, "company_account").await;
        let (dup_id, main_id) = (dup["id"].as_str().unwrap(), main["id"].as_str().unwrap());
        let before = (
            footprint(&server, &key, dup_id).await,
            footprint(&server, &key, main_id).await,
        );

        let (status, merged) = server
            .call_as(
                "POST",
                "/customers/transfer",
                &key,
                Some(json!({"from_customer_id": dup_id, "to_customer_id": main_id})),
            )
            .await;
        assert_eq!(status, 200, "{merged}");
        assert_eq!(merged["merged"]["active"], false);
        assert_eq!(merged["merged"]["merged_into"], main_id);
        assert_eq!(merged["target"]["cards"].as_array().unwrap().len(), 3);
        let (_, by_card) = server
            .call_as("GET", "/customers/D-2?search_by=card", &key, None)
            .await;
        assert_eq!(by_card["id"], main_id, "moved cards identify the target");
        let (_, main_links) = server
            .call_as(
                "GET",
                &format!("/customers/{main_id}/associates"),
                &key,
                None,
            )
            .await;
        assert_eq!(
            main_links["associates"].as_array().unwrap().len(),
            2,
            "kid moved; boss was already linked"
        );
        let (_, dup_links) = server
            .call_as(
                "GET",
                &format!("/customers/{dup_id}/associates"),
                &key,
                None,
            )
            .await;
        assert_eq!(dup_links["associates"], json!([]));

        // A merged Customer takes no part in further changes.
        let (status, body) = server
            .call_as(
                "PATCH",
                &format!("/customers/{dup_id}"),
                &key,
                Some(json!({"first_name": "x"})),
            )
            .await;
        assert_error(status, &body, 422, "customer_inactive");
        let (status, body) = server
            .call_as(
                "POST",
                "/customers/transfer",
                &key,
                Some(json!({"from_customer_id": dup_id, "to_customer_id": main_id})),
            )
            .await;
        assert_error(status, &body, 422, "customer_inactive");

        let (status, unmerged) = server
            .call_as("POST", &format!("/customers/{dup_id}/unmerge"), &key, None)
            .await;
        assert_eq!(status, 200, "{unmerged}");
        assert_eq!(unmerged["not_restored"], json!([]));
        let after = (
            footprint(&server, &key, dup_id).await,
            footprint(&server, &key, main_id).await,
        );
        assert_eq!(after, before, "unmerge restores both Customers");
        let (status, body) = server
            .call_as("POST", &format!("/customers/{dup_id}/unmerge"), &key, None)
            .await;
        assert_error(status, &body, 404, "merge_not_found");
    }

    #[tokio::test]
    async fn unmerge_reports_what_changed_since_the_merge() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let dup = create(&server, &key, json!({"email": "dup@example.com"})).await;
        let main = create(&server, &key, json!({"email": "main@example.com"})).await;
        let friend = create(&server, &key, json!({"email": "friend@example.com"})).await;
        link(&server, &key, &dup, &friend, "friends").await;
        let (dup_id, main_id, friend_id) = (
            dup["id"].as_str().unwrap(),
            main["id"].as_str().unwrap(),
            friend["id"].as_str().unwrap(),
        );
        server
            .call_as(
                "POST",
                "/customers/transfer",
                &key,
                Some(json!({"from_customer_id": dup_id, "to_customer_id": main_id})),
            )
            .await;
        server
            .call_as(
                "DELETE",
                &format!("/associations?customer_id={main_id}&associate_id={friend_id}"),
                &key,
                None,
            )
            .await;
        let (status, unmerged) = server
            .call_as("POST", &format!("/customers/{dup_id}/unmerge"), &key, None)
            .await;
        assert_eq!(status, 200, "{unmerged}");
        assert_eq!(unmerged["customer"]["active"], true);
        let not_restored = unmerged["not_restored"].as_array().unwrap();
        assert_eq!(not_restored.len(), 1, "{not_restored:?}");
        assert_eq!(not_restored[0]["kind"], "association");
        assert_eq!(not_restored[0]["value"], friend_id);
    }

    #[tokio::test]
    async fn transfer_new_moves_everything_into_a_new_customer() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let old = create(
            &server,
            &key,
            json!({"code": "OLD", "email": "old@example.com", "phone": "+34600000555", "first_name": "Ana", "cards": [{"number": "O-1"}]}),
        )
        .await;
        let old_id = old["id"].as_str().unwrap();
        let before = footprint(&server, &key, old_id).await;
        let (status, merged) = server
            .call_as(
                "POST",
                "/customers/transfer-new",
                &key,
                Some(json!({"from_customer_id": old_id})),
            )
            .await;
        assert_eq!(status, 200, "{merged}");
        let new_id = merged["target"]["id"].as_str().unwrap();
        assert_ne!(new_id, old_id);
        assert_eq!(merged["target"]["first_name"], "Ana");
        assert_eq!(merged["merge"]["target_created"], true);
        for path in [
            "/customers/OLD?search_by=code",
            "/customers/old@example.com?search_by=email",
            "/customers/O-1?search_by=card",
        ] {
            let (_, found) = server.call_as("GET", path, &key, None).await;
            assert_eq!(found["id"], new_id, "{path}");
        }
        let (status, unmerged) = server
            .call_as("POST", &format!("/customers/{old_id}/unmerge"), &key, None)
            .await;
        assert_eq!(status, 200, "{unmerged}");
        assert_eq!(footprint(&server, &key, old_id).await, before);
        let (_, found) = server
            .call_as(
                "GET",
                "/customers/old@example.com?search_by=email",
                &key,
                None,
            )
            .await;
        assert_eq!(found["id"], old_id);
    }

    #[tokio::test]
    async fn bad_merges_are_refused() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let acme = server.company_with_key("acme").await;
        let a = create(&server, &key, json!({"email": "a@example.com"})).await;
        let foreign = create(&server, &acme, json!({"email": "f@example.com"})).await;
        let a_id = a["id"].as_str().unwrap();
        let cases = [
            (
                json!({"from_customer_id": a_id, "to_customer_id": a_id}),
                422,
                "same_customer",
            ),
            (
                json!({"from_customer_id": a_id, "to_customer_id": "cus_nope"}),
                404,
                "customer_not_found",
            ),
            (
                json!({"from_customer_id": a_id, "to_customer_id": foreign["id"]}),
                404,
                "customer_not_found",
            ),
            (json!({"from_customer_id": a_id}), 400, "invalid_request"),
        ];
        for (body, expected, code) in cases {
            let (status, answer) = server
                .call_as("POST", "/customers/transfer", &key, Some(body))
                .await;
            assert_error(status, &answer, expected, code);
        }
        let (status, body) = server
            .call_as("POST", &format!("/customers/{a_id}/unmerge"), &key, None)
            .await;
        assert_error(status, &body, 404, "merge_not_found");
        let (_, unchanged) = server
            .call_as("GET", &format!("/customers/{a_id}"), &key, None)
            .await;
        assert_eq!(unchanged, a);
    }

    #[tokio::test]
    async fn concurrent_merges_of_one_customer_succeed_once() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let dup = create(
            &server,
            &key,
            json!({"email": "dup@example.com", "cards": [{"number": "X-1"}]}),
        )
        .await;
        let mut targets = Vec::new();
        for n in 0..6 {
            targets
                .push(create(&server, &key, json!({"email": format!("t{n}@example.com")})).await);
        }
        let mut requests = Vec::new();
        for target in &targets {
            let request = server
                .request_as("POST", "/customers/transfer", &key)
                .json(&json!({"from_customer_id": dup["id"], "to_customer_id": target["id"]}));
            requests.push(request);
        }
        let mut merged = 0;
        for (status, body) in all_at_once(requests).await {
            match status {
                200 => merged += 1,
                _ => assert!(
                    body["code"] == "customer_inactive"
                        || body["code"] == "concurrent_modification",
                    "{body}"
                ),
            }
        }
        assert_eq!(merged, 1);
        let holders: Vec<Value> = server
            .running
            .services
            .store()
            .raw_documents("customer", "demo")
            .await
            .unwrap()
            .into_iter()
            .filter(|c| c["cards"].as_array().is_some_and(|cards| !cards.is_empty()))
            .collect();
        assert_eq!(holders.len(), 1, "the card lives on exactly one Customer");
    }
}

mod merge_properties {
    use super::*;
    use proptest::prelude::*;

    /// A random Company history: customers with cards and carts, and links between them.
    #[derive(Debug, Clone)]
    struct History {
        cards: Vec<u8>,
        carts: Vec<u8>,
        links: Vec<(usize, usize, u8)>,
        from: usize,
        to: usize,
        new_target: bool,
    }

    fn history() -> impl Strategy<Value = History> {
        (3usize..6).prop_flat_map(|customers| {
            (
                proptest::collection::vec(0u8..3, customers),
                proptest::collection::vec(0u8..3, customers),
                proptest::collection::vec((0..customers, 0..customers, 0u8..3), 0..8),
                0..customers,
                0..customers,
                any::<bool>(),
            )
                .prop_map(|(cards, carts, links, from, to, new_target)| History {
                    cards,
                    carts,
                    links,
                    from,
                    to,
                    new_target,
                })
        })
    }

    async fn snapshot(server: &TestServer, key: &CreatedApiKey, ids: &[String]) -> Vec<Value> {
        let mut all = Vec::new();
        for id in ids {
            all.push(merges_footprint(server, key, id).await);
        }
        all
    }

    async fn merges_footprint(server: &TestServer, key: &CreatedApiKey, id: &str) -> Value {
        let (_, customer) = server
            .call_as("GET", &format!("/customers/{id}"), key, None)
            .await;
        let (_, associates) = server
            .call_as("GET", &format!("/customers/{id}/associates"), key, None)
            .await;
        let mut links: Vec<String> = associates["associates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| format!("{}:{}", a["customer"]["id"], a["type"]))
            .collect();
        links.sort();
        let mut cards: Vec<String> = customer["cards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["number"].as_str().unwrap().to_string())
            .collect();
        cards.sort();
        let (_, attributes) = server
            .call_as("GET", &format!("/customers/{id}/attributes"), key, None)
            .await;
        json!({
            "active": customer["active"], "merged_into": customer["merged_into"], "email": customer["email"],
            "cards": cards, "links": links,
            "points": attributes["points_balance"], "carts": attributes["cart_count"], "spent": attributes["lifetime_spend"],
        })
    }

    async fn merge_then_unmerge_restores(history: History) {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let mut ids = Vec::new();
        for (n, cards) in history.cards.iter().enumerate() {
            let cards: Vec<Value> = (0..*cards)
                .map(|c| json!({"number": format!("C{n}-{c}")}))
                .collect();
            let customer = create(
                &server,
                &key,
                json!({"email": format!("c{n}@example.com"), "cards": cards}),
            )
            .await;
            let id = customer["id"].as_str().unwrap().to_string();
            for c in 0..history.carts[n] {
                let cart = json!({
                    "customer_id": id, "code": format!("K{n}-{c}"), "date": "2026-05-04T18:00:00Z",
                    "lines": [{"product_code": "PASTRY", "quantity": c + 1, "price": 2.5}]
                });
                let (status, body) = server
                    .call_as("POST", "/carts/realtime", &key, Some(cart))
                    .await;
                assert_eq!(status, 200, "{body}");
            }
            ids.push(id);
        }
        let kinds = ["family", "friends", "company_account"];
        for (a, b, kind) in &history.links {
            if a != b {
                // Duplicates are refused with 409, which is part of the history too.
                server
                    .call_as(
                        "POST",
                        "/associations",
                        &key,
                        Some(json!({"customer_id": ids[*a], "associate_id": ids[*b], "type": kinds[*kind as usize]})),
                    )
                    .await;
            }
        }
        let before = snapshot(&server, &key, &ids).await;
        let (status, merged) = if history.new_target {
            server
                .call_as(
                    "POST",
                    "/customers/transfer-new",
                    &key,
                    Some(json!({"from_customer_id": ids[history.from]})),
                )
                .await
        } else {
            server
                .call_as(
                    "POST",
                    "/customers/transfer",
                    &key,
                    Some(json!({"from_customer_id": ids[history.from], "to_customer_id": ids[history.to]})),
                )
                .await
        };
        if !history.new_target && history.from == history.to {
            assert_eq!(
                (status, merged["code"].as_str()),
                (422, Some("same_customer"))
            );
            return;
        }
        assert_eq!(status, 200, "{merged}");
        let mut all_ids = ids.clone();
        if history.new_target {
            all_ids.push(merged["target"]["id"].as_str().unwrap().to_string());
        }
        let during = snapshot(&server, &key, &all_ids).await;
        let cards_during: usize = during
            .iter()
            .map(|c| c["cards"].as_array().unwrap().len())
            .sum();
        let cards_before: usize = before
            .iter()
            .map(|c| c["cards"].as_array().unwrap().len())
            .sum();
        assert_eq!(
            cards_during, cards_before,
            "a merge neither loses nor copies cards"
        );

        let (status, unmerged) = server
            .call_as(
                "POST",
                &format!("/customers/{}/unmerge", ids[history.from]),
                &key,
                None,
            )
            .await;
        assert_eq!(status, 200, "{unmerged}");
        assert_eq!(unmerged["not_restored"], json!([]));
        assert_eq!(snapshot(&server, &key, &ids).await, before);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

        #[test]
        fn merge_then_unmerge_restores_every_customer(history in history()) {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(merge_then_unmerge_restores(history));
        }
    }
}

mod segments {
    use super::*;
    use loyalty::server::ServerSettings;

    #[tokio::test]
    async fn the_demo_segments_evaluate_for_a_customer() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let ana = create(
            &server,
            &key,
            json!({"email": "ana@example.com", "consents": {"marketing_email": true}}),
        )
        .await;
        let ana_id = ana["id"].as_str().unwrap();
        for n in 0..2 {
            let kid = create(
                &server,
                &key,
                json!({"email": format!("kid{n}@example.com")}),
            )
            .await;
            let (status, _) = server
                .call_as(
                    "POST",
                    "/associations",
                    &key,
                    Some(
                        json!({"customer_id": ana_id, "associate_id": kid["id"], "type": "family"}),
                    ),
                )
                .await;
            assert_eq!(status, 200);
        }

        let (status, attributes) = server
            .call_as(
                "GET",
                &format!("/customers/{ana_id}/attributes"),
                &key,
                None,
            )
            .await;
        assert_eq!(status, 200, "{attributes}");
        assert_eq!(attributes["lifetime_spend"], 0.0);
        assert_eq!(attributes["cart_count"], 0);
        assert!(attributes["last_purchase_date"].is_null());
        assert_eq!(attributes["points_balance"], 0);
        assert_eq!(
            attributes["custom"],
            json!({"average_cart": 0.0, "household_size": 3})
        );

        let (status, tiers) = server
            .call_as("GET", &format!("/customers/{ana_id}/tiers"), &key, None)
            .await;
        assert_eq!(status, 200, "{tiers}");
        assert_eq!(tiers["current_tier"], "member");
        let reached: Vec<bool> = tiers["tiers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["member"].as_bool().unwrap())
            .collect();
        assert_eq!(reached, [true, false, false]);

        let (status, audiences) = server
            .call_as("GET", &format!("/customers/{ana_id}/audiences"), &key, None)
            .await;
        assert_eq!(status, 200);
        let ids: Vec<&str> = audiences["audiences"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["marketing_email", "families"]);

        let (status, validation) = server
            .call_as(
                "GET",
                &format!("/customers/{ana_id}/audience_validation?audience=families"),
                &key,
                None,
            )
            .await;
        assert_eq!(status, 200);
        assert_eq!(validation["member"], true);
        let kid_id = server
            .call_as(
                "GET",
                "/customers/kid0@example.com?search_by=email",
                &key,
                None,
            )
            .await
            .1["id"]
            .clone();
        let (_, kid_validation) = server
            .call_as(
                "GET",
                &format!(
                    "/customers/{}/audience_validation?audience=families",
                    kid_id.as_str().unwrap()
                ),
                &key,
                None,
            )
            .await;
        assert_eq!(kid_validation["member"], false);

        let (status, body) = server
            .call_as(
                "GET",
                &format!("/customers/{ana_id}/audience_validation?audience=nope"),
                &key,
                None,
            )
            .await;
        assert_error(status, &body, 404, "audience_not_found");
        let (status, body) = server
            .call_as("GET", "/customers/cus_nope/tiers", &key, None)
            .await;
        assert_error(status, &body, 404, "customer_not_found");
        let acme = server.company_with_key("acme").await;
        let (status, body) = server
            .call_as(
                "GET",
                &format!("/customers/{ana_id}/attributes"),
                &acme,
                None,
            )
            .await;
        assert_error(status, &body, 404, "customer_not_found");
    }

    /// Polls `check` until it holds, for at most ten seconds.
    async fn eventually<F, Fut>(mut check: F)
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        for _ in 0..100 {
            if check().await {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("condition not reached within ten seconds");
    }

    #[tokio::test]
    async fn edited_rules_apply_without_a_restart_and_broken_edits_are_not_applied() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("demo")).unwrap();
        let file = dir.path().join("demo").join("segments.yaml");
        std::fs::write(&file, "audiences:\n  - id: spain\n    name: Spain\n    condition: customer.country == \"ES\"\n").unwrap();
        let mut settings = ServerSettings::for_store("mem://", common::OPERATOR_TOKEN);
        settings.campaigns = dir.path().to_path_buf();
        let server = TestServer::start_with(settings).await;
        let key = server.bootstrap_key();
        let customer = create(&server, &key, json!({"country": "FR"})).await;
        let path = format!("/customers/{}/audiences", customer["id"].as_str().unwrap());
        let (_, before) = server.call_as("GET", &path, &key, None).await;
        assert_eq!(before["audiences"], json!([]));

        std::fs::write(&file, "audiences:\n  - id: france\n    name: France\n    condition: customer.country == \"FR\"\n").unwrap();
        bump_mtime(&file, 2);
        eventually(|| async {
            let (_, now) = server.call_as("GET", &path, &key, None).await;
            now["audiences"].as_array().is_some_and(|a| a.len() == 1)
        })
        .await;

        // A broken edit is refused; the last good rules keep serving.
        std::fs::write(
            &file,
            "audiences:\n  - id: broken\n    name: Broken\n    condition: customer.country ==\n",
        )
        .unwrap();
        bump_mtime(&file, 4);
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        let (_, still) = server.call_as("GET", &path, &key, None).await;
        assert_eq!(still["audiences"][0]["id"], "france");
    }

    fn bump_mtime(path: &std::path::Path, seconds: u64) {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(seconds))
            .unwrap();
    }

    #[tokio::test]
    async fn campaigns_check_reports_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("shop")).unwrap();
        std::fs::write(
            dir.path().join("shop").join("segments.yaml"),
            "tiers:\n  - id: gold\n    name: Gold\n    condition: lifetime_spend >= \n",
        )
        .unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_loyalty"))
            .args(["campaigns", "check", "--campaigns"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("shop/segments.yaml:4:"), "{stderr}");

        let shipped = std::process::Command::new(env!("CARGO_BIN_EXE_loyalty"))
            .args(["campaigns", "check", "--campaigns", "campaigns"])
            .output()
            .unwrap();
        assert!(
            shipped.status.success(),
            "{}",
            String::from_utf8_lossy(&shipped.stderr)
        );
    }
}

mod erasure_after_merges {
    use super::*;

    #[tokio::test]
    async fn anonymizing_a_target_erases_the_customers_merged_into_it() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let old = create(&server, &key, json!({"email": "old-self@example.com", "first_name": "Olga", "cards": [{"number": "OLD-1"}]})).await;
        let main = create(&server, &key, json!({"email": "main-self@example.com"})).await;
        let (old_id, main_id) = (old["id"].as_str().unwrap(), main["id"].as_str().unwrap());
        server
            .call_as(
                "POST",
                "/customers/transfer",
                &key,
                Some(json!({"from_customer_id": old_id, "to_customer_id": main_id})),
            )
            .await;

        let (status, body) = server
            .call_as(
                "DELETE",
                &format!("/customers/{main_id}?mode=delete"),
                &key,
                None,
            )
            .await;
        assert_error(status, &body, 409, "delete_not_allowed");

        let (status, _) = server
            .call_as("DELETE", &format!("/customers/{main_id}"), &key, None)
            .await;
        assert_eq!(status, 200);
        let stored = server.running.services.store();
        let mut documents = stored.raw_documents("customer", "demo").await.unwrap();
        documents.extend(stored.raw_documents("merge", "demo").await.unwrap());
        documents.extend(
            stored
                .raw_documents("customer_claim", "demo")
                .await
                .unwrap(),
        );
        let text = serde_json::to_string(&documents).unwrap();
        for personal in [
            "old-self@example.com",
            "Olga",
            "OLD-1",
            "main-self@example.com",
        ] {
            assert!(!text.contains(personal), "{personal} is still stored");
        }
        let (status, body) = server
            .call_as("POST", &format!("/customers/{old_id}/unmerge"), &key, None)
            .await;
        assert_error(status, &body, 422, "customer_inactive");
    }
}

mod languages {
    use super::*;

    #[tokio::test]
    async fn translatable_content_follows_accept_language_with_the_company_default_as_fallback() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let customer = create(&server, &key, json!({"email": "lang@example.com"})).await;
        let path = format!("/customers/{}/tiers", customer["id"].as_str().unwrap());
        // The demo Company speaks en (default) and es.
        for (accept, expected_language, expected_name) in [
            (Some("es-ES,es;q=0.9"), "es", "Socio"),
            (Some("en"), "en", "Member"),
            (Some("fr"), "en", "Member"),
            (Some("fr, es;q=0.5"), "es", "Socio"),
            (None, "en", "Member"),
        ] {
            let mut request = server.request_as("GET", &path, &key);
            if let Some(accept) = accept {
                request = request.header("Accept-Language", accept);
            }
            let response = request.send().await.unwrap();
            let language = response
                .headers()
                .get("content-language")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            let (status, body) = read(response).await;
            assert_eq!(status, 200, "{body}");
            assert_eq!(language, expected_language, "{accept:?}");
            assert_eq!(body["tiers"][0]["name"], expected_name, "{accept:?}");
        }
    }
}
