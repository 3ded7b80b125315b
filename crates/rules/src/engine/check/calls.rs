//! Calls in a condition: methods and functions looked up among those the
//! engine defines ([`super::functions`]), and closures walked with their
//! parameters' shapes.

use rhai::{ASTNode, Expr, FnCallExpr, FnPtr, Position, Stmt};

use super::closest;
use super::functions::{CallProblem, Receiver};
use super::shapes::Shape;
use super::walk::{Checker, history_methods, literal_items, subject};
use crate::engine::why::span;

impl Checker<'_> {
    /// `target.name(args)`.
    pub(super) fn method(
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
    pub(super) fn call(&mut self, call: &FnCallExpr, at: Position) -> Shape {
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
