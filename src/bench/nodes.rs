//! The servers under test: one `loyalty serve` on its embedded store (the
//! default), or several nodes sharing a SurrealDB server, either one given
//! (`--db ws://...`) or the built `surreal` the benchmark starts on SurrealKV
//! in its directory. Requests are spread over the nodes in turn; the CPU time
//! counted is theirs and, when the benchmark started it, the SurrealDB
//! server's.

use std::path::Path;

use crate::bench::server::{ServerProcess, ServerStore};
use crate::bench::surreal::SurrealServer;
use crate::bench::usage::sample;
use crate::storage::RemoteAuth;

/// Where the benchmark's servers keep their data.
#[derive(Debug, Clone)]
pub enum BenchStore {
    /// One server embedding SurrealKV, synced on every commit.
    Embedded,
    /// `nodes` servers sharing the SurrealDB server at `url` (with `auth`),
    /// or, without `url`, one the benchmark starts.
    Remote {
        /// `ws://HOST:PORT` of a running server.
        url: Option<String>,
        /// Its root credentials.
        auth: RemoteAuth,
        /// How many `loyalty` servers share it.
        nodes: usize,
    },
}

impl BenchStore {
    /// A short name for its directory and chart files: `embedded`,
    /// `surreal-N` (N nodes).
    pub fn tag(&self) -> String {
        match self {
            BenchStore::Embedded => "embedded".to_string(),
            BenchStore::Remote { nodes, .. } => format!("surreal-{nodes}"),
        }
    }

    /// How the report names it.
    pub fn describe(&self) -> String {
        match self {
            BenchStore::Embedded => "embedded SurrealKV".to_string(),
            BenchStore::Remote { url, nodes, .. } => format!(
                "{nodes} node(s) on {}",
                url.as_deref()
                    .unwrap_or("a SurrealDB server (surrealkv) on this machine")
            ),
        }
    }
}

/// The running servers; killed when dropped.
pub struct Nodes {
    /// The `loyalty` servers, the first of which created the store.
    pub servers: Vec<ServerProcess>,
    /// The SurrealDB server the benchmark started, if it did.
    pub surreal: Option<SurrealServer>,
    /// The operator token of their back offices (`GET /metrics`).
    admin_token: String,
}

impl Nodes {
    /// Starts the servers `store` asks for, with their campaigns and logs
    /// under `dir`: `serve` of the `loyalty` binary at `binary`, or of this
    /// one.
    pub async fn start(
        dir: &Path,
        admin_token: &str,
        store: &BenchStore,
        binary: Option<&Path>,
    ) -> anyhow::Result<Nodes> {
        let binary = match binary {
            Some(binary) => binary.to_path_buf(),
            None => std::env::current_exe()?,
        };
        let BenchStore::Remote { url, auth, nodes } = store else {
            let server = ServerProcess::start_binary(&binary, dir, admin_token).await?;
            return Ok(Nodes {
                servers: vec![server],
                surreal: None,
                admin_token: admin_token.to_string(),
            });
        };
        let surreal = match url {
            Some(_) => None,
            None => {
                let storage = format!("surrealkv://{}", dir.join("surreal-store").display());
                Some(SurrealServer::start(&storage, &dir.join("surreal.log")).await?)
            }
        };
        let (url, auth) = match &surreal {
            Some(started) => (started.url(), started.auth()),
            None => (url.clone().unwrap_or_default(), auth.clone()),
        };
        let mut servers = Vec::new();
        // One at a time: the first creates the schema and the demo Company.
        for node in 0..(*nodes).max(1) {
            let store = ServerStore {
                url: url.clone(),
                auth: Some(auth.clone()),
                log: format!("server-{node}.log"),
            };
            servers.push(ServerProcess::start_on(&binary, dir, admin_token, &store).await?);
        }
        Ok(Nodes {
            servers,
            surreal,
            admin_token: admin_token.to_string(),
        })
    }

    /// The first server, whose back office sets the benchmark up.
    pub fn first(&self) -> &ServerProcess {
        &self.servers[0]
    }

    /// Every server's API address.
    pub fn api_urls(&self) -> Vec<String> {
        self.servers.iter().map(|s| s.api_url.clone()).collect()
    }

    /// CPU time every process under test has used so far, in clock ticks;
    /// `None` where one of them cannot tell.
    pub fn cpu_ticks(&self) -> Option<u64> {
        let store = match &self.surreal {
            Some(surreal) => surreal.cpu_ticks()?,
            None => 0,
        };
        Some(self.nodes_cpu_ticks()? + store)
    }

    /// CPU time the `loyalty` servers have used so far, in clock ticks.
    pub fn nodes_cpu_ticks(&self) -> Option<u64> {
        self.servers.iter().map(ServerProcess::cpu_ticks).sum()
    }

    /// CPU time the SurrealDB server has used so far, in clock ticks, when
    /// the benchmark started it.
    pub fn store_cpu_ticks(&self) -> Option<u64> {
        self.surreal.as_ref()?.cpu_ticks()
    }

    /// The queries every server has sent to its store so far, and the
    /// seconds they took, from their `GET /metrics`; `None` when one of
    /// them does not answer.
    pub async fn store_queries(&self) -> Option<(u64, f64)> {
        let client = reqwest::Client::new();
        let (mut queries, mut seconds) = (0, 0.0);
        for server in &self.servers {
            let text = client
                .get(format!("{}/metrics", server.admin_url))
                .bearer_auth(&self.admin_token)
                .send()
                .await
                .ok()?
                .text()
                .await
                .ok()?;
            queries += sample(&text, "loyalty_store_queries_total")? as u64;
            seconds += sample(&text, "loyalty_store_query_seconds_total")?;
        }
        Some((queries, seconds))
    }

    /// Stops every server.
    pub async fn stop(self) -> anyhow::Result<()> {
        for server in self.servers {
            server.stop().await?;
        }
        if let Some(surreal) = &self.surreal {
            surreal.stop().await?;
        }
        Ok(())
    }
}
