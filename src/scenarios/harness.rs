//! The service a scenario runs against: started on an in-memory store with
//! the scenario's campaigns, seed, clock and Company, and a client that
//! speaks to it over HTTP as that Company.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::common::clock::Clock;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::companies::keys::NewKey;
use crate::resources::companies::model::CreatedApiKey;
use crate::resources::companies::model::Environment;
use crate::resources::companies::service::LocaleChange;
use crate::resources::companies::service::NewCompany;
use crate::scenarios::format::Scenario;
use crate::secrets::random_hex;
use crate::server;
use crate::server::RunningServer;
use crate::server::ServerSettings;

/// A started service, its clock and a key of the scenario's Company.
pub(crate) struct Harness {
    pub running: RunningServer,
    pub clock: std::sync::Arc<Clock>,
    key: CreatedApiKey,
    http: reqwest::Client,
}

impl Harness {
    pub async fn start(scenario: &Scenario, campaigns: &Path) -> ApiResult<Harness> {
        let mut settings = ServerSettings::for_store("mem://", &random_hex(16));
        settings.campaigns = campaigns.to_path_buf();
        settings.draw_seed = Some(scenario.seed);
        let clock = std::sync::Arc::new(Clock::manual(scenario.clock));
        settings.clock = clock.clone();
        // Prizes are delivered before each step instead, so reads are deterministic.
        settings.deliver_prizes = false;
        let running = server::start(settings).await?;
        let services = &running.services;
        let key = if scenario.company == "demo" {
            running
                .bootstrap
                .as_ref()
                .map(|b| b.key.clone())
                .ok_or_else(|| ApiError::internal("the demo Company was not bootstrapped"))?
        } else {
            services
                .create_company(NewCompany {
                    slug: scenario.company.clone(),
                    environment: Environment::Sandbox,
                    language: None,
                    languages: Vec::new(),
                    rate_limits: None,
                    locale: LocaleChange::default(),
                })
                .await?;
            services
                .create_key(NewKey {
                    company: scenario.company.clone(),
                    description: "scenario".into(),
                    enabled: true,
                })
                .await?
        };
        let unlimited = crate::resources::companies::model::RateLimits {
            critical: 100_000,
            moderate: 100_000,
            low: 100_000,
        };
        services
            .set_rate_limits(&scenario.company, unlimited)
            .await?;
        if scenario.time_zone.is_some() || scenario.currency.is_some() {
            services
                .set_locale(
                    &scenario.company,
                    LocaleChange {
                        currency: scenario.currency.clone(),
                        minor_units: None,
                        time_zone: scenario.time_zone.clone(),
                    },
                )
                .await?;
        }
        Ok(Harness {
            running,
            clock,
            key,
            http: reqwest::Client::new(),
        })
    }

    /// Sends one request as the scenario's Company: status and JSON body.
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
        headers: &BTreeMap<String, String>,
    ) -> ApiResult<(u16, Value)> {
        let url = format!("http://{}{path}", self.running.api_addr);
        let method = reqwest::Method::from_bytes(method.as_bytes()).map_err(ApiError::internal)?;
        let mut request = self
            .http
            .request(method, url)
            .header("X-Api-Key", &self.key.key.key)
            .header("X-Api-Secret", &self.key.secret)
            .header("X-Api-Version", "1");
        for (name, value) in headers {
            request = request.header(name, value);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.map_err(ApiError::internal)?;
        let status = response.status().as_u16();
        let text = response.text().await.map_err(ApiError::internal)?;
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Ok((status, body))
    }
}
