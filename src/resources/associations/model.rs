//! Associations: typed links between two Customers of one Company.

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::common::time::Timestamp;

/// A link between two Customers (e.g. `family`, `company_account`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Object)]
pub struct Association {
    /// The Customer the association was created from.
    pub customer_id: String,
    /// The associated Customer.
    pub associate_id: String,
    /// Kind of link, a slug chosen by the Company.
    #[oai(rename = "type")]
    #[serde(rename = "type")]
    pub kind: String,
    /// When the link was made.
    pub created_at: Timestamp,
    /// When its type last changed.
    pub updated_at: Timestamp,
}

impl Association {
    /// The other side of the link, seen from `customer_id`.
    pub fn other(&self, customer_id: &str) -> &str {
        if self.customer_id == customer_id {
            &self.associate_id
        } else {
            &self.customer_id
        }
    }
}

/// Body of POST and PATCH /associations.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct AssociationInput {
    /// One Customer's id.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: String,
    /// The other Customer's id.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub associate_id: String,
    /// Kind of link, a slug such as `family` or `company_account`.
    #[oai(rename = "type")]
    #[serde(rename = "type")]
    #[oai(validator(min_length = 1, max_length = 64))]
    pub kind: String,
}

/// The store key of the pair: the two ids in order, so either direction finds it.
pub fn pair_key(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}
