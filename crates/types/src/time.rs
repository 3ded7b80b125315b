//! [`Timestamp`]: a DateTime as the interface writes it, `YYYY-MM-DDThh:mm:ssZ`.

use std::borrow::Cow;
use std::fmt;

use chrono::{DateTime, SecondsFormat, Utc};
#[cfg(feature = "openapi")]
use poem_openapi::registry::{MetaSchema, MetaSchemaRef};
#[cfg(feature = "openapi")]
use poem_openapi::types::{
    ParseError, ParseFromJSON, ParseFromParameter, ParseResult, ToJSON, Type,
};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A UTC instant, written at second precision with a `Z` suffix.
///
/// Written this way it sorts lexicographically in time order, which is what the
/// store relies on when it compares or orders stored timestamps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub DateTime<Utc>);

impl Timestamp {
    /// The earliest DateTime a request may send.
    pub const EARLIEST: &'static str = "1900-01-01T00:00:00Z";

    /// The latest DateTime a request may send.
    pub const LATEST: &'static str = "2199-12-31T23:59:59Z";

    /// Whether it lies between [`Self::EARLIEST`] and [`Self::LATEST`]:
    /// wide enough for any birth date and any campaign, narrow enough that
    /// year 1 or 9999 is refused as the typo it is.
    pub fn is_in_window(&self) -> bool {
        const EARLIEST_SECONDS: i64 = -2_208_988_800;
        const LATEST_SECONDS: i64 = 7_258_118_399;
        (EARLIEST_SECONDS..=LATEST_SECONDS).contains(&self.0.timestamp())
    }

    /// The current instant, truncated to whole seconds.
    pub fn now() -> Timestamp {
        Timestamp::from(Utc::now())
    }

    /// The wrapped instant.
    pub fn as_datetime(&self) -> DateTime<Utc> {
        self.0
    }
}

impl From<DateTime<Utc>> for Timestamp {
    fn from(value: DateTime<Utc>) -> Self {
        use chrono::Timelike;
        Timestamp(value.with_nanosecond(0).unwrap_or(value))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.to_rfc3339_opts(SecondsFormat::Secs, true))
    }
}

/// Why a text is not a [`Timestamp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimestampRefused {
    /// Not an RFC 3339 date and time with its offset.
    NotADateTime,
    /// Second 60: a leap second, which the service's clocks never show and
    /// would silently read as second 59.
    LeapSecond,
    /// More than nine fractional digits, which would be cut silently.
    TooPrecise,
}

impl fmt::Display for TimestampRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimestampRefused::NotADateTime => "expected a DateTime such as 2024-05-01T10:00:00Z",
            TimestampRefused::LeapSecond => {
                "a leap second (second 60) is not accepted: send second 59 or the next minute"
            }
            TimestampRefused::TooPrecise => "at most 9 fractional digits of a second are accepted",
        })
    }
}

impl std::error::Error for TimestampRefused {}

impl std::str::FromStr for Timestamp {
    type Err = TimestampRefused;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        let parsed =
            DateTime::parse_from_rfc3339(value).map_err(|_| TimestampRefused::NotADateTime)?;
        if parsed.timestamp_subsec_nanos() >= 1_000_000_000 {
            return Err(TimestampRefused::LeapSecond);
        }
        let fraction = value.split_once('.').map_or(0, |(_, rest)| {
            rest.chars().take_while(char::is_ascii_digit).count()
        });
        if fraction > 9 {
            return Err(TimestampRefused::TooPrecise);
        }
        Ok(Timestamp::from(parsed.with_timezone(&Utc)))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Cow::<str>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(feature = "openapi")]
impl Type for Timestamp {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        "string_date-time".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema::new_with_format("string", "date-time")))
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
impl ParseFromJSON for Timestamp {
    fn parse_from_json(value: Option<serde_json::Value>) -> ParseResult<Self> {
        match value.unwrap_or_default() {
            serde_json::Value::String(text) => text
                .parse()
                .map_err(|refused: TimestampRefused| ParseError::custom(refused.to_string())),
            other => Err(ParseError::expected_type(other)),
        }
    }
}

#[cfg(feature = "openapi")]
impl ParseFromParameter for Timestamp {
    fn parse_from_parameter(value: &str) -> ParseResult<Self> {
        value
            .parse()
            .map_err(|refused: TimestampRefused| ParseError::custom(refused.to_string()))
    }
}

#[cfg(feature = "openapi")]
impl ToJSON for Timestamp {
    fn to_json(&self) -> Option<serde_json::Value> {
        Some(serde_json::Value::String(self.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_seconds_and_z() {
        let t: Timestamp = "2024-05-01T10:00:00.123+02:00".parse().unwrap();
        assert_eq!(t.to_string(), "2024-05-01T08:00:00Z");
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            "\"2024-05-01T08:00:00Z\""
        );
    }

    #[test]
    fn the_window_is_what_its_ends_say() {
        for (text, inside) in [
            (Timestamp::EARLIEST, true),
            (Timestamp::LATEST, true),
            ("1899-12-31T23:59:59Z", false),
            ("2200-01-01T00:00:00Z", false),
            ("0001-01-01T00:00:00Z", false),
            ("9999-12-31T00:00:00Z", false),
            ("2026-11-24T10:00:00Z", true),
        ] {
            let at: Timestamp = text.parse().unwrap();
            assert_eq!(at.is_in_window(), inside, "{text}");
        }
    }

    #[test]
    fn text_order_is_time_order() {
        let a: Timestamp = "2024-05-01T08:00:00Z".parse().unwrap();
        let b: Timestamp = "2024-05-01T08:00:01Z".parse().unwrap();
        assert!(a < b);
        assert!(a.to_string() < b.to_string());
    }
}
