//! The published spec carries every example and error example.

use super::*;

#[tokio::test]
async fn the_published_spec_carries_every_example_and_error_example() {
    let server = TestServer::start().await;
    let spec = server.spec().await;
    for example in loyalty::http::spec::examples::all() {
        let (method, path) = example.operation.split_once(' ').unwrap();
        let operation = &spec["paths"][path][method.to_ascii_lowercase()];
        assert!(
            operation.is_object(),
            "{} is not in the spec",
            example.operation
        );
        if example.request.is_some() {
            let sent = json_media(&operation["requestBody"]["content"])["example"].clone();
            assert!(
                sent.is_object(),
                "{}: no request example",
                example.operation
            );
        }
        if example.response.is_some() {
            let answered = json_media(&operation["responses"]["200"]["content"])["example"].clone();
            assert!(
                answered.is_object(),
                "{}: no answer example",
                example.operation
            );
        }
    }
    let refusals = json_media(
        &spec["paths"]["/vouchers/{code}"]["get"]["responses"]["422"]["content"],
    )["examples"]
        .clone();
    assert_eq!(
        refusals["voucher_expired"]["value"]["code"], "voucher_expired",
        "{refusals}"
    );
}

/// The JSON media type of an OpenAPI `content` object.
fn json_media(content: &Value) -> &Value {
    content
        .as_object()
        .and_then(|types| {
            types
                .iter()
                .find(|(media_type, _)| media_type.starts_with("application/json"))
        })
        .map_or(&Value::Null, |(_, media)| media)
}
