//! Campaigns created through the API (points campaigns, Coupons, ...): each
//! stored as the specification it was created or last updated with, in the
//! field names of a campaign file, compiled by the same compiler and
//! evaluated by the same engine as the files' campaigns. The resources that
//! create them (`points_campaigns`, `coupons`) say which kind they are.

pub mod service;
pub mod store;

/// Campaigns created through the API get ids from here up, and campaign files
/// may not use them, so the two can never collide.
pub const API_IDS_START: i64 = 1_000_000;

/// Where a campaign is defined, as the API says it: `api` for one created
/// through the API (its id is in their range), `file` for a campaign file.
pub fn campaign_source(campaign: &crate::engine::campaign::Campaign) -> &'static str {
    if campaign.id >= API_IDS_START {
        "api"
    } else {
        "file"
    }
}
