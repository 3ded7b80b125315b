//! Discount campaigns: POST /discounts, GET /discounts,
//! GET /discounts/{value} and PATCH /discounts/{value}.

use poem_openapi::Tags;

use crate::resources::api_campaigns::resource_api::campaign_resource_api;
use crate::resources::discounts::campaigns::DiscountCampaigns;
use crate::resources::discounts::model::DiscountCampaign;
use crate::resources::discounts::model::DiscountCampaignList;
use crate::resources::discounts::model::DiscountCampaignSpec;

#[derive(Tags)]
enum DiscountCampaignTags {
    /// Discount campaigns, from campaign files (`kind: discount`) and
    /// created through the API.
    DiscountCampaigns,
}

campaign_resource_api! {
    /// Discount campaign endpoints.
    api: DiscountCampaignsApi for DiscountCampaigns, tag: "DiscountCampaignTags::DiscountCampaigns",
    paths: "/discounts", "/discounts/:value" ("/discounts/{value}"),
    param: { #[oai(validator(max_length = 128))] value },
    payloads: DiscountCampaignSpec => DiscountCampaign, list: DiscountCampaignList { discounts },
    create_errors: [],
    create: {
        /// Create a discount campaign.
        ///
        /// The body has the fields of a campaign file of kind `discount` (see
        /// the campaign file reference): it listens to carts and takes
        /// `discount.percent` or `discount.amount` off the whole cart
        /// (`applies_to: cart`, shared out over the lines) or off each line the
        /// rhai condition `discount.lines` matches (`applies_to: lines`), at
        /// most `discount.max_amount`, when `when` holds. It is checked by the
        /// same compiler as a file, stored, and applies from the next cart on.
        /// Its id is assigned from 1000000 up.
    },
    list: {
        /// List available discount campaigns (campaign files and API).
    },
    get: {
        /// Get a discount campaign by ID.
    },
    update: {
        /// Update a discount campaign created through the API.
        ///
        /// The fields sent replace the stored ones (`discount.percent` replaces
        /// `discount.amount` and the other way round; `applies_to: cart` drops
        /// `lines`); the result is checked like a new campaign. Campaigns from
        /// files are changed in their files (403 `forbidden_request`).
    },
    more: { errors: [], },
}
