//! Translatable text in rule files: a plain string, or one string per language.
//!
//! ```yaml
//! name: Gold                      # the same in every language
//! name: { es: Oro, en: Gold }     # per language; the Company default is the fallback
//! ```

use std::collections::BTreeMap;

use serde::Deserialize;

/// A text authors may translate.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Text {
    /// One text for every language.
    Plain(String),
    /// Language code → text.
    Translated(BTreeMap<String, String>),
}

impl Text {
    /// The text in `language`, else in `fallback`, else any translation.
    pub fn resolve(&self, language: &str, fallback: &str) -> String {
        self.resolve_in(language, fallback).0
    }

    /// [`Text::resolve`], and the language of the text given (`language`
    /// for a plain text, which reads the same in every language).
    pub fn resolve_in(&self, language: &str, fallback: &str) -> (String, String) {
        match self {
            Text::Plain(text) => (text.clone(), language.to_string()),
            Text::Translated(texts) => texts
                .get_key_value(language)
                .or_else(|| texts.get_key_value(fallback))
                .or_else(|| texts.iter().next())
                .map(|(language, text)| (text.clone(), language.clone()))
                .unwrap_or_default(),
        }
    }

    /// The text in `preferred` (a language tag such as `es` or `es-MX`,
    /// matched whole or by its first part) when it has a translation there;
    /// else as [`Text::resolve_in`] gives it for `language` and `fallback`.
    pub fn resolve_preferring(
        &self,
        preferred: Option<&str>,
        language: &str,
        fallback: &str,
    ) -> (String, String) {
        let preferred = preferred.map(str::trim).filter(|p| !p.is_empty());
        if let (Text::Translated(texts), Some(preferred)) = (self, preferred) {
            let primary = preferred.split('-').next().unwrap_or(preferred);
            for tag in [preferred, primary] {
                if let Some((tag, text)) = texts.get_key_value(tag) {
                    return (text.clone(), tag.clone());
                }
            }
        }
        match (self, preferred) {
            (Text::Plain(text), Some(preferred)) => (text.clone(), preferred.to_string()),
            _ => self.resolve_in(language, fallback),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn falls_back_to_the_default_language() {
        let text: Text = serde_yaml::from_str("{ es: Oro, en: Gold }").unwrap();
        assert_eq!(text.resolve("en", "es"), "Gold");
        assert_eq!(text.resolve("fr", "es"), "Oro");
        assert_eq!(
            text.resolve("fr", "de"),
            "Gold",
            "any translation beats nothing"
        );
        let plain: Text = serde_yaml::from_str("Gold").unwrap();
        assert_eq!(plain.resolve("es", "es"), "Gold");
    }

    #[test]
    fn a_preferred_language_wins_when_the_text_has_it() {
        let text: Text = serde_yaml::from_str("{ es: Oro, en: Gold, ca: Or }").unwrap();
        let pick = |preferred, language| text.resolve_preferring(preferred, language, "es");
        assert_eq!(pick(Some("ca"), "en"), ("Or".into(), "ca".into()));
        assert_eq!(pick(Some("ca-ES"), "en"), ("Or".into(), "ca".into()));
        assert_eq!(pick(Some("fr"), "en"), ("Gold".into(), "en".into()));
        assert_eq!(pick(None, "de"), ("Oro".into(), "es".into()));
        let plain: Text = serde_yaml::from_str("Gold").unwrap();
        assert_eq!(
            plain.resolve_preferring(Some("fr"), "en", "es"),
            ("Gold".into(), "fr".into())
        );
    }
}
