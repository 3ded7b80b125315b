//! Points campaigns' records.

/// Campaigns created through the API get ids from here up, and campaign files
/// may not use them, so the two can never collide.
pub const API_IDS_START: i64 = 1_000_000;
