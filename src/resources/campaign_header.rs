//! What the API shows first of a campaign, whatever its kind: its id, its
//! name and description in the response language, and whether and when it
//! runs. Each kind's answer flattens it in before its own fields.

use poem_openapi::Object;
use serde::Serialize;

use crate::common::language::Language;
use crate::common::locale::Locale;
use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;

/// The fields every campaign's answer starts with.
#[derive(Debug, Clone, PartialEq, Serialize, Object)]
pub struct CampaignHeader {
    /// The campaign's id: `rule_id` of its effects (and of what they
    /// record); from 1000000 when created through the API.
    pub id: i64,
    /// Name, in the response language.
    pub name: String,
    /// Description, in the response language.
    #[oai(skip_serializing_if_is_none)]
    pub description: Option<String>,
    /// Whether it is active.
    pub active: bool,
    /// First instant it runs.
    #[oai(skip_serializing_if_is_none)]
    pub available_from: Option<Timestamp>,
    /// Last instant it runs.
    #[oai(skip_serializing_if_is_none)]
    pub available_to: Option<Timestamp>,
}

impl CampaignHeader {
    /// The header of `campaign`, its texts in `language` and its dates as
    /// instants on the clocks of `locale`.
    pub fn of(campaign: &Campaign, language: &Language, locale: &Locale) -> Self {
        let render =
            |text: &crate::engine::text::Text| text.resolve(&language.chosen, &language.default);
        CampaignHeader {
            id: campaign.id,
            name: render(&campaign.name),
            description: campaign.description.as_ref().map(render),
            active: campaign.active,
            available_from: campaign.available_from.map(|t| t.instant(locale)),
            available_to: campaign.available_to.map(|t| t.instant(locale)),
        }
    }
}
