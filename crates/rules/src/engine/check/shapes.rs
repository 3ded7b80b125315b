//! The shape of every fact a condition reads, as far as it is known: which
//! fields a record has, which are numbers or text, and which text can only
//! be one of a few values (weekdays, the Company's tier and audience ids).
//! Written to match what the pipeline puts in the facts
//! (`engine::facts`, `resources::master_data::enrich`) and documented in
//! campaigns/README.md ("What expressions see"); maps whose keys authors
//! choose (`customer.attributes`, `event.data`) are open.

/// What a fact (or an expression) is known to be.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Nothing is known: no check.
    Any,
    /// `true` or `false`.
    Bool,
    /// An integer or a decimal number.
    Number,
    /// Text of any value.
    Text,
    /// Text that is one of `values` (or `()`), named `what` in messages
    /// (`a weekday`, `a tier of this Company`).
    OneOf(&'static str, Vec<String>),
    /// `()`.
    Nothing,
    /// A list of elements of one shape.
    List(Box<Shape>),
    /// A record of these fields only, named in messages.
    Record(Vec<(String, Shape)>),
    /// A map whose keys authors choose, its values of one shape.
    Map(Box<Shape>),
    /// The purchase history (`history.spent_last_days(n)`, ...).
    History,
}

impl Shape {
    /// How a message names a value of this shape.
    pub fn noun(&self) -> &'static str {
        match self {
            Shape::Any => "a value",
            Shape::Bool => "true or false",
            Shape::Number => "a number",
            Shape::Text | Shape::OneOf(..) => "text",
            Shape::Nothing => "()",
            Shape::List(_) => "a list",
            Shape::Record(_) | Shape::Map(_) => "a map",
            Shape::History => "the purchase history",
        }
    }
}

use crate::engine::fast::WEEKDAYS;

/// What the Company's files define that facts can hold.
#[derive(Debug, Clone, Default)]
pub struct Known {
    /// Tier ids (`segments.yaml`).
    pub tiers: Vec<String>,
    /// Audience ids (`segments.yaml`).
    pub audiences: Vec<String>,
    /// Calculated attribute ids (`segments.yaml`).
    pub attributes: Vec<String>,
}

fn record(fields: &[(&str, Shape)]) -> Shape {
    Shape::Record(
        fields
            .iter()
            .map(|(name, shape)| (name.to_string(), shape.clone()))
            .collect(),
    )
}

fn list(of: Shape) -> Shape {
    Shape::List(Box::new(of))
}

fn map(of: Shape) -> Shape {
    Shape::Map(Box::new(of))
}

/// A catalogue record's features: taxonomy to feature slug.
fn features() -> Shape {
    map(Shape::Text)
}

/// Features with every feature above them: taxonomy to slugs.
fn facets() -> Shape {
    map(list(Shape::Text))
}

/// The Customer as the API returns it.
fn customer() -> Shape {
    use Shape::{Bool, Text};
    record(&[
        ("id", Text),
        ("code", Text),
        ("email", Text),
        ("phone", Text),
        ("first_name", Text),
        ("last_name", Text),
        ("birth_date", Text),
        ("gender", Text),
        ("language", Text),
        ("country", Text),
        ("postal_code", Text),
        ("active", Bool),
        ("loyalty_member", Bool),
        ("enrolled_at", Text),
        (
            "consents",
            record(&[
                ("terms", Bool),
                ("marketing_email", Bool),
                ("marketing_sms", Bool),
                ("marketing_push", Bool),
                ("recorded_at", Text),
            ]),
        ),
        (
            "cards",
            list(record(&[
                ("number", Text),
                ("kind", Text),
                ("created_at", Text),
            ])),
        ),
        ("attributes", map(Shape::Any)),
        ("anonymized_at", Text),
        ("merged_into", Text),
        ("created_at", Text),
        ("updated_at", Text),
    ])
}

/// A Product as the catalogue gives it to a line (`line.product`).
fn product() -> Shape {
    use Shape::{Bool, Number, Text};
    record(&[
        ("id", Text),
        ("code", Text),
        ("name", Text),
        ("names", map(Text)),
        ("price", Number),
        ("features", features()),
        ("facets", facets()),
        ("aliases", list(Text)),
        ("discountable", Bool),
        ("attributes", map(Shape::Any)),
    ])
}

/// A cart line, as sent and completed from the catalogue.
pub fn line() -> Shape {
    use Shape::{Bool, Number, Text};
    record(&[
        ("product_code", Text),
        ("quantity", Number),
        ("price", Number),
        ("discount", Number),
        ("taxonomies", list(Text)),
        ("features", features()),
        ("facets", facets()),
        ("product", product()),
        ("discountable", Bool),
    ])
}

/// The cart of a cart event.
fn cart() -> Shape {
    use Shape::{Number, Text};
    record(&[
        ("code", Text),
        ("total", Number),
        ("lines", list(line())),
        ("location_code", Text),
        ("coupons_desired", list(Text)),
        ("date", Text),
    ])
}

/// A Custom Event, trigger or game play.
fn event() -> Shape {
    use Shape::Text;
    record(&[
        ("id", Text),
        ("type", Text),
        ("data", map(Shape::Any)),
        ("coupons_desired", list(Text)),
        ("date", Text),
    ])
}

/// The event's Location.
fn location() -> Shape {
    use Shape::{Bool, Text};
    record(&[
        ("id", Text),
        ("code", Text),
        ("name", Text),
        ("country", Text),
        ("time_zone", Text),
        ("address", map(Shape::Any)),
        ("coordinates", map(Shape::Any)),
        ("features", features()),
        ("facets", facets()),
        ("discountable", Bool),
        ("attributes", map(Shape::Any)),
    ])
}

impl Known {
    /// The shape of the variable `name` (`line` included: a condition that
    /// may not read it fails to compile).
    pub fn variable(&self, name: &str) -> Shape {
        use Shape::{Number, Text};
        match name {
            "customer" => customer(),
            "cart" => cart(),
            "line" => line(),
            "event" | "trigger" => event(),
            "location" => location(),
            "tier" => Shape::OneOf("a tier of this Company", self.tiers.clone()),
            "audiences" => list(Shape::OneOf(
                "an audience of this Company",
                self.audiences.clone(),
            )),
            "associates" => list(record(&[("id", Text), ("type", Text)])),
            "calculated" => Shape::Record(
                self.attributes
                    .iter()
                    .map(|id| (id.clone(), Shape::Any))
                    .collect(),
            ),
            "lifetime_spend" | "cart_count" | "points_balance" | "hour" => Number,
            "weekday" => Shape::OneOf(
                "a weekday",
                WEEKDAYS.iter().map(ToString::to_string).collect(),
            ),
            "date" | "now" | "last_purchase_date" => Text,
            "history" => Shape::History,
            _ => Shape::Any,
        }
    }
}
