//! The records and scalars the rules and the API share, and the one
//! registry of error codes: plain data, nothing that does I/O.
//!
//! - [`amount`]: exact money as it crosses the wire and the store.
//! - [`time`]: a UTC instant as the interface writes it.
//! - [`error`]: every error code with its status, and the error each layer
//!   returns.
//! - [`vouchers`], [`rewards`], [`points`]: the records an event writes
//!   and the API answers (a Voucher, a reward transaction, a ledger entry's
//!   kind).
//! - [`limits`], [`discounts`]: the parts of a campaign the file and the
//!   API write alike.
//!
//! With the `openapi` feature every type also describes its OpenAPI
//! schema (poem-openapi); without it the crate names neither poem nor
//! tokio, which is how the rules crate builds on it.

pub mod amount;
pub mod discounts;
pub mod error;
pub mod limits;
pub mod points;
pub mod rewards;
pub mod time;
pub mod vouchers;
