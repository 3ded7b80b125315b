//! The bodies of the operations that move points (POST /points/redeem,
//! /points/redeem_cart, /points/transfer, /scores/transfer, /scores/trigger)
//! and what they answer.

use poem_openapi::Object;

use crate::common::time::Timestamp;
use crate::resources::points::model::PointsKind;
use crate::resources::points::service::PointsOperation;

/// A redemption from a Customer's balance.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct Redemption {
    /// The Customer, by id (or `customer_code`).
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: Option<String>,
    /// The Customer, by code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_code: Option<String>,
    /// Amount to take, 1 to 1,000,000,000.
    #[oai(validator(minimum(value = 1.0), maximum(value = 1000000000.0)))]
    pub points: i64,
    /// `points` (default) or `wallet`.
    #[oai(default)]
    pub kind: PointsKind,
    /// A note kept on the ledger entry.
    #[oai(validator(max_length = 500))]
    pub description: Option<String>,
}

/// A redemption for a recorded cart.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct CartRedemption {
    /// The cart (its code); its Customer pays.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub cart_id: String,
    /// Amount to take.
    #[oai(validator(minimum(value = 1.0), maximum(value = 1000000000.0)))]
    pub points: i64,
    /// `points` (default) or `wallet`.
    #[oai(default)]
    pub kind: PointsKind,
}

/// A transfer between two Customers of the Company.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct Transfer {
    /// The Customer giving, by id.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub from_customer_id: Option<String>,
    /// The Customer giving, by code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub from_customer_code: Option<String>,
    /// The Customer receiving, by id.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub to_customer_id: Option<String>,
    /// The Customer receiving, by code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub to_customer_code: Option<String>,
    /// Amount to move.
    #[oai(validator(minimum(value = 1.0), maximum(value = 1000000000.0)))]
    pub points: i64,
    /// `points` (default) or `wallet`.
    #[oai(default)]
    pub kind: PointsKind,
    /// A note kept on both ledger entries.
    #[oai(validator(max_length = 500))]
    pub description: Option<String>,
}

/// A manual credit or debit.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct Adjustment {
    /// The Customer, by id.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: Option<String>,
    /// The Customer, by code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_code: Option<String>,
    /// Amount: positive credits, negative debits (never below a zero balance).
    #[oai(validator(minimum(value = -1000000000.0), maximum(value = 1000000000.0)))]
    pub points: i64,
    /// `points` (default) or `wallet`.
    #[oai(default)]
    pub kind: PointsKind,
    /// Why, kept on the ledger entry.
    #[oai(validator(max_length = 500))]
    pub description: Option<String>,
    /// Credits only (positive `points`): when what is left of them expires (in the future).
    pub expires_at: Option<Timestamp>,
}

/// What an operation did.
#[derive(Debug, Object)]
pub struct OperationResult {
    /// The operation; its ledger entries carry it as `operation_id`.
    pub operation_id: String,
    /// The balance moved.
    pub kind: PointsKind,
    /// Amount moved.
    pub points: i64,
    /// The Customer debited, credited or adjusted.
    pub customer_id: String,
    /// Their balance afterwards.
    pub balance: i64,
    /// Transfers: the Customer credited.
    #[oai(skip_serializing_if_is_none)]
    pub to_customer_id: Option<String>,
    /// Transfers: their balance afterwards.
    #[oai(skip_serializing_if_is_none)]
    pub to_balance: Option<i64>,
    /// Cart redemptions: the cart.
    #[oai(skip_serializing_if_is_none)]
    pub cart_id: Option<String>,
}

impl From<PointsOperation> for OperationResult {
    fn from(operation: PointsOperation) -> Self {
        let (to_customer_id, to_balance) = match operation.counterpart {
            Some((id, balance)) => (Some(id), Some(balance)),
            None => (None, None),
        };
        OperationResult {
            operation_id: operation.id,
            kind: operation.kind,
            points: operation.points,
            customer_id: operation.customer_id,
            balance: operation.balance,
            to_customer_id,
            to_balance,
            cart_id: operation.cart_id,
        }
    }
}

/// What a redemption, transfer or adjustment answers.
pub(crate) fn answer_of(operation: &PointsOperation) -> OperationResult {
    operation.clone().into()
}
