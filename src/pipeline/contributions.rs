//! What each campaign kind contributes to the pipeline besides its
//! evaluation (which [`crate::engine::kinds`] dispatches): the state its
//! campaigns read before an event is evaluated, the ledger entries its
//! effects write with the event, the other parts of the event's write, and
//! what a refused write has read again. Every `match` here is exhaustive, so
//! a new kind states what it reads and writes in this one place, and the
//! pipeline's loop (`run.rs`) names no kind; the pieces themselves live in
//! the kind's resource folder.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDateTime, Utc};

use crate::common::language::Language;
use crate::common::locale::Locale;
use crate::common::retry::Tries;
use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::campaign::Listens;
use crate::engine::catalog::CompanyRules;
use crate::engine::effect::Effect;
use crate::engine::evaluate::Explanation;
use crate::engine::facts::Facts;
use crate::engine::kinds::CampaignKind;
use crate::error::ApiResult;
use crate::pipeline::occurrence::Earned;
use crate::resources::challenges::contribution::challenge_points;
use crate::resources::challenges::contribution::challenge_state_query;
use crate::resources::challenges::contribution::challenge_writes;
use crate::resources::instant_wins::draw_record::InstantWinState;
use crate::resources::instant_wins::draws::CONTENDED;
use crate::resources::instant_wins::draws::DrawnEvaluation;
use crate::resources::instant_wins::draws::MAX_DRAW_ATTEMPTS;
use crate::resources::instant_wins::draws::instant_win_state_query;
use crate::resources::instant_wins::store::draw_state::StateQuery;
use crate::resources::instant_wins::store::draw_write;
use crate::resources::limits::store::limit_take_documents;
use crate::resources::messages::model::MessageBody;
use crate::resources::messages::service::message_bodies;
use crate::resources::points::earned::points_entry;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::vouchers::earned::ISSUE_CONTENDED;
use crate::resources::vouchers::earned::voucher_issues;
use crate::resources::vouchers::issue_store::issue_documents;
use crate::services::Services;
use serde_json::Value;

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

/// The ledger entries an evaluation writes with its event.
pub(crate) struct EventLedger {
    /// What its effects earned: the points the event itself counts.
    earned: Vec<LedgerEntry>,
    /// What it gave besides (points prizes of its draws).
    given: Vec<LedgerEntry>,
}

impl EventLedger {
    /// The points its effects earned (negative on a cancellation).
    pub(crate) fn earned_points(&self) -> i64 {
        self.earned.iter().map(|entry| entry.points).sum()
    }

    /// Every entry, earned first.
    fn into_entries(self) -> Vec<LedgerEntry> {
        let mut entries = self.earned;
        entries.extend(self.given);
        entries
    }
}

/// The ledger entries `drawn` writes with its event.
pub(crate) fn ledger_entries(drawn: &DrawnEvaluation, context: &EntryContext<'_>) -> EventLedger {
    let earned = drawn
        .evaluation
        .effects
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
        .collect();
    EventLedger {
        earned,
        given: drawn.prize_points(context.customer_id, context.at),
    }
}

/// What an event's transaction writes for its campaigns besides the event
/// itself: each kind's part, made by its contribution.
pub(crate) struct EventParts {
    /// Points entries: campaigns', prizes' and completions'.
    ledger: Vec<LedgerEntry>,
    /// The Instant Win draws and participations.
    draws: Value,
    /// The Vouchers `voucher` campaigns issue; null when none.
    voucher_issues: Value,
    /// The Challenge records moved; null when none.
    challenges: Value,
    /// What points campaigns take from their limits; null when none.
    limit_takes: Value,
}

impl EventParts {
    /// The parts as the event's write takes them.
    pub(crate) fn earned(&self) -> Earned<'_> {
        Earned {
            ledger: &self.ledger,
            draw_write: &self.draws,
            voucher_issues: &self.voucher_issues,
            challenges: &self.challenges,
            limit_takes: &self.limit_takes,
        }
    }
}

/// The parts of the event of `customer_id` that `drawn` leaves to write with
/// `ledger` at `at`; none when there is nothing to write and the occurrence
/// is not `always` written.
pub(crate) fn event_parts(
    company: &str,
    customer_id: &str,
    source: &str,
    drawn: &DrawnEvaluation,
    ledger: EventLedger,
    (at, always): (Timestamp, bool),
) -> ApiResult<Option<EventParts>> {
    let ledger = ledger.into_entries();
    let effects = &drawn.evaluation.effects;
    let issues = voucher_issues(effects);
    let writes = always
        || !ledger.is_empty()
        || !drawn.draws.is_empty()
        || !issues.is_empty()
        || effects
            .iter()
            .any(|effect| matches!(effect, Effect::Challenge(_)));
    if !writes {
        return Ok(None);
    }
    Ok(Some(EventParts {
        ledger,
        draws: draw_write(
            company,
            customer_id,
            source,
            &drawn.draws,
            &drawn.participations,
            at,
        ),
        voucher_issues: if issues.is_empty() {
            Value::Null
        } else {
            Value::Array(issue_documents(company, &issues)?)
        },
        challenges: challenge_writes(company, effects),
        limit_takes: match drawn.evaluation.event_limit_takes.as_slice() {
            [] => Value::Null,
            takes => Value::Array(limit_take_documents(takes)),
        },
    }))
}

/// The tries of an event's evaluation and write: the first and
/// [`MAX_DRAW_ATTEMPTS`]` - 1` after collisions.
pub(crate) const fn event_tries() -> Tries {
    Tries::at_most(MAX_DRAW_ATTEMPTS)
}

/// What the pipeline reads again before evaluating an event whose write was
/// refused for something a concurrent event moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReadAgain {
    /// A concurrent draw, or another event that took the last of a points
    /// budget: the limits (the draw state is read with the evaluation).
    Limits,
    /// A code drawn twice, or a Customer's Vouchers of a capped Coupon
    /// counted meanwhile: the Vouchers issued.
    VoucherIssues,
}

/// What to read again after `written`, when it was refused for that and a
/// try is left.
pub(crate) fn read_again_after<T>(written: &ApiResult<T>, tries: &mut Tries) -> Option<ReadAgain> {
    if tries.again(written, CONTENDED) {
        Some(ReadAgain::Limits)
    } else if tries.again(written, ISSUE_CONTENDED) {
        Some(ReadAgain::VoucherIssues)
    } else {
        None
    }
}

/// What the campaigns made of an occurrence, as its answer shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct EvaluatedEvent {
    /// The effects of the campaigns that applied.
    pub effects: Vec<Effect>,
    /// Why each campaign applied or not.
    pub explanations: Vec<Explanation>,
    /// The messages of the campaigns that applied, for the Customer.
    pub messages: Vec<MessageBody>,
    /// The Customer's state of each Instant Win and game the draws were
    /// decided on (before this event's own participations).
    pub draw_states: HashMap<i64, InstantWinState>,
}

impl EvaluatedEvent {
    /// What `drawn` answers, copied for an answer written before the event
    /// (a keyed request's, written with what it answers).
    pub(crate) fn copied(
        drawn: &DrawnEvaluation,
        customer_language: Option<&str>,
        language: &Language,
    ) -> EvaluatedEvent {
        EvaluatedEvent {
            effects: drawn.evaluation.effects.clone(),
            explanations: drawn.evaluation.explanations.clone(),
            messages: message_bodies(
                drawn.evaluation.messages.clone(),
                customer_language,
                language,
            ),
            draw_states: drawn.states.clone(),
        }
    }

    /// What `drawn` answers to a Customer who reads `customer_language`, in
    /// the response's `language`.
    pub(crate) fn of(
        drawn: DrawnEvaluation,
        customer_language: Option<&str>,
        language: &Language,
    ) -> EvaluatedEvent {
        EvaluatedEvent {
            effects: drawn.evaluation.effects,
            explanations: drawn.evaluation.explanations,
            messages: message_bodies(drawn.evaluation.messages, customer_language, language),
            draw_states: drawn.states,
        }
    }
}

impl Services {
    /// Puts into `facts` what the kinds read before an event is evaluated,
    /// besides the state read with the draws: the headroom of the limits
    /// and the Vouchers the Customer holds of capped Coupons.
    pub(crate) async fn read_before_evaluation(
        &self,
        company: &str,
        rules: &CompanyRules,
        listens: &Listens,
        customer_id: &str,
        facts: &mut Facts,
    ) -> ApiResult<()> {
        self.read_limits(company, rules, listens, facts).await?;
        self.read_voucher_issues(company, rules, listens, customer_id, facts)
            .await
    }

    /// Reads into `facts` again what a refused write names.
    pub(crate) async fn read_again(
        &self,
        what: ReadAgain,
        company: &str,
        rules: &CompanyRules,
        listens: &Listens,
        customer_id: &str,
        facts: &mut Facts,
    ) -> ApiResult<()> {
        match what {
            ReadAgain::Limits => self.read_limits(company, rules, listens, facts).await,
            ReadAgain::VoucherIssues => {
                self.read_voucher_issues(company, rules, listens, customer_id, facts)
                    .await
            }
        }
    }

    /// What follows the write of an event `drawn` evaluated: its draws
    /// counted, and the prize deliveries woken when it won one.
    pub(crate) fn after_written(&self, company: &str, drawn: &DrawnEvaluation) {
        for draw in &drawn.draws {
            self.metrics
                .drawn(company, draw.record.rule_id, draw.record.prize.is_some());
        }
        if drawn.delivers_any() {
            self.prizes_won();
        }
    }
}
