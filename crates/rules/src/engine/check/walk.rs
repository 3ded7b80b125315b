//! The walk over one condition's syntax tree: the shape of each part from
//! the facts' shapes, and a problem wherever a part cannot do what it says.

use rhai::{Dynamic, Expr, Position, Stmt};

use super::closest;
use super::functions::Functions;
use super::shapes::{Known, Shape};
use crate::engine::script::RuleError;
use crate::engine::script::Script;
use crate::engine::why::span;

/// One condition being checked.
pub struct Checker<'a> {
    pub(super) script: &'a Script,
    known: &'a Known,
    pub(super) functions: &'a Functions,
    /// The parameters of the closures being walked, innermost last.
    pub(super) locals: Vec<(String, Shape)>,
    problems: Vec<RuleError>,
}

/// A literal a comparison or a membership test names.
enum Literal {
    Text(String),
    Number,
    Bool,
}

impl Literal {
    fn of(expr: &Expr) -> Option<Literal> {
        Some(match expr {
            Expr::StringConstant(text, ..) => Literal::Text(text.to_string()),
            Expr::CharConstant(c, ..) => Literal::Text(c.to_string()),
            Expr::IntegerConstant(..) | Expr::FloatConstant(..) => Literal::Number,
            Expr::BoolConstant(..) => Literal::Bool,
            _ => return None,
        })
    }

    fn of_dynamic(value: &Dynamic) -> Option<Literal> {
        if let Ok(text) = value.clone().into_immutable_string() {
            return Some(Literal::Text(text.to_string()));
        }
        if value.is_int() || value.is_float() {
            return Some(Literal::Number);
        }
        value.is_bool().then_some(Literal::Bool)
    }

    /// `Some(noun)` when a fact of `shape` can never equal this literal.
    fn mismatch(&self, shape: &Shape) -> Option<&'static str> {
        let noun = match self {
            Literal::Text(_) => "text",
            Literal::Number => "a number",
            Literal::Bool => "true or false",
        };
        let fits = match (shape, self) {
            (Shape::Number, Literal::Number)
            | (Shape::Bool, Literal::Bool)
            | (Shape::Text | Shape::OneOf(..), Literal::Text(_)) => true,
            (Shape::Number | Shape::Bool | Shape::Text | Shape::OneOf(..), _) => false,
            (Shape::List(_) | Shape::Record(_) | Shape::Map(_) | Shape::History, _) => false,
            (Shape::Any | Shape::Nothing, _) => true,
        };
        (!fits).then_some(noun)
    }
}

impl<'a> Checker<'a> {
    pub fn new(script: &'a Script, known: &'a Known, functions: &'a Functions) -> Checker<'a> {
        Checker {
            script,
            known,
            functions,
            locals: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// The shape of the variable `name`: a closure's parameter, or a fact.
    fn variable(&self, name: &str) -> Shape {
        match self.locals.iter().rev().find(|(local, _)| local == name) {
            Some((_, shape)) => shape.clone(),
            None => self.known.variable(name),
        }
    }

    /// Every problem of the condition.
    pub fn check(mut self) -> Vec<RuleError> {
        for statement in self.script.ast().statements() {
            self.statement(statement);
        }
        self.problems
    }

    pub(super) fn statement(&mut self, statement: &Stmt) {
        match statement {
            Stmt::Expr(expr) => {
                self.shape(expr);
            }
            Stmt::FnCall(call, position) => {
                self.call(call, *position);
            }
            // `if` and the like inside an expression: their conditions and
            // branches are checked, their value is not known.
            Stmt::If(flow, ..) => {
                self.shape(&flow.expr);
                for branch in flow.body.iter().chain(flow.branch.iter()) {
                    self.statement(branch);
                }
            }
            _ => {}
        }
    }

    pub(super) fn problem(&mut self, at: Position, message: String) {
        self.problems
            .push(RuleError::at(&self.script.origin, at, message));
    }

    /// The shape of `expr`, reporting the problems inside it.
    pub(super) fn shape(&mut self, expr: &Expr) -> Shape {
        match expr {
            Expr::BoolConstant(..) => Shape::Bool,
            Expr::IntegerConstant(..) | Expr::FloatConstant(..) => Shape::Number,
            Expr::StringConstant(..) | Expr::CharConstant(..) | Expr::InterpolatedString(..) => {
                Shape::Text
            }
            Expr::Unit(..) => Shape::Nothing,
            Expr::Array(items, ..) => {
                for item in items.iter() {
                    self.shape(item);
                }
                Shape::List(Box::new(Shape::Any))
            }
            Expr::Map(map, ..) => {
                for (_, value) in map.0.iter() {
                    self.shape(value);
                }
                Shape::Any
            }
            Expr::Variable(variable, ..) if variable.2.is_empty() => {
                self.variable(variable.1.as_str())
            }
            Expr::Dot(binary, ..) => {
                let target = self.shape(&binary.lhs);
                let named = span::reference(&binary.lhs);
                self.chain(target, named, &binary.rhs)
            }
            Expr::Index(binary, ..) => {
                let target = self.shape(&binary.lhs);
                self.shape(&binary.rhs);
                element(&target)
            }
            Expr::FnCall(call, position) => self.call(call, *position),
            Expr::And(operands, ..) | Expr::Or(operands, ..) => {
                for operand in operands.iter() {
                    self.shape(operand);
                }
                Shape::Bool
            }
            Expr::Stmt(block) => {
                for statement in block.iter() {
                    self.statement(statement);
                }
                Shape::Any
            }
            _ => Shape::Any,
        }
    }

    /// The rest of a dot chain on a value of shape `target` (written
    /// `named`, when it is plain).
    fn chain(&mut self, target: Shape, named: Option<String>, rest: &Expr) -> Shape {
        match rest {
            Expr::Property(property, position) => {
                self.field(&target, named.as_deref(), &property.2, *position)
            }
            Expr::MethodCall(call, position) => {
                for arg in call.args.iter() {
                    self.shape(arg);
                }
                self.method(&target, named.as_deref(), call, *position)
            }
            Expr::Dot(binary, ..) => {
                let next = self.chain(target, named.clone(), &binary.lhs);
                let next_named = named.and_then(|n| Some(format!("{n}{}", step(&binary.lhs)?)));
                self.chain(next, next_named, &binary.rhs)
            }
            Expr::Index(binary, ..) => {
                let next = self.chain(target, named, &binary.lhs);
                match &binary.rhs {
                    Expr::Dot(index, ..) => {
                        self.shape(&index.lhs);
                        self.chain(element(&next), None, &index.rhs)
                    }
                    other => {
                        self.shape(other);
                        element(&next)
                    }
                }
            }
            _ => Shape::Any,
        }
    }

    /// `target.name`.
    fn field(&mut self, target: &Shape, named: Option<&str>, name: &str, at: Position) -> Shape {
        let owner = named.map_or("this value".to_string(), |n| format!("`{n}`"));
        match target {
            Shape::Record(fields) => {
                if let Some((_, shape)) = fields.iter().find(|(field, _)| field == name) {
                    return shape.clone();
                }
                let names = fields.iter().map(|(field, _)| field.as_str());
                let mut message = format!("{owner} has no field `{name}`");
                if let Some(near) = closest(name, names.clone()) {
                    message.push_str(&format!(" (did you mean `{near}`?)"));
                }
                let listed: Vec<&str> = names.collect();
                if listed.is_empty() {
                    message.push_str(": it has none");
                } else {
                    message.push_str(&format!("; its fields are {}", listed.join(", ")));
                }
                self.problem(at, message);
                Shape::Any
            }
            Shape::Map(values) => (**values).clone(),
            // rhai reads the length of text and lists as a property too.
            Shape::Text | Shape::OneOf(..) | Shape::List(_) if name == "len" => Shape::Number,
            Shape::Bool | Shape::Number | Shape::Text | Shape::OneOf(..) | Shape::List(_) => {
                self.problem(
                    at,
                    format!("{owner} is {}: it has no field `{name}`", target.noun()),
                );
                Shape::Any
            }
            Shape::History => {
                self.problem(
                    at,
                    format!(
                        "`history` has no field `{name}`; its methods are {}",
                        history_methods()
                    ),
                );
                Shape::Any
            }
            Shape::Any | Shape::Nothing => Shape::Any,
        }
    }

    /// `lhs op rhs`.
    pub(super) fn comparison(
        &mut self,
        op: &str,
        lhs: (&Expr, &Shape),
        rhs: (&Expr, &Shape),
        at: Position,
    ) {
        // The literal side, and the fact on the other.
        let (fact, fact_shape, literal) = match (Literal::of(lhs.0), Literal::of(rhs.0)) {
            (None, Some(literal)) => (lhs.0, lhs.1, literal),
            (Some(literal), None) => (rhs.0, rhs.1, literal),
            (None, None) => {
                self.facts_compared(op, lhs, rhs, at);
                return;
            }
            _ => return,
        };
        let named = span::reference(fact);
        if let Some(noun) = literal.mismatch(fact_shape) {
            let always = if op == "!=" { "true" } else { "false" };
            let literal_at = if Literal::of(lhs.0).is_some() {
                span::start(lhs.0)
            } else {
                span::start(rhs.0)
            };
            let hint = match (&literal, fact_shape) {
                (Literal::Text(text), Shape::Number) if text.trim().parse::<f64>().is_ok() => {
                    format!(" (write {} without quotes)", text.trim())
                }
                _ => String::new(),
            };
            self.problem(
                literal_at,
                format!(
                    "{} is {} and is compared with {noun}: `{op}` is always {always}{hint}",
                    subject(named.clone()),
                    fact_shape.noun()
                ),
            );
            return;
        }
        if let (Literal::Text(text), "==" | "!=") = (&literal, op) {
            let literal_expr = if Literal::of(lhs.0).is_some() {
                lhs.0
            } else {
                rhs.0
            };
            self.equal_to_literal(fact_shape, &subject(named), text, span::start(literal_expr));
        }
    }

    /// Two facts compared that can never be equal (a number and text).
    fn facts_compared(
        &mut self,
        op: &str,
        lhs: (&Expr, &Shape),
        rhs: (&Expr, &Shape),
        at: Position,
    ) {
        let scalar = |shape: &Shape| match shape {
            Shape::Number => Some("number"),
            Shape::Bool => Some("bool"),
            Shape::Text | Shape::OneOf(..) => Some("text"),
            _ => None,
        };
        if let (Some(a), Some(b)) = (scalar(lhs.1), scalar(rhs.1))
            && a != b
        {
            let name = |expr: &Expr| {
                span::reference(expr).map_or("one side".to_string(), |n| format!("`{n}`"))
            };
            let always = if op == "!=" { "true" } else { "false" };
            self.problem(
                at,
                format!(
                    "{} is {} and {} is {}: `{op}` is always {always}",
                    name(lhs.0),
                    lhs.1.noun(),
                    name(rhs.0),
                    rhs.1.noun()
                ),
            );
        }
    }

    /// A fact of `shape` (`subject` in messages) compared for equality with
    /// the text `text` (written at `at`): a problem when the fact can never
    /// hold it.
    pub(super) fn equal_to_literal(
        &mut self,
        shape: &Shape,
        subject: &str,
        text: &str,
        at: Position,
    ) {
        let Shape::OneOf(what, values) = shape else {
            return;
        };
        if values.iter().any(|value| value == text) {
            return;
        }
        let message = if let Some(same) = values.iter().find(|v| v.eq_ignore_ascii_case(text)) {
            format!("{subject} is never \"{text}\": it is written in lower case, \"{same}\"")
        } else if values.is_empty() {
            format!("{subject} is never \"{text}\": segments.yaml defines none")
        } else {
            let mut message = format!("\"{text}\" is not {what}, so {subject} is never it");
            if let Some(near) = closest(text, values.iter().map(String::as_str)) {
                message.push_str(&format!(" (did you mean \"{near}\"?)"));
            }
            message.push_str(&format!("; they are {}", values.join(", ")));
            message
        };
        self.problem(at, message);
    }

    /// `needle in haystack`, `haystack.contains(needle)`.
    pub(super) fn membership(&mut self, haystack: &Shape, named: Option<&str>, needle: &Expr) {
        let Shape::List(element) = haystack else {
            return;
        };
        let Some(literal) = Literal::of(needle) else {
            return;
        };
        let owner = named.map_or("this list".to_string(), |n| format!("`{n}`"));
        if let Some(noun) = literal.mismatch(element) {
            self.problem(
                span::start(needle),
                format!(
                    "{owner} holds {} and never {noun}",
                    match element.as_ref() {
                        Shape::Number => "numbers",
                        Shape::Text | Shape::OneOf(..) => "text",
                        Shape::Bool => "true or false",
                        _ => "values of another kind",
                    }
                ),
            );
            return;
        }
        if let Literal::Text(text) = &literal {
            let subject = format!("an element of {owner}");
            self.equal_to_literal(element, &subject, text, span::start(needle));
        }
    }
}

/// The element of a list (or the value of a map) of shape `target`.
fn element(target: &Shape) -> Shape {
    match target {
        Shape::List(element) | Shape::Map(element) => (**element).clone(),
        Shape::Text | Shape::OneOf(..) => Shape::Text,
        _ => Shape::Any,
    }
}

/// `.name` of a property step, for naming what follows.
fn step(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Property(property, ..) => Some(format!(".{}", property.2)),
        _ => None,
    }
}

/// The texts of a literal list (`["saturday", "sunday"]`), which rhai may
/// have folded into one constant.
pub(super) fn literal_items(expr: &Expr) -> Option<Vec<String>> {
    match expr {
        Expr::Array(items, ..) => items
            .iter()
            .map(|item| match item {
                Expr::StringConstant(text, ..) => Some(text.to_string()),
                _ => None,
            })
            .collect(),
        Expr::DynamicConstant(value, ..) => value
            .clone()
            .into_array()
            .ok()?
            .iter()
            .map(|item| match Literal::of_dynamic(item)? {
                Literal::Text(text) => Some(text),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// How a message names a fact: `` `cart.total` `` or "this value".
pub(super) fn subject(named: Option<String>) -> String {
    named.map_or("this value".to_string(), |n| format!("`{n}`"))
}

pub(super) fn history_methods() -> String {
    "spent_last_days(days), carts_last_days(days), days_since(date)".to_string()
}
