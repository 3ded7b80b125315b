//! Example requests of the Customer operations (profiles, cards, search and
//! merges), published in the spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;

/// The Customer operations' examples.
pub const EXAMPLES: &[OperationExample] = &[
    OperationExample {
        operation: "POST /customers",
        request: Some(
            r#"{"code": "EXT-1", "email": "ana@example.com", "first_name": "Ana",
                "last_name": "García", "language": "es", "country": "ES",
                "birth_date": "1990-04-12", "enroll": true,
                "consents": {"terms": true, "marketing_email": true},
                "cards": [{"number": "4000-1234", "kind": "plastic"}],
                "attributes": {"favourite_store": "MAD-01"}}"#,
        ),
        response: None,
    },
    OperationExample {
        operation: "PATCH /customers/{value}",
        request: Some(
            r#"{"phone": "+34 600 123 456", "postal_code": null, "loyalty_member": true}"#,
        ),
        response: None,
    },
    OperationExample {
        operation: "POST /customers/{id}/cards",
        request: Some(r#"{"number": "4000-5678", "kind": "digital"}"#),
        response: None,
    },
    OperationExample {
        operation: "POST /customers/search",
        request: Some(r#"{"filters": {"email": "ana@example.com"}, "per_page": 20}"#),
        response: None,
    },
    OperationExample {
        operation: "POST /customers/transfer",
        request: Some(
            r#"{"from_customer_id": "cus_0190aa00000000aa00000002",
                "to_customer_id": "cus_0190aa00000000aa00000001"}"#,
        ),
        response: None,
    },
    OperationExample {
        operation: "POST /customers/transfer-new",
        request: Some(r#"{"from_customer_id": "cus_0190aa00000000aa00000002"}"#),
        response: None,
    },
    OperationExample {
        operation: "POST /associations",
        request: Some(
            r#"{"customer_id": "cus_0190aa00000000aa00000001",
                "associate_id": "cus_0190aa00000000aa00000003", "type": "family"}"#,
        ),
        response: None,
    },
    OperationExample {
        operation: "PATCH /associations",
        request: Some(
            r#"{"customer_id": "cus_0190aa00000000aa00000001",
                "associate_id": "cus_0190aa00000000aa00000003", "type": "partner"}"#,
        ),
        response: None,
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::spec::examples::parses;
    use crate::resources::associations::model::AssociationInput;
    use crate::resources::customers::api::CustomerSearch;
    use crate::resources::customers::model::{CustomerPatch, NewCard, NewCustomer};
    use crate::resources::merges::api::{TransferNewRequest, TransferRequest};

    #[test]
    fn every_example_is_what_the_operation_accepts() {
        for example in EXAMPLES {
            let (operation, request) = (example.operation, example.request);
            match operation {
                "POST /customers" => parses::<NewCustomer>(operation, request),
                "PATCH /customers/{value}" => parses::<CustomerPatch>(operation, request),
                "POST /customers/{id}/cards" => parses::<NewCard>(operation, request),
                "POST /customers/search" => parses::<CustomerSearch>(operation, request),
                "POST /customers/transfer" => parses::<TransferRequest>(operation, request),
                "POST /customers/transfer-new" => parses::<TransferNewRequest>(operation, request),
                "POST /associations" | "PATCH /associations" => {
                    parses::<AssociationInput>(operation, request)
                }
                other => panic!("no check for {other}"),
            }
        }
    }
}
