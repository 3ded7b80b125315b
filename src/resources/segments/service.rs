//! Calculated attributes, tiers and audiences of one Customer, evaluated with
//! the Company's rules from its `segments.yaml`.

use chrono::Utc;
use serde_json::{Value, json};

use crate::common::language::Language;
use crate::common::time::Timestamp;
use crate::engine::catalog::CompanyRules;
use crate::engine::facts::Facts;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::pipeline::store::FactsOf;
use crate::pipeline::store::FactsRead;
use crate::resources::customers::model::Customer;
use crate::resources::customers::service::CustomerRef;
use crate::resources::customers::service::Subject;
use crate::resources::instant_wins::store::draw_state::DrawState;
use crate::resources::instant_wins::store::draw_state::StateQuery;
use crate::resources::segments::rules::Segment;
use crate::resources::segments::rules::Segments;
use crate::services::Services;

/// The attributes every Customer has, plus the Company's own.
#[derive(Debug, Clone, PartialEq)]
pub struct CalculatedAttributes {
    /// The Customer.
    pub customer_id: String,
    /// Sum of the Customer's purchases.
    pub lifetime_spend: f64,
    /// Number of purchases.
    pub cart_count: i64,
    /// Date of the latest purchase (YYYY-MM-DD).
    pub last_purchase_date: Option<String>,
    /// Current points balance.
    pub points_balance: i64,
    /// The Company's calculated attributes, by id.
    pub custom: serde_json::Map<String, Value>,
}

/// A Customer, what the Company's expressions know about it, and the state
/// of the draws an event meets, read together
/// ([`Services::subject_facts`]).
#[derive(Debug, Clone)]
pub(crate) struct SubjectFacts {
    /// The Customer.
    pub customer: Customer,
    /// What conditions know about it.
    pub facts: Facts,
    /// The state of the draws asked for.
    pub state: DrawState,
}

/// A tier or audience and the Customer's standing in it.
#[derive(Debug, Clone, PartialEq)]
pub struct SegmentStanding {
    /// Identifier.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Description.
    pub description: Option<String>,
    /// Whether the Customer belongs (a tier is reached).
    pub member: bool,
    /// Why the condition could not be evaluated (file, line, message), if so.
    pub error: Option<String>,
}

/// The two kinds of segment a Customer stands in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentKind {
    /// Loyalty tiers.
    Tiers,
    /// Audiences.
    Audiences,
}

impl Services {
    /// What the Company's expressions know about `customer` at `now`: the
    /// Customer, its associates, its purchases and its points balance.
    pub(crate) async fn customer_facts(
        &self,
        company: &str,
        customer: &Customer,
        now: chrono::DateTime<Utc>,
    ) -> ApiResult<Facts> {
        let read = self
            .subject_facts(company, Subject::Read(customer), now, &[], false)
            .await?;
        Ok(read.facts)
    }

    /// The Customer `subject` names (read now, unless it was), what the
    /// Company's expressions know about it at `now`, the state of the Instant
    /// Wins of `queries` and, with `printed_once`, the `once` messages it was
    /// shown: all in one round trip.
    pub(crate) async fn subject_facts(
        &self,
        company: &str,
        subject: Subject<'_>,
        now: chrono::DateTime<Utc>,
        queries: &[StateQuery],
        printed_once: bool,
    ) -> ApiResult<SubjectFacts> {
        let history_since = self
            .catalog
            .company(company)
            .history_days
            .map(|days| Timestamp::from(now - chrono::Duration::days(days)));
        let looked_up;
        let of = match subject {
            Subject::Read(customer) => FactsOf::Id(&customer.id),
            Subject::Named(reference) => {
                looked_up = reference.lookup()?;
                FactsOf::Lookup(looked_up.0, &looked_up.1)
            }
        };
        let read = self
            .store
            .read_facts(
                company,
                FactsRead {
                    of,
                    history_since,
                    queries,
                    printed_once,
                },
            )
            .await?;
        let customer = match subject {
            Subject::Read(customer) => customer.clone(),
            Subject::Named(reference) => reference.accept(read.found)?.customer,
        };
        let locale = self.company_locale(company).await?;
        let stored = read.facts;
        let associates = stored
            .associations
            .iter()
            .map(|a| json!({"id": a.other(&customer.id), "type": a.kind}))
            .collect();
        let facts = Facts {
            customer: serde_json::to_value(&customer).map_err(ApiError::internal)?,
            history: stored.history,
            totals: stored.totals,
            points_balance: stored.points_balance,
            associates,
            now,
            locale,
            printed_messages: read.printed_once.into_iter().collect(),
            ..Facts::default()
        };
        Ok(SubjectFacts {
            customer,
            facts,
            state: read.state,
        })
    }

    /// Fills in the calculated attributes, the tier and the audiences of `facts`.
    pub(crate) fn segment_facts(&self, rules: &CompanyRules, facts: &mut Facts) {
        let engine = self.catalog.engine();
        rules.segments.calculate(engine, facts);
        facts.tier = rules
            .segments
            .tiers
            .iter()
            .rev()
            .find(|tier| Segments::judge(engine, tier, facts).member)
            .map_or(serde_json::Value::Null, |tier| {
                serde_json::Value::String(tier.id.clone())
            });
        facts.audiences = rules
            .segments
            .audiences
            .iter()
            .filter(|audience| Segments::judge(engine, audience, facts).member)
            .map(|audience| audience.id.clone())
            .collect();
    }

    /// Facts with the Company's calculated attributes filled in.
    async fn evaluated_facts(
        &self,
        company: &str,
        reference: CustomerRef<'_>,
    ) -> ApiResult<(Customer, Facts, std::sync::Arc<CompanyRules>)> {
        let SubjectFacts {
            customer,
            mut facts,
            ..
        } = self
            .subject_facts(
                company,
                Subject::Named(reference),
                self.now().as_datetime(),
                &[],
                false,
            )
            .await?;
        let rules = self.catalog.company(company);
        rules.segments.calculate(self.catalog.engine(), &mut facts);
        Ok((customer, facts, rules))
    }

    /// GET /customers/{id}/attributes.
    pub async fn customer_attributes(
        &self,
        company: &str,
        reference: CustomerRef<'_>,
    ) -> ApiResult<CalculatedAttributes> {
        let (customer, facts, _) = self.evaluated_facts(company, reference).await?;
        Ok(CalculatedAttributes {
            customer_id: customer.id,
            lifetime_spend: facts.totals.lifetime_spend,
            cart_count: facts.totals.cart_count,
            last_purchase_date: facts
                .totals
                .last_purchase
                .map(|at| facts.locale.wall_clock(at).format("%Y-%m-%d").to_string()),
            points_balance: facts.points_balance,
            custom: facts.calculated,
        })
    }

    /// Every segment of `kind` (tiers lowest first, audiences in file
    /// order), with whether the Customer belongs to it.
    pub async fn customer_segments(
        &self,
        company: &str,
        reference: CustomerRef<'_>,
        kind: SegmentKind,
        language: &Language,
    ) -> ApiResult<(String, Vec<SegmentStanding>)> {
        let (customer, facts, rules) = self.evaluated_facts(company, reference).await?;
        let segments = match kind {
            SegmentKind::Tiers => &rules.segments.tiers,
            SegmentKind::Audiences => &rules.segments.audiences,
        };
        Ok((customer.id, self.standings(segments, &facts, language)))
    }

    /// Whether the Customer belongs to `audience`.
    pub async fn audience_validation(
        &self,
        company: &str,
        reference: CustomerRef<'_>,
        audience: &str,
        language: &Language,
    ) -> ApiResult<(String, SegmentStanding)> {
        let (customer, facts, rules) = self.evaluated_facts(company, reference).await?;
        let segment = rules
            .segments
            .audiences
            .iter()
            .find(|a| a.id == audience)
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::AudienceNotFound,
                    format!("no audience `{audience}` is defined"),
                )
            })?;
        let standing = self
            .standings(std::slice::from_ref(segment), &facts, language)
            .remove(0);
        Ok((customer.id, standing))
    }

    fn standings(
        &self,
        segments: &[Segment],
        facts: &Facts,
        language: &Language,
    ) -> Vec<SegmentStanding> {
        segments
            .iter()
            .map(|segment| {
                let verdict = Segments::judge(self.catalog.engine(), segment, facts);
                SegmentStanding {
                    id: segment.id.clone(),
                    name: segment.name.resolve(&language.chosen, &language.default),
                    description: segment
                        .description
                        .as_ref()
                        .map(|d| d.resolve(&language.chosen, &language.default)),
                    member: verdict.member,
                    error: verdict.error,
                }
            })
            .collect()
    }
}
