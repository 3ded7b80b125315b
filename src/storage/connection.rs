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
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use surrealdb::engine::any::Any;
use surrealdb::method::{IntoVariables, Query};
use surrealdb::{IndexedResults, Surreal};

use crate::storage::health::StoreHealth;

/// Counts the completed queries that may have written any Customer's state
/// without naming whose: what a Customer read before one of them is no longer
/// served ([`crate::resources::customers::cache`]).
#[derive(Debug, Default)]
pub(crate) struct WriteEpoch(AtomicU64);

impl WriteEpoch {
    /// The epoch now.
    pub(crate) fn current(&self) -> u64 {
        self.0.load(Ordering::Acquire)
    }

    /// A write completed.
    pub(crate) fn moved(&self) {
        self.0.fetch_add(1, Ordering::AcqRel);
    }
}

/// Whether SurrealQL `text` may write: every statement of the service is
/// written in capitals, so a write shows one of these words.
fn may_write(text: &str) -> bool {
    [
        "CREATE", "UPDATE", "UPSERT", "DELETE", "INSERT", "RELATE", "DEFINE", "REMOVE",
    ]
    .iter()
    .any(|word| text.contains(word))
}

/// The connected clients and the health of their store. Clones share the
/// clients' sessions: cloning a `Surreal` opens a new session, which a
/// remote server must set up (namespace, sign-in) before it answers as the
/// first, and under load the client can drop the request to set it up, so a
/// clone's queries would run unauthenticated.
///
/// A remote store gets several connections, each signed in on its own, and
/// queries take them in turn: a SurrealDB server runs all the queries of one
/// WebSocket connection on one task, so one connection would use one of the
/// server's cores however many it has.
#[derive(Clone, Debug)]
pub(crate) struct Db {
    clients: Arc<[Surreal<Any>]>,
    /// The client the next query takes.
    turn: Arc<AtomicUsize>,
    pub(crate) health: Arc<StoreHealth>,
    /// Queries sent so far (each one round trip to a remote store).
    sent: Arc<AtomicU64>,
    /// Microseconds the queries took from sent to answered, summed.
    waited: Arc<AtomicU64>,
    /// Moved by every write that does not name the Customers it changes.
    pub(crate) epoch: Arc<WriteEpoch>,
}

impl Db {
    /// Whether no other clone of this `Db` holds its clients: dropping this
    /// one lets the store close.
    pub(crate) fn is_last_handle(&self) -> bool {
        Arc::strong_count(&self.clients) == 1
    }

    /// `clients` (at least one) of one store, which is remote (its
    /// connections can break) or not.
    pub(crate) fn new(clients: Vec<Surreal<Any>>, remote: bool) -> Db {
        assert!(!clients.is_empty(), "a store needs a client");
        Db {
            clients: clients.into(),
            turn: Arc::default(),
            health: Arc::new(StoreHealth::new(remote)),
            sent: Arc::new(AtomicU64::new(0)),
            waited: Arc::new(AtomicU64::new(0)),
            epoch: Arc::default(),
        }
    }

    /// How many queries this store was sent, by every clone: what a request
    /// costs in round trips, for tests and measurements.
    pub(crate) fn queries_sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    /// The time queries took from sent to answered, summed.
    pub(crate) fn query_time(&self) -> std::time::Duration {
        std::time::Duration::from_micros(self.waited.load(Ordering::Relaxed))
    }

    /// A query of the SurrealQL `text`, to bind variables to and await.
    /// When it may write, it moves the write epoch as it completes.
    pub(crate) fn query<'c>(&'c self, text: impl Into<Cow<'c, str>>) -> StoreQuery<'c> {
        let text = text.into();
        let moves = may_write(&text).then_some(&*self.epoch);
        StoreQuery {
            moves,
            ..self.query_keeping_customers(text)
        }
    }

    /// A query of the SurrealQL `text` that leaves the Customers kept in
    /// memory alone ([`crate::resources::customers::cache`]): it writes no
    /// Customer's state (a lease, an Idempotency-Key), or its caller forgets
    /// each Customer it writes once it completes.
    pub(crate) fn query_keeping_customers<'c>(
        &'c self,
        text: impl Into<Cow<'c, str>>,
    ) -> StoreQuery<'c> {
        self.sent.fetch_add(1, Ordering::Relaxed);
        let turn = self.turn.fetch_add(1, Ordering::Relaxed) % self.clients.len();
        StoreQuery {
            query: self.clients[turn].query(text),
            waited: &self.waited,
            health: &self.health,
            probe: false,
            moves: None,
        }
    }

    /// A query sent whatever the store's health, to find out whether it
    /// answers. It renews a lease and writes no Customer's state.
    pub(crate) fn probe_query<'c>(&'c self, text: impl Into<Cow<'c, str>>) -> StoreQuery<'c> {
        StoreQuery {
            probe: true,
            ..self.query_keeping_customers(text)
        }
    }
}

/// A query being built; awaiting it sends it unless the store is known
/// unreachable.
#[must_use = "a query does nothing until it is awaited"]
pub(crate) struct StoreQuery<'c> {
    query: Query<'c, Any>,
    /// Where the time it takes is added.
    waited: &'c AtomicU64,
    health: &'c StoreHealth,
    probe: bool,
    /// The epoch moved when the query completes, if it may write.
    moves: Option<&'c WriteEpoch>,
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
        let answer = self.health.bound(self.query.into_future(), self.probe);
        let waited = self.waited;
        let moves = self.moves;
        Box::pin(async move {
            // Moved whatever the answer (a failed or lost one may have
            // written), and when the request is dropped mid-query: an
            // embedded store runs the query in this future, so nothing of
            // it runs after.
            let _moves = moves.map(MovesOnDrop);
            let sent = std::time::Instant::now();
            let answered = answer.await;
            waited.fetch_add(sent.elapsed().as_micros() as u64, Ordering::Relaxed);
            answered
        })
    }
}

/// Moves an epoch when dropped.
struct MovesOnDrop<'e>(&'e WriteEpoch);

impl Drop for MovesOnDrop<'_> {
    fn drop(&mut self) {
        self.0.moved();
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
    async fn a_write_moves_the_epoch_and_a_read_or_a_lease_does_not() {
        let store = Store::connect("mem://", None).await.unwrap();
        let epoch = || store.db.epoch.current();
        let start = epoch();
        store.db.query("SELECT * FROM customer").await.unwrap();
        assert_eq!(epoch(), start, "a read");
        store.db.query("UPSERT thing:1 SET a = 1").await.unwrap();
        assert_eq!(epoch(), start + 1, "a write");
        store.db.query("THROW 'refused'").await.unwrap();
        store.db.query("CREATE thing:1 SET a = 2").await.unwrap();
        assert_eq!(epoch(), start + 2, "a refused write too");
        store
            .db
            .query_keeping_customers("UPSERT thing:2 SET a = 1")
            .await
            .unwrap();
        store
            .renew_instance("process", crate::common::time::Timestamp::now())
            .await
            .unwrap();
        assert_eq!(epoch(), start + 2, "writes of no Customer");
    }

    /// Against a SurrealDB server, queries take the store's connections in
    /// turn, each signed in and in the service's database.
    #[cfg(feature = "surreal-server")]
    #[tokio::test]
    async fn a_remote_stores_queries_take_its_connections_in_turn() {
        let dir = std::env::temp_dir().join(format!(
            "loyalty-connections-{}",
            crate::secrets::random_hex(4)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let server = crate::bench::surreal::SurrealServer::start("memory", &dir.join("log"))
            .await
            .unwrap();
        let store = Store::connect_with(&server.url(), Some(server.auth()), 3)
            .await
            .unwrap();
        let mut sessions = Vec::new();
        for _ in 0..6 {
            sessions.push(session_of(&store).await);
        }
        assert_eq!(sessions[0..3], sessions[3..6], "in turn: {sessions:?}");
        let mut distinct = sessions.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 3, "{sessions:?}");
        // Every connection reads and writes the service's database.
        for n in 0..3 {
            store
                .db
                .query(format!("CREATE probe:{n} SET n = {n}"))
                .await
                .unwrap()
                .check()
                .unwrap();
        }
        let mut counted = store
            .db
            .query("RETURN count(SELECT * FROM probe)")
            .await
            .unwrap();
        let count: Option<i64> = counted.take(0).unwrap();
        assert_eq!(count, Some(3));
        let _ = std::fs::remove_dir_all(&dir);
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
