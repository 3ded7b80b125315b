//! Voucher codes: the one normalisation every code goes through before it is
//! stored, looked up or consumed, and the patterns unique codes are drawn
//! from.
//!
//! A code is written with letters, digits and `-`. Its key (what the store
//! and every comparison use) ignores case, spaces and dashes, and reads the
//! characters people confuse as one: `O` as `0`, `I` and `L` as `1`. So
//! `" summer-1O "` and `SUMMER10` are one code, redeemed once, and a code
//! read out over the phone is found however it is typed. Generated codes
//! leave the confusable characters out altogether.

use crate::error::ErrorCode;
use rand::Rng;

/// The characters a generated code draws from by default: digits and
/// capital letters without `0`, `O`, `1`, `I` and `L`.
pub const DEFAULT_CHARSET: &str = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";

/// The pattern of generated codes when a Coupon names none.
pub const DEFAULT_PATTERN: &str = "LOY-####-####";

/// How many codes are drawn for one issue of Vouchers before it gives up:
/// a drawn code is taken one time in a million or less, so a second draw is
/// already rare.
pub const CODE_DRAWS: u32 = 6;

/// The refusal after which Vouchers are issued again with new codes.
pub const CODE_TAKEN: &[ErrorCode] = &[ErrorCode::VoucherCodeTaken];

/// Longest code, as written.
pub const MAX_CODE_LENGTH: usize = 64;

/// The share of a pattern's codes that may be issued: beyond it, codes are
/// easy to guess and new ones slow to find.
pub const MAX_KEYSPACE_SHARE: f64 = 0.01;

/// A code's key: upper case, without spaces and dashes, confusable
/// characters read as the digit they look like. `None` when the code holds
/// anything but letters, digits, spaces and dashes, or no letter or digit.
pub fn code_key(code: &str) -> Option<String> {
    let mut key = String::with_capacity(code.len());
    for character in code.chars() {
        match character.to_ascii_uppercase() {
            ' ' | '-' => {}
            'O' => key.push('0'),
            'I' | 'L' => key.push('1'),
            c if c.is_ascii_alphanumeric() => key.push(c),
            _ => return None,
        }
    }
    (!key.is_empty() && code.chars().count() <= MAX_CODE_LENGTH).then_some(key)
}

/// Why a code as written cannot be one.
pub fn check_code(code: &str) -> Result<(), String> {
    if code.trim() != code || code.is_empty() {
        return Err(format!(
            "code `{code}` must not be empty or start or end with a space"
        ));
    }
    code_key(code).map(|_| ()).ok_or_else(|| {
        format!("code `{code}` must be 1 to {MAX_CODE_LENGTH} letters, digits, spaces or dashes")
    })
}

/// A pattern of generated codes: `#` is one character drawn from the
/// charset, anything else is written as is (`LOY-####-####`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodePattern {
    pattern: String,
    charset: Vec<char>,
}

impl CodePattern {
    /// The pattern `pattern` over `charset` (the default one when `None`),
    /// or why it cannot be one.
    pub fn new(pattern: &str, charset: Option<&str>) -> Result<CodePattern, String> {
        let charset: Vec<char> = charset.unwrap_or(DEFAULT_CHARSET).chars().collect();
        if charset.len() < 2 {
            return Err("charset has at least 2 characters".into());
        }
        let mut keys: Vec<String> = Vec::with_capacity(charset.len());
        for character in &charset {
            let key = code_key(&character.to_string())
                .filter(|key| key.len() == 1)
                .ok_or_else(|| {
                    format!("charset holds letters and digits only, not `{character}`")
                })?;
            if keys.contains(&key) {
                return Err(format!(
                    "charset holds `{character}` and a character read the same (O and 0, I, L and 1, or a letter twice)"
                ));
            }
            keys.push(key);
        }
        let random = pattern.chars().filter(|c| *c == '#').count();
        if random == 0 {
            return Err(format!(
                "code_pattern `{pattern}` has no `#` (a character drawn at random)"
            ));
        }
        check_code(&pattern.replace('#', "A"))
            .map_err(|_| format!("code_pattern `{pattern}` must be 1 to {MAX_CODE_LENGTH} letters, digits, dashes or `#`"))?;
        Ok(CodePattern {
            pattern: pattern.to_string(),
            charset,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// How many different codes the pattern can give.
    pub fn keyspace(&self) -> f64 {
        let random = self.pattern.chars().filter(|c| *c == '#').count();
        (self.charset.len() as f64).powi(random as i32)
    }

    /// Whether `issued` codes in all stay within [`MAX_KEYSPACE_SHARE`] of
    /// the keyspace; when not, the arithmetic that says why.
    pub fn admits(&self, issued: u64) -> Result<(), String> {
        let keyspace = self.keyspace();
        let allowed = (keyspace * MAX_KEYSPACE_SHARE).floor();
        if (issued as f64) <= allowed {
            return Ok(());
        }
        let random = self.pattern.chars().filter(|c| *c == '#').count();
        Err(format!(
            "`{}` gives {}^{random} = {keyspace:.0} codes; {issued} would be more than {}% of them ({allowed:.0}), which makes codes guessable: lengthen the pattern",
            self.pattern,
            self.charset.len(),
            MAX_KEYSPACE_SHARE * 100.0
        ))
    }

    /// A new code drawn from the pattern.
    pub fn generate(&self, rng: &mut impl Rng) -> String {
        self.pattern
            .chars()
            .map(|c| match c {
                '#' => self.charset[rng.random_range(0..self.charset.len())],
                other => other,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use proptest::prelude::*;
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn a_code_is_one_whatever_its_case_spaces_dashes_and_confusable_characters() {
        let key = code_key("SUMMER10");
        for written in [
            "summer10",
            " SUMMER10 ",
            "SUMMER-10",
            "SUMMERIO",
            "sumMer lo",
        ] {
            assert_eq!(code_key(written), key, "{written}");
        }
        assert_ne!(code_key("SUMMER11X"), key);
        assert_eq!(code_key(""), None);
        assert_eq!(code_key(" - "), None);
        assert_eq!(code_key("SUMMER_10"), None);
        assert_eq!(code_key("CAFÉ"), None);
        assert_eq!(code_key(&"A".repeat(65)), None);
    }

    #[test]
    fn a_code_as_written_is_checked() {
        assert!(check_code("SUMMER10").is_ok());
        assert!(check_code("LOY-2345-ABCD").is_ok());
        assert!(check_code(" SUMMER10").is_err());
        assert!(check_code("").is_err());
        assert!(check_code("50%").is_err());
    }

    #[test]
    fn patterns_are_checked_with_reasons() {
        assert!(CodePattern::new(DEFAULT_PATTERN, None).is_ok());
        let no_random = CodePattern::new("SUMMER", None).unwrap_err();
        assert!(no_random.contains("no `#`"), "{no_random}");
        let confusable = CodePattern::new("####", Some("AB0O")).unwrap_err();
        assert!(confusable.contains("read the same"), "{confusable}");
        let symbol = CodePattern::new("####", Some("AB$")).unwrap_err();
        assert!(symbol.contains("letters and digits"), "{symbol}");
        assert!(CodePattern::new("LOY_####", None).is_err());
    }

    #[test]
    fn a_bulk_issue_beyond_one_percent_of_the_keyspace_is_refused_with_the_arithmetic() {
        let pattern = CodePattern::new("X-####", Some("0123456789")).unwrap();
        assert_eq!(pattern.keyspace(), 10_000.0);
        assert!(pattern.admits(100).is_ok());
        let refused = pattern.admits(101).unwrap_err();
        assert!(refused.contains("10^4 = 10000"), "{refused}");
        assert!(refused.contains("(100)"), "{refused}");
    }

    #[test]
    fn generated_codes_follow_the_pattern_and_leave_confusable_characters_out() {
        let pattern = CodePattern::new(DEFAULT_PATTERN, None).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut keys = HashSet::new();
        for _ in 0..10_000 {
            let code = pattern.generate(&mut rng);
            assert_eq!(code.len(), DEFAULT_PATTERN.len());
            assert!(
                code.starts_with("LOY-") && code.as_bytes()[8] == b'-',
                "{code}"
            );
            assert!(!code[4..].contains(['0', 'O', '1', 'I', 'L']), "{code}");
            keys.insert(code_key(&code).unwrap());
        }
        // 31^8 codes: 10,000 draws collide with a chance of about 6 in 10^5.
        assert!(keys.len() >= 9_999);
    }

    proptest! {
        /// The key is the code's one identity: normalising it again changes
        /// nothing, and it survives any mix of case, spaces and dashes.
        #[test]
        fn the_key_is_stable_under_what_it_ignores(
            code in "[A-Za-z0-9]{1,20}",
            separators in proptest::collection::vec((0usize..20, prop_oneof![Just(' '), Just('-')]), 0..4),
            upper in any::<bool>(),
        ) {
            let key = code_key(&code).unwrap();
            prop_assert_eq!(code_key(&key), Some(key.clone()));
            let mut written: String = if upper { code.to_uppercase() } else { code.to_lowercase() };
            for (at, separator) in separators {
                let at = at.min(written.len());
                written.insert(at, separator);
            }
            prop_assert_eq!(code_key(&written), Some(key));
        }
    }
}
