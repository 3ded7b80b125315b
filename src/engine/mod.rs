//! The rules layer, pure apart from reading its files: rhai expressions
//! compiled once ([`script`], with a [`fast`] path for the commonest), campaigns ([`campaign`]) and their Instant Win
//! draws ([`instant_win`]), the interpreter ([`evaluate`]), the Customer segments authors define in YAML
//! ([`segments`]) with translatable [`text`], points-to-wallet [`cashback`], and the per-Company catalog reloaded on change ([`catalog`]).
//! It does no store I/O and owns no clock: facts and `now` are passed in.

pub mod campaign;
pub mod campaign_set;
pub mod catalog;
pub mod effect;
pub mod evaluate;
#[cfg(test)]
mod evaluate_properties;
pub mod facts;
pub mod fast;
#[cfg(test)]
mod fast_properties;
pub mod kinds;
pub mod loader;
pub mod origin;
pub mod problems;
pub mod script;
pub mod text;
