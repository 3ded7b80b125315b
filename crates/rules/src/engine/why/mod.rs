//! Why a condition came out as it did: the part of it that decided, where
//! it is written and the values it saw (`cart.total > 40.0` was false:
//! `cart.total` is 35.0), found by walking the condition's syntax tree and
//! evaluating its parts on the event's facts.
//!
//! Only asked for explanations (`?explain=true`, scenarios, `loyalty
//! campaigns explain`): it compiles and evaluates each part it looks at,
//! which the hot path never does.

pub mod span;

use rhai::{Dynamic, Expr};
use serde::Serialize;
use serde_json::Value;

use crate::engine::script::PreparedFacts;
use crate::engine::script::Script;
use crate::engine::script::ScriptEngine;
use crate::resources::master_data::enrich::FACETS;
use span::Source;

/// Most parts one explanation names (an `||` of many alternatives names
/// each; past this many, the rest are left out).
const MAX_PARTS: usize = 8;

/// Longest a value is shown, in characters (a whole line or list is cut).
const MAX_VALUE_CHARS: usize = 120;

/// One part of a condition that decided its result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Part {
    /// The part as written: `cart.total > 40.0`.
    pub text: String,
    /// What it gave.
    pub was: bool,
    /// Where it is written: `file:line:column`.
    pub at: String,
    /// The facts it read and their values, in the order written.
    pub values: Vec<(String, Value)>,
    /// In a line selector: the cart line (from 1) it was evaluated on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cart_line: Option<usize>,
}

impl Part {
    /// `` `cart.total > 40.0` was false: `cart.total` is 35.0 ``.
    pub fn describe(&self) -> String {
        let mut said = match self.cart_line {
            Some(line) => format!("cart line {line}: `{}` was {}", self.text, self.was),
            None => format!("`{}` was {}", self.text, self.was),
        };
        for (index, (reference, value)) in self.values.iter().enumerate() {
            said.push_str(if index == 0 { ": " } else { ", " });
            said.push_str(&format!("`{reference}` is {}", shown(value)));
        }
        said
    }
}

/// Every part's description, in order.
pub fn describe(parts: &[Part]) -> String {
    parts
        .iter()
        .map(Part::describe)
        .collect::<Vec<_>>()
        .join("; ")
}

/// `value` as an author reads it: JSON, `()` for nothing, cut when long.
fn shown(value: &Value) -> String {
    let text = match value {
        Value::Null => "() (nothing)".to_string(),
        other => other.to_string(),
    };
    if text.chars().count() <= MAX_VALUE_CHARS {
        return text;
    }
    let cut: String = text.chars().take(MAX_VALUE_CHARS).collect();
    format!("{cut}…")
}

/// The parts of `script` that made it give `result` for `prepared` (and
/// cart line `line` in a line selector): for `a && b` false, the first
/// false operand; for `a || b` false, every operand; through `!`, the
/// operand that was the opposite; else the comparison or call itself, with
/// the facts it read. Empty when the condition cannot be taken apart.
pub fn deciding_parts(
    engine: &ScriptEngine,
    script: &Script,
    prepared: &PreparedFacts<'_>,
    line: Option<usize>,
    result: bool,
) -> Vec<Part> {
    let Some(root) = span::root(script.ast()) else {
        return Vec::new();
    };
    let walk = Walk {
        engine,
        script,
        prepared,
        line,
        source: Source::new(&script.source),
    };
    let mut parts = Vec::new();
    walk.decide(&root, walk.source.end(), result, &mut parts);
    parts
}

/// One explanation's walk over a condition.
struct Walk<'w, 'f> {
    engine: &'w ScriptEngine,
    script: &'w Script,
    prepared: &'w PreparedFacts<'f>,
    line: Option<usize>,
    source: Source<'w>,
}

impl Walk<'_, '_> {
    /// Adds to `parts` why `expr` (ending before byte `end`) gave `result`.
    fn decide(&self, expr: &Expr, end: usize, result: bool, parts: &mut Vec<Part>) {
        if parts.len() >= MAX_PARTS {
            return;
        }
        match expr {
            // `&&` false and `||` true: the first operand that was so.
            // `&&` true and `||` false: every operand.
            Expr::And(operands, ..) | Expr::Or(operands, ..) => {
                let decisive = matches!(expr, Expr::Or(..));
                let ends = self.operand_ends(operands, end);
                if result == decisive {
                    let first = operands
                        .iter()
                        .zip(&ends)
                        .find(|(operand, end)| self.boolean(operand, **end) != Some(!decisive));
                    match first {
                        Some((operand, end)) => self.decide(operand, *end, result, parts),
                        None => self.leaf(expr, end, result, parts),
                    }
                } else {
                    for (operand, end) in operands.iter().zip(ends) {
                        self.decide(operand, end, result, parts);
                    }
                }
            }
            Expr::FnCall(call, ..) if call.name == "!" && call.args.len() == 1 => {
                self.decide(&call.args[0], end, !result, parts);
            }
            other => self.leaf(other, end, result, parts),
        }
    }

    /// Where each operand ends: where the next begins, the last where its
    /// parent ends.
    fn operand_ends(&self, operands: &[Expr], end: usize) -> Vec<usize> {
        operands
            .iter()
            .skip(1)
            .map(|next| self.source.offset(span::start(next)).unwrap_or(end))
            .chain(std::iter::once(end))
            .collect()
    }

    /// What `expr` gives as a boolean; `None` when it fails or is not one.
    fn boolean(&self, expr: &Expr, end: usize) -> Option<bool> {
        let text = self.source.text_of(expr, end)?;
        self.value(&text)?.as_bool().ok()
    }

    /// The value of `text`, an expression over the same facts.
    fn value(&self, text: &str) -> Option<Dynamic> {
        let extra: &[&str] = if self.line.is_some() { &["line"] } else { &[] };
        let script = self
            .engine
            .compile_with(text, self.script.origin.clone(), extra)
            .ok()?;
        self.engine
            .eval_value_prepared(&script, self.prepared, self.line)
            .ok()
    }

    /// `expr` itself as a deciding part, with the facts it read.
    fn leaf(&self, expr: &Expr, end: usize, result: bool, parts: &mut Vec<Part>) {
        let Some(text) = self.source.text_of(expr, end) else {
            return;
        };
        let mut references = Vec::new();
        // A call that is the whole part (`customer.email.ends_with("@x")`)
        // shows what it was called on.
        if let Some((called_on, method)) = span::receiver(expr)
            && method != "has_feature"
        {
            references.push(called_on);
        }
        collect_references(expr, &mut references);
        let values = references
            .into_iter()
            .filter(|reference| *reference != text)
            .filter_map(|reference| {
                let value = as_json(&self.value(&reference)?);
                // Features completed by the catalogue are shown when there are some.
                let unset_facets = value.is_null() && reference.ends_with(FACETS);
                (!unset_facets).then_some((reference, value))
            })
            .collect();
        let (line, column) = self.script.origin.place(span::start(expr));
        parts.push(Part {
            text,
            was: result,
            at: format!("{}:{line}:{column}", self.script.origin.file.display()),
            values,
            cart_line: self.line.map(|index| index + 1),
        });
    }
}

/// The facts `expr` reads, each written once, in the order written: the
/// variables, properties and calls on them, not the operators between.
fn collect_references(expr: &Expr, references: &mut Vec<String>) {
    // `line.has_feature("category", "wine")` reads the line's features: they
    // are what an author needs to see, not only that the answer was false.
    if let Some((record, method)) = span::receiver(expr)
        && method == "has_feature"
    {
        for read in [format!("{record}.features"), format!("{record}.{FACETS}")] {
            if !references.contains(&read) {
                references.push(read);
            }
        }
        return;
    }
    if let Some(reference) = span::reference(expr) {
        if !references.contains(&reference) {
            references.push(reference);
        }
        return;
    }
    match expr {
        Expr::FnCall(call, ..) => {
            // `needle in haystack` is `contains(haystack, needle)`: as written.
            let mut args: Vec<&Expr> = call.args.iter().collect();
            args.sort_by_key(|arg| {
                let at = span::start(arg);
                (at.line(), at.position())
            });
            for arg in args {
                collect_references(arg, references);
            }
        }
        Expr::And(operands, ..) | Expr::Or(operands, ..) => {
            for operand in operands.iter() {
                collect_references(operand, references);
            }
        }
        _ => {}
    }
}

/// A rhai value as JSON (a value JSON cannot hold, by its type's name).
fn as_json(value: &Dynamic) -> Value {
    rhai::serde::from_dynamic(value).unwrap_or_else(|_| Value::String(value.type_name().into()))
}

#[cfg(test)]
mod tests;
