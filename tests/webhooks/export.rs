//! Exports: a Company's records of a period as NDJSON, streamed by the back
//! office a page at a time and written by `loyalty export`, and everything
//! held about one Customer for a data-subject request.

use super::*;

/// GETs the back office's export of `company` with `query`: its status,
/// content type and body.
async fn export(server: &TestServer, company: &str, query: &str) -> (u16, String, String) {
    let url = format!(
        "{}/api/companies/{company}/export?{query}",
        server.admin_url()
    );
    let response = server
        .http
        .get(url)
        .bearer_auth(OPERATOR_TOKEN)
        .send()
        .await
        .expect("request sent");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_string();
    (status, content_type, response.text().await.expect("a body"))
}

/// Runs `loyalty export --company demo` with `args` against the back
/// office of `server`: whether it succeeded, its stdout and its stderr.
async fn export_command(server: &TestServer, args: &[&str]) -> (bool, String, String) {
    let admin_url = server.admin_url();
    let mut full = vec!["export", "--company", "demo"];
    full.extend_from_slice(args);
    full.extend(["--admin-url", &admin_url, "--admin-token", OPERATOR_TOKEN]);
    common::loyalty(&full).await
}

/// The JSON objects of an NDJSON body.
fn lines(body: &str) -> Vec<Value> {
    body.lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

/// The `id`s of `records`.
fn ids(records: &[Value]) -> Vec<&str> {
    records.iter().map(|r| r["id"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn an_export_streams_the_records_of_a_period_as_the_api_answers_them() {
    let server = TestServer::start_at("2026-11-02T10:00:00Z").await;
    let key = server.bootstrap_key();
    let ana = server
        .create_customer(&key, json!({"email": "ana@example.com"}))
        .await;
    for (n, at) in ["2026-11-02T10:00:00Z", "2026-11-03T10:00:00Z"]
        .iter()
        .enumerate()
    {
        server.set_time(at);
        let cart = json!({"customer_id": ana, "code": format!("E-{n}"),
            "lines": [{"product_code": "COFFEE", "quantity": 1, "price": 4.5}]});
        let (status, answer) = server
            .call_as("POST", "/carts/realtime", &key, Some(cart))
            .await;
        assert_eq!(status, 200, "{answer}");
        let event = json!({"customer_id": ana, "type": "app_open"});
        let (status, answer) = server
            .call_as("POST", "/custom_events", &key, Some(event))
            .await;
        assert_eq!(status, 200, "{answer}");
    }

    let (status, content_type, body) = export(&server, "demo", "what=carts").await;
    assert_eq!(
        (status, content_type.as_str()),
        (200, "application/x-ndjson")
    );
    let carts = lines(&body);
    assert_eq!(ids(&carts), ["E-0", "E-1"]);
    let (_, answered) = server.get_as("/carts/E-1", &key).await;
    assert_eq!(carts[1], answered, "each cart as the API answers it");
    // Days on the Company's clocks; `to` includes its day.
    let (_, _, body) = export(&server, "demo", "what=carts&from=2026-11-03").await;
    assert_eq!(ids(&lines(&body)), ["E-1"]);
    let (_, _, body) = export(&server, "demo", "what=carts&to=2026-11-02").await;
    assert_eq!(ids(&lines(&body)), ["E-0"]);
    let (_, _, body) = export(&server, "demo", "what=events&from=2026-11-03T00:00:00Z").await;
    let events = lines(&body);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["date"], "2026-11-03T10:00:00Z");
    // The demo Company's points campaign credited each cart.
    let (_, _, body) = export(&server, "demo", "what=ledger&from=2026-11-03").await;
    let ledger = lines(&body);
    assert!(!ledger.is_empty());
    assert!(
        ledger
            .iter()
            .all(|entry| entry["cart_id"] == "E-1" && entry["customer_id"] == ana.as_str())
    );
    let (_, _, body) = export(&server, "demo", "what=customers&to=2026-11-02").await;
    assert_eq!(ids(&lines(&body)), [ana.as_str()]);
    let (_, _, body) = export(&server, "demo", "what=customers&from=2026-11-03").await;
    assert_eq!(body, "", "nobody was created on the 3rd");

    // Refused with their codes, before anything is sent.
    let (status, _, body) = export(&server, "demo", "what=orders").await;
    assert_eq!(status, 400, "{body}");
    let (status, _, body) = export(&server, "demo", "what=carts&from=yesterday").await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("invalid_request"), "{body}");
    let (status, _, body) =
        export(&server, "demo", "what=carts&from=2026-11-03&to=2026-11-02").await;
    assert_eq!(status, 400, "{body}");
    let (status, _, body) = export(&server, "nobody", "what=carts").await;
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("company_not_found"), "{body}");

    // `loyalty export` writes the same lines to a file.
    let dir = tempfile::tempdir().expect("a directory");
    let out = dir.path().join("carts.ndjson");
    let (ok, _, stderr) = export_command(
        &server,
        &[
            "--what",
            "carts",
            "--from",
            "2026-11-02",
            "--out",
            out.to_str().unwrap(),
        ],
    )
    .await;
    assert!(ok, "{stderr}");
    assert!(stderr.contains("2 rows ("), "{stderr}");
    let written = std::fs::read_to_string(&out).expect("the file");
    assert_eq!(lines(&written), carts);
    let (ok, _, stderr) = export_command(&server, &["--what", "carts", "--from", "someday"]).await;
    assert!(!ok && stderr.contains("someday"), "{stderr}");
}

/// Carts stored at once: `copies` copies of the stored cart `template`
/// of `company`, under the codes `M-000000`, `M-000001`, ..., written
/// 10,000 at a time.
async fn copies_of(server: &TestServer, template: &str, copies: usize) {
    let store = server.running.services.store();
    let stored = store
        .raw_documents("cart", "demo")
        .await
        .expect("the carts");
    let template = stored
        .iter()
        .find(|cart| cart["code"] == template)
        .expect("the template")
        .clone();
    for start in (0..copies).step_by(10_000) {
        let documents: Vec<Value> = (start..copies.min(start + 10_000))
            .map(|n| {
                let code = format!("M-{n:06}");
                let mut copy = template.clone();
                copy["id"] = json!(["demo", code]);
                copy["code"] = json!(code);
                copy
            })
            .collect();
        store
            .insert_raw_documents("cart", documents)
            .await
            .expect("carts stored");
    }
}

/// The most memory `loyalty export` says it held, in bytes, from its last
/// line (`..., peak memory 12.3 MB`).
fn peak_memory(stderr: &str) -> f64 {
    let megabytes = stderr
        .rsplit_once("peak memory ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|number| number.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no peak memory in {stderr}"));
    megabytes * 1_000_000.0
}

#[tokio::test]
async fn an_export_of_100000_carts_streams_every_one_once_in_constant_memory() {
    const CARTS: usize = 100_000;
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = server
        .create_customer(&key, json!({"email": "many@example.com"}))
        .await;
    let cart = json!({"customer_id": ana, "code": "M-TEMPLATE",
        "lines": [{"product_code": "COFFEE", "quantity": 2, "price": 3.25}]});
    let (status, answer) = server
        .call_as("POST", "/carts/realtime", &key, Some(cart))
        .await;
    assert_eq!(status, 200, "{answer}");
    copies_of(&server, "M-TEMPLATE", CARTS).await;

    // `loyalty export` reads the back office's stream and writes it out.
    let dir = tempfile::tempdir().expect("a directory");
    let out = dir.path().join("carts.ndjson");
    let (ok, _, stderr) = export_command(
        &server,
        &["--what", "carts", "--out", out.to_str().unwrap()],
    )
    .await;
    assert!(ok, "{stderr}");
    let file = std::fs::File::open(&out).expect("the file");
    let bytes = file.metadata().expect("its size").len() as f64;
    let mut rows = 0;
    let mut last = String::new();
    for line in std::io::BufRead::lines(std::io::BufReader::new(file)) {
        last = line.expect("a line");
        rows += 1;
    }
    assert_eq!(rows, CARTS + 1, "every cart once");
    let last: Value = serde_json::from_str(&last).expect("a whole line");
    assert_eq!(last["id"], "M-TEMPLATE", "in id order, the template last");
    // Held whole, the export would add at least its size to what the
    // command holds for one row: streamed, it adds a few chunks (the
    // server's read-ahead is bounded by `exports::service`'s own test) and
    // what the allocator keeps of them, which does not grow with the rows
    // (measured: 8 MB over one row's 40 MB in a debug build).
    let peak = peak_memory(&stderr);
    let one = dir.path().join("customers.ndjson");
    let (ok, _, stderr) = export_command(
        &server,
        &["--what", "customers", "--out", one.to_str().unwrap()],
    )
    .await;
    assert!(ok && stderr.contains("1 row ("), "{stderr}");
    let peak_for_one = peak_memory(&stderr);
    assert!(
        bytes > 20_000_000.0 && peak < peak_for_one + bytes / 2.0,
        "{bytes} bytes written with a peak of {peak} bytes, {peak_for_one} for one row"
    );
}

#[tokio::test]
async fn a_data_subject_export_holds_everything_of_a_customer_and_what_was_merged_into_it() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let ana = server
        .create_customer(
            &key,
            json!({"email": "ana@example.com", "first_name": "Ana"}),
        )
        .await;
    let old = server
        .create_customer(&key, json!({"email": "old@example.com"}))
        .await;
    for (customer, code) in [(&ana, "A-1"), (&old, "O-1")] {
        let cart = json!({"customer_id": customer, "code": code,
            "lines": [{"product_code": "COFFEE", "quantity": 1, "price": 4.5}]});
        let (status, answer) = server
            .call_as("POST", "/carts/realtime", &key, Some(cart))
            .await;
        assert_eq!(status, 200, "{answer}");
    }
    let (status, merged) = server
        .call_as(
            "POST",
            "/customers/transfer",
            &key,
            Some(json!({"from_customer_id": old, "to_customer_id": ana})),
        )
        .await;
    assert_eq!(status, 200, "{merged}");

    let (status, export) = server
        .get_as(&format!("/customers/{ana}/export"), &key)
        .await;
    assert_eq!(status, 200, "{export}");
    assert_eq!(export["customer"]["first_name"], "Ana");
    let carts: Vec<&str> = export["carts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|cart| cart["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        carts,
        ["A-1", "O-1"],
        "the merged Customer's cart is hers now"
    );
    let ledger = export["ledger"].as_array().unwrap();
    assert!(
        ledger.iter().any(|entry| entry["reason"] == "merge"),
        "{export}"
    );
    let (_, balance) = server
        .get_as(&format!("/customers/{ana}/points"), &key)
        .await;
    assert_eq!(export["points"], balance["points"]);
    let sum: i64 = ledger
        .iter()
        .filter(|entry| entry["kind"] == "points")
        .map(|entry| entry["points"].as_i64().unwrap())
        .sum();
    assert_eq!(export["points"], sum, "the balance is its ledger's");
    assert_eq!(export["merges"][0]["merged_customer_id"], old.as_str());
    for section in [
        "associations",
        "custom_events",
        "vouchers",
        "reward_transactions",
        "challenges",
        "games",
    ] {
        assert!(export[section].is_array(), "{section}: {export}");
    }

    // The merged Customer answers what it still holds.
    let (status, merged_export) = server
        .get_as(&format!("/customers/{old}/export"), &key)
        .await;
    assert_eq!(status, 200, "{merged_export}");
    assert_eq!(merged_export["customer"]["merged_into"], ana.as_str());
    assert_eq!(merged_export["carts"], json!([]));
    assert_eq!(merged_export["points"], 0);

    let (status, refused) = server.get_as("/customers/cus_nobody/export", &key).await;
    assert_eq!(status, 404, "{refused}");
    assert_eq!(refused["code"], "customer_not_found");
}
