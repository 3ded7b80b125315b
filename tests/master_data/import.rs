//! `loyalty catalog import` through the real binary and the back office: a
//! 100,000-line file with two bad lines refused whole, each problem at its
//! line; a good file written whole; a second file replacing what it names.

use super::*;

/// Runs `loyalty catalog import` against `server` with `args`; success and
/// what it printed on stderr.
async fn import(server: &TestServer, args: &[&str]) -> (bool, String) {
    let admin_url = server.admin_url();
    let mut full = vec![
        "catalog",
        "import",
        "--company",
        "demo",
        "--admin-url",
        &admin_url,
    ];
    full.extend(["--admin-token", common::OPERATOR_TOKEN]);
    full.extend_from_slice(args);
    let (passed, _, stderr) = common::loyalty(&full).await;
    (passed, stderr)
}

/// Lines of the file written whole (each is a store write; the 100,000-line
/// file is checked whole and refused).
const WRITTEN: usize = 2_000;

/// A CSV of `count` Products, `P{n}` with alias `EAN{n}`, in dairy or bakery.
fn products_csv(count: usize) -> String {
    let mut text = String::from("code,name,price,aliases,features,names.es\n");
    for n in 1..=count {
        let department = if n % 2 == 0 { "dairy" } else { "bakery" };
        text.push_str(&format!(
            "P{n},Product {n},{}.{:02},EAN{n},department:{department},Producto {n}\n",
            n % 50,
            n % 100
        ));
    }
    text
}

#[tokio::test]
async fn a_file_is_imported_whole_or_not_at_all() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    departments(&server, &key).await;
    let dir = tempfile::tempdir().unwrap();

    // Two bad lines anywhere: nothing is imported, both are named.
    let mut lines: Vec<String> = products_csv(100_000).lines().map(str::to_string).collect();
    lines[5_000] = "P5000,Product 5000,1.00,,department:meat,".into();
    lines[70_000] = "P12,Product twelve,1.00,,,".into();
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, lines.join("\n")).unwrap();
    let (imported, stderr) = import(&server, &[bad.to_str().unwrap()]).await;
    assert!(!imported, "{stderr}");
    assert!(
        stderr.contains("bad.csv:5001: the Company has no feature `meat`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("bad.csv:70001: `P12` is also the code or an alias of line 13"),
        "{stderr}"
    );
    assert_error(
        &server
            .call_as("GET", "/products/P1?search_by=code", &key, None)
            .await,
        404,
        "product_not_found",
    );

    // The whole file.
    let good = dir.path().join("products.csv");
    std::fs::write(&good, products_csv(WRITTEN)).unwrap();
    let (imported, stderr) = import(&server, &[good.to_str().unwrap()]).await;
    assert!(imported, "{stderr}");
    assert!(stderr.contains("2000 created, 0 updated"), "{stderr}");
    let last = ok_get(&server, &key, "/products/EAN2000?search_by=code").await;
    assert_eq!(
        (
            &last["code"],
            &last["price"],
            &last["features"],
            &last["names"]
        ),
        (
            &json!("P2000"),
            &json!(0.0),
            &json!({"department": ["dairy"]}),
            &json!({"es": "Producto 2000"})
        )
    );

    // A second file (JSON lines) replaces what it names and keeps the ids.
    let first = ok_get(&server, &key, "/products/P1?search_by=code").await;
    let update = dir.path().join("update.jsonl");
    std::fs::write(
        &update,
        "{\"code\": \"P1\", \"name\": \"Sourdough\", \"features\": {\"department\": [\"bakery\"]}, \"discountable\": false}\n\
         {\"code\": \"NEW-1\", \"name\": \"New\", \"aliases\": [\"EAN1\"]}\n",
    )
    .unwrap();
    let (imported, stderr) = import(&server, &[update.to_str().unwrap()]).await;
    assert!(imported, "{stderr}");
    assert!(stderr.contains("1 created, 1 updated"), "{stderr}");
    let replaced = ok_get(&server, &key, "/products/P1?search_by=code").await;
    assert_eq!(
        (
            &replaced["id"],
            &replaced["name"],
            &replaced["aliases"],
            &replaced["discountable"]
        ),
        (&first["id"], &json!("Sourdough"), &json!([]), &json!(false))
    );
    let moved = ok_get(&server, &key, "/products/EAN1?search_by=code").await;
    assert_eq!(moved["code"], "NEW-1");

    // The next cart sees the imported catalogue: P1998 (by its EAN) is dairy.
    let promotion = ok(
        &server,
        &key,
        "POST",
        "/promotions",
        Some(json!({
            "name": "Dairy", "features": {"department": ["dairy"]}, "percent": 10
        })),
    )
    .await;
    let ana = ok(
        &server,
        &key,
        "POST",
        "/customers",
        Some(json!({"code": "IMPORT-1"})),
    )
    .await;
    let answer = ok(
        &server,
        &key,
        "POST",
        "/carts/simulate",
        Some(json!({
            "customer_id": ana["id"], "code": "T1",
            "lines": [{"product_code": "EAN1998", "quantity": 1, "price": 2.0},
                      {"product_code": "EAN1999", "quantity": 1, "price": 2.0}]
        })),
    )
    .await;
    let given: Vec<(i64, f64)> = answer["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["rule_id"] == promotion["id"])
        .map(|e| (e["line"].as_i64().unwrap(), e["value"].as_f64().unwrap()))
        .collect();
    assert_eq!(given, vec![(1, 0.2)], "{answer}");
}

/// GET `path`, expecting 200.
async fn ok_get(server: &TestServer, key: &CreatedApiKey, path: &str) -> Value {
    ok(server, key, "GET", path, None).await
}
