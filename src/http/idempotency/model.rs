//! The records of idempotency: a response kept for replay, and what a
//! request carrying a key may do.

use serde::{Deserialize, Serialize};
/// A completed response, kept to be replayed byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredResponse {
    /// HTTP status.
    pub status: u16,
    /// Content-Type header.
    pub content_type: Option<String>,
    /// Content-Language header.
    #[serde(default)]
    pub content_language: Option<String>,
    /// The body, exactly as sent.
    pub body: String,
    /// The rate-limit tier the request was charged to (`tier1`...), so a
    /// replay is charged to it too.
    #[serde(default)]
    pub tier: Option<String>,
}

/// What a request carrying an Idempotency-Key may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyClaim {
    /// The key is ours: run the request, then complete or release the key.
    Run,
    /// The key completed before: answer with this response.
    Replay(StoredResponse),
    /// Another request with this key is running.
    InUse,
    /// The key was used with another request fingerprint.
    Mismatch,
}
