//! Helpers shared by the integration tests: a real server on loopback ports.
#![allow(dead_code)]

pub mod browser;

use std::net::SocketAddr;

use loyalty::cli::back_office_client::BackOffice;
use loyalty::config::BackOfficeArgs;
use loyalty::config::StoreArgs;
use loyalty::resources::companies::model::CreatedApiKey;
use loyalty::server;
use loyalty::server::RunningServer;
use loyalty::server::ServerSettings;
use serde_json::Value;

/// An Instant Win (campaign 21, on the Custom Event `scratch`) whose one prize
/// has a single unit: the race for the last unit, on one node and on two.
/// Its prize gives the Reward campaign 11, which the test Company defines.
pub const LAST_UNIT_PRIZE: &str = "id: 21
kind: instant_win
name: Scratch
on: { custom_event: scratch }
once: campaign
once_limit: 100
instant_win:
  instant_win_prizes:
    - id: coffee
      name: Coffee
      outcome: { promotion_type: reward, promotion_id: 11 }
      weight: 1
      stock: 1
      stock_management_strategy: remove_prize
    - id: none
      name: No prize
      weight: 0
";

/// Settings of a service on an in-memory store whose demo Company has the
/// campaign files `files` (name, YAML), in the returned directory, its
/// clock standing at `at`.
pub fn settings_with_campaigns(
    files: &[(&str, &str)],
    at: &str,
) -> (ServerSettings, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let company = dir.path().join("demo");
    std::fs::create_dir(&company).expect("the Company's folder");
    for (name, text) in files {
        std::fs::write(company.join(name), text).expect("a campaign file");
    }
    let mut settings = ServerSettings::for_store("mem://", OPERATOR_TOKEN);
    settings.campaigns = dir.path().to_path_buf();
    settings.clock = manual_clock(at);
    (settings, dir)
}

/// A clock standing at `at`, for [`ServerSettings::clock`].
pub fn manual_clock(at: &str) -> std::sync::Arc<loyalty::common::clock::Clock> {
    std::sync::Arc::new(loyalty::common::clock::Clock::manual(
        at.parse().expect("a DateTime"),
    ))
}

/// A runtime for a property test's cases, which each start a server: two
/// workers, and stacks deep enough for the store's query planner in debug.
pub fn proptest_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_stack_size(16 * 1024 * 1024)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// Operator token used by every test server.
pub const OPERATOR_TOKEN: &str = "test-operator-token";

/// A running service with an HTTP client for it.
pub struct TestServer {
    pub running: RunningServer,
    pub http: reqwest::Client,
    /// Fails the test when it ends if an answer broke the spec's error codes.
    pub declared_errors: DeclaredErrorsGuard,
}

impl TestServer {
    /// A fresh service on an in-memory store.
    pub async fn start() -> TestServer {
        Self::start_with(ServerSettings::for_store("mem://", OPERATOR_TOKEN)).await
    }

    /// A service whose clock stands at `at` until [`TestServer::set_time`]
    /// moves it: campaigns are evaluated at the time an event is received.
    pub async fn start_at(at: &str) -> TestServer {
        let mut settings = ServerSettings::for_store("mem://", OPERATOR_TOKEN);
        settings.clock = manual_clock(at);
        Self::start_with(settings).await
    }

    /// A service whose clock stands at `at`, with the demo Company's
    /// campaign files `files` (name, YAML) in the returned directory, its
    /// draws seeded with `draw_seed` when given.
    pub async fn start_with_campaigns(
        files: &[(&str, &str)],
        at: &str,
        draw_seed: Option<u64>,
    ) -> (TestServer, tempfile::TempDir) {
        let (mut settings, dir) = settings_with_campaigns(files, at);
        settings.draw_seed = draw_seed;
        (Self::start_with(settings).await, dir)
    }

    /// Sets the service's clock (started with [`TestServer::start_at`] or a
    /// [`manual_clock`]) to `at`.
    pub fn set_time(&self, at: &str) {
        self.running
            .services
            .clock()
            .set(at.parse().expect("a DateTime"));
    }

    /// A service with custom settings. The demo Company gets generous rate
    /// limits, so tests of concurrency are not cut short by 429s; the limits
    /// themselves are tested on Companies of their own.
    pub async fn start_with(settings: ServerSettings) -> TestServer {
        let running = server::start(settings).await.expect("server starts");
        if let Some(bootstrap) = &running.bootstrap {
            // The tests read the secret: shown, so no restart replaces it.
            running
                .services
                .bootstrap_shown(bootstrap)
                .await
                .expect("secret marked shown");
            let generous = loyalty::resources::companies::model::RateLimits {
                critical: 10_000,
                moderate: 10_000,
                low: 10_000,
            };
            running
                .services
                .set_rate_limits("demo", generous)
                .await
                .expect("demo limits set");
        }
        let declared_errors = DeclaredErrorsGuard(running.services.undeclared_errors());
        TestServer {
            running,
            http: reqwest::Client::new(),
            declared_errors,
        }
    }

    /// Every error code an operation answered without declaring it in the
    /// spec, so far.
    pub fn undeclared_errors(&self) -> Vec<String> {
        self.running.services.undeclared_errors().seen()
    }

    pub fn api_addr(&self) -> SocketAddr {
        self.running.api_addr
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.running.api_addr)
    }

    pub fn admin_url(&self) -> String {
        format!("http://{}", self.running.admin_addr)
    }

    /// The back office's `/metrics`, as Prometheus scrapes it.
    pub async fn metrics(&self) -> String {
        self.http
            .get(format!("{}/metrics", self.admin_url()))
            .bearer_auth(OPERATOR_TOKEN)
            .send()
            .await
            .expect("scraped")
            .text()
            .await
            .expect("text")
    }

    /// The demo Company's system key created on first start.
    pub fn bootstrap_key(&self) -> CreatedApiKey {
        self.running
            .bootstrap
            .as_ref()
            .expect("first start bootstraps")
            .key
            .clone()
    }

    /// Arguments pointing the operator client at this server.
    pub fn back_office_args(&self) -> BackOfficeArgs {
        BackOfficeArgs {
            admin_url: self.admin_url(),
            operator: loyalty::config::OperatorTokenArgs {
                admin_token: Some(OPERATOR_TOKEN.to_string()),
                admin_token_file: "does-not-exist".into(),
            },
            store: StoreArgs {
                url: "mem://".to_string(),
                user: None,
                password: None,
                connections: 1,
            },
            json: true,
        }
    }

    /// The operator client for this server.
    pub async fn back_office(&self) -> BackOffice {
        BackOffice::connect(&self.back_office_args())
            .await
            .expect("back-office reachable")
    }

    /// GET `path` with the three authentication headers of `key`.
    pub async fn get_as(&self, path: &str, key: &CreatedApiKey) -> (u16, Value) {
        let response = self
            .http
            .get(self.url(path))
            .header("X-Api-Key", &key.key.key)
            .header("X-Api-Secret", &key.secret)
            .header("X-Api-Version", "1")
            .send()
            .await
            .expect("request sent");
        read(response).await
    }

    /// A request to `method path` carrying `key`'s three headers.
    pub fn request_as(
        &self,
        method: &str,
        path: &str,
        key: &CreatedApiKey,
    ) -> reqwest::RequestBuilder {
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        self.http
            .request(method, self.url(path))
            .header("X-Api-Key", &key.key.key)
            .header("X-Api-Secret", &key.secret)
            .header("X-Api-Version", "1")
    }

    /// Sends `method path` with `key`'s headers and an optional JSON body.
    pub async fn call_as(
        &self,
        method: &str,
        path: &str,
        key: &CreatedApiKey,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut request = self.request_as(method, path, key);
        if let Some(body) = body {
            request = request.json(&body);
        }
        read(request.send().await.expect("request sent")).await
    }

    /// Every item of `list` (the answer's array) over all pages of GET
    /// `path` (which has a query already), `per_page` at a time, following
    /// `next_token_starts_after`; each page must be 200 and no longer.
    pub async fn every_page(
        &self,
        key: &CreatedApiKey,
        path: &str,
        list: &str,
        per_page: usize,
    ) -> Vec<Value> {
        let mut items = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let cursor = after
                .as_deref()
                .map(|after| format!("&starting_after={after}"))
                .unwrap_or_default();
            let (status, page) = self
                .get_as(&format!("{path}&per_page={per_page}{cursor}"), key)
                .await;
            assert_eq!(status, 200, "{page}");
            let found = page[list].as_array().expect("a list").clone();
            assert!(found.len() <= per_page, "{page}");
            items.extend(found);
            match page["next_token_starts_after"].as_str() {
                Some(next) => after = Some(next.to_string()),
                None => return items,
            }
        }
    }

    /// The OpenAPI document the service publishes.
    pub async fn spec(&self) -> Value {
        let response = self
            .http
            .get(self.url("/openapi.json"))
            .send()
            .await
            .expect("the spec is served");
        response.json().await.expect("the spec is JSON")
    }

    /// The answers of GET on each of `paths` as `key`, each of which must
    /// be 200.
    pub async fn read_all(&self, key: &CreatedApiKey, paths: &[String]) -> Vec<Value> {
        let mut read = Vec::new();
        for path in paths {
            let (status, body) = self.get_as(path, key).await;
            assert_eq!(status, 200, "{path}: {body}");
            read.push(body);
        }
        read
    }

    /// Creates the Customer `body` as `key`'s Company; its id.
    pub async fn create_customer(&self, key: &CreatedApiKey, body: Value) -> String {
        let (status, created) = self.call_as("POST", "/customers", key, Some(body)).await;
        assert_eq!(status, 200, "{created}");
        created["id"].as_str().expect("an id").to_string()
    }

    /// Credits `points` to the Customer `customer` (an id) as `key`.
    pub async fn credit(&self, key: &CreatedApiKey, customer: &str, points: i64) {
        let body = serde_json::json!({"customer_id": customer, "points": points});
        let (status, answer) = self
            .call_as("POST", "/scores/trigger", key, Some(body))
            .await;
        assert_eq!(status, 200, "{answer}");
    }

    /// Creates a Company and a key for it through the back-office.
    pub async fn company_with_key(&self, slug: &str) -> CreatedApiKey {
        self.company_with_limits(slug, None).await
    }

    /// Creates a Company with the given rate limits and a key for it.
    pub async fn company_with_limits(
        &self,
        slug: &str,
        rate_limits: Option<loyalty::resources::companies::model::RateLimits>,
    ) -> CreatedApiKey {
        self.company_with(slug, rate_limits, None).await
    }

    /// Creates a Company in the IANA time zone `time_zone` (UTC when `None`)
    /// and a key for it.
    pub async fn company_in_zone(&self, slug: &str, time_zone: &str) -> CreatedApiKey {
        self.company_with(slug, None, Some(time_zone)).await
    }

    async fn company_with(
        &self,
        slug: &str,
        rate_limits: Option<loyalty::resources::companies::model::RateLimits>,
        time_zone: Option<&str>,
    ) -> CreatedApiKey {
        let back_office = self.back_office().await;
        back_office
            .create_company(loyalty::resources::companies::service::NewCompany {
                slug: slug.to_string(),
                environment: loyalty::resources::companies::model::Environment::Sandbox,
                language: None,
                languages: vec![],
                rate_limits,
                locale: loyalty::resources::companies::service::LocaleChange {
                    currency: None,
                    minor_units: None,
                    time_zone: time_zone.map(str::to_string),
                },
            })
            .await
            .expect("company created");
        back_office
            .create_key(loyalty::resources::companies::keys::NewKey {
                company: slug.to_string(),
                description: format!("{slug} tests"),
                enabled: true,
            })
            .await
            .expect("key created")
    }

    /// Sends `request` and reads status and JSON body.
    pub async fn send(&self, request: reqwest::RequestBuilder) -> (u16, Value) {
        read(request.send().await.expect("request sent")).await
    }
}

/// Checks, when the test is done with its server, that each error the
/// server answered is one its operation's spec declares.
pub struct DeclaredErrorsGuard(std::sync::Arc<loyalty::http::errors::UndeclaredErrors>);

impl Drop for DeclaredErrorsGuard {
    fn drop(&mut self) {
        let undeclared = self.0.seen();
        if !undeclared.is_empty() && !std::thread::panicking() {
            panic!("answers the spec does not declare: {undeclared:#?}");
        }
    }
}

/// Sends every request at once and returns each answer (status, JSON body),
/// in the order they complete.
pub async fn all_at_once(requests: Vec<reqwest::RequestBuilder>) -> Vec<(u16, Value)> {
    let mut tasks = tokio::task::JoinSet::new();
    for request in requests {
        tasks.spawn(async move { read(request.send().await.expect("request sent")).await });
    }
    let mut answers = Vec::new();
    while let Some(answer) = tasks.join_next().await {
        answers.push(answer.expect("task ran"));
    }
    answers
}

/// Status and JSON body; fails the test if the body is not JSON.
pub async fn read(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let text = response.text().await.expect("body read");
    let body = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("status {status}: body is not JSON ({e}): {text:?}"));
    assert!(
        content_type.starts_with("application/json"),
        "status {status}: content-type {content_type:?}"
    );
    (status, body)
}

/// The value of the Prometheus sample `series` (its name and labels, as
/// `GET /metrics` writes them) in `text`.
pub fn metric_sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find(|line| line.starts_with(series) && line[series.len()..].starts_with(' '))
        .and_then(|line| line.rsplit(' ').next())
        .and_then(|value| value.parse().ok())
}

/// Runs the real `loyalty` binary with `args`; returns exit success, stdout, stderr.
pub async fn loyalty(args: &[&str]) -> (bool, String, String) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_loyalty"))
        .args(args)
        .env_remove("LOYALTY_ADMIN_TOKEN")
        .env_remove("LOYALTY_ADMIN_URL")
        .env_remove("LOYALTY_DB")
        .output()
        .await
        .expect("binary runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Runs an operator command against `server` and parses its `--json` output.
pub async fn operator_json(server: &TestServer, args: &[&str]) -> Value {
    let admin_url = server.admin_url();
    let mut full: Vec<&str> = args.to_vec();
    full.extend([
        "--admin-url",
        &admin_url,
        "--admin-token",
        OPERATOR_TOKEN,
        "--json",
    ]);
    let (ok, stdout, stderr) = loyalty(&full).await;
    assert!(ok, "loyalty {args:?} failed: {stderr}");
    assert_eq!(
        stdout.lines().count(),
        1,
        "--json prints one object: {stdout}"
    );
    serde_json::from_str(&stdout).expect("stdout is JSON")
}
