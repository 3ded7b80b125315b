//! Accept-Language in, Content-Language out.

use poem::{Endpoint, IntoResponse, Middleware, Request, Response};

use crate::common::language::Language;
use crate::error::ApiError;
use crate::http::auth::Authentication;
use crate::http::errors::ErrorResponse;
use crate::http::errors::poem_error;
use crate::services::Services;

/// Middleware choosing the response language of authenticated calls: the
/// Company language that best matches Accept-Language, else its default.
/// Successful answers say which one in Content-Language.
#[derive(Debug, Clone, Copy, Default)]
pub struct Localize;

impl<E: Endpoint> Middleware<E> for Localize {
    type Output = LocalizeEndpoint<E>;

    fn transform(&self, inner: E) -> Self::Output {
        LocalizeEndpoint { inner }
    }
}

/// The endpoint produced by [`Localize`].
#[derive(Debug)]
pub struct LocalizeEndpoint<E> {
    inner: E,
}

impl<E: Endpoint> Endpoint for LocalizeEndpoint<E> {
    type Output = Response;

    async fn call(&self, mut request: Request) -> poem::Result<Response> {
        let company = request
            .data::<Authentication>()
            .and_then(|auth| auth.0.as_ref().map(|caller| caller.company.clone()));
        let language = match (company, request.data::<Services>()) {
            (Some(company), Some(services)) => {
                let accept = request
                    .headers()
                    .get(poem::http::header::ACCEPT_LANGUAGE)
                    .and_then(|v| v.to_str().ok());
                Some(
                    services
                        .response_language(&company, accept)
                        .await
                        .map_err(poem_error)?,
                )
            }
            _ => None,
        };
        if let Some(language) = &language {
            request.extensions_mut().insert(language.clone());
        }
        let mut response = match self.inner.call(request).await {
            Ok(output) => output.into_response(),
            Err(error) => error.into_response(),
        };
        if let Some(language) = language
            && response.status().is_success()
            && let Ok(value) = language.chosen.parse()
        {
            response
                .headers_mut()
                .insert(poem::http::header::CONTENT_LANGUAGE, value);
        }
        Ok(response)
    }
}

/// The language chosen for `request` by [`Localize`].
pub fn language(request: &Request) -> Result<&Language, ErrorResponse> {
    request
        .data::<Language>()
        .ok_or_else(|| ApiError::internal("the response language was not chosen").into())
}
