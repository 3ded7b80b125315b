//! The walk over one condition's syntax tree: the shape of each part from
//! the facts' shapes, and a problem wherever a part cannot do what it says.

use rhai::{ASTNode, Dynamic, Expr, FnCallExpr, FnPtr, Position, Stmt};

use super::closest;
use super::functions::{CallProblem, Functions, Receiver};
use super::shapes::{Known, Shape};
use crate::engine::script::RuleError;
use crate::engine::script::Script;
use crate::engine::why::span;

/// One condition being checked.
pub(crate) struct Checker<'a> {
    script: &'a Script,
    known: &'a Known,
    functions: &'a Functions,
    /// The parameters of the closures being walked, innermost last.
    locals: Vec<(String, Shape)>,
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
    pub(crate) fn new(
        script: &'a Script,
        known: &'a Known,
        functions: &'a Functions,
    ) -> Checker<'a> {
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
    pub(crate) fn check(mut self) -> Vec<RuleError> {
        for statement in self.script.ast().statements() {
            self.statement(statement);
        }
        self.problems
    }

    fn statement(&mut self, statement: &Stmt) {
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

    fn problem(&mut self, at: Position, message: String) {
        self.problems
            .push(RuleError::at(&self.script.origin, at, message));
    }

    /// The shape of `expr`, reporting the problems inside it.
    fn shape(&mut self, expr: &Expr) -> Shape {
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

    /// `target.name(args)`.
    fn method(
        &mut self,
        target: &Shape,
        named: Option<&str>,
        call: &FnCallExpr,
        at: Position,
    ) -> Shape {
        let name = call.name.as_str();
        let receiver = Receiver::of_shape(target);
        if let Some(problem) = self.functions.method(receiver, name, call.args.len()) {
            self.method_problem(target, named, (name, call.args.len()), problem, at);
            return Shape::Any;
        }
        if let Some(closure) = call.args.first().and_then(closure)
            && let Shape::List(element) = target
        {
            return self.closure_over(target, element, name, closure);
        }
        for arg in call.args.iter() {
            self.shape(arg);
        }
        match name {
            "len" => Shape::Number,
            "spent_last_days" | "carts_last_days" | "days_since" => Shape::Number,
            "has_feature" | "starts_with" | "ends_with" | "is_empty" => Shape::Bool,
            "contains" => {
                if let [needle] = call.args.as_slice() {
                    self.membership(target, named, needle);
                }
                Shape::Bool
            }
            _ => Shape::Any,
        }
    }

    /// A method that cannot be called on `target`, said at `at`.
    fn method_problem(
        &mut self,
        target: &Shape,
        named: Option<&str>,
        (name, given): (&str, usize),
        problem: CallProblem,
        at: Position,
    ) {
        let owner = named.map_or("this value".to_string(), |n| format!("`{n}`"));
        let receiver = Receiver::of_shape(target);
        let near = || {
            closest(name, self.functions.methods_of(receiver))
                .map(|near| format!(" (did you mean `{near}`?)"))
                .unwrap_or_default()
        };
        let message = match problem {
            CallProblem::Unknown if *target == Shape::History => format!(
                "`history` has no method `{name}`{}; its methods are {}",
                near(),
                history_methods()
            ),
            CallProblem::Unknown => format!("{owner} has no method `{name}`{}", near()),
            CallProblem::NotOn => format!(
                "{owner} is {}: it has no method `{name}`{}",
                target.noun(),
                near()
            ),
            CallProblem::Arity(arities) => {
                format!("`{name}` takes {}, not {given}", arguments(&arities))
            }
        };
        self.problem(at, message);
    }

    /// `target.name(closure)` on a list whose elements are `element`: the
    /// closure's body checked with its parameters' shapes.
    fn closure_over(
        &mut self,
        target: &Shape,
        element: &Shape,
        name: &str,
        closure: Closure<'_>,
    ) -> Shape {
        let Some(params) = self
            .script
            .ast()
            .iter_fn_def()
            .find(|definition| definition.name.as_str() == closure.name)
            .map(|definition| definition.params.clone())
        else {
            return Shape::Any;
        };
        let captured: Vec<Shape> = closure.captured.iter().map(|e| self.shape(e)).collect();
        let declared = match name {
            "reduce" | "reduce_rev" => vec![Shape::Any, element.clone(), Shape::Number],
            "sort" | "sort_by" => vec![element.clone(), element.clone()],
            _ => vec![element.clone(), Shape::Number],
        };
        let bound = params.len();
        let mut shapes = captured;
        shapes.extend(declared);
        shapes.resize(bound.max(shapes.len()), Shape::Any);
        let depth = self.locals.len();
        for (param, shape) in params.iter().zip(shapes) {
            self.locals.push((param.to_string(), shape));
        }
        for statement in self.body_of(&closure.name) {
            self.statement(&statement);
        }
        self.locals.truncate(depth);
        match name {
            "some" | "all" | "none" => Shape::Bool,
            "filter" | "retain" | "drain" => target.clone(),
            "map" => Shape::List(Box::new(Shape::Any)),
            "find" => element.clone(),
            "index_of" => Shape::Number,
            _ => Shape::Any,
        }
    }

    /// The statements of the closure `name`'s body, walked by rhai over a
    /// syntax tree holding only that function (its body's type is not
    /// public: its statements are reached through the walk).
    fn body_of(&self, name: &str) -> Vec<Stmt> {
        // (`clone_functions_only_filtered` ignores its filter when the
        // copy starts empty: every function would be walked.)
        let mut only = self.script.ast().clone_functions_only();
        only.retain_functions(|_, _, function, _| function == name);
        let mut statements = Vec::new();
        only.walk(&mut |path: &[ASTNode]| {
            if let [ASTNode::Stmt(statement)] = path {
                statements.push((*statement).clone());
            }
            true
        });
        statements
    }

    /// An operator or function call.
    fn call(&mut self, call: &FnCallExpr, at: Position) -> Shape {
        if !call.is_qualified()
            && let Some(problem) = self.functions.call(call.name.as_str(), call.args.len())
        {
            self.function_problem((call.name.as_str(), call.args.len()), problem, at);
        }
        let shapes: Vec<Shape> = call.args.iter().map(|arg| self.shape(arg)).collect();
        match (call.name.as_str(), call.args.as_slice()) {
            ("==" | "!=" | "<" | "<=" | ">" | ">=", [lhs, rhs]) => {
                self.comparison(call.name.as_str(), (lhs, &shapes[0]), (rhs, &shapes[1]), at);
                Shape::Bool
            }
            ("!", [_]) => Shape::Bool,
            // `needle in haystack` is contains(haystack, needle).
            ("contains", [haystack, needle]) => {
                self.membership(&shapes[0], span::reference(haystack).as_deref(), needle);
                if let Some(items) = literal_items(haystack) {
                    let subject = subject(span::reference(needle));
                    for item in items {
                        self.equal_to_literal(&shapes[1], &subject, &item, span::start(haystack));
                    }
                }
                Shape::Bool
            }
            ("+" | "-" | "*" | "/" | "%", _) if shapes.iter().all(|s| *s == Shape::Number) => {
                Shape::Number
            }
            _ => Shape::Any,
        }
    }

    /// A function that cannot be called, said at `at`.
    fn function_problem(
        &mut self,
        (name, given): (&str, usize),
        problem: CallProblem,
        at: Position,
    ) {
        let message = match problem {
            CallProblem::Arity(arities) => {
                format!("`{name}` takes {}, not {given}", arguments(&arities))
            }
            CallProblem::Unknown | CallProblem::NotOn => {
                let near = closest(name, self.functions.names())
                    .map(|near| format!(" (did you mean `{near}`?)"))
                    .unwrap_or_default();
                format!("there is no function `{name}`{near}")
            }
        };
        self.problem(at, message);
    }

    /// `lhs op rhs`.
    fn comparison(&mut self, op: &str, lhs: (&Expr, &Shape), rhs: (&Expr, &Shape), at: Position) {
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
    fn equal_to_literal(&mut self, shape: &Shape, subject: &str, text: &str, at: Position) {
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
    fn membership(&mut self, haystack: &Shape, named: Option<&str>, needle: &Expr) {
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

/// A closure passed to a method: its function's name and the variables it
/// captured (which come first among the function's parameters).
struct Closure<'e> {
    name: String,
    captured: Vec<&'e Expr>,
}

/// `expr` as a closure, when it is one: `|l| ...` is a constant pointer to
/// the function rhai made of its body, curried with what it captured.
fn closure(expr: &Expr) -> Option<Closure<'_>> {
    match expr {
        Expr::DynamicConstant(value, ..) if value.is_fnptr() => Some(Closure {
            name: value.clone().cast::<FnPtr>().fn_name().to_string(),
            captured: Vec::new(),
        }),
        Expr::FnCall(call, ..) if call.name.as_str() == "curry" => {
            let (first, captured) = call.args.split_first()?;
            let mut closure = closure(first)?;
            closure.captured = captured.iter().collect();
            Some(closure)
        }
        _ => None,
    }
}

/// "2 arguments", "1 or 2 arguments".
fn arguments(arities: &[usize]) -> String {
    let counts: Vec<String> = arities.iter().map(ToString::to_string).collect();
    let last = arities.last().copied().unwrap_or(0);
    let joined = match counts.as_slice() {
        [] => "no".to_string(),
        [one] => one.clone(),
        [rest @ .., final_one] => format!("{} or {final_one}", rest.join(", ")),
    };
    format!("{joined} argument{}", if last == 1 { "" } else { "s" })
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
fn literal_items(expr: &Expr) -> Option<Vec<String>> {
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
fn subject(named: Option<String>) -> String {
    named.map_or("this value".to_string(), |n| format!("`{n}`"))
}

fn history_methods() -> String {
    "spent_last_days(days), carts_last_days(days), days_since(date)".to_string()
}
