//! The rule interpreter: which campaigns apply to an event, what effects they
//! return, and why the others did not apply. Pure: the event, the facts and
//! the clock (`facts.now`) are passed in; nothing is read or written.

use crate::engine::campaign::Campaign;
use crate::engine::campaign::Listens;
use crate::engine::effect::Effect;
use crate::engine::facts::Facts;
use crate::engine::kinds::KindContext;
use crate::engine::script::ScriptEngine;
use crate::engine::takes_part::applies;
use crate::engine::text::Text;
use crate::resources::discounts::settle::settle;
use crate::resources::instant_wins::draw_record::DrawRecord;
use crate::resources::instant_wins::rules::draws::Draws;
use crate::resources::limits::LimitTake;
use crate::resources::limits::OfferTakes;
use crate::resources::messages::rules::ShownMessage;
use crate::resources::messages::rules::shown_messages;
use crate::resources::points_campaigns::rules::recount_on_what_is_paid;

pub use crate::engine::explanation::Explanation;

/// The target the evaluation logs under: the service's, as the service's
/// log filters name it (`LOYALTY_LOG=info,loyalty=debug`, docs/operating.md).
const LOG_TARGET: &str = "loyalty::engine::evaluate";

/// The outcome of evaluating an event.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evaluation {
    /// Effects, in campaign id order.
    pub effects: Vec<Effect>,
    /// One explanation per campaign of the Company.
    pub explanations: Vec<Explanation>,
    /// The Instant Win draws made, to be stored with the event.
    pub draws: Vec<DrawRecord>,
    /// What the limited discounts and Vouchers that applied take from
    /// their limits, to be checked and counted with the event.
    pub limit_takes: Vec<OfferTakes>,
    /// What the limited points campaigns that applied take from their
    /// limits, to be checked and counted with the event's own record (a
    /// cart's cancellation gives them back).
    pub event_limit_takes: Vec<LimitTake>,
    /// The messages of the campaigns that applied, for the Customer.
    pub messages: Vec<ShownMessage>,
    /// The campaigns whose expressions failed to evaluate.
    pub failures: Vec<CampaignFailure>,
}

/// A campaign whose expression failed to evaluate on an event.
#[derive(Debug, Clone, PartialEq)]
pub struct CampaignFailure {
    /// The campaign.
    pub rule_id: i64,
    /// Where the expression is written (`FILE:LINE`).
    pub at: std::sync::Arc<str>,
    /// What failed, as the explanation says it.
    pub message: String,
}

/// Evaluates every campaign of a Company against one event of type `event`,
/// whose data (cart, Custom Event or trigger) is in `facts`; Instant Wins draw
/// with `draws`. `render` puts translatable text in the response language.
pub fn evaluate(
    engine: &ScriptEngine,
    campaigns: &[Campaign],
    event: &Listens,
    facts: &Facts,
    draws: &mut Draws<'_>,
    render: &dyn Fn(&Text) -> String,
) -> Evaluation {
    let mut evaluation = Evaluation::default();
    let prepared = engine.prepare(facts);
    let mut discount_offers = Vec::new();
    // A span per campaign names what it logs; its time is read and logged
    // at debug level only (disabled, the span costs a flag's read).
    let timed = tracing::enabled!(target: LOG_TARGET, tracing::Level::DEBUG);
    for campaign in campaigns {
        let span = tracing::debug_span!(target: LOG_TARGET, "campaign", id = campaign.id);
        let _in_campaign = span.enter();
        let started = timed.then(std::time::Instant::now);
        let effects_so_far = evaluation.effects.len();
        let outcome = applies(engine, campaign, event, facts, &prepared).and_then(|()| {
            campaign.kind.effects(&mut KindContext {
                engine,
                campaign,
                campaigns,
                facts,
                prepared: &prepared,
                draws,
                render,
                draw_records: &mut evaluation.draws,
                discount_offers: &mut discount_offers,
                event_limit_takes: &mut evaluation.event_limit_takes,
                effects_so_far,
            })
        });
        if let Some(started) = started {
            tracing::debug!(
                target: LOG_TARGET,
                applied = outcome.is_ok(),
                micros = started.elapsed().as_micros() as u64,
                "campaign evaluated"
            );
        }
        match outcome {
            Ok(mut effects) => {
                evaluation.explanations.push(Explanation::applied(campaign));
                evaluation.effects.append(&mut effects);
            }
            Err(why) => {
                if why.failed {
                    evaluation.failures.push(CampaignFailure {
                        rule_id: campaign.id,
                        at: campaign.place_of(why.key),
                        message: why.reason.clone(),
                    });
                }
                evaluation
                    .explanations
                    .push(Explanation::not_applied(campaign, why));
            }
        }
    }
    settle(
        &mut evaluation.effects,
        &mut evaluation.explanations,
        &mut evaluation.limit_takes,
        discount_offers,
        campaigns,
        facts,
        render,
    );
    recount_on_what_is_paid(
        &mut evaluation.effects,
        &mut evaluation.explanations,
        &mut evaluation.event_limit_takes,
        campaigns,
        facts,
    );
    evaluation.messages = shown_messages(
        engine,
        campaigns,
        &evaluation.explanations,
        &prepared,
        &facts.printed_messages,
        &mut evaluation.failures,
    );
    evaluation
}

/// [`evaluate`] with no Instant Win or Challenge state, every draw landing
/// at 0.5 and text in English: what unit tests of the kinds need.
#[cfg(test)]
pub fn evaluate_plainly(campaigns: &[Campaign], event: &Listens, facts: &Facts) -> Evaluation {
    let states = std::collections::HashMap::new();
    let mut random = || 0.5;
    let mut draws = Draws {
        states: &states,
        challenges: &std::collections::HashMap::new(),
        random: &mut random,
        forced: &std::collections::HashMap::new(),
    };
    evaluate(
        &ScriptEngine::new(),
        campaigns,
        event,
        facts,
        &mut draws,
        &|text| text.resolve("en", "en"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use serde_json::json;
    use std::path::PathBuf;

    fn campaign(text: &str) -> Campaign {
        Campaign::parse(&ScriptEngine::new(), &PathBuf::from("demo/c.yaml"), text).unwrap()
    }

    fn cart_facts(now: &str, cart: Value) -> Facts {
        Facts {
            now: now.parse().unwrap(),
            cart,
            customer: json!({"loyalty_member": true}),
            ..Facts::default()
        }
    }

    fn run(campaigns: &[Campaign], event: &Listens, facts: &Facts) -> Evaluation {
        evaluate_plainly(campaigns, event, facts)
    }

    const COFFEE: &str = "id: 101\nkind: discount\nname: Coffee\non: cart\nwhen: hour < 12\ndiscount:\n  applies_to: lines\n  lines: line.product_code == \"COFFEE\"\n  percent: 10\n  max_amount: 0.5\n";
    const POINTS: &str = "id: 201\nkind: points\nname: Points\non: cart\nwhen: customer.loyalty_member\npoints:\n  per_amount: 1\n  per_product: { PASTRY: 5 }\n";
    const WELCOME: &str = "id: 202\nkind: points\nname: Welcome\non: { custom_event: profile_completed }\npoints: { fixed: 50 }\n";

    fn cart() -> Value {
        json!({"total": 12.7, "lines": [
            {"product_code": "COFFEE", "quantity": 2, "price": 1.8},
            {"product_code": "PASTRY", "quantity": 3, "price": 1.5},
            {"product_code": "COFFEE", "quantity": 1, "price": 4.6}
        ]})
    }

    #[test]
    fn discounts_and_points_apply_to_a_morning_cart() {
        let campaigns = [campaign(COFFEE), campaign(POINTS), campaign(WELCOME)];
        let facts = cart_facts("2026-05-04T09:30:00Z", cart());
        let evaluation = run(&campaigns, &Listens::Cart, &facts);
        let values: Vec<(i64, i64, String, Option<i64>)> = evaluation
            .effects
            .iter()
            .map(|e| {
                (
                    e.rule_id(),
                    e.line(),
                    e.discount_value().to_string(),
                    e.points(),
                )
            })
            .collect();
        // 10% of 3.60 and of 4.60 would be 0.36 and 0.46; the 0.50 cap is
        // shared out in proportion: 0.2195… and 0.2804…, the cent left going
        // to the larger remainder.
        assert_eq!(
            values,
            [
                (101, 1, "0.22".to_string(), None),
                (101, 3, "0.28".to_string(), None),
                (201, 0, "0".to_string(), Some(12 + 15))
            ]
        );
        let welcome = &evaluation.explanations[2];
        assert!(!welcome.applied);
        assert_eq!(
            welcome.reason.as_deref(),
            Some("listens to Custom Events of type `profile_completed`")
        );
        assert_eq!(&*welcome.source, "demo/c.yaml:1");
    }

    #[test]
    fn explanations_say_why_a_campaign_did_not_fire() {
        let campaigns = [campaign(COFFEE)];
        let afternoon = cart_facts("2026-05-04T15:00:00Z", cart());
        let evaluation = run(&campaigns, &Listens::Cart, &afternoon);
        assert!(evaluation.effects.is_empty());
        assert_eq!(
            evaluation.explanations[0].reason.as_deref(),
            Some("condition is false: `hour < 12`")
        );

        let no_coffee = cart_facts(
            "2026-05-04T09:00:00Z",
            json!({"total": 3.0, "lines": [{"product_code": "TEA", "quantity": 1, "price": 3.0}]}),
        );
        let evaluation = run(&campaigns, &Listens::Cart, &no_coffee);
        assert!(
            evaluation.explanations[0]
                .reason
                .as_deref()
                .unwrap()
                .starts_with("no line matches")
        );

        let dated = campaign(
            "id: 5\nkind: points\nname: Later\non: cart\navailable_from: 2030-01-01T00:00:00Z\npoints: { fixed: 1 }\n",
        );
        let evaluation = run(&[dated], &Listens::Cart, &no_coffee);
        assert_eq!(
            evaluation.explanations[0].reason.as_deref(),
            Some("not available until 2030-01-01T00:00:00Z")
        );
        assert_eq!(
            evaluation.explanations[0].at.as_deref(),
            Some("demo/c.yaml:5"),
            "the line of available_from"
        );
    }

    #[test]
    fn explained_events_name_the_false_part_its_values_and_where_it_is_written() {
        let weekend = campaign(
            "id: 9\nkind: discount\nname: Weekend\non: cart\nwhen: (weekday == \"saturday\" || weekday == \"sunday\") && cart.total > 40.0\ndiscount:\n  applies_to: cart\n  percent: 5\n",
        );
        // A Saturday cart of 12.70.
        let mut saturday = cart_facts("2026-05-02T10:00:00Z", cart());
        saturday.explain = true;
        let evaluation = run(std::slice::from_ref(&weekend), &Listens::Cart, &saturday);
        let explanation = &evaluation.explanations[0];
        assert_eq!(
            explanation.reason.as_deref(),
            Some("condition is false: `cart.total > 40.0` was false: `cart.total` is 12.7")
        );
        assert_eq!(explanation.at.as_deref(), Some("demo/c.yaml:5:57"));
        assert_eq!(explanation.parts.len(), 1);
        // Unexplained events (the till's) keep the plain reason.
        saturday.explain = false;
        let evaluation = run(&[weekend], &Listens::Cart, &saturday);
        assert!(evaluation.explanations[0].parts.is_empty());
        assert_eq!(
            evaluation.explanations[0].at.as_deref(),
            Some("demo/c.yaml:5")
        );

        let mut no_coffee = cart_facts(
            "2026-05-04T09:00:00Z",
            json!({"total": 3.0, "lines": [{"product_code": "TEA", "quantity": 1, "price": 3.0}]}),
        );
        no_coffee.explain = true;
        let evaluation = run(&[campaign(COFFEE)], &Listens::Cart, &no_coffee);
        assert_eq!(
            evaluation.explanations[0].reason.as_deref(),
            Some(
                "no line matches `line.product_code == \"COFFEE\"`: cart line 1: `line.product_code == \"COFFEE\"` was false: `line.product_code` is \"TEA\""
            )
        );
        assert_eq!(
            evaluation.explanations[0].at.as_deref(),
            Some("demo/c.yaml:8:10")
        );
    }

    #[test]
    fn conditions_see_line_taxonomies_and_features() {
        let organic = campaign(
            "id: 7\nkind: discount\nname: Organic\non: cart\nwhen: cart.lines.some(|l| l.taxonomies.contains(\"coffee\"))\ndiscount:\n  applies_to: lines\n  lines: line.features.organic == \"yes\"\n  amount: 1.0\n",
        );
        let cart = json!({"total": 10.0, "lines": [
            {"product_code": "A", "quantity": 1, "price": 4.0, "taxonomies": ["coffee"], "features": {}},
            {"product_code": "B", "quantity": 1, "price": 6.0, "taxonomies": ["tea"], "features": {"organic": "yes"}}
        ]});
        let evaluation = run(
            &[organic],
            &Listens::Cart,
            &cart_facts("2026-05-04T09:00:00Z", cart),
        );
        let applied: Vec<(i64, String)> = evaluation
            .effects
            .iter()
            .map(|e| (e.line(), e.discount_value().normalize().to_string()))
            .collect();
        assert_eq!(applied, [(2, "1".to_string())]);
    }

    #[test]
    fn custom_events_earn_their_points() {
        let campaigns = [campaign(POINTS), campaign(WELCOME)];
        let facts = Facts {
            event: json!({"type": "profile_completed", "data": {}}),
            ..cart_facts("2026-05-04T09:00:00Z", Value::Null)
        };
        let evaluation = run(
            &campaigns,
            &Listens::CustomEvent("profile_completed".into()),
            &facts,
        );
        assert_eq!(evaluation.effects.len(), 1);
        assert_eq!(evaluation.effects[0].points(), Some(50));
    }

    #[test]
    fn the_demo_campaigns_on_a_weekday_morning_cart() {
        // The shipped campaigns, at the workspace's root: named there as
        // `campaigns/...`, as the service names them.
        let (catalog, report) =
            crate::engine::catalog::Catalog::load(std::path::Path::new("../../campaigns"));
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        let rules = catalog.company("demo");
        let facts = cart_facts("2026-05-04T09:30:00Z", cart());
        let states = std::collections::HashMap::new();
        let mut random = || 0.5;
        let mut draws = Draws {
            states: &states,
            challenges: &std::collections::HashMap::new(),
            random: &mut random,
            forced: &std::collections::HashMap::new(),
        };
        let evaluation = evaluate(
            catalog.engine(),
            &rules.campaigns,
            &Listens::Cart,
            &facts,
            &mut draws,
            &|text| text.resolve("es", "en"),
        );
        let answer = json!({
            "effects": evaluation.effects,
            "explanations": evaluation.explanations,
        })
        .to_string()
        .replace("../../campaigns/", "campaigns/");
        let answer: Value = serde_json::from_str(&answer).unwrap();
        insta::assert_json_snapshot!(answer);
    }
}
