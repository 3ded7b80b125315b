//! A warning an author needs before a till meets it: two exclusive discount
//! campaigns that may apply to the same cart. Only one of them is ever
//! given (the higher priority, else the one worth more to the Customer),
//! which is seldom what two authors writing them apart expected.

use chrono::Weekday;

use crate::common::locale::CampaignTime;
use crate::common::locale::Locale;
use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::campaign::Listens;
use crate::engine::kinds::CampaignKind;
use crate::engine::reach::Recurrence;
use crate::engine::script::RuleError;

/// Every pair of active, exclusive discount campaigns listening to carts
/// whose dates, days, tiers, countries and Locations overlap: a warning at
/// the later one's `stacking:` line naming the earlier one.
pub fn overlapping_exclusives(campaigns: &[Campaign]) -> Vec<RuleError> {
    let exclusive: Vec<&Campaign> = campaigns
        .iter()
        .filter(|campaign| {
            campaign.active
                && campaign.listens == Listens::Cart
                && matches!(campaign.kind, CampaignKind::Discount(_))
                && campaign.stacking.exclusive()
        })
        .collect();
    let mut warnings = Vec::new();
    for (index, later) in exclusive.iter().enumerate() {
        for earlier in &exclusive[..index] {
            if !may_meet(earlier, later) {
                continue;
            }
            let decides = if earlier.stacking.priority == later.stacking.priority {
                "the one worth more to the Customer".to_string()
            } else {
                let (high, low) = if earlier.stacking.priority > later.stacking.priority {
                    (earlier, later)
                } else {
                    (later, earlier)
                };
                format!(
                    "rule {} always, by priority: rule {} never applies beside it",
                    high.id, low.id
                )
            };
            warnings.push(RuleError::new(
                &later.origin.file,
                later.line_of("stacking"),
                format!(
                    "rule {} and rule {} ({}) are both exclusive and may apply to the same cart: only one of them is given ({decides}); give them different dates, days, tiers or Locations, or let one combine (`combines_with`, `excludes`)",
                    later.id, earlier.id, earlier.source
                ),
            ));
        }
    }
    warnings
}

/// Whether one cart may be within the reach of both.
fn may_meet(a: &Campaign, b: &Campaign) -> bool {
    dates_overlap(a, b)
        && days_meet(a.reach.recurrence.as_ref(), b.reach.recurrence.as_ref())
        && lists_meet(&a.reach.tiers, &b.reach.tiers)
        && lists_meet(&a.reach.countries, &b.reach.countries)
        && lists_meet(&a.locations, &b.locations)
}

/// Whether their dates share an instant (wall-clock dates read as UTC: a
/// warning may be a few hours generous, never silent).
fn dates_overlap(a: &Campaign, b: &Campaign) -> bool {
    let utc = Locale::default();
    let instant = |time: Option<CampaignTime>| time.map(|t| t.instant(&utc));
    let before = |from: Option<Timestamp>, to: Option<Timestamp>| match (from, to) {
        (Some(from), Some(to)) => from <= to,
        _ => true,
    };
    before(instant(a.available_from), instant(b.available_to))
        && before(instant(b.available_from), instant(a.available_to))
}

/// Whether they run on a common day of the week.
fn days_meet(a: Option<&Recurrence>, b: Option<&Recurrence>) -> bool {
    let days = |recurrence: Option<&Recurrence>| -> Option<Vec<Weekday>> {
        match recurrence {
            Some(Recurrence::Weekly(days)) => Some(days.clone()),
            _ => None,
        }
    };
    match (days(a), days(b)) {
        (Some(a), Some(b)) => a.iter().any(|day| b.contains(day)),
        _ => true,
    }
}

/// Whether two lists that narrow a campaign (empty: no narrowing) allow a
/// common value.
fn lists_meet(a: &[String], b: &[String]) -> bool {
    a.is_empty() || b.is_empty() || a.iter().any(|item| b.contains(item))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::script::ScriptEngine;

    fn campaign(id: i64, extra: &str) -> Campaign {
        let text = format!(
            "id: {id}\nkind: discount\nname: D{id}\non: cart\ndiscount: {{ applies_to: cart, percent: 10 }}\n{extra}"
        );
        Campaign::parse(&ScriptEngine::new(), std::path::Path::new("d.yaml"), &text).unwrap()
    }

    #[test]
    fn two_exclusive_discounts_that_may_meet_are_named_and_those_kept_apart_are_not() {
        let exclusive = "stacking: { exclusive: true }\n";
        let found = overlapping_exclusives(&[campaign(1, exclusive), campaign(2, exclusive)]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 6);
        assert!(
            found[0].message.starts_with("rule 2 and rule 1 (d.yaml:")
                && found[0]
                    .message
                    .contains("the one worth more to the Customer"),
            "{}",
            found[0].message
        );
        // Different days, tiers, dates, or one that combines: no warning.
        for (a, b) in [
            ("recurrence_days: [monday]\n", "recurrence_days: [sunday]\n"),
            ("tiers: [gold]\n", "tiers: [silver]\n"),
            (
                "available_to: 2026-06-30T23:59:59Z\n",
                "available_from: 2026-07-01T00:00:00Z\n",
            ),
        ] {
            let apart = [
                campaign(1, &format!("{exclusive}{a}")),
                campaign(2, &format!("{exclusive}{b}")),
            ];
            assert!(overlapping_exclusives(&apart).is_empty(), "{a} / {b}");
        }
        assert!(overlapping_exclusives(&[campaign(1, exclusive), campaign(2, "")]).is_empty());
        // By priority, the message says which one never applies.
        let found = overlapping_exclusives(&[
            campaign(1, "stacking: { exclusive: true, priority: 5 }\n"),
            campaign(2, exclusive),
        ]);
        assert!(
            found[0]
                .message
                .contains("rule 1 always, by priority: rule 2 never applies beside it")
        );
    }
}
