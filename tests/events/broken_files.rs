//! One broken campaign file never stops a Company's carts.

use super::*;

#[tokio::test]
async fn one_broken_file_never_stops_a_companys_carts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("demo")).unwrap();
    std::fs::write(
        dir.path().join("demo").join("broken.yaml"),
        "id: 1\nkind: points\nname: Broken\non: cart\nwhen: cart.total >\npoints: { fixed: 5 }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("demo").join("good.yaml"),
        "id: 2\nkind: points\nname: Good\non: cart\npoints: { fixed: 3 }\n",
    )
    .unwrap();
    let mut settings = loyalty::server::ServerSettings::for_store("mem://", common::OPERATOR_TOKEN);
    settings.campaigns = dir.path().to_path_buf();
    let server = TestServer::start_with(settings).await;
    let key = server.bootstrap_key();
    let customer = member(&server, &key, "x@example.com").await;
    let (status, body) = server
        .call_as(
            "POST",
            "/carts/realtime",
            &key,
            Some(morning_cart(&customer, "NO-1")),
        )
        .await;
    // The broken file never loaded, so it is left out alone: the good
    // one applies, and nothing of the server's files reaches the till.
    assert_eq!(status, 200, "{body}");
    let rules: Vec<i64> = body["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|effect| effect["rule_id"].as_i64())
        .collect();
    assert_eq!(rules, [2], "{body}");
    assert!(!body.to_string().contains("broken.yaml"), "{body}");
    let problems = server
        .running
        .services
        .catalog()
        .problems("demo")
        .expect("the broken file is held back");
    assert!(problems[0].to_string().contains("broken.yaml:5:"));
}
