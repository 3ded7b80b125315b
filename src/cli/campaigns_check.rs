//! `loyalty campaigns check`: every Company's files compiled as the server
//! loads them, each problem printed at its file, line and column (or one
//! JSON document with `--json`).

use std::path::Path;

use crate::cli::back_office_client::BackOffice;
use crate::cli::print_json;
use crate::config::BackOfficeArgs;
use crate::engine::catalog::{Catalog, LoadReport};
use crate::engine::script::RuleError;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::discounts::overlaps::overlapping_exclusives;
use crate::resources::master_data::references::unknown_features;

/// Compiles every rule file under `dir`, printing problems as
/// `FILE:LINE:COLUMN: message` (or, with `--json`, one JSON document); when a
/// server answers at the back office's URL, also checks the taxonomies and
/// features they name against each Company's catalogue. As the server does,
/// a taxonomy or feature the catalogue lacks is a warning (the campaign
/// loads and can never match it), and so are two exclusive discounts that
/// may meet on one cart; every other problem is an error.
pub(crate) async fn check_campaigns(dir: &Path, back_office: &BackOfficeArgs) -> ApiResult<()> {
    if !dir.is_dir() {
        return Err(ApiError::invalid(format!(
            "{} is not a directory",
            dir.display()
        )));
    }
    let (catalog, report) = Catalog::load(dir);
    let mut warnings: Vec<RuleError> = catalog_companies(&report)
        .iter()
        .flat_map(|company| overlapping_exclusives(&catalog.company(company).campaigns))
        .collect();
    let mut note = None;
    match BackOffice::connect_if_running(back_office).await? {
        Some(office) => {
            for company in catalog_companies(&report) {
                let known = office.feature_catalogue(&company).await?;
                warnings.extend(unknown_features(
                    &catalog.company(&company).campaigns,
                    &known,
                ));
            }
        }
        None => {
            note = Some(format!(
                "no server answers at {}: the taxonomies and features conditions name were not checked against the catalogue",
                back_office.admin_url
            ))
        }
    }
    let companies: Vec<serde_json::Value> = catalog_companies(&report)
        .into_iter()
        .map(|company| {
            let rules = catalog.company(&company);
            serde_json::json!({
                "company": company,
                "campaigns": rules.campaigns.len(),
                "tiers": rules.segments.tiers.len(),
                "audiences": rules.segments.audiences.len(),
                "calculated_attributes": rules.segments.attributes.len(),
            })
        })
        .collect();
    if back_office.json {
        let problem = |error: &RuleError, severity: &str| {
            serde_json::json!({
                "file": error.file.display().to_string(),
                "line": error.line,
                "column": error.column,
                "message": error.message,
                "severity": severity,
            })
        };
        let problems: Vec<serde_json::Value> = report
            .errors
            .iter()
            .map(|error| problem(error, "error"))
            .chain(warnings.iter().map(|warning| problem(warning, "warning")))
            .collect();
        print_json(&serde_json::json!({
            "ok": report.errors.is_empty(),
            "errors": report.errors.len(),
            "warnings": warnings.len(),
            "problems": problems,
            "companies": companies,
            "note": note,
        }))?;
    } else {
        for error in &report.errors {
            eprintln!("{error}");
        }
        for warning in &warnings {
            eprintln!("warning: {warning}");
        }
        if let Some(note) = &note {
            eprintln!("note: {note}");
        }
        if report.errors.is_empty() {
            for company in &companies {
                println!(
                    "ok: {}: {} campaigns, {} tiers, {} audiences, {} calculated attributes",
                    company["company"].as_str().unwrap_or_default(),
                    company["campaigns"],
                    company["tiers"],
                    company["audiences"],
                    company["calculated_attributes"]
                );
            }
        }
    }
    if report.errors.is_empty() {
        Ok(())
    } else {
        Err(ApiError::invalid(format!(
            "{} problem(s) in {}",
            report.errors.len(),
            dir.display()
        )))
    }
}

/// The Companies a load read, whether their files all loaded or some were
/// held back, in name order.
fn catalog_companies(report: &LoadReport) -> Vec<String> {
    let mut companies: Vec<String> = report
        .loaded
        .iter()
        .cloned()
        .chain(report.held_back.iter().map(|held| held.company.clone()))
        .collect();
    companies.sort();
    companies.dedup();
    companies
}
