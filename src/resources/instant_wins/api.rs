//! Instant Win: GET /instant_wins and GET /instant_wins/{id}. There is no call
//! to play: draws happen on the events the campaigns listen to, and their
//! results are the `instant_win` effects of those events' responses.

use crate::error::ErrorCode;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::customers::service::CustomerRef;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::common::pagination::PageRequest;
use crate::http::auth::ApiCaller;
use crate::http::auth::Tier2;
use crate::http::errors::ErrorResponse;
use crate::http::params::location;
use crate::resources::instant_wins::model::InstantWinCampaign;
use crate::resources::instant_wins::model::InstantWinSearch;
use crate::resources::instant_wins::rules::Audience;
use crate::resources::instant_wins::service::InstantWinFilter;

/// Who a listed Instant Win is for: `loyalty` (every member) or `targeted`
/// (Customers holding its Voucher).
#[derive(Debug, Clone, Copy, poem_openapi::Enum)]
#[oai(rename_all = "lowercase")]
pub enum CampaignAudience {
    /// Every loyalty member.
    Loyalty,
    /// Customers holding the campaign's Voucher.
    Targeted,
}

impl From<CampaignAudience> for Audience {
    fn from(audience: CampaignAudience) -> Self {
        match audience {
            CampaignAudience::Loyalty => Audience::Loyalty,
            CampaignAudience::Targeted => Audience::Targeted,
        }
    }
}

#[derive(Tags)]
enum InstantWinTags {
    /// Instant Win campaigns: weighted prize draws on carts, Custom Events and triggers.
    InstantWin,
}

/// A page of Instant Win campaigns.
#[derive(Debug, Object)]
pub struct InstantWinList {
    /// The campaigns, by ascending id.
    pub instant_wins: Vec<InstantWinCampaign>,
    /// Pass as `starting_after` for the next page; absent on the last page.
    #[oai(skip_serializing_if_is_none)]
    pub next_token_starts_after: Option<String>,
}

/// What both operations filter on: the Customer (id or code), the
/// Location (id or code, as the catalogue knows it) and the countries (a
/// comma-separated list).
fn filter<'a, const TIER: u8>(
    caller: &ApiCaller<'_, TIER>,
    customer: (&'a Option<String>, &'a Option<String>),
    location_sent: (Option<String>, Option<String>),
    country_list: Option<String>,
) -> Result<InstantWinFilter<'a>, ErrorResponse> {
    Ok(InstantWinFilter {
        customer: CustomerRef::optional(customer.0, customer.1),
        location: location(
            &caller.services.master_data.company(&caller.company),
            location_sent.0,
            location_sent.1,
        )?,
        countries: countries(country_list),
        ..InstantWinFilter::default()
    })
}

/// `countries` as a comma-separated list.
fn countries(value: Option<String>) -> Vec<String> {
    value
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_uppercase)
        .collect()
}

/// Instant Win endpoints.
#[derive(Default)]
pub struct InstantWinsApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for InstantWinsApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "GET /instant_wins",
            codes: &[ErrorCode::LocationNotFound, ErrorCode::CustomerNotFound],
        },
        OperationErrors {
            operation: "GET /instant_wins/{id}",
            codes: &[ErrorCode::LocationNotFound, ErrorCode::InstantWinNotFound],
        },
    ];
}

#[OpenApi(tag = "InstantWinTags::InstantWin")]
impl InstantWinsApi {
    /// List Instant Win campaigns, optionally for a Customer.
    ///
    /// Without a Customer: every Instant Win of the Company. With
    /// `customer_id` or `customer_code`: the loyalty Instant Wins and the
    /// targeted ones the Customer holds a Voucher for, each with
    /// `remaining_participations` in the current period (and, targeted, the
    /// Customer's `loyalty_rule_history_id`). `location_id` and
    /// `location_code` both name a store by the code campaign files list
    /// under `locations`; `countries` is comma-separated.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/instant_wins", method = "get")]
    #[allow(clippy::too_many_arguments)]
    async fn list(
        &self,
        caller: Tier2<'_>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_id: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_code: Query<Option<String>>,
        campaign_audience: Query<Option<CampaignAudience>>,
        #[oai(validator(min_length = 1, max_length = 128))] location_id: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] location_code: Query<Option<String>>,
        #[oai(name = "countries", validator(max_length = 200))] country_list: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] tier_id: Query<Option<String>>,
        #[oai(validator(minimum(value = 1.0), maximum(value = 100.0)))] per_page: Query<
            Option<u32>,
        >,
        /// The `next_token_starts_after` of the previous page (a campaign id).
        #[oai(validator(pattern = r"^[0-9]{1,18}$"))]
        starting_after: Query<Option<String>>,
    ) -> Result<Json<InstantWinList>, ErrorResponse> {
        let page = PageRequest::new(per_page.0, starting_after.0)?;
        let filter = InstantWinFilter {
            audience: campaign_audience.0.map(Audience::from),
            tier: tier_id.0,
            ..filter(
                &caller,
                (&customer_id.0, &customer_code.0),
                (location_id.0, location_code.0),
                country_list.0,
            )?
        };
        let page = caller
            .services
            .instant_wins(&caller.company, filter, page, caller.language()?)
            .await?;
        Ok(Json(InstantWinList {
            instant_wins: page.items,
            next_token_starts_after: page.next_token_starts_after,
        }))
    }

    /// Get one Instant Win campaign.
    ///
    /// `search_by` says what `id` is: `loyalty_rule_id` (default),
    /// `loyalty_rule_history_id` (a Customer's assignment; implies that
    /// Customer), `campaign_history_id` (a Targeted Delivery send) or
    /// `static_code` (the coupon's shared code). With a location or countries,
    /// an Instant Win that does not run there is `instant_win_not_found`.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/instant_wins/:id", method = "get")]
    #[allow(clippy::too_many_arguments)]
    async fn get(
        &self,
        caller: Tier2<'_>,
        id: Path<String>,
        search_by: Query<Option<InstantWinSearch>>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_id: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_code: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] location_id: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] location_code: Query<Option<String>>,
        #[oai(name = "countries", validator(max_length = 200))] country_list: Query<Option<String>>,
    ) -> Result<Json<InstantWinCampaign>, ErrorResponse> {
        let search_by = search_by.0.unwrap_or_default();
        let filter = filter(
            &caller,
            (&customer_id.0, &customer_code.0),
            (location_id.0, location_code.0),
            country_list.0,
        )?;
        Ok(Json(
            caller
                .services
                .instant_win(
                    &caller.company,
                    &id.0,
                    search_by,
                    filter,
                    caller.language()?,
                )
                .await?,
        ))
    }
}
