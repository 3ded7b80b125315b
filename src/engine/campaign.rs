//! Campaigns: one YAML file each under `campaigns/<company>/`, compiled into
//! one [`Campaign`] model whose [`CampaignKind`] enum every kind plugs into.
//!
//! ```yaml
//! id: 101                       # unique within the Company; effects report it as rule_id
//! kind: discount                # discount | points (more kinds plug in here)
//! name: { en: 10% off coffee, es: 10% en café }
//! description: Weekday mornings
//! active: true
//! available_from: 2026-01-01T00:00:00Z
//! available_to: 2026-12-31T23:59:59Z
//! on: cart                      # or { custom_event: signup } or { trigger: birthday }
//! when: weekday != "sunday" && cart.total >= 10.0
//! discount:
//!   applies_to: lines           # cart | lines
//!   lines: line.product_code == "COFFEE"
//!   percent: 10                 # or amount: 2.5
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::common::time::Timestamp;
use crate::engine::problems::Problems;
use crate::engine::script::Origin;
use crate::engine::script::RuleError;
use crate::engine::script::Script;
use crate::engine::script::ScriptEngine;
use crate::engine::text::Text;
use crate::resources::instant_wins::rules::InstantWin;
use crate::resources::instant_wins::rules::file::CouponFile;
use crate::resources::instant_wins::rules::file::InstantWinFields;
use crate::resources::instant_wins::rules::file::InstantWinFile;
use crate::resources::points::model::PointsKind;

/// Which events a campaign listens to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listens {
    /// Carts (POST /carts/realtime and /carts/simulate).
    Cart,
    /// Custom Events of this type.
    CustomEvent(String),
    /// Triggers of this type.
    Trigger(String),
    /// No event: the campaign is only given as an Instant Win prize (or, for
    /// Rewards and games, only redeemed or played).
    Prize,
}

/// A discount on the cart or on some of its lines.
#[derive(Debug, Clone)]
pub struct Discount {
    /// Which lines it applies to; `None`: the whole cart.
    pub lines: Option<Script>,
    /// Percentage off (0 < percent ≤ 100), or
    pub percent: Option<f64>,
    /// a fixed amount off.
    pub amount: Option<f64>,
    /// Most the discount may take off.
    pub max_amount: Option<f64>,
}

/// Points earned when the campaign applies.
#[derive(Debug, Clone, Default)]
pub struct PointsAccrual {
    /// Points per currency unit of the cart total (rounded down).
    pub per_amount: Option<f64>,
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
    /// At a fixed instant.
    At(Timestamp),
}

impl Expiry {
    /// The expiry instant of points earned at `earned`.
    pub fn of(self, earned: Timestamp) -> Timestamp {
        match self {
            Expiry::AfterDays(days) => {
                Timestamp::from(earned.as_datetime() + chrono::Duration::days(i64::from(days)))
            }
            Expiry::At(at) => at,
        }
    }
}

/// What a campaign does; one variant per kind.
#[derive(Debug, Clone)]
pub enum CampaignKind {
    /// Money off.
    Discount(Discount),
    /// Points into the wallet.
    Points(PointsAccrual),
    /// A weighted prize draw.
    InstantWin(Box<InstantWin>),
    /// A Reward a Customer can hold (given as a prize).
    Reward,
    /// A game a Customer can be given participations in (given as a prize).
    Game,
}

impl CampaignKind {
    /// The `kind` name in files and effects.
    pub fn name(&self) -> &'static str {
        match self {
            CampaignKind::Discount(_) => "discount",
            CampaignKind::Points(_) => "points",
            CampaignKind::InstantWin(_) => "instant_win",
            CampaignKind::Reward => "reward",
            CampaignKind::Game => "game",
        }
    }
}

/// A compiled campaign.
#[derive(Debug, Clone)]
pub struct Campaign {
    /// Rule id, unique within the Company.
    pub id: i64,
    /// Display name, translatable.
    pub name: Text,
    /// Description, translatable.
    pub description: Option<Text>,
    /// Inactive campaigns never apply.
    pub active: bool,
    /// First instant it applies.
    pub available_from: Option<Timestamp>,
    /// Last instant it applies.
    pub available_to: Option<Timestamp>,
    /// The events it listens to.
    pub listens: Listens,
    /// Its condition; `None`: always.
    pub when: Option<Script>,
    /// What it does.
    pub kind: CampaignKind,
    /// The file it came from and the line of its `id`.
    pub origin: Origin,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CampaignFile {
    id: i64,
    kind: String,
    name: Text,
    #[serde(default)]
    description: Option<Text>,
    #[serde(default = "yes")]
    active: bool,
    #[serde(default)]
    available_from: Option<String>,
    #[serde(default)]
    available_to: Option<String>,
    #[serde(default)]
    on: Option<OnFile>,
    #[serde(default)]
    when: Option<String>,
    #[serde(default)]
    discount: Option<DiscountFile>,
    #[serde(default)]
    points: Option<PointsFile>,
    #[serde(default)]
    select_customers: Option<String>,
    #[serde(default)]
    once: Option<String>,
    #[serde(default)]
    once_limit: Option<i64>,
    #[serde(default)]
    recurrence_type: Option<String>,
    #[serde(default)]
    recurrence_days: Vec<String>,
    #[serde(default)]
    coupon: Option<CouponFile>,
    #[serde(default)]
    locations: Vec<String>,
    #[serde(default)]
    countries: Vec<String>,
    #[serde(default)]
    tiers: Vec<String>,
    #[serde(default)]
    instant_win: Option<InstantWinFile>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OnFile {
    Named(String),
    Typed(BTreeMap<String, String>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DiscountFile {
    applies_to: String,
    #[serde(default)]
    lines: Option<String>,
    #[serde(default)]
    percent: Option<f64>,
    #[serde(default)]
    amount: Option<f64>,
    #[serde(default)]
    max_amount: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PointsFile {
    #[serde(default)]
    per_amount: Option<f64>,
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

fn parse_time(problems: &mut Problems<'_>, key: &str, value: Option<String>) -> Option<Timestamp> {
    let value = value?;
    match value.parse::<Timestamp>() {
        Ok(time) => Some(time),
        Err(_) => {
            problems.at_key(
                key,
                format!("`{value}` is not a DateTime such as 2026-01-31T00:00:00Z"),
            );
            None
        }
    }
}

impl Campaign {
    /// The text of every expression of the campaign.
    pub fn sources(&self) -> impl Iterator<Item = &str> {
        let lines = match &self.kind {
            CampaignKind::Discount(discount) => discount.lines.as_ref(),
            _ => None,
        };
        self.when
            .iter()
            .chain(lines)
            .map(|script| script.source.as_str())
    }

    /// Parses and compiles one campaign file; every problem is reported.
    pub fn parse(
        engine: &ScriptEngine,
        path: &Path,
        text: &str,
    ) -> Result<Campaign, Vec<RuleError>> {
        let file: CampaignFile = serde_yaml::from_str(text).map_err(|e| {
            let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
            vec![RuleError::new(path, line, e.to_string()).with_column(column)]
        })?;
        let mut problems = Problems {
            path,
            text,
            errors: Vec::new(),
        };
        let available_from = parse_time(&mut problems, "available_from", file.available_from);
        let available_to = parse_time(&mut problems, "available_to", file.available_to);
        if let (Some(from), Some(to)) = (available_from, available_to)
            && from > to
        {
            problems.at_key(
                "available_to",
                format!("available_to ({to}) is before available_from ({from})"),
            );
        }
        let listens = match file.on {
            None => Some(Listens::Prize),
            Some(OnFile::Named(name)) if name == "cart" => Some(Listens::Cart),
            Some(OnFile::Typed(map)) if map.len() == 1 => match map.into_iter().next() {
                Some((key, value)) if key == "custom_event" => Some(Listens::CustomEvent(value)),
                Some((key, value)) if key == "trigger" => Some(Listens::Trigger(value)),
                _ => None,
            },
            _ => None,
        };
        if listens.is_none() {
            problems.at_key(
                "on",
                "`on` is `cart`, `{ custom_event: TYPE }` or `{ trigger: TYPE }`",
            );
        }
        let instant_win_fields = InstantWinFields {
            select_customers: file.select_customers,
            once: file.once,
            once_limit: file.once_limit,
            recurrence_type: file.recurrence_type,
            recurrence_days: file.recurrence_days,
            coupon: file.coupon,
            locations: file.locations,
            countries: file.countries,
            tiers: file.tiers,
            instant_win: file.instant_win,
        };
        if file.kind != "instant_win"
            && let Some(key) = instant_win_fields.any()
        {
            problems.at_key(
                key,
                format!("`{key}` belongs to instant_win campaigns only"),
            );
        }
        match (file.kind.as_str(), &listens) {
            ("reward" | "game", Some(listens)) if *listens != Listens::Prize => {
                problems.at_key(
                    "on",
                    format!("a {} listens to no event: remove `on`", file.kind),
                );
            }
            ("discount" | "instant_win", Some(Listens::Prize)) => {
                problems.at_key(
                    "kind",
                    format!(
                        "a {} campaign needs `on`: cart, custom_event or trigger",
                        file.kind
                    ),
                );
            }
            _ => {}
        }
        let compile = |problems: &mut Problems<'_>, key: &str, source: &str, extra: &[&str]| {
            let origin = Origin::locate(path, text, Some(&format!("{key}:")), source);
            engine
                .compile_with(source, origin, extra)
                .map_err(|e| problems.errors.push(e))
                .ok()
        };
        let when = file
            .when
            .as_deref()
            .and_then(|source| compile(&mut problems, "when", source, &[]));
        let kind = match (file.kind.as_str(), file.discount, file.points) {
            ("discount", Some(discount), None) => {
                let lines = match (discount.applies_to.as_str(), discount.lines) {
                    ("cart", None) => None,
                    ("lines", Some(source)) => compile(&mut problems, "lines", &source, &["line"]),
                    ("lines", None) => {
                        problems.at_key(
                            "applies_to",
                            "`applies_to: lines` needs a `lines` condition (it sees `line`)",
                        );
                        None
                    }
                    ("cart", Some(_)) => {
                        problems.at_key("lines", "`lines` is only for `applies_to: lines`");
                        None
                    }
                    (other, _) => {
                        problems.at_key(
                            "applies_to",
                            format!("applies_to is `cart` or `lines`, not `{other}`"),
                        );
                        None
                    }
                };
                match (discount.percent, discount.amount) {
                    (Some(p), None) if p > 0.0 && p <= 100.0 => {}
                    (None, Some(a)) if a > 0.0 => {}
                    (Some(_), None) => {
                        problems.at_key("percent", "percent is more than 0 and at most 100")
                    }
                    (None, Some(_)) => problems.at_key("amount", "amount is more than 0"),
                    _ => problems.at_key(
                        "discount",
                        "a discount has exactly one of `percent` and `amount`",
                    ),
                }
                if discount.max_amount.is_some_and(|m| m <= 0.0) {
                    problems.at_key("max_amount", "max_amount is more than 0");
                }
                Some(CampaignKind::Discount(Discount {
                    lines,
                    percent: discount.percent,
                    amount: discount.amount,
                    max_amount: discount.max_amount,
                }))
            }
            ("points", None, Some(points)) => {
                let nothing = points.per_amount.is_none()
                    && points.per_product.is_empty()
                    && points.fixed.is_none();
                if nothing {
                    problems.at_key(
                        "points",
                        "points needs `per_amount`, `per_product` or `fixed`",
                    );
                }
                if points.per_amount.is_some_and(|p| p <= 0.0)
                    || points.fixed.is_some_and(|f| f <= 0)
                    || points.per_product.values().any(|p| *p <= 0)
                {
                    problems.at_key("points", "points are more than 0");
                }
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
                    (Some(days), None) => Some(Expiry::AfterDays(days)),
                    (None, Some(at)) => {
                        parse_time(&mut problems, "expires_at", Some(at)).map(Expiry::At)
                    }
                    (Some(_), Some(_)) => {
                        problems.at_key(
                            "expires_at",
                            "points expire after `expires_after_days` or at `expires_at`, not both",
                        );
                        None
                    }
                };
                Some(CampaignKind::Points(PointsAccrual {
                    per_amount: points.per_amount,
                    per_product: points.per_product,
                    fixed: points.fixed,
                    kind,
                    expiry,
                }))
            }
            ("instant_win", None, None) => instant_win_fields
                .compile(&mut problems)
                .map(|instant_win| CampaignKind::InstantWin(Box::new(instant_win))),
            ("reward", None, None) => Some(CampaignKind::Reward),
            ("game", None, None) => Some(CampaignKind::Game),
            (kind @ ("discount" | "points"), _, _) => {
                problems.at_key(
                    "kind",
                    format!("a `{kind}` campaign has a `{kind}:` section and no other"),
                );
                None
            }
            (kind @ ("instant_win" | "reward" | "game"), _, _) => {
                problems.at_key(
                    "kind",
                    format!("a `{kind}` campaign has no `discount:` or `points:` section"),
                );
                None
            }
            (other, _, _) => {
                problems.at_key(
                    "kind",
                    format!(
                        "kind `{other}` is not available; use discount, points, instant_win, reward or game"
                    ),
                );
                None
            }
        };
        let origin = Origin::locate(path, text, None, &format!("id: {}", file.id));
        match (problems.errors.is_empty(), listens, kind) {
            (true, Some(listens), Some(kind)) => Ok(Campaign {
                id: file.id,
                name: file.name,
                description: file.description,
                active: file.active,
                available_from,
                available_to,
                listens,
                when,
                kind,
                origin,
            }),
            _ => Err(problems.errors),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn parse(text: &str) -> Result<Campaign, Vec<RuleError>> {
        Campaign::parse(&ScriptEngine::new(), &PathBuf::from("c.yaml"), text)
    }

    const COFFEE: &str = "id: 101\nkind: discount\nname: { en: Coffee, es: Café }\non: cart\nwhen: cart.total >= 10.0\ndiscount:\n  applies_to: lines\n  lines: line.product_code == \"COFFEE\"\n  percent: 10\n";

    #[test]
    fn a_valid_campaign_compiles() {
        let campaign = parse(COFFEE).unwrap();
        assert_eq!(campaign.id, 101);
        assert_eq!(campaign.listens, Listens::Cart);
        assert_eq!(campaign.origin.line, 1);
        assert!(
            matches!(campaign.kind, CampaignKind::Discount(Discount { percent: Some(p), .. }) if p == 10.0)
        );
    }

    #[test]
    fn every_problem_is_reported_with_its_line_and_column() {
        let text = "id: 7\nkind: discount\nname: X\non: { trigger: birthday }\navailable_from: 2026-05-01T00:00:00Z\navailable_to: 2026-04-01T00:00:00Z\nwhen: cart.totl > 1.0 &&\ndiscount:\n  applies_to: cart\n  percent: 150\n";
        let errors = parse(text).unwrap_err();
        let described: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert!(
            described
                .iter()
                .any(|e| e.starts_with("c.yaml:6:") && e.contains("before")),
            "{described:?}"
        );
        assert!(
            described.iter().any(|e| e.starts_with("c.yaml:7:")),
            "{described:?}"
        );
        assert!(
            described
                .iter()
                .any(|e| e.starts_with("c.yaml:10:") && e.contains("percent")),
            "{described:?}"
        );
    }

    #[test]
    fn unknown_keys_and_wrong_types_are_reported_with_line_and_column() {
        let errors =
            parse("id: 1\nkind: points\nname: P\non: cart\npoints:\n  per_amont: 1\n").unwrap_err();
        assert_eq!(
            (errors[0].line, errors[0].column > 0),
            (6, true),
            "{}",
            errors[0]
        );
        let errors =
            parse("id: one\nkind: points\nname: P\non: cart\npoints:\n  fixed: 1\n").unwrap_err();
        assert_eq!(errors[0].line, 1, "{}", errors[0]);
    }

    #[test]
    fn points_name_their_balance_and_expiry() {
        let campaign = parse(
            "id: 1\nkind: points\nname: Cashback\non: cart\npoints:\n  per_amount: 2\n  balance: wallet\n  expires_after_days: 30\n",
        )
        .unwrap();
        let CampaignKind::Points(accrual) = campaign.kind else {
            panic!("not points");
        };
        assert_eq!(accrual.kind, PointsKind::Wallet);
        let earned: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        assert_eq!(
            accrual.expiry.map(|e| e.of(earned).to_string()).as_deref(),
            Some("2026-01-31T00:00:00Z")
        );
        let errors = parse(
            "id: 1\nkind: points\nname: P\non: cart\npoints:\n  fixed: 1\n  balance: gold\n  expires_after_days: 3\n  expires_at: 2026-01-01T00:00:00Z\n",
        )
        .unwrap_err();
        let described: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert!(
            described
                .iter()
                .any(|e| e.starts_with("c.yaml:7:") && e.contains("gold")),
            "{described:?}"
        );
        assert!(
            described
                .iter()
                .any(|e| e.starts_with("c.yaml:9:") && e.contains("not both")),
            "{described:?}"
        );
    }

    #[test]
    fn unknown_kinds_are_refused_clearly() {
        let errors = parse("id: 1\nkind: lottery\nname: P\non: cart\n").unwrap_err();
        assert!(errors[0].message.contains("lottery"), "{}", errors[0]);
    }
}
