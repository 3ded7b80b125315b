//! The service foundation over real HTTP on loopback, with a real SurrealDB:
//! authentication, error bodies, /check, the OpenAPI document, the back-office
//! and its CLI, and durability across restarts.

#[path = "foundation/blank_ids.rs"]
mod blank_ids;
#[path = "foundation/broken_restart.rs"]
mod broken_restart;
mod common;
#[path = "foundation/crash_runs.rs"]
mod crash_runs;
#[path = "foundation/crashes.rs"]
mod crashes;
#[path = "foundation/docs.rs"]
mod docs;
#[path = "foundation/first_start.rs"]
mod first_start;
#[path = "foundation/full_disk.rs"]
mod full_disk;
#[path = "foundation/hostile_input.rs"]
mod hostile_input;
#[path = "foundation/observability.rs"]
mod observability;
#[path = "foundation/page.rs"]
mod page;
#[path = "foundation/tenants.rs"]
mod tenants;
#[path = "foundation/torn_log.rs"]
mod torn_log;
#[path = "foundation/torture.rs"]
mod torture;

use common::{OPERATOR_TOKEN, TestServer, all_at_once, read};
use loyalty::resources::companies::keys::NewKey;
use loyalty::resources::companies::model::Environment;
use loyalty::resources::companies::service::NewCompany;
use loyalty::server::ServerSettings;
use serde_json::{Value, json};

const FORBIDDEN: &str = r#"{"message":"Forbidden"}"#;

/// Sends GET /check with the given headers and returns status and raw body.
async fn check_with(server: &TestServer, headers: &[(&str, &str)]) -> (u16, String) {
    let mut request = server.http.get(server.url("/check"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("request sent");
    let status = response.status().as_u16();
    (status, response.text().await.expect("body"))
}

mod authentication {
    use super::*;

    #[tokio::test]
    async fn check_answers_with_the_company_of_the_key() {
        let server = TestServer::start().await;
        let (status, body) = server.get_as("/check", &server.bootstrap_key()).await;
        assert_eq!(status, 200);
        assert_eq!(body["status"], "ok");
        assert_eq!(body["company"], "demo");
        assert_eq!(body["environment"], "sandbox");
        assert_eq!(body["api_version"], "1");
        let time = body["time"].as_str().expect("time is a string");
        assert!(
            chrono::NaiveDateTime::parse_from_str(time, "%Y-%m-%dT%H:%M:%SZ").is_ok(),
            "time {time} is not YYYY-MM-DDThh:mm:ssZ"
        );
    }

    #[tokio::test]
    async fn every_credential_failure_is_the_same_403() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let k = key.key.key.as_str();
        let s = key.secret.as_str();
        let other = server
            .back_office()
            .await
            .create_key(NewKey {
                company: "demo".into(),
                description: "other".into(),
                enabled: true,
            })
            .await
            .expect("key created");
        let cases: Vec<(&str, Vec<(&str, &str)>)> = vec![
            ("no headers", vec![]),
            (
                "missing key",
                vec![("X-Api-Secret", s), ("X-Api-Version", "1")],
            ),
            (
                "missing secret",
                vec![("X-Api-Key", k), ("X-Api-Version", "1")],
            ),
            (
                "missing version",
                vec![("X-Api-Key", k), ("X-Api-Secret", s)],
            ),
            (
                "wrong secret",
                vec![
                    ("X-Api-Key", k),
                    ("X-Api-Secret", "ls_wrong"),
                    ("X-Api-Version", "1"),
                ],
            ),
            (
                "empty secret",
                vec![
                    ("X-Api-Key", k),
                    ("X-Api-Secret", ""),
                    ("X-Api-Version", "1"),
                ],
            ),
            (
                "unknown key",
                vec![
                    ("X-Api-Key", "lk_unknown"),
                    ("X-Api-Secret", s),
                    ("X-Api-Version", "1"),
                ],
            ),
            // Sent twice, neither is trusted, whichever comes first.
            (
                "a valid and an invalid key",
                vec![
                    ("X-Api-Key", k),
                    ("X-Api-Key", "lk_unknown"),
                    ("X-Api-Secret", s),
                    ("X-Api-Version", "1"),
                ],
            ),
            (
                "the secret twice",
                vec![
                    ("X-Api-Key", k),
                    ("X-Api-Secret", s),
                    ("X-Api-Secret", s),
                    ("X-Api-Version", "1"),
                ],
            ),
            (
                "versions 1 and 2",
                vec![
                    ("X-Api-Key", k),
                    ("X-Api-Secret", s),
                    ("X-Api-Version", "1"),
                    ("X-Api-Version", "2"),
                ],
            ),
            (
                "secret of another key",
                vec![
                    ("X-Api-Key", k),
                    ("X-Api-Secret", other.secret.as_str()),
                    ("X-Api-Version", "1"),
                ],
            ),
            (
                "version 2",
                vec![
                    ("X-Api-Key", k),
                    ("X-Api-Secret", s),
                    ("X-Api-Version", "2"),
                ],
            ),
            (
                "version 1.0",
                vec![
                    ("X-Api-Key", k),
                    ("X-Api-Secret", s),
                    ("X-Api-Version", "1.0"),
                ],
            ),
            (
                "empty version",
                vec![("X-Api-Key", k), ("X-Api-Secret", s), ("X-Api-Version", "")],
            ),
        ];
        for (case, headers) in cases {
            let (status, body) = check_with(&server, &headers).await;
            assert_eq!((status, body.as_str()), (403, FORBIDDEN), "case: {case}");
        }
        // The same headers, all correct, pass: the failures above are real.
        let (status, _) = check_with(
            &server,
            &[
                ("X-Api-Key", k),
                ("X-Api-Secret", s),
                ("X-Api-Version", "1"),
            ],
        )
        .await;
        assert_eq!(status, 200);
    }

    #[tokio::test]
    async fn a_disabled_key_is_refused_until_enabled_again() {
        let server = TestServer::start().await;
        let back_office = server.back_office().await;
        let created = back_office
            .create_key(NewKey {
                company: "demo".into(),
                description: "till 4".into(),
                enabled: true,
            })
            .await
            .expect("key created");
        assert_eq!(server.get_as("/check", &created).await.0, 200);

        let disabled = back_office
            .set_key_enabled(&created.key.key, false)
            .await
            .expect("disabled");
        assert!(!disabled.enabled);
        let (status, body) = server.get_as("/check", &created).await;
        assert_eq!((status, body.to_string().as_str()), (403, FORBIDDEN));

        // The record is kept while disabled.
        let keys = back_office.keys(Some("demo")).await.expect("listed");
        assert!(keys.iter().any(|k| k.key == created.key.key && !k.enabled));

        back_office
            .set_key_enabled(&created.key.key, true)
            .await
            .expect("enabled");
        assert_eq!(server.get_as("/check", &created).await.0, 200);
    }

    #[tokio::test]
    async fn a_key_created_disabled_grants_nothing() {
        let server = TestServer::start().await;
        let created = server
            .back_office()
            .await
            .create_key(NewKey {
                company: "demo".into(),
                description: "not yet".into(),
                enabled: false,
            })
            .await
            .expect("key created");
        assert_eq!(server.get_as("/check", &created).await.0, 403);
    }

    #[tokio::test]
    async fn keys_act_only_for_their_own_company() {
        let server = TestServer::start().await;
        let back_office = server.back_office().await;
        back_office
            .create_company(NewCompany {
                slug: "acme".into(),
                environment: Environment::Production,
                language: Some("es".into()),
                languages: vec!["en".into()],
                rate_limits: None,
                currency: None,
                minor_units: None,
                time_zone: None,
            })
            .await
            .expect("company created");
        let acme = back_office
            .create_key(NewKey {
                company: "acme".into(),
                description: "acme POS".into(),
                enabled: true,
            })
            .await
            .expect("key created");
        let (status, body) = server.get_as("/check", &acme).await;
        assert_eq!(status, 200);
        assert_eq!(body["company"], "acme");
        assert_eq!(body["environment"], "production");
        let (_, demo) = server.get_as("/check", &server.bootstrap_key()).await;
        assert_eq!(demo["company"], "demo");
    }

    #[tokio::test]
    async fn a_production_deployment_refuses_sandbox_keys_and_the_reverse() {
        let mut settings = ServerSettings::for_store("mem://", OPERATOR_TOKEN);
        settings.serve_environment = Some(Environment::Production);
        let production = TestServer::start_with(settings).await;
        let back_office = production.back_office().await;
        back_office
            .create_company(NewCompany {
                slug: "acme".into(),
                environment: Environment::Production,
                language: None,
                languages: vec![],
                rate_limits: None,
                currency: None,
                minor_units: None,
                time_zone: None,
            })
            .await
            .expect("company created");
        let acme = back_office
            .create_key(NewKey {
                company: "acme".into(),
                description: "acme".into(),
                enabled: true,
            })
            .await
            .expect("key created");
        let sandbox_key = production.bootstrap_key();
        let (status, body) = production.get_as("/check", &sandbox_key).await;
        assert_eq!((status, body.to_string().as_str()), (403, FORBIDDEN));
        assert_eq!(production.get_as("/check", &acme).await.0, 200);

        let mut settings = ServerSettings::for_store("mem://", OPERATOR_TOKEN);
        settings.serve_environment = Some(Environment::Sandbox);
        let sandbox = TestServer::start_with(settings).await;
        assert_eq!(
            sandbox.get_as("/check", &sandbox.bootstrap_key()).await.0,
            200
        );
    }

    #[tokio::test]
    async fn many_concurrent_checks_all_authenticate() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let mut requests = Vec::new();
        for _ in 0..40 {
            let request = server.request_as("GET", "/check", &key);
            requests.push(request);
        }
        let mut answered = 0;
        for (status, body) in all_at_once(requests).await {
            assert_eq!(status, 200, "{body}");
            answered += 1;
        }
        assert_eq!(answered, 40);
    }
}

mod error_bodies {
    use super::*;

    fn assert_error_shape(status: u16, body: &Value, expected_status: u16, expected_code: &str) {
        assert_eq!(status, expected_status, "{body}");
        assert_eq!(body["code"], expected_code, "{body}");
        assert!(
            body["error"].as_str().is_some_and(|m| !m.is_empty()),
            "error message missing: {body}"
        );
        assert_eq!(body.as_object().map(|o| o.len()), Some(2), "{body}");
    }

    #[tokio::test]
    async fn a_path_value_of_the_wrong_form_is_refused_in_the_apis_words() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let (status, body) = server.call_as("GET", "/games/abc", &key, None).await;
        assert_error_shape(status, &body, 400, "invalid_request");
        let said = body["error"].as_str().unwrap();
        assert_eq!(
            said,
            "GET /games/abc: the identifier in the path is a whole number"
        );
        assert!(!said.contains("param0"), "{body}");
    }

    /// Sends `raw` on a connection of its own and reads until the server
    /// closes it.
    async fn raw_exchange(server: &TestServer, raw: Vec<u8>) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut stream = tokio::net::TcpStream::connect(server.api_addr())
            .await
            .expect("connect");
        // The server may answer and close before reading everything sent.
        let _ = stream.write_all(&raw).await;
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer).await;
        String::from_utf8(answer).expect("an ASCII and JSON answer")
    }

    #[tokio::test]
    async fn requests_the_http_parser_refuses_get_the_error_body() {
        let server = TestServer::start().await;
        let head = |extra: &[u8]| {
            [
                b"GET /customers HTTP/1.1\r\nHost: loyalty\r\n".as_slice(),
                extra,
                b"\r\n",
            ]
            .concat()
        };
        let many_headers: Vec<u8> = (0..2_000)
            .flat_map(|n| format!("X-Header-{n}: value\r\n").into_bytes())
            .collect();
        let huge_header = [b"X-Big: ".as_slice(), &vec![b'a'; 1 << 20], b"\r\n"].concat();
        let long_url = format!(
            "GET /{} HTTP/1.1\r\nHost: loyalty\r\n\r\n",
            "a".repeat(100_000)
        );
        let cases = [
            (
                "bare CR",
                head(b"X-Bad: a\rb\r\n"),
                400,
                "malformed_request",
            ),
            ("NUL", head(b"X-Bad: a\x00b\r\n"), 400, "malformed_request"),
            (
                "2,000 headers",
                head(&many_headers),
                431,
                "headers_too_large",
            ),
            (
                "1 MiB of headers",
                head(&huge_header),
                431,
                "headers_too_large",
            ),
            ("100 KB URL", long_url.into_bytes(), 414, "url_too_long"),
        ];
        for (what, raw, status, code) in cases {
            let answer = raw_exchange(&server, raw).await;
            let (head, body) = answer.split_once("\r\n\r\n").expect(what);
            assert!(
                head.starts_with(&format!("HTTP/1.1 {status} ")),
                "{what}: {head}"
            );
            assert!(
                head.contains("content-type: application/json; charset=utf-8"),
                "{what}: {head}"
            );
            assert!(
                head.contains(&format!("content-length: {}", body.len())),
                "{what}: {head}"
            );
            let body: Value = serde_json::from_str(body).expect(what);
            assert_error_shape(status, &body, status, code);
        }

        // A well-formed request answered first, then a malformed one on the
        // same connection: each answer in its own shape.
        let mut pipelined = head(b"");
        pipelined.extend_from_slice(b"NOT HTTP AT ALL\r\n\r\n");
        let answer = raw_exchange(&server, pipelined).await;
        let (first, second) = answer.split_once("HTTP/1.1 400 ").expect("two answers");
        assert!(first.starts_with("HTTP/1.1 403 "), "{answer}");
        assert!(first.ends_with(r#"{"message":"Forbidden"}"#), "{answer}");
        let body: Value =
            serde_json::from_str(second.split_once("\r\n\r\n").expect("a body").1).expect("JSON");
        assert_error_shape(400, &body, 400, "malformed_request");
    }

    #[tokio::test]
    async fn unknown_routes_answer_404_json() {
        let server = TestServer::start().await;
        let (status, body) = server
            .send(server.http.get(server.url("/no/such/path")))
            .await;
        assert_error_shape(status, &body, 404, "route_not_found");
        assert!(body["error"].as_str().unwrap().contains("/no/such/path"));
    }

    #[tokio::test]
    async fn wrong_methods_answer_405_json() {
        let server = TestServer::start().await;
        let (status, body) = server.send(server.http.delete(server.url("/check"))).await;
        assert_error_shape(status, &body, 405, "method_not_allowed");
    }

    #[tokio::test]
    async fn every_json_error_says_its_charset() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let answers = [
            server
                .http
                .get(server.url("/nowhere"))
                .send()
                .await
                .unwrap(),
            server
                .http
                .delete(server.url("/check"))
                .send()
                .await
                .unwrap(),
            server.http.get(server.url("/check")).send().await.unwrap(),
            server
                .request_as("GET", "/customers/nobody", &key)
                .send()
                .await
                .unwrap(),
            server
                .http
                .get(format!("{}/api/companies", server.admin_url()))
                .send()
                .await
                .unwrap(),
        ];
        for answer in answers {
            assert!(answer.status().is_client_error());
            assert_eq!(
                answer
                    .headers()
                    .get("content-type")
                    .and_then(|v| v.to_str().ok()),
                Some("application/json; charset=utf-8"),
                "{}",
                answer.url()
            );
        }
    }

    #[tokio::test]
    async fn a_405_says_which_methods_the_path_takes() {
        let server = TestServer::start().await;
        for (method, path, allow) in [
            ("DELETE", "/check", "GET"),
            ("PUT", "/customers/cus_1", "DELETE, GET, PATCH"),
            ("GET", "/customers/search", "POST"),
        ] {
            let response = server
                .http
                .request(method.parse().unwrap(), server.url(path))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status().as_u16(), 405, "{method} {path}");
            assert_eq!(
                response
                    .headers()
                    .get("allow")
                    .and_then(|v| v.to_str().ok()),
                Some(allow),
                "{method} {path}"
            );
        }
    }

    #[tokio::test]
    async fn oversized_bodies_answer_413_json_whether_announced_or_streamed() {
        let mut settings = ServerSettings::for_store("mem://", OPERATOR_TOKEN);
        settings.api_options.max_body_bytes = 1024;
        let server = TestServer::start_with(settings).await;
        let big = vec![b'x'; 4096];
        let (status, body) = server
            .send(
                server
                    .http
                    .post(server.url("/check"))
                    .header("content-type", "application/json")
                    .body(big.clone()),
            )
            .await;
        assert_error_shape(status, &body, 413, "payload_too_large");

        let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
            vec![Ok(big[..2048].to_vec()), Ok(big[2048..].to_vec())];
        let stream = reqwest::Body::wrap_stream(futures_stream(chunks));
        let (status, body) = server
            .send(server.http.post(server.url("/check")).body(stream))
            .await;
        assert_error_shape(status, &body, 413, "payload_too_large");
    }

    /// A body stream without a Content-Length header.
    fn futures_stream(
        chunks: Vec<Result<Vec<u8>, std::io::Error>>,
    ) -> impl futures_core::Stream<Item = Result<Vec<u8>, std::io::Error>> + Send + Sync + 'static
    {
        tokio_stream::iter(chunks)
    }

    #[tokio::test]
    async fn malformed_json_answers_400_json() {
        let server = TestServer::start().await;
        let request = server
            .http
            .post(format!("{}/api/keys", server.admin_url()))
            .bearer_auth(OPERATOR_TOKEN)
            .header("content-type", "application/json")
            .body("{\"company\": \"demo\", ");
        let (status, body) = server.send(request).await;
        assert_error_shape(status, &body, 400, "invalid_request");
    }

    #[tokio::test]
    async fn invalid_fields_answer_400_json_and_change_nothing() {
        let server = TestServer::start().await;
        let request = server
            .http
            .post(format!("{}/api/keys", server.admin_url()))
            .bearer_auth(OPERATOR_TOKEN)
            .json(&json!({"company": "demo", "description": "   "}));
        let (status, body) = server.send(request).await;
        assert_error_shape(status, &body, 400, "invalid_request");
        let keys = server.back_office().await.keys(None).await.expect("listed");
        assert_eq!(keys.len(), 1, "only the bootstrap key exists");
    }

    #[tokio::test]
    async fn wrong_content_types_answer_415_json() {
        let server = TestServer::start().await;
        let request = server
            .http
            .post(format!("{}/api/keys", server.admin_url()))
            .bearer_auth(OPERATOR_TOKEN)
            .header("content-type", "text/plain")
            .body("company=demo");
        let (status, body) = server.send(request).await;
        assert_error_shape(status, &body, 415, "unsupported_media_type");
    }

    #[tokio::test]
    async fn a_wrong_operator_token_answers_401_json() {
        let server = TestServer::start().await;
        let request = server
            .http
            .get(format!("{}/api/keys", server.admin_url()))
            .bearer_auth("not-the-token");
        let (status, body) = server.send(request).await;
        assert_error_shape(status, &body, 401, "operator_unauthorized");
        let (status, body) = server
            .send(server.http.get(format!("{}/api/keys", server.admin_url())))
            .await;
        assert_error_shape(status, &body, 401, "operator_unauthorized");
    }

    #[tokio::test]
    async fn error_bodies_snapshot() {
        let server = TestServer::start().await;
        let (_, not_found) = server.send(server.http.get(server.url("/nope"))).await;
        let (_, not_allowed) = server.send(server.http.put(server.url("/check"))).await;
        let (_, forbidden) = server.send(server.http.get(server.url("/check"))).await;
        insta::assert_json_snapshot!(json!({
            "unknown route": not_found,
            "wrong method": not_allowed,
            "no credentials": forbidden,
        }));
    }
}

mod openapi {
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
            spec["paths"]["/points"]["post"]["requestBody"]["content"]["application/json"]["schema"]
                ["$ref"],
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
}

mod back_office_cli {
    use super::*;

    /// The key printed by `keys create --json`, as the tests' helpers take it.
    fn created_key(created: &Value) -> loyalty::resources::companies::model::CreatedApiKey {
        serde_json::from_value(created.clone()).expect("a created key")
    }

    /// Runs the real `loyalty` binary with `args`; returns exit success, stdout, stderr.
    async fn loyalty(args: &[&str]) -> (bool, String, String) {
        let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_loyalty"))
            .args(args)
            .env_remove("LOYALTY_ADMIN_TOKEN")
            .env_remove("LOYALTY_ADMIN_URL")
            .env_remove("LOYALTY_DB")
            .output()
            .await
            .expect("binary runs");
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    /// Runs an operator command against `server` and parses its `--json` output.
    async fn operator_json(server: &TestServer, args: &[&str]) -> Value {
        let admin_url = server.admin_url();
        let mut full: Vec<&str> = args.to_vec();
        full.extend([
            "--admin-url",
            &admin_url,
            "--admin-token",
            OPERATOR_TOKEN,
            "--json",
        ]);
        let (ok, stdout, stderr) = loyalty(&full).await;
        assert!(ok, "loyalty {args:?} failed: {stderr}");
        assert_eq!(
            stdout.lines().count(),
            1,
            "--json prints one object: {stdout}"
        );
        serde_json::from_str(&stdout).expect("stdout is JSON")
    }

    #[tokio::test]
    async fn operators_manage_companies_and_keys_while_the_server_runs() {
        let server = TestServer::start().await;

        let company = operator_json(
            &server,
            &[
                "companies",
                "create",
                "acme",
                "--environment",
                "production",
                "--language",
                "es",
                "--languages",
                "es,en",
            ],
        )
        .await;
        assert_eq!(company["slug"], "acme");
        assert_eq!(company["default_language"], "es");
        assert_eq!(company["languages"], json!(["es", "en"]));
        let companies = operator_json(&server, &["companies", "list"]).await;
        let slugs: Vec<&str> = companies["companies"]
            .as_array()
            .expect("list")
            .iter()
            .filter_map(|c| c["slug"].as_str())
            .collect();
        assert_eq!(slugs, ["acme", "demo"]);

        let created = operator_json(
            &server,
            &[
                "keys",
                "create",
                "--company",
                "acme",
                "--description",
                "POS store 12",
            ],
        )
        .await;
        let key = created["key"].as_str().expect("key").to_string();
        let secret = created["secret"].as_str().expect("secret").to_string();
        assert_eq!(created["enabled"], true);
        assert_eq!(created["system"], false);
        let check = |expected: u16| {
            let request = server
                .http
                .get(server.url("/check"))
                .header("X-Api-Key", &key)
                .header("X-Api-Secret", &secret)
                .header("X-Api-Version", "1");
            async move {
                let status = request.send().await.expect("sent").status().as_u16();
                assert_eq!(status, expected);
            }
        };
        check(200).await;

        let listed = operator_json(&server, &["keys", "list", "--company", "acme"]).await;
        let keys = listed["keys"].as_array().expect("keys");
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0]["key"], key.as_str());
        assert!(keys[0].get("secret").is_none(), "secrets are never listed");
        assert!(
            keys[0].get("secret_digest").is_none(),
            "digests are never listed"
        );
        assert!(!listed.to_string().contains(&secret));

        let disabled = operator_json(&server, &["keys", "disable", &key]).await;
        assert_eq!(disabled["enabled"], false);
        check(403).await;
        let enabled = operator_json(&server, &["keys", "enable", &key]).await;
        assert_eq!(enabled["enabled"], true);
        check(200).await;

        let limited = operator_json(
            &server,
            &[
                "companies",
                "limits",
                "acme",
                "--critical",
                "120",
                "--moderate",
                "50",
                "--low",
                "20",
            ],
        )
        .await;
        assert_eq!(
            limited["rate_limits"],
            json!({"critical": 120, "moderate": 50, "low": 20})
        );
        let response = server
            .request_as("GET", "/check", &created_key(&created))
            .send()
            .await
            .expect("sent");
        assert_eq!(
            response
                .headers()
                .get("ratelimit-policy")
                .and_then(|v| v.to_str().ok()),
            Some("\"tier2\";q=50;w=1"),
            "the new limit applies to the next request"
        );

        let disabled_from_start = operator_json(
            &server,
            &[
                "keys",
                "create",
                "--company",
                "acme",
                "--description",
                "later",
                "--disabled",
            ],
        )
        .await;
        assert_eq!(disabled_from_start["enabled"], false);
    }

    #[tokio::test]
    async fn system_keys_cannot_be_edited() {
        let server = TestServer::start().await;
        let system_key = server.bootstrap_key().key.key;
        let admin_url = server.admin_url();
        for action in ["disable", "enable"] {
            let (ok, stdout, stderr) = loyalty(&[
                "keys",
                action,
                &system_key,
                "--admin-url",
                &admin_url,
                "--admin-token",
                OPERATOR_TOKEN,
            ])
            .await;
            assert!(!ok, "{action} of a system key must fail");
            assert!(stdout.is_empty());
            assert!(stderr.contains("system key"), "clear message: {stderr}");
            assert!(stderr.contains("system_key_not_editable"), "{stderr}");
        }
        let listed = operator_json(&server, &["keys", "list"]).await;
        assert_eq!(listed["keys"][0]["system"], true);
        assert_eq!(
            listed["keys"][0]["enabled"], true,
            "the system key is unchanged"
        );
        assert_eq!(
            server.get_as("/check", &server.bootstrap_key()).await.0,
            200
        );
    }

    #[tokio::test]
    async fn a_companys_currency_and_time_zone_are_set_and_changed() {
        let server = TestServer::start().await;
        let created = operator_json(
            &server,
            &[
                "companies",
                "create",
                "madrid",
                "--environment",
                "sandbox",
                "--time-zone",
                "Europe/Madrid",
            ],
        )
        .await;
        assert_eq!(created["currency"], "EUR");
        assert_eq!(created["minor_units"], 2);
        assert_eq!(created["time_zone"], "Europe/Madrid");

        // A new currency brings its minor unit, unless one is given.
        let yen = operator_json(
            &server,
            &["companies", "update", "madrid", "--currency", "JPY"],
        )
        .await;
        assert_eq!(
            (yen["currency"].clone(), yen["minor_units"].clone()),
            (json!("JPY"), json!(0))
        );
        assert_eq!(yen["time_zone"], "Europe/Madrid", "what is not given stays");
        let moved = operator_json(
            &server,
            &[
                "companies",
                "update",
                "madrid",
                "--time-zone",
                "Atlantic/Canary",
                "--minor-units",
                "1",
            ],
        )
        .await;
        assert_eq!(moved["time_zone"], "Atlantic/Canary");
        assert_eq!(moved["minor_units"], 1);
        assert_eq!(moved["currency"], "JPY");

        let demo = &operator_json(&server, &["companies", "list"]).await["companies"][0];
        assert_eq!(
            (demo["currency"].clone(), demo["time_zone"].clone()),
            (json!("EUR"), json!("UTC"))
        );
    }

    #[tokio::test]
    async fn bad_operator_input_fails_clearly_and_changes_nothing() {
        let server = TestServer::start().await;
        let admin_url = server.admin_url();
        let remote = [
            "--admin-url",
            admin_url.as_str(),
            "--admin-token",
            OPERATOR_TOKEN,
        ];
        let attempts: Vec<(Vec<&str>, &str)> = vec![
            (
                vec!["keys", "create", "--company", "nope", "--description", "x"],
                "company_not_found",
            ),
            (vec!["keys", "disable", "lk_nope"], "api_key_not_found"),
            (
                vec!["companies", "create", "demo", "--environment", "sandbox"],
                "company_already_exists",
            ),
            (
                vec![
                    "companies",
                    "create",
                    "bad slug",
                    "--environment",
                    "sandbox",
                ],
                "invalid_request",
            ),
            (
                vec![
                    "companies",
                    "create",
                    "x",
                    "--environment",
                    "sandbox",
                    "--language",
                    "Spanish",
                ],
                "invalid_request",
            ),
            (
                vec![
                    "companies",
                    "create",
                    "x",
                    "--environment",
                    "sandbox",
                    "--time-zone",
                    "Mars/Olympus",
                ],
                "invalid_request",
            ),
            (
                vec![
                    "companies",
                    "create",
                    "x",
                    "--environment",
                    "sandbox",
                    "--currency",
                    "euro",
                ],
                "invalid_request",
            ),
            (
                vec!["companies", "update", "demo", "--minor-units", "9"],
                "invalid_request",
            ),
            (
                vec!["companies", "update", "nope", "--time-zone", "UTC"],
                "company_not_found",
            ),
        ];
        for (args, code) in attempts {
            let mut full = args.clone();
            full.extend(remote);
            let (ok, _, stderr) = loyalty(&full).await;
            assert!(!ok, "{args:?} must fail");
            assert!(stderr.contains(code), "{args:?}: {stderr}");
        }
        let (ok, _, stderr) = loyalty(&[
            "keys",
            "list",
            "--admin-url",
            &admin_url,
            "--admin-token",
            "wrong",
        ])
        .await;
        assert!(!ok);
        assert!(stderr.contains("operator_unauthorized"), "{stderr}");

        let companies = operator_json(&server, &["companies", "list"]).await;
        assert_eq!(companies["companies"].as_array().map(Vec::len), Some(1));
        let keys = operator_json(&server, &["keys", "list"]).await;
        assert_eq!(keys["keys"].as_array().map(Vec::len), Some(1));
    }

    #[tokio::test]
    async fn without_a_server_the_commands_open_the_store_directly() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = format!("surrealkv://{}", dir.path().join("store").display());
        // Nothing listens on this port: bind and drop to find a free one.
        let free = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let admin_url = format!("http://{}", free.local_addr().expect("addr"));
        drop(free);
        let offline = [
            "--db",
            db.as_str(),
            "--admin-url",
            admin_url.as_str(),
            "--json",
        ];

        let mut create_company = vec!["companies", "create", "shop", "--environment", "sandbox"];
        create_company.extend(offline);
        let (ok, _, stderr) = loyalty(&create_company).await;
        assert!(ok, "{stderr}");
        let mut create_key = vec![
            "keys",
            "create",
            "--company",
            "shop",
            "--description",
            "batch",
        ];
        create_key.extend(offline);
        let (ok, stdout, stderr) = loyalty(&create_key).await;
        assert!(ok, "{stderr}");
        let created: Value = serde_json::from_str(&stdout).expect("json");

        // The server then starts on that store and accepts the key.
        let server = TestServer::start_with(ServerSettings::for_store(&db, OPERATOR_TOKEN)).await;
        assert!(
            server.running.bootstrap.is_none(),
            "the store already had a Company"
        );
        let request = server
            .http
            .get(server.url("/check"))
            .header("X-Api-Key", created["key"].as_str().expect("key"))
            .header("X-Api-Secret", created["secret"].as_str().expect("secret"))
            .header("X-Api-Version", "1");
        let (status, body) = server.send(request).await;
        assert_eq!(status, 200);
        assert_eq!(body["company"], "shop");
        server.running.shutdown().await.expect("shutdown");
    }
}

mod durability {
    use super::*;

    #[tokio::test]
    async fn keys_survive_a_restart_on_the_same_store() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = format!("surrealkv://{}", dir.path().join("store").display());

        let first = TestServer::start_with(ServerSettings::for_store(&db, OPERATOR_TOKEN)).await;
        let bootstrap = first.bootstrap_key();
        let created = first
            .back_office()
            .await
            .create_key(NewKey {
                company: "demo".into(),
                description: "before restart".into(),
                enabled: true,
            })
            .await
            .expect("key created");
        assert_eq!(first.get_as("/check", &created).await.0, 200);
        first.running.services.record_key_uses().await;
        first.running.shutdown().await.expect("first shutdown");
        // A clean stop closed the store: nothing is left in its write-ahead
        // log for the next start to replay (storage/fresh_log.rs).
        let log = dir.path().join("store").join("wal");
        let unflushed: Vec<_> = std::fs::read_dir(&log)
            .expect("the store's log")
            .flatten()
            .filter(|segment| segment.metadata().map_or(true, |meta| meta.len() > 0))
            .map(|segment| segment.path())
            .collect();
        assert!(unflushed.is_empty(), "left to replay: {unflushed:?}");

        let second = TestServer::start_with(ServerSettings::for_store(&db, OPERATOR_TOKEN)).await;
        assert!(
            second.running.bootstrap.is_none(),
            "bootstrap runs only once"
        );
        // Read before this process sees the key used: what the store holds.
        let stored = second.running.services.keys(Some("demo")).await.unwrap();
        let used = stored
            .iter()
            .find(|k| k.key == created.key.key)
            .expect("listed");
        assert!(
            used.last_used_at.is_some(),
            "the use was recorded: {used:?}"
        );
        assert_eq!(second.get_as("/check", &created).await.0, 200);
        assert_eq!(second.get_as("/check", &bootstrap).await.0, 200);
        let keys = second
            .back_office()
            .await
            .keys(Some("demo"))
            .await
            .expect("listed");
        assert_eq!(keys.len(), 2);
        second.running.shutdown().await.expect("second shutdown");

        // Only digests were written: no file of the store holds a secret.
        for entry in walk(dir.path()) {
            let bytes = std::fs::read(&entry).expect("readable");
            for secret in [&created.secret, &bootstrap.secret] {
                assert!(
                    !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                    "{} contains a secret",
                    entry.display()
                );
            }
        }
    }

    fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).expect("readable dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                files.extend(walk(&path));
            } else {
                files.push(path);
            }
        }
        files
    }
}

mod logging {
    use super::*;
    use std::io::Write;
    use std::sync::{Arc, Mutex, OnceLock};

    /// Every log line of this test binary, captured at trace level.
    fn captured_logs() -> Arc<Mutex<Vec<u8>>> {
        static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
        LOGS.get_or_init(|| {
            let logs = Arc::new(Mutex::new(Vec::new()));
            let sink = logs.clone();
            let subscriber = tracing_subscriber::fmt()
                .with_env_filter("trace")
                .with_writer(move || CaptureWriter(sink.clone()))
                .finish();
            tracing::subscriber::set_global_default(subscriber).expect("first subscriber");
            logs
        })
        .clone()
    }

    struct CaptureWriter(Arc<Mutex<Vec<u8>>>);

    impl Write for CaptureWriter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("log buffer").extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn secrets_never_reach_the_logs() {
        let logs = captured_logs();
        let server = TestServer::start().await;
        let created = server
            .back_office()
            .await
            .create_key(NewKey {
                company: "demo".into(),
                description: "logged?".into(),
                enabled: true,
            })
            .await
            .expect("key created");
        assert_eq!(server.get_as("/check", &created).await.0, 200);
        let (status, _) = check_with(
            &server,
            &[
                ("X-Api-Key", created.key.key.as_str()),
                ("X-Api-Secret", "ls_guess"),
                ("X-Api-Version", "1"),
            ],
        )
        .await;
        assert_eq!(status, 403);

        let text = String::from_utf8(logs.lock().expect("log buffer").clone()).expect("utf-8");
        assert!(
            text.contains(&created.key.key),
            "the key value is logged at creation"
        );
        for secret in [
            created.secret.as_str(),
            server.bootstrap_key().secret.as_str(),
            "ls_guess",
            OPERATOR_TOKEN,
        ] {
            assert!(!text.contains(secret), "a secret reached the logs");
        }
    }
}

mod rate_limits {
    use super::*;
    use loyalty::resources::companies::model::CreatedApiKey;
    use loyalty::resources::companies::model::RateLimits;

    const SMALL: RateLimits = RateLimits {
        critical: 5,
        moderate: 3,
        low: 2,
    };

    /// Fires `count` GET /check (tier 2) at once; returns (status, headers, body) of each.
    async fn burst(
        server: &TestServer,
        key: &CreatedApiKey,
        count: usize,
    ) -> Vec<(u16, reqwest::header::HeaderMap, Value)> {
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..count {
            let request = server.request_as("GET", "/check", key);
            tasks.spawn(async move {
                let response = request.send().await.expect("sent");
                let headers = response.headers().clone();
                let (status, body) = read(response).await;
                (status, headers, body)
            });
        }
        let mut answers = Vec::new();
        while let Some(answer) = tasks.join_next().await {
            answers.push(answer.expect("task"));
        }
        answers
    }

    fn header<'h>(headers: &'h reqwest::header::HeaderMap, name: &str) -> &'h str {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }

    #[tokio::test]
    async fn a_burst_over_the_tier_limit_gets_honest_429s() {
        let server = TestServer::start().await;
        let key = server.company_with_limits("small", Some(SMALL)).await;
        let answers = burst(&server, &key, 20).await;
        let admitted = answers
            .iter()
            .filter(|(status, _, _)| *status == 200)
            .count();
        let refused: Vec<_> = answers
            .iter()
            .filter(|(status, _, _)| *status == 429)
            .collect();
        assert!(admitted >= 3, "the burst allowance is served: {admitted}");
        assert!(!refused.is_empty(), "20 at once exceed 3 per second");
        assert_eq!(admitted + refused.len(), 20);
        let mut longest_wait = 0;
        for (_, headers, body) in &refused {
            assert_eq!(body["code"], "rate_limited", "{body}");
            assert!(body["error"].as_str().is_some_and(|m| m.contains("tier2")));
            let retry_after: u64 = header(headers, "retry-after")
                .parse()
                .expect("Retry-After in whole seconds");
            assert!(retry_after >= 1);
            longest_wait = longest_wait.max(retry_after);
            assert_eq!(header(headers, "ratelimit-policy"), "\"tier2\";q=3;w=1");
        }
        for (status, headers, _) in &answers {
            if *status == 200 {
                assert_eq!(header(headers, "ratelimit-policy"), "\"tier2\";q=3;w=1");
                assert!(header(headers, "ratelimit").starts_with("\"tier2\";r="));
            }
        }
        // Honest: after waiting what Retry-After said, the call succeeds.
        tokio::time::sleep(std::time::Duration::from_secs(longest_wait)).await;
        assert_eq!(server.get_as("/check", &key).await.0, 200);
    }

    #[tokio::test]
    async fn companies_do_not_share_quota_and_tiers_are_separate() {
        let server = TestServer::start().await;
        let busy = server.company_with_limits("busy", Some(SMALL)).await;
        let quiet = server.company_with_limits("quiet", Some(SMALL)).await;
        let answers = burst(&server, &busy, 12).await;
        assert!(answers.iter().any(|(status, _, _)| *status == 429));
        assert_eq!(
            server.get_as("/check", &quiet).await.0,
            200,
            "another Company is unaffected"
        );
        // Tier 1 of the busy Company still has its own allowance.
        let (status, body) = server
            .call_as(
                "POST",
                "/customers",
                &busy,
                Some(json!({"email": "x@example.com"})),
            )
            .await;
        assert_eq!(status, 200, "{body}");
    }

    #[tokio::test]
    async fn unauthenticated_requests_never_spend_a_companys_quota() {
        let server = TestServer::start().await;
        let key = server.company_with_limits("guarded", Some(SMALL)).await;
        for _ in 0..30 {
            let (status, _) = check_with(
                &server,
                &[
                    ("X-Api-Key", key.key.key.as_str()),
                    ("X-Api-Secret", "ls_wrong"),
                    ("X-Api-Version", "1"),
                ],
            )
            .await;
            assert_eq!(status, 403);
        }
        let answers = burst(&server, &key, 3).await;
        assert!(
            answers.iter().all(|(status, _, _)| *status == 200),
            "the full allowance is left"
        );
    }

    #[tokio::test]
    async fn limits_are_configurable_per_company() {
        let server = TestServer::start().await;
        let key = server.company_with_key("tuned").await;
        let response = server
            .request_as("GET", "/check", &key)
            .send()
            .await
            .unwrap();
        assert_eq!(
            header(response.headers(), "ratelimit-policy"),
            "\"tier2\";q=25;w=1",
            "the interface's default"
        );
        server
            .back_office()
            .await
            .set_rate_limits(
                "tuned",
                RateLimits {
                    critical: 100,
                    moderate: 40,
                    low: 15,
                },
            )
            .await
            .expect("limits set");
        let response = server
            .request_as("GET", "/check", &key)
            .send()
            .await
            .unwrap();
        assert_eq!(
            header(response.headers(), "ratelimit-policy"),
            "\"tier2\";q=40;w=1"
        );
        let (status, body) = server
            .send(
                server
                    .http
                    .post(format!(
                        "{}/api/companies/tuned/rate_limits",
                        server.admin_url()
                    ))
                    .bearer_auth(OPERATOR_TOKEN)
                    .json(&json!({"critical": 0, "moderate": 1, "low": 1})),
            )
            .await;
        assert_eq!(
            (status, body["code"].as_str()),
            (400, Some("invalid_request"))
        );
    }
}

mod idempotency {
    use super::*;
    use loyalty::common::time::Timestamp;
    use loyalty::resources::companies::model::CreatedApiKey;

    async fn post_with_key(
        server: &TestServer,
        key: &CreatedApiKey,
        path: &str,
        idempotency_key: &str,
        body: &Value,
    ) -> (u16, String, bool) {
        let response = server
            .request_as("POST", path, key)
            .header("Idempotency-Key", idempotency_key)
            .json(body)
            .send()
            .await
            .expect("sent");
        let status = response.status().as_u16();
        let replayed = response.headers().get("idempotent-replayed").is_some();
        (status, response.text().await.expect("body"), replayed)
    }

    async fn customer_count(server: &TestServer, company: &str) -> usize {
        server
            .running
            .services
            .store()
            .raw_documents("customer", company)
            .await
            .unwrap()
            .len()
    }

    #[tokio::test]
    async fn a_retry_writing_a_whole_number_as_1_0_is_the_same_request() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let first = json!({"email": "whole@example.com", "attributes": {"visits": 1}});
        let again = json!({"email": "whole@example.com", "attributes": {"visits": 1.0}});
        let (status, _, replayed) =
            post_with_key(&server, &key, "/customers", "whole-1", &first).await;
        assert_eq!((status, replayed), (200, false));
        let (status, body, replayed) =
            post_with_key(&server, &key, "/customers", "whole-1", &again).await;
        assert_eq!((status, replayed), (200, true), "{body}");
        // Another number is another request.
        let other = json!({"email": "whole@example.com", "attributes": {"visits": 1.5}});
        let (status, body, _) = post_with_key(&server, &key, "/customers", "whole-1", &other).await;
        assert_eq!(status, 422, "{body}");
    }

    #[tokio::test]
    async fn a_method_no_route_has_answers_405_with_or_without_a_key() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        for idempotency_key in [None, Some("trace-1")] {
            let mut request = server.request_as("TRACE", "/customers", &key);
            if let Some(idempotency_key) = idempotency_key {
                request = request.header("Idempotency-Key", idempotency_key);
            }
            let response = request.send().await.expect("sent");
            assert_eq!(response.status(), 405, "{idempotency_key:?}");
            let body: Value = response.json().await.expect("a JSON body");
            assert!(body["code"].is_string(), "{body}");
        }
        // A method routes have, with a key they never take: refused as before.
        let (status, body) = read(
            server
                .request_as("GET", "/customers/nobody", &key)
                .header("Idempotency-Key", "get-1")
                .send()
                .await
                .expect("sent"),
        )
        .await;
        assert_eq!(
            (status, body["code"].as_str()),
            (400, Some("invalid_request"))
        );
    }

    #[tokio::test]
    async fn a_replay_is_charged_to_its_tier_and_says_so() {
        let server = TestServer::start().await;
        let key = server
            .company_with_limits(
                "replays",
                Some(loyalty::resources::companies::model::RateLimits {
                    critical: 3,
                    moderate: 3,
                    low: 3,
                }),
            )
            .await;
        let body = json!({"email": "charged@example.com"});
        let send = || {
            server
                .request_as("POST", "/customers", &key)
                .header("Idempotency-Key", "charged-1")
                .json(&body)
                .send()
        };
        let first = send().await.unwrap();
        assert_eq!(first.status(), 200);
        let policy = first.headers()["ratelimit-policy"].clone();
        let mut remaining = Vec::new();
        let mut refused = 0;
        for _ in 0..4 {
            let replay = send().await.unwrap();
            if replay.status() == 429 {
                refused += 1;
                assert!(replay.headers().contains_key("retry-after"));
                continue;
            }
            assert_eq!(replay.headers()["idempotent-replayed"], "true");
            assert_eq!(replay.headers()["ratelimit-policy"], policy);
            remaining.push(replay.headers()["ratelimit"].to_str().unwrap().to_string());
        }
        assert!(!remaining.is_empty(), "a replay within the quota is served");
        assert!(
            refused > 0,
            "replays spend the quota like any request ({remaining:?})"
        );
    }

    #[tokio::test]
    async fn a_retry_replays_the_first_response_byte_for_byte_and_changes_nothing() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let body = json!({"email": "once@example.com"});
        let (status, first, replayed) =
            post_with_key(&server, &key, "/customers", "order-1", &body).await;
        assert_eq!((status, replayed), (200, false), "{first}");
        let (status, second, replayed) =
            post_with_key(&server, &key, "/customers", "order-1", &body).await;
        assert_eq!((status, replayed), (200, true));
        assert_eq!(second, first, "byte for byte");
        assert_eq!(customer_count(&server, "demo").await, 1);

        // A refusal is an answer too: it is replayed, not re-evaluated.
        let duplicate = json!({"email": "once@example.com", "first_name": "again"});
        let (status, refused, _) =
            post_with_key(&server, &key, "/customers", "order-2", &duplicate).await;
        assert_eq!(status, 409, "{refused}");
        server
            .call_as(
                "DELETE",
                "/customers/once@example.com?search_by=email&mode=delete",
                &key,
                None,
            )
            .await;
        let (status, again, replayed) =
            post_with_key(&server, &key, "/customers", "order-2", &duplicate).await;
        assert_eq!((status, again, replayed), (409, refused, true));
        assert_eq!(customer_count(&server, "demo").await, 0);
    }

    #[tokio::test]
    async fn the_same_parameters_written_differently_are_the_same_request() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let send = |body: &'static str, language: &'static str| {
            server
                .request_as("POST", "/customers", &key)
                .header("Idempotency-Key", "rewritten")
                .header("Content-Type", "application/json")
                .header("Accept-Language", language)
                .body(body)
                .send()
        };
        let first = send(r#"{"email":"same@example.com","first_name":"Ana"}"#, "en")
            .await
            .unwrap();
        assert_eq!(first.status().as_u16(), 200);
        let first_body = first.text().await.unwrap();
        // Other key order and whitespace, as a client library re-serialising
        // its retry may send: a replay, not a refusal.
        let retry = send(
            "{ \"first_name\" : \"Ana\",\n  \"email\": \"same@example.com\" }",
            "en",
        )
        .await
        .unwrap();
        assert_eq!(retry.status().as_u16(), 200);
        assert!(retry.headers().get("idempotent-replayed").is_some());
        assert_eq!(retry.text().await.unwrap(), first_body);
        // Another answer language is another request.
        let other = send(r#"{"email":"same@example.com","first_name":"Ana"}"#, "es")
            .await
            .unwrap();
        assert_eq!(other.status().as_u16(), 422);
        let refused: Value = other.json().await.unwrap();
        assert_eq!(refused["code"], "idempotency_key_reused", "{refused}");
        assert_eq!(customer_count(&server, "demo").await, 1);
    }

    #[tokio::test]
    async fn a_key_reused_with_other_parameters_is_refused() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        post_with_key(
            &server,
            &key,
            "/customers",
            "k-1",
            &json!({"email": "a@example.com"}),
        )
        .await;
        let (status, body, _) = post_with_key(
            &server,
            &key,
            "/customers",
            "k-1",
            &json!({"email": "b@example.com"}),
        )
        .await;
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            (status, body["code"].as_str()),
            (422, Some("idempotency_key_reused"))
        );
        let (status, body, _) = post_with_key(
            &server,
            &key,
            "/customers/search",
            "k-1",
            &json!({"email": "a@example.com"}),
        )
        .await;
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            (status, body["code"].as_str()),
            (422, Some("idempotency_key_reused")),
            "another endpoint"
        );
        assert_eq!(customer_count(&server, "demo").await, 1);
    }

    #[tokio::test]
    async fn the_header_is_refused_on_get_and_delete() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        for method in ["GET", "DELETE"] {
            let (status, body) = server
                .send(
                    server
                        .request_as(method, "/customers/cus_x", &key)
                        .header("Idempotency-Key", "k"),
                )
                .await;
            assert_eq!(
                (status, body["code"].as_str()),
                (400, Some("invalid_request")),
                "{method}"
            );
        }
        let (status, body) = server
            .send(
                server
                    .request_as("POST", "/customers", &key)
                    .header("Idempotency-Key", "x".repeat(300))
                    .json(&json!({})),
            )
            .await;
        assert_eq!(
            (status, body["code"].as_str()),
            (400, Some("invalid_request"))
        );
        assert_eq!(customer_count(&server, "demo").await, 0);
    }

    #[tokio::test]
    async fn concurrent_identical_requests_have_exactly_one_effect() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..12 {
            let request = server
                .request_as("POST", "/customers", &key)
                .header("Idempotency-Key", "till-7-receipt-99")
                .json(&json!({"first_name": "Concurrent"}));
            tasks.spawn(async move {
                let response = request.send().await.expect("sent");
                (
                    response.status().as_u16(),
                    response.text().await.expect("body"),
                )
            });
        }
        let mut created_bodies = Vec::new();
        while let Some(result) = tasks.join_next().await {
            let (status, body) = result.expect("task");
            match status {
                200 => created_bodies.push(body),
                409 => assert!(body.contains("idempotency_key_in_use"), "{body}"),
                other => panic!("unexpected {other}: {body}"),
            }
        }
        assert!(!created_bodies.is_empty());
        assert!(
            created_bodies.windows(2).all(|pair| pair[0] == pair[1]),
            "every 200 is the same Customer"
        );
        assert_eq!(
            customer_count(&server, "demo").await,
            1,
            "exactly one side effect"
        );
    }

    #[tokio::test]
    async fn keys_belong_to_one_company() {
        let server = TestServer::start().await;
        let demo = server.bootstrap_key();
        let acme = server.company_with_key("acme").await;
        let body = json!({"email": "shared@example.com"});
        let (status_a, _, _) = post_with_key(&server, &demo, "/customers", "same-key", &body).await;
        let (status_b, _, replayed) =
            post_with_key(&server, &acme, "/customers", "same-key", &body).await;
        assert_eq!((status_a, status_b, replayed), (200, 200, false));
        assert_eq!(customer_count(&server, "acme").await, 1);
    }

    #[tokio::test]
    async fn expired_keys_are_forgotten_and_purged() {
        let server = TestServer::start().await;
        let key = server.bootstrap_key();
        post_with_key(
            &server,
            &key,
            "/customers",
            "old-key",
            &json!({"email": "first@example.com"}),
        )
        .await;
        let store = server.running.services.store();
        assert_eq!(
            store
                .raw_documents("idempotency", "demo")
                .await
                .unwrap()
                .len(),
            1
        );
        let tomorrow = Timestamp::from(chrono::Utc::now() + chrono::Duration::hours(25));
        store.purge_idempotency_keys(tomorrow).await.unwrap();
        assert!(
            store
                .raw_documents("idempotency", "demo")
                .await
                .unwrap()
                .is_empty()
        );
        let (status, _, replayed) = post_with_key(
            &server,
            &key,
            "/customers",
            "old-key",
            &json!({"email": "second@example.com"}),
        )
        .await;
        assert_eq!(
            (status, replayed),
            (200, false),
            "a forgotten key is new again"
        );
    }

    #[tokio::test]
    async fn replays_survive_a_restart() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = format!("surrealkv://{}", dir.path().join("store").display());
        let first = TestServer::start_with(ServerSettings::for_store(&db, OPERATOR_TOKEN)).await;
        let key = first.bootstrap_key();
        let body = json!({"email": "durable@example.com"});
        let (status, original, _) =
            post_with_key(&first, &key, "/customers", "durable-1", &body).await;
        assert_eq!(status, 200);
        first.running.shutdown().await.expect("shutdown");

        let second = TestServer::start_with(ServerSettings::for_store(&db, OPERATOR_TOKEN)).await;
        let (status, replay, replayed) =
            post_with_key(&second, &key, "/customers", "durable-1", &body).await;
        assert_eq!((status, replayed), (200, true));
        assert_eq!(replay, original);
        assert_eq!(customer_count(&second, "demo").await, 1);
        second.running.shutdown().await.expect("shutdown");
    }

    #[tokio::test]
    async fn a_key_held_by_a_killed_server_is_free_as_soon_as_it_restarts() {
        use loyalty::http::idempotency::model::KeyClaim;
        let dir = tempfile::tempdir().expect("tempdir");
        let db = format!("surrealkv://{}", dir.path().join("store").display());
        let first = TestServer::start_with(ServerSettings::for_store(&db, OPERATOR_TOKEN)).await;
        let services = first.running.services.clone();
        let claim = |services: loyalty::services::Services| async move {
            services
                .claim_idempotency_key("demo", "till-3-sale-41", "same request")
                .await
                .expect("claim")
        };
        let (claimed, running) = claim(services.clone()).await;
        assert_eq!(claimed, KeyClaim::Run);
        assert_eq!(claim(services.clone()).await.0, KeyClaim::InUse);
        // The process is killed while it runs the request: it never retires
        // and its last renewal still looks alive (what a graceful stop
        // forgets, a kill leaves behind).
        let (killed, now) = (services.instance_id().to_string(), services.now());
        drop((services, running));
        first.running.shutdown().await.expect("shutdown");
        let store = loyalty::storage::Store::connect(&db, None)
            .await
            .expect("store");
        store.renew_instance(&killed, now).await.expect("renew");
        drop(store);

        let second = TestServer::start_with(ServerSettings::for_store(&db, OPERATOR_TOKEN)).await;
        assert_eq!(
            claim(second.running.services.clone()).await.0,
            KeyClaim::Run,
            "the retry runs at once, not 120 s later"
        );
        second.running.shutdown().await.expect("shutdown");
    }
}
