//! What each campaign kind contributes to the pipeline besides its
//! evaluation (which [`crate::engine::kinds`] dispatches): the state its
//! campaigns read before an event is evaluated, and the ledger entries its
//! effects write with the event. Every `match` here is exhaustive, so a new
//! kind states what it reads and writes in this one place; the pieces
//! themselves live in the kind's resource folder.

use chrono::{DateTime, NaiveDateTime, Utc};

use crate::common::locale::Locale;
use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::campaign::Listens;
use crate::engine::catalog::CompanyRules;
use crate::engine::effect::Effect;
use crate::engine::kinds::CampaignKind;
use crate::resources::challenges::contribution::challenge_points;
use crate::resources::challenges::contribution::challenge_state_query;
use crate::resources::instant_wins::draws::instant_win_state_query;
use crate::resources::instant_wins::store::draw_state::StateQuery;
use crate::resources::points::earned::points_entry;
use crate::resources::points::ledger_entry::LedgerEntry;

/// The state `campaign` reads before an event at `at`, when its kind reads any.
/// The state `campaign` reads before an event at `wall_clock` on the
/// Company's clocks.
fn state_query(campaign: &Campaign, wall_clock: NaiveDateTime) -> Option<StateQuery> {
    match &campaign.kind {
        CampaignKind::InstantWin(instant_win) | CampaignKind::Game(instant_win) => {
            instant_win_state_query(campaign, instant_win, wall_clock)
        }
        CampaignKind::Challenge(_) => Some(challenge_state_query(campaign)),
        CampaignKind::Discount(_)
        | CampaignKind::Points(_)
        | CampaignKind::Reward(_)
        | CampaignKind::Coupon(_)
        | CampaignKind::Voucher(_)
        | CampaignKind::Message => None,
    }
}

/// The state to read for the campaigns listening to `event` that could run
/// at `at`. Campaigns that are inactive or out of their dates are left out,
/// so a till's cart costs no state read for them.
pub(crate) fn state_queries(
    rules: &CompanyRules,
    event: &Listens,
    at: DateTime<Utc>,
    locale: &Locale,
) -> Vec<StateQuery> {
    let now = Timestamp::from(at);
    let wall_clock = locale.wall_clock(at);
    rules
        .campaigns
        .iter()
        .filter(|campaign| {
            campaign.listens == *event
                && campaign.active
                && campaign
                    .available_from
                    .is_none_or(|from| now >= from.instant(locale))
                && campaign
                    .available_to
                    .is_none_or(|to| now <= to.instant(locale))
        })
        .filter_map(|campaign| state_query(campaign, wall_clock))
        .collect()
}

/// Where the pipeline's ledger entries for an event go and why.
pub(crate) struct EntryContext<'a> {
    /// Every campaign of the Company (an effect names its campaign by id).
    pub campaigns: &'a [Campaign],
    /// The Customer credited.
    pub customer_id: &'a str,
    /// The entries' reason.
    pub reason: &'a str,
    /// The cart they are for, when the event is one.
    pub cart_id: Option<&'a str>,
    /// When they are written.
    pub at: Timestamp,
    /// The Company's clocks, which expiry dates are counted on.
    pub locale: &'a Locale,
}

/// The ledger entries `effects` write with their event.
pub(crate) fn ledger_entries(effects: &[Effect], context: &EntryContext<'_>) -> Vec<LedgerEntry> {
    effects
        .iter()
        .flat_map(|effect| match effect {
            Effect::Points(points) => vec![points_entry(points, context)],
            Effect::Challenge(challenge) => challenge_points(challenge, context),
            Effect::Discount(_)
            | Effect::InstantWin(_)
            | Effect::Voucher(_)
            | Effect::VoucherRejected(_)
            | Effect::VoucherIssued(_) => Vec::new(),
        })
        .collect()
}
