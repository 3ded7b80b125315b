//! Small helpers every resource uses.

pub mod clock;
pub use loyalty_rules::common::ids;
pub mod language;
pub use loyalty_rules::common::locale;
pub use loyalty_rules::common::money;
pub mod pagination;
pub mod process;
pub mod random;
pub mod retry;
pub mod stamps;
pub mod url;
pub use loyalty_rules::common::validate;

pub use loyalty_types::{amount, time};
