//! A fast path for the commonest conditions: comparisons of facts with
//! literals, joined by `&&`, `||` and `!`, with `.len()`, `.contains(...)`
//! and `in`. Such an expression is compiled once from rhai's own syntax tree
//! into a [`FastExpr`] that reads the event's JSON facts directly, without
//! converting them into rhai values or going through rhai's function table.
//!
//! It gives the same answer as rhai or none at all: whenever it meets a case
//! whose rhai semantics it does not reproduce exactly (arithmetic, an
//! unexpected type, a function it does not know), evaluation returns `None`
//! and the caller asks rhai. `fast_properties` checks the equivalence on
//! random facts.

use rhai::{AST, Expr, FnCallExpr, Stmt};
use serde_json::{Map, Value};

use crate::engine::facts::Facts;
use crate::resources::master_data::enrich::FACETS;

/// A variable a fast expression reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    Customer,
    Cart,
    Event,
    Trigger,
    Tier,
    Location,
    Line,
    LifetimeSpend,
    CartCount,
    PointsBalance,
    Hour,
    Weekday,
    Date,
    Now,
    LastPurchaseDate,
    Audiences,
    Associates,
    Calculated,
}

impl Var {
    fn named(name: &str) -> Option<Var> {
        Some(match name {
            "customer" => Var::Customer,
            "cart" => Var::Cart,
            "event" => Var::Event,
            "trigger" => Var::Trigger,
            "tier" => Var::Tier,
            "location" => Var::Location,
            "line" => Var::Line,
            "lifetime_spend" => Var::LifetimeSpend,
            "cart_count" => Var::CartCount,
            "points_balance" => Var::PointsBalance,
            "hour" => Var::Hour,
            "weekday" => Var::Weekday,
            "date" => Var::Date,
            "now" => Var::Now,
            "last_purchase_date" => Var::LastPurchaseDate,
            "audiences" => Var::Audiences,
            "associates" => Var::Associates,
            "calculated" => Var::Calculated,
            // `history` is a native type with methods: left to rhai.
            _ => return None,
        })
    }
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    Equal,
    NotEqual,
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
}

/// A compiled fast expression.
#[derive(Debug, Clone, PartialEq)]
pub enum FastExpr {
    /// `()`.
    Unit,
    /// A boolean literal.
    Bool(bool),
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// A string literal.
    Str(String),
    /// A variable.
    Var(Var),
    /// `target.name`.
    Property(Box<FastExpr>, String),
    /// `target.len()`.
    Len(Box<FastExpr>),
    /// `haystack.contains(needle)` and `needle in haystack`.
    Contains(Box<FastExpr>, Box<FastExpr>),
    /// `record.has_feature("taxonomy", "feature")` on a line or `location`.
    HasFeature(Box<FastExpr>, String, String),
    /// `a == b` and the other comparisons.
    Compare(Comparison, Box<FastExpr>, Box<FastExpr>),
    /// `!a`.
    Not(Box<FastExpr>),
    /// `a && b && ...`.
    And(Vec<FastExpr>),
    /// `a || b || ...`.
    Or(Vec<FastExpr>),
}

/// A value while evaluating: borrowed from the facts where possible.
#[derive(Debug, Clone, Copy)]
enum Val<'a> {
    Unit,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'a str),
    Array(&'a [Value]),
    Map(&'a Map<String, Value>),
}

impl<'a> Val<'a> {
    fn of(value: &'a Value) -> Val<'a> {
        match value {
            Value::Null => Val::Unit,
            Value::Bool(flag) => Val::Bool(*flag),
            Value::Number(number) => match number.as_i64() {
                Some(int) => Val::Int(int),
                None => Val::Float(number.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(text) => Val::Str(text),
            Value::Array(items) => Val::Array(items),
            Value::Object(fields) => Val::Map(fields),
        }
    }
}

/// The facts of one event as the fast path reads them: the JSON facts and
/// the few derived values rhai sees as strings.
#[derive(Debug)]
pub struct FastFacts<'a> {
    facts: &'a Facts,
    /// `weekday`: `monday` ... `sunday`, on the Company's clocks.
    pub weekday: &'static str,
    /// `date`: `YYYY-MM-DD`, on the Company's clocks.
    pub date: String,
    /// `hour`: 0 to 23, on the Company's clocks.
    pub hour: i64,
    /// `now`: `YYYY-MM-DDTHH:MM:SSZ`, the instant in UTC.
    pub now: String,
    /// `last_purchase_date`: `YYYY-MM-DD` on the Company's clocks, when
    /// there is one.
    pub last_purchase_date: Option<String>,
    audiences: Vec<Value>,
}

/// The weekdays as `weekday` gives them, Monday first.
pub const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

impl<'a> FastFacts<'a> {
    /// Derives what the fast path needs from `facts`.
    pub fn new(facts: &'a Facts) -> FastFacts<'a> {
        use chrono::{Datelike, Timelike};
        let local = facts.locale.wall_clock(facts.now);
        FastFacts {
            facts,
            weekday: WEEKDAYS[local.weekday().num_days_from_monday() as usize],
            date: local.format("%Y-%m-%d").to_string(),
            hour: i64::from(local.hour()),
            now: facts.now.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
            last_purchase_date: facts
                .totals
                .last_purchase
                .map(|at| facts.locale.wall_clock(at).format("%Y-%m-%d").to_string()),
            audiences: facts.audiences.iter().cloned().map(Value::String).collect(),
        }
    }

    fn var(&self, var: Var, line: Option<&'a Value>) -> Option<Val<'_>> {
        let facts = self.facts;
        Some(match var {
            Var::Customer => Val::of(&facts.customer),
            Var::Cart => Val::of(&facts.cart),
            Var::Event => Val::of(&facts.event),
            Var::Trigger => Val::of(&facts.trigger),
            Var::Tier => Val::of(&facts.tier),
            Var::Location => Val::of(&facts.location),
            // Outside a line filter `line` does not exist: rhai reports it.
            Var::Line => Val::of(line?),
            Var::LifetimeSpend => Val::Float(facts.totals.lifetime_spend),
            Var::CartCount => Val::Int(facts.totals.cart_count),
            Var::PointsBalance => Val::Int(facts.points_balance),
            Var::Hour => Val::Int(self.hour),
            Var::Weekday => Val::Str(self.weekday),
            Var::Date => Val::Str(&self.date),
            Var::Now => Val::Str(&self.now),
            Var::LastPurchaseDate => match &self.last_purchase_date {
                Some(date) => Val::Str(date),
                None => Val::Unit,
            },
            Var::Audiences => Val::Array(&self.audiences),
            Var::Associates => Val::Array(&facts.associates),
            Var::Calculated => Val::Map(&facts.calculated),
        })
    }
}

impl FastExpr {
    /// The fast form of a compiled expression, when every part of it has one.
    pub fn compile(ast: &AST) -> Option<FastExpr> {
        match ast.statements() {
            [Stmt::Expr(expr)] => Self::from_expr(expr),
            // A call on its own (`a == b`) is kept as a statement.
            [Stmt::FnCall(call, ..)] => Self::from_call(call),
            _ => None,
        }
    }

    fn from_expr(expr: &Expr) -> Option<FastExpr> {
        Some(match expr {
            Expr::Unit(..) => FastExpr::Unit,
            Expr::BoolConstant(flag, ..) => FastExpr::Bool(*flag),
            Expr::IntegerConstant(int, ..) => FastExpr::Int(*int),
            Expr::FloatConstant(float, ..) => FastExpr::Float(**float),
            Expr::StringConstant(text, ..) => FastExpr::Str(text.to_string()),
            Expr::Variable(variable, ..) => {
                let (_, name, namespace, _) = variable.as_ref();
                if !namespace.is_empty() {
                    return None;
                }
                FastExpr::Var(Var::named(name)?)
            }
            Expr::Dot(chain, ..) => {
                let target = Self::from_expr(&chain.lhs)?;
                Self::chain(target, &chain.rhs)?
            }
            Expr::And(operands, ..) => FastExpr::And(
                operands
                    .iter()
                    .map(Self::from_expr)
                    .collect::<Option<_>>()?,
            ),
            Expr::Or(operands, ..) => FastExpr::Or(
                operands
                    .iter()
                    .map(Self::from_expr)
                    .collect::<Option<_>>()?,
            ),
            Expr::FnCall(call, ..) => Self::from_call(call)?,
            _ => return None,
        })
    }

    /// An operator (or `contains`) call.
    fn from_call(call: &FnCallExpr) -> Option<FastExpr> {
        if !call.namespace.is_empty() {
            return None;
        }
        let args: Vec<FastExpr> = call
            .args
            .iter()
            .map(Self::from_expr)
            .collect::<Option<_>>()?;
        let comparison = match call.name.as_str() {
            "==" => Comparison::Equal,
            "!=" => Comparison::NotEqual,
            "<" => Comparison::Less,
            "<=" => Comparison::LessOrEqual,
            ">" => Comparison::Greater,
            ">=" => Comparison::GreaterOrEqual,
            // `needle in haystack` is parsed as contains(haystack, needle),
            // the same call as `haystack.contains(needle)`.
            "contains" => {
                let [haystack, needle]: [FastExpr; 2] = args.try_into().ok()?;
                return Some(FastExpr::Contains(Box::new(haystack), Box::new(needle)));
            }
            "!" => {
                let [operand]: [FastExpr; 1] = args.try_into().ok()?;
                return Some(FastExpr::Not(Box::new(operand)));
            }
            _ => return None,
        };
        let [lhs, rhs]: [FastExpr; 2] = args.try_into().ok()?;
        Some(FastExpr::Compare(comparison, Box::new(lhs), Box::new(rhs)))
    }

    /// `target` followed by the rest of a dot chain.
    fn chain(target: FastExpr, rest: &Expr) -> Option<FastExpr> {
        match rest {
            Expr::Property(property, ..) => {
                Some(FastExpr::Property(Box::new(target), property.2.to_string()))
            }
            Expr::MethodCall(call, ..) => match (call.name.as_str(), call.args.as_slice()) {
                ("len", []) => Some(FastExpr::Len(Box::new(target))),
                ("contains", [needle]) => Some(FastExpr::Contains(
                    Box::new(target),
                    Box::new(Self::from_expr(needle)?),
                )),
                ("has_feature", [taxonomy, feature]) => {
                    match (Self::from_expr(taxonomy)?, Self::from_expr(feature)?) {
                        (FastExpr::Str(taxonomy), FastExpr::Str(feature)) => {
                            Some(FastExpr::HasFeature(Box::new(target), taxonomy, feature))
                        }
                        _ => None,
                    }
                }
                _ => None,
            },
            Expr::Dot(chain, ..) => {
                let next = Self::chain(target, &chain.lhs)?;
                Self::chain(next, &chain.rhs)
            }
            _ => None,
        }
    }

    /// The boolean this expression gives for `facts` (and `line` in a line
    /// filter); `None` when rhai must decide.
    pub fn eval_bool(&self, facts: &FastFacts<'_>, line: Option<&Value>) -> Option<bool> {
        match self.eval(facts, line)? {
            Val::Bool(flag) => Some(flag),
            _ => None,
        }
    }

    fn eval<'v>(&'v self, facts: &'v FastFacts<'v>, line: Option<&'v Value>) -> Option<Val<'v>> {
        Some(match self {
            FastExpr::Unit => Val::Unit,
            FastExpr::Bool(flag) => Val::Bool(*flag),
            FastExpr::Int(int) => Val::Int(*int),
            FastExpr::Float(float) => Val::Float(*float),
            FastExpr::Str(text) => Val::Str(text),
            FastExpr::Var(var) => facts.var(*var, line)?,
            FastExpr::Property(target, name) => match target.eval(facts, line)? {
                // A missing property reads as `()`, as in rhai.
                Val::Map(fields) => fields.get(name).map_or(Val::Unit, Val::of),
                _ => return None,
            },
            FastExpr::Len(target) => match target.eval(facts, line)? {
                Val::Array(items) => Val::Int(items.len() as i64),
                Val::Map(fields) => Val::Int(fields.len() as i64),
                Val::Str(text) => Val::Int(text.chars().count() as i64),
                _ => return None,
            },
            FastExpr::Contains(haystack, needle) => {
                let needle = match needle.eval(facts, line)? {
                    Val::Str(text) => text,
                    _ => return None,
                };
                match haystack.eval(facts, line)? {
                    // Elements of another type never equal a string.
                    Val::Array(items) => Val::Bool(items.iter().any(|item| item == needle)),
                    Val::Str(text) => Val::Bool(text.contains(needle)),
                    Val::Map(fields) => Val::Bool(fields.contains_key(needle)),
                    _ => return None,
                }
            }
            FastExpr::HasFeature(target, taxonomy, feature) => match target.eval(facts, line)? {
                Val::Map(record) => Val::Bool(has_feature(record, taxonomy, feature)),
                // rhai's `has_feature` takes a map; it decides (and says why).
                _ => return None,
            },
            FastExpr::Compare(comparison, lhs, rhs) => Val::Bool(compare(
                *comparison,
                lhs.eval(facts, line)?,
                rhs.eval(facts, line)?,
            )?),
            FastExpr::Not(operand) => match operand.eval(facts, line)? {
                Val::Bool(flag) => Val::Bool(!flag),
                _ => return None,
            },
            FastExpr::And(operands) => Val::Bool(short_circuit(operands, false, facts, line)?),
            FastExpr::Or(operands) => Val::Bool(short_circuit(operands, true, facts, line)?),
        })
    }
}

/// `record.has_feature(taxonomy, feature)` as rhai answers it
/// (`engine::script`): from the features the catalogue completed with their
/// ancestors (`facets`), else from the features the record sent.
fn has_feature(record: &Map<String, Value>, taxonomy: &str, feature: &str) -> bool {
    let is_feature = |value: &Value| value.as_str() == Some(feature);
    match record.get(FACETS) {
        Some(facets) => facets
            .get(taxonomy)
            .and_then(Value::as_array)
            .is_some_and(|slugs| slugs.iter().any(is_feature)),
        None => record
            .get("features")
            .and_then(|features| features.get(taxonomy))
            .is_some_and(is_feature),
    }
}

/// `&&` (`decisive` false) or `||` (`decisive` true) over `operands`: the
/// first operand equal to `decisive` decides; every operand must be a boolean.
fn short_circuit(
    operands: &[FastExpr],
    decisive: bool,
    facts: &FastFacts<'_>,
    line: Option<&Value>,
) -> Option<bool> {
    for operand in operands {
        match operand.eval(facts, line)? {
            Val::Bool(flag) if flag == decisive => return Some(decisive),
            Val::Bool(_) => {}
            _ => return None,
        }
    }
    Some(!decisive)
}

/// `lhs comparison rhs` as rhai's built-in operators give it; `None` for
/// the pairs left to rhai (arrays, maps, ordering of booleans).
fn compare(comparison: Comparison, lhs: Val<'_>, rhs: Val<'_>) -> Option<bool> {
    use std::cmp::Ordering;
    let ordering: Option<Ordering> = match (lhs, rhs) {
        (Val::Int(a), Val::Int(b)) => Some(a.cmp(&b)),
        (Val::Float(a), Val::Float(b)) => a.partial_cmp(&b),
        (Val::Int(a), Val::Float(b)) => (a as f64).partial_cmp(&b),
        (Val::Float(a), Val::Int(b)) => a.partial_cmp(&(b as f64)),
        (Val::Str(a), Val::Str(b)) => Some(a.cmp(b)),
        (Val::Bool(a), Val::Bool(b)) => {
            return match comparison {
                Comparison::Equal => Some(a == b),
                Comparison::NotEqual => Some(a != b),
                _ => None,
            };
        }
        // `()` equals only `()`, and is neither less nor greater.
        (Val::Unit, Val::Unit) => return Some(comparison == Comparison::Equal),
        (Val::Array(_) | Val::Map(_), _) | (_, Val::Array(_) | Val::Map(_)) => return None,
        // Different types: only `!=` holds.
        _ => return Some(comparison == Comparison::NotEqual),
    };
    Some(match (comparison, ordering) {
        // NaN: only `!=` holds.
        (Comparison::NotEqual, None) => true,
        (_, None) => false,
        (Comparison::Equal, Some(o)) => o == Ordering::Equal,
        (Comparison::NotEqual, Some(o)) => o != Ordering::Equal,
        (Comparison::Less, Some(o)) => o == Ordering::Less,
        (Comparison::LessOrEqual, Some(o)) => o != Ordering::Greater,
        (Comparison::Greater, Some(o)) => o == Ordering::Greater,
        (Comparison::GreaterOrEqual, Some(o)) => o != Ordering::Less,
    })
}
