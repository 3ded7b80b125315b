//! The rules layer, pure apart from reading its files: rhai expressions
//! compiled once ([`script`]), the Customer segments authors define in YAML
//! ([`segments`]) with translatable [`text`], and the per-Company catalog reloaded on change ([`catalog`]).
//! It does no store I/O and owns no clock: facts and `now` are passed in.

pub mod campaign;
pub mod catalog;
pub mod evaluate;
pub mod script;
pub mod segments;
pub mod text;

pub use catalog::{Catalog, CompanyRules, LoadReport};
pub use script::{Facts, RuleError, ScriptEngine};
