//! Logs and request ids.

use super::*;
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

/// Every log line of this test binary, captured at trace level.
fn captured_logs() -> Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Arc::new(Mutex::new(Vec::new()));
        let sink = logs.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter("trace")
            .with_writer(move || CaptureWriter(sink.clone()))
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("first subscriber");
        logs
    })
    .clone()
}

struct CaptureWriter(Arc<Mutex<Vec<u8>>>);

impl Write for CaptureWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log buffer").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn secrets_never_reach_the_logs() {
    let logs = captured_logs();
    let server = TestServer::start().await;
    let created = server
        .back_office()
        .await
        .create_key(NewKey {
            company: "demo".into(),
            description: "logged?".into(),
            enabled: true,
        })
        .await
        .expect("key created");
    assert_eq!(server.get_as("/check", &created).await.0, 200);
    let (status, _) = check_with(
        &server,
        &[
            ("X-Api-Key", created.key.key.as_str()),
            ("X-Api-Secret", "ls_guess"),
            ("X-Api-Version", "1"),
        ],
    )
    .await;
    assert_eq!(status, 403);

    let text = String::from_utf8(logs.lock().expect("log buffer").clone()).expect("utf-8");
    assert!(
        text.contains(&created.key.key),
        "the key value is logged at creation"
    );
    for secret in [
        created.secret.as_str(),
        server.bootstrap_key().secret.as_str(),
        "ls_guess",
        OPERATOR_TOKEN,
    ] {
        assert!(!text.contains(secret), "a secret reached the logs");
    }
}
