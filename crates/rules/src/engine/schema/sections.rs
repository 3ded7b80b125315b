//! The keys of a campaign file and of each section, as the schema
//! describes them (one `json!` per section, in the file's words).

use serde_json::{Map, Value, json};

use crate::engine::fast::WEEKDAYS;
use crate::engine::schema::{PERIODS, def, figure, one_of, strings, text, whole};
use crate::resources::discounts::rules::Target;

/// The keys and values as an object's map.
fn pairs(entries: Vec<(&str, Value)>) -> Map<String, Value> {
    entries
        .into_iter()
        .map(|(key, value)| (key.to_string(), value))
        .collect()
}

/// A closed object of `properties`, `required` ones among them.
fn section(description: &str, required: &[&str], properties: Value) -> Value {
    json!({
        "type": "object",
        "description": description,
        "additionalProperties": false,
        "required": required,
        "properties": properties,
    })
}

/// The keys at the top of a campaign file.
pub(super) fn top_level() -> Map<String, Value> {
    pairs(vec![
        (
            "id",
            whole("Unique within the Company; reported as rule_id.", 1),
        ),
        ("kind", text("What the campaign does.")),
        (
            "name",
            def("text", "Its name: a text, or one text per language."),
        ),
        (
            "description",
            def("text", "Optional, translatable like name."),
        ),
        (
            "active",
            json!({ "type": "boolean", "description": "Whether it applies (default true)." }),
        ),
        (
            "available_from",
            text(
                "First instant it applies: with an offset (Z, +02:00) that instant; without, the Company's (or Location's) local time.",
            ),
        ),
        (
            "available_to",
            text("Last instant it applies; not before available_from."),
        ),
        (
            "on",
            def(
                "on",
                "The event it listens to: cart, customer_created, customer_enrolled, { custom_event: TYPE } or { trigger: TYPE }.",
            ),
        ),
        (
            "when",
            text(
                "A rhai condition on the facts (cart, customer, tier, history, ...); absent: always.",
            ),
        ),
        (
            "locations",
            strings(
                "The Locations it runs at: codes, aliases, ids or taxonomy:feature; empty: everywhere.",
            ),
        ),
        (
            "recurrence_type",
            one_of(
                &["daily", "weekly"],
                "The days it runs: daily, or weekly on recurrence_days.",
            ),
        ),
        (
            "recurrence_days",
            json!({ "type": "array", "items": { "enum": WEEKDAYS }, "description": "The local days it runs (weekly)." }),
        ),
        (
            "hours",
            json!({ "type": "string", "pattern": "^\\s*\\d{2}:\\d{2}\\s*-\\s*\\d{2}:\\d{2}\\s*$", "description": "The local hours it runs, \"08:00-12:00\": from (included) to (excluded); \"22:00-02:00\" spans midnight." }),
        ),
        (
            "tiers",
            strings("The tiers (segments.yaml ids) it is for; empty: every Customer."),
        ),
        (
            "countries",
            json!({ "type": "array", "items": { "type": "string", "pattern": "^[A-Za-z]{2}$" }, "description": "Two-letter country codes: the event's Location's country, else the Customer's." }),
        ),
        (
            "stacking",
            def(
                "stacking",
                "How a discount or Coupon shares a cart with other offers.",
            ),
        ),
        (
            "limits",
            json!({ "type": "array", "items": { "$ref": "#/$defs/limit" }, "description": "Budgets and caps of a discount, Coupon or points campaign." }),
        ),
        (
            "messages",
            json!({ "type": "array", "items": { "$ref": "#/$defs/message" }, "description": "What it shows the Customer when it applies." }),
        ),
    ])
}

/// The sections and shared shapes (`$defs`).
pub(super) fn definitions() -> Map<String, Value> {
    pairs(vec![
        (
            "text",
            json!({
                "description": "A text, or one text per language ({ en: ..., es: ... }).",
                "anyOf": [
                    { "type": "string" },
                    { "type": "object", "additionalProperties": { "type": "string" } }
                ]
            }),
        ),
        (
            "on",
            json!({
                "anyOf": [
                    { "enum": ["cart", "customer_created", "customer_enrolled"] },
                    { "type": "object", "additionalProperties": false, "minProperties": 1, "maxProperties": 1,
                      "properties": { "custom_event": { "type": "string" }, "trigger": { "type": "string" } } }
                ]
            }),
        ),
        (
            "discount",
            section(
                "Money off a cart.",
                &["applies_to"],
                json!({
                    "applies_to": one_of(&Target::NAMES, "What it is given on: the cart, each matching line, every nth unit, the cheapest units, a bundle or a set."),
                    "lines": text("A rhai condition on `line`: the lines it applies to (lines), or whose units it counts; not for cart or bundle."),
                    "percent": figure("A percentage (more than 0, at most 100), or an expression."),
                    "amount": figure("A fixed amount, or an expression."),
                    "price": { "type": "number", "minimum": 0, "description": "every_nth, cheapest, bundle, set: what each unit (each set) costs." },
                    "max_amount": { "type": "number", "exclusiveMinimum": 0, "description": "Most it takes off one cart." },
                    "nth": whole("every_nth: every this many units (2 or more).", 2),
                    "max_units": whole("every_nth: most units discounted in one cart (3 for 2, at most 2 free).", 1),
                    "units": whole("cheapest: how many of the cheapest units (default 1).", 1),
                    "min_units": whole("cheapest: units the cart must hold (default units + 1).", 2),
                    "bundle": { "type": "array", "minItems": 2, "maxItems": 100, "items": { "type": "string" }, "description": "bundle: a rhai line condition per part; a set takes one unit of each." },
                    "size": { "type": "integer", "minimum": 2, "maximum": 100, "description": "set: units per set." },
                    "max_sets": whole("bundle, set: most sets per cart.", 1),
                }),
            ),
        ),
        (
            "points",
            section(
                "Points or wallet money earned.",
                &[],
                json!({
                    "per_amount": { "type": "number", "exclusiveMinimum": 0, "description": "Points per unit of money spent." },
                    "per_amount_of": one_of(&["total", "paid"], "What per_amount counts: the cart's total (default), or what is paid after this cart's discounts and Vouchers."),
                    "rounding": one_of(&["floor", "nearest", "ceil"], "How per_amount rounds to whole points (default floor)."),
                    "per_product": { "type": "object", "additionalProperties": { "type": "integer" }, "description": "Points per unit of each product code." },
                    "fixed": { "type": "integer", "description": "Points per event." },
                    "balance": one_of(&["points", "wallet"], "The balance credited (default points)."),
                    "expires_after_days": json!({ "type": "integer", "minimum": 1, "maximum": 3650, "description": "Days until the points expire (at most ten years)." }),
                    "expires_at": text("When the points expire."),
                }),
            ),
        ),
        (
            "stacking",
            section(
                "How the offer shares a cart.",
                &[],
                json!({
                    "priority": { "type": "integer", "description": "Higher first; wins conflicts (default 0)." },
                    "group": text("The group other offers name in combines_with."),
                    "combines_with": strings("The groups it may share a cart with (absent: any offer)."),
                    "excludes": strings("The groups it never shares a cart with; offers of other groups or none still may."),
                    "exclusive": { "type": "boolean", "description": "Shares a cart with no other offer." },
                    "base": one_of(&["original", "discounted"], "A percentage of the shelf price, or of what the offers before it left."),
                    "max_per_cart": whole("Coupons: most of its Vouchers one cart uses.", 1),
                }),
            ),
        ),
        (
            "limit",
            section(
                "One budget or cap: at least one of redemptions and amount (a discount or Coupon) or points (a points campaign).",
                &[],
                json!({
                    "redemptions": whole("Most redemptions (for a points campaign, events credited).", 1),
                    "amount": { "type": "number", "exclusiveMinimum": 0, "description": "A discount or Coupon: most money given." },
                    "points": whole("A points campaign: most points given (wallet cents for a wallet campaign).", 1),
                    "per": one_of(&["day", "week", "month", "year"], "The period it counts over (absent: ever)."),
                    "each": one_of(&["location", "customer"], "Counted for each Location or Customer (absent: the Company)."),
                }),
            ),
        ),
        (
            "coupon",
            section(
                "A Coupon: its discount and its Vouchers.",
                &[],
                json!({
                    "id": whole("Instant Win (targeted): the Coupon's id.", 1),
                    "name": def("text", "Instant Win (targeted): the Coupon's name."),
                    "static_code": text("One code every Customer uses, instead of issued Vouchers."),
                    "discount": section("What a Voucher takes off the lines it applies to: one of percent and amount.", &[], json!({
                        "percent": { "type": "number", "exclusiveMinimum": 0, "maximum": 100, "description": "A percentage." },
                        "amount": { "type": "number", "exclusiveMinimum": 0, "description": "A fixed amount." },
                        "max_amount": { "type": "number", "exclusiveMinimum": 0, "description": "Most it takes off one cart." },
                    })),
                    "code_pattern": text("Issued codes: # drawn from charset (default LOY-####-####)."),
                    "charset": text("The characters # is drawn from."),
                    "excluded_products": strings("Product codes its Vouchers never discount."),
                    "excluded_categories": strings("Categories its Vouchers never discount."),
                    "uses_per_voucher": whole("Uses of one Voucher.", 1),
                    "issues_per_customer": whole("Most Vouchers one Customer is issued.", 1),
                    "valid_days": json!({ "type": "integer", "minimum": 1, "maximum": 3650, "description": "Days each Voucher can be used from its issue (not with static_code; at most ten years)." }),
                    "weekdays": { "type": "array", "items": { "enum": WEEKDAYS }, "description": "The days its Vouchers can be used." },
                    "hours": section("The hours its Vouchers can be used.", &["from", "to"], json!({
                        "from": text("HH:MM"), "to": text("HH:MM")
                    })),
                }),
            ),
        ),
        (
            "instant_win",
            section(
                "The prizes.",
                &["instant_win_prizes"],
                json!({
                    "instant_win_prizes": { "type": "array", "items": { "$ref": "#/$defs/prize" }, "description": "The prizes, the No Prize entry included; weights sum to 1." }
                }),
            ),
        ),
        (
            "prize",
            section(
                "One prize, or the No Prize entry.",
                &["id", "name", "weight"],
                json!({
                    "id": text("Unique within the campaign."),
                    "name": def("text", "Its name."),
                    "description": def("text", "Optional."),
                    "outcome": section("What it gives; empty: No Prize.", &[], json!({
                        "promotion_type": one_of(&["", "points", "reward", "game"], "What the prize is."),
                        "promotion_id": whole("The points campaign, Reward or game it gives.", 1),
                    })),
                    "weight": { "type": "number", "minimum": 0, "maximum": 1, "description": "Its probability, a fraction of 1." },
                    "stock": whole("Units in total; -1 (default) is unlimited.", -1),
                    "stock_management_strategy": one_of(&["remove_prize", "keep_probabilities"], "When it runs out (default remove_prize)."),
                }),
            ),
        ),
        (
            "voucher",
            section(
                "The Coupon whose Voucher the event earns.",
                &["coupon"],
                json!({
                    "coupon": whole("The Coupon's id.", 1),
                }),
            ),
        ),
        (
            "reward_limit",
            section(
                "Most redemptions per Customer.",
                &["count", "per"],
                json!({
                    "count": whole("Redemptions.", 1),
                    "per": one_of(&PERIODS, "The period."),
                }),
            ),
        ),
        (
            "gives",
            section(
                "What a redemption gives.",
                &[],
                json!({
                    "voucher": section("A Voucher of a Coupon.", &["coupon"], json!({ "coupon": whole("The Coupon's id.", 1) })),
                    "points": whole("Points (or wallet cents) credited.", 1),
                    "balance": one_of(&["points", "wallet"], "The balance credited."),
                    "game": whole("A participation in this game.", 1),
                    "item": text("A physical item handed over at the till."),
                }),
            ),
        ),
        (
            "goal",
            section(
                "What completes a Challenge.",
                &[],
                json!({
                    "count": whole("Events that count.", 1),
                    "sum": text("A rhai expression summed over the events that count."),
                    "target": { "type": "number", "exclusiveMinimum": 0, "description": "The sum to reach." },
                    "streak": section("Days or weeks in a row with an event.", &[], json!({
                        "days": whole("Days in a row.", 1),
                        "weeks": whole("Weeks in a row.", 1),
                    })),
                    "grace_days": whole("Gaps a day streak survives.", 0),
                    "per_period": one_of(&["day", "week", "month", "year"], "Groups events by sub-period."),
                    "consecutive": whole("Sub-periods in a row.", 1),
                    "max_count_per_period": whole("Only the first K events of each sub-period count.", 1),
                    "window": section("A rolling window.", &["days"], json!({ "days": whole("Days.", 1) })),
                }),
            ),
        ),
        (
            "challenge_reward",
            section(
                "What completing a Challenge gives.",
                &[],
                json!({
                    "points": whole("Points.", 1),
                    "reward": whole("A Reward's id.", 1),
                    "coupon": whole("A Coupon's id (a Voucher).", 1),
                    "game": whole("A game's id (a participation).", 1),
                }),
            ),
        ),
        (
            "message",
            section(
                "A message shown when the campaign applies.",
                &["key", "text"],
                json!({
                    "key": text("Unique within the campaign."),
                    "text": def("text", "The message; {placeholders} are filled in."),
                    "when": text("A rhai condition; absent: always."),
                    "once": { "type": "boolean", "description": "Shown once per Customer." },
                    "channel": one_of(&["receipt", "app", "any"], "Where it is shown (default any)."),
                }),
            ),
        ),
    ])
}
