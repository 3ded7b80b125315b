//! The author e-mail header: who, at the Company, asked for an operation.
//!
//! The interface names POST /scores/transfer and POST /scores/trigger as the
//! endpoints that record their author on the ledger entry; they take
//! `#[oai(name = "X-Author-Email")] author: Author` as a handler argument, which
//! validates the header and documents it under that name.

use poem::{Request, RequestBody};
use poem_openapi::registry::{MetaParamIn, MetaSchemaRef, Registry};
use poem_openapi::types::Type;
use poem_openapi::{ApiExtractor, ApiExtractorType, ExtractParamOptions};

use crate::error::ApiError;
use crate::resources::customers::model::normalise_email;

/// The header carrying the author's e-mail.
pub const AUTHOR_HEADER: &str = "X-Author-Email";

/// An e-mail address as a header carries it: the body's e-mail rule
/// (`EMAIL_PATTERN`) in visible ASCII, since a header holds no other
/// characters and no surrounding blanks.
pub const HEADER_EMAIL_PATTERN: &str =
    "^[!-?A-~]+@[!-\\-/-?A-~][!-?A-~]*\\.[!-?A-~]*[!-\\-/-?A-~]$";

/// The author of a request, from `X-Author-Email` (optional; validated, lowercased).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Author(pub Option<String>);

impl<'a> ApiExtractor<'a> for Author {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::Parameter];
    type ParamType = String;
    type ParamRawType = String;

    fn register(registry: &mut Registry) {
        <String as Type>::register(registry);
    }

    fn param_in() -> Option<MetaParamIn> {
        Some(MetaParamIn::Header)
    }

    fn param_schema_ref() -> Option<MetaSchemaRef> {
        let mut schema = poem_openapi::registry::MetaSchema::new("string");
        schema.max_length = Some(254);
        schema.format = Some("email");
        schema.pattern = Some(HEADER_EMAIL_PATTERN.to_string());
        Some(MetaSchemaRef::Inline(Box::new(schema)))
    }

    async fn from_request(
        request: &'a Request,
        _body: &mut RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        let Some(value) = request.headers().get(AUTHOR_HEADER) else {
            return Ok(Author(None));
        };
        let text = value
            .to_str()
            .map_err(|_| ApiError::invalid(format!("{AUTHOR_HEADER} must be an e-mail address")))?;
        let email = normalise_email(text).map_err(|_| {
            ApiError::invalid(format!("{AUTHOR_HEADER} `{text}` is not an e-mail address"))
        })?;
        Ok(Author(Some(email)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use poem::test::TestClient;
    use poem_openapi::payload::PlainText;
    use poem_openapi::{OpenApi, OpenApiService};

    struct Probe;

    #[OpenApi]
    impl Probe {
        #[oai(path = "/probe", method = "post")]
        async fn probe(&self, #[oai(name = "X-Author-Email")] author: Author) -> PlainText<String> {
            PlainText(author.0.unwrap_or_else(|| "none".into()))
        }
    }

    #[tokio::test]
    async fn the_author_header_is_validated_and_optional() {
        let service = OpenApiService::new(Probe, "probe", "1");
        let spec = service.spec();
        let client = TestClient::new(poem::Route::new().nest("/", service));
        let response = client
            .post("/probe")
            .header(AUTHOR_HEADER, "Ana@Shop.ES")
            .send()
            .await;
        response.assert_text("ana@shop.es").await;
        client.post("/probe").send().await.assert_text("none").await;
        let refused = client
            .post("/probe")
            .header(AUTHOR_HEADER, "not-mail")
            .send()
            .await;
        refused.assert_status(poem::http::StatusCode::BAD_REQUEST);
        assert!(spec.contains(AUTHOR_HEADER), "documented in the spec");
    }
}
