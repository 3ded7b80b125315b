//! The pure part of `common` (the service holds the rest).

pub mod ids;
pub mod locale;
pub mod money;
pub mod validate;

pub use loyalty_types::{amount, time};
