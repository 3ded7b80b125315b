//! The back-office page: what operators use in a browser to manage
//! Companies, their API keys and campaigns. Rendered by the server from the
//! templates in `templates/` (no script build, nothing fetched from
//! elsewhere); every page but the sign-in form needs a session
//! ([`session`]), and every form is checked by [`guard`].
//!
//! | Path | Page |
//! |---|---|
//! | `/login`, `/logout` | [`sign_in`] |
//! | `/`, `/companies/{slug}` | [`companies`] |
//! | `/companies/{slug}/keys...` | [`keys`] |
//! | `/companies/{slug}/campaigns` | [`campaigns`] |
//! | `/companies/{slug}/instant_wins...` | [`instant_wins`] |
//! | `/companies/{slug}/customers` | [`customers`] |
//! | `/companies/{slug}/webhooks...` | [`webhooks`] |

pub mod campaigns;
pub mod companies;
pub mod company_page;
pub mod customers;
pub mod guard;
pub mod instant_wins;
pub mod keys;
pub mod render;
pub mod session;
pub mod sign_in;
pub mod webhooks;

use poem::endpoint::make_sync;
use poem::middleware::SetHeader;
use poem::{Endpoint, EndpointExt, Response, Route, get, post};

use crate::error::ApiResult;
use crate::http::back_office::pages::guard::SignedIn;
use crate::http::back_office::pages::render::{Pages, SCRIPT, SECURITY_HEADERS, STYLE};
use crate::http::back_office::pages::session::Sessions;
use crate::http::request_bounds::BodyLimit;

/// Largest form the page accepts (a Company's settings, a key's
/// description, a look-up).
const MAX_FORM_BYTES: usize = 64 * 1024;

/// The page's routes, with the templates and sessions they use; the
/// services and the operator token are attached by the caller.
pub fn app() -> ApiResult<impl Endpoint + 'static> {
    let sessions = Sessions::default();
    let pages = Pages::new(sessions.clone())?;
    let signed_in = Route::new()
        .at("/", get(companies::list))
        .at("/logout", post(sign_in::sign_out))
        .at("/companies", post(companies::create))
        .at("/companies/:slug", get(companies::show))
        .at(
            "/companies/:slug/rate_limits",
            post(companies::set_rate_limits),
        )
        .at("/companies/:slug/locale", post(companies::set_locale))
        .at("/companies/:slug/languages", post(companies::set_languages))
        .at("/companies/:slug/keys", post(keys::create))
        .at("/companies/:slug/keys/:key/enable", post(keys::enable))
        .at("/companies/:slug/keys/:key/disable", post(keys::disable))
        .at("/companies/:slug/campaigns", get(campaigns::show))
        .at("/companies/:slug/instant_wins", get(instant_wins::show))
        .at(
            "/companies/:slug/instant_wins/:id/simulate",
            post(instant_wins::simulate),
        )
        .at(
            "/companies/:slug/customers",
            get(customers::form).post(customers::lookup),
        )
        .at("/companies/:slug/webhooks", get(webhooks::show))
        .at(
            "/companies/:slug/webhooks/:id/test",
            post(webhooks::send_test),
        )
        .at(
            "/companies/:slug/webhooks/:id/deliveries/:event/resend",
            post(webhooks::resend),
        )
        .with(SignedIn { sessions });
    let mut headers = SetHeader::new();
    for (name, value) in SECURITY_HEADERS {
        headers = headers.overriding(*name, *value);
    }
    Ok(Route::new()
        .at("/login", get(sign_in::show_form).post(sign_in::sign_in))
        .at("/assets/app.css", asset("text/css; charset=utf-8", STYLE))
        .at(
            "/assets/app.js",
            asset("text/javascript; charset=utf-8", SCRIPT),
        )
        .nest("/", signed_in)
        .with(BodyLimit::new(MAX_FORM_BYTES))
        .with(headers)
        .data(pages))
}

fn asset(content_type: &'static str, body: &'static str) -> impl Endpoint {
    make_sync(move |_| Response::builder().content_type(content_type).body(body))
}
