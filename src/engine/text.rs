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
        match self {
            Text::Plain(text) => text.clone(),
            Text::Translated(texts) => texts
                .get(language)
                .or_else(|| texts.get(fallback))
                .or_else(|| texts.values().next())
                .cloned()
                .unwrap_or_default(),
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
}
