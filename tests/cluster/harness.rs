//! A SurrealDB server and the `loyalty` nodes sharing it.

use std::sync::{Arc, LazyLock};

use loyalty::bench::surreal::SurrealServer;
use loyalty::resources::companies::model::CreatedApiKey;
use loyalty::server::ServerSettings;
use serde_json::Value;
use tokio::sync::{OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock};

use crate::common::{OPERATOR_TOKEN, TestServer, all_at_once};

/// Held shared by every running cluster, and alone by a test that measures
/// a rate: two clusters at once share the machine's cores, and a node
/// waiting for a core admits no request meanwhile.
static MACHINE: LazyLock<Arc<RwLock<()>>> = LazyLock::new(Arc::default);

/// Whether a cluster has the machine to itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Machine {
    /// Other tests' clusters may run beside it.
    Shared,
    /// No other cluster runs while it does.
    Alone,
}

/// One SurrealDB server and the nodes started on it.
pub struct Cluster {
    /// The shared store.
    pub surreal: SurrealServer,
    /// The `loyalty` nodes, in the order they started (node 0 bootstrapped
    /// the store).
    pub nodes: Vec<TestServer>,
    /// The demo Company's key, created by node 0's first start.
    pub key: CreatedApiKey,
    /// The campaigns directory every node reads, and the server's log.
    pub dir: tempfile::TempDir,
    /// What every node's settings change.
    tweak: fn(&mut ServerSettings),
    /// Its hold on the machine, given back when it ends.
    _machine: Hold,
}

/// A hold on the machine, shared or alone, kept for as long as the cluster.
enum Hold {
    Shared { _guard: OwnedRwLockReadGuard<()> },
    Alone { _guard: OwnedRwLockWriteGuard<()> },
}

impl Cluster {
    /// A SurrealDB server in memory and `nodes` nodes on it, whose demo
    /// Company has the campaign files `files` (name, YAML).
    pub async fn start(nodes: usize, files: &[(&str, &str)]) -> Cluster {
        Self::start_on("memory", nodes, files).await
    }

    /// [`Cluster::start`] with the server's storage `storage` (`memory`, or
    /// `surrealkv` for a durable store in the cluster's directory).
    pub async fn start_on(storage: &str, nodes: usize, files: &[(&str, &str)]) -> Cluster {
        Self::start_with(storage, nodes, files, |_| {}).await
    }

    /// [`Cluster::start`] with the machine to itself (`Machine::Alone`),
    /// for a test that measures a rate.
    pub async fn start_alone(nodes: usize, files: &[(&str, &str)]) -> Cluster {
        Self::start_held(Machine::Alone, "memory", nodes, files, |_| {}).await
    }

    /// [`Cluster::start_on`] with every node's settings changed by `tweak`.
    pub async fn start_with(
        storage: &str,
        nodes: usize,
        files: &[(&str, &str)],
        tweak: fn(&mut ServerSettings),
    ) -> Cluster {
        Self::start_held(Machine::Shared, storage, nodes, files, tweak).await
    }

    async fn start_held(
        machine: Machine,
        storage: &str,
        nodes: usize,
        files: &[(&str, &str)],
        tweak: fn(&mut ServerSettings),
    ) -> Cluster {
        let hold = match machine {
            Machine::Shared => Hold::Shared {
                _guard: MACHINE.clone().read_owned().await,
            },
            Machine::Alone => Hold::Alone {
                _guard: MACHINE.clone().write_owned().await,
            },
        };
        let dir = tempfile::tempdir().expect("a temporary directory");
        let company = dir.path().join("campaigns").join("demo");
        std::fs::create_dir_all(&company).expect("the Company's folder");
        for (name, text) in files {
            std::fs::write(company.join(name), text).expect("a campaign file");
        }
        let storage = match storage {
            "surrealkv" => format!("surrealkv://{}", dir.path().join("store").display()),
            other => other.to_string(),
        };
        let surreal = SurrealServer::start(&storage, &dir.path().join("surreal.log"))
            .await
            .expect("the SurrealDB server starts (cargo build -p surreal --profile surreal)");
        let mut settings = node_settings(&surreal, dir.path());
        tweak(&mut settings);
        let first = TestServer::start_with(settings).await;
        let key = first.bootstrap_key();
        let mut cluster = Cluster {
            surreal,
            nodes: vec![first],
            key,
            dir,
            tweak,
            _machine: hold,
        };
        for _ in 1..nodes {
            cluster.add_node().await;
        }
        cluster
    }

    /// The settings of a node on this cluster's server.
    pub fn node_settings(&self) -> ServerSettings {
        let mut settings = node_settings(&self.surreal, self.dir.path());
        (self.tweak)(&mut settings);
        settings
    }

    /// Starts one more node.
    pub async fn add_node(&mut self) -> &TestServer {
        let node = TestServer::start_with(self.node_settings()).await;
        self.nodes.push(node);
        self.nodes.last().expect("just added")
    }

    /// Node `n` modulo the number of nodes: requests numbered 0, 1, 2...
    /// alternate between them.
    pub fn node(&self, n: usize) -> &TestServer {
        &self.nodes[n % self.nodes.len()]
    }

    /// `method path` with `body` as the demo Company, to node `n`.
    pub fn request(
        &self,
        n: usize,
        method: &str,
        path: &str,
        body: &Value,
    ) -> reqwest::RequestBuilder {
        self.node(n).request_as(method, path, &self.key).json(body)
    }

    /// Sends `method path` with `body` to node `n`; the status and answer.
    pub async fn call(&self, n: usize, method: &str, path: &str, body: Value) -> (u16, Value) {
        self.node(n)
            .send(self.request(n, method, path, &body))
            .await
    }

    /// GET `path` as the demo Company on node `n`.
    pub async fn get(&self, n: usize, path: &str) -> (u16, Value) {
        self.node(n).get_as(path, &self.key).await
    }

    /// Sends each body of `bodies` to `method path` at once, alternating
    /// between the nodes; the answers in the order they complete.
    pub async fn spread(&self, method: &str, path: &str, bodies: &[Value]) -> Vec<(u16, Value)> {
        let requests = bodies
            .iter()
            .enumerate()
            .map(|(n, body)| self.request(n, method, path, body))
            .collect();
        all_at_once(requests).await
    }

    /// A new Customer of the demo Company, created on node 0; its id.
    pub async fn customer(&self, email: &str) -> String {
        self.nodes[0]
            .create_customer(&self.key, serde_json::json!({"email": email}))
            .await
    }
}

/// The settings of a node on `surreal`, reading the campaigns under `dir`.
fn node_settings(surreal: &SurrealServer, dir: &std::path::Path) -> ServerSettings {
    let mut settings = ServerSettings::for_store(&surreal.url(), OPERATOR_TOKEN);
    settings.remote_auth = Some(surreal.auth());
    settings.campaigns = dir.join("campaigns");
    settings
}
