//! A SIGKILL in the middle of a write-ahead log write leaves a torn tail. The
//! start after it must not only recover what was acknowledged before: what it
//! acknowledges itself must survive the next SIGKILL too
//! (`storage/fresh_log.rs`). Both shapes of a torn tail: a torn record
//! (which the replay repairs) and a torn record header (which it reads as the
//! end of the log).

use loyalty::bench::server::ServerProcess;
use loyalty::bench::setup::unlimited_company;
use loyalty::torture::client::Client;
use serde_json::json;
use std::path::Path;

/// A record header (checksum, a length of 500, type "full") followed by 20 of
/// those 500 bytes: a record cut short by the kill.
const TORN_RECORD: &[u8] = b"\x12\x34\x56\x78\x01\xf4\x01ABCDEFGHIJKLMNOPQRST";

/// Three of a header's seven bytes.
const TORN_HEADER: &[u8] = b"\x12\x34\x56";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_start_after_a_torn_log_acknowledges_survives_the_next_crash() {
    for (shape, torn) in [("record", TORN_RECORD), ("header", TORN_HEADER)] {
        let dir = tempfile::tempdir().expect("temporary directory");
        std::fs::create_dir_all(dir.path().join("campaigns")).expect("campaigns folder");
        let binary = Path::new(env!("CARGO_BIN_EXE_loyalty"));
        let token = "torn-log-operator-token";
        let start = || ServerProcess::start_binary(binary, dir.path(), token);

        let server = start().await.expect("first start");
        let (key, _office) = unlimited_company(&server, dir.path(), token, "torn")
            .await
            .expect("a Company and its key");
        let client = |server: &ServerProcess| {
            Client::new(&server.api_url, &key.key.key, &key.secret).expect("client")
        };
        let create = |client: Client, code: &'static str| async move {
            let answer = client
                .post("/customers", code, &json!({ "code": code }))
                .await
                .expect("an answer");
            assert!(answer.succeeded(), "{shape}: {code}: {answer:?}");
        };
        create(client(&server), "before-the-tear").await;
        server.stop().await.expect("killed");

        tear_the_log(dir.path(), torn);
        let server = start().await.expect("start after the tear");
        create(client(&server), "after-the-tear").await;
        server.stop().await.expect("killed again");

        let server = start().await.expect("start after the second kill");
        let api = client(&server);
        for code in ["before-the-tear", "after-the-tear"] {
            let customer = api
                .read(&format!("/customers/{code}?search_by=code"))
                .await
                .unwrap_or_else(|error| {
                    panic!("{shape}: the acknowledged Customer {code} is lost: {error:#}")
                });
            assert_eq!(customer["code"], code, "{shape}");
        }
        server.stop().await.expect("stopped");
    }
}

/// Appends `torn` to the newest segment of the store's write-ahead log, as a
/// kill in the middle of writing a record leaves it.
fn tear_the_log(dir: &Path, torn: &[u8]) {
    use std::io::Write;
    let log = dir.join("store").join("wal");
    let newest = std::fs::read_dir(&log)
        .expect("the store's write-ahead log")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "wal"))
        .max()
        .expect("a log segment");
    std::fs::OpenOptions::new()
        .append(true)
        .open(&newest)
        .and_then(|mut segment| segment.write_all(torn))
        .expect("torn bytes appended");
}
