//! Associations: POST/PATCH/DELETE /associations, GET /customers/{id}/associates.

use crate::error::ErrorCode;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::http::auth::Tier2;
use crate::http::auth::Tier3;
use crate::http::errors::ErrorResponse;
use crate::resources::associations::model::Association;
use crate::resources::associations::model::AssociationInput;
use crate::resources::customers::model::Customer;
use crate::resources::customers::service::CustomerRef;

#[derive(Tags)]
enum AssociationTags {
    /// Links between Customers (family, company accounts, ...).
    Associations,
}

/// An associated Customer and the link to it.
#[derive(Debug, Object)]
pub struct AssociateBody {
    /// Kind of link.
    #[oai(rename = "type")]
    pub kind: String,
    /// When the link was made.
    pub associated_at: crate::common::time::Timestamp,
    /// The associated Customer.
    pub customer: Customer,
}

/// Answer of GET /customers/{id}/associates.
#[derive(Debug, Object)]
pub struct AssociateList {
    /// Every linked Customer, oldest link first.
    pub associates: Vec<AssociateBody>,
}

/// Answer of DELETE /associations.
#[derive(Debug, Object)]
pub struct DeletedAssociation {
    /// One Customer of the removed link.
    pub customer_id: String,
    /// The other Customer.
    pub associate_id: String,
    /// Always true.
    pub deleted: bool,
}

/// Association endpoints.
#[derive(Debug, Default)]
pub struct AssociationsApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for AssociationsApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "POST /associations",
            codes: &[
                ErrorCode::SameCustomer,
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::AssociationAlreadyExists,
            ],
        },
        OperationErrors {
            operation: "PATCH /associations",
            codes: &[
                ErrorCode::SameCustomer,
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::AssociationNotFound,
            ],
        },
        OperationErrors {
            operation: "DELETE /associations",
            codes: &[ErrorCode::CustomerNotFound, ErrorCode::AssociationNotFound],
        },
        OperationErrors {
            operation: "GET /customers/{id}/associates",
            codes: &[ErrorCode::CustomerNotFound],
        },
    ];
}

#[OpenApi(tag = "AssociationTags::Associations")]
impl AssociationsApi {
    /// Create a Customer association.
    ///
    /// Links two active Customers of the Company with a `type` (a slug such as
    /// `family`). A pair is linked at most once, whichever way round:
    /// `association_already_exists` otherwise.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/associations", method = "post")]
    async fn create(
        &self,
        caller: Tier3<'_>,
        body: Json<AssociationInput>,
    ) -> Result<Json<Association>, ErrorResponse> {
        caller.answers_with(Association::clone);
        let association = caller
            .services
            .create_association(&caller.company, body.0)
            .await?;
        Ok(Json(association))
    }

    /// Update a Customer association: change its `type`.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/associations", method = "patch")]
    async fn update(
        &self,
        caller: Tier3<'_>,
        body: Json<AssociationInput>,
    ) -> Result<Json<Association>, ErrorResponse> {
        caller.answers_with(Association::clone);
        let association = caller
            .services
            .update_association(&caller.company, body.0)
            .await?;
        Ok(Json(association))
    }

    /// Delete a Customer association, named by the two Customer ids.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/associations", method = "delete")]
    async fn delete(
        &self,
        caller: Tier3<'_>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_id: Query<String>,
        #[oai(validator(min_length = 1, max_length = 128))] associate_id: Query<String>,
    ) -> Result<Json<DeletedAssociation>, ErrorResponse> {
        caller
            .services
            .delete_association(&caller.company, &customer_id.0, &associate_id.0)
            .await?;
        Ok(Json(DeletedAssociation {
            customer_id: customer_id.0,
            associate_id: associate_id.0,
            deleted: true,
        }))
    }

    /// Associated Customers of a Customer.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/customers/:id/associates", method = "get")]
    async fn associates(
        &self,
        caller: Tier2<'_>,
        id: Path<String>,
    ) -> Result<Json<AssociateList>, ErrorResponse> {
        let associates = caller
            .services
            .associates(&caller.company, CustomerRef::id(&id.0))
            .await?;
        Ok(Json(AssociateList {
            associates: associates
                .into_iter()
                .map(|a| AssociateBody {
                    kind: a.association.kind,
                    associated_at: a.association.created_at,
                    customer: a.customer,
                })
                .collect(),
        }))
    }
}
