//! The OpenAPI document and the interactive docs: every operation with its
//! examples, errors and rules.

use super::*;

#[tokio::test]
async fn each_operation_lists_the_error_codes_it_answers() {
    let server = TestServer::start().await;
    let (_, spec) = server
        .send(server.http.get(server.url("/openapi.json")))
        .await;
    let operation = |method: &str, path: &str| spec["paths"][path][method].clone();
    let codes_of = |operation: &Value| -> Vec<String> {
        operation["x-error-codes"]
            .as_array()
            .unwrap_or_else(|| panic!("x-error-codes: {operation}"))
            .iter()
            .map(|code| code.as_str().unwrap().to_string())
            .collect()
    };
    for (path, operations) in spec["paths"].as_object().unwrap() {
        for (method, details) in operations.as_object().unwrap() {
            if path == "/openapi.json" || path == "/docs" {
                continue;
            }
            let codes = codes_of(details);
            for shared in [
                "invalid_request",
                "forbidden",
                "rate_limited",
                "server_error",
            ] {
                assert!(
                    codes.contains(&shared.to_string()),
                    "{method} {path}: {shared}"
                );
            }
        }
    }
    let get = operation("get", "/customers/{value}");
    let statuses: Vec<&String> = get["responses"].as_object().unwrap().keys().collect();
    assert!(
        !statuses.contains(&&"409".to_string()),
        "a GET conflicts with nothing: {statuses:?}"
    );
    let not_found = get["responses"]["404"]["description"].as_str().unwrap();
    assert!(not_found.contains("`customer_not_found`"), "{not_found}");
    let cart = operation("post", "/carts/realtime");
    let conflict = cart["responses"]["409"]["description"].as_str().unwrap();
    for code in ["cart_already_exists", "idempotency_key_in_use"] {
        assert!(conflict.contains(code), "{conflict}");
    }
    assert!(!codes_of(&cart).contains(&"same_customer".to_string()));
}

/// The shapes client generators read without loss (#57): media types
/// keyed `application/json`, no `allOf` member that only describes, no
/// `\u2028`/`\u2029` escape in a pattern (a JavaScript regex literal
/// cannot hold either once a generator decodes it), and the variants
/// and bounds the service enforces.
#[tokio::test]
async fn the_spec_is_in_the_shapes_generators_read() {
    let server = TestServer::start().await;
    let spec = server.spec().await;
    fn visit(value: &Value, found: &mut Vec<String>) {
        match value {
            Value::Object(object) => {
                if let Some(content) = object.get("content").and_then(Value::as_object) {
                    for key in content.keys().filter(|key| *key != "application/json") {
                        found.push(format!("media type {key}"));
                    }
                }
                for member in object
                    .get("allOf")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if member
                        .as_object()
                        .is_some_and(|m| m.keys().all(|k| k == "description"))
                    {
                        found.push(format!("a describing allOf member: {member}"));
                    }
                }
                if let Some(pattern) = object.get("pattern").and_then(Value::as_str)
                    && (pattern.contains("\\u2028") || pattern.contains("\\u2029"))
                {
                    found.push(format!("pattern {pattern}"));
                }
                object.values().for_each(|child| visit(child, found));
            }
            Value::Array(items) => items.iter().for_each(|item| visit(item, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    visit(&spec, &mut found);
    assert!(found.is_empty(), "{found:#?}");
    let schemas = &spec["components"]["schemas"];
    assert_eq!(schemas["NewPromotion"]["required"], json!(["name"]));
    assert_eq!(
        spec["paths"]["/promotions"]["post"]["requestBody"]["content"]["application/json"]["schema"]
            ["$ref"],
        "#/components/schemas/NewPromotion"
    );
    for variant in ["NewLocationFeature", "LocationFeatureChanges"] {
        assert!(schemas[variant]["properties"].is_object(), "{variant}");
        assert!(
            schemas[variant]["properties"]["discountable"].is_null(),
            "{variant}"
        );
    }
    assert_eq!(
        schemas["NewFeature"]["properties"]["discountable"]["type"],
        "boolean"
    );
    assert_eq!(
        schemas["PointsRules"]["properties"]["expires_after_days"]["maximum"].as_f64(),
        Some(3650.0)
    );
    let line = &schemas["NewCartLine"]["properties"]["quantity"];
    assert_eq!(line["minimum"].as_f64(), Some(0.001), "{line}");
    // "Exactly one of", "at least one of" and "not both" in the keywords
    // generators read.
    let required_in = |options: &Value| -> Vec<Value> {
        options
            .as_array()
            .into_iter()
            .flatten()
            .map(|option| option["required"].clone())
            .collect()
    };
    assert_eq!(
        required_in(&schemas["VoucherRollback"]["oneOf"]),
        [json!(["codes"]), json!(["redemption_ids"])]
    );
    assert_eq!(
        required_in(&schemas["VoucherDiscount"]["oneOf"]),
        [json!(["percent"]), json!(["amount"])]
    );
    assert_eq!(
        required_in(&schemas["NewCoupon"]["not"]["anyOf"]),
        [json!(["static_code", "code_pattern"])]
    );
    assert_eq!(
        required_in(&schemas["DiscountRules"]["not"]["anyOf"]).len(),
        3,
        "percent, amount and price, two at a time"
    );
}

#[tokio::test]
async fn rules_between_fields_are_kept_in_their_own_words() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let refused = [
        (
            "/vouchers/rollback",
            json!({}),
            "`codes` or `redemption_ids`, one of them",
        ),
        (
            "/vouchers/rollback",
            json!({"codes": ["A"], "redemption_ids": ["r"], "customer_code": "X"}),
            "`codes` or `redemption_ids`, one of them",
        ),
        (
            "/coupons",
            json!({"name": "Both", "discount": {"percent": 10, "amount": 5}}),
            "exactly one of `percent` and `amount`",
        ),
        (
            "/coupons",
            json!({"name": "Neither", "discount": {"max_amount": 5}}),
            "exactly one of `percent` and `amount`",
        ),
        (
            "/coupons",
            json!({"name": "Two codes", "discount": {"percent": 10}, "static_code": "SAME", "code_pattern": "X-####"}),
            "not both",
        ),
        (
            "/discounts",
            json!({"name": "Two", "discount": {"percent": 10, "amount": 1}}),
            "not two",
        ),
        (
            "/points",
            json!({"name": "Nothing", "points": {"per_product": {}}}),
            "`per_amount`, `per_product` or `fixed`",
        ),
        (
            "/points",
            json!({"name": "Twice", "points": {"fixed": 1, "expires_after_days": 5, "expires_at": "2030-01-01T00:00:00Z"}}),
            "not both",
        ),
    ];
    for (path, body, rule) in refused {
        let (status, answer) = server.call_as("POST", path, &key, Some(body.clone())).await;
        assert_eq!(status, 400, "{path} {body}: {answer}");
        assert_eq!(answer["code"], "invalid_request", "{answer}");
        let said = answer["error"].as_str().unwrap_or_default();
        assert!(said.contains(rule), "{path} {body}: {said}");
    }
    // A field sent as null is not given: one of them still holds.
    let (status, answer) = server
        .call_as(
            "POST",
            "/coupons",
            &key,
            Some(json!({"name": "One", "discount": {"percent": 10, "amount": null}})),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
}

#[tokio::test]
async fn rules_between_fields_are_in_the_spec() {
    let server = TestServer::start().await;
    let (_, spec) = server
        .send(server.http.get(server.url("/openapi.json")))
        .await;
    let schemas = &spec["components"]["schemas"];
    // A cart names its Customer by id or code: "not neither", not nullable.
    let neither = &schemas["NewCart"]["not"]["properties"];
    assert!(neither["customer_id"].is_object() && neither["customer_code"].is_object());
    assert!(schemas["NewCart"]["properties"]["customer_id"]["nullable"].is_null());
    // A transfer names two Customers: one rule each.
    assert_eq!(
        schemas["Transfer"]["allOf"].as_array().map(Vec::len),
        Some(2)
    );
    // Creating a points campaign needs what updating one may leave out.
    assert_eq!(
        spec["paths"]["/points"]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/NewPointsCampaign"
    );
    assert_eq!(
        schemas["NewPointsCampaign"]["required"],
        json!(["name", "points"])
    );
    assert_eq!(schemas["PointsCampaignSpec"]["additionalProperties"], false);
    // One of two query parameters, which OpenAPI cannot require.
    assert_eq!(
        spec["paths"]["/points/transactions"]["get"]["x-one-of-required"],
        json!([["customer_id", "customer_code"]])
    );
}

#[tokio::test]
async fn the_spec_says_what_generated_clients_need() {
    let server = TestServer::start().await;
    let (_, spec) = server
        .send(server.http.get(server.url("/openapi.json")))
        .await;
    let schemas = spec["components"]["schemas"].as_object().unwrap();
    // Reads do not declare the Idempotency-Key they refuse.
    for (path, operations) in spec["paths"].as_object().unwrap() {
        for (method, operation) in operations.as_object().unwrap() {
            let declares_key = operation["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|p| p["name"] == "Idempotency-Key");
            assert_eq!(
                declares_key,
                ["post", "patch", "put"].contains(&method.as_str()),
                "{method} {path}"
            );
        }
    }
    // Fields written as null are nullable; enums are plain.
    let customer = &schemas["Customer"]["properties"];
    for field in ["code", "email", "phone", "first_name", "birth_date"] {
        assert_eq!(customer[field]["nullable"], true, "Customer.{field}");
    }
    assert_eq!(
        schemas["Consents"]["properties"]["recorded_at"]["nullable"],
        true
    );
    assert_eq!(
        schemas["Cart"]["properties"]["location_code"]["nullable"],
        true
    );
    let text = spec.to_string();
    for (name, schema) in schemas {
        if schema.get("enum").is_some() {
            let reference = format!("{{\"$ref\":\"#/components/schemas/{name}\"}}");
            assert!(
                !text.contains(&reference),
                "enum {name} is still referenced"
            );
        }
    }
    assert_eq!(
        schemas["Redemption"]["properties"]["kind"]["enum"],
        json!(["points", "wallet"])
    );
    // The limits the service enforces are stated.
    let line = &schemas["NewCartLine"]["properties"];
    assert_eq!(line["product_code"]["maxLength"], 128);
    assert_eq!(line["quantity"]["maximum"], 1_000_000.0);
    assert_eq!(line["price"]["maximum"], 10_000_000_000.0);
    assert_eq!(schemas["NewCart"]["properties"]["lines"]["maxItems"], 500);
    assert_eq!(
        schemas["Redemption"]["properties"]["points"]["minimum"],
        1.0
    );
    assert!(
        schemas["NewCustomer"]["properties"]["first_name"]["pattern"]
            .as_str()
            .is_some_and(|p| p.contains("u202e")),
        "names refuse direction overrides"
    );
    let per_page = spec["paths"]["/carts"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "per_page")
        .unwrap();
    assert_eq!(per_page["schema"]["maximum"], 100.0);
}

#[tokio::test]
async fn optional_headers_are_optional_in_the_spec() {
    let server = TestServer::start().await;
    let (_, spec) = server
        .send(server.http.get(server.url("/openapi.json")))
        .await;
    let mut checked = 0;
    for (path, operations) in spec["paths"].as_object().unwrap() {
        for (method, operation) in operations.as_object().unwrap() {
            for parameter in operation["parameters"].as_array().into_iter().flatten() {
                let name = parameter["name"].as_str().unwrap_or_default();
                let name = name.to_ascii_lowercase();
                if ["idempotency-key", "accept-language"].contains(&name.as_str()) {
                    assert_eq!(parameter["required"], false, "{method} {path} {name}");
                    checked += 1;
                }
            }
            for (status, response) in operation["responses"].as_object().unwrap() {
                for (name, header) in response["headers"].as_object().into_iter().flatten() {
                    assert_ne!(header["required"], true, "{method} {path} {status} {name}");
                }
            }
        }
    }
    assert!(checked > 0, "the headers are documented");
}

#[tokio::test]
async fn the_spec_documents_the_three_header_scheme_and_every_error_code() {
    let server = TestServer::start().await;
    let (status, spec) = server
        .send(server.http.get(server.url("/openapi.json")))
        .await;
    assert_eq!(status, 200);
    let schemes = &spec["components"]["securitySchemes"];
    for (scheme, header) in [
        ("ApiKey", "X-Api-Key"),
        ("ApiSecret", "X-Api-Secret"),
        ("ApiVersion", "X-Api-Version"),
    ] {
        assert_eq!(schemes[scheme]["type"], "apiKey");
        assert_eq!(schemes[scheme]["in"], "header");
        assert_eq!(schemes[scheme]["name"], header);
    }
    assert_eq!(
        spec["paths"]["/check"]["get"]["security"],
        json!([{"ApiKey": [], "ApiSecret": [], "ApiVersion": []}]),
        "all three headers are required together"
    );
    let description = spec["info"]["description"].as_str().expect("description");
    for code in loyalty::error::ErrorCode::ALL {
        assert!(
            description.contains(&format!("`{}` | {}", code.code(), code.status().as_u16())),
            "{code} missing from the spec's error table"
        );
    }
}

#[tokio::test]
async fn the_docs_page_is_served() {
    let server = TestServer::start().await;
    let response = server
        .http
        .get(server.url("/docs"))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status().as_u16(), 200);
    let html = response.text().await.expect("body");
    assert!(html.contains("SwaggerUIBundle"));
    assert!(html.contains("X-Api-Secret"));
}
