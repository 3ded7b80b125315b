//! The back office's view of a Company's campaign files: whether the files
//! in force are those on disk, and when they are not, which files are held
//! back and what serves in their place (`GET /companies/{slug}/campaigns`).

use poem::Request;
use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{Enum, Object, OpenApi};

use crate::engine::held_back::Serving;
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
    /// Some files have problems: each serves its last good version or is
    /// left out, and the others are in force as they are on disk.
    HeldBack,
    /// Every file has a problem and none ever loaded: the Company has no
    /// campaign in force (its events are still answered).
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
    /// The files held back: those that have problems.
    pub held_back_files: Vec<String>,
    /// The files that have problems (the same as `held_back_files`).
    pub files_with_problems: Vec<String>,
    /// Held-back files served by their last good version: the text that
    /// last loaded, kept in the store, so it survives restarts.
    pub files_serving_last_good: Vec<String>,
    /// Held-back files left out: they never loaded (or their last good
    /// version no longer fits the Company's other files).
    pub files_left_out: Vec<String>,
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
                files_serving_last_good: Vec::new(),
                files_left_out: Vec::new(),
                problems: Vec::new(),
                summary: format!(
                    "{company}: the files on disk are in force ({campaigns_in_force} campaigns)"
                ),
            },
            Some(held) => CampaignSetStatus {
                company: company.to_string(),
                state: if held.nothing_loaded() {
                    CampaignSetState::NeverLoaded
                } else {
                    CampaignSetState::HeldBack
                },
                campaigns_in_force,
                held_back_files: display(held.files.iter().map(|f| f.file.clone()).collect()),
                files_with_problems: display(held.files.iter().map(|f| f.file.clone()).collect()),
                files_serving_last_good: display(held.serving(Serving::LastGood)),
                files_left_out: display(held.serving(Serving::LeftOut)),
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
    /// Where the Company's campaign files stand: in force, or some held
    /// back by their problems (with every problem, and which files serve
    /// their last good version and which are left out).
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
