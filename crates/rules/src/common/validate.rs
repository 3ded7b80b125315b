//! Validation of the identifiers every resource shares: slugs and language codes.

use crate::error::{ApiError, ApiResult};

/// Checks a Slug: 1 to 64 letters, digits, underscores or hyphens.
pub fn validate_slug(what: &str, slug: &str) -> ApiResult<()> {
    let valid = !slug.is_empty()
        && slug.len() <= 64
        && slug
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if valid {
        Ok(())
    } else {
        Err(ApiError::invalid(format!(
            "{what} `{slug}` is not a slug: use 1 to 64 letters, digits, `_` or `-`"
        )))
    }
}

/// Checks a language code such as `es`, `en` or `pt-BR`.
pub fn validate_language(code: &str) -> ApiResult<()> {
    let mut parts = code.split('-');
    let primary_ok = parts
        .next()
        .is_some_and(|p| (2..=3).contains(&p.len()) && p.chars().all(|c| c.is_ascii_lowercase()));
    let rest_ok =
        parts.all(|p| (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()));
    if primary_ok && rest_ok {
        Ok(())
    } else {
        Err(ApiError::invalid(format!(
            "`{code}` is not a language code (expected e.g. `es`, `en` or `pt-BR`)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert!(validate_slug("Company", "demo_1-x").is_ok());
        assert!(validate_slug("Company", "").is_err());
        assert!(validate_slug("Company", "with space").is_err());
        assert!(validate_slug("Company", &"a".repeat(65)).is_err());
    }

    #[test]
    fn languages() {
        for ok in ["es", "en", "pt-BR", "ast"] {
            assert!(validate_language(ok).is_ok(), "{ok}");
        }
        for bad in ["", "E", "ES", "english", "es_ES", "es-"] {
            assert!(validate_language(bad).is_err(), "{bad}");
        }
    }
}
