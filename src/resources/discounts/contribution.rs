//! What discounts contribute to the event pipeline besides their
//! evaluation and settlement (the rules'): the discounts a cart got,
//! written with the cart ([`super::cart`]) in one `INSERT` for a batch of
//! events, with what their campaigns take from their limits; and a cart's
//! cancellation marking its discounts cancelled and giving back what they
//! took.

use serde_json::Value;

use crate::pipeline::contribution::Contribution;
use crate::pipeline::contribution::EventPart;
use crate::pipeline::contribution::SettledCart;
use crate::resources::discounts::cart::campaign_limit_takes;
use crate::resources::discounts::cart::cart_discounts;
use crate::resources::discounts::store::CANCEL_DISCOUNTS;
use crate::resources::discounts::store::STORE_DISCOUNTS;
use crate::resources::discounts::store::discount_row;
use crate::resources::discounts::store::transaction_document;
use crate::resources::limits::store::limit_take_documents;
use crate::resources::limits::store::take_limits_sql;
use crate::storage::event_transaction::BatchPart;

/// Discounts' part of the pipeline.
pub(crate) struct Discounts;

/// The field of a cart's write holding its discount transaction
/// ([`transaction_document`]).
const DISCOUNTS: &str = "discounts";

/// What the discount campaigns that applied to a cart take from their
/// limits: run before every kind's own part, a limit reached refusing the
/// cart.
static DISCOUNT_LIMIT_TAKES: [EventPart; 1] = [EventPart {
    field: "discount_limit_takes",
    statements: discount_limit_statements,
}];

/// [`DISCOUNT_LIMIT_TAKES`]' statements.
fn discount_limit_statements() -> String {
    concat!("LET $limit_takes = $part;", take_limits_sql!()).to_string()
}

impl Contribution for Discounts {
    fn carried_parts(&self) -> &'static [EventPart] {
        &DISCOUNT_LIMIT_TAKES
    }

    fn cart_parts(&self, cart: &SettledCart<'_>) -> Vec<(&'static str, Value)> {
        let Some(transaction) = cart_discounts(cart) else {
            return Vec::new();
        };
        let takes = campaign_limit_takes(cart);
        let mut parts = vec![(
            DISCOUNTS,
            transaction_document(cart.company, &transaction, &takes),
        )];
        if !takes.is_empty() {
            parts.push((
                DISCOUNT_LIMIT_TAKES[0].field,
                Value::Array(limit_take_documents(&takes)),
            ));
        }
        parts
    }

    fn batch_rows(
        &self,
        company: &str,
        write: &Value,
        add: &mut dyn FnMut(&'static BatchPart, Value),
    ) {
        if let Some(row) = discount_row(company, &write[DISCOUNTS]) {
            add(&STORE_DISCOUNTS, row);
        }
    }

    /// A cart's discounts change nothing of its Customer's kept state.
    fn known_fields(&self) -> &'static [&'static str] {
        &[DISCOUNTS]
    }

    fn cancellation_statements(&self) -> Option<String> {
        Some(CANCEL_DISCOUNTS.to_string())
    }
}
