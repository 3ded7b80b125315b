//! The HTTP clients deliveries go out with, one per receiver URL, kept for
//! a minute: building a client (its TLS configuration) and resolving and
//! checking the receiver's address cost far more than the request, so they
//! are not done again for every try. When a client is made again, the
//! address is checked again (a name that resolves elsewhere since cannot
//! turn it to a private one).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::resources::webhooks::receiver::{WebhookSettings, checked_receiver};

/// How long a client and the address it was checked at are used.
const KEPT_FOR: Duration = Duration::from_secs(60);

/// How long a receiver has to answer.
pub(crate) const ANSWER_WITHIN: Duration = Duration::from_secs(10);

/// A client and the URL it posts to, as checked when it was made.
#[derive(Debug, Clone)]
pub(crate) struct ReceiverClient {
    /// The receiver's URL, checked.
    pub url: reqwest::Url,
    /// A client sending to the address the URL was checked at, with the
    /// delivery's timeout and no redirects.
    pub client: reqwest::Client,
}

/// The clients made lately, by receiver URL.
#[derive(Debug, Default)]
pub struct ReceiverClients {
    kept: Mutex<HashMap<String, (Instant, ReceiverClient)>>,
}

impl ReceiverClients {
    /// The client for `url`: the one kept when it is recent, a new one
    /// otherwise; why none can be made (the URL is refused, no client).
    pub(crate) async fn client(
        &self,
        url: &str,
        settings: WebhookSettings,
    ) -> Result<ReceiverClient, String> {
        let kept = self.kept.lock().ok().and_then(|kept| {
            kept.get(url)
                .filter(|(made, _)| made.elapsed() < KEPT_FOR)
                .map(|(_, client)| client.clone())
        });
        if let Some(client) = kept {
            return Ok(client);
        }
        let (checked, addresses) = checked_receiver(url, settings)
            .await
            .map_err(|refused| refused.message)?;
        let mut builder = reqwest::Client::builder()
            .timeout(ANSWER_WITHIN)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("loyalty-webhooks/", env!("CARGO_PKG_VERSION")));
        if let (Some(host), Some(address)) = (checked.host_str(), addresses.first()) {
            builder = builder.resolve(host, *address);
        }
        let client = ReceiverClient {
            client: builder
                .build()
                .map_err(|e| format!("no HTTP client: {e}"))?,
            url: checked,
        };
        if let Ok(mut kept) = self.kept.lock() {
            kept.insert(url.to_string(), (Instant::now(), client.clone()));
        }
        Ok(client)
    }
}
