//! Every contribution to the pipeline, named once: a campaign kind's
//! resource folder implements [`Contribution`] and adds its one line here.
//! The order is the order their reads run, their ledger entries and event
//! parts are written, and their cancellation statements run.

use crate::pipeline::contribution::Contribution;
use crate::resources as kind;

/// The contributions, in the order they run.
pub(crate) static CONTRIBUTIONS: &[&dyn Contribution] = &[
    &kind::points::earned::PointsCampaigns,
    &kind::instant_wins::contribution::InstantWins,
    &kind::vouchers::contribution::Vouchers,
    &kind::challenges::contribution::Challenges,
    &kind::limits::contribution::Limits,
    &kind::discounts::contribution::Discounts,
    &kind::rewards::contribution::Rewards,
];
