//! The torture's HTTP client: the Company's key on the server of the
//! current cycle, and answers kept whole (status, body, whether a replay).

use std::time::Duration;

use serde_json::Value;

/// What the server answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// The body, as sent.
    pub body: String,
    /// Whether it was a replay of a key's first answer.
    pub replayed: bool,
}

impl Answer {
    /// The body as JSON (null when it is none).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// Whether the request's work was done.
    pub fn succeeded(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// The Company's key on one running server.
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    base_url: String,
}

impl Client {
    /// A client of the server at `base_url` with the key `key` and `secret`.
    pub fn new(base_url: &str, key: &str, secret: &str) -> anyhow::Result<Client> {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("X-Api-Key", key.parse()?);
        headers.insert("X-Api-Secret", secret.parse()?);
        headers.insert("X-Api-Version", "1".parse()?);
        let http = reqwest::Client::builder()
            .default_headers(headers)
            .timeout(Duration::from_secs(30))
            .build()?;
        Ok(Client {
            http,
            base_url: base_url.trim_end_matches('/').to_string(),
        })
    }

    /// POSTs `body` to `path` with `idempotency_key`; `None` when no answer
    /// came (the server died meanwhile).
    pub async fn post(&self, path: &str, idempotency_key: &str, body: &Value) -> Option<Answer> {
        let request = self
            .http
            .post(format!("{}{path}", self.base_url))
            .header("Idempotency-Key", idempotency_key)
            .json(body);
        read(request).await
    }

    /// GETs `path`.
    pub async fn get(&self, path: &str) -> Option<Answer> {
        read(self.http.get(format!("{}{path}", self.base_url))).await
    }

    /// GETs `path`, which must answer 200 with JSON.
    pub async fn read(&self, path: &str) -> anyhow::Result<Value> {
        let answer = self
            .get(path)
            .await
            .ok_or_else(|| anyhow::anyhow!("GET {path}: no answer"))?;
        anyhow::ensure!(
            answer.status == 200,
            "GET {path}: {} {}",
            answer.status,
            answer.body
        );
        Ok(answer.json())
    }
}

async fn read(request: reqwest::RequestBuilder) -> Option<Answer> {
    let response = request.send().await.ok()?;
    let status = response.status().as_u16();
    let replayed = response.headers().contains_key("idempotent-replayed");
    let body = response.text().await.ok()?;
    Some(Answer {
        status,
        body,
        replayed,
    })
}
