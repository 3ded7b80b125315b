//! The language a response is written in: the Company's language that best
//! matches an Accept-Language header ([`negotiate`]), carried with the
//! Company's default and locale as a [`Language`].

use crate::common::locale::Locale;

/// Picks the Company language that best matches an Accept-Language header:
/// the highest-weighted range that names one of `languages` exactly or by its
/// primary subtag (`es-ES` matches `es`); otherwise `default`.
pub fn negotiate(accept_language: Option<&str>, languages: &[String], default: &str) -> String {
    let mut ranges: Vec<(f32, usize, &str)> = accept_language
        .unwrap_or_default()
        .split(',')
        .enumerate()
        .filter_map(|(position, part)| {
            let mut pieces = part.trim().split(';');
            let range = pieces.next()?.trim();
            let quality = pieces
                .find_map(|p| p.trim().strip_prefix("q="))
                .and_then(|q| q.parse::<f32>().ok())
                .unwrap_or(1.0);
            (!range.is_empty() && quality > 0.0).then_some((quality, position, range))
        })
        .collect();
    ranges.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, _, range) in ranges {
        let range = range.to_ascii_lowercase();
        let primary = range.split('-').next().unwrap_or_default();
        let found = languages
            .iter()
            .find(|l| l.to_ascii_lowercase() == range)
            .or_else(|| languages.iter().find(|l| l.to_ascii_lowercase() == primary))
            .or_else(|| {
                languages.iter().find(|l| {
                    l.split('-')
                        .next()
                        .is_some_and(|p| p.eq_ignore_ascii_case(primary))
                })
            });
        if let Some(language) = found {
            return language.clone();
        }
    }
    default.to_string()
}

/// The language of a response, and the Company default it falls back to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Language {
    /// The language answered in (sent as Content-Language).
    pub chosen: String,
    /// The Company's default language.
    pub default: String,
    /// The Company's currency and time zone, for the amounts and times the
    /// response shows.
    pub locale: Locale,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn langs() -> Vec<String> {
        vec!["es".into(), "en".into(), "pt-BR".into()]
    }

    #[test]
    fn negotiation() {
        assert_eq!(negotiate(Some("en"), &langs(), "es"), "en");
        assert_eq!(negotiate(Some("en-GB,en;q=0.9"), &langs(), "es"), "en");
        assert_eq!(negotiate(Some("fr, en;q=0.5"), &langs(), "es"), "en");
        assert_eq!(
            negotiate(Some("de;q=1, es;q=0.2, en;q=0.8"), &langs(), "es"),
            "en"
        );
        assert_eq!(negotiate(Some("pt"), &langs(), "es"), "pt-BR");
        assert_eq!(negotiate(Some("fr"), &langs(), "es"), "es");
        assert_eq!(negotiate(Some("en;q=0"), &langs(), "es"), "es");
        assert_eq!(negotiate(None, &langs(), "es"), "es");
        assert_eq!(negotiate(Some("*"), &langs(), "es"), "es");
    }
}
