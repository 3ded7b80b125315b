//! Whether a campaign takes part in an event: coupon presented, active and
//! within its dates, listening to the event, at its Locations, on its days
//! and hours, in its countries and tiers, its condition true. The first
//! reason it does not, or, for an explained event, every reason.

use crate::engine::campaign::Campaign;
use crate::engine::campaign::Listens;
use crate::engine::facts::Facts;
use crate::engine::kinds::CampaignKind;
use crate::engine::not_applied::NotApplied;
use crate::engine::script::PreparedFacts;
use crate::engine::script::ScriptEngine;
use crate::engine::why::Part;
use crate::engine::why::deciding_parts;
use crate::engine::why::describe as describe_parts;
use crate::resources::coupons::apply::presented;
use crate::resources::master_data::matching::location_listed;

/// Whether `campaign` takes part in this event; the reason when it does not.
pub fn applies(
    engine: &ScriptEngine,
    campaign: &Campaign,
    event: &Listens,
    facts: &Facts,
    prepared: &PreparedFacts,
) -> Result<(), NotApplied> {
    let coupon = matches!(campaign.kind, CampaignKind::Coupon(_));
    if coupon {
        presented(campaign, facts)?;
    }
    if facts.explain {
        return every_refusal(engine, campaign, event, facts, prepared);
    }
    in_force(campaign, facts)?;
    listens_to(campaign, event, coupon)?;
    at_its_locations(campaign, facts)?;
    campaign.reach.admits(facts)?;
    condition_holds(engine, campaign, prepared)
}

/// Whether `campaign` listens to `event` (a Coupon listens to whatever
/// presents it).
fn listens_to(campaign: &Campaign, event: &Listens, coupon: bool) -> Result<(), NotApplied> {
    if coupon || &campaign.listens == event {
        return Ok(());
    }
    Err(NotApplied::at_key(
        "on",
        format!("listens to {}", describe(&campaign.listens)),
    ))
}

/// [`applies`] for an explained event: every reason the campaign does not
/// take part, not only the first, in the order its keys are checked (its
/// dates, Locations, days, hours, countries, tiers, then its condition),
/// each a part with where it is written. A campaign listening to other
/// events says only that.
fn every_refusal(
    engine: &ScriptEngine,
    campaign: &Campaign,
    event: &Listens,
    facts: &Facts,
    prepared: &PreparedFacts,
) -> Result<(), NotApplied> {
    let coupon = matches!(campaign.kind, CampaignKind::Coupon(_));
    listens_to(campaign, event, coupon)?;
    let mut refusals: Vec<NotApplied> = Vec::new();
    refusals.extend(in_force(campaign, facts).err());
    refusals.extend(at_its_locations(campaign, facts).err());
    refusals.extend(campaign.reach.refusals(facts));
    refusals.extend(condition_holds(engine, campaign, prepared).err());
    // A part that cannot know where it is written is at its key's line.
    for refusal in &mut refusals {
        for part in refusal.parts.iter_mut().filter(|part| part.at.is_empty()) {
            part.at = campaign.place_of(refusal.key).to_string();
        }
    }
    if refusals.len() <= 1 {
        return refusals.pop().map_or(Ok(()), Err);
    }
    let reason = refusals
        .iter()
        .map(|refusal| refusal.reason.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    let key = refusals[0].key;
    let failed = refusals.iter().any(|refusal| refusal.failed);
    let mut parts = Vec::new();
    for refusal in refusals {
        if refusal.parts.is_empty() {
            parts.push(Part {
                at: campaign.place_of(refusal.key).to_string(),
                text: refusal.reason,
                was: false,
                values: Vec::new(),
                cart_line: None,
            });
        } else {
            parts.extend(refusal.parts);
        }
    }
    Err(NotApplied {
        reason,
        key,
        parts,
        failed,
    })
}

/// Whether the event happens at one of `campaign`'s Locations, when it
/// lists some; the reason when not.
fn at_its_locations(campaign: &Campaign, facts: &Facts) -> Result<(), NotApplied> {
    if campaign.locations.is_empty() {
        return Ok(());
    }
    let refused = |reason: String| Err(NotApplied::at_key("locations", reason));
    match facts
        .location
        .get("code")
        .and_then(serde_json::Value::as_str)
    {
        Some(code) if location_listed(&campaign.locations, code, &facts.location) => Ok(()),
        Some(code) => refused(format!(
            "location `{code}` is not one of its locations ({})",
            campaign.locations.join(", ")
        )),
        None => refused("the event names no location and the campaign runs only in some".into()),
    }
}

/// Whether `campaign` is in force for the Customer of `facts` now: active,
/// within its dates, days and hours, for the Customer's tier and country,
/// its condition true; the reason when it is not.
pub fn available(
    engine: &ScriptEngine,
    campaign: &Campaign,
    facts: &Facts,
    prepared: &PreparedFacts,
) -> Result<(), NotApplied> {
    in_force(campaign, facts)?;
    campaign.reach.admits(facts)?;
    condition_holds(engine, campaign, prepared)
}

/// Whether `campaign` is active and within its dates at the time of `facts`.
fn in_force(campaign: &Campaign, facts: &Facts) -> Result<(), NotApplied> {
    if !campaign.active {
        return Err(NotApplied::at_key("active", "inactive"));
    }
    let now = crate::common::time::Timestamp::from(facts.now);
    if let Some(from) = campaign.available_from.map(|t| t.instant(&facts.locale))
        && now < from
    {
        return Err(NotApplied::at_key(
            "available_from",
            format!("not available until {from}"),
        ));
    }
    if let Some(to) = campaign.available_to.map(|t| t.instant(&facts.locale))
        && now > to
    {
        return Err(NotApplied::at_key(
            "available_to",
            format!("not available since {to}"),
        ));
    }
    Ok(())
}

/// Whether `campaign`'s `when` holds for `prepared`; when it does not and
/// the event is explained, the parts that made it false.
fn condition_holds(
    engine: &ScriptEngine,
    campaign: &Campaign,
    prepared: &PreparedFacts,
) -> Result<(), NotApplied> {
    let Some(when) = &campaign.when else {
        return Ok(());
    };
    match engine.eval_prepared(when, prepared, None) {
        Ok(true) => Ok(()),
        Ok(false) if prepared.facts().explain => {
            let parts = deciding_parts(engine, when, prepared, None, false);
            let reason = if parts.is_empty() {
                format!("condition is false: `{}`", when.source.trim())
            } else {
                format!("condition is false: {}", describe_parts(&parts))
            };
            Err(NotApplied {
                reason,
                key: Some("when"),
                parts,
                failed: false,
            })
        }
        Ok(false) => Err(NotApplied::at_key(
            "when",
            format!("condition is false: `{}`", when.source.trim()),
        )),
        Err(error) => Err(NotApplied::failed(
            "when",
            format!("condition failed: {error}"),
        )),
    }
}

fn describe(listens: &Listens) -> String {
    match listens {
        Listens::Cart => "carts".into(),
        Listens::CustomEvent(kind) => format!("Custom Events of type `{kind}`"),
        Listens::Trigger(kind) => format!("triggers of type `{kind}`"),
        Listens::Customer(moment) => format!("`{}`", moment.name()),
        Listens::Prize => "no event (it is given as a prize)".into(),
        Listens::Play(game) => format!("plays of game {game}"),
    }
}
