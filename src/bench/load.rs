//! The load generator: drives HTTP requests at a fixed arrival rate (open
//! loop) or as fast as a number of connections allow (saturation), and keeps
//! every latency.
//!
//! At a fixed rate each request has a scheduled start, and its latency counts
//! from that instant, not from when it was actually sent: when the server (or
//! the generator) falls behind, the waiting shows in the percentiles instead of
//! silently lowering the offered load (coordinated omission).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;

/// One request to send.
#[derive(Debug, Clone)]
pub struct Request {
    /// GET or POST.
    pub method: reqwest::Method,
    /// Path and query, e.g. `/carts/realtime`.
    pub path: String,
    /// JSON body of a POST.
    pub body: Option<String>,
}

impl Request {
    /// A GET of `path`.
    pub fn get(path: impl Into<String>) -> Request {
        Request {
            method: reqwest::Method::GET,
            path: path.into(),
            body: None,
        }
    }

    /// A POST of `body` (JSON) to `path`.
    pub fn post(path: impl Into<String>, body: String) -> Request {
        Request {
            method: reqwest::Method::POST,
            path: path.into(),
            body: Some(body),
        }
    }
}

/// Makes the `n`th request of a run.
pub type RequestSource = Arc<dyn Fn(u64) -> Request + Send + Sync>;

/// How a run loads the server.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Load {
    /// Requests start at a fixed rate, whatever the answers take.
    Rate(u32),
    /// Each of this many connections sends its next request when the last
    /// one is answered.
    Saturation(usize),
    /// One connection sends its next request when the last one is
    /// answered: each request alone, the latency a till sees when nothing
    /// else runs.
    Alone,
}

impl std::fmt::Display for Load {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Load::Rate(rate) => write!(f, "{rate}/s"),
            Load::Saturation(connections) => write!(f, "saturation ({connections} conn.)"),
            Load::Alone => write!(f, "one at a time"),
        }
    }
}

/// What one run measured.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The load applied.
    pub load: Load,
    /// How long the measured part lasted.
    pub elapsed: Duration,
    /// Latencies of the answered requests, in microseconds, sorted.
    pub latencies_us: Vec<u64>,
    /// Answers by HTTP status, the 2xx ones included.
    pub statuses: BTreeMap<u16, u64>,
    /// Requests that got no HTTP answer (connection errors, time-outs).
    pub transport_errors: u64,
}

impl RunResult {
    /// Answers with a 2xx status.
    pub fn successes(&self) -> u64 {
        self.statuses
            .iter()
            .filter(|(status, _)| (200..300).contains(*status))
            .map(|(_, count)| count)
            .sum()
    }

    /// Requests that failed: non-2xx answers and transport errors.
    pub fn failures(&self) -> u64 {
        self.statuses.values().sum::<u64>() - self.successes() + self.transport_errors
    }

    /// Answered requests per second over the measured part.
    pub fn throughput(&self) -> f64 {
        let answered: u64 = self.statuses.values().sum();
        answered as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The latency at quantile `q` (0 to 1), in milliseconds.
    pub fn percentile_ms(&self, q: f64) -> f64 {
        percentile(&self.latencies_us, q) as f64 / 1000.0
    }
}

/// The value at quantile `q` of `sorted` (nearest rank); 0 when empty.
pub fn percentile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (q.clamp(0.0, 1.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The outcomes of a run, shared by its tasks.
#[derive(Default)]
struct Tally {
    latencies_us: Vec<u64>,
    statuses: BTreeMap<u16, u64>,
    transport_errors: u64,
}

/// An HTTP client for the servers under test, sending the API's three
/// headers, each request to the next server in turn.
#[derive(Debug, Clone)]
pub struct Target {
    client: reqwest::Client,
    base_urls: std::sync::Arc<[String]>,
    next: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Target {
    /// A client for `base_url` authenticating with `key` and `secret`.
    pub fn new(base_url: &str, key: &str, secret: &str) -> anyhow::Result<Target> {
        Self::spread(&[base_url.to_string()], key, secret)
    }

    /// A client sending to each of `base_urls` in turn.
    pub fn spread(base_urls: &[String], key: &str, secret: &str) -> anyhow::Result<Target> {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("X-Api-Key", key.parse()?);
        headers.insert("X-Api-Secret", secret.parse()?);
        headers.insert(
            "X-Api-Version",
            reqwest::header::HeaderValue::from_static("1"),
        );
        headers.insert(
            reqwest::header::CONTENT_TYPE,
            reqwest::header::HeaderValue::from_static("application/json"),
        );
        let client = reqwest::Client::builder()
            .default_headers(headers)
            .tcp_nodelay(true)
            .pool_max_idle_per_host(usize::MAX)
            .timeout(Duration::from_secs(30))
            .build()?;
        if base_urls.is_empty() {
            anyhow::bail!("no server to send to");
        }
        Ok(Target {
            client,
            base_urls: base_urls
                .iter()
                .map(|url| url.trim_end_matches('/').to_string())
                .collect(),
            next: Default::default(),
        })
    }

    /// Sends `request`; its status once the whole body has arrived, or
    /// `None` when no HTTP answer came.
    pub async fn send(&self, request: &Request) -> Option<u16> {
        let turn = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let base_url = &self.base_urls[turn % self.base_urls.len()];
        let mut builder = self.client.request(
            request.method.clone(),
            format!("{base_url}{}", request.path),
        );
        if let Some(body) = &request.body {
            builder = builder.body(body.clone());
        }
        let response = builder.send().await.ok()?;
        let status = response.status().as_u16();
        response.bytes().await.ok()?;
        Some(status)
    }
}

async fn record(tally: &Mutex<Tally>, started: Instant, answer: Option<u16>) {
    let micros = started.elapsed().as_micros() as u64;
    let mut tally = tally.lock().await;
    match answer {
        Some(status) => {
            *tally.statuses.entry(status).or_default() += 1;
            tally.latencies_us.push(micros);
        }
        None => tally.transport_errors += 1,
    }
}

fn finish(load: Load, elapsed: Duration, tally: Tally) -> RunResult {
    let mut latencies_us = tally.latencies_us;
    latencies_us.sort_unstable();
    RunResult {
        load,
        elapsed,
        latencies_us,
        statuses: tally.statuses,
        transport_errors: tally.transport_errors,
    }
}

/// Runs `load` for `warmup` (not measured) and then `duration`, numbering
/// requests with `next`; returns what the measured part saw.
pub async fn run(
    target: &Target,
    load: Load,
    warmup: Duration,
    duration: Duration,
    next: &Arc<AtomicU64>,
    source: &RequestSource,
) -> RunResult {
    match load {
        Load::Rate(rate) => at_rate(target, rate, warmup, duration, next, source).await,
        Load::Saturation(connections) => {
            saturate(target, connections, warmup, duration, next, source, None).await
        }
        Load::Alone => RunResult {
            load,
            ..saturate(target, 1, warmup, duration, next, source, None).await
        },
    }
}

/// Sends requests `0..count` of `source` over `connections` connections, as
/// fast as they are answered (seeding); returns what was seen.
pub async fn send_all(
    target: &Target,
    connections: usize,
    count: u64,
    source: &RequestSource,
) -> RunResult {
    saturate(
        target,
        connections,
        Duration::ZERO,
        Duration::from_secs(24 * 3600),
        &Arc::new(AtomicU64::new(0)),
        source,
        Some(count),
    )
    .await
}

async fn saturate(
    target: &Target,
    connections: usize,
    warmup: Duration,
    duration: Duration,
    next: &Arc<AtomicU64>,
    source: &RequestSource,
    limit: Option<u64>,
) -> RunResult {
    let tally = Arc::new(Mutex::new(Tally::default()));
    let start = Instant::now();
    let measured_from = start + warmup;
    let deadline = measured_from + duration;
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..connections.max(1) {
        let (target, next, source, tally) = (
            target.clone(),
            Arc::clone(next),
            Arc::clone(source),
            Arc::clone(&tally),
        );
        workers.spawn(async move {
            loop {
                let now = Instant::now();
                if now >= deadline {
                    break;
                }
                let n = next.fetch_add(1, Ordering::Relaxed);
                if limit.is_some_and(|limit| n >= limit) {
                    break;
                }
                let answer = target.send(&source(n)).await;
                if now >= measured_from {
                    record(&tally, now, answer).await;
                }
            }
        });
    }
    while workers.join_next().await.is_some() {}
    let ended = Instant::now().min(deadline);
    let elapsed = ended.saturating_duration_since(measured_from);
    let tally = std::mem::take(&mut *tally.lock().await);
    finish(Load::Saturation(connections), elapsed, tally)
}

async fn at_rate(
    target: &Target,
    rate: u32,
    warmup: Duration,
    duration: Duration,
    next: &Arc<AtomicU64>,
    source: &RequestSource,
) -> RunResult {
    let tally = Arc::new(Mutex::new(Tally::default()));
    let interval = Duration::from_secs_f64(1.0 / f64::from(rate.max(1)));
    let start = Instant::now();
    let measured_from = start + warmup;
    let deadline = measured_from + duration;
    let mut tasks = tokio::task::JoinSet::new();
    let mut sent: u32 = 0;
    loop {
        let scheduled = start + interval * sent;
        if scheduled >= deadline {
            break;
        }
        sent += 1;
        tokio::time::sleep_until(scheduled).await;
        let request = source(next.fetch_add(1, Ordering::Relaxed));
        let target = target.clone();
        let tally = Arc::clone(&tally);
        tasks.spawn(async move {
            let answer = target.send(&request).await;
            if scheduled >= measured_from {
                record(&tally, scheduled, answer).await;
            }
        });
        // Reap finished tasks as we go so the set stays small.
        while tasks.try_join_next().is_some() {}
    }
    while tasks.join_next().await.is_some() {}
    let tally = std::mem::take(&mut *tally.lock().await);
    finish(Load::Rate(rate), duration, tally)
}

#[cfg(test)]
mod tests {
    use super::*;
    use poem::{Route, handler, http::StatusCode, listener::TcpListener};

    /// Answers 200, except 503 for paths ending in an odd number.
    #[handler]
    fn numbered(request: &poem::Request) -> StatusCode {
        let odd = request
            .uri()
            .path()
            .rsplit('/')
            .next()
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|n| n % 2 == 1);
        if odd {
            StatusCode::SERVICE_UNAVAILABLE
        } else {
            StatusCode::OK
        }
    }

    /// A real server on a free loopback port, and a target for it.
    async fn server() -> Target {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        let address = listener.local_addr().expect("its address");
        drop(listener);
        let app = Route::new().at("/n/:n", numbered);
        tokio::spawn(poem::Server::new(TcpListener::bind(address)).run(app));
        let target = Target::new(&format!("http://{address}"), "lk_x", "ls_y").expect("a client");
        for _ in 0..100 {
            if target.send(&Request::get("/n/0")).await.is_some() {
                return target;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the test server never answered");
    }

    fn numbered_requests() -> RequestSource {
        Arc::new(|n| Request::get(format!("/n/{n}")))
    }

    #[tokio::test]
    async fn send_all_sends_each_numbered_request_once_and_tallies_statuses() {
        let target = server().await;
        let result = send_all(&target, 4, 21, &numbered_requests()).await;
        assert_eq!(result.statuses.get(&200), Some(&11));
        assert_eq!(result.statuses.get(&503), Some(&10));
        assert_eq!(result.successes(), 11);
        assert_eq!(result.failures(), 10);
        assert_eq!(result.latencies_us.len(), 21);
        assert!(result.latencies_us.is_sorted());
    }

    #[tokio::test]
    async fn a_fixed_rate_sends_exactly_rate_times_duration_requests() {
        let target = server().await;
        let result = run(
            &target,
            Load::Rate(40),
            Duration::ZERO,
            Duration::from_millis(500),
            &Arc::new(AtomicU64::new(0)),
            &numbered_requests(),
        )
        .await;
        assert_eq!(result.statuses.values().sum::<u64>(), 20);
        assert_eq!(result.transport_errors, 0);
        assert_eq!(result.load, Load::Rate(40));
    }

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let sorted: Vec<u64> = (1..=1000).collect();
        assert_eq!(percentile(&sorted, 0.5), 500);
        assert_eq!(percentile(&sorted, 0.99), 990);
        assert_eq!(percentile(&sorted, 0.999), 999);
        assert_eq!(percentile(&sorted, 1.0), 1000);
        assert_eq!(percentile(&[7], 0.999), 7);
        assert_eq!(percentile(&[], 0.5), 0);
    }
}
