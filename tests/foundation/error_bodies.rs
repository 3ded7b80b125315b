//! Error bodies: every error in the documented shape, framework refusals
//! included, snapshotted.

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
) -> impl futures_core::Stream<Item = Result<Vec<u8>, std::io::Error>> + Send + Sync + 'static {
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
