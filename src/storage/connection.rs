//! The connection to SurrealDB as every query of the service uses it: the
//! client's own query builder, whose answer a remote store's health bounds
//! ([`crate::storage::health`]). While the store is known unreachable a
//! query is not sent; one waiting when the store is found unreachable stops
//! waiting; a broken connection a query meets marks the store unreachable.
//! Either way the query fails as a connection error, which
//! [`crate::storage::store_error`] answers with `store_unavailable`.

use std::borrow::Cow;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use surrealdb::engine::any::Any;
use surrealdb::method::{IntoVariables, Query};
use surrealdb::{IndexedResults, Surreal};

use crate::storage::health::StoreHealth;

/// A connected client and the health of its store. Clones share the
/// client's one session: cloning a `Surreal` opens a new session, which a
/// remote server must set up (namespace, sign-in) before it answers as the
/// first, and under load the client can drop the request to set it up, so a
/// clone's queries would run unauthenticated.
#[derive(Clone, Debug)]
pub(crate) struct Db {
    client: Arc<Surreal<Any>>,
    pub(crate) health: Arc<StoreHealth>,
    /// Queries sent so far (each one round trip to a remote store).
    sent: Arc<AtomicU64>,
}

impl Db {
    /// `client`, whose store is remote (its connection can break) or not.
    pub(crate) fn new(client: Surreal<Any>, remote: bool) -> Db {
        Db {
            client: Arc::new(client),
            health: Arc::new(StoreHealth::new(remote)),
            sent: Arc::new(AtomicU64::new(0)),
        }
    }

    /// How many queries this store was sent, by every clone: what a request
    /// costs in round trips, for tests and measurements.
    pub(crate) fn queries_sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    /// A query of the SurrealQL `text`, to bind variables to and await.
    pub(crate) fn query<'c>(&'c self, text: impl Into<Cow<'c, str>>) -> StoreQuery<'c> {
        self.sent.fetch_add(1, Ordering::Relaxed);
        StoreQuery {
            query: self.client.query(text),
            health: &self.health,
            probe: false,
        }
    }

    /// A query sent whatever the store's health, to find out whether it
    /// answers.
    pub(crate) fn probe_query<'c>(&'c self, text: impl Into<Cow<'c, str>>) -> StoreQuery<'c> {
        StoreQuery {
            probe: true,
            ..self.query(text)
        }
    }
}

/// A query being built; awaiting it sends it unless the store is known
/// unreachable.
#[must_use = "a query does nothing until it is awaited"]
pub(crate) struct StoreQuery<'c> {
    query: Query<'c, Any>,
    health: &'c StoreHealth,
    probe: bool,
}

impl<'c> StoreQuery<'c> {
    /// Binds variables (a `(name, value)` pair, or a map of them).
    pub(crate) fn bind(self, variables: impl IntoVariables) -> Self {
        StoreQuery {
            query: self.query.bind(variables),
            ..self
        }
    }
}

impl<'c> IntoFuture for StoreQuery<'c> {
    type Output = surrealdb::Result<IndexedResults>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send + 'c>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.health.bound(self.query.into_future(), self.probe))
    }
}

#[cfg(test)]
mod tests {
    use crate::storage::Store;

    /// The session a query runs in, as the store sees it.
    async fn session_of(store: &Store) -> String {
        let mut answer = store.db.query("RETURN <string> $session.id").await.unwrap();
        let id: Option<String> = answer.take(0).unwrap();
        id.expect("a session id")
    }

    #[tokio::test]
    async fn clones_of_a_store_share_its_session() {
        let store = Store::connect("mem://", None).await.unwrap();
        let clones: Vec<Store> = (0..4).map(|_| store.clone()).collect();
        let first = session_of(&store).await;
        for clone in &clones {
            assert_eq!(session_of(clone).await, first);
        }
    }
}
