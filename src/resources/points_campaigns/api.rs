//! Points campaigns: POST /points, GET /points, GET /points/{value} and
//! PATCH /points/{value}.

use poem_openapi::{Object, Tags};

use crate::resources::api_campaigns::resource_api::campaign_resource_api;
use crate::resources::points_campaigns::model::PointsCampaign;
use crate::resources::points_campaigns::model::PointsCampaignSpec;
use crate::resources::points_campaigns::service::PointsCampaigns;

#[derive(Tags)]
enum PointsCampaignTags {
    /// Points and wallet campaigns, from campaign files and created through the API.
    PointsCampaigns,
}

/// Points campaigns.
#[derive(Debug, Object)]
pub struct PointsCampaignList {
    /// By ascending id.
    pub points: Vec<PointsCampaign>,
}

campaign_resource_api! {
    /// Points campaign endpoints.
    api: PointsCampaignsApi for PointsCampaigns, tag: "PointsCampaignTags::PointsCampaigns",
    paths: "/points", "/points/:value" ("/points/{value}"),
    param: { value },
    payloads: PointsCampaignSpec => PointsCampaign, list: PointsCampaignList { points },
    create_errors: [],
    create: {
        /// Create a points campaign.
        ///
        /// The body has the fields of a campaign file of kind `points` (see the
        /// campaign file reference); it is checked by the same compiler, stored,
        /// and applies from the next event on. Its id is assigned from 1000000 up,
        /// a range campaign files may not use.
    },
    list: {
        /// List available points/wallet campaigns (campaign files and API).
    },
    get: {
        /// Get a points campaign by ID.
    },
    update: {
        /// Update a points/wallet campaign created through the API.
        ///
        /// The fields sent replace the stored ones; the result is checked like a
        /// new campaign. Campaigns from files are changed in their files (403
        /// `forbidden_request`).
    },
    more: { errors: [], },
}
