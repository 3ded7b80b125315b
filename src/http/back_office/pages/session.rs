//! Operators' sign-in on the back-office page.
//!
//! Signing in with the operator token opens a session kept in this process's
//! memory and named by a random id in an `HttpOnly`, `SameSite=Strict`
//! cookie; the token itself is never stored in the browser nor put in a URL.
//! Each session carries its own CSRF token, which every form sends back
//! ([`super::guard`]), and a one-time notice shown by the next page (the
//! outcome of a form, after its redirect). A restart signs everyone out.

use std::collections::HashMap;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use poem::Request;

use crate::secrets::random_hex;

/// Name of the session cookie.
pub const COOKIE: &str = "loyalty_session";

/// How long a session lasts after its sign-in.
pub const LIFETIME: Duration = Duration::from_secs(8 * 60 * 60);

/// Failed sign-ins accepted within [`FAILURE_WINDOW`] before the form
/// refuses every attempt until the window has passed.
pub const MAX_FAILURES: usize = 10;

/// The window failed sign-ins are counted over.
pub const FAILURE_WINDOW: Duration = Duration::from_secs(60);

/// Sessions open on this back-office listener.
#[derive(Debug, Clone, Default)]
pub struct Sessions {
    open: Arc<Mutex<HashMap<String, SessionState>>>,
    failures: Arc<Mutex<VecDeque<Instant>>>,
}

#[derive(Debug, Clone)]
struct SessionState {
    csrf: String,
    expires: Instant,
    notice: Option<Notice>,
}

/// The outcome of a form, shown once by the page its redirect leads to.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Notice {
    /// `ok` or `error`.
    pub kind: &'static str,
    /// What happened, in one sentence.
    pub text: String,
}

impl Notice {
    /// A change that was made.
    pub fn ok(text: impl Into<String>) -> Self {
        Notice {
            kind: "ok",
            text: text.into(),
        }
    }

    /// A change that was refused.
    pub fn error(text: impl Into<String>) -> Self {
        Notice {
            kind: "error",
            text: text.into(),
        }
    }
}

/// The signed-in operator's session, attached to each request behind the
/// guard.
#[derive(Debug, Clone)]
pub struct Session {
    /// The session's id (the cookie's value).
    pub id: String,
    /// The token every form of this session must send back.
    pub csrf: String,
}

impl Sessions {
    /// Opens a session; returns it and the `Set-Cookie` value naming it.
    pub fn open(&self) -> (Session, String) {
        let id = random_hex(32);
        let csrf = random_hex(32);
        let state = SessionState {
            csrf: csrf.clone(),
            expires: Instant::now() + LIFETIME,
            notice: None,
        };
        let mut open = self.lock_open();
        let now = Instant::now();
        open.retain(|_, session| session.expires > now);
        open.insert(id.clone(), state);
        let cookie = format!(
            "{COOKIE}={id}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}",
            LIFETIME.as_secs()
        );
        (Session { id, csrf }, cookie)
    }

    /// The live session the request's cookie names, if any.
    pub fn of_request(&self, request: &Request) -> Option<Session> {
        let id = session_cookie(request)?;
        let open = self.lock_open();
        let state = open.get(id)?;
        (state.expires > Instant::now()).then(|| Session {
            id: id.to_string(),
            csrf: state.csrf.clone(),
        })
    }

    /// Ends the session the request's cookie names; returns the `Set-Cookie`
    /// value that removes the cookie.
    pub fn close(&self, request: &Request) -> String {
        if let Some(id) = session_cookie(request) {
            self.lock_open().remove(id);
        }
        format!("{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0")
    }

    /// Keeps `notice` for the session's next page.
    pub fn tell(&self, session: &Session, notice: Notice) {
        if let Some(state) = self.lock_open().get_mut(&session.id) {
            state.notice = Some(notice);
        }
    }

    /// The notice kept for this page, taken so it shows once.
    pub fn take_notice(&self, session: &Session) -> Option<Notice> {
        self.lock_open()
            .get_mut(&session.id)
            .and_then(|state| state.notice.take())
    }

    /// Whether a sign-in may be tried now: fewer than [`MAX_FAILURES`]
    /// failed within the last [`FAILURE_WINDOW`].
    pub fn may_try_sign_in(&self) -> bool {
        let mut failures = self.lock_failures();
        let now = Instant::now();
        while failures
            .front()
            .is_some_and(|at| now.duration_since(*at) > FAILURE_WINDOW)
        {
            failures.pop_front();
        }
        failures.len() < MAX_FAILURES
    }

    /// Counts a failed sign-in.
    pub fn failed_sign_in(&self) {
        self.lock_failures().push_back(Instant::now());
    }

    // A panic while holding either lock leaves plain data behind, still
    // consistent: every update is a single map or queue operation.
    fn lock_open(&self) -> std::sync::MutexGuard<'_, HashMap<String, SessionState>> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn lock_failures(&self) -> std::sync::MutexGuard<'_, VecDeque<Instant>> {
        self.failures
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The value of the session cookie the request carries.
fn session_cookie(request: &Request) -> Option<&str> {
    request
        .headers()
        .get_all(poem::http::header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_cookie(value: &str) -> Request {
        Request::builder()
            .header(poem::http::header::COOKIE, value)
            .finish()
    }

    #[test]
    fn a_session_is_found_by_its_cookie_until_it_is_closed() {
        let sessions = Sessions::default();
        let (session, cookie) = sessions.open();
        assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
        let request = with_cookie(&format!("other=1; {COOKIE}={}", session.id));
        let found = sessions.of_request(&request).expect("open");
        assert_eq!(found.csrf, session.csrf);
        assert!(
            sessions
                .of_request(&with_cookie("loyalty_session=guess"))
                .is_none()
        );
        sessions.close(&request);
        assert!(sessions.of_request(&request).is_none());
    }

    #[test]
    fn a_notice_shows_once() {
        let sessions = Sessions::default();
        let (session, _) = sessions.open();
        sessions.tell(&session, Notice::ok("done"));
        assert_eq!(sessions.take_notice(&session).expect("kept").text, "done");
        assert!(sessions.take_notice(&session).is_none());
    }

    #[test]
    fn sign_ins_stop_after_too_many_failures() {
        let sessions = Sessions::default();
        for _ in 0..MAX_FAILURES {
            assert!(sessions.may_try_sign_in());
            sessions.failed_sign_in();
        }
        assert!(!sessions.may_try_sign_in());
    }
}
