//! Money expressions evaluated exactly. A discount's `amount:` or `percent:`
//! written as rhai sees every number of the facts as a decimal (so
//! `line.price * 0.5` of 1.99 is 0.995, not 0.99499..., and
//! `line.quantity / 3` of 5 is 1.666..., not 1), and the numbers the
//! expression writes (`0.5`) meet them as the decimals they are written as.

use rhai::{Dynamic, Engine, EvalAltResult, FLOAT, Position};
use rust_decimal::Decimal;
use serde_json::Value;

use crate::common::money::decimal_from_f64;
use crate::engine::script::to_dynamic_with;

/// `value` as a rhai value whose numbers are decimals.
pub fn to_exact_dynamic(value: &Value) -> Dynamic {
    to_dynamic_with(value, &|number| match number.as_i64() {
        Some(int) => Dynamic::from_decimal(Decimal::from(int)),
        None => number
            .as_f64()
            .and_then(decimal_from_f64)
            .map_or(Dynamic::UNIT, Dynamic::from_decimal),
    })
}

/// What an exact expression gave, as a decimal: a decimal, a whole number,
/// or a float read as the decimal it prints as.
pub fn decimal_result(value: &Dynamic) -> Result<Decimal, String> {
    if let Some(decimal) = value.clone().try_cast::<Decimal>() {
        return Ok(decimal);
    }
    if let Ok(int) = value.as_int() {
        return Ok(Decimal::from(int));
    }
    if let Ok(float) = value.as_float() {
        return decimal_from_f64(float).ok_or_else(|| format!("{float} is not a number"));
    }
    Err(format!("it gave {}, not a number", value.type_name()))
}

fn decimal_of(float: FLOAT) -> Result<Decimal, Box<EvalAltResult>> {
    decimal_from_f64(float).ok_or_else(|| {
        EvalAltResult::ErrorArithmetic(format!("{float} is not a number"), Position::NONE).into()
    })
}

fn overflow(operator: &str) -> Box<EvalAltResult> {
    EvalAltResult::ErrorArithmetic(format!("`{operator}` overflows"), Position::NONE).into()
}

/// Arithmetic on two decimals, checked.
type Arithmetic = fn(Decimal, Decimal) -> Option<Decimal>;

/// A comparison of two decimals.
type Comparison = fn(&Decimal, &Decimal) -> bool;

/// Arithmetic and comparisons between decimals and rhai's floats (rhai has
/// them between decimals and whole numbers only): the float is taken as the
/// decimal it is written as.
pub fn register_decimal_operators(engine: &mut Engine) {
    let arithmetic: [(&str, Arithmetic); 5] = [
        ("+", Decimal::checked_add),
        ("-", Decimal::checked_sub),
        ("*", Decimal::checked_mul),
        ("/", Decimal::checked_div),
        ("%", Decimal::checked_rem),
    ];
    for (operator, apply) in arithmetic {
        engine.register_fn(
            operator,
            move |a: Decimal, b: FLOAT| -> Result<Decimal, Box<EvalAltResult>> {
                apply(a, decimal_of(b)?).ok_or_else(|| overflow(operator))
            },
        );
        engine.register_fn(
            operator,
            move |a: FLOAT, b: Decimal| -> Result<Decimal, Box<EvalAltResult>> {
                apply(decimal_of(a)?, b).ok_or_else(|| overflow(operator))
            },
        );
    }
    let comparisons: [(&str, Comparison); 6] = [
        ("==", |a, b| a == b),
        ("!=", |a, b| a != b),
        ("<", |a, b| a < b),
        ("<=", |a, b| a <= b),
        (">", |a, b| a > b),
        (">=", |a, b| a >= b),
    ];
    for (operator, compare) in comparisons {
        engine.register_fn(
            operator,
            move |a: Decimal, b: FLOAT| -> Result<bool, Box<EvalAltResult>> {
                Ok(compare(&a, &decimal_of(b)?))
            },
        );
        engine.register_fn(
            operator,
            move |a: FLOAT, b: Decimal| -> Result<bool, Box<EvalAltResult>> {
                Ok(compare(&decimal_of(a)?, &b))
            },
        );
    }
}
