//! The official SurrealDB server (`surreal`, `src/bin/surreal.rs`, built with
//! the `surreal-server` feature) as a child process on a loopback port: what
//! several `loyalty serve --db ws://...` nodes share in the multi-node tests
//! and measurements.
//!
//! It is started with the official command line, `surreal start --user root
//! --pass root --bind 127.0.0.1:PORT STORAGE`, where STORAGE is `memory` or
//! `surrealkv://PATH`, and can be stopped and started again on the same port
//! and storage, as an outage of the store.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::Context;
use tokio::process::{Child, Command};

use crate::bench::server::wait_until_answers;
use crate::storage::RemoteAuth;

/// The root user the server is started with.
pub const ROOT_USER: &str = "root";

/// The root password the server is started with (a loopback test server).
pub const ROOT_PASSWORD: &str = "root";

/// A running SurrealDB server; killed when dropped.
pub struct SurrealServer {
    /// The running process; none while stopped.
    child: tokio::sync::Mutex<Option<Child>>,
    /// Its process id (0 while stopped), for its CPU time.
    pid: std::sync::atomic::AtomicU32,
    binary: PathBuf,
    storage: String,
    port: u16,
    log: PathBuf,
}

impl SurrealServer {
    /// The `surreal` binary: `LOYALTY_SURREAL` when set, else the one built
    /// beside this program (in its Cargo profile's directory).
    pub fn binary() -> anyhow::Result<PathBuf> {
        if let Some(path) = std::env::var_os("LOYALTY_SURREAL") {
            return Ok(PathBuf::from(path));
        }
        let exe = std::env::current_exe()?;
        // `loyalty` runs from TARGET/PROFILE, a test from TARGET/PROFILE/deps.
        exe.ancestors()
            .skip(1)
            .take(2)
            .map(|dir| dir.join("surreal"))
            .find(|candidate| candidate.is_file())
            .with_context(|| {
                "the SurrealDB server is not built: `cargo test --features surreal-server` \
                 builds it for the tests, `cargo build --release --features surreal-server \
                 --bin surreal` for a deployment (or set LOYALTY_SURREAL to a `surreal` 3.3 binary)"
            })
    }

    /// Starts the server on a free loopback port with `storage` (`memory` or
    /// `surrealkv://PATH`), logging to `log`, and waits until it answers.
    pub async fn start(storage: &str, log: &Path) -> anyhow::Result<SurrealServer> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let server = SurrealServer {
            child: tokio::sync::Mutex::new(None),
            pid: std::sync::atomic::AtomicU32::new(0),
            binary: Self::binary()?,
            storage: storage.to_string(),
            port,
            log: log.to_path_buf(),
        };
        server.resume().await?;
        Ok(server)
    }

    /// The URL `loyalty serve --db` takes.
    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    /// CPU time the server has used so far, in clock ticks; `None` while
    /// stopped or where the operating system does not say.
    pub fn cpu_ticks(&self) -> Option<u64> {
        match self.pid.load(std::sync::atomic::Ordering::Relaxed) {
            0 => None,
            pid => crate::bench::server::process_cpu_ticks(pid),
        }
    }

    /// The root credentials (`--db-user`, `--db-pass`).
    pub fn auth(&self) -> RemoteAuth {
        RemoteAuth {
            username: ROOT_USER.to_string(),
            password: ROOT_PASSWORD.to_string(),
        }
    }

    /// Kills the server (SIGKILL) and waits until it is gone: connected
    /// nodes lose the store.
    pub async fn stop(&self) -> anyhow::Result<()> {
        if let Some(mut child) = self.child.lock().await.take() {
            child.kill().await?;
        }
        self.pid.store(0, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    /// Starts the server again on the same port and storage (after
    /// [`SurrealServer::stop`]) and waits until it answers.
    pub async fn resume(&self) -> anyhow::Result<()> {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)?;
        let mut child = Command::new(&self.binary)
            .args(["start", "--no-banner", "--log", "warn"])
            .args(["--user", ROOT_USER, "--pass", ROOT_PASSWORD])
            .arg("--bind")
            .arg(format!("127.0.0.1:{}", self.port))
            .arg(&self.storage)
            // As for the service under test: a backtrace captured for every
            // error the server handles itself costs it CPU on every cart.
            .env_remove("RUST_BACKTRACE")
            .env_remove("RUST_LIB_BACKTRACE")
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("cannot start {}", self.binary.display()))?;
        let health = format!("http://127.0.0.1:{}/health", self.port);
        let within = Duration::from_secs(60);
        wait_until_answers(&mut child, &health, within, &self.log).await?;
        self.pid.store(
            child.id().unwrap_or(0),
            std::sync::atomic::Ordering::Relaxed,
        );
        *self.child.lock().await = Some(child);
        Ok(())
    }
}
