//! Example requests of the cart and Custom Event operations, published in
//! the spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;

/// A till's cart: two lines, a Voucher the Customer wants to use.
const CART: &str = r#"{"customer_code": "EXT-1", "code": "T1-0001",
    "location_code": "MAD-01",
    "lines": [
        {"product_code": "COFFEE-250", "quantity": 2, "price": 4.50,
         "taxonomies": ["coffee"], "features": {"brand": "Acme"}},
        {"product_code": "MILK-1L", "quantity": 1, "price": 1.20}
    ],
    "total": 10.20, "coupons_desired": ["WELCOME-7K2Q"]}"#;

/// A Custom Event a mobile app sends.
const EVENT: &str = r#"{"customer_code": "EXT-1", "type": "app_opened",
    "data": {"screen": "offers"}}"#;

/// The cart and Custom Event operations' examples.
pub const EXAMPLES: &[OperationExample] = &[
    OperationExample {
        operation: "POST /carts/realtime",
        request: Some(CART),
        response: None,
    },
    OperationExample {
        operation: "POST /carts/simulate",
        request: Some(CART),
        response: None,
    },
    OperationExample {
        operation: "POST /carts/cancellation",
        request: Some(r#"{"cart_id": "T1-0001"}"#),
        response: None,
    },
    OperationExample {
        operation: "POST /custom_events",
        request: Some(EVENT),
        response: None,
    },
    OperationExample {
        operation: "POST /trigger",
        request: Some(r#"{"customer_code": "EXT-1", "type": "birthday"}"#),
        response: None,
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::spec::examples::parses;
    use crate::resources::carts::model::{CartCancellation, NewCart};
    use crate::resources::events::model::NewEvent;

    #[test]
    fn every_example_is_what_the_operation_accepts() {
        for example in EXAMPLES {
            let (operation, request) = (example.operation, example.request);
            match operation {
                "POST /carts/realtime" | "POST /carts/simulate" => {
                    parses::<NewCart>(operation, request)
                }
                "POST /carts/cancellation" => parses::<CartCancellation>(operation, request),
                "POST /custom_events" | "POST /trigger" => parses::<NewEvent>(operation, request),
                other => panic!("no check for {other}"),
            }
        }
    }
}
