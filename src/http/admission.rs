//! Admission: the server takes on only the requests it can answer soon.
//!
//! At most `in_flight` requests are served at once and at most `queued` wait
//! for a turn, each no longer than the store admits a write; any other is
//! answered at once with 503 `server_busy`, before authentication, having
//! changed nothing. Without it an overload queues without bound: every
//! request first pays for its reads, then waits, and a till's answers take
//! longer and longer until they all time out, while the work nobody waits
//! for any more still runs. `GET /check` is always served, so that a load
//! balancer sees a busy server as alive.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use poem::{Endpoint, Middleware, Request};
use tokio::sync::Semaphore;

use crate::error::ApiError;
use crate::error::ErrorCode;
use crate::http::errors::poem_error;

/// Requests served at once by default: well above what the cores keep busy
/// (a cart takes a few milliseconds of CPU), so only an overload waits.
pub const DEFAULT_IN_FLIGHT: usize = 64;

/// Requests that may wait for a turn by default; at a few hundred carts a
/// second that is well under a second of waiting.
pub const DEFAULT_QUEUED: usize = 192;

/// Longest a request waits for a turn.
const LONGEST_WAIT: Duration = Duration::from_secs(5);

/// The middleware; clones share the same limits.
#[derive(Debug, Clone)]
pub struct AdmissionGate {
    limits: Arc<Limits>,
}

#[derive(Debug)]
struct Limits {
    turns: Semaphore,
    queued: AtomicUsize,
    most_queued: usize,
    longest_wait: Duration,
}

impl AdmissionGate {
    /// Serves `in_flight` requests at once (at least one), with `queued`
    /// more waiting.
    pub fn new(in_flight: usize, queued: usize) -> AdmissionGate {
        AdmissionGate {
            limits: Arc::new(Limits {
                turns: Semaphore::new(in_flight.max(1)),
                queued: AtomicUsize::new(0),
                most_queued: queued,
                longest_wait: LONGEST_WAIT,
            }),
        }
    }
}

impl<E: Endpoint> Middleware<E> for AdmissionGate {
    type Output = AdmissionGateEndpoint<E>;

    fn transform(&self, inner: E) -> Self::Output {
        AdmissionGateEndpoint {
            inner,
            limits: self.limits.clone(),
        }
    }
}

/// The endpoint produced by [`AdmissionGate`].
#[derive(Debug)]
pub struct AdmissionGateEndpoint<E> {
    inner: E,
    limits: Arc<Limits>,
}

/// Counts a request among the queued while it waits.
struct Queued<'a>(&'a AtomicUsize);

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

fn busy() -> poem::Error {
    poem_error(ApiError::new(
        ErrorCode::ServerBusy,
        "the server is at capacity; this request was not started and changed nothing, retry",
    ))
}

impl<E: Endpoint> Endpoint for AdmissionGateEndpoint<E> {
    type Output = E::Output;

    async fn call(&self, request: Request) -> poem::Result<Self::Output> {
        if request.uri().path() == "/check" {
            return self.inner.call(request).await;
        }
        let limits = &self.limits;
        let _turn = match limits.turns.try_acquire() {
            Ok(turn) => turn,
            Err(_) => {
                if limits.queued.fetch_add(1, Ordering::AcqRel) >= limits.most_queued {
                    limits.queued.fetch_sub(1, Ordering::AcqRel);
                    return Err(busy());
                }
                let queued = Queued(&limits.queued);
                let turn = tokio::time::timeout(limits.longest_wait, limits.turns.acquire()).await;
                drop(queued);
                match turn {
                    Ok(Ok(turn)) => turn,
                    _ => return Err(busy()),
                }
            }
        };
        self.inner.call(request).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use poem::EndpointExt;
    use poem::http::StatusCode;
    use poem::test::TestClient;
    use tokio::sync::Notify;

    /// An endpoint that holds every request until `release` is notified,
    /// counting those it started.
    fn held(release: Arc<Notify>, started: Arc<AtomicUsize>) -> impl Endpoint {
        poem::endpoint::make(move |_| {
            let (release, started) = (release.clone(), started.clone());
            async move {
                started.fetch_add(1, Ordering::SeqCst);
                release.notified().await;
                "served"
            }
        })
    }

    /// A client of [`held`] behind an admission of `in_flight` and `queued`
    /// where a turn is waited for at most `wait`; with the endpoint's release
    /// and its count of started requests.
    fn admitted(
        in_flight: usize,
        queued: usize,
        wait: Duration,
    ) -> (
        Arc<TestClient<impl Endpoint>>,
        Arc<Notify>,
        Arc<AtomicUsize>,
    ) {
        let (release, started) = (Arc::new(Notify::new()), Arc::new(AtomicUsize::new(0)));
        let mut admission = AdmissionGate::new(in_flight, queued);
        Arc::get_mut(&mut admission.limits)
            .expect("not shared yet")
            .longest_wait = wait;
        let app = held(release.clone(), started.clone())
            .with(admission)
            .with(crate::http::errors::JsonErrors::default());
        (Arc::new(TestClient::new(app)), release, started)
    }

    #[tokio::test]
    async fn requests_beyond_the_turns_and_the_queue_are_refused_at_once_and_never_started() {
        // Queued requests wait as long as the test needs.
        let (client, release, started) = admitted(2, 3, Duration::from_secs(600));
        let mut tasks = Vec::new();
        for _ in 0..5 {
            let client = client.clone();
            tasks.push(tokio::spawn(async move {
                client.get("/x").send().await.0.status()
            }));
        }
        // Two served, three queued: the sixth finds no room.
        while started.load(Ordering::SeqCst) < 2 {
            tokio::task::yield_now().await;
        }
        for _ in 0..50 {
            tokio::task::yield_now().await;
        }
        // Answered without waiting (a queued request would hang here).
        let refused = tokio::time::timeout(Duration::from_secs(10), client.get("/x").send())
            .await
            .expect("the sixth request is refused, not queued");
        refused.assert_status(StatusCode::SERVICE_UNAVAILABLE);
        let body: serde_json::Value = refused.json().await.value().deserialize();
        assert_eq!(body["code"], "server_busy");
        assert_eq!(started.load(Ordering::SeqCst), 2);
        // /check is served whatever the load.
        let check = {
            let client = client.clone();
            tokio::spawn(async move { client.get("/check").send().await.0.status() })
        };
        while started.load(Ordering::SeqCst) < 3 {
            tokio::task::yield_now().await;
        }
        // Released, every admitted and queued request is served.
        for _ in 0..100_000 {
            if started.load(Ordering::SeqCst) == 6 {
                break;
            }
            release.notify_waiters();
            tokio::task::yield_now().await;
        }
        assert_eq!(started.load(Ordering::SeqCst), 6);
        release.notify_waiters();
        for task in tasks {
            assert_eq!(task.await.unwrap(), StatusCode::OK);
        }
        assert_eq!(check.await.unwrap(), StatusCode::OK);
    }

    #[tokio::test]
    async fn a_request_that_waits_too_long_for_a_turn_is_refused_and_never_started() {
        let (client, release, started) = admitted(1, 10, Duration::from_millis(20));
        let first = {
            let client = client.clone();
            tokio::spawn(async move { client.get("/x").send().await.0.status() })
        };
        while started.load(Ordering::SeqCst) < 1 {
            tokio::task::yield_now().await;
        }
        let late = client.get("/x").send().await;
        late.assert_status(StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(started.load(Ordering::SeqCst), 1);
        release.notify_waiters();
        assert_eq!(first.await.unwrap(), StatusCode::OK);
    }
}
