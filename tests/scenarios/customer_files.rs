//! The Customer an offline explanation (and a scenario) starts from: its
//! attributes, its purchase history sent as real carts, and the tier that
//! history must reach.

use loyalty::cli::explain::{ExplainRequest, ExplainedEvent, explanation_of};

const SEGMENTS: &str = "tiers:\n  - id: silver\n    name: Silver\n    condition: history.spent_last_days(365) >= 500.0\n  - id: gold\n    name: Gold\n    condition: history.spent_last_days(365) >= 1500.0\n";
const GOLD_SUNDAYS: &str = "id: 40\nkind: points\nname: Gold members, Sundays\non: cart\ntiers: [gold]\nrecurrence_days: [sunday]\npoints: { fixed: 50 }\n";

/// A campaigns folder with the tiers and the Gold Sundays campaign, a cart
/// and a Customer file of `customer`; the request explaining the campaign
/// on a Friday.
fn request(dir: &std::path::Path, customer: &str) -> ExplainRequest {
    let company = dir.join("campaigns").join("grocer");
    std::fs::create_dir_all(&company).unwrap();
    std::fs::write(company.join("segments.yaml"), SEGMENTS).unwrap();
    std::fs::write(company.join("gold-sundays.yaml"), GOLD_SUNDAYS).unwrap();
    let cart = dir.join("cart.json");
    std::fs::write(
        &cart,
        r#"{"code": "F1", "lines": [{"product_code": "BREAD", "quantity": 1, "price": 2.5}]}"#,
    )
    .unwrap();
    let customer_file = dir.join("customer.yaml");
    std::fs::write(&customer_file, customer).unwrap();
    ExplainRequest {
        file: company.join("gold-sundays.yaml"),
        campaigns: dir.join("campaigns"),
        event: ExplainedEvent::Cart(cart),
        customer: Some(customer_file),
        // A Friday.
        at: Some("2026-11-27T10:00:00Z".into()),
        time_zone: Some("Europe/Madrid".into()),
        currency: None,
        json: true,
    }
}

#[tokio::test]
async fn a_customer_file_carries_a_purchase_history_and_the_tier_it_reaches() {
    let dir = tempfile::tempdir().unwrap();
    let silver = "code: SILVER-1\nenroll: true\nattributes: { household: 3 }\npurchases:\n  - { days_ago: 40, total: 450.00 }\n  - { at: 2026-06-01T12:00:00Z, total: 150.00 }\ntier: silver\n";
    let (explanation, effects) = explanation_of(&request(dir.path(), silver)).await.unwrap();
    assert!(effects.is_empty(), "{effects:?}");
    let reason = explanation["reason"].as_str().unwrap();
    assert!(
        reason.contains("runs only on sunday, and it is friday"),
        "{explanation}"
    );
    assert!(
        reason.contains("for tiers gold only, and the Customer is silver"),
        "{explanation}"
    );
    // The two purchases are the 600 its history holds.
    assert!(
        reason.contains("`history.spent_last_days(365)` is 600"),
        "{explanation}"
    );

    // A tier the history does not reach is refused, saying what it reaches.
    let dir = tempfile::tempdir().unwrap();
    let claims_gold = silver.replace("tier: silver", "tier: gold");
    let refused = explanation_of(&request(dir.path(), &claims_gold))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains(
            "is to be in tier \"gold\", but its attributes and purchases reach \"silver\""
        ),
        "{refused}"
    );

    // A purchase after the explained instant cannot be history.
    let dir = tempfile::tempdir().unwrap();
    let later = "code: LATER\npurchases:\n  - { at: 2026-12-01T12:00:00Z, total: 10.00 }\n";
    let refused = explanation_of(&request(dir.path(), later))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("purchase 1: is at 2026-12-01T12:00:00Z, not before the scenario's clock"),
        "{refused}"
    );
}
