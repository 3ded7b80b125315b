//! Points campaigns' rules: the `points:` section of a campaign file, what
//! it compiles to, and the points an event earns by it.

use std::collections::BTreeMap;

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::{Decimal, RoundingStrategy};
use serde::Deserialize;
use serde_json::Value;

use crate::common::locale::CampaignTime;
use crate::common::locale::Locale;
use crate::common::time::Timestamp;
use crate::engine::campaign::Campaign;
use crate::engine::effect::Effect;
use crate::engine::effect::PointsEffect;
use crate::engine::explanation::Explanation;
use crate::engine::facts::Facts;
use crate::engine::kinds::CampaignKind;
use crate::engine::not_applied::NotApplied;
use crate::engine::problems::Problems;
use crate::error::ErrorCode;
use crate::resources::limits::LimitTake;
use crate::resources::limits::Redeeming;
use crate::resources::limits::limit_takes;
use crate::resources::points::model::PerAmountOf;
use crate::resources::points::model::PointsKind;
use crate::resources::points::model::PointsRounding;

/// Points earned when the campaign applies.
#[derive(Debug, Clone, Default)]
pub struct PointsAccrual {
    /// Points per currency unit of the cart total.
    pub per_amount: Option<Decimal>,
    /// Whether `per_amount` counts what the Customer pays: the total less
    /// what this cart's discounts and Vouchers took off.
    pub on_paid: bool,
    /// How per-amount and per-product points are rounded to whole points.
    pub rounding: PointsRounding,
    /// Points per unit of these products (product code → points).
    pub per_product: BTreeMap<String, i64>,
    /// Flat points.
    pub fixed: Option<i64>,
    /// The balance credited: loyalty points (default) or wallet money (cents).
    pub kind: PointsKind,
    /// When the points expire; `None`: never.
    pub expiry: Option<Expiry>,
}

/// When earned points expire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expiry {
    /// This many days after they were earned.
    AfterDays(u32),
    /// At a fixed instant (a wall-clock time is the Company's).
    At(CampaignTime),
}

impl Expiry {
    /// The expiry instant of points earned at `earned` by a Company in
    /// `locale`: calendar days on its clocks, however long each day is.
    pub fn of(self, earned: Timestamp, locale: &Locale) -> Timestamp {
        match self {
            Expiry::AfterDays(days) => {
                Timestamp::from(locale.days_after(earned.as_datetime(), days))
            }
            Expiry::At(at) => at.instant(locale),
        }
    }
}

/// The `points:` section as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointsFile {
    #[serde(default)]
    per_amount: Option<Decimal>,
    #[serde(default)]
    per_amount_of: Option<PerAmountOf>,
    #[serde(default)]
    rounding: PointsRounding,
    #[serde(default)]
    per_product: BTreeMap<String, i64>,
    #[serde(default)]
    fixed: Option<i64>,
    #[serde(default)]
    balance: Option<String>,
    #[serde(default)]
    expires_after_days: Option<u32>,
    #[serde(default)]
    expires_at: Option<String>,
}

impl PointsFile {
    /// The accrual it describes; every problem goes to `problems`.
    pub fn compile(self, problems: &mut Problems<'_>) -> Option<PointsAccrual> {
        let points = self;
        let nothing =
            points.per_amount.is_none() && points.per_product.is_empty() && points.fixed.is_none();
        if nothing {
            problems.at_key(
                "points",
                "points needs `per_amount`, `per_product` or `fixed`",
            );
        }
        if points.per_amount.is_some_and(|p| p <= Decimal::ZERO)
            || points.fixed.is_some_and(|f| f <= 0)
            || points.per_product.values().any(|p| *p <= 0)
        {
            problems.at_key("points", "points are more than 0");
        }
        // Without `per_amount` it counts nothing: `fixed` and `per_product`
        // are the same on any amount.
        let on_paid =
            points.per_amount_of == Some(PerAmountOf::Paid) && points.per_amount.is_some();
        let kind = match points.balance.as_deref() {
            None | Some("points") => PointsKind::Points,
            Some("wallet") => PointsKind::Wallet,
            Some(other) => {
                problems.at_key(
                    "balance",
                    format!("balance is `points` or `wallet`, not `{other}`"),
                );
                PointsKind::Points
            }
        };
        let expiry = match (points.expires_after_days, points.expires_at) {
            (None, None) => None,
            (Some(0), None) => {
                problems.at_key("expires_after_days", "expires_after_days is at least 1");
                None
            }
            (Some(days), None) if days > 3650 => {
                problems.at_key(
                    "expires_after_days",
                    "expires_after_days is at most 3650 (ten years)",
                );
                None
            }
            (Some(days), None) => Some(Expiry::AfterDays(days)),
            (None, Some(at)) => problems.time("expires_at", Some(at)).map(Expiry::At),
            (Some(_), Some(_)) => {
                problems.at_key(
                    "expires_at",
                    "points expire after `expires_after_days` or at `expires_at`, not both",
                );
                None
            }
        };
        Some(PointsAccrual {
            per_amount: points.per_amount,
            on_paid,
            rounding: points.rounding,
            per_product: points.per_product,
            fixed: points.fixed,
            kind,
            expiry,
        })
    }
}

/// `points` to whole points as `rounding` says.
fn whole_points(points: Decimal, rounding: PointsRounding) -> i64 {
    let whole = match rounding {
        PointsRounding::Floor => points.floor(),
        PointsRounding::Nearest => {
            points.round_dp_with_strategy(0, RoundingStrategy::MidpointAwayFromZero)
        }
        PointsRounding::Ceil => points.ceil(),
    };
    whole.to_i64().unwrap_or(if whole.is_sign_negative() {
        i64::MIN
    } else {
        i64::MAX
    })
}

/// The points `accrual` gives for the event in `facts` (0 or more): the
/// exact total times the rate, and each product's exact quantity times its
/// points, each rounded once.
pub fn accrued_points(accrual: &PointsAccrual, facts: &Facts) -> i64 {
    accrued_points_on(accrual, facts, facts.cart_amounts().total)
}

/// [`accrued_points`] with `per_amount` counting `amount`.
fn accrued_points_on(accrual: &PointsAccrual, facts: &Facts, amount: Decimal) -> i64 {
    let mut points = accrual.fixed.unwrap_or(0);
    if let Some(per_amount) = accrual.per_amount {
        let earned = amount.checked_mul(per_amount);
        points = points.saturating_add(earned.map_or(0, |e| whole_points(e, accrual.rounding)));
    }
    if !accrual.per_product.is_empty() {
        let lines = facts
            .cart
            .get("lines")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for (line, quantity) in lines.iter().zip(&facts.cart_amounts().quantities) {
            let code = line
                .get("product_code")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if let Some(per_unit) = accrual.per_product.get(code) {
                let earned = quantity.checked_mul(Decimal::from(*per_unit));
                points =
                    points.saturating_add(earned.map_or(0, |e| whole_points(e, accrual.rounding)));
            }
        }
    }
    points.min(MAX_POINTS_PER_EVENT)
}

/// Most points one campaign gives for one event. With amounts bounded
/// (a cart's total at most 10^10), this keeps every balance exact in any
/// JSON client (below 2^53) for millions of events at the cap.
pub const MAX_POINTS_PER_EVENT: i64 = crate::resources::points::model::MAX_POINTS;

/// The points effect of `campaign` (earning by `accrual`) for the event in
/// `facts`, capped by what its limits leave (`facts.limits`), with what it
/// takes from them pushed on `takes`; the reason when it earns nothing.
pub fn points_effects(
    campaign: &Campaign,
    accrual: &PointsAccrual,
    facts: &Facts,
    rule_name: String,
    takes: &mut Vec<LimitTake>,
) -> Result<Vec<Effect>, NotApplied> {
    let mut points = accrued_points(accrual, facts);
    if points <= 0 {
        return Err(NotApplied::at_key(
            "points",
            "earns no points for this event",
        ));
    }
    // Counted again on what is paid once the offers are settled
    // ([`recount_on_what_is_paid`]); the limits cap it here already.
    if !campaign.limits.is_empty() {
        if let Some(headroom) = facts.limits.get(&campaign.id) {
            if let Some(reason) = headroom.exhausted() {
                return Err(NotApplied::at_key("limits", reason));
            }
            // What is left of the tightest budget is given, not refused.
            if let Some((left, _)) = &headroom.amount {
                points = points.min(left.to_i64().unwrap_or(i64::MAX));
            }
        }
        takes.extend(limit_takes(
            campaign.id,
            &format!("`{rule_name}` (rule {})", campaign.id),
            &campaign.limits,
            &Redeeming::of_facts(facts),
            Decimal::from(points),
            // Another event took the last of a budget since it was read:
            // the pipeline evaluates again on fresh counters.
            ErrorCode::DrawContended,
        ));
    }
    Ok(vec![Effect::Points(PointsEffect {
        rule_id: campaign.id,
        rule_name,
        points,
    })])
}

/// Once the offers are settled: each points campaign whose `per_amount`
/// counts what is paid (`per_amount_of: paid`) earns on the total less
/// what `effects`' discounts and Vouchers took off, at most what it earned
/// on the total (its limits' cap holds), its limit takes (`takes`) moved
/// with it; one that earns nothing then says so in `explanations`.
pub fn recount_on_what_is_paid(
    effects: &mut Vec<Effect>,
    explanations: &mut [Explanation],
    takes: &mut Vec<LimitTake>,
    campaigns: &[Campaign],
    facts: &Facts,
) {
    let taken_off: Decimal = effects.iter().map(Effect::discount_value).sum();
    if taken_off <= Decimal::ZERO {
        return;
    }
    let paid = (facts.cart_amounts().total - taken_off).max(Decimal::ZERO);
    let redeeming = Redeeming::of_facts(facts);
    effects.retain_mut(|effect| {
        let Effect::Points(earned) = effect else {
            return true;
        };
        let Some((campaign, accrual)) = campaigns.iter().find_map(|campaign| match &campaign.kind {
            CampaignKind::Points(accrual) if campaign.id == earned.rule_id && accrual.on_paid => {
                Some((campaign, accrual))
            }
            _ => None,
        }) else {
            return true;
        };
        earned.points = accrued_points_on(accrual, facts, paid).min(earned.points);
        let own = campaign.id.to_string();
        takes.retain(|take| take.key.first() != Some(&own));
        if earned.points <= 0 {
            if let Some(explanation) = explanations.iter_mut().find(|e| e.rule_id == campaign.id) {
                *explanation = Explanation::not_applied(
                    campaign,
                    NotApplied::at_key(
                        "per_amount_of",
                        format!("earns no points on what is paid ({paid}) once the discounts took {taken_off} off"),
                    ),
                );
            }
            return false;
        }
        if !campaign.limits.is_empty() {
            takes.extend(limit_takes(
                campaign.id,
                &format!("`{}` (rule {})", earned.rule_name, campaign.id),
                &campaign.limits,
                &redeeming,
                Decimal::from(earned.points),
                ErrorCode::DrawContended,
            ));
        }
        true
    });
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn accrual(per_amount: &str, rounding: PointsRounding) -> PointsAccrual {
        PointsAccrual {
            per_amount: Some(per_amount.parse().unwrap()),
            rounding,
            ..PointsAccrual::default()
        }
    }

    fn cart(total: f64) -> Facts {
        Facts {
            cart: json!({"total": total, "lines": [{"product_code": "P", "quantity": 0.75, "price": 1}]}),
            ..Facts::default()
        }
    }

    #[test]
    fn points_per_amount_are_rounded_as_the_campaign_says_on_the_exact_amount() {
        // 12.99 × 1, and 19.99 × 100 and 1.1 × 100, which floats make
        // 1998.9999999999998 and 110.00000000000001.
        assert_eq!(
            accrued_points(&accrual("1", PointsRounding::Floor), &cart(12.99)),
            12
        );
        assert_eq!(
            accrued_points(&accrual("1", PointsRounding::Nearest), &cart(12.99)),
            13
        );
        assert_eq!(
            accrued_points(&accrual("1", PointsRounding::Ceil), &cart(12.01)),
            13
        );
        assert_eq!(
            accrued_points(&accrual("10", PointsRounding::Ceil), &cart(0.7)),
            7
        );
        assert_eq!(
            accrued_points(&accrual("1", PointsRounding::Nearest), &cart(12.5)),
            13
        );
        assert_eq!((19.99f64 * 100.0).floor(), 1998.0, "what floats would give");
        assert_eq!((1.1f64 * 100.0).ceil(), 111.0, "what floats would give");
    }

    #[test]
    fn per_product_points_round_the_exact_quantity() {
        let mut per_product = BTreeMap::new();
        per_product.insert("P".to_string(), 10);
        let by_weight = PointsAccrual {
            per_product,
            rounding: PointsRounding::Nearest,
            ..PointsAccrual::default()
        };
        // 0.75 kg × 10 points is 7.5: 8 to the nearest.
        assert_eq!(accrued_points(&by_weight, &cart(1.0)), 8);
    }

    #[test]
    fn the_rounding_is_read_from_the_file() {
        let file: PointsFile =
            serde_yaml::from_str("per_amount: 1.5\nrounding: nearest\n").unwrap();
        assert_eq!(file.rounding, PointsRounding::Nearest);
        assert_eq!(file.per_amount, Some(Decimal::new(15, 1)));
        assert!(serde_yaml::from_str::<PointsFile>("per_amount: 1\nrounding: up\n").is_err());
    }

    #[test]
    fn points_on_what_is_paid_follow_the_discounts_and_move_their_limit_takes() {
        use crate::engine::campaign::Campaign;
        use crate::engine::campaign::Listens;
        use crate::engine::evaluate::evaluate_plainly;
        use crate::engine::script::ScriptEngine;
        let engine = ScriptEngine::new();
        let parse =
            |text: &str| Campaign::parse(&engine, std::path::Path::new("c.yaml"), text).unwrap();
        let campaigns = vec![
            parse(
                "id: 1\nkind: discount\nname: Half\non: cart\ndiscount: { applies_to: cart, percent: 50 }\n",
            ),
            parse(
                "id: 2\nkind: points\nname: Paid\non: cart\npoints: { per_amount: 1, per_amount_of: paid }\nlimits:\n  - { points: 1000 }\n",
            ),
        ];
        let facts = Facts {
            cart: json!({"total": 80.0, "lines": [{"product_code": "P", "quantity": 1, "price": 80.0}]}),
            customer: json!({"id": "c1"}),
            ..Facts::default()
        };
        let evaluation = evaluate_plainly(&campaigns, &Listens::Cart, &facts);
        let points: Vec<i64> = evaluation
            .effects
            .iter()
            .filter_map(Effect::points)
            .collect();
        assert_eq!(points, [40], "{:?}", evaluation.effects);
        let taken: Vec<Decimal> = evaluation
            .event_limit_takes
            .iter()
            .map(|t| t.amount)
            .collect();
        assert_eq!(taken, [Decimal::from(40)]);

        // Nothing paid: no points, and the explanation says why.
        let everything = parse(
            "id: 1\nkind: discount\nname: Free\non: cart\ndiscount: { applies_to: cart, percent: 100 }\n",
        );
        let campaigns = vec![everything, campaigns[1].clone()];
        let evaluation = evaluate_plainly(&campaigns, &Listens::Cart, &facts);
        assert!(evaluation.effects.iter().all(|e| e.points().is_none()));
        assert!(evaluation.event_limit_takes.is_empty());
        let explained = evaluation
            .explanations
            .iter()
            .find(|e| e.rule_id == 2)
            .unwrap();
        assert!(!explained.applied);
        assert!(
            explained
                .reason
                .as_deref()
                .unwrap_or_default()
                .contains("earns no points on what is paid (0"),
            "{explained:?}"
        );
    }
}
