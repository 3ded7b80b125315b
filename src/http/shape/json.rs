//! Reading a request body as JSON, strictly: a key repeated in one object is
//! refused (a lenient reader keeps the last, so `"price":1,"price":1000`
//! would earn on 1000 while a log or a proxy shows 1), as is nesting deeper
//! than [`MAX_DEPTH`].

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Deepest nesting of arrays and objects a body may have.
pub const MAX_DEPTH: usize = 32;

/// `bytes` as JSON, or why not, for a person to read.
pub fn parse_strict(bytes: &[u8]) -> Result<Value, String> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value = StrictValue { depth: 0 }
        .deserialize(&mut deserializer)
        .map_err(|error| error.to_string())?;
    deserializer.end().map_err(|error| error.to_string())?;
    Ok(value)
}

/// A JSON value at nesting `depth`.
#[derive(Clone, Copy)]
struct StrictValue {
    depth: usize,
}

impl StrictValue {
    fn nested<E: de::Error>(self) -> Result<StrictValue, E> {
        if self.depth >= MAX_DEPTH {
            return Err(E::custom(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        Ok(StrictValue {
            depth: self.depth + 1,
        })
    }
}

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictValue {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value, E> {
        Number::from_f64(value)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number out of range"))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_string()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let inner = self.nested()?;
        let mut items = Vec::with_capacity(access.size_hint().unwrap_or(0).min(64));
        while let Some(item) = access.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let inner = self.nested()?;
        let mut object = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "the key `{key}` appears twice in one object"
                )));
            }
            let value = access.next_value_seed(inner)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_key_is_refused_wherever_it_is() {
        let error = parse_strict(br#"{"lines":[{"price":1,"price":1000}]}"#).unwrap_err();
        assert!(error.contains("the key `price` appears twice"), "{error}");
        assert!(parse_strict(br#"{"a":{"b":1},"c":{"b":2}}"#).is_ok());
    }

    #[test]
    fn deep_nesting_and_bad_text_are_refused() {
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(
            parse_strict(deep.as_bytes())
                .unwrap_err()
                .contains("nesting")
        );
        let shallow = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse_strict(shallow.as_bytes()).is_ok());
        assert!(parse_strict(b"{\"a\":\"\xff\"}").is_err());
        assert!(parse_strict(b"{\"a\":1e400}").is_err());
        assert!(parse_strict(b"{} trailing").is_err());
    }

    #[test]
    fn values_read_as_a_lenient_reader_reads_them() {
        let text = br#"{"a":[1,-2,3.5,"x",true,null,{"b":{}}],"c":18446744073709551615}"#;
        assert_eq!(
            parse_strict(text).unwrap(),
            serde_json::from_slice::<Value>(text).unwrap()
        );
    }
}
