//! Challenges: the list, one Challenge, a Customer's standing in each with
//! their completions, enrolment, and the progress a cancelled cart gives
//! back.

use chrono::NaiveDate;

use crate::common::amount::Amount;
use crate::common::language::Language;
use crate::common::retry::again_when_changed;
use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::campaign::Listens;
use crate::engine::kinds::CampaignKind;
use crate::engine::text::Text;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::answer::answer_now;
use crate::resources::challenges::goal::Measure;
use crate::resources::challenges::measure::period_end;
use crate::resources::challenges::model::ChallengeGrantBody;
use crate::resources::challenges::model::ChallengeView;
use crate::resources::challenges::model::CustomerChallenge;
use crate::resources::challenges::progress::ChallengeRecord;
use crate::resources::challenges::progress::Grant;
use crate::resources::challenges::progress::give_back;
use crate::resources::challenges::progress::standing;
use crate::resources::challenges::rules::Challenge;
use crate::resources::challenges::rules::ChallengeReward;
use crate::resources::challenges::rules::Enrollment;
use crate::resources::challenges::rules::Repeat;
use crate::resources::challenges::store::GivenBack;
use crate::resources::customers::service::CustomerRef;
use crate::services::Services;

/// The Challenges of `campaigns`, by id.
fn challenges_of(campaigns: &[Campaign]) -> Vec<(&Campaign, &Challenge)> {
    campaigns
        .iter()
        .filter_map(|campaign| match &campaign.kind {
            CampaignKind::Challenge(challenge) => Some((campaign, challenge.as_ref())),
            _ => None,
        })
        .collect()
}

/// The Challenge `id` of `campaigns`.
fn find_challenge(campaigns: &[Campaign], id: i64) -> ApiResult<(&Campaign, &Challenge)> {
    challenges_of(campaigns)
        .into_iter()
        .find(|(campaign, _)| campaign.id == id)
        .ok_or_else(|| ApiError::new(ErrorCode::ChallengeNotFound, format!("no Challenge `{id}`")))
}

/// What completing `challenge` gives, as the API shows a grant (without
/// the transaction or Voucher code a completion makes).
fn reward_body(challenge: &Challenge) -> ChallengeGrantBody {
    let mut body: ChallengeGrantBody = match challenge.reward {
        ChallengeReward::Points(points) => Grant::Points { points },
        ChallengeReward::Reward(reward_id) => Grant::Reward {
            reward_id,
            transaction_id: String::new(),
        },
        ChallengeReward::Coupon(coupon_id) => Grant::Voucher {
            coupon_id,
            code: String::new(),
        },
        ChallengeReward::Game(game_id) => Grant::Game { game_id },
    }
    .into();
    body.transaction_id = None;
    body.voucher_code = None;
    body
}

/// What a Challenge listens to, in words.
fn counts(listens: &Listens) -> String {
    match listens {
        Listens::Cart => "cart".into(),
        Listens::CustomEvent(kind) => format!("custom_event:{kind}"),
        Listens::Trigger(kind) => format!("trigger:{kind}"),
        Listens::Customer(moment) => moment.name().into(),
        Listens::Prize | Listens::Play(_) => String::new(),
    }
}

/// `Repeat` by its file name.
fn repeat_name(repeat: Repeat) -> &'static str {
    match repeat {
        Repeat::Never => "never",
        Repeat::EachPeriod => "each_period",
        Repeat::OnceCompleted => "once_completed",
    }
}

/// Where a Customer stands in Challenges on one day.
struct Today {
    day: NaiveDate,
    now: Timestamp,
    language: Language,
}

impl Today {
    fn render(&self, text: &Text) -> String {
        text.resolve(&self.language.chosen, &self.language.default)
    }

    /// The Customer's standing in `challenge` whose record is `record`.
    fn customer_challenge(
        &self,
        campaign: &Campaign,
        challenge: &Challenge,
        customer_id: &str,
        record: Option<&ChallengeRecord>,
        with_history: bool,
    ) -> CustomerChallenge {
        let standing = standing(challenge, record, self.day);
        let enrolled_on = record.and_then(|r| r.enrolled_on);
        let locale = &self.language.locale;
        let period_ends = period_end(challenge, enrolled_on, self.day)
            .map(|day| Timestamp::from(locale.instant(day.and_time(chrono::NaiveTime::MIN))));
        let campaign_ends = campaign.available_to.map(|t| t.instant(locale));
        let ends = match (period_ends, campaign_ends) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let current: Vec<String> = record
            .filter(|r| r.period == standing.period)
            .map(|r| r.counted.iter().map(|c| c.source.clone()).collect())
            .unwrap_or_default();
        CustomerChallenge {
            challenge_id: campaign.id,
            customer_id: customer_id.to_string(),
            enrolled: challenge.enrollment == Enrollment::Automatic
                || record.is_some_and(|r| r.enrolled_at.is_some()),
            enrolled_at: record.and_then(|r| r.enrolled_at),
            period: standing.period,
            progress: Amount(standing.progress),
            target: Amount(standing.target),
            completed: standing.completed,
            completions: standing.completions,
            seconds_left: ends.map(|end| {
                (end.as_datetime() - self.now.as_datetime())
                    .num_seconds()
                    .max(0)
            }),
            counted: current,
            history: with_history.then(|| {
                record
                    .map(|r| r.completions.iter().cloned().map(Into::into).collect())
                    .unwrap_or_default()
            }),
        }
    }

    fn view(
        &self,
        campaign: &Campaign,
        challenge: &Challenge,
        customer: Option<CustomerChallenge>,
    ) -> ChallengeView {
        let locale = &self.language.locale;
        ChallengeView {
            id: campaign.id,
            name: self.render(&campaign.name),
            description: campaign.description.as_ref().map(|d| self.render(d)),
            counts: counts(&campaign.listens),
            goal: match challenge.goal.measure {
                Measure::Count(_) => "count",
                Measure::Sum { .. } => "sum",
                Measure::Streak { .. } => "streak",
            }
            .into(),
            target: challenge.target(),
            period: challenge.period.name().into(),
            repeat: repeat_name(challenge.repeat).into(),
            enrollment: match challenge.enrollment {
                Enrollment::Automatic => "automatic",
                Enrollment::Required => "required",
            }
            .into(),
            reward: reward_body(challenge),
            available_from: campaign.available_from.map(|t| t.instant(locale)),
            available_to: campaign.available_to.map(|t| t.instant(locale)),
            customer,
        }
    }
}

impl Services {
    async fn today(&self, language: &Language) -> Today {
        let now = self.now();
        Today {
            day: language.locale.wall_clock(now.as_datetime()).date(),
            now,
            language: language.clone(),
        }
    }

    /// GET /challenges and GET /challenges/{id}: `only` or every Challenge;
    /// with a Customer, where they stand in each.
    pub async fn challenges(
        &self,
        company: &str,
        only: Option<i64>,
        customer: Option<CustomerRef<'_>>,
        language: &Language,
    ) -> ApiResult<Vec<ChallengeView>> {
        let rules = self.catalog.company(company);
        let challenges = match only {
            Some(id) => vec![find_challenge(&rules.campaigns, id)?],
            None => challenges_of(&rules.campaigns),
        };
        let records = match customer {
            Some(reference) => {
                let customer = self.active_customer_by(company, reference).await?;
                let records = self.store.challenge_records(company, &customer.id).await?;
                Some((customer.id, records))
            }
            None => None,
        };
        let today = self.today(language).await;
        Ok(challenges
            .into_iter()
            .map(|(campaign, challenge)| {
                let customer = records.as_ref().map(|(id, records)| {
                    let record = records.iter().find(|r| r.rule_id == campaign.id);
                    today.customer_challenge(campaign, challenge, id, record, false)
                });
                today.view(campaign, challenge, customer)
            })
            .collect())
    }

    /// GET /customers/{value}/challenges and .../{id}: the Customer's
    /// standing in `only` (with its completions) or in every Challenge.
    pub async fn customer_challenges(
        &self,
        company: &str,
        reference: CustomerRef<'_>,
        only: Option<i64>,
        language: &Language,
    ) -> ApiResult<Vec<CustomerChallenge>> {
        let rules = self.catalog.company(company);
        let challenges = match only {
            Some(id) => vec![find_challenge(&rules.campaigns, id)?],
            None => challenges_of(&rules.campaigns),
        };
        let customer = self.active_customer_by(company, reference).await?;
        let records = self.store.challenge_records(company, &customer.id).await?;
        let today = self.today(language).await;
        Ok(challenges
            .into_iter()
            .map(|(campaign, challenge)| {
                let record = records.iter().find(|r| r.rule_id == campaign.id);
                today.customer_challenge(campaign, challenge, &customer.id, record, only.is_some())
            })
            .collect())
    }

    /// POST /challenges/{id}/enroll: the Customer takes part from now; a
    /// second enrolment changes nothing.
    pub async fn enroll(
        &self,
        company: &str,
        id: i64,
        reference: CustomerRef<'_>,
        language: &Language,
    ) -> ApiResult<CustomerChallenge> {
        let rules = self.catalog.company(company);
        let (campaign, challenge) = find_challenge(&rules.campaigns, id)?;
        let customer = self.active_customer_by(company, reference).await?;
        let today = self.today(language).await;
        let locale = &language.locale;
        let open = campaign.active
            && campaign
                .available_to
                .is_none_or(|to| today.now <= to.instant(locale));
        if !open {
            return Err(ApiError::new(
                ErrorCode::ChallengeNotAvailable,
                format!("Challenge {id} is inactive or has ended"),
            ));
        }
        let answer = again_when_changed(|| {
            self.enroll_once(company, (campaign, challenge), &customer.id, &today)
        })
        .await?;
        tracing::info!(company, challenge = id, customer = %customer.id, "enrolled in a Challenge");
        Ok(answer)
    }

    /// One try of [`Services::enroll`] on the Customer's record as read
    /// now: the answer is made from the record as it will be stored, and
    /// the write refused with `concurrent_modification` when an event
    /// changed the record meanwhile.
    async fn enroll_once(
        &self,
        company: &str,
        (campaign, challenge): (&Campaign, &Challenge),
        customer_id: &str,
        today: &Today,
    ) -> ApiResult<CustomerChallenge> {
        let held = self
            .store
            .challenge_record(company, customer_id, campaign.id)
            .await?;
        let seen = held.as_ref().map_or(0, |record| record.version);
        let (enrolled, changed) = match held {
            None => (
                ChallengeRecord {
                    rule_id: campaign.id,
                    customer_id: customer_id.to_string(),
                    version: 1,
                    enrolled_at: Some(today.now),
                    enrolled_on: Some(today.day),
                    ..ChallengeRecord::default()
                },
                true,
            ),
            Some(record) if record.enrolled_at.is_none() => (
                ChallengeRecord {
                    version: record.version + 1,
                    enrolled_at: Some(today.now),
                    enrolled_on: Some(today.day),
                    ..record
                },
                true,
            ),
            Some(record) => (record, false),
        };
        let answer =
            today.customer_challenge(campaign, challenge, customer_id, Some(&enrolled), false);
        answer_now(&answer).await;
        self.store
            .enroll_in_challenge(company, &enrolled, seen, changed)
            .await?;
        Ok(answer)
    }

    /// What cancelling the cart `cart_code` of `customer_id` changes in
    /// their Challenge records at `at`: the cart taken out of the progress,
    /// and each completion it made revoked where the Challenge says so.
    pub(crate) async fn challenges_given_back(
        &self,
        company: &str,
        customer_id: &str,
        cart_code: &str,
        at: Timestamp,
    ) -> ApiResult<Vec<GivenBack>> {
        let rules = self.catalog.company(company);
        let challenges = challenges_of(&rules.campaigns);
        if challenges.is_empty() {
            return Ok(Vec::new());
        }
        let records = self.store.challenge_records(company, customer_id).await?;
        let locale = self.company_locale(company).await?;
        let today = locale.wall_clock(at.as_datetime()).date();
        let source = format!("cart:{cart_code}");
        Ok(records
            .iter()
            .filter_map(|record| {
                let (_, challenge) = challenges
                    .iter()
                    .find(|(campaign, _)| campaign.id == record.rule_id)?;
                let (record, revoked) = give_back(challenge, record, &source, today, at)?;
                Some(GivenBack { record, revoked })
            })
            .collect())
    }
}
