//! Durability: what was answered survives a restart.

use super::*;

#[tokio::test]
async fn keys_survive_a_restart_on_the_same_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = format!("surrealkv://{}", dir.path().join("store").display());

    let first = TestServer::start_with(ServerSettings::for_store(&db, OPERATOR_TOKEN)).await;
    let bootstrap = first.bootstrap_key();
    let created = first
        .back_office()
        .await
        .create_key(NewKey {
            company: "demo".into(),
            description: "before restart".into(),
            enabled: true,
        })
        .await
        .expect("key created");
    assert_eq!(first.get_as("/check", &created).await.0, 200);
    first.running.services.record_key_uses().await;
    first.running.shutdown().await.expect("first shutdown");
    // A clean stop closed the store: nothing is left in its write-ahead
    // log for the next start to replay (storage/fresh_log.rs).
    let log = dir.path().join("store").join("wal");
    let unflushed: Vec<_> = std::fs::read_dir(&log)
        .expect("the store's log")
        .flatten()
        .filter(|segment| segment.metadata().map_or(true, |meta| meta.len() > 0))
        .map(|segment| segment.path())
        .collect();
    assert!(unflushed.is_empty(), "left to replay: {unflushed:?}");

    let second = TestServer::start_with(ServerSettings::for_store(&db, OPERATOR_TOKEN)).await;
    assert!(
        second.running.bootstrap.is_none(),
        "bootstrap runs only once"
    );
    // Read before this process sees the key used: what the store holds.
    let stored = second.running.services.keys(Some("demo")).await.unwrap();
    let used = stored
        .iter()
        .find(|k| k.key == created.key.key)
        .expect("listed");
    assert!(
        used.last_used_at.is_some(),
        "the use was recorded: {used:?}"
    );
    assert_eq!(second.get_as("/check", &created).await.0, 200);
    assert_eq!(second.get_as("/check", &bootstrap).await.0, 200);
    let keys = second
        .back_office()
        .await
        .keys(Some("demo"))
        .await
        .expect("listed");
    assert_eq!(keys.len(), 2);
    second.running.shutdown().await.expect("second shutdown");

    // Only digests were written: no file of the store holds a secret.
    for entry in walk(dir.path()) {
        let bytes = std::fs::read(&entry).expect("readable");
        for secret in [&created.secret, &bootstrap.secret] {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{} contains a secret",
                entry.display()
            );
        }
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("readable dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}
