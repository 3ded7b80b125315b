//! Company and API key records.

pub mod campaign_files;
pub mod companies;
pub mod keys;
