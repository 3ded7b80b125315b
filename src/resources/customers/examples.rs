//! Example requests of the Customer operations (profiles, cards, search and
//! merges), published in the spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;
use crate::resources::associations::model::AssociationInput;
use crate::resources::customers::api::CustomerSearch;
use crate::resources::customers::model::{CustomerPatch, NewCard, NewCustomer};
use crate::resources::merges::api::{TransferNewRequest, TransferRequest};

/// The Customer operations' examples.
pub const EXAMPLES: &[OperationExample] = &[
    OperationExample::new("POST /customers").takes::<NewCustomer>(
        r#"{"code": "EXT-1", "email": "ana@example.com", "first_name": "Ana",
                "last_name": "García", "language": "es", "country": "ES",
                "birth_date": "1990-04-12", "enroll": true,
                "consents": {"terms": true, "marketing_email": true},
                "cards": [{"number": "4000-1234", "kind": "plastic"}],
                "attributes": {"favourite_store": "MAD-01"}}"#,
    ),
    OperationExample::new("PATCH /customers/{value}").takes::<CustomerPatch>(
        r#"{"phone": "+34 600 123 456", "postal_code": null, "loyalty_member": true}"#,
    ),
    OperationExample::new("POST /customers/{id}/cards")
        .takes::<NewCard>(r#"{"number": "4000-5678", "kind": "digital"}"#),
    OperationExample::new("POST /customers/search")
        .takes::<CustomerSearch>(r#"{"filters": {"email": "ana@example.com"}, "per_page": 20}"#),
    OperationExample::new("POST /customers/transfer").takes::<TransferRequest>(
        r#"{"from_customer_id": "cus_0190aa00000000aa00000002",
                "to_customer_id": "cus_0190aa00000000aa00000001"}"#,
    ),
    OperationExample::new("POST /customers/transfer-new")
        .takes::<TransferNewRequest>(r#"{"from_customer_id": "cus_0190aa00000000aa00000002"}"#),
    OperationExample::new("POST /associations").takes::<AssociationInput>(
        r#"{"customer_id": "cus_0190aa00000000aa00000001",
                "associate_id": "cus_0190aa00000000aa00000003", "type": "family"}"#,
    ),
    OperationExample::new("PATCH /associations").takes::<AssociationInput>(
        r#"{"customer_id": "cus_0190aa00000000aa00000001",
                "associate_id": "cus_0190aa00000000aa00000003", "type": "partner"}"#,
    ),
];
