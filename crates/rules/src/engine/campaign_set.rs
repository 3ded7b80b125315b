//! A Company's set of campaigns: every file loaded at once, with the
//! problems only the whole set shows (ids used twice, prizes that give a
//! campaign that does not exist or is of another kind).

use crate::resources::api_campaigns::API_IDS_START;
use std::collections::HashMap;
use std::path::PathBuf;

use crate::engine::campaign::Campaign;
use crate::engine::check::Known;
use crate::engine::kinds::CampaignKind;
use crate::engine::script::RuleError;
use crate::engine::script::ScriptEngine;

impl Campaign {
    /// Loads every campaign file of a Company directory (recursively, every
    /// `*.yaml` but `segments.yaml`), reporting all problems at once,
    /// including ids used twice.
    pub fn load_all(
        engine: &ScriptEngine,
        files: &[(PathBuf, String)],
    ) -> Result<Vec<Campaign>, Vec<RuleError>> {
        Campaign::load_all_checked(engine, files, None)
    }

    /// [`Campaign::load_all`], each file checked against what `known`
    /// (from the Company's segments) defines.
    pub fn load_all_checked(
        engine: &ScriptEngine,
        files: &[(PathBuf, String)],
        known: Option<&Known>,
    ) -> Result<Vec<Campaign>, Vec<RuleError>> {
        let mut campaigns = Vec::new();
        let mut errors = Vec::new();
        for (path, text) in files {
            match Campaign::parse_checked(engine, path, text, known) {
                Ok(campaign) => campaigns.push(campaign),
                Err(mut problems) => errors.append(&mut problems),
            }
        }
        for campaign in &campaigns {
            if campaign.id >= API_IDS_START {
                errors.push(RuleError::new(
                    &campaign.origin.file,
                    campaign.origin.line,
                    format!(
                        "campaign id {} is in the range kept for campaigns created through the API (from {API_IDS_START})",
                        campaign.id
                    ),
                ));
            }
        }
        let mut first_use: HashMap<i64, &Campaign> = HashMap::new();
        for campaign in &campaigns {
            if let Some(first) = first_use.get(&campaign.id) {
                errors.push(RuleError::new(
                    &campaign.origin.file,
                    campaign.origin.line,
                    format!(
                        "campaign id {} is already used by {}:{}",
                        campaign.id,
                        first.origin.file.display(),
                        first.origin.line
                    ),
                ));
            } else {
                first_use.insert(campaign.id, campaign);
            }
        }
        errors.extend(dangling_prizes(&campaigns, files));
        errors.extend(dangling_references(&campaigns, files));
        if errors.is_empty() {
            campaigns.sort_by_key(|c| c.id);
            Ok(campaigns)
        } else {
            Err(errors)
        }
    }
}

/// The line of `campaign`'s file that `matches`; its `id` line when none does.
fn line_of(
    files: &[(PathBuf, String)],
    campaign: &Campaign,
    matches: impl Fn(&str) -> bool,
) -> usize {
    files
        .iter()
        .find(|(path, _)| *path == campaign.origin.file)
        .and_then(|(_, text)| text.lines().position(matches))
        .map_or(campaign.origin.line, |index| index + 1)
}

/// What campaign `id` is, when it is not what was named: `target`.
fn what_is(target: Option<&Campaign>, id: i64) -> String {
    target.map_or("no campaign has that id".to_string(), |c| {
        format!("campaign {id} is a {} campaign", c.kind.name())
    })
}

/// Prizes whose promotion_id names no campaign of the right kind in the Company.
fn dangling_prizes(campaigns: &[Campaign], files: &[(PathBuf, String)]) -> Vec<RuleError> {
    let mut errors = Vec::new();
    for campaign in campaigns {
        let CampaignKind::InstantWin(instant_win) = &campaign.kind else {
            continue;
        };
        for prize in &instant_win.prizes {
            let (Some(kind), Some(id)) = (prize.promotion_type.campaign_kind(), prize.promotion_id)
            else {
                continue;
            };
            let target = campaigns.iter().find(|c| c.id == id);
            if target.is_some_and(|c| c.kind.name() == kind) {
                continue;
            }
            let line = line_of(files, campaign, |l| {
                l.contains("promotion_id") && l.contains(&id.to_string())
            });
            let found = what_is(target, id);
            errors.push(RuleError::new(
                &campaign.origin.file,
                line,
                format!("prize `{}` gives {kind} {id}, but {found}", prize.id),
            ));
        }
    }
    errors
}

/// Campaigns naming another campaign (a Coupon whose Voucher they issue, a
/// game they give a participation in) that the files should hold and do not.
/// Coupons from [`API_IDS_START`] are created through the API, which come
/// and go without the files: evaluation explains a missing one.
fn dangling_references(campaigns: &[Campaign], files: &[(PathBuf, String)]) -> Vec<RuleError> {
    campaigns
        .iter()
        .flat_map(|campaign| {
            campaign
                .kind
                .references()
                .into_iter()
                .map(move |reference| (campaign, reference))
        })
        .filter(|(_, reference)| !(reference.kind == "coupon" && reference.id >= API_IDS_START))
        .filter_map(|(campaign, reference)| {
            let target = campaigns.iter().find(|c| c.id == reference.id);
            if target.is_some_and(|c| c.kind.name() == reference.kind) {
                return None;
            }
            let line = line_of(files, campaign, |l| {
                l.trim_start().starts_with(reference.key)
            });
            let found = what_is(target, reference.id);
            Some(RuleError::new(
                &campaign.origin.file,
                line,
                format!("{}, but {found}", reference.what),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const COFFEE: &str = "id: 101\nkind: discount\nname: Coffee\non: cart\ndiscount:\n  applies_to: cart\n  percent: 10\n";

    #[test]
    fn ids_used_twice_are_reported() {
        let files = vec![
            (PathBuf::from("a.yaml"), COFFEE.to_string()),
            (PathBuf::from("b.yaml"), COFFEE.to_string()),
        ];
        let errors = Campaign::load_all(&ScriptEngine::new(), &files).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].to_string().contains("already used by a.yaml:1"),
            "{}",
            errors[0]
        );
    }

    #[test]
    fn files_may_not_use_the_ids_of_api_campaigns() {
        let files = vec![(
            PathBuf::from("a.yaml"),
            COFFEE.replace("id: 101", "id: 1000000"),
        )];
        let errors = Campaign::load_all(&ScriptEngine::new(), &files).unwrap_err();
        assert!(
            errors[0]
                .to_string()
                .contains("kept for campaigns created through the API"),
            "{}",
            errors[0]
        );
    }
}
