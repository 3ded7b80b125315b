//! An operator's browser for the back-office page, over real HTTP: the
//! session cookie kept, no redirect followed, forms sent with the session's
//! CSRF token.

use crate::common::{OPERATOR_TOKEN, TestServer};
use reqwest::header::{HeaderMap, LOCATION, SET_COOKIE};
use reqwest::redirect::Policy;

/// An operator's browser: no redirects followed, the session cookie kept.
pub struct Browser {
    pub http: reqwest::Client,
    pub base: String,
    pub cookie: Option<String>,
}

/// A page's answer.
pub struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: String,
}

impl Answer {
    pub fn location(&self) -> Option<&str> {
        self.headers.get(LOCATION).and_then(|l| l.to_str().ok())
    }
}

impl Browser {
    pub fn new(server: &TestServer) -> Browser {
        Browser {
            http: reqwest::Client::builder()
                .redirect(Policy::none())
                .build()
                .expect("client"),
            base: server.admin_url(),
            cookie: None,
        }
    }

    pub async fn signed_in(server: &TestServer) -> Browser {
        let mut browser = Browser::new(server);
        let answer = browser.post("/login", &[("token", OPERATOR_TOKEN)]).await;
        assert_eq!(answer.status, 303, "{}", answer.body);
        assert!(browser.cookie.is_some(), "a session cookie");
        browser
    }

    pub async fn send(&mut self, request: reqwest::RequestBuilder) -> Answer {
        let request = match &self.cookie {
            Some(cookie) => request.header("cookie", cookie),
            None => request,
        };
        let response = request.send().await.expect("request sent");
        if let Some(set) = response.headers().get(SET_COOKIE) {
            let pair = set
                .to_str()
                .expect("ascii")
                .split(';')
                .next()
                .expect("pair");
            self.cookie = (!pair.ends_with('=')).then(|| pair.to_string());
        }
        Answer {
            status: response.status().as_u16(),
            headers: response.headers().clone(),
            body: response.text().await.expect("body"),
        }
    }

    pub async fn get(&mut self, path: &str) -> Answer {
        let request = self.http.get(format!("{}{path}", self.base));
        self.send(request).await
    }

    pub async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Answer {
        let request = self.http.post(format!("{}{path}", self.base)).form(fields);
        self.send(request).await
    }

    /// The session's CSRF token, read off a page as a form carries it.
    pub async fn csrf(&mut self) -> String {
        let page = self.get("/").await;
        csrf_of(&page.body)
    }

    /// Sends a form of the page with the session's token.
    pub async fn submit(&mut self, path: &str, fields: &[(&str, &str)]) -> Answer {
        let csrf = self.csrf().await;
        let mut fields = fields.to_vec();
        fields.push(("csrf", &csrf));
        self.post(path, &fields).await
    }
}

pub fn csrf_of(page: &str) -> String {
    let start = page.find("name=\"csrf\" value=\"").expect("a form") + 19;
    page[start..start + 64].to_string()
}
