//! Merges: POST /customers/transfer, POST /customers/transfer-new,
//! POST /customers/{associate_id}/unmerge.

use crate::error::ErrorCode;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::http::auth::Tier3;
use crate::http::errors::ErrorResponse;
use crate::resources::customers::model::Customer;
use crate::resources::merges::model::MergeRecord;
use crate::resources::merges::model::NotRestored;
use crate::resources::merges::service::MergeOutcome;
use crate::resources::merges::service::MergeTarget;
use crate::resources::merges::service::UnmergeOutcome;

#[derive(Tags)]
enum MergeTags {
    /// Merging duplicate Customers, and undoing it.
    Merges,
}

/// Body of POST /customers/transfer.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct TransferRequest {
    /// The Customer to merge (it becomes inactive, `merged_into` the target).
    #[oai(validator(min_length = 1))]
    pub from_customer_id: String,
    /// The Customer that receives the data.
    #[oai(validator(min_length = 1))]
    pub to_customer_id: String,
}

/// Body of POST /customers/transfer-new.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct TransferNewRequest {
    /// The Customer whose data goes into a new Customer.
    #[oai(validator(min_length = 1))]
    pub from_customer_id: String,
}

/// Answer of a merge.
#[derive(Debug, Object)]
pub struct MergeBody {
    /// The merged Customer, now inactive.
    pub merged: Customer,
    /// The Customer that received the data.
    pub target: Customer,
    /// What moved; POST /customers/{associate_id}/unmerge gives it back.
    pub merge: MergeRecord,
}

impl From<MergeOutcome> for MergeBody {
    fn from(outcome: MergeOutcome) -> Self {
        MergeBody {
            merged: outcome.merged,
            target: outcome.target,
            merge: outcome.record,
        }
    }
}

impl From<UnmergeOutcome> for UnmergeBody {
    fn from(outcome: UnmergeOutcome) -> Self {
        UnmergeBody {
            customer: outcome.customer,
            target: outcome.target,
            not_restored: outcome.not_restored,
        }
    }
}

/// Answer of an unmerge.
#[derive(Debug, Object)]
pub struct UnmergeBody {
    /// The restored Customer.
    pub customer: Customer,
    /// The former target.
    pub target: Customer,
    /// What the merge moved that could not be given back (consumed, removed or
    /// changed since), with the reason. Empty when everything came back.
    pub not_restored: Vec<NotRestored>,
}

/// Merge endpoints.
#[derive(Debug, Default)]
pub struct MergesApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for MergesApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "POST /customers/transfer",
            codes: &[
                ErrorCode::SameCustomer,
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
            ],
        },
        OperationErrors {
            operation: "POST /customers/transfer-new",
            codes: &[
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::CustomerAlreadyExists,
            ],
        },
        OperationErrors {
            operation: "POST /customers/{associate_id}/unmerge",
            codes: &[
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::MergeNotFound,
            ],
        },
    ];
}

#[OpenApi(tag = "MergeTags::Merges")]
impl MergesApi {
    /// Merge one Customer into another.
    ///
    /// In one transaction the merged Customer's cards, associations, carts and
    /// points move to the target (an association the target already has with
    /// the same Customer is set aside; points move as ledger entries), and the
    /// merged Customer becomes inactive with `merged_into` set. The merge is recorded so that
    /// POST /customers/{associate_id}/unmerge can undo it.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/customers/transfer", method = "post")]
    async fn transfer(
        &self,
        caller: Tier3<'_>,
        body: Json<TransferRequest>,
    ) -> Result<Json<MergeBody>, ErrorResponse> {
        caller.answers_with(|outcome: &MergeOutcome| MergeBody::from(outcome.clone()));
        let outcome = caller
            .services
            .merge_customers(
                &caller.company,
                &body.0.from_customer_id,
                MergeTarget::Existing(&body.0.to_customer_id),
            )
            .await?;
        Ok(Json(outcome.into()))
    }

    /// Merge a Customer into a new Customer created with its data.
    ///
    /// The new Customer takes the merged Customer's personal data, its code,
    /// e-mail, phone, cards, associations, carts and points.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/customers/transfer-new", method = "post")]
    async fn transfer_new(
        &self,
        caller: Tier3<'_>,
        body: Json<TransferNewRequest>,
    ) -> Result<Json<MergeBody>, ErrorResponse> {
        caller.answers_with(|outcome: &MergeOutcome| MergeBody::from(outcome.clone()));
        let outcome = caller
            .services
            .merge_customers(&caller.company, &body.0.from_customer_id, MergeTarget::New)
            .await?;
        Ok(Json(outcome.into()))
    }

    /// Unmerge a Customer from the Customer it was merged into.
    ///
    /// `associate_id` is the merged Customer. What the target still holds is
    /// given back and the Customer regains its former active state; anything
    /// consumed, removed or changed since is listed in `not_restored`.
    /// `merge_not_found` if the Customer is not merged.
    ///
    /// Rate limit: tier 3 (low).
    #[oai(path = "/customers/:associate_id/unmerge", method = "post")]
    async fn unmerge(
        &self,
        caller: Tier3<'_>,
        associate_id: Path<String>,
    ) -> Result<Json<UnmergeBody>, ErrorResponse> {
        caller.answers_with(|outcome: &UnmergeOutcome| UnmergeBody::from(outcome.clone()));
        let outcome = caller
            .services
            .unmerge_customer(&caller.company, &associate_id.0)
            .await?;
        Ok(Json(outcome.into()))
    }
}
