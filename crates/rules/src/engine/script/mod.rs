//! The rhai layer: expressions compiled once, evaluated under explicit limits,
//! with errors that name the file and line they came from.
//!
//! Conditions and calculated attributes are rhai *expressions* (no statements,
//! no assignments), evaluated against [`Facts`] about one Customer.

use std::sync::Arc;

use rhai::{AST, Dynamic, Engine, EvalAltResult, ImmutableString, Position, Scope};
use rust_decimal::Decimal;
use serde_json::Value;

use crate::engine::check::Functions;
use crate::engine::exact::decimal_result;
use crate::engine::exact::register_decimal_operators;
use crate::engine::exact::to_exact_dynamic;
use crate::engine::facts::Facts;
use crate::engine::fast::FastExpr;
use crate::engine::fast::FastFacts;
use crate::engine::helpers::array_contains_text;
use crate::engine::helpers::has_feature;
use crate::engine::history::History;
use crate::engine::limits;
use crate::engine::limits::EvaluationClock;
pub use crate::engine::origin::Origin;
pub use crate::engine::origin::RuleError;

/// A compiled expression and where it came from.
#[derive(Debug, Clone)]
pub struct Script {
    ast: AST,
    /// The same expression on the fast path, when it has one.
    fast: Option<FastExpr>,
    /// The expression's text.
    pub source: String,
    /// Its file and line.
    pub origin: Origin,
}

impl Script {
    /// Its syntax tree (explanations and checks walk it).
    pub fn ast(&self) -> &AST {
        &self.ast
    }
}

/// The error of `script` failing to evaluate.
fn evaluation_error(script: &Script, error: &EvalAltResult) -> RuleError {
    let said = match error.unwrap_inner() {
        // rhai says only "Script terminated" (inside each closure it was
        // in); the token says why.
        EvalAltResult::ErrorTerminated(reason, _) => reason.to_string(),
        other => other.to_string(),
    };
    RuleError::at(
        &script.origin,
        error.position(),
        format!("evaluating `{}`: {said}", script.source.trim()),
    )
}

/// `value` as the boolean a condition must give.
fn as_bool(script: &Script, value: Dynamic) -> Result<bool, RuleError> {
    value.as_bool().map_err(|type_name| {
        RuleError::at(
            &script.origin,
            Position::NONE,
            format!(
                "`{}` must be true or false, not {type_name}",
                script.source.trim()
            ),
        )
    })
}

/// `value` as a rhai value: objects become maps, arrays arrays, integers
/// `INT` and other numbers `FLOAT` (as rhai's serde conversion gives them,
/// without its generic serializer's cost on every event).
fn to_dynamic(value: &Value) -> Dynamic {
    to_dynamic_with(value, &|number| match number.as_i64() {
        Some(int) => Dynamic::from_int(int),
        None => Dynamic::from_float(number.as_f64().unwrap_or(f64::NAN)),
    })
}

/// `value` as a rhai value, each number converted by `number` (floats for
/// conditions, decimals for exact expressions: [`crate::engine::exact`]).
pub fn to_dynamic_with(value: &Value, number: &impl Fn(&serde_json::Number) -> Dynamic) -> Dynamic {
    match value {
        Value::Null => Dynamic::UNIT,
        Value::Bool(flag) => Dynamic::from_bool(*flag),
        Value::Number(value) => number(value),
        Value::String(text) => Dynamic::from(ImmutableString::from(text.as_str())),
        Value::Array(items) => Dynamic::from_array(
            items
                .iter()
                .map(|item| to_dynamic_with(item, number))
                .collect(),
        ),
        Value::Object(fields) => Dynamic::from_map(
            fields
                .iter()
                .map(|(key, value)| (key.as_str().into(), to_dynamic_with(value, number)))
                .collect(),
        ),
    }
}

/// One event's facts, ready for many expressions (see
/// [`ScriptEngine::prepare`]): read directly by the fast path, and converted
/// into rhai values only when an expression needs rhai.
#[derive(Debug)]
pub struct PreparedFacts<'a> {
    facts: &'a Facts,
    fast: FastFacts<'a>,
    lines: &'a [Value],
    rhai: std::sync::OnceLock<RhaiFacts>,
    /// The same with every number a decimal, for exact expressions
    /// ([`ScriptEngine::eval_exact`]).
    exact: std::sync::OnceLock<RhaiFacts>,
}

impl<'a> PreparedFacts<'a> {
    /// The facts they were prepared from.
    pub fn facts(&self) -> &'a Facts {
        self.facts
    }
}

/// The facts as rhai values, converted once.
#[derive(Debug)]
struct RhaiFacts {
    scope: std::sync::Mutex<Scope<'static>>,
    lines: Vec<Dynamic>,
}

impl RhaiFacts {
    /// `prepared` converted by `convert`.
    fn of(prepared: &PreparedFacts<'_>, convert: fn(&Value) -> Dynamic) -> RhaiFacts {
        RhaiFacts {
            // Shared, so that giving each line filter its `line` clones a
            // pointer, not the line's map.
            lines: prepared
                .lines
                .iter()
                .map(|line| convert(line).into_shared())
                .collect(),
            scope: std::sync::Mutex::new(ScriptEngine::scope_with(prepared.facts, convert)),
        }
    }
}

/// A rhai engine configured once: limits, no `eval`, and the `history` type.
#[derive(Debug)]
pub struct ScriptEngine {
    engine: Engine,
    /// What it can call, for checking expressions when files load.
    functions: Functions,
}

impl Default for ScriptEngine {
    fn default() -> Self {
        ScriptEngine::new()
    }
}

impl ScriptEngine {
    /// An engine with explicit limits (debug and release builds behave alike).
    pub fn new() -> Self {
        let mut engine = Engine::new();
        limits::apply(&mut engine);
        engine.set_strict_variables(true).disable_symbol("eval");
        engine
            .register_type_with_name::<History>("History")
            .register_fn("spent_last_days", History::spent_last_days)
            .register_fn("carts_last_days", History::carts_last_days)
            .register_fn("days_since", History::days_since)
            // `tags.contains("x")` and `"x" in tags` on arrays of strings are
            // the commonest line filters; the generic version calls `==`
            // through the function table for every element.
            .register_fn("contains", array_contains_text)
            .register_fn("has_feature", has_feature);
        register_decimal_operators(&mut engine);
        let functions = Functions::of(&engine);
        ScriptEngine { engine, functions }
    }

    /// The functions expressions can call ([`crate::engine::check`]).
    pub fn functions(&self) -> &Functions {
        &self.functions
    }

    /// Compiles `source`. Unknown variables are compile errors, so a typo is
    /// caught when the file loads, not when a Customer first meets it.
    pub fn compile(&self, source: &str, origin: Origin) -> Result<Script, RuleError> {
        self.compile_with(source, origin, &[])
    }

    /// Compiles `source` where, besides the facts, the variables `extra` exist
    /// (e.g. `line` in a per-line condition).
    pub fn compile_with(
        &self,
        source: &str,
        origin: Origin,
        extra: &[&str],
    ) -> Result<Script, RuleError> {
        let mut scope = Self::scope(&Facts::default());
        for name in extra {
            scope.push_dynamic(name.to_string(), Dynamic::UNIT);
        }
        let ast = self
            .engine
            .compile_expression_with_scope(&scope, source)
            .map_err(|e| {
                RuleError::at(
                    &origin,
                    e.position(),
                    format!("in `{}`: {}", source.trim(), e.err_type()),
                )
            })?;
        Ok(Script {
            fast: FastExpr::compile(&ast),
            ast,
            source: source.to_string(),
            origin,
        })
    }

    /// Evaluates a condition; anything but a boolean is an error.
    pub fn eval_bool(&self, script: &Script, facts: &Facts) -> Result<bool, RuleError> {
        if let Some(fast) = &script.fast
            && let Some(result) = fast.eval_bool(&FastFacts::new(facts), None)
        {
            return Ok(result);
        }
        let value = self.eval(script, facts)?;
        as_bool(script, value)
    }

    /// Converts `facts` into rhai values once, for evaluating many
    /// expressions (every campaign's condition, every line filter) against one
    /// event.
    pub fn prepare<'a>(&self, facts: &'a Facts) -> PreparedFacts<'a> {
        PreparedFacts {
            facts,
            fast: FastFacts::new(facts),
            lines: facts
                .cart
                .get("lines")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default(),
            rhai: std::sync::OnceLock::new(),
            exact: std::sync::OnceLock::new(),
        }
    }

    /// Evaluates a condition against prepared facts; with `line`, the cart
    /// line of that index is the variable `line`.
    pub fn eval_prepared(
        &self,
        script: &Script,
        prepared: &PreparedFacts<'_>,
        line: Option<usize>,
    ) -> Result<bool, RuleError> {
        if let Some(fast) = &script.fast {
            let line_value = line.and_then(|index| prepared.lines.get(index));
            if let Some(result) = fast.eval_bool(&prepared.fast, line_value) {
                return Ok(result);
            }
        }
        as_bool(script, self.eval_value_prepared(script, prepared, line)?)
    }

    /// The value of `script` for prepared facts, always through rhai (the
    /// parts of a condition an explanation names, which may be of any type).
    pub fn eval_value_prepared(
        &self,
        script: &Script,
        prepared: &PreparedFacts<'_>,
        line: Option<usize>,
    ) -> Result<Dynamic, RuleError> {
        let rhai = prepared
            .rhai
            .get_or_init(|| RhaiFacts::of(prepared, to_dynamic));
        self.eval_in(script, rhai, line)
    }

    /// The number `script` gives for prepared facts, worked out exactly:
    /// every number of the facts is a decimal (see [`crate::engine::exact`]).
    /// With `line`, the cart line of that index is the variable `line`.
    pub fn eval_exact(
        &self,
        script: &Script,
        prepared: &PreparedFacts<'_>,
        line: Option<usize>,
    ) -> Result<Decimal, RuleError> {
        let exact = prepared
            .exact
            .get_or_init(|| RhaiFacts::of(prepared, to_exact_dynamic));
        let value = self.eval_in(script, exact, line)?;
        decimal_result(&value).map_err(|reason| {
            RuleError::at(
                &script.origin,
                Position::NONE,
                format!("`{}` must be a number: {reason}", script.source.trim()),
            )
        })
    }

    fn eval_in(
        &self,
        script: &Script,
        rhai: &RhaiFacts,
        line: Option<usize>,
    ) -> Result<Dynamic, RuleError> {
        let mut scope = match rhai.scope.lock() {
            Ok(scope) => scope,
            Err(poisoned) => poisoned.into_inner(),
        };
        let base = scope.len();
        if let Some(index) = line {
            let value = rhai.lines.get(index).cloned().unwrap_or(Dynamic::UNIT);
            scope.push_dynamic("line", value);
        }
        let value = {
            let _clock = EvaluationClock::start();
            self.engine
                .eval_ast_with_scope::<Dynamic>(&mut scope, &script.ast)
        };
        // Expressions cannot assign, so the facts are as they were: only the
        // line variable is taken off again.
        scope.rewind(base);
        value.map_err(|e| evaluation_error(script, &e))
    }

    /// Evaluates `script` with rhai only, never on the fast path (to check
    /// that both agree).
    #[cfg(test)]
    pub fn eval_with_rhai(
        &self,
        script: &Script,
        facts: &Facts,
        line: Option<&Value>,
    ) -> Result<Dynamic, RuleError> {
        let mut scope = Self::scope(facts);
        if let Some(line) = line {
            scope.push_dynamic("line", to_dynamic(line));
        }
        let _clock = EvaluationClock::start();
        self.engine
            .eval_ast_with_scope::<Dynamic>(&mut scope, &script.ast)
            .map_err(|e| evaluation_error(script, &e))
    }

    /// Evaluates `script` on the fast path only; `None` when it has none or
    /// the fast path leaves this case to rhai.
    #[cfg(test)]
    pub fn eval_fast(&self, script: &Script, facts: &Facts, line: Option<&Value>) -> Option<bool> {
        script
            .fast
            .as_ref()?
            .eval_bool(&FastFacts::new(facts), line)
    }

    /// Whether `script` has a fast form.
    #[cfg(test)]
    pub fn has_fast_path(script: &Script) -> bool {
        script.fast.is_some()
    }

    /// Evaluates an expression to JSON.
    pub fn eval_json(&self, script: &Script, facts: &Facts) -> Result<Value, RuleError> {
        let value = self.eval(script, facts)?;
        rhai::serde::from_dynamic(&value).map_err(|e| {
            RuleError::at(
                &script.origin,
                Position::NONE,
                format!("result is not JSON: {e}"),
            )
        })
    }

    fn eval(&self, script: &Script, facts: &Facts) -> Result<Dynamic, RuleError> {
        let mut scope = Self::scope(facts);
        let _clock = EvaluationClock::start();
        self.engine
            .eval_ast_with_scope::<Dynamic>(&mut scope, &script.ast)
            .map_err(|e| evaluation_error(script, &e))
    }

    /// The variables every expression sees. They are plain variables, not
    /// constants: rhai folds constants into the AST at compile time, which
    /// would bake the compile-time placeholders into every evaluation.
    /// (Expressions cannot assign, so they stay read-only all the same.)
    fn scope(facts: &Facts) -> Scope<'static> {
        Self::scope_with(facts, to_dynamic)
    }

    /// The variables, their JSON converted by `convert`.
    fn scope_with(facts: &Facts, to_dynamic: fn(&Value) -> Dynamic) -> Scope<'static> {
        let mut scope = Scope::new();
        scope.push_dynamic("customer", to_dynamic(&facts.customer));
        scope.push(
            "history",
            History {
                days: Arc::clone(&facts.history),
                now: facts.now,
                locale: facts.locale,
            },
        );
        scope.push("lifetime_spend", facts.totals.lifetime_spend);
        scope.push("cart_count", facts.totals.cart_count);
        // The derived strings exactly as the fast path reads them.
        let derived = FastFacts::new(facts);
        scope.push_dynamic(
            "last_purchase_date",
            derived
                .last_purchase_date
                .map_or(Dynamic::UNIT, Dynamic::from),
        );
        scope.push("points_balance", facts.points_balance);
        scope.push_dynamic(
            "associates",
            to_dynamic(&Value::Array(facts.associates.clone())),
        );
        scope.push_dynamic(
            "calculated",
            to_dynamic(&Value::Object(facts.calculated.clone())),
        );
        scope.push("now", derived.now);
        scope.push("date", derived.date);
        scope.push("weekday", derived.weekday.to_string());
        scope.push("hour", derived.hour);
        scope.push_dynamic("cart", to_dynamic(&facts.cart));
        scope.push_dynamic("event", to_dynamic(&facts.event));
        scope.push_dynamic("trigger", to_dynamic(&facts.trigger));
        scope.push_dynamic("tier", to_dynamic(&facts.tier));
        scope.push_dynamic("location", to_dynamic(&facts.location));
        scope.push_dynamic(
            "audiences",
            to_dynamic(&Value::Array(
                facts.audiences.iter().cloned().map(Value::String).collect(),
            )),
        );
        scope
    }
}

#[cfg(test)]
mod tests;
