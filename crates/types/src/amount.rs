//! [`Amount`]: money as it crosses the wire and the store, a plain JSON number
//! (`12.34`) held as an exact [`Decimal`].
//!
//! JSON numbers are read through the shortest decimal text of the number
//! (`1.005` stays 1.005, never 1.00499…), and written the same way, so an
//! amount with up to 15 significant digits goes out exactly as it came in.

#[cfg(feature = "openapi")]
use std::borrow::Cow;
use std::str::FromStr;

#[cfg(feature = "openapi")]
use poem_openapi::registry::{MetaSchema, MetaSchemaRef};
#[cfg(feature = "openapi")]
use poem_openapi::types::{ParseError, ParseFromJSON, ParseResult, ToJSON, Type};
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::error::ApiError;
use crate::error::ApiResult;

/// The largest amount accepted: ten billion. With at most four decimals that
/// is 14 significant digits, which every JSON client and the store's
/// number-to-decimal cast carry exactly (15 do not always survive the cast).
pub const MAX_AMOUNT: i64 = 10_000_000_000;

/// An amount of money, exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Amount(pub Decimal);

impl Amount {
    /// Nothing.
    pub const ZERO: Amount = Amount(Decimal::ZERO);

    /// The amount a JSON value holds: a number within ±[`MAX_AMOUNT`];
    /// anything else (a string, `null`, a number out of range) is refused
    /// with why.
    pub fn from_json(value: &Value) -> Result<Amount, String> {
        let Value::Number(number) = value else {
            return Err(format!("must be a number, not {value}"));
        };
        let text = number.to_string();
        Decimal::from_str(&text)
            .or_else(|_| Decimal::from_scientific(&text))
            .ok()
            .filter(|decimal| decimal.abs() <= Decimal::from(MAX_AMOUNT))
            .map(|decimal| Amount(decimal.normalize()))
            .ok_or_else(|| format!("{number} is out of range (at most {MAX_AMOUNT})"))
    }

    /// The amount a stored value holds: a number, or the decimal text the
    /// store answers decimals with.
    pub fn from_stored(value: &Value) -> Result<Amount, String> {
        match value {
            Value::String(text) => Decimal::from_str(text)
                .map(|decimal| Amount(decimal.normalize()))
                .map_err(|_| format!("`{text}` is not an amount")),
            other => Amount::from_json(other),
        }
    }

    /// The amount as the store keeps it: its exact decimal text (a JSON
    /// number would reach the store as a binary float), read back by
    /// [`Amount::from_stored`].
    pub fn to_stored(self) -> Value {
        Value::String(self.0.to_string())
    }

    /// The amount as a JSON number.
    pub fn to_json_number(self) -> Value {
        self.0
            .to_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number)
    }

    /// Whether it has no more than `minor_units` decimals.
    pub fn fits(self, minor_units: u32) -> bool {
        self.0.normalize().scale() <= minor_units
    }
}

impl Serialize for Amount {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json_number().serialize(serializer)
    }
}

/// Read from the store and from files: a number, or the decimal text the
/// store hands decimals back as. Requests go through `ParseFromJSON` (the `openapi` feature), which
/// takes numbers only.
impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Amount::from_stored(&value).map_err(serde::de::Error::custom)
    }
}

#[cfg(feature = "openapi")]
impl Type for Amount {
    const IS_REQUIRED: bool = true;

    type RawValueType = Self;

    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        "number_amount".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        let mut schema = MetaSchema::new("number");
        schema.description =
            Some("An amount of money as a plain JSON number (12.34), kept exactly as a decimal.");
        schema.minimum = Some(-(MAX_AMOUNT as f64));
        schema.maximum = Some(MAX_AMOUNT as f64);
        MetaSchemaRef::Inline(Box::new(schema))
    }

    fn as_raw_value(&self) -> Option<&Self::RawValueType> {
        Some(self)
    }

    fn raw_element_iter<'a>(
        &'a self,
    ) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

#[cfg(feature = "openapi")]
impl ParseFromJSON for Amount {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        let value = value.unwrap_or_default();
        Amount::from_json(&value).map_err(ParseError::custom)
    }
}

#[cfg(feature = "openapi")]
impl ToJSON for Amount {
    fn to_json(&self) -> Option<Value> {
        Some(self.to_json_number())
    }
}

/// An amount as a request sends it, judged where the field's name is known:
/// it always parses, so a bad one (a string, `null`, a number out of range)
/// is refused by the service with the field and line it is in rather than by
/// the framework with neither. Documented as the number it must be.
#[derive(Debug, Clone, PartialEq)]
pub struct SentAmount(Result<Amount, String>);

impl SentAmount {
    /// The amount, or 400 `invalid_request` naming `field` and what is wrong.
    pub fn amount(&self, field: &str) -> ApiResult<Amount> {
        self.0
            .clone()
            .map_err(|why| ApiError::invalid(format!("{field} {why}")))
    }

    /// The amount as money of a currency with `minor_units` decimals: at
    /// least 0 and no finer than its minor unit; otherwise 400
    /// `invalid_request` naming `field` (with its line, where it has one).
    /// Every operation that takes money checks it through here.
    pub fn money(&self, field: &str, minor_units: u32) -> ApiResult<Amount> {
        let amount = self.amount(field)?;
        if amount.0 < Decimal::ZERO {
            return Err(ApiError::invalid(format!(
                "{field} must be at least 0, not {}",
                amount.0
            )));
        }
        if !amount.fits(minor_units) {
            return Err(ApiError::invalid(format!(
                "{field} {} has more than {minor_units} decimals",
                amount.0
            )));
        }
        Ok(amount)
    }
}

impl SentAmount {
    /// The amount a request's JSON value sends (`None`: the field is
    /// absent), kept with why when it is not one.
    pub fn of_json(value: Option<Value>) -> SentAmount {
        SentAmount(Amount::from_json(&value.unwrap_or_default()))
    }
}

impl From<Amount> for SentAmount {
    fn from(amount: Amount) -> Self {
        SentAmount(Ok(amount))
    }
}

impl Serialize for SentAmount {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Ok(amount) => amount.serialize(serializer),
            Err(_) => serializer.serialize_none(),
        }
    }
}

impl<'de> Deserialize<'de> for SentAmount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Ok(SentAmount(Amount::from_stored(&value)))
    }
}

#[cfg(feature = "openapi")]
impl Type for SentAmount {
    const IS_REQUIRED: bool = true;

    type RawValueType = Self;

    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        "number_sent_amount".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        let mut schema = MetaSchema::new("number");
        schema.description = Some(
            "An amount of money as a plain JSON number (12.34), at least 0 and with no more \
             decimals than the Company's currency has.",
        );
        schema.minimum = Some(0.0);
        schema.maximum = Some(MAX_AMOUNT as f64);
        MetaSchemaRef::Inline(Box::new(schema))
    }

    fn as_raw_value(&self) -> Option<&Self::RawValueType> {
        Some(self)
    }

    fn raw_element_iter<'a>(
        &'a self,
    ) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

#[cfg(feature = "openapi")]
impl ParseFromJSON for SentAmount {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        Ok(SentAmount::of_json(value))
    }
}

#[cfg(feature = "openapi")]
impl ToJSON for SentAmount {
    fn to_json(&self) -> Option<Value> {
        self.0.as_ref().ok().and_then(ToJSON::to_json)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse(text: &str) -> Result<Amount, String> {
        Amount::from_json(&serde_json::from_str(text).unwrap())
    }

    #[test]
    fn numbers_are_read_as_the_decimal_they_are_written_as() {
        assert_eq!(parse("1.005").unwrap().0, Decimal::new(1005, 3));
        assert_eq!(
            parse("0.1").unwrap().0 + parse("0.2").unwrap().0,
            Decimal::new(3, 1)
        );
        assert_eq!(parse("12").unwrap().0, Decimal::from(12));
        assert_eq!(parse("1e2").unwrap().0, Decimal::from(100));
    }

    #[test]
    fn amounts_are_written_as_plain_numbers() {
        let amount = parse("9999.99").unwrap();
        assert_eq!(serde_json::to_string(&amount).unwrap(), "9999.99");
        assert_eq!(amount.to_json_number(), json!(9999.99));
        let round_trip: Amount = serde_json::from_str("0.3").unwrap();
        assert_eq!(serde_json::to_string(&round_trip).unwrap(), "0.3");
    }

    #[test]
    fn strings_nulls_and_huge_numbers_are_refused_with_why() {
        assert!(parse("\"12.34\"").unwrap_err().contains("must be a number"));
        assert!(parse("null").unwrap_err().contains("must be a number"));
        assert!(parse("1e300").unwrap_err().contains("out of range"));
        assert!(parse("10000000001").unwrap_err().contains("out of range"));
        assert!(Amount::from_json(&json!("1")).is_err());
        // The store answers decimals as text; reading it back takes either.
        let stored: Amount = serde_json::from_value(json!("12.30")).unwrap();
        assert_eq!(stored.0, Decimal::new(123, 1));
    }

    #[test]
    fn a_bad_sent_amount_is_refused_where_its_field_is_named() {
        let sent = SentAmount::of_json(Some(json!("12.34")));
        let error = sent.amount("line 2 price").unwrap_err();
        assert_eq!(
            error.message,
            "line 2 price must be a number, not \"12.34\""
        );
        let missing = SentAmount::of_json(None);
        assert!(missing.amount("total").is_err());
        let good = SentAmount::of_json(Some(json!(1.5)));
        assert_eq!(good.amount("total").unwrap().0, Decimal::new(15, 1));
    }

    #[test]
    fn money_is_at_least_zero_and_no_finer_than_the_minor_unit() {
        let sent = |value: Value| SentAmount::of_json(Some(value));
        assert_eq!(
            sent(json!(1.5)).money("total", 2).unwrap().0,
            Decimal::new(15, 1)
        );
        assert_eq!(
            sent(json!(-0.01)).money("total", 2).unwrap_err().message,
            "total must be at least 0, not -0.01"
        );
        assert_eq!(
            sent(json!(1.5))
                .money("line 3 price", 0)
                .unwrap_err()
                .message,
            "line 3 price 1.5 has more than 0 decimals"
        );
        assert!(sent(json!(0)).money("total", 0).is_ok());
    }

    #[test]
    fn decimals_beyond_the_minor_unit_are_told_apart() {
        assert!(parse("1.10").unwrap().fits(2));
        assert!(!parse("1.005").unwrap().fits(2));
        assert!(parse("3").unwrap().fits(0));
    }
}
