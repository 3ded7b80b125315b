//! Property test: any sequence of simulated carts, drawing or not, leaves
//! the store exactly as it was.

use super::*;
use proptest::prelude::*;

async fn run(carts: Vec<(u32, u32, bool)>) -> Result<(), TestCaseError> {
    let setup = setup().await;
    let customer = setup.customer("sim-prop@example.com").await;
    let store = setup.server.running.services.store();
    let tables = [
        "cart",
        "ledger_write",
        "iw_draws",
        "customer_state",
        "iw_given",
        "prize_outbox",
    ];
    for (n, (day, cents, at_store)) in carts.into_iter().enumerate() {
        let body = json!({
            "customer_id": customer, "code": format!("SIM-{n}"),
            "date": format!("2026-03-{:02}T10:00:00Z", day),
            "location_code": if at_store { "STORE1" } else { "STORE9" },
            "lines": [{"product_code": "X", "quantity": 1, "price": f64::from(cents) / 100.0}]
        });
        setup.received_at_its_date(&body);
        let (status, answer) = setup
            .server
            .call_as("POST", "/carts/simulate", &setup.key, Some(body))
            .await;
        prop_assert_eq!(status, 200, "{}", answer);
    }
    for table in tables {
        let documents = store.raw_documents(table, "demo").await.unwrap();
        prop_assert!(documents.is_empty(), "{} holds {:?}", table, documents);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn simulated_carts_never_change_the_store(
        carts in prop::collection::vec((1u32..=28, 100u32..=5000, any::<bool>()), 1..12),
    ) {
        let runtime = common::proptest_runtime();
        runtime.block_on(run(carts))?;
    }
}
