//! `loyalty campaigns draws` before launch: the rehearsal of a campaign's
//! days (its `once` limit, the days and condition the service answers for,
//! its stock running out on a named day) and the fairness mode that takes
//! every stock as unlimited.

use serde_json::Value;

const WEEKEND_DRAW: &str = "id: 77\nkind: instant_win\nname: Weekend draw\non: cart\nwhen: cart.total >= 10.0\nrecurrence_days: [saturday, sunday]\nselect_customers: loyalty\nonce: day\nonce_limit: 1\ninstant_win:\n  instant_win_prizes:\n    - id: tote\n      name: Tote bag\n      outcome: { promotion_type: reward, promotion_id: 401 }\n      weight: 0.5\n      stock: 80\n    - id: none\n      name: No prize\n      weight: 0.5\n";

/// `loyalty campaigns draws ARGS --json`, parsed.
fn draws(args: &[&str]) -> Value {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_loyalty"))
        .args(["campaigns", "draws"])
        .args(args)
        .arg("--json")
        .env("LOYALTY_LOG", "error")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).expect("one JSON document")
}

#[test]
fn a_rehearsal_draws_on_the_days_the_service_answers_within_once_and_names_the_day_stock_runs_out()
{
    let dir = tempfile::tempdir().unwrap();
    let company = dir.path().join("campaigns").join("demo");
    std::fs::create_dir_all(&company).unwrap();
    std::fs::copy(
        "campaigns/demo/campaigns/free-coffee.yaml",
        company.join("free-coffee.yaml"),
    )
    .unwrap();
    let file = company.join("weekend-draw.yaml");
    std::fs::write(&file, WEEKEND_DRAW).unwrap();
    let cart = dir.path().join("cart.json");
    std::fs::write(
        &cart,
        r#"{"code": "R1", "lines": [{"product_code": "MILK", "quantity": 1, "price": 12.0}]}"#,
    )
    .unwrap();
    let campaigns = dir.path().join("campaigns");
    let rehearse = |cart: &std::path::Path| {
        draws(&[
            file.to_str().unwrap(),
            "--per-day",
            "200",
            "--customers",
            "150",
            "--days",
            "7",
            // A Monday.
            "--at",
            "2026-11-23T10:00:00Z",
            "--cart",
            cart.to_str().unwrap(),
            "--campaigns",
            campaigns.to_str().unwrap(),
        ])
    };
    let rehearsal = rehearse(&cart);
    let days = rehearsal["each_day"].as_array().unwrap();
    assert_eq!(days.len(), 7);
    for weekday in &days[..5] {
        assert_eq!(weekday["draws"], 0, "{weekday}");
        assert!(
            weekday["not_taking_part"]
                .as_str()
                .unwrap()
                .contains("runs only on saturday, sunday"),
            "{weekday}"
        );
    }
    // 150 Customers, once a day: at most 150 of the 200 events draw.
    for weekend in &days[5..] {
        let drawn = weekend["draws"].as_u64().unwrap();
        assert!((100..=150).contains(&drawn), "{weekend}");
        assert_eq!(drawn + weekend["over_once"].as_u64().unwrap(), 200);
    }
    // 80 totes at one in two: gone on Sunday, after a full Saturday.
    let tote = &rehearsal["prizes"][0];
    assert_eq!(tote["won"], 80, "{rehearsal}");
    assert_eq!(tote["ran_out_on"], "2026-11-29", "{rehearsal}");
    assert_eq!(tote["days_lasted"], 6, "{rehearsal}");

    // A cart the condition refuses takes part on no day, and says why.
    let small = dir.path().join("small.json");
    std::fs::write(
        &small,
        r#"{"code": "R2", "lines": [{"product_code": "MILK", "quantity": 1, "price": 2.0}]}"#,
    )
    .unwrap();
    let refused = rehearse(&small);
    let saturday = &refused["each_day"][5];
    assert_eq!(saturday["draws"], 0, "{saturday}");
    assert!(
        saturday["not_taking_part"]
            .as_str()
            .unwrap()
            .contains("`cart.total` is 2.0"),
        "{saturday}"
    );

    // The fairness mode: the stock of 80 does not stop the draws.
    let fair = draws(&[
        file.to_str().unwrap(),
        "--fairness",
        "--runs",
        "2000",
        "--seed",
        "5",
    ]);
    assert_eq!(fair["tested_runs"], 2000, "{fair}");
    assert!(fair["prizes"][0]["won"].as_u64().unwrap() > 80, "{fair}");
    assert_eq!(fair["consistent"], true, "{fair}");
}
