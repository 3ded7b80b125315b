//! Signing in with the operator token (`GET` and `POST /login`) and out
//! (`POST /logout`). The token travels only in the form's body.

use minijinja::context;
use poem::http::{StatusCode, header};
use poem::web::{Data, Form};
use poem::{Request, Response, handler};
use serde::Deserialize;

use crate::http::back_office::OperatorToken;
use crate::http::back_office::pages::guard::same_origin;
use crate::http::back_office::pages::render::{Pages, see_other};
use crate::secrets::constant_time_eq;

/// `GET /login`: the sign-in form.
#[handler]
pub fn show_form(request: &Request, Data(pages): Data<&Pages>) -> Response {
    pages.render(request, StatusCode::OK, "login.html", context! {})
}

/// The sign-in form's field.
#[derive(Debug, Deserialize)]
pub struct SignInForm {
    #[serde(default)]
    token: String,
}

/// `POST /login`: opens a session when the token is the operator's.
#[handler]
pub fn sign_in(
    request: &Request,
    Data(pages): Data<&Pages>,
    Data(expected): Data<&OperatorToken>,
    Form(sent): Form<SignInForm>,
) -> Response {
    let sessions = pages.sessions();
    let refuse = |status: StatusCode, message: &str| {
        pages.render(request, status, "login.html", context! { error => message })
    };
    if !same_origin(request) {
        return refuse(
            StatusCode::FORBIDDEN,
            "The form was sent from another site.",
        );
    }
    if !sessions.may_try_sign_in() {
        return refuse(
            StatusCode::TOO_MANY_REQUESTS,
            "Too many wrong tokens in the last minute: wait a minute and try again.",
        );
    }
    if !constant_time_eq(&expected.0, sent.token.trim()) {
        sessions.failed_sign_in();
        tracing::warn!("a back-office sign-in with a wrong token was refused");
        return refuse(StatusCode::UNAUTHORIZED, "That is not the operator token.");
    }
    let (_, cookie) = sessions.open();
    tracing::info!("an operator signed in to the back-office page");
    let mut response = see_other("/");
    if let Ok(value) = cookie.parse() {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

/// `POST /logout`: ends the session.
#[handler]
pub fn sign_out(request: &Request, Data(pages): Data<&Pages>) -> Response {
    let cookie = pages.sessions().close(request);
    let mut response = see_other("/login");
    if let Ok(value) = cookie.parse() {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}
