//! The first start, with the real binary: its welcome (the demo key and its
//! secret) comes before any log line, and a demo key whose secret a failed
//! first start never printed is replaced at the next start.

use serde_json::Value;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

const TOKEN: &str = "first-start-operator-token";

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// `loyalty serve` in `dir` with its default store and log level, stdout
/// and stderr in one file (`output`), so their order is what a terminal
/// shows.
fn serve(dir: &Path, output: &str, api_port: u16, admin_port: u16) -> tokio::process::Child {
    let log = std::fs::File::create(dir.join(output)).expect("output file");
    tokio::process::Command::new(env!("CARGO_BIN_EXE_loyalty"))
        .current_dir(dir)
        .args(["serve", "--admin-token", TOKEN])
        .args(["--listen", &format!("127.0.0.1:{api_port}")])
        .args(["--admin-listen", &format!("127.0.0.1:{admin_port}")])
        .env_remove("LOYALTY_LOG")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("output file"))
        .stderr(log)
        .kill_on_drop(true)
        .spawn()
        .expect("loyalty serve starts")
}

/// The output so far, once it contains `awaited` (within a minute).
async fn output_with(dir: &Path, output: &str, awaited: &str) -> String {
    for _ in 0..600 {
        let text = std::fs::read_to_string(dir.join(output)).unwrap_or_default();
        if text.contains(awaited) {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "no `{awaited}` in:\n{}",
        std::fs::read_to_string(dir.join(output)).unwrap_or_default()
    );
}

/// The value printed after `label` in the welcome.
fn printed(output: &str, label: &str) -> String {
    output
        .lines()
        .find_map(|line| line.trim().strip_prefix(label))
        .map(|value| value.trim().to_string())
        .unwrap_or_else(|| panic!("no `{label}` in:\n{output}"))
}

async fn check(api_port: u16, key: &str, secret: &str) -> u16 {
    reqwest::Client::new()
        .get(format!("http://127.0.0.1:{api_port}/check"))
        .header("X-Api-Key", key)
        .header("X-Api-Secret", secret)
        .header("X-Api-Version", "1")
        .send()
        .await
        .expect("an answer")
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_start_that_failed_before_the_welcome_is_made_good_by_the_next() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let dir = dir.path();

    // The first start creates the demo Company and its key, then finds its
    // port taken and stops: the secret was never printed.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port to take");
    let taken_port = taken.local_addr().expect("its address").port();
    let status = serve(dir, "first.txt", taken_port, free_port())
        .wait()
        .await
        .expect("the first start ends");
    assert!(!status.success(), "a taken port stops the start");
    drop(taken);
    let first = std::fs::read_to_string(dir.join("first.txt")).expect("first output");
    assert!(first.contains("cannot listen"), "{first}");
    assert!(!first.contains("X-Api-Secret"), "{first}");

    // The next start replaces that key, and says so before anything else.
    let (api_port, admin_port) = (free_port(), free_port());
    let mut second = serve(dir, "second.txt", api_port, admin_port);
    let output = output_with(dir, "second.txt", "loyalty is serving").await;
    let first_line = output.lines().find(|line| !line.trim().is_empty());
    assert!(
        first_line
            .is_some_and(|line| line.starts_with("A new system API key for the demo Company")),
        "the welcome comes first:\n{output}"
    );
    assert!(output.contains("was never shown"), "{output}");
    assert!(
        !output.contains("surrealdb::"),
        "no store internals at the default level:\n{output}"
    );
    let key = printed(&output, "X-Api-Key:");
    let secret = printed(&output, "X-Api-Secret:");
    assert_eq!(check(api_port, &key, &secret).await, 200);
    let keys: Value = reqwest::Client::new()
        .get(format!(
            "http://127.0.0.1:{admin_port}/api/keys?company=demo"
        ))
        .bearer_auth(TOKEN)
        .send()
        .await
        .expect("the back office answers")
        .json()
        .await
        .expect("JSON");
    let keys = keys["keys"].as_array().expect("keys");
    assert_eq!(keys.len(), 2, "{keys:?}");
    let enabled: Vec<&Value> = keys.iter().filter(|k| k["enabled"] == true).collect();
    assert_eq!(enabled.len(), 1, "only the shown key works: {keys:?}");
    assert_eq!(enabled[0]["key"], key.as_str());
    second.kill().await.expect("killed");

    // A start after the secret was shown prints no key and replaces none.
    let api_port = free_port();
    let _third = serve(dir, "third.txt", api_port, free_port());
    let output = output_with(dir, "third.txt", "loyalty is serving").await;
    assert!(!output.contains("X-Api-Secret"), "{output}");
    assert_eq!(check(api_port, &key, &secret).await, 200);
}
