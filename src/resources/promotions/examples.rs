//! Example requests of the legacy Promotion operations, published in the
//! spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;
use crate::resources::promotions::model::{
    DeletedPromotion, Promotion, PromotionList, PromotionSpec,
};

/// A Promotion as answers show it.
macro_rules! promotion {
    () => {
        r#"{"id": 1000004, "name": {"en": "Dairy week", "es": "Semana láctea"},
            "description": null, "active": true, "valid_from": "2026-11-23T00:00:00Z",
            "valid_to": "2026-11-29T23:59:59Z", "products": ["EGGS-12"],
            "features": {"department": ["dairy"]}, "percent": 15.0, "amount": null,
            "priority": 5, "exclusive": false}"#
    };
}

/// The Promotion operations' examples.
pub const EXAMPLES: &[OperationExample] = &[
    OperationExample::new("POST /promotions")
        .takes::<PromotionSpec>(
            r#"{"name": {"en": "Dairy week", "es": "Semana láctea"},
                "valid_from": "2026-11-23T00:00:00Z", "valid_to": "2026-11-29T23:59:59Z",
                "products": ["EGGS-12"], "features": {"department": ["dairy"]},
                "percent": 15, "priority": 5}"#,
        )
        .answers::<Promotion>(promotion!()),
    OperationExample::new("GET /promotions").answers::<PromotionList>(concat!(
        r#"{"promotions": ["#,
        promotion!(),
        "]}"
    )),
    OperationExample::new("GET /promotions/{id}").answers::<Promotion>(promotion!()),
    OperationExample::new("PATCH /promotions/{id}")
        .takes::<PromotionSpec>(r#"{"valid_to": "2026-11-29T23:59:59Z", "percent": 15}"#)
        .answers::<Promotion>(promotion!()),
    OperationExample::new("DELETE /promotions/{id}")
        .answers::<DeletedPromotion>(r#"{"id": 1000004, "result": "deleted"}"#),
];
