//! The one flow of the resources whose campaigns are written through the
//! API as well as in files (Coupons, discount campaigns, points
//! campaigns): list and read them (files' and API's alike), create one,
//! change one by PATCH. Each resource supplies what differs as a
//! [`CampaignResource`]; Promotions, stored in a legacy shape of their own,
//! use the steps of [`super::service`] directly.

use serde::Serialize;
use serde_json::Value;

use crate::common::language::Language;
use crate::engine::campaign::Campaign;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::api_campaigns::service::CampaignPatch;
use crate::resources::api_campaigns::service::OfferAmounts;
use crate::services::Services;

/// The field every new campaign needs.
const NAME: &str = "name";

/// What a resource whose campaigns the API writes supplies to the flow.
pub(crate) trait CampaignResource {
    /// The kind its campaigns are stored as (`coupon`).
    const KIND: &'static str;
    /// What messages call one (`Coupon`).
    const NOUN: &'static str;
    /// The code of the refusal when an id names none of its campaigns.
    const NOT_FOUND: ErrorCode;
    /// The field a new one needs besides `name` (`discount`).
    const NEEDS: &'static str;
    /// The objects of a campaign file a PATCH changes field by field
    /// rather than whole (its kind's section, `stacking`).
    const SECTIONS: &'static [&'static str];
    /// The body POST and PATCH take.
    type Spec: Serialize + Sync;
    /// How the API shows one.
    type View: Send + 'static;

    /// `spec` in a campaign file's names; `new` when it creates one.
    fn file_spec(spec: &Self::Spec, new: bool) -> ApiResult<Value>;
    /// The money `spec` sends, checked against the Company's currency.
    fn offer(spec: &Self::Spec) -> Option<&(dyn OfferAmounts + Sync)>;
    /// Drops from `merged` (the stored campaign with `patch` merged in)
    /// what a field of `patch` replaces, as `percent` replaces `amount`.
    fn settle(patch: &Self::Spec, merged: &mut Value);
    /// `campaign` as the API shows it, when it is one of this resource's.
    fn view(campaign: &Campaign, language: &Language) -> Option<Self::View>;
}

/// The refusal when `id` names none of `R`'s campaigns.
fn not_found<R: CampaignResource>(id: &str) -> ApiError {
    ApiError::new(R::NOT_FOUND, format!("no {} `{id}`", R::NOUN))
}

/// `campaign`, just compiled from what a request sent, as `R` shows it.
fn shown<R: CampaignResource>(campaign: &Campaign, language: &Language) -> ApiResult<R::View> {
    R::view(campaign, language)
        .ok_or_else(|| ApiError::internal(format!("a {} compiled to another kind", R::NOUN)))
}

impl Services {
    /// Every campaign of resource `R` of the Company (files and API), by id.
    pub(crate) fn resource_campaigns<R: CampaignResource>(
        &self,
        company: &str,
        language: &Language,
    ) -> Vec<R::View> {
        self.catalog
            .company(company)
            .campaigns
            .iter()
            .filter_map(|campaign| R::view(campaign, language))
            .collect()
    }

    /// The campaign `id` of resource `R`.
    pub(crate) fn resource_campaign<R: CampaignResource>(
        &self,
        company: &str,
        id: &str,
        language: &Language,
    ) -> ApiResult<R::View> {
        let rule_id: i64 = id.parse().map_err(|_| not_found::<R>(id))?;
        self.catalog
            .company(company)
            .campaigns
            .iter()
            .filter(|campaign| campaign.id == rule_id)
            .find_map(|campaign| R::view(campaign, language))
            .ok_or_else(|| not_found::<R>(id))
    }

    /// Creates a campaign of resource `R` from `spec`; it applies from the
    /// next event on.
    pub(crate) async fn create_resource_campaign<R: CampaignResource>(
        &self,
        company: &str,
        spec: R::Spec,
        language: &Language,
    ) -> ApiResult<R::View> {
        let sent = serde_json::to_value(&spec).map_err(ApiError::internal)?;
        if [NAME, R::NEEDS]
            .iter()
            .any(|field| sent.get(field).is_none())
        {
            return Err(ApiError::invalid(format!(
                "a {} needs `{NAME}` and `{}`",
                R::NOUN,
                R::NEEDS
            )));
        }
        if let Some(offer) = R::offer(&spec) {
            self.check_offer_amounts(company, offer).await?;
        }
        let file = R::file_spec(&spec, true)?;
        self.create_api_campaign(company, (R::KIND, &file), |campaign| {
            shown::<R>(campaign, language)
        })
        .await
    }

    /// Changes the campaign `id` of resource `R` created through the API:
    /// the fields sent replace the stored ones (settled by the resource).
    /// File campaigns are changed in their files (`forbidden_request`).
    pub(crate) async fn update_resource_campaign<R: CampaignResource>(
        &self,
        company: &str,
        id: &str,
        patch: R::Spec,
        language: &Language,
    ) -> ApiResult<R::View> {
        let rule_id: i64 = id.parse().map_err(|_| not_found::<R>(id))?;
        let changes = CampaignPatch {
            kind: R::KIND,
            id: rule_id,
            changes: R::file_spec(&patch, false)?,
            sections: R::SECTIONS,
            not_found: not_found::<R>(id),
            offer: R::offer(&patch),
        };
        let settle = |merged: &mut Value| R::settle(&patch, merged);
        self.patch_api_campaign(company, changes, settle, |campaign| {
            shown::<R>(campaign, language)
        })
        .await
    }
}
