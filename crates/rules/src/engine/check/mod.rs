//! Mistakes in conditions caught when the files load, before any event
//! meets them: a field the facts do not have (`cart.totl`), a comparison
//! between a number and text (`line.quantity >= "3"`), a text that can
//! never equal what the fact holds (`weekday == "Monday"`, a tier or an
//! audience the Company does not define) and a `history` method that does
//! not exist. Each is reported at its file, line and column; every one is
//! reported, not only the first. Each such condition would otherwise be
//! silently false (or fail) for every Customer.

mod calls;
mod functions;
mod shapes;
mod walk;

pub use functions::Functions;
pub use shapes::Known;

use crate::engine::campaign::Campaign;
use crate::engine::kinds::CampaignKind;
use crate::engine::script::RuleError;
use crate::engine::script::Script;
use crate::resources::segments::rules::Segments;

impl Known {
    /// What `segments` define.
    pub fn of(segments: &Segments) -> Known {
        let ids = |segments: &[crate::resources::segments::rules::Segment]| {
            segments.iter().map(|s| s.id.clone()).collect()
        };
        Known {
            tiers: ids(&segments.tiers),
            audiences: ids(&segments.audiences),
            attributes: segments.attributes.iter().map(|a| a.id.clone()).collect(),
        }
    }
}

/// Every problem of `script`, given what the Company's files define and
/// what `functions` the engine can call.
pub fn check_script(script: &Script, known: &Known, functions: &Functions) -> Vec<RuleError> {
    walk::Checker::new(script, known, functions).check()
}

/// Every problem of the expressions of a Company's `segments.yaml`.
pub fn check_segments(segments: &Segments, functions: &Functions) -> Vec<RuleError> {
    let known = Known::of(segments);
    segments
        .scripts()
        .flat_map(|script| check_script(script, &known, functions))
        .collect()
}

/// Every problem of `campaign` given what its Company's files define.
pub fn check_campaign(campaign: &Campaign, known: &Known, functions: &Functions) -> Vec<RuleError> {
    let mut problems: Vec<RuleError> = campaign
        .scripts()
        .flat_map(|script| check_script(script, known, functions))
        .collect();
    let mut named_tiers: Vec<(&str, &str)> = campaign
        .reach
        .tiers
        .iter()
        .map(|tier| ("tiers", tier.as_str()))
        .collect();
    if let CampaignKind::Reward(reward) = &campaign.kind {
        named_tiers.extend(
            reward
                .points_cost_by_tier
                .keys()
                .map(|tier| ("points_cost_by_tier", tier.as_str())),
        );
    }
    for (key, tier) in named_tiers {
        if known.tiers.iter().any(|known| known == tier) {
            continue;
        }
        let mut message =
            format!("`{key}` names tier `{tier}`, which segments.yaml does not define");
        if let Some(near) = closest(tier, known.tiers.iter().map(String::as_str)) {
            message.push_str(&format!(" (did you mean `{near}`?)"));
        }
        if known.tiers.is_empty() {
            message.push_str("; it defines no tier");
        } else {
            message.push_str(&format!("; its tiers are {}", known.tiers.join(", ")));
        }
        problems.push(RuleError::new(
            &campaign.origin.file,
            campaign.line_of(key),
            message,
        ));
    }
    problems
}

/// `name`'s closest of `candidates`, when it is near enough to be a typo.
pub fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .map(|candidate| (edit_distance(name, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= 2.min(candidate.len() / 2).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance between `a` and `b`, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            current[j + 1] = (previous[j] + usize::from(ca != *cb))
                .min(previous[j + 1] + 1)
                .min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests;
