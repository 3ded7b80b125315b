//! Example requests of the legacy Promotion operations, published in the
//! spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;

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
    OperationExample {
        operation: "POST /promotions",
        request: Some(
            r#"{"name": {"en": "Dairy week", "es": "Semana láctea"},
                "valid_from": "2026-11-23T00:00:00Z", "valid_to": "2026-11-29T23:59:59Z",
                "products": ["EGGS-12"], "features": {"department": ["dairy"]},
                "percent": 15, "priority": 5}"#,
        ),
        response: Some(promotion!()),
    },
    OperationExample {
        operation: "GET /promotions",
        request: None,
        response: Some(concat!(r#"{"promotions": ["#, promotion!(), "]}")),
    },
    OperationExample {
        operation: "GET /promotions/{id}",
        request: None,
        response: Some(promotion!()),
    },
    OperationExample {
        operation: "PATCH /promotions/{id}",
        request: Some(r#"{"valid_to": "2026-11-29T23:59:59Z", "percent": 15}"#),
        response: Some(promotion!()),
    },
    OperationExample {
        operation: "DELETE /promotions/{id}",
        request: None,
        response: Some(r#"{"id": 1000004, "result": "deleted"}"#),
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::spec::examples::parses;
    use crate::resources::promotions::model::{
        DeletedPromotion, Promotion, PromotionList, PromotionSpec,
    };

    #[test]
    fn every_example_is_what_the_operation_accepts_and_answers() {
        for example in EXAMPLES {
            let (operation, request, response) =
                (example.operation, example.request, example.response);
            match operation {
                "POST /promotions" | "PATCH /promotions/{id}" => {
                    parses::<PromotionSpec>(operation, request);
                    parses::<Promotion>(operation, response);
                }
                "GET /promotions" => parses::<PromotionList>(operation, response),
                "GET /promotions/{id}" => parses::<Promotion>(operation, response),
                "DELETE /promotions/{id}" => parses::<DeletedPromotion>(operation, response),
                other => panic!("no check for {other}"),
            }
        }
    }
}
