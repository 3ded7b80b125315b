//! What discounts contribute to the event pipeline besides their
//! evaluation and settlement (the rules'): a cart's cancellation marks its
//! discounts cancelled and gives back what they took from their limits.
//! (What a cart got is written with the cart itself:
//! [`crate::resources::carts::store::CartWrite`].)

use crate::pipeline::contribution::Contribution;
use crate::resources::discounts::store::CANCEL_DISCOUNTS;

/// Discounts' part of the pipeline.
pub(crate) struct Discounts;

impl Contribution for Discounts {
    fn cancellation_statements(&self) -> Option<String> {
        Some(CANCEL_DISCOUNTS.to_string())
    }
}
