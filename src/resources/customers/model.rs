//! The Customer: identifiers, personal data, consent, loyalty membership, cards.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use poem_openapi::types::MaybeUndefined;
use poem_openapi::{Enum, Object};
use serde::{Deserialize, Serialize};

use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;

/// A Customer of a Company.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct Customer {
    /// Service identifier (`cus_...`), assigned at creation.
    pub id: String,
    /// The Company's own identifier for the Customer (unique within the Company).
    pub code: Option<String>,
    /// E-mail address, stored lowercase (unique within the Company).
    pub email: Option<String>,
    /// Phone number in international digits, e.g. `+34600111222` (unique within the Company).
    pub phone: Option<String>,
    /// Given name.
    pub first_name: Option<String>,
    /// Family name.
    pub last_name: Option<String>,
    /// Date of birth (YYYY-MM-DD).
    pub birth_date: Option<NaiveDate>,
    /// Gender as the Company records it.
    pub gender: Option<String>,
    /// Preferred language code, e.g. `es`.
    pub language: Option<String>,
    /// ISO 3166-1 alpha-2 country code.
    pub country: Option<String>,
    /// Postal code.
    pub postal_code: Option<String>,
    /// Inactive Customers cannot take part in operations that need an active one.
    pub active: bool,
    /// Whether the Customer is enrolled in the loyalty programme.
    pub loyalty_member: bool,
    /// When the Customer enrolled.
    pub enrolled_at: Option<Timestamp>,
    /// Consent the Customer gave.
    pub consents: Consents,
    /// Cards the Customer holds.
    pub cards: Vec<Card>,
    /// Custom fields of the Company (searchable).
    pub attributes: BTreeMap<String, serde_json::Value>,
    /// Set when the Customer was anonymized: personal data is gone for good.
    pub anonymized_at: Option<Timestamp>,
    /// Set while the Customer is merged into another one (its id).
    pub merged_into: Option<String>,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
}

/// What the Customer agreed to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Object)]
pub struct Consents {
    /// Accepted the programme's terms and conditions.
    #[oai(default)]
    #[serde(default)]
    pub terms: bool,
    /// Accepts marketing by e-mail.
    #[oai(default)]
    #[serde(default)]
    pub marketing_email: bool,
    /// Accepts marketing by SMS.
    #[oai(default)]
    #[serde(default)]
    pub marketing_sms: bool,
    /// Accepts push notifications.
    #[oai(default)]
    #[serde(default)]
    pub marketing_push: bool,
    /// When consent was last recorded (set by the service).
    #[oai(read_only)]
    #[serde(default)]
    pub recorded_at: Option<Timestamp>,
}

/// A loyalty card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Object)]
pub struct Card {
    /// Card number (unique within the Company).
    pub number: String,
    /// Free label, e.g. `physical` or `digital`.
    pub kind: Option<String>,
    /// When the card was attached.
    pub created_at: Timestamp,
}

/// What [`normalise_email`] accepts, as the spec states it.
pub const EMAIL_PATTERN: &str = "^\\s*[^@\\s\\x00-\\x1f\\x7f-\\x9f]+@[^@\\s.\\x00-\\x1f\\x7f-\\x9f][^@\\s\\x00-\\x1f\\x7f-\\x9f]*\\.[^@\\s\\x00-\\x1f\\x7f-\\x9f]*[^@\\s.\\x00-\\x1f\\x7f-\\x9f]\\s*$";

/// What [`normalise_phone`] accepts, as the spec states it.
pub const PHONE_PATTERN: &str = "^\\s*\\+?[ .()-]*([0-9][ .()-]*){6,15}\\s*$";

/// What [`normalise_country`] accepts, as the spec states it.
pub const COUNTRY_PATTERN: &str = "^\\s*[A-Za-z]{2}\\s*$";

/// What a language code may be, as the spec states it.
pub const LANGUAGE_PATTERN: &str = "^\\s*[a-z]{2,3}(-[A-Za-z0-9]{2,8})*\\s*$";

/// What [`normalise_card`] accepts, as the spec states it.
pub const CARD_PATTERN: &str = "^\\s*[A-Za-z0-9-]{1,64}\\s*$";

/// The patterns of the Customer fields, by (schema, field), for the spec.
/// They are not poem-openapi validators: those compile their regex on every
/// request; the request-shape check compiles each once.
pub const FIELD_PATTERNS: &[(&str, &str, &str)] = &[
    ("NewCustomer", "email", EMAIL_PATTERN),
    ("CustomerPatch", "email", EMAIL_PATTERN),
    ("NewCustomer", "phone", PHONE_PATTERN),
    ("CustomerPatch", "phone", PHONE_PATTERN),
    ("NewCustomer", "country", COUNTRY_PATTERN),
    ("CustomerPatch", "country", COUNTRY_PATTERN),
    ("NewCustomer", "language", LANGUAGE_PATTERN),
    ("CustomerPatch", "language", LANGUAGE_PATTERN),
    ("NewCard", "number", CARD_PATTERN),
];

/// The fields an integrator sends to create a Customer.
#[derive(Debug, Clone, Default, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct NewCustomer {
    /// The Company's own identifier.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub code: Option<String>,
    /// E-mail address.
    #[oai(validator(max_length = 254))]
    pub email: Option<String>,
    /// Phone number; spaces, dots, dashes and brackets are ignored.
    #[oai(validator(max_length = 40))]
    pub phone: Option<String>,
    /// Given name.
    #[oai(validator(max_length = 200))]
    pub first_name: Option<String>,
    /// Family name.
    #[oai(validator(max_length = 200))]
    pub last_name: Option<String>,
    /// Date of birth (YYYY-MM-DD).
    pub birth_date: Option<NaiveDate>,
    /// Gender.
    #[oai(validator(max_length = 200))]
    pub gender: Option<String>,
    /// Preferred language code.
    #[oai(validator(max_length = 35))]
    pub language: Option<String>,
    /// ISO 3166-1 alpha-2 country code.
    #[oai(validator(max_length = 8))]
    pub country: Option<String>,
    /// Postal code.
    #[oai(validator(max_length = 200))]
    pub postal_code: Option<String>,
    /// Enroll in the loyalty programme (default true).
    pub enroll: Option<bool>,
    /// Consent given at enrollment.
    pub consents: Option<Consents>,
    /// Cards to attach.
    #[oai(validator(max_items = 20))]
    pub cards: Option<Vec<NewCard>>,
    /// Custom fields.
    #[oai(validator(max_properties = 100))]
    pub attributes: Option<BTreeMap<String, serde_json::Value>>,
}

/// A card to attach.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct NewCard {
    /// Card number.
    #[oai(validator(max_length = 80))]
    pub number: String,
    /// Free label, e.g. `physical` or `digital`.
    #[oai(validator(max_length = 64))]
    pub kind: Option<String>,
}

/// A partial update: absent fields are kept, `null` clears a field.
#[derive(Debug, Clone, Default, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct CustomerPatch {
    /// New code, or null to clear.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub code: MaybeUndefined<String>,
    /// New e-mail, or null to clear.
    #[oai(validator(max_length = 254))]
    pub email: MaybeUndefined<String>,
    /// New phone, or null to clear.
    #[oai(validator(max_length = 40))]
    pub phone: MaybeUndefined<String>,
    /// Given name.
    #[oai(validator(min_length = 1, max_length = 200))]
    pub first_name: MaybeUndefined<String>,
    /// Family name.
    #[oai(validator(min_length = 1, max_length = 200))]
    pub last_name: MaybeUndefined<String>,
    /// Date of birth.
    pub birth_date: MaybeUndefined<NaiveDate>,
    /// Gender.
    #[oai(validator(min_length = 1, max_length = 200))]
    pub gender: MaybeUndefined<String>,
    /// Preferred language.
    #[oai(validator(max_length = 35))]
    pub language: MaybeUndefined<String>,
    /// Country.
    #[oai(validator(max_length = 8))]
    pub country: MaybeUndefined<String>,
    /// Postal code.
    #[oai(validator(min_length = 1, max_length = 200))]
    pub postal_code: MaybeUndefined<String>,
    /// Activate or deactivate.
    pub active: Option<bool>,
    /// Enroll (true) or leave (false) the loyalty programme.
    pub loyalty_member: Option<bool>,
    /// Replace the recorded consent.
    pub consents: Option<Consents>,
    /// Custom fields to set; a null value removes that field.
    #[oai(validator(max_properties = 100))]
    pub attributes: Option<BTreeMap<String, serde_json::Value>>,
}

/// Which identifier a `{value}` path parameter is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, Enum)]
#[oai(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum SearchBy {
    /// The service id (`cus_...`).
    #[default]
    Id,
    /// The Company's code.
    Code,
    /// E-mail address.
    Email,
    /// Phone number.
    Phone,
    /// A card number.
    Card,
}

impl SearchBy {
    /// The name used in storage keys and messages.
    pub const fn as_str(self) -> &'static str {
        match self {
            SearchBy::Id => "id",
            SearchBy::Code => "code",
            SearchBy::Email => "email",
            SearchBy::Phone => "phone",
            SearchBy::Card => "card",
        }
    }

    /// Normalises `value` the way the identifier is stored.
    pub fn normalise(self, value: &str) -> ApiResult<String> {
        match self {
            SearchBy::Id => Ok(value.trim().to_string()),
            SearchBy::Code => normalise_code(value),
            SearchBy::Email => normalise_email(value),
            SearchBy::Phone => normalise_phone(value),
            SearchBy::Card => normalise_card(value),
        }
    }
}

/// A new Customer id: time-ordered, so ids sort in creation order.
pub fn new_customer_id() -> String {
    crate::common::ids::time_ordered_id("cus")
}

/// Whether `c` is an invisible formatting character (Unicode's Cf: zero-width
/// space and joiners, the byte order mark, the word joiner, the soft hyphen,
/// direction marks and overrides): two identifiers differing by one look
/// the same and would name two Customers.
fn invisible(c: char) -> bool {
    matches!(c,
        '\u{00ad}' | '\u{0600}'..='\u{0605}' | '\u{061c}' | '\u{06dd}' | '\u{070f}'
        | '\u{0890}'..='\u{0891}' | '\u{08e2}' | '\u{180e}' | '\u{200b}'..='\u{200f}'
        | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}'
        | '\u{feff}' | '\u{fff9}'..='\u{fffb}' | '\u{e0001}' | '\u{e0020}'..='\u{e007f}')
}

/// An identifier as it is kept and compared: trimmed and in Unicode's
/// composed form (NFC), so `é` typed at a till (NFD, `e` and an accent)
/// names the Customer an app created with `é`; one with an invisible
/// formatting character is refused, naming `field`.
fn identifier_text(field: &str, value: &str) -> ApiResult<String> {
    if let Some(found) = value.chars().find(|c| invisible(*c)) {
        return Err(ApiError::invalid(format!(
            "`{field}` contains an invisible formatting character (U+{:04X}): identifiers are compared as they are written, and one that looks the same would name another Customer",
            u32::from(found)
        )));
    }
    let composed = icu_normalizer::ComposingNormalizerBorrowed::new_nfc().normalize(value.trim());
    Ok(composed.into_owned())
}

/// Trims a code, puts it in NFC and checks its length and characters.
pub fn normalise_code(value: &str) -> ApiResult<String> {
    let code = identifier_text("code", value)?;
    if code.is_empty() || code.chars().count() > 128 || code.chars().any(char::is_control) {
        return Err(ApiError::invalid(
            "code must be 1 to 128 printable characters",
        ));
    }
    Ok(code)
}

/// Lowercases, puts in NFC and checks an e-mail address.
pub fn normalise_email(value: &str) -> ApiResult<String> {
    let email = identifier_text("email", value)?.to_lowercase();
    let valid = email.len() <= 254
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
        && email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && !domain.contains('@')
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
        });
    if valid {
        Ok(email)
    } else {
        Err(ApiError::invalid(format!(
            "`{}` is not an e-mail address",
            value.trim()
        )))
    }
}

/// Strips separators from a phone number and checks it has 6 to 15 digits.
pub fn normalise_phone(value: &str) -> ApiResult<String> {
    let trimmed = value.trim();
    let (plus, rest) = match trimmed.strip_prefix('+') {
        Some(rest) => ("+", rest),
        None => ("", trimmed),
    };
    let digits: String = rest
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '.' | '(' | ')'))
        .collect();
    if (6..=15).contains(&digits.len()) && digits.chars().all(|c| c.is_ascii_digit()) {
        Ok(format!("{plus}{digits}"))
    } else {
        Err(ApiError::invalid(format!(
            "`{trimmed}` is not a phone number (6 to 15 digits, optional leading +)"
        )))
    }
}

/// Trims a card number and checks its characters.
pub fn normalise_card(value: &str) -> ApiResult<String> {
    let number = value.trim();
    let valid = !number.is_empty()
        && number.len() <= 64
        && number
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-');
    if valid {
        Ok(number.to_string())
    } else {
        Err(ApiError::invalid(format!(
            "`{number}` is not a card number (1 to 64 letters, digits or `-`)"
        )))
    }
}

/// Trims a free-text field; empty means absent. Rejects overly long text.
pub fn clean_text(field: &str, value: Option<String>) -> ApiResult<Option<String>> {
    let Some(value) = value else { return Ok(None) };
    let value = value.trim().to_string();
    if value.chars().count() > 200 {
        return Err(ApiError::invalid(format!(
            "{field} has at most 200 characters"
        )));
    }
    Ok((!value.is_empty()).then_some(value))
}

/// Checks a date of birth: not after `today` (dates before 1900 are refused
/// with every other date out of the accepted window, by the request check).
pub fn checked_birth_date(date: NaiveDate, today: NaiveDate) -> ApiResult<NaiveDate> {
    if date > today {
        return Err(ApiError::invalid(format!(
            "`birth_date` {date} is in the future"
        )));
    }
    Ok(date)
}

/// Checks an ISO 3166-1 alpha-2 country code, returned uppercase.
pub fn normalise_country(value: &str) -> ApiResult<String> {
    let country = value.trim().to_uppercase();
    if country.len() == 2 && country.chars().all(|c| c.is_ascii_uppercase()) {
        Ok(country)
    } else {
        Err(ApiError::invalid(format!(
            "`{value}` is not an ISO 3166-1 alpha-2 country code"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_patterns_accept_what_the_normalisers_accept() {
        let email = regex::Regex::new(EMAIL_PATTERN).unwrap();
        for text in [
            "ana@example.com",
            " Ana@Example.COM ",
            "ana@example",
            "a b@example.com",
        ] {
            assert_eq!(
                email.is_match(text),
                normalise_email(text).is_ok(),
                "{text}"
            );
        }
        let phone = regex::Regex::new(PHONE_PATTERN).unwrap();
        for text in ["+34 600-11.22 (33)", "12345", "+34 600 abc", "600112233"] {
            assert_eq!(
                phone.is_match(text),
                normalise_phone(text).is_ok(),
                "{text}"
            );
        }
        let card = regex::Regex::new(CARD_PATTERN).unwrap();
        for text in ["AB-12", "", "a b", " 12 "] {
            assert_eq!(card.is_match(text), normalise_card(text).is_ok(), "{text}");
        }
    }

    #[test]
    fn identifiers_normalise() {
        assert_eq!(
            normalise_email(" Ana@Example.COM ").unwrap(),
            "ana@example.com"
        );
        assert!(normalise_email("ana@example").is_err());
        assert!(normalise_email("a b@example.com").is_err());
        assert_eq!(
            normalise_phone("+34 600-11.22 (33)").unwrap(),
            "+34600112233"
        );
        assert!(normalise_phone("12345").is_err());
        assert!(normalise_phone("+34 600 abc").is_err());
        assert_eq!(normalise_card(" 4000-11 ".trim()).unwrap(), "4000-11");
        assert!(normalise_card("40 00").is_err());
        assert!(normalise_code("").is_err());
        assert_eq!(normalise_country("es").unwrap(), "ES");
    }

    #[test]
    fn ids_sort_in_creation_order() {
        let a = new_customer_id();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = new_customer_id();
        assert!(a < b);
    }
}
