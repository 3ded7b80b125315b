//! What every API request passes through before its use-case, kept for the
//! life of the process: the API keys read lately and when each was last
//! used, each Company's rate limiters, the unknown Voucher codes each key
//! sent, the Idempotency-Keys running here, and the error codes answered
//! that the spec does not declare. [`crate::services::Services`] holds one
//! as its `gate`; the HTTP layer's own steps, functions of the
//! [`crate::services::Services`] they are given (authentication:
//! [`crate::http::auth::credentials::authenticate`], admission:
//! [`crate::http::rate_limits::limiters::admit`], Idempotency-Keys:
//! [`crate::http::idempotency::service`]), read it.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::http::auth::credentials::KeyCache;
use crate::http::errors::UndeclaredErrors;
use crate::http::idempotency::here::KeysHere;
use crate::http::rate_limits::limiters::RateLimiters;
use crate::resources::companies::key_use::KeyUses;
use crate::resources::vouchers::guesses::CodeGuesses;

/// The request gate's state; clones share it.
#[derive(Clone, Debug, Default)]
pub struct Gate {
    /// Per-Company, per-tier request limiters.
    pub(crate) rate_limiters: Arc<RateLimiters>,
    /// Recently read API keys.
    pub(crate) keys: Arc<KeyCache>,
    /// When each key was last used through this process.
    pub(crate) key_uses: Arc<KeyUses>,
    /// Unknown Voucher codes per API key, to stop guessing.
    pub(crate) code_guesses: Arc<CodeGuesses>,
    /// The Idempotency-Keys this process's requests run, and the outcomes
    /// it could not record yet.
    pub(crate) keys_here: Arc<KeysHere>,
    /// Error codes answered that their operation's spec does not declare.
    pub(crate) undeclared_errors: Arc<UndeclaredErrors>,
    /// Fault injection for crash tests: keyed requests end as if the
    /// process died right after their handler, before the key's completion.
    pub(crate) crash_before_key_completion: Arc<AtomicBool>,
}
