//! Example requests of the cart and Custom Event operations, published in
//! the spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;
use crate::resources::carts::model::{CartCancellation, NewCart};
use crate::resources::events::model::NewEvent;

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
    OperationExample::new("POST /carts/realtime").takes::<NewCart>(CART),
    OperationExample::new("POST /carts/simulate").takes::<NewCart>(CART),
    OperationExample::new("POST /carts/cancellation")
        .takes::<CartCancellation>(r#"{"cart_id": "T1-0001"}"#),
    OperationExample::new("POST /custom_events").takes::<NewEvent>(EVENT),
    OperationExample::new("POST /trigger")
        .takes::<NewEvent>(r#"{"customer_code": "EXT-1", "type": "birthday"}"#),
];
