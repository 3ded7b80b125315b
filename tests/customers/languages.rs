//! Tiers and audiences in the language asked for.

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
