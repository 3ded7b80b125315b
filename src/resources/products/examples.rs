//! Example requests of the Product operations, published in the spec
//! ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;
use crate::resources::products::model::{NewProduct, Product, ProductChanges, ProductList};
use crate::resources::taxonomies::model::DeletedMasterRecord;

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
    OperationExample::new("POST /products")
        .takes::<NewProduct>(
            r#"{"code": "MILK-1L", "name": "Milk 1 l", "names": {"es": "Leche 1 l"},
                "price": 1.25, "features": {"department": ["dairy"], "brand": ["acme"]},
                "aliases": ["8410000000017"], "attributes": {"margin": "high"}}"#,
        )
        .answers::<Product>(product!()),
    OperationExample::new("GET /products").answers::<ProductList>(concat!(
        r#"{"products": ["#,
        product!(),
        "]}"
    )),
    OperationExample::new("GET /products/{id}").answers::<Product>(product!()),
    OperationExample::new("PATCH /products/{id}")
        .takes::<ProductChanges>(
            r#"{"price": 1.29, "features": {"department": ["dairy"], "brand": ["acme"]}}"#,
        )
        .answers::<Product>(product!()),
    OperationExample::new("DELETE /products/{id}").answers::<DeletedMasterRecord>(
        r#"{"id": "prd_019a8c2f4e10a1b2c3d4e5f6", "result": "deleted", "detached": 0}"#,
    ),
];
