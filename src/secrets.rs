//! Generation, digesting and constant-time comparison of credentials.
//!
//! API secrets and operator tokens are 256-bit random values. Because they are
//! random and long, a single SHA-256 over a domain-separated message is a safe
//! digest: there is nothing to brute-force. Only the digest is ever stored.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Prefix of every public key value (`X-Api-Key`).
pub const KEY_PREFIX: &str = "lk_";
/// Prefix of every secret (`X-Api-Secret`).
pub const SECRET_PREFIX: &str = "ls_";

pub use crate::common::ids::random_hex;

/// A new public key value: 128 random bits.
pub fn new_key_value() -> String {
    format!("{KEY_PREFIX}{}", random_hex(16))
}

/// A new secret: 256 random bits.
pub fn new_secret() -> String {
    format!("{SECRET_PREFIX}{}", random_hex(32))
}

/// Prefix of every webhook endpoint's signing secret.
pub const WEBHOOK_SECRET_PREFIX: &str = "whsec_";

/// A new signing secret of a webhook endpoint: 256 random bits. Unlike an
/// API secret it is stored as it is: deliveries are signed with it.
pub fn new_webhook_secret() -> String {
    format!("{WEBHOOK_SECRET_PREFIX}{}", random_hex(32))
}

/// The stored digest of `secret` for the key `key_value`.
///
/// The key value is part of the message so that one digest cannot be replayed
/// against another key record.
pub fn secret_digest(key_value: &str, secret: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"loyalty/api-secret/v1\0");
    hasher.update(key_value.as_bytes());
    hasher.update(b"\0");
    hasher.update(secret.as_bytes());
    hex::encode(hasher.finalize())
}

/// Compares two strings in time independent of where they differ.
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_values_are_unique_and_prefixed() {
        let a = new_secret();
        let b = new_secret();
        assert_ne!(a, b);
        assert!(a.starts_with(SECRET_PREFIX));
        assert_eq!(a.len(), SECRET_PREFIX.len() + 64);
        assert!(new_key_value().starts_with(KEY_PREFIX));
    }

    #[test]
    fn digest_depends_on_key_and_secret() {
        let d = secret_digest("k1", "s");
        assert_eq!(d, secret_digest("k1", "s"));
        assert_ne!(d, secret_digest("k2", "s"));
        assert_ne!(d, secret_digest("k1", "t"));
        assert!(!d.contains('s'));
    }

    #[test]
    fn constant_time_eq_compares_content() {
        assert!(constant_time_eq("abc", "abc"));
        assert!(!constant_time_eq("abc", "abd"));
        assert!(!constant_time_eq("abc", "ab"));
    }
}
