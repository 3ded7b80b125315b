//! Small helpers every resource uses.

pub mod clock;
pub mod ids;
pub mod language;
pub mod locale;
pub mod money;
pub mod pagination;
pub mod random;
pub mod retry;
pub mod url;
pub mod validate;

pub use loyalty_types::{amount, time};
