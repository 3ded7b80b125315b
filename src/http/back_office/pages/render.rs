//! Rendering the back-office pages: the templates (compiled into the binary,
//! escaped by minijinja for HTML), the context every page shares, and the
//! headers every page answer carries.

use std::sync::Arc;

use minijinja::Environment;
use minijinja::Value;
use minijinja::context;
use poem::http::StatusCode;
use poem::http::header;
use poem::{Request, Response};

use crate::error::ApiError;
use crate::http::back_office::pages::session::{Session, Sessions};

/// Every template, by name; a name ending in `.html` is escaped as HTML.
const TEMPLATES: &[(&str, &str)] = &[
    ("layout.html", include_str!("templates/layout.html")),
    ("login.html", include_str!("templates/login.html")),
    ("companies.html", include_str!("templates/companies.html")),
    ("company.html", include_str!("templates/company.html")),
    (
        "company_nav.html",
        include_str!("templates/company_nav.html"),
    ),
    (
        "key_created.html",
        include_str!("templates/key_created.html"),
    ),
    ("campaigns.html", include_str!("templates/campaigns.html")),
    ("customers.html", include_str!("templates/customers.html")),
    (
        "instant_wins.html",
        include_str!("templates/instant_wins.html"),
    ),
    ("webhooks.html", include_str!("templates/webhooks.html")),
    ("error.html", include_str!("templates/error.html")),
];

/// The page's style sheet, served at `/assets/app.css`.
pub const STYLE: &str = include_str!("templates/app.css");

/// The page's only script (the copy button), served at `/assets/app.js`.
pub const SCRIPT: &str = include_str!("templates/app.js");

/// What every page answer carries: no caching (pages hold customer data and
/// once a key's secret), no framing, no sniffing, no referrer beyond this
/// listener, and a policy that runs only its own style sheet and script.
/// (`no-referrer` would make browsers send `Origin: null` with every form,
/// which [`super::guard`] refuses.)
pub const SECURITY_HEADERS: &[(&str, &str)] = &[
    (
        "content-security-policy",
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; \
         form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "same-origin"),
    ("cache-control", "no-store"),
    ("cross-origin-opener-policy", "same-origin"),
];

/// The compiled templates.
#[derive(Clone)]
pub struct Pages {
    templates: Arc<Environment<'static>>,
    sessions: Sessions,
}

impl std::fmt::Debug for Pages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pages")
    }
}

impl Pages {
    /// Compiles every template; a template that does not compile is a bug
    /// the unit tests catch, reported here as an internal error.
    pub fn new(sessions: Sessions) -> Result<Self, ApiError> {
        let mut templates = Environment::new();
        for (name, source) in TEMPLATES {
            templates
                .add_template(name, source)
                .map_err(|e| ApiError::internal(format!("template {name}: {e}")))?;
        }
        Ok(Pages {
            templates: Arc::new(templates),
            sessions,
        })
    }

    /// The sessions of this listener.
    pub fn sessions(&self) -> &Sessions {
        &self.sessions
    }

    /// `template` rendered with `values`, the session's CSRF token and its
    /// one-time notice, answered with `status`.
    pub fn render(
        &self,
        request: &Request,
        status: StatusCode,
        template: &str,
        values: Value,
    ) -> Response {
        let session = request.extensions().get::<Session>();
        let notice = session.and_then(|session| self.sessions.take_notice(session));
        let shared = context! {
            csrf => session.map(|session| session.csrf.clone()),
            signed_in => session.is_some(),
            notice => notice,
        };
        let rendered = self
            .templates
            .get_template(template)
            .and_then(|page| page.render(context! { ..values, ..shared }));
        match rendered {
            Ok(html) => Response::builder()
                .status(status)
                .content_type("text/html; charset=utf-8")
                .body(html),
            Err(error) => {
                tracing::error!(template, %error, "rendering a back-office page failed");
                Response::builder()
                    .status(StatusCode::INTERNAL_SERVER_ERROR)
                    .content_type("text/plain; charset=utf-8")
                    .body("The page could not be rendered; the server log says why.")
            }
        }
    }

    /// The page saying why `error` stopped the request, with its status.
    pub fn error(&self, request: &Request, error: &ApiError) -> Response {
        self.render(
            request,
            error.code.status(),
            "error.html",
            context! { code => error.code.code(), message => &error.message },
        )
    }
}

/// A redirect to `location` after a form (303: the browser follows with GET).
pub fn see_other(location: &str) -> Response {
    Response::builder()
        .status(StatusCode::SEE_OTHER)
        .header(header::LOCATION, location)
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_compiles_and_escapes_html() {
        let pages = Pages::new(Sessions::default()).expect("templates compile");
        let request = Request::builder().finish();
        let response = pages.render(
            &request,
            StatusCode::NOT_FOUND,
            "error.html",
            context! { code => "x", message => "<script>alert(1)</script>" },
        );
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        let body = body_text(response);
        assert!(
            body.contains("&lt;script&gt;alert(1)&lt;&#x2f;script&gt;"),
            "{body}"
        );
        assert!(!body.contains("<script>alert"));
    }

    fn body_text(response: Response) -> String {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        runtime
            .block_on(response.into_body().into_string())
            .expect("text")
    }
}
