//! Campaigns through the API: compiled from their stored specifications into
//! the catalog, created, changed and deleted for the resources that own
//! each kind.

use crate::engine::check::Known;
use crate::engine::check::check_campaign;
use serde_json::{Value, json};

use crate::common::amount::SentAmount;
use crate::engine::campaign::Campaign;
use crate::engine::kinds::CampaignKind;
use crate::engine::script::RuleError;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::answer::answer_now;
use crate::resources::api_campaigns::API_IDS_START;
use crate::resources::api_campaigns::API_RECORD;
use crate::resources::api_campaigns::compiled_kind;
use crate::resources::api_campaigns::store::CampaignWrite;
use crate::resources::api_campaigns::store::StoredCampaign;
use crate::resources::coupons::rules::CouponCodes;
use crate::resources::limits::OfferLimitRules;
use crate::resources::limits::limit_amount_fields;
use crate::resources::vouchers::codes::code_key;
use crate::services::Services;

/// What a kind's resource calls its campaigns in messages
/// (`points campaign`, `Coupon`), by kind.
fn label(kind: &str) -> &str {
    match kind {
        "coupon" => "Coupon",
        "discount" => "discount campaign",
        "points" => "points campaign",
        "promotion" => "Promotion",
        other => other,
    }
}

/// The problems of a specification, as one `invalid_request`.
fn invalid(kind: &str, errors: Vec<RuleError>) -> ApiError {
    // The YAML the API body became is an internal detail: report the
    // messages, which name the fields.
    let described: Vec<String> = errors.into_iter().map(|e| e.message).collect();
    ApiError::invalid(format!("invalid {}: {}", label(kind), described.join("; ")))
}

/// `stored` with the fields of `changes` in place of its own; in the
/// objects named by `sections` (a kind's section, as `coupon`), field by
/// field.
pub fn merge_spec(stored: &Value, changes: &Value, sections: &[&str]) -> Value {
    let mut merged = stored.clone();
    if let (Some(target), Some(changes)) = (merged.as_object_mut(), changes.as_object()) {
        for (key, value) in changes {
            match (target.get_mut(key), value) {
                (Some(Value::Object(section)), Value::Object(fields))
                    if sections.contains(&key.as_str()) =>
                {
                    for (field, value) in fields {
                        section.insert(field.clone(), value.clone());
                    }
                }
                _ => {
                    target.insert(key.clone(), value.clone());
                }
            }
        }
    }
    merged
}

/// A change of a campaign created through the API, as PATCH sends it.
pub(crate) struct CampaignPatch<'a> {
    /// Its kind (`coupon`, `discount`, ...).
    pub kind: &'a str,
    /// Its id.
    pub id: i64,
    /// The fields sent, in a campaign file's names.
    pub changes: Value,
    /// The objects changed field by field rather than replaced whole.
    pub sections: &'a [&'a str],
    /// The refusal when there is no such campaign.
    pub not_found: ApiError,
    /// The money it sends, checked once the campaign is found.
    pub offer: Option<&'a (dyn OfferAmounts + Sync)>,
}

/// The money an offer's payload sends (a discount campaign's or a
/// Coupon's), checked against the Company's currency.
pub(crate) trait OfferAmounts {
    /// Its discount's money fields (`discount.amount`, `discount.max_amount`,
    /// ...), each when sent.
    fn discount_amounts(&self) -> Vec<(&'static str, Option<&SentAmount>)>;
    /// Its `limits`, when sent.
    fn limit_rules(&self) -> Option<&[OfferLimitRules]>;
}

impl Services {
    /// 400 `invalid_request` unless each of `amounts` (field, amount) that
    /// is sent is money in the Company's currency: at least 0, with no more
    /// decimals than it has (the compiler then wants discounts over 0).
    pub(crate) async fn check_money_fields(
        &self,
        company: &str,
        amounts: &[(&str, Option<&SentAmount>)],
    ) -> ApiResult<()> {
        if amounts.iter().all(|(_, amount)| amount.is_none()) {
            return Ok(());
        }
        let minor_units = self.company_settings(company).await?.locale().minor_units;
        for (field, amount) in amounts {
            if let Some(amount) = amount {
                amount.money(&format!("`{field}`"), minor_units)?;
            }
        }
        Ok(())
    }

    /// [`Services::check_money_fields`] on what an offer (a discount
    /// campaign or a Coupon) sends as money.
    pub(crate) async fn check_offer_amounts(
        &self,
        company: &str,
        spec: &(impl OfferAmounts + ?Sized),
    ) -> ApiResult<()> {
        let limits = limit_amount_fields(spec.limit_rules());
        let mut fields = spec.discount_amounts();
        fields.extend(
            limits
                .iter()
                .map(|(field, amount)| (field.as_str(), Some(*amount))),
        );
        self.check_money_fields(company, &fields).await
    }

    /// Compiles `spec` as campaign `id` of `kind`.
    pub(crate) fn compile_api_campaign(
        &self,
        kind: &str,
        id: i64,
        spec: &Value,
    ) -> ApiResult<Campaign> {
        let mut document = spec.clone();
        if let Some(object) = document.as_object_mut() {
            object.remove(API_RECORD);
            object.insert("id".into(), json!(id));
            object.insert("kind".into(), json!(compiled_kind(kind)));
        }
        let text = serde_yaml::to_string(&document).map_err(ApiError::internal)?;
        let path = std::path::PathBuf::from(format!("api/{kind}/{id}"));
        Campaign::parse(self.catalog.engine(), &path, &text).map_err(|e| invalid(kind, e))
    }

    /// Refuses `campaign` when its conditions name facts, tiers or
    /// audiences the Company does not have, or compare mismatched values
    /// (`engine::check`).
    fn check_api_campaign(&self, company: &str, kind: &str, campaign: &Campaign) -> ApiResult<()> {
        let known = Known::of(&self.catalog.company(company).segments);
        let problems = check_campaign(campaign, &known, self.catalog.engine().functions());
        if problems.is_empty() {
            Ok(())
        } else {
            Err(invalid(kind, problems))
        }
    }

    /// The static code of a Coupon `campaign` (as written, and its key),
    /// refused with `voucher_code_taken` when another Coupon in force (a
    /// file's, or another created through the API; `own` is the campaign
    /// changed) has it however written. The store checks the Vouchers and
    /// the API Coupons again as it writes, so two requests at once never
    /// both take one code.
    fn static_code_of<'c>(
        &self,
        company: &str,
        campaign: &'c Campaign,
        own: Option<i64>,
    ) -> ApiResult<Option<(&'c str, String)>> {
        let static_key = |candidate: &'c Campaign| match &candidate.kind {
            CampaignKind::Coupon(coupon) => match &coupon.codes {
                CouponCodes::Static(code) => code_key(code).map(|key| (code.as_str(), key)),
                CouponCodes::Generated(_) => None,
            },
            _ => None,
        };
        let Some((code, key)) = static_key(campaign) else {
            return Ok(None);
        };
        let rules = self.catalog.company(company);
        let holder = rules.campaigns.iter().find(|other| {
            Some(other.id) != own
                && match &other.kind {
                    CampaignKind::Coupon(coupon) => matches!(
                        &coupon.codes,
                        CouponCodes::Static(theirs) if code_key(theirs).as_deref() == Some(key.as_str())
                    ),
                    _ => false,
                }
        });
        if let Some(holder) = holder {
            return Err(ApiError::new(
                ErrorCode::VoucherCodeTaken,
                format!(
                    "the code {code} is Coupon {}'s static code (codes are compared ignoring case, spaces, dashes and confusable characters)",
                    holder.id
                ),
            ));
        }
        Ok(Some((code, key)))
    }

    /// Loads the stored API campaigns into the catalog when they changed
    /// since the last time (at start, after each write, and periodically so
    /// several processes sharing a store agree).
    pub async fn refresh_api_campaigns(&self) -> ApiResult<()> {
        let revisions = self.store.api_campaign_revisions().await?;
        if self
            .api_campaign_revisions
            .lock()
            .is_ok_and(|applied| *applied == revisions)
        {
            return Ok(());
        }
        let stored = self.store.all_api_campaigns().await?;
        let mut by_company: std::collections::BTreeMap<String, Vec<Campaign>> =
            std::collections::BTreeMap::new();
        for campaign in stored.iter().filter(|c| c.deleted_at.is_none()) {
            match self.compile_api_campaign(&campaign.kind, campaign.id, &campaign.spec) {
                Ok(compiled) => by_company
                    .entry(campaign.company.clone())
                    .or_default()
                    .push(compiled),
                Err(error) => {
                    tracing::error!(company = %campaign.company, id = campaign.id,
                        kind = %campaign.kind, %error,
                        "stored campaign does not compile; it is not applied")
                }
            }
        }
        for company in self.catalog.api_companies() {
            by_company.entry(company).or_default();
        }
        for (company, campaigns) in by_company {
            self.catalog.set_api_campaigns(&company, campaigns);
        }
        if let Ok(mut applied) = self.api_campaign_revisions.lock() {
            *applied = stored
                .iter()
                .map(|c| (c.company.clone(), c.id, c.revision))
                .collect();
        }
        Ok(())
    }

    /// Creates a campaign of `kind` from `spec`; it applies from the next
    /// event on. Answers what `view` (the kind's resource) makes of it,
    /// written with it as the request's answer.
    pub(crate) async fn create_api_campaign<V: 'static>(
        &self,
        company: &str,
        (kind, spec): (&str, &Value),
        view: impl Fn(&Campaign) -> ApiResult<V>,
    ) -> ApiResult<V> {
        // Check before taking an id, so a bad request uses up nothing.
        let draft = self.compile_api_campaign(kind, API_IDS_START, spec)?;
        self.check_api_campaign(company, kind, &draft)?;
        self.static_code_of(company, &draft, None)?;
        view(&draft)?;
        let id = self.store.next_api_campaign_id(company).await?;
        let campaign = self.compile_api_campaign(kind, id, spec)?;
        let static_code = self.static_code_of(company, &campaign, None)?;
        let answer = view(&campaign)?;
        answer_now(&answer).await;
        self.store
            .save_api_campaign(CampaignWrite {
                company,
                id,
                kind,
                spec,
                expected: 0,
                now: self.now(),
                delete: false,
                static_code,
            })
            .await?;
        self.refresh_api_campaigns().await?;
        tracing::info!(company, id, kind, "campaign created");
        Ok(answer)
    }

    /// The stored, not deleted campaign `id` of `kind`: `forbidden_request`
    /// when it is a campaign file's (changed in its file), `not_found` when
    /// there is none.
    pub(crate) async fn stored_api_campaign(
        &self,
        company: &str,
        kind: &str,
        id: i64,
        not_found: impl FnOnce() -> ApiError,
    ) -> ApiResult<StoredCampaign> {
        match self.store.api_campaign(company, id).await? {
            Some(stored) if stored.kind == kind && stored.deleted_at.is_none() => Ok(stored),
            Some(_) => Err(not_found()),
            None => {
                let in_files = id < API_IDS_START
                    && self
                        .catalog
                        .company(company)
                        .campaigns
                        .iter()
                        .any(|c| c.id == id && c.kind.name() == kind);
                Err(if in_files {
                    ApiError::new(
                        ErrorCode::ForbiddenRequest,
                        format!(
                            "{} {id} comes from a campaign file; change the file",
                            label(kind)
                        ),
                    )
                } else {
                    not_found()
                })
            }
        }
    }

    /// Changes the campaign `id` of `kind` created through the API by
    /// `changes` (its fields in a campaign file's names): merged into the
    /// stored spec (field by field in `sections`), settled by the kind
    /// (`settle` drops what a field sent replaces), then checked and written
    /// like a new one ([`Services::update_api_campaign`]).
    pub(crate) async fn patch_api_campaign<V: 'static>(
        &self,
        company: &str,
        patch: CampaignPatch<'_>,
        settle: impl FnOnce(&mut Value),
        view: impl Fn(&Campaign) -> ApiResult<V>,
    ) -> ApiResult<V> {
        let stored = self
            .stored_api_campaign(company, patch.kind, patch.id, || patch.not_found)
            .await?;
        if let Some(offer) = patch.offer {
            self.check_offer_amounts(company, offer).await?;
        }
        let mut merged = merge_spec(&stored.spec, &patch.changes, patch.sections);
        settle(&mut merged);
        self.update_api_campaign(company, (&stored, &merged), view)
            .await
    }

    /// Changes the campaign `id` of `kind` to `spec` (the stored one with
    /// the changes merged in), checked like a new one. Answers what `view`
    /// makes of it, written with it as the request's answer.
    pub(crate) async fn update_api_campaign<V: 'static>(
        &self,
        company: &str,
        (stored, spec): (&StoredCampaign, &Value),
        view: impl Fn(&Campaign) -> ApiResult<V>,
    ) -> ApiResult<V> {
        let campaign = self.compile_api_campaign(&stored.kind, stored.id, spec)?;
        self.check_api_campaign(company, &stored.kind, &campaign)?;
        let static_code = self.static_code_of(company, &campaign, Some(stored.id))?;
        let answer = view(&campaign)?;
        answer_now(&answer).await;
        self.store
            .save_api_campaign(CampaignWrite {
                company,
                id: stored.id,
                kind: &stored.kind,
                spec,
                expected: stored.revision,
                now: self.now(),
                delete: false,
                static_code,
            })
            .await?;
        self.refresh_api_campaigns().await?;
        tracing::info!(company, id = stored.id, kind = %stored.kind, "campaign updated");
        Ok(answer)
    }

    /// Deletes the campaign: it applies no more, and its id is never given
    /// again.
    pub(crate) async fn delete_api_campaign(
        &self,
        company: &str,
        stored: &StoredCampaign,
    ) -> ApiResult<()> {
        self.store
            .save_api_campaign(CampaignWrite {
                company,
                id: stored.id,
                kind: &stored.kind,
                spec: &stored.spec,
                expected: stored.revision,
                now: self.now(),
                delete: true,
                static_code: None,
            })
            .await?;
        self.refresh_api_campaigns().await?;
        tracing::info!(company, id = stored.id, kind = %stored.kind, "campaign deleted");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_replace_fields_and_merge_into_sections() {
        let stored = json!({"name": "A", "coupon": {"static_code": "X", "uses_per_voucher": 2}, "points": {"fixed": 1}});
        let changes =
            json!({"name": "B", "coupon": {"uses_per_voucher": 3}, "points": {"per_amount": 1}});
        assert_eq!(
            merge_spec(&stored, &changes, &["coupon"]),
            json!({"name": "B", "coupon": {"static_code": "X", "uses_per_voucher": 3}, "points": {"per_amount": 1}})
        );
    }
}
