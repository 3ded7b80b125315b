//! What an operator sees of a Company's campaigns: the set in force, each
//! campaign with where it is defined and whether it applies now, and where
//! the files on disk stand ([`CampaignSetStatus`]).

use serde::Serialize;

use crate::error::ApiResult;
use crate::resources::api_campaigns::API_IDS_START;
use crate::resources::companies::campaigns_api::CampaignSetStatus;
use crate::services::Services;
use crate::telemetry::campaign_failures::LastFailure;

/// One campaign in force.
#[derive(Debug, Clone, Serialize)]
pub struct CampaignInForce {
    /// Its rule id.
    pub id: i64,
    /// Its name in the Company's default language.
    pub name: String,
    /// Its kind (`discount`, `instant_win`, ...).
    pub kind: &'static str,
    /// `file:line` of a campaign file's campaign; `None` for one created
    /// through the API.
    pub file: Option<String>,
    /// The revision of a campaign created through the API.
    pub revision: Option<i64>,
    /// Whether it applies now: `active`, `inactive` (switched off),
    /// `not_started` or `ended` (outside its dates).
    pub state: &'static str,
    /// When it starts applying, as written.
    pub available_from: Option<String>,
    /// When it stops applying, as written.
    pub available_to: Option<String>,
    /// The last time one of its expressions failed on an event, seen by
    /// this server ([`crate::telemetry::campaign_failures`]).
    pub last_error: Option<LastFailure>,
}

/// A Company's campaigns as the back-office page shows them.
#[derive(Debug, Clone, Serialize)]
pub struct CampaignOverview {
    /// Where the campaign files stand.
    pub files: CampaignSetStatus,
    /// Every campaign in force, by id.
    pub campaigns: Vec<CampaignInForce>,
}

impl Services {
    /// The campaigns of `company` in force now, and where its files stand.
    pub async fn campaign_overview(&self, company: &str) -> ApiResult<CampaignOverview> {
        let files = self.campaign_set_status(company).await?;
        let stored = self.company(company).await?;
        let locale = stored.locale();
        let revisions: Vec<(i64, i64)> = self
            .store
            .all_api_campaigns()
            .await?
            .into_iter()
            .filter(|campaign| campaign.company == company && campaign.deleted_at.is_none())
            .map(|campaign| (campaign.id, campaign.revision))
            .collect();
        let now = self.now();
        let rules = self.catalog().company(company);
        let mut campaigns: Vec<CampaignInForce> = rules
            .campaigns
            .iter()
            .map(|campaign| {
                let from = campaign.available_from.map(|at| at.instant(&locale));
                let to = campaign.available_to.map(|at| at.instant(&locale));
                let state = if !campaign.active {
                    "inactive"
                } else if from.is_some_and(|from| now < from) {
                    "not_started"
                } else if to.is_some_and(|to| now > to) {
                    "ended"
                } else {
                    "active"
                };
                let from_api = campaign.id >= API_IDS_START;
                CampaignInForce {
                    id: campaign.id,
                    name: campaign.name.resolve(&stored.default_language, "en"),
                    kind: campaign.kind.name(),
                    file: (!from_api).then(|| {
                        format!(
                            "{}:{}",
                            campaign.origin.file.display(),
                            campaign.origin.line
                        )
                    }),
                    revision: revisions
                        .iter()
                        .find(|(id, _)| *id == campaign.id)
                        .map(|(_, revision)| *revision),
                    state,
                    available_from: from.map(|at| at.to_string()),
                    available_to: to.map(|at| at.to_string()),
                    last_error: self.campaign_failures.last(company, campaign.id),
                }
            })
            .collect();
        campaigns.sort_by_key(|campaign| campaign.id);
        Ok(CampaignOverview { files, campaigns })
    }
}
