//! The functions an expression may call, as the engine defines them: rhai's
//! own packages and the service's (`has_feature`, `history`'s methods), by
//! name, with how many arguments each takes and what kind of value a method
//! call on it is made on. Read once from the engine, so that the check knows
//! exactly what evaluation will find: a call the engine cannot make fails
//! at run time with "Function not found", for every Customer.

use std::any::TypeId;
use std::collections::BTreeMap;

use rhai::{Array, Engine, FLOAT, INT, ImmutableString, Map};
use rust_decimal::Decimal;

use super::shapes::Shape;
use crate::engine::history::History;

/// rhai's keywords written like functions: always callable.
const KEYWORDS: [&str; 9] = [
    "type_of",
    "is_shared",
    "call",
    "curry",
    "Fn",
    "print",
    "debug",
    "is_def_var",
    "is_def_fn",
];

/// The kind of value a function's first argument (a method's receiver) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Receiver {
    /// A map: a record of the facts, or a map authors fill.
    Map,
    /// A list.
    List,
    /// Text.
    Text,
    /// An integer, a decimal number or a float.
    Number,
    /// `true` or `false`.
    Bool,
    /// The purchase history.
    History,
    /// Any value.
    Any,
    /// Something facts never hold (a function pointer, a range, a blob).
    Other,
}

impl Receiver {
    fn of(type_id: TypeId) -> Receiver {
        if type_id == TypeId::of::<Map>() {
            Receiver::Map
        } else if type_id == TypeId::of::<Array>() {
            Receiver::List
        } else if type_id == TypeId::of::<ImmutableString>()
            || type_id == TypeId::of::<String>()
            || type_id == TypeId::of::<&str>()
            || type_id == TypeId::of::<char>()
        {
            Receiver::Text
        } else if type_id == TypeId::of::<INT>()
            || type_id == TypeId::of::<FLOAT>()
            || type_id == TypeId::of::<Decimal>()
        {
            Receiver::Number
        } else if type_id == TypeId::of::<bool>() {
            Receiver::Bool
        } else if type_id == TypeId::of::<History>() {
            Receiver::History
        } else if type_id == TypeId::of::<rhai::Dynamic>() {
            Receiver::Any
        } else {
            Receiver::Other
        }
    }

    /// The receiver a value of `shape` is; `None` when nothing is known.
    pub fn of_shape(shape: &Shape) -> Option<Receiver> {
        Some(match shape {
            Shape::Record(_) | Shape::Map(_) => Receiver::Map,
            Shape::List(_) => Receiver::List,
            Shape::Text | Shape::OneOf(..) => Receiver::Text,
            Shape::Number => Receiver::Number,
            Shape::Bool => Receiver::Bool,
            Shape::History => Receiver::History,
            Shape::Any | Shape::Nothing => return None,
        })
    }

    /// Whether a function whose first argument is `self` takes `value`.
    fn takes(self, value: Receiver) -> bool {
        self == Receiver::Any || self == value
    }
}

/// One way a function can be called.
#[derive(Debug, Clone, Copy)]
struct Signature {
    /// Its arguments, the receiver of a method call included.
    arity: usize,
    receiver: Receiver,
}

/// Every function the engine can call, by name.
#[derive(Debug, Default)]
pub struct Functions {
    by_name: BTreeMap<String, Vec<Signature>>,
}

/// Why a call cannot be made.
#[derive(Debug, PartialEq)]
pub enum CallProblem {
    /// No function has this name.
    Unknown,
    /// Functions of this name exist, none taking a receiver of this kind.
    NotOn,
    /// Functions of this name take these numbers of arguments (the
    /// receiver not counted for a method call).
    Arity(Vec<usize>),
}

impl Functions {
    /// The functions registered on `engine`, its standard packages included.
    pub fn of(engine: &Engine) -> Functions {
        let mut by_name: BTreeMap<String, Vec<Signature>> = BTreeMap::new();
        let signatures = engine.collect_fn_metadata(
            None,
            |info| {
                let metadata = info.metadata;
                let receiver = metadata
                    .param_types
                    .first()
                    .map_or(Receiver::Any, |first| Receiver::of(*first));
                Some((metadata.name.to_string(), metadata.num_params, receiver))
            },
            true,
        );
        for (name, arity, receiver) in signatures {
            by_name
                .entry(name)
                .or_default()
                .push(Signature { arity, receiver });
        }
        Functions { by_name }
    }

    /// Whether `name` is a keyword, an operator or a closure's own
    /// function: calls the check does not look up.
    fn exempt(name: &str) -> bool {
        KEYWORDS.contains(&name)
            || name.starts_with("anon$")
            || !name.starts_with(|c: char| c.is_alphabetic() || c == '_')
    }

    /// Why `name(args)` with `args` arguments cannot be called, if it
    /// cannot.
    pub fn call(&self, name: &str, args: usize) -> Option<CallProblem> {
        if Self::exempt(name) {
            return None;
        }
        let Some(signatures) = self.by_name.get(name) else {
            return Some(CallProblem::Unknown);
        };
        if signatures.iter().any(|s| s.arity == args) {
            return None;
        }
        Some(CallProblem::Arity(arities(signatures.iter(), 0)))
    }

    /// Why `receiver.name(args)` with `args` arguments cannot be called on
    /// a value of kind `receiver` (unknown: `None`), if it cannot.
    pub fn method(
        &self,
        receiver: Option<Receiver>,
        name: &str,
        args: usize,
    ) -> Option<CallProblem> {
        if Self::exempt(name) {
            return None;
        }
        let Some(signatures) = self.by_name.get(name) else {
            return Some(CallProblem::Unknown);
        };
        let on: Vec<&Signature> = signatures
            .iter()
            .filter(|s| s.arity >= 1)
            .filter(|s| receiver.is_none_or(|r| s.receiver.takes(r)))
            .collect();
        if on.is_empty() {
            return Some(CallProblem::NotOn);
        }
        if on.iter().any(|s| s.arity == args + 1) {
            return None;
        }
        Some(CallProblem::Arity(arities(on.into_iter(), 1)))
    }

    /// The names of the methods a value of kind `receiver` has.
    pub fn methods_of(&self, receiver: Option<Receiver>) -> impl Iterator<Item = &str> {
        self.by_name
            .iter()
            .filter(move |(name, signatures)| {
                !name.contains('$')
                    && signatures
                        .iter()
                        .any(|s| s.arity >= 1 && receiver.is_none_or(|r| s.receiver.takes(r)))
            })
            .map(|(name, _)| name.as_str())
    }

    /// The names of every function.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name
            .keys()
            .filter(|name| !name.contains('$'))
            .map(String::as_str)
    }
}

/// The numbers of arguments `signatures` take, less `receiver` (1 for a
/// method call's value), each once and in order.
fn arities<'a>(signatures: impl Iterator<Item = &'a Signature>, receiver: usize) -> Vec<usize> {
    let mut arities: Vec<usize> = signatures.map(|s| s.arity - receiver).collect();
    arities.sort_unstable();
    arities.dedup();
    arities
}
