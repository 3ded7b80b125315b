//! What stands before every page: a request without a session is sent to
//! `/login`, and a form (any POST) is refused unless it comes from this
//! listener's own page (its `Origin`, when the browser sends one) and
//! carries the session's CSRF token. Checking here, not in each handler,
//! means a new form cannot forget it.

use poem::http::{Method, StatusCode, header};
use poem::{Endpoint, IntoResponse, Middleware, Request, Response};

use crate::http::back_office::pages::render::see_other;
use crate::http::back_office::pages::session::Sessions;
use crate::secrets::constant_time_eq;

/// The guard, over the pages that need a session.
#[derive(Debug, Clone)]
pub struct SignedIn {
    /// The listener's sessions.
    pub sessions: Sessions,
}

impl<E: Endpoint> Middleware<E> for SignedIn {
    type Output = SignedInEndpoint<E>;

    fn transform(&self, inner: E) -> Self::Output {
        SignedInEndpoint {
            inner,
            sessions: self.sessions.clone(),
        }
    }
}

/// The endpoint produced by [`SignedIn`].
#[derive(Debug)]
pub struct SignedInEndpoint<E> {
    inner: E,
    sessions: Sessions,
}

impl<E: Endpoint> Endpoint for SignedInEndpoint<E> {
    type Output = Response;

    async fn call(&self, mut request: Request) -> poem::Result<Response> {
        let Some(session) = self.sessions.of_request(&request) else {
            return Ok(see_other("/login"));
        };
        if request.method() == Method::POST {
            if !same_origin(&request) {
                return Ok(refused("The form was sent from another site."));
            }
            // At most `MAX_FORM_BYTES`: the pages' body limit stops a larger one.
            let body = request.take_body().into_vec().await?;
            let sent = form_field(&body, "csrf");
            if !sent.is_some_and(|sent| constant_time_eq(&sent, &session.csrf)) {
                return Ok(refused(
                    "The form has expired or did not come from this page: reload the page and send it again.",
                ));
            }
            request.set_body(body);
        }
        request.extensions_mut().insert(session);
        match self.inner.call(request).await {
            Ok(output) => Ok(output.into_response()),
            Err(error) => Err(error),
        }
    }
}

/// Whether the request's `Origin`, when present, is this listener itself.
/// Browsers send it with every form; a request without one (a script on the
/// operator's machine) still needs the session and the CSRF token.
pub fn same_origin(request: &Request) -> bool {
    let Some(origin) = request.headers().get(header::ORIGIN) else {
        return true;
    };
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|host| host.to_str().ok());
    let origin_host = origin
        .to_str()
        .ok()
        .and_then(|origin| origin.split_once("://"))
        .map(|(_, host)| host);
    matches!((origin_host, host), (Some(origin), Some(host)) if origin == host)
}

/// The value of `name` in an `application/x-www-form-urlencoded` body.
pub fn form_field(body: &[u8], name: &str) -> Option<String> {
    serde_urlencoded::from_bytes::<Vec<(String, String)>>(body)
        .ok()?
        .into_iter()
        .find(|(field, _)| field == name)
        .map(|(_, value)| value)
}

fn refused(message: &str) -> Response {
    Response::builder()
        .status(StatusCode::FORBIDDEN)
        .content_type("text/plain; charset=utf-8")
        .body(message.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_must_be_the_listener_itself() {
        let request = |origin: &str| {
            Request::builder()
                .header(header::HOST, "127.0.0.1:8081")
                .header(header::ORIGIN, origin)
                .finish()
        };
        assert!(same_origin(&request("http://127.0.0.1:8081")));
        assert!(!same_origin(&request("http://evil.example")));
        assert!(!same_origin(&request("null")));
        assert!(same_origin(&Request::builder().finish()));
    }

    #[test]
    fn form_fields_are_decoded() {
        assert_eq!(
            form_field(b"a=1&csrf=x%2By&b=2", "csrf").as_deref(),
            Some("x+y")
        );
        assert_eq!(form_field(b"a=1", "csrf"), None);
    }
}
