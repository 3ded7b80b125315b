//! Example requests of the Product operations, published in the spec
//! ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;

/// A Product as answers show it.
macro_rules! product {
    () => {
        r#"{"id": "prd_019a8c2f4e10a1b2c3d4e5f6", "code": "MILK-1L", "name": "Milk 1 l",
            "names": {"es": "Leche 1 l"}, "price": 1.25,
            "features": {"brand": ["acme"], "department": ["dairy"]},
            "aliases": ["8410000000017"], "discountable": true,
            "attributes": {"margin": "high"},
            "created_at": "2026-11-23T10:00:00Z", "updated_at": "2026-11-23T10:00:00Z"}"#
    };
}

/// The Product operations' examples.
pub const EXAMPLES: &[OperationExample] = &[
    OperationExample {
        operation: "POST /products",
        request: Some(
            r#"{"code": "MILK-1L", "name": "Milk 1 l", "names": {"es": "Leche 1 l"},
                "price": 1.25, "features": {"department": ["dairy"], "brand": ["acme"]},
                "aliases": ["8410000000017"], "attributes": {"margin": "high"}}"#,
        ),
        response: Some(product!()),
    },
    OperationExample {
        operation: "GET /products",
        request: None,
        response: Some(concat!(r#"{"products": ["#, product!(), "]}")),
    },
    OperationExample {
        operation: "GET /products/{id}",
        request: None,
        response: Some(product!()),
    },
    OperationExample {
        operation: "PATCH /products/{id}",
        request: Some(
            r#"{"price": 1.29, "features": {"department": ["dairy"], "brand": ["acme"]}}"#,
        ),
        response: Some(product!()),
    },
    OperationExample {
        operation: "DELETE /products/{id}",
        request: None,
        response: Some(
            r#"{"id": "prd_019a8c2f4e10a1b2c3d4e5f6", "result": "deleted", "detached": 0}"#,
        ),
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::spec::examples::parses;
    use crate::resources::products::model::{NewProduct, Product, ProductChanges, ProductList};
    use crate::resources::taxonomies::model::DeletedMasterRecord;

    #[test]
    fn every_example_is_what_the_operation_accepts_and_answers() {
        for example in EXAMPLES {
            let (operation, request, response) =
                (example.operation, example.request, example.response);
            match operation {
                "POST /products" => parses::<NewProduct>(operation, request),
                "PATCH /products/{id}" => parses::<ProductChanges>(operation, request),
                "GET /products/{id}" => {}
                "GET /products" => {
                    parses::<ProductList>(operation, response);
                    continue;
                }
                "DELETE /products/{id}" => parses::<DeletedMasterRecord>(operation, response),
                other => panic!("no check for {other}"),
            }
            if operation != "DELETE /products/{id}" {
                parses::<Product>(operation, response);
            }
        }
    }
}
