//! The rules layer, pure apart from reading its files: rhai expressions
//! compiled once ([`script`], with a [`fast`] path for the commonest), campaigns ([`campaign`]) and their Instant Win
//! draws ([`instant_win`]), the interpreter ([`evaluate`]), the Customer segments authors define in YAML
//! ([`segments`]) with translatable [`text`], points-to-wallet [`cashback`], and the per-Company catalog reloaded on change ([`catalog`]).
//! It does no store I/O and owns no clock: facts and `now` are passed in.

pub mod campaign;
mod campaign_set;
pub mod cashback;
pub mod catalog;
#[cfg(test)]
mod draw_properties;
pub mod draws;
pub mod evaluate;
#[cfg(test)]
mod evaluate_properties;
pub mod fairness;
mod fast;
#[cfg(test)]
mod fast_properties;
pub mod instant_win;
mod instant_win_file;
mod origin;
mod problems;
pub mod script;
pub mod segments;
pub mod text;

pub use campaign_set::API_IDS_START;
pub use catalog::{Catalog, CompanyRules, LoadReport};
pub use script::{Facts, RuleError, ScriptEngine};
