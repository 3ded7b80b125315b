//! The back office's view of a Company's campaign files: whether the set in
//! force is the one on disk, and when it is not, which files hold it back
//! and what stays in force (`GET /companies/{slug}/campaigns`).

use poem::Request;
use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{Enum, Object, OpenApi};

use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::errors::ErrorResponse;
use crate::http::services;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::companies::api::OperatorAuth;
use crate::services::Services;

/// Where a Company's campaign files stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum, serde::Serialize)]
#[oai(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum CampaignSetState {
    /// The files on disk are the set in force.
    InForce,
    /// Some file has a problem: the whole set is held back and the
    /// previous version stays in force.
    HeldBack,
    /// The files have problems and never loaded: events are refused
    /// (`campaigns_unavailable`).
    NeverLoaded,
}

/// A Company's campaign set as the last reload left it.
#[derive(Debug, Clone, Object, serde::Serialize)]
pub struct CampaignSetStatus {
    /// The Company.
    pub company: String,
    /// Where its files stand.
    pub state: CampaignSetState,
    /// Campaigns in force (from the files and created through the API).
    pub campaigns_in_force: usize,
    /// When held back: every file of the set, all waiting.
    pub held_back_files: Vec<String>,
    /// When held back: the files that have problems.
    pub files_with_problems: Vec<String>,
    /// Every problem, as `FILE:LINE:COLUMN: message`.
    pub problems: Vec<String>,
    /// What happened, in one sentence (as the server logs it).
    pub summary: String,
}

impl Services {
    /// Where the campaign files of `company` stand.
    pub async fn campaign_set_status(&self, company: &str) -> ApiResult<CampaignSetStatus> {
        self.company_locale(company).await?;
        let catalog = self.catalog();
        let campaigns_in_force = catalog.company(company).campaigns.len();
        let display = |files: Vec<std::path::PathBuf>| {
            files
                .iter()
                .map(|file| file.display().to_string())
                .collect::<Vec<_>>()
        };
        Ok(match catalog.held_back(company) {
            None => CampaignSetStatus {
                company: company.to_string(),
                state: CampaignSetState::InForce,
                campaigns_in_force,
                held_back_files: Vec::new(),
                files_with_problems: Vec::new(),
                problems: Vec::new(),
                summary: format!(
                    "{company}: the files on disk are in force ({campaigns_in_force} campaigns)"
                ),
            },
            Some(held) => CampaignSetStatus {
                company: company.to_string(),
                state: if held.previous_campaigns.is_some() {
                    CampaignSetState::HeldBack
                } else {
                    CampaignSetState::NeverLoaded
                },
                campaigns_in_force,
                held_back_files: display(held.files.clone()),
                files_with_problems: display(held.files_with_problems()),
                problems: held.problems.iter().map(ToString::to_string).collect(),
                summary: held.summary(),
            },
        })
    }
}

/// Operator-only views of the campaign files.
#[derive(Debug, Default)]
pub struct CampaignFiles;

#[OpenApi]
impl CampaignFiles {
    /// Where the Company's campaign files stand: in force, or held back by
    /// a problem in one of them (with every problem and which files wait).
    #[oai(path = "/companies/:slug/campaigns", method = "get")]
    async fn status(
        &self,
        _auth: OperatorAuth,
        request: &Request,
        slug: Path<String>,
    ) -> Result<Json<CampaignSetStatus>, ErrorResponse> {
        Ok(Json(services(request)?.campaign_set_status(&slug.0).await?))
    }
}

/// The error codes of its own each operation answers.
impl DeclaredErrors for CampaignFiles {
    const ERRORS: &'static [OperationErrors] = &[OperationErrors {
        operation: "GET /companies/{slug}/campaigns",
        codes: &[ErrorCode::CompanyNotFound],
    }];
}
