//! Campaigns created through the API (points campaigns, Coupons, ...): each
//! stored as the specification it was created or last updated with, in the
//! field names of a campaign file, compiled by the same compiler and
//! evaluated by the same engine as the files' campaigns. The resources that
//! create them (`points_campaigns`, `coupons`) say which kind they are; the
//! service stores them.

/// Campaigns created through the API get ids from here up, and campaign files
/// may not use them, so the two can never collide.
pub const API_IDS_START: i64 = 1_000_000;

/// API resources whose records are campaigns of another kind: a legacy
/// Promotion is stored as kind `promotion` and compiled as a `discount`.
const COMPILED_AS: &[(&str, &str)] = &[("promotion", "discount")];

/// The campaign kind a stored API kind compiles as.
pub fn compiled_kind(stored_kind: &str) -> &str {
    COMPILED_AS
        .iter()
        .find(|(stored, _)| *stored == stored_kind)
        .map_or(stored_kind, |(_, kind)| kind)
}

/// The field of a stored specification in which its resource keeps the
/// record as the API took it (a Promotion's own fields); left out when the
/// specification is compiled.
pub const API_RECORD: &str = "api_record";

/// Where a campaign is defined, as the API says it: `api` for one created
/// through the API (its id is in their range), `file` for a campaign file.
pub fn campaign_source(campaign: &crate::engine::campaign::Campaign) -> &'static str {
    if campaign.id >= API_IDS_START {
        "api"
    } else {
        "file"
    }
}
