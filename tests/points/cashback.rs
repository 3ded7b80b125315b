//! Cashback exchanges and thresholds by Location.

use super::*;

#[tokio::test]
async fn cashback_exchanges_and_thresholds_by_location() {
    let server = TestServer::start().await;
    let key = server.bootstrap_key();
    let id = customer(&server, &key, "cashback@example.com").await;
    credit(&server, &key, &id, 780).await;
    let (status, all) = server.get_as("/cashbacks", &key).await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["cashbacks"].as_array().unwrap().len(), 2);
    let (status, flagship) = server
        .get_as(
            &format!("/cashbacks?location_code=STORE1&customer_id={id}"),
            &key,
        )
        .await;
    assert_eq!(status, 200, "{flagship}");
    assert_eq!(
        flagship["cashbacks"][0],
        json!({
            "location_code": "STORE1", "exchange_location": "STORE1", "points": 100, "amount": 600,
            "customer_id": id, "balance": 780, "convertible_points": 700, "convertible_amount": 4200
        })
    );
    let (_, elsewhere) = server.get_as("/cashbacks?location_id=STORE7", &key).await;
    assert_eq!(elsewhere["cashbacks"][0]["exchange_location"], "default");
    let (_, thresholds) = server
        .get_as("/cashback_thresholds?location_code=STORE1", &key)
        .await;
    assert_eq!(
        thresholds["cashback_thresholds"],
        json!([{"location": "default", "min_points": 500, "step": 100}])
    );

    // A Company without a cashback file has no exchange anywhere.
    let other = server.company_with_key("nocash").await;
    let (status, body) = server
        .get_as("/cashbacks?location_code=STORE1", &other)
        .await;
    assert_error(status, &body, 404, "exchange_not_found");
    let (status, body) = server
        .get_as("/cashback_thresholds?location_code=STORE1", &other)
        .await;
    assert_error(status, &body, 404, "exchange_not_found");
    let (status, body) = server
        .get_as("/cashbacks?location_code=A&location_id=B", &key)
        .await;
    assert_error(status, &body, 404, "location_not_found");
}
