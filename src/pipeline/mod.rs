//! The one event pipeline: carts (realtime and simulated), Custom Events and
//! triggers are each an [`occurrence::Occurrence`], and go through the same
//! use-case ([`crate::services::Services::run_pipeline`]): name the active
//! Customer, read the facts and Instant Win state in one round trip,
//! evaluate the campaigns, write the occurrence with its points and draws in
//! one transaction, retry on contention and wake prize delivery.
//!
//! - [`api`]: the effects and explanations they answer with.
//! - [`contribution`]: the seam a campaign kind plugs in by: what it reads
//!   before, writes with and gives back of an event.
//! - [`contributions`]: the pipeline's steps over every kind's contribution.
//! - [`dates`]: which time decides what, and how far a sent `date` may be from the clock.
//! - [`evaluate`]: the evaluation step: the engine on the facts and state,
//!   with the draws it makes.
//! - [`facts`]: the active Customer, the Company's rules, facts and state.
//! - [`kinds`]: every kind's contribution, named once.
//! - [`occurrence`]: what each kind of occurrence contributes.
//! - [`run`]: the evaluate-write-retry loop.
//! - [`store`]: the one query reading a Customer's facts and draw state.

pub mod api;
pub mod contribution;
pub mod contributions;
pub mod dates;
pub mod evaluate;
pub mod facts;
pub mod kinds;
pub mod occurrence;
pub mod run;
pub mod store;
