//! The three-header security scheme: X-Api-Key, X-Api-Secret and X-Api-Version.
//!
//! poem-openapi's derived security schemes carry one header each and are
//! alternatives in the spec; ours needs all three at once, so the extractor is
//! written by hand. It registers three `apiKey` schemes and the spec writer
//! (`api::spec`) joins them into one requirement.

pub mod credentials;

use poem::{Endpoint, Middleware, Request, RequestBody};
use poem_openapi::registry::{MetaSecurityScheme, Registry};
use poem_openapi::types::ToJSON;
use poem_openapi::{ApiExtractor, ApiExtractorType, ExtractParamOptions};

use crate::common::language::Language;
use crate::error::ApiError;
use crate::error::ErrorCode;
use crate::http::auth::credentials::Caller;
use crate::http::auth::credentials::Credentials;
use crate::http::auth::credentials::authenticate;
use crate::http::errors::ErrorResponse;
use crate::http::errors::poem_error;
use crate::http::idempotency::answer::{answers_with, answers_with_some};
use crate::http::languages::language;
use crate::http::rate_limits::RateLimited;
use crate::http::rate_limits::RateVerdictSlot;
use crate::http::rate_limits::limiters::Tier;
use crate::http::rate_limits::limiters::admit;
use crate::services::Services;

/// Header carrying the public key value.
pub const KEY_HEADER: &str = "X-Api-Key";
/// Header carrying the secret.
pub const SECRET_HEADER: &str = "X-Api-Secret";
/// Header carrying the API version (`1`).
pub const VERSION_HEADER: &str = "X-Api-Version";

/// Names of the three schemes in the OpenAPI document.
pub const SCHEME_NAMES: [&str; 3] = ["ApiKey", "ApiSecret", "ApiVersion"];

/// The authenticated Company calling an endpoint of rate-limit tier `TIER`
/// (1 critical, 2 moderate, 3 low).
///
/// Taking it as a handler argument makes the endpoint require the three
/// headers and charges the request to the Company's quota for the tier: a
/// credential failure answers 403 `{"message":"Forbidden"}` and an exhausted
/// quota 429, both before the body is read. Unauthenticated requests are never
/// charged.
///
/// It carries what a handler works with: the Company, the use-cases and
/// the request (its response language, its Idempotency-Key's answer).
/// It derefs to the authenticated [`Caller`] (`caller.company`).
pub struct ApiCaller<'a, const TIER: u8> {
    /// The Company and key the request authenticated as.
    caller: Caller,
    /// The use-cases.
    pub services: &'a Services,
    /// The request.
    pub request: &'a Request,
}

/// A caller of a tier-1 (critical) endpoint.
pub type Tier1<'a> = ApiCaller<'a, 1>;
/// A caller of a tier-2 (moderate) endpoint.
pub type Tier2<'a> = ApiCaller<'a, 2>;
/// A caller of a tier-3 (low) endpoint.
pub type Tier3<'a> = ApiCaller<'a, 3>;

impl<const TIER: u8> std::ops::Deref for ApiCaller<'_, TIER> {
    type Target = Caller;

    fn deref(&self) -> &Caller {
        &self.caller
    }
}

impl<const TIER: u8> ApiCaller<'_, TIER> {
    /// The language the response is in ([`crate::http::languages`]).
    pub fn language(&self) -> Result<&Language, ErrorResponse> {
        language(self.request)
    }

    /// Says how the answer of a keyed request is made from the result of
    /// its operation ([`crate::http::idempotency::answer::answers_with`]).
    pub fn answers_with<O, T, M>(&self, make: M)
    where
        O: 'static,
        T: ToJSON + Send + Sync + 'static,
        M: Fn(&O) -> T + Send + Sync + 'static,
    {
        answers_with(self.request, make);
    }

    /// [`ApiCaller::answers_with`] for an operation whose result may be no
    /// answer ([`crate::http::idempotency::answer::answers_with_some`]).
    pub fn answers_with_some<O, T, M>(&self, make: M)
    where
        O: 'static,
        T: ToJSON + Send + Sync + 'static,
        M: Fn(&O) -> Option<T> + Send + Sync + 'static,
    {
        answers_with_some(self.request, make);
    }
}

const fn tier_of(number: u8) -> Tier {
    match number {
        1 => Tier::Tier1,
        2 => Tier::Tier2,
        _ => Tier::Tier3,
    }
}

/// The outcome of checking a request's credentials, left in the request by
/// [`Authenticate`] so that later layers (idempotency, the extractor) use it
/// without checking twice. `None`: missing or wrong credentials.
#[derive(Debug, Clone)]
pub struct Authentication(pub Option<Caller>);

fn credentials(request: &Request) -> Credentials {
    Credentials {
        key: header(request, KEY_HEADER),
        secret: header(request, SECRET_HEADER),
        version: header(request, VERSION_HEADER),
    }
}

/// Authenticates `request` once; a store failure is an error, bad credentials are not.
async fn authentication(services: &Services, request: &Request) -> poem::Result<Authentication> {
    match authenticate(services, &credentials(request)).await {
        Ok(caller) => Ok(Authentication(Some(caller))),
        Err(error) if error.code == ErrorCode::Forbidden => Ok(Authentication(None)),
        Err(error) => Err(poem_error(error)),
    }
}

/// Middleware checking the credentials of every request that carries any,
/// before idempotency and routing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Authenticate;

impl<E: Endpoint> Middleware<E> for Authenticate {
    type Output = AuthenticateEndpoint<E>;

    fn transform(&self, inner: E) -> Self::Output {
        AuthenticateEndpoint { inner }
    }
}

/// The endpoint produced by [`Authenticate`].
#[derive(Debug)]
pub struct AuthenticateEndpoint<E> {
    inner: E,
}

impl<E: Endpoint> Endpoint for AuthenticateEndpoint<E> {
    type Output = E::Output;

    async fn call(&self, mut request: Request) -> poem::Result<Self::Output> {
        let presented = [KEY_HEADER, SECRET_HEADER, VERSION_HEADER]
            .iter()
            .any(|name| request.headers().contains_key(*name));
        let outcome = match (presented, request.data::<Services>()) {
            (true, Some(services)) => authentication(services, &request).await?,
            _ => Authentication(None),
        };
        request.extensions_mut().insert(outcome);
        self.inner.call(request).await
    }
}

/// The header `name`, when it is sent once: sent twice (a valid and an
/// invalid key, versions 1 and 2), neither is trusted and the request is
/// refused as without it.
fn header(request: &Request, name: &str) -> Option<String> {
    let mut sent = request.headers().get_all(name).iter();
    let first = sent.next()?;
    if sent.next().is_some() {
        return None;
    }
    first.to_str().ok().map(str::to_string)
}

impl<'a, const TIER: u8> ApiExtractor<'a> for ApiCaller<'a, TIER> {
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
            .ok_or_else(|| ApiError::internal("services are not attached to the request"))
            .map_err(poem_error)?;
        let outcome = match request.data::<Authentication>() {
            Some(outcome) => outcome.clone(),
            None => authentication(services, request).await?,
        };
        let caller = outcome
            .0
            .ok_or_else(ApiError::forbidden)
            .map_err(poem_error)?;
        let admission = admit(services, &caller.company, tier_of(TIER))
            .await
            .map_err(poem_error)?;
        if let Some(slot) = request.data::<RateVerdictSlot>() {
            slot.record(admission);
        }
        if admission.retry_after.is_some() {
            return Err(RateLimited(admission).into());
        }
        Ok(ApiCaller {
            caller,
            services,
            request,
        })
    }
}
