//! Opening a store: the URL forms accepted, the embedded directory and its
//! lock, the connections to a remote server and their sign-in, and what a
//! new [`Store`] starts with (its writers, lanes and Customer cache).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use surrealdb::Surreal;
use surrealdb::engine::any::{self, Any};
use surrealdb::opt::auth::Root;

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::storage::{DATABASE, NAMESPACE, RemoteAuth, Store, execute, store_error};

/// How long a write waits for admission. A till gives up after a few
/// seconds; beyond that, queueing only leaves work nobody waits for, so the
/// write is refused (`server_busy`, nothing changed) and the backlog an
/// overload leaves behind stays this short.
pub(crate) const ADMISSION_WAIT: Duration = Duration::from_secs(5);

/// How many write transactions run at once against an embedded store, per
/// core. More in flight only lengthen each one (they share the cores), so
/// more of them overlap and conflict: with 32 tills sending 300 carts/s to
/// 2 cores, unbounded transactions answered 45 of 3,000 carts with 409 and
/// p50 4.1 s; four at a time, none and 1.0 s. (Carts and Custom Events are
/// now recorded by the group commit, one batch per lane at a time; the
/// other writes still go through here.)
const EMBEDDED_WRITERS_PER_CORE: usize = 2;

/// Connections to a remote server. It runs the queries of one connection on
/// one task, so fewer connections than its cores leave some of them idle;
/// more cost a little memory on both sides.
pub const DEFAULT_REMOTE_CONNECTIONS: usize = 4;

/// How many write transactions run at once against a remote server, which
/// has cores of its own.
const REMOTE_WRITERS: usize = 64;

impl Store {
    /// Connects to `url` (`mem://`, `surrealkv://PATH` or `ws://HOST:PORT`) and
    /// applies the schema; a remote store over
    /// [`DEFAULT_REMOTE_CONNECTIONS`] connections.
    pub async fn connect(url: &str, remote_auth: Option<RemoteAuth>) -> ApiResult<Store> {
        Store::connect_with(url, remote_auth, DEFAULT_REMOTE_CONNECTIONS).await
    }

    /// [`Store::connect`], with `connections` connections (at least one) to
    /// a remote store; an embedded store has one.
    pub async fn connect_with(
        url: &str,
        remote_auth: Option<RemoteAuth>,
        connections: usize,
    ) -> ApiResult<Store> {
        let url = normalise_url(url)?;
        let directory = url.strip_prefix("surrealkv://").map(PathBuf::from);
        if let Some(path) = &directory {
            std::fs::create_dir_all(path).map_err(|e| {
                ApiError::new(
                    ErrorCode::StoreUnavailable,
                    format!("cannot create the store directory {}: {e}", path.display()),
                )
            })?;
        }
        let remote = is_remote(&url);
        let first = match &directory {
            Some(path) => crate::storage::fresh_log::open_on_a_fresh_log(&url, path).await?,
            None => open_waiting_for_lock(&url, LockWait::ANOTHER_HANDLE).await?,
        };
        sign_in(&first, &url, remote_auth.as_ref()).await?;
        create_namespace_and_database(&first).await?;
        let mut clients = vec![first];
        let more = if remote { connections.max(1) - 1 } else { 0 };
        for _ in 0..more {
            let client = open_waiting_for_lock(&url, LockWait::ANOTHER_HANDLE).await?;
            sign_in(&client, &url, remote_auth.as_ref()).await?;
            clients.push(client);
        }
        for client in &clients {
            client
                .use_ns(NAMESPACE)
                .use_db(DATABASE)
                .await
                .map_err(store_error)?;
        }
        let (writers, lanes) = if remote {
            (REMOTE_WRITERS, crate::storage::group_commit::REMOTE_LANES)
        } else {
            let cores = std::thread::available_parallelism().map_or(2, usize::from);
            (EMBEDDED_WRITERS_PER_CORE * cores, cores)
        };
        let db = crate::storage::connection::Db::new(clients, remote);
        let customers = customer_cache(
            &db,
            remote,
            crate::resources::customers::cache::DEFAULT_CAPACITY,
        );
        let store = Store {
            db,
            memory: crate::storage::memory::Memory {
                customers,
                ledger_clock: Default::default(),
                kinds: crate::storage::memory::KindsMemory::new(),
                webhooks: Default::default(),
            },
            writers: std::sync::Arc::new(tokio::sync::Semaphore::new(writers)),
            admission_wait: ADMISSION_WAIT,
            event_writes: std::sync::Arc::new(crate::storage::group_commit::WriteQueue::new(lanes)),
            remote,
            metrics: Default::default(),
            directory,
            batch_capture: None,
        };
        store.apply_schema().await?;
        Ok(store)
    }

    /// Keeps at most `capacity` Customers in memory (none: every read goes
    /// to the store). A remote store's Customers are never kept: other
    /// servers may change them.
    pub fn keep_customers(&mut self, capacity: usize) {
        self.memory.customers = customer_cache(&self.db, self.remote, capacity);
    }

    /// Keeps the first transactions of the group commit in `dir`, for
    /// `loyalty bench --replay` ([`crate::storage::batch_capture`]).
    pub fn capture_batches(&mut self, dir: std::path::PathBuf) -> ApiResult<()> {
        let capture = crate::storage::batch_capture::BatchCapture::new(dir)?;
        self.batch_capture = Some(std::sync::Arc::new(capture));
        Ok(())
    }

    pub(crate) async fn apply_schema(&self) -> ApiResult<()> {
        execute(self.db.query(crate::storage::schema::schema())).await?;
        Ok(())
    }
}

/// The Customer cache of `db`: `capacity` Customers, none when remote.
fn customer_cache(
    db: &crate::storage::connection::Db,
    remote: bool,
    capacity: usize,
) -> std::sync::Arc<crate::resources::customers::cache::CustomerCache> {
    let capacity = if remote { 0 } else { capacity };
    std::sync::Arc::new(crate::resources::customers::cache::CustomerCache::new(
        capacity,
        db.epoch.clone(),
    ))
}

/// How long an open waits for a SurrealKV directory that is still locked,
/// and whether that is worth a warning.
#[derive(Debug, Clone, Copy)]
pub(super) struct LockWait {
    longest: Duration,
    warn: bool,
}

impl LockWait {
    /// A process (or an earlier handle in this process) still shutting down.
    pub(super) const ANOTHER_HANDLE: LockWait = LockWait {
        longest: Duration::from_secs(10),
        warn: true,
    };

    /// This process's own previous handle, closing as planned; its close
    /// flushes what it holds (a large log takes seconds).
    pub(super) const OUR_OWN_CLOSE: LockWait = LockWait {
        longest: Duration::from_secs(300),
        warn: false,
    };

    /// A stopping process's store, flushing what it holds: a stop that
    /// cannot flush (a full disk) is not held up for long, and the next start
    /// replays the log instead.
    pub(super) const CLEAN_STOP: LockWait = LockWait {
        longest: Duration::from_secs(30),
        warn: true,
    };

    /// Waits until no process or handle holds `lock_file` (SurrealKV's lock
    /// of a store directory), or there is no such file, or this wait's time
    /// is up (which it warns of, if it warns).
    pub(super) async fn until_released(self, lock_file: &Path) {
        let deadline = Instant::now() + self.longest;
        while Instant::now() < deadline {
            let Ok(file) = std::fs::File::open(lock_file) else {
                return;
            };
            if file.try_lock().is_ok() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if self.warn {
            tracing::warn!(
                lock = %lock_file.display(),
                "the store did not close in time; its next start replays its log"
            );
        }
    }
}

/// Signs `client` in to `url` with `auth`, when there is one (a remote store).
async fn sign_in(client: &Surreal<Any>, url: &str, auth: Option<&RemoteAuth>) -> ApiResult<()> {
    let Some(auth) = auth else { return Ok(()) };
    client
        .signin(Root {
            username: auth.username.clone(),
            password: auth.password.clone(),
        })
        .await
        .map_err(|e| {
            ApiError::new(
                ErrorCode::StoreUnavailable,
                format!("cannot sign in to {url}: {e}"),
            )
        })?;
    Ok(())
}

/// Creates the service's namespace and database when they do not exist yet.
pub(super) async fn create_namespace_and_database(client: &Surreal<Any>) -> ApiResult<()> {
    client
        .query(format!(
            "DEFINE NAMESPACE IF NOT EXISTS {NAMESPACE}; USE NS {NAMESPACE}; DEFINE DATABASE IF NOT EXISTS {DATABASE};"
        ))
        .await
        .and_then(|r| r.check())
        .map_err(store_error)?;
    Ok(())
}

/// Opens `url`, retrying as `wait` says while its directory is still locked
/// by a store that is shutting down: the embedded engine closes
/// asynchronously after its last handle is dropped, and a restarted service
/// may start before the old one has released the lock.
pub(super) async fn open_waiting_for_lock(url: &str, wait: LockWait) -> ApiResult<Surreal<Any>> {
    let deadline = Instant::now() + wait.longest;
    let mut announced = !wait.warn;
    loop {
        match any::connect(url).await {
            Ok(db) => return Ok(db),
            Err(error)
                if error.to_string().contains("already locked") && Instant::now() < deadline =>
            {
                if !announced {
                    tracing::warn!(store = %url, "store is locked by another handle; waiting for it to close");
                    announced = true;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(error) => {
                return Err(ApiError::new(
                    ErrorCode::StoreUnavailable,
                    format!("cannot open the store {url}: {error}"),
                ));
            }
        }
    }
}

/// Accepts the documented URL forms and rejects anything else with a clear message.
/// Whether the store `url` names is a SurrealDB server reached over the
/// network, not one this process embeds.
pub fn is_remote(url: &str) -> bool {
    url.starts_with("ws://") || url.starts_with("wss://")
}

fn normalise_url(url: &str) -> ApiResult<String> {
    let supported = ["mem://", "surrealkv://", "ws://", "wss://"];
    if !supported.iter().any(|prefix| url.starts_with(prefix)) {
        return Err(ApiError::invalid(format!(
            "unsupported store `{url}`: use mem://, surrealkv://PATH or ws://HOST:PORT"
        )));
    }
    if url == "surrealkv://" {
        return Err(ApiError::invalid(
            "surrealkv:// needs a directory, e.g. surrealkv://data/store",
        ));
    }
    if url.starts_with("wss://") {
        return Err(ApiError::invalid(
            "wss:// is not built in; terminate TLS in front of SurrealDB and use ws://",
        ));
    }
    Ok(url.to_string())
}
