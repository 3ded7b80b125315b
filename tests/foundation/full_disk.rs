//! A store whose disk fills up: carts are refused with 503 `store_full` (and
//! `Retry-After`), nothing acknowledged is lost, the operator sees it in the
//! metrics, and once space is freed the same server records again, without a
//! restart. The disk is a small tmpfs mounted for the test (as root), or the
//! directory `LOYALTY_SMALL_FS` names (an empty file system of a few MiB).

use crate::common::{OPERATOR_TOKEN, TestServer, metric_sample};
use loyalty::server::ServerSettings;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A small file system, unmounted when dropped (if the test mounted it).
struct SmallDisk {
    path: PathBuf,
    mounted: bool,
    _dir: Option<tempfile::TempDir>,
}

impl SmallDisk {
    fn new() -> SmallDisk {
        if let Ok(path) = std::env::var("LOYALTY_SMALL_FS") {
            return SmallDisk {
                path: PathBuf::from(path),
                mounted: false,
                _dir: None,
            };
        }
        let dir = tempfile::tempdir().expect("a mount point");
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=8m", "tmpfs"])
            .arg(dir.path())
            .status()
            .is_ok_and(|status| status.success());
        assert!(
            mounted,
            "mounting an 8 MiB tmpfs needs root; or name a small empty file system in LOYALTY_SMALL_FS"
        );
        SmallDisk {
            path: dir.path().to_path_buf(),
            mounted: true,
            _dir: Some(dir),
        }
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        if self.mounted {
            let _ = std::process::Command::new("umount")
                .arg("-l")
                .arg(&self.path)
                .status();
        }
    }
}

/// A cart of many long lines, so that a few hundred fill the disk.
fn cart(code: &str) -> Value {
    let lines: Vec<Value> = (0..100)
        .map(|n| json!({"product_code": format!("P{n:03}-{}", "x".repeat(60)), "quantity": 1, "price": 1.5}))
        .collect();
    json!({"customer_code": "FULL", "code": code, "lines": lines})
}

async fn send_cart(
    server: &TestServer,
    key: &loyalty::resources::companies::model::CreatedApiKey,
    code: &str,
) -> reqwest::Response {
    server
        .request_as("POST", "/carts/realtime", key)
        .header("Idempotency-Key", format!("key-{code}"))
        .json(&cart(code))
        .send()
        .await
        .expect("an answer")
}

fn fill(path: &Path, bytes: usize) {
    std::fs::write(path, vec![7u8; bytes]).expect("ballast written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_refuses_with_503_loses_nothing_and_recovers_without_a_restart() {
    let disk = SmallDisk::new();
    // Room to free later.
    let ballast = disk.path.join("ballast");
    fill(&ballast, 2 << 20);
    let db = format!("surrealkv://{}", disk.path.join("store").display());
    let server = TestServer::start_with(ServerSettings::for_store(&db, OPERATOR_TOKEN)).await;
    let key = server.bootstrap_key();
    server.create_customer(&key, json!({"code": "FULL"})).await;

    let mut acknowledged = Vec::new();
    let refused = loop {
        let code = format!("C{:04}", acknowledged.len());
        let answer = send_cart(&server, &key, &code).await;
        if answer.status() != 200 {
            break (code, answer);
        }
        acknowledged.push(code);
        assert!(acknowledged.len() < 5_000, "the disk never filled");
    };
    let (refused_code, answer) = refused;
    assert_eq!(answer.status(), 503);
    assert_eq!(
        answer
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("30")
    );
    let body: Value = answer.json().await.expect("JSON");
    assert_eq!(body["code"], "store_full", "{body}");
    assert!(
        acknowledged.len() > 10,
        "{} carts before the disk filled",
        acknowledged.len()
    );

    let metrics = server.metrics().await;
    let full = metric_sample(&metrics, "loyalty_store_errors_total{reason=\"disk_full\"}");
    assert!(full.is_some_and(|count| count >= 1.0), "{metrics}");

    // Space freed: the same server, no restart, records the refused cart.
    std::fs::remove_file(&ballast).expect("ballast removed");
    let mut recorded = false;
    for _ in 0..60 {
        let answer = send_cart(&server, &key, &refused_code).await;
        if answer.status() == 200 {
            recorded = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert!(recorded, "the refused cart is recorded once space is freed");

    // Every cart acknowledged before the disk filled is there, and the
    // refused one once.
    acknowledged.push(refused_code);
    let customer = server
        .call_as("GET", "/customers/FULL?search_by=code", &key, None)
        .await
        .1;
    let id = customer["id"].as_str().expect("the Customer").to_string();
    let stored = server
        .every_page(&key, &format!("/carts?customer_id={id}"), "carts", 100)
        .await;
    let mut codes: Vec<String> = stored
        .iter()
        .filter_map(|cart| cart["id"].as_str().map(str::to_string))
        .collect();
    codes.sort();
    assert_eq!(codes, acknowledged);
    server.running.shutdown().await.expect("stopped");
}
