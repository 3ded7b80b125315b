//! The server under test: this same binary, started as a child process with
//! `serve` on a durable store in the benchmark's directory (or on a remote
//! SurrealDB server, one of several nodes), and killed when the benchmark
//! ends.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, bail};
use tokio::process::{Child, Command};

use crate::storage::RemoteAuth;

/// A running server; killed when dropped.
pub struct ServerProcess {
    child: Child,
    /// Base URL of its API.
    pub api_url: String,
    /// Base URL of its back-office listener.
    pub admin_url: String,
}

/// The store a started server uses, and where it logs.
#[derive(Debug, Clone)]
pub struct ServerStore {
    /// `--db`.
    pub url: String,
    /// `--db-user` and `--db-pass`, for a remote store.
    pub auth: Option<RemoteAuth>,
    /// The log's file name in the server's directory.
    pub log: String,
}

impl ServerStore {
    /// A store of its own, embedded, under `dir`.
    pub fn embedded(dir: &Path) -> ServerStore {
        ServerStore {
            url: format!("surrealkv://{}", dir.join("store").display()),
            auth: None,
            log: "server.log".to_string(),
        }
    }
}

impl ServerProcess {
    /// CPU time the server has used so far, in clock ticks; `None` where the
    /// operating system does not say (only Linux's `/proc` is read).
    pub fn cpu_ticks(&self) -> Option<u64> {
        process_cpu_ticks(self.child.id()?)
    }
}

/// CPU time the process `pid` has used so far, in clock ticks (1/100 s);
/// `None` where the operating system does not say.
pub fn process_cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    cpu_ticks_of(&stat)
}

/// The CPU time between two readings of [`process_cpu_ticks`], when both
/// were read.
pub fn cpu_between(before: Option<u64>, after: Option<u64>) -> Option<Duration> {
    before
        .zip(after)
        .map(|(before, after)| Duration::from_millis(after.saturating_sub(before) * 10))
}

/// User plus system CPU time in a `/proc/PID/stat` line.
fn cpu_ticks_of(stat: &str) -> Option<u64> {
    // Fields after the command name (which may hold spaces) start after ')':
    // utime and stime are the 12th and 13th of them.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let user: u64 = fields.get(11)?.parse().ok()?;
    let system: u64 = fields.get(12)?.parse().ok()?;
    Some(user + system)
}

/// Waits until `url` answers a GET with success, for at most `within`;
/// fails, naming `log`, when `child` (the process serving it) exits first or
/// the time passes.
pub(crate) async fn wait_until_answers(
    child: &mut Child,
    url: &str,
    within: Duration,
    log: &Path,
) -> anyhow::Result<()> {
    let client = reqwest::Client::new();
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait()? {
            bail!("the process exited ({status}); see {}", log.display());
        }
        if client
            .get(url)
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return Ok(());
        }
        if tokio::time::Instant::now() > deadline {
            bail!(
                "{url} did not answer within {within:?}; see {}",
                log.display()
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A free loopback port (the operating system picks it).
fn free_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

impl ServerProcess {
    /// Starts `serve` with its store and campaigns under `dir`, logging to
    /// `dir/server.log`, and waits until it answers.
    pub async fn start(dir: &Path, admin_token: &str) -> anyhow::Result<ServerProcess> {
        Self::start_binary(&std::env::current_exe()?, dir, admin_token).await
    }

    /// [`ServerProcess::start`] of the `loyalty` binary at `binary`, its
    /// log appended to (a restart on the same store keeps the log of the
    /// runs before).
    pub async fn start_binary(
        binary: &Path,
        dir: &Path,
        admin_token: &str,
    ) -> anyhow::Result<ServerProcess> {
        Self::start_on(binary, dir, admin_token, &ServerStore::embedded(dir)).await
    }

    /// [`ServerProcess::start_binary`] on `store`, with its campaigns under
    /// `dir`.
    pub async fn start_on(
        binary: &Path,
        dir: &Path,
        admin_token: &str,
        store: &ServerStore,
    ) -> anyhow::Result<ServerProcess> {
        let (api_port, admin_port) = (free_port()?, free_port()?);
        let log_path = dir.join(&store.log);
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)?;
        let mut command = Command::new(binary);
        command
            .arg("serve")
            .arg("--listen")
            .arg(format!("127.0.0.1:{api_port}"))
            .arg("--admin-listen")
            .arg(format!("127.0.0.1:{admin_port}"))
            .arg("--admin-token")
            .arg(admin_token)
            .arg("--db")
            .arg(&store.url)
            .arg("--campaigns")
            .arg(dir.join("campaigns"))
            .arg("--admin-token-file")
            .arg(dir.join("admin.token"))
            // Capturing a backtrace for every error the store handles
            // internally would be measured as the service's cost.
            .env_remove("RUST_BACKTRACE")
            .env_remove("RUST_LIB_BACKTRACE")
            // The receiver of `--webhook` is on loopback (an environment
            // variable, which a build before the flag ignores).
            .env("LOYALTY_WEBHOOKS_ALLOW_PRIVATE", "true")
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .kill_on_drop(true);
        if let Some(auth) = &store.auth {
            command
                .env("LOYALTY_DB_USER", &auth.username)
                .env("LOYALTY_DB_PASS", &auth.password);
        }
        let child = command.spawn().context("cannot start the server")?;
        let mut server = ServerProcess {
            child,
            api_url: format!("http://127.0.0.1:{api_port}"),
            admin_url: format!("http://127.0.0.1:{admin_port}"),
        };
        // Both listeners: the back office may start after the API, and the
        // set-up goes through it first.
        let within = Duration::from_secs(120);
        for base in [&server.api_url, &server.admin_url].map(String::clone) {
            let ready = format!("{base}/openapi.json");
            wait_until_answers(&mut server.child, &ready, within, &log_path).await?;
        }
        Ok(server)
    }

    /// Stops the server with SIGKILL (nothing of it runs after this
    /// instant: no shutdown, no flush) and waits for it to exit.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        self.child.kill().await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::cpu_ticks_of;

    #[test]
    fn cpu_time_is_read_after_a_command_name_with_spaces() {
        let stat = "4242 (loyalty serve) S 1 4242 4242 0 -1 4194560 1200 0 0 0 350 75 0 0 20 0 9 0 100 0 0";
        assert_eq!(cpu_ticks_of(stat), Some(425));
        assert_eq!(cpu_ticks_of("garbage"), None);
    }
}
