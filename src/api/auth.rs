//! The three-header security scheme: X-Api-Key, X-Api-Secret and X-Api-Version.
//!
//! poem-openapi's derived security schemes carry one header each and are
//! alternatives in the spec; ours needs all three at once, so the extractor is
//! written by hand. It registers three `apiKey` schemes and the spec writer
//! (`api::spec`) joins them into one requirement.

use poem::{Request, RequestBody};
use poem_openapi::registry::{MetaSecurityScheme, Registry};
use poem_openapi::{ApiExtractor, ApiExtractorType, ExtractParamOptions};

use crate::error::ApiError;
use crate::service::{Caller, Credentials, Services};

/// Header carrying the public key value.
pub const KEY_HEADER: &str = "X-Api-Key";
/// Header carrying the secret.
pub const SECRET_HEADER: &str = "X-Api-Secret";
/// Header carrying the API version (`1`).
pub const VERSION_HEADER: &str = "X-Api-Version";

/// Names of the three schemes in the OpenAPI document.
pub const SCHEME_NAMES: [&str; 3] = ["ApiKey", "ApiSecret", "ApiVersion"];

/// The authenticated Company calling an endpoint.
///
/// Taking it as a handler argument makes the endpoint require the three headers;
/// a failure answers 403 `{"message":"Forbidden"}` before the body is read.
#[derive(Debug, Clone)]
pub struct ApiCaller(pub Caller);

fn header(request: &Request, name: &str) -> Option<String> {
    request
        .headers()
        .get(name)
        .and_then(|value| value.to_str().ok())
        .map(str::to_string)
}

impl<'a> ApiExtractor<'a> for ApiCaller {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::SecurityScheme];
    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        let schemes = [
            (
                SCHEME_NAMES[0],
                KEY_HEADER,
                "Public key value of the Company's API key.",
            ),
            (
                SCHEME_NAMES[1],
                SECRET_HEADER,
                "Secret paired with the key; treat it like a password.",
            ),
            (SCHEME_NAMES[2], VERSION_HEADER, "API version; send `1`."),
        ];
        for (scheme, header, description) in schemes {
            registry.create_security_scheme(
                scheme,
                MetaSecurityScheme {
                    ty: "apiKey",
                    description: Some(description),
                    name: Some(header),
                    key_in: Some("header"),
                    scheme: None,
                    bearer_format: None,
                    flows: None,
                    openid_connect_url: None,
                },
            );
        }
    }

    fn security_schemes() -> Vec<&'static str> {
        SCHEME_NAMES.to_vec()
    }

    async fn from_request(
        request: &'a Request,
        _body: &mut RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        let services = request
            .data::<Services>()
            .ok_or_else(|| ApiError::internal("services are not attached to the request"))?;
        let credentials = Credentials {
            key: header(request, KEY_HEADER),
            secret: header(request, SECRET_HEADER),
            version: header(request, VERSION_HEADER),
        };
        let caller = services.authenticate(&credentials).await?;
        Ok(ApiCaller(caller))
    }
}
