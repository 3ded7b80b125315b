//! The rules engine core, pure apart from its file loader: rhai expressions
//! compiled once ([`script`], with a [`fast`] path for the commonest and an
//! [`exact`] one for money, under
//! the [`limits`] of one evaluation) and the
//! [`facts`] they see, campaign files ([`campaign`], [`campaign_set`], the events they [`listens`] to) with
//! translatable [`text`] and problems reported at their line ([`problems`],
//! [`origin`]), when and for whom any campaign runs ([`reach`]), the kinds registry every campaign kind plugs into
//! ([`kinds`]), typed [`effect`]s, the interpreter ([`evaluate`]; whether a campaign takes part: [`takes_part`]) and its
//! [`explanation`]s (the deciding parts of a condition: [`why`]), the
//! mistakes caught when files load ([`check`]), the files' JSON [`schema`], and the per-Company [`catalog`] read through a [`loader`] and reloaded on change, a broken file held back alone ([`held_back`]).
//! It does no store I/O and owns no clock: facts and `now` are passed in
//! (only an evaluation's time limit reads the monotonic clock).
//! Each kind's own section, compilation and evaluation live in its resource
//! folder (`resources/discounts/rules.rs`, `resources/points_campaigns/rules.rs`,
//! `resources/instant_wins/rules/`).

pub mod campaign;
pub mod campaign_file;
pub mod campaign_set;
pub mod catalog;
pub mod check;
pub mod effect;
pub mod evaluate;
#[cfg(test)]
mod evaluate_properties;
pub mod exact;
pub mod explanation;
pub mod facts;
pub mod fast;
#[cfg(test)]
mod fast_properties;
pub mod held_back;
pub mod helpers;
pub mod history;
pub mod kinds;
pub mod limits;
pub mod listens;
pub mod loader;
pub mod not_applied;
pub mod origin;
pub mod problems;
pub mod reach;
pub mod schema;
pub mod script;
pub mod takes_part;
pub mod text;
pub mod why;
pub mod yaml;
