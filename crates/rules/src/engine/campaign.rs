//! Campaigns: one YAML file each under `campaigns/<company>/`, compiled into
//! one [`Campaign`] model; what it does is its
//! [`crate::engine::kinds::CampaignKind`], where every kind plugs in.
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

use std::path::Path;

use crate::common::locale::CampaignTime;
use crate::engine::campaign_file::CampaignFile;
use crate::engine::check::Known;
use crate::engine::check::check_campaign;
use crate::engine::kinds::CampaignKind;
pub use crate::engine::listens::Listens;
use crate::engine::listens::check_listens;
use crate::engine::listens::listens_of;
use crate::engine::problems::Problems;
use crate::engine::reach::Reach;
use crate::engine::reach::ReachFields;
use crate::engine::script::Origin;
use crate::engine::script::RuleError;
use crate::engine::script::Script;
use crate::engine::script::ScriptEngine;
use crate::engine::text::Text;
use crate::engine::yaml::read_yaml;
use crate::resources::discounts::stacking::Stacking;
use crate::resources::limits::OfferLimit;
use crate::resources::limits::compile_limits;
use crate::resources::messages::rules::Message;
use crate::resources::messages::rules::compile_messages;

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
    /// First instant it applies (a wall-clock time is the Company's).
    pub available_from: Option<CampaignTime>,
    /// Last instant it applies (a wall-clock time is the Company's).
    pub available_to: Option<CampaignTime>,
    /// The events it listens to.
    pub listens: Listens,
    /// Its condition; `None`: always.
    pub when: Option<Script>,
    /// What it does.
    pub kind: CampaignKind,
    /// How it shares a cart with other discounts and Vouchers.
    pub stacking: Stacking,
    /// Its budgets and caps (discounts and Coupons).
    pub limits: Vec<OfferLimit>,
    /// The file it came from and the line of its `id`.
    pub origin: Origin,
    /// `file:line` where it is defined, as explanations name it.
    pub source: std::sync::Arc<str>,
    /// What it shows the Customer when it applies (`messages:`).
    pub messages: Vec<Message>,
    /// The Locations it runs at (codes, aliases, ids or
    /// `taxonomy:feature`); empty: everywhere. A Coupon's are where its
    /// Vouchers can be used, checked with them.
    pub locations: Vec<String>,
    /// Its days, hours, tiers and countries.
    pub reach: Reach,
    /// The line and `file:line` of each key an explanation may point at,
    /// when written.
    pub key_places: Vec<(&'static str, usize, std::sync::Arc<str>)>,
}

/// The keys of a campaign file an explanation may point at.
const EXPLAINED_KEYS: [&str; 24] = [
    "active",
    "available_from",
    "available_to",
    "on",
    "when",
    "locations",
    "lines",
    "stacking",
    "limits",
    "tiers",
    "countries",
    "recurrence_days",
    "recurrence_type",
    "hours",
    "once_limit",
    "points",
    "goal",
    "points_cost_by_tier",
    "percent",
    "amount",
    "nth",
    "min_units",
    "bundle",
    "size",
];

impl Campaign {
    /// Every expression of the campaign.
    pub fn scripts(&self) -> impl Iterator<Item = &Script> {
        self.when
            .iter()
            .chain(self.kind.expressions())
            .chain(self.messages.iter().filter_map(|m| m.when.as_ref()))
    }

    /// `file:line` of `key` in the campaign's file; where the campaign is
    /// defined (its `id:`) when the key is not written.
    pub fn place_of(&self, key: Option<&str>) -> std::sync::Arc<str> {
        key.and_then(|key| {
            self.key_places
                .iter()
                .find(|(written, ..)| *written == key)
                .map(|(.., place)| place.clone())
        })
        .unwrap_or_else(|| self.source.clone())
    }

    /// The line of `key` in the campaign's file; its `id:` line when the
    /// key is not written.
    pub fn line_of(&self, key: &str) -> usize {
        self.key_places
            .iter()
            .find(|(written, ..)| *written == key)
            .map_or(self.origin.line, |(_, line, _)| *line)
    }

    /// The text of every expression of the campaign.
    pub fn sources(&self) -> impl Iterator<Item = &str> {
        self.scripts().map(|script| script.source.as_str())
    }

    /// Parses and compiles one campaign file; every problem is reported.
    pub fn parse(
        engine: &ScriptEngine,
        path: &Path,
        text: &str,
    ) -> Result<Campaign, Vec<RuleError>> {
        Campaign::parse_checked(engine, path, text, None)
    }

    /// [`Campaign::parse`], with its conditions and the tiers it names
    /// checked against what its Company's files define (`engine::check`).
    pub fn parse_checked(
        engine: &ScriptEngine,
        path: &Path,
        text: &str,
        known: Option<&Known>,
    ) -> Result<Campaign, Vec<RuleError>> {
        // Every unknown key is a problem; the file's other problems are
        // still looked for.
        let (file, unknown_keys) = read_yaml::<CampaignFile>(path, text);
        let Some(mut file) = file else {
            return Err(unknown_keys);
        };
        let mut problems = Problems {
            path,
            text,
            errors: unknown_keys,
        };
        let compile = |problems: &mut Problems<'_>, key: &str, source: &str, extra: &[&str]| {
            let origin = Origin::locate(path, text, Some(&format!("{key}:")), source);
            engine
                .compile_with(source, origin, extra)
                .map_err(|e| problems.errors.push(e))
                .ok()
        };
        // The kind first: it takes its own keys out of the file (a
        // Coupon's `locations` are where its Vouchers can be used).
        let kind = CampaignKind::compile(&mut file, &mut problems, &compile);
        let available_from = problems.time("available_from", file.available_from);
        let available_to = problems.time("available_to", file.available_to);
        // Told apart on UTC clocks: a Company's offset shifts both alike
        // unless only one of them has an offset, which is rare and harmless.
        let utc = crate::common::locale::Locale::default();
        if let (Some(from), Some(to)) = (
            available_from.map(|t| t.instant(&utc)),
            available_to.map(|t| t.instant(&utc)),
        ) && from > to
        {
            problems.at_key(
                "available_to",
                format!("available_to ({to}) is before available_from ({from})"),
            );
        }
        let listens = listens_of(file.on, &mut problems);
        // Every kind may run at some Locations only.
        let locations = file.locations;
        // Days, hours, tiers and countries are every kind's.
        let reach = ReachFields {
            recurrence_type: file.recurrence_type,
            recurrence_days: file.recurrence_days,
            hours: file.hours,
            tiers: file.tiers,
            countries: file.countries,
        }
        .compile(&mut problems);
        check_listens(&file.kind, listens.as_ref(), &mut problems);
        let when = file
            .when
            .as_deref()
            .and_then(|source| compile(&mut problems, "when", source, &[]));
        let stacking = match file.stacking {
            Some(section) => section.compile(&file.kind, &mut problems),
            None => Stacking::of_kind(&file.kind),
        };
        let limits = compile_limits(file.limits, &file.kind, listens.as_ref(), &mut problems);
        let messages = compile_messages(file.messages, file.id, &mut problems, &compile);
        let origin = Origin::locate(path, text, None, &format!("id: {}", file.id));
        let key_places = EXPLAINED_KEYS
            .iter()
            .filter_map(|key| match problems.line_of(key) {
                0 => None,
                line => Some((*key, line, format!("{}:{line}", path.display()).into())),
            })
            .collect();
        let campaign = match (listens, kind) {
            (Some(listens), Some(kind)) => Some(Campaign {
                // A game listens to its own plays.
                listens: if matches!(kind, CampaignKind::Game(_)) {
                    Listens::Play(file.id)
                } else {
                    listens
                },
                id: file.id,
                name: file.name,
                description: file.description,
                active: file.active,
                available_from,
                available_to,
                when,
                kind,
                stacking,
                limits,
                source: format!("{}:{}", origin.file.display(), origin.line).into(),
                origin,
                messages,
                locations,
                reach,
                key_places,
            }),
            _ => None,
        };
        // What only the Company's other files tell (its tiers, audiences),
        // checked even when the file has other problems: every problem is
        // reported in one run.
        if let (Some(campaign), Some(known)) = (&campaign, known) {
            problems
                .errors
                .extend(check_campaign(campaign, known, engine.functions()));
        }
        match campaign {
            Some(campaign) if problems.errors.is_empty() => Ok(campaign),
            _ => {
                let mut errors = problems.errors;
                errors.sort_by_key(|error| (error.line, error.column));
                Err(errors)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::discounts::rules::Discount;
    use crate::resources::discounts::rules::Off;
    use crate::resources::points::model::PointsKind;
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
            matches!(&campaign.kind, CampaignKind::Discount(discount) if matches!(&**discount, Discount { off: Off::Percent(figure), .. } if figure.number() == Some(rust_decimal::Decimal::TEN)))
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
    fn a_discount_listening_to_an_event_with_no_cart_is_refused_at_its_on() {
        for on in ["{ trigger: birthday }", "{ custom_event: app_open }"] {
            let text = format!(
                "id: 7\nkind: discount\nname: X\non: {on}\ndiscount:\n  applies_to: cart\n  percent: 10\n"
            );
            let errors = parse(&text).unwrap_err();
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert_eq!(errors[0].line, 4, "{errors:?}");
            assert!(errors[0].to_string().contains("on: cart"), "{errors:?}");
        }
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
    fn every_unknown_key_and_every_other_problem_of_a_file_is_reported_at_once() {
        let errors = parse(
            "id: 1\nkind: points\nname: P\non: cart\nwehn: hour < 12\nwhen: nope > 1\npoints:\n  per_amont: 1\n  fixed: 1\nstock: 5\n",
        )
        .unwrap_err();
        let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, [5, 6, 8, 10], "in the file's order: {errors:?}");
        assert!(errors[0].message.contains("wehn"), "{}", errors[0]);
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
        let earned: crate::common::time::Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        assert_eq!(
            accrual
                .expiry
                .map(|e| e.of(earned, &Default::default()).to_string())
                .as_deref(),
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
