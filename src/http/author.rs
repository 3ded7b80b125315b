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
use crate::http::errors::poem_error;
use crate::resources::customers::model::normalise_email;

/// The header carrying the author's e-mail.
pub const AUTHOR_HEADER: &str = "X-Author-Email";

/// An e-mail address as a header carries it: an RFC 5322 dot-atom local
/// part and a host name of at least two labels, in ASCII. The spec states
/// the pattern alone (no `format`: checkers of the `email` format disagree
/// with each other at the edges); [`is_header_email`] checks the same.
pub const HEADER_EMAIL_PATTERN: &str = concat!(
    "^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*",
    "@[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$"
);

/// Whether `text` is what [`HEADER_EMAIL_PATTERN`] says (and at most 254
/// characters).
fn is_header_email(text: &str) -> bool {
    let atom = |part: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+/=?^_`{|}~-".contains(c))
    };
    let label = |part: &str| {
        part.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && part.starts_with(|c: char| c.is_ascii_alphanumeric())
            && part.ends_with(|c: char| c.is_ascii_alphanumeric())
    };
    text.len() <= 254
        && text.split_once('@').is_some_and(|(local, host)| {
            local.split('.').all(atom) && host.split('.').count() >= 2 && host.split('.').all(label)
        })
}

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
            .map_err(|_| ApiError::invalid(format!("{AUTHOR_HEADER} must be an e-mail address")))
            .map_err(poem_error)?;
        let refused =
            || ApiError::invalid(format!("{AUTHOR_HEADER} `{text}` is not an e-mail address"));
        if !is_header_email(text) {
            return Err(poem_error(refused()));
        }
        let email = normalise_email(text)
            .map_err(|_| refused())
            .map_err(poem_error)?;
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

    #[test]
    fn the_header_check_is_the_published_pattern() {
        let pattern = regex::Regex::new(HEADER_EMAIL_PATTERN).unwrap();
        for text in [
            "ana@shop.es",
            "a.b+c@x-y.example.com",
            "o'neil@shop.ie",
            "0@0.0",
            "a..b@shop.es",
            ".a@shop.es",
            "a.@shop.es",
            "a@shop",
            "a@-shop.es",
            "a@shop-.es",
            "a@shop..es",
            "a b@shop.es",
            "\"a\"@shop.es",
            "a@b@shop.es",
            "ñ@shop.es",
            "",
        ] {
            assert_eq!(is_header_email(text), pattern.is_match(text), "{text}");
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
