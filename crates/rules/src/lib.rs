//! The rules of the loyalty service: what a campaign file says, how each
//! campaign kind is compiled and evaluated, the facts an event is judged
//! on, and the interpreter that turns an event into effects. Nothing here
//! reads the store, speaks HTTP or waits on a runtime: the service reads
//! what an event needs, calls [`engine`], and writes the effects.
//!
//! - [`engine`]: campaign files and their loader, conditions (rhai and
//!   their fast path), the kinds registry, facts, effects, the interpreter
//!   and its explanations.
//! - [`resources`]: each campaign kind's pure part (file section,
//!   compilation, evaluation, effects), in the folder of the resource it
//!   belongs to in the service (`resources/challenges/rules.rs`, ...), and
//!   the records they compute (limits, stacking, draws, purchase totals).
//! - [`common`]: ids, the Company's clocks and currency, exact sums,
//!   validation.
//!
//! The records the rules share with the API and the error registry are in
//! `loyalty-types`, re-exported where the rules name them ([`error`],
//! `common::amount`, `common::time`, `resources::vouchers::model`, ...).

pub mod common;
pub mod engine;
pub use loyalty_types::error;
pub mod resources;
