//! The servers under test: one `loyalty serve` on its embedded store (the
//! default), or several nodes sharing a SurrealDB server, either one given
//! (`--db ws://...`) or the built `surreal` the benchmark starts on SurrealKV
//! in its directory. Requests are spread over the nodes in turn; the CPU time
//! counted is theirs and, when the benchmark started it, the SurrealDB
//! server's.

use std::path::Path;

use crate::bench::server::{ServerProcess, ServerStore};
use crate::bench::surreal::SurrealServer;
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
}

impl Nodes {
    /// Starts the servers `store` asks for, with their campaigns and logs
    /// under `dir`.
    pub async fn start(dir: &Path, admin_token: &str, store: &BenchStore) -> anyhow::Result<Nodes> {
        let binary = std::env::current_exe()?;
        let BenchStore::Remote { url, auth, nodes } = store else {
            let server = ServerProcess::start_binary(&binary, dir, admin_token).await?;
            return Ok(Nodes {
                servers: vec![server],
                surreal: None,
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
        Ok(Nodes { servers, surreal })
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
        let mut ticks = 0;
        for server in &self.servers {
            ticks += server.cpu_ticks()?;
        }
        if let Some(surreal) = &self.surreal {
            ticks += surreal.cpu_ticks()?;
        }
        Some(ticks)
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
