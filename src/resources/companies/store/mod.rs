//! Company and API key records.

pub mod companies;
pub mod keys;
