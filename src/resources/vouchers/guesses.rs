//! Guessing codes is rate limited: every code an API key looks up that no
//! Voucher has (`voucher_not_found`) counts against that key, and a key
//! that sent [`UNKNOWN_CODES_PER_MINUTE`] unknown codes (or what the
//! operator set: `loyalty serve --unknown-codes-per-minute`) within a
//! minute is refused every Voucher look-up (`voucher_lookups_limited`, 429) until the
//! minute ends. A till that mistypes a code now and then never comes near;
//! a script walking a pattern's keyspace stops after a handful.
//!
//! Counted in this process, one window per key: memory grows with the keys
//! that sent unknown codes in the last minute, and older windows are
//! dropped as new ones open.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;

use chrono::{DateTime, Duration, Utc};

use crate::common::time::Timestamp;
use crate::engine::effect::Effect;
use crate::engine::effect::VoucherRejection;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::carts::model::NewCart;
use crate::resources::carts::service::CartOutcome;
use crate::resources::vouchers::desired::is_selected_word;
use crate::services::Services;

/// Unknown codes one key may send within a minute, unless the operator
/// says otherwise.
pub const UNKNOWN_CODES_PER_MINUTE: u32 = 20;

/// How long a window counts.
const WINDOW: Duration = Duration::minutes(1);

/// The unknown codes of one key since its window opened.
#[derive(Debug, Clone, Copy)]
struct Window {
    opened: DateTime<Utc>,
    unknown: u32,
}

impl Window {
    /// Whether it still counts at `now`.
    fn open_at(&self, now: DateTime<Utc>) -> bool {
        now < self.opened + WINDOW
    }
}

/// The unknown codes each API key sent in its current window.
#[derive(Debug)]
pub struct CodeGuesses {
    /// Unknown codes a key may send within a window.
    limit: u32,
    windows: Mutex<HashMap<String, Window>>,
}

impl Default for CodeGuesses {
    fn default() -> Self {
        CodeGuesses::new(UNKNOWN_CODES_PER_MINUTE)
    }
}

impl CodeGuesses {
    /// Guesses stopped past `limit` unknown codes a minute per key.
    pub fn new(limit: u32) -> Self {
        CodeGuesses {
            limit,
            windows: Mutex::default(),
        }
    }

    /// `voucher_lookups_limited` when `key` sent as many unknown codes as
    /// a minute allows and that minute is not over at `now`.
    pub fn check(&self, key: &str, now: Timestamp) -> ApiResult<()> {
        let now = now.0;
        let Ok(windows) = self.windows.lock() else {
            return Ok(());
        };
        match windows.get(key) {
            Some(window) if window.unknown >= self.limit && window.open_at(now) => {
                let seconds = (window.opened + WINDOW - now).num_seconds().max(1);
                Err(ApiError::new(
                    ErrorCode::VoucherLookupsLimited,
                    format!(
                        "this key sent {} unknown Voucher codes within a minute; Voucher \
                         look-ups are refused for {seconds} s",
                        window.unknown
                    ),
                ))
            }
            _ => Ok(()),
        }
    }

    /// Counts `unknown` codes that `key` looked up at `now`.
    pub fn record(&self, key: &str, unknown: usize, now: Timestamp) {
        let now = now.0;
        if unknown == 0 {
            return;
        }
        let Ok(mut windows) = self.windows.lock() else {
            return;
        };
        if !windows.contains_key(key) {
            windows.retain(|_, window| window.open_at(now));
        }
        let window = windows.entry(key.to_string()).or_insert(Window {
            opened: now,
            unknown: 0,
        });
        if !window.open_at(now) {
            *window = Window {
                opened: now,
                unknown: 0,
            };
        }
        let unknown = u32::try_from(unknown).unwrap_or(u32::MAX);
        window.unknown = window.unknown.saturating_add(unknown);
    }
}

/// How many unknown codes `result` answered: each `voucher_not_found` of a
/// request on several codes, or the one of a request on one.
fn unknown_codes<T>(result: &ApiResult<T>) -> usize {
    match result {
        Err(error) if !error.voucher_failures.is_empty() => error
            .voucher_failures
            .iter()
            .filter(|failure| failure.code == ErrorCode::VoucherNotFound)
            .count(),
        Err(error) if error.code == ErrorCode::VoucherNotFound => 1,
        _ => 0,
    }
}

/// The window key of an API key of a Company.
fn window_key(company: &str, api_key: &str) -> String {
    format!("{company}/{api_key}")
}

impl Services {
    /// Runs `lookup`, a request of `api_key` naming Voucher codes, unless
    /// the key is guessing (`voucher_lookups_limited`), and counts the
    /// unknown codes it answers.
    pub(crate) async fn guarded_lookup<T>(
        &self,
        company: &str,
        api_key: &str,
        lookup: impl Future<Output = ApiResult<T>>,
    ) -> ApiResult<T> {
        let key = window_key(company, api_key);
        self.gate.code_guesses.check(&key, self.now())?;
        let result = lookup.await;
        self.gate
            .code_guesses
            .record(&key, unknown_codes(&result), self.now());
        result
    }

    /// Runs `run` on `cart` from `api_key`. The sale never fails for its
    /// codes: when the key is guessing, the codes the cart names are not
    /// looked up and each gets a `voucher_rejected` effect with
    /// `voucher_lookups_limited` (given to `run`, which answers them after
    /// the others); the unknown codes it names are counted.
    pub(crate) async fn guarded_cart<F, Fut>(
        &self,
        company: &str,
        api_key: &str,
        mut cart: NewCart,
        run: F,
    ) -> ApiResult<CartOutcome>
    where
        F: FnOnce(NewCart, Vec<Effect>) -> Fut,
        Fut: Future<Output = ApiResult<CartOutcome>>,
    {
        let key = window_key(company, api_key);
        let held_back = match self.gate.code_guesses.check(&key, self.now()) {
            Ok(()) => Vec::new(),
            Err(refusal) => {
                let (words, codes): (Vec<String>, Vec<String>) =
                    std::mem::take(&mut cart.coupons_desired)
                        .into_iter()
                        .partition(|code| is_selected_word(code));
                cart.coupons_desired = words;
                codes
                    .into_iter()
                    .map(|voucher_code| {
                        Effect::VoucherRejected(Box::new(VoucherRejection {
                            rule_id: 0,
                            rule_name: String::new(),
                            voucher_code,
                            code: refusal.code,
                            error: refusal.message.clone(),
                        }))
                    })
                    .collect()
            }
        };
        let outcome = run(cart, held_back).await?;
        let unknown = outcome
            .effects
            .iter()
            .filter(|effect| {
                matches!(effect, Effect::VoucherRejected(rejected)
                    if rejected.code == ErrorCode::VoucherNotFound)
            })
            .count();
        self.gate.code_guesses.record(&key, unknown, self.now());
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> Timestamp {
        let start: Timestamp = "2026-07-06T08:00:00Z".parse().unwrap();
        Timestamp(start.0 + Duration::seconds(seconds))
    }

    #[test]
    fn a_key_is_refused_once_it_sent_a_minutes_unknown_codes_and_only_for_that_minute() {
        let guesses = CodeGuesses::default();
        guesses.record("k1", 19, at(0));
        assert!(guesses.check("k1", at(10)).is_ok());
        guesses.record("k1", 1, at(10));
        let refused = guesses.check("k1", at(20)).unwrap_err();
        assert_eq!(refused.code, ErrorCode::VoucherLookupsLimited);
        assert!(refused.message.contains("40 s"), "{}", refused.message);
        assert!(guesses.check("k2", at(20)).is_ok(), "other keys go on");
        assert!(guesses.check("k1", at(60)).is_ok(), "the minute is over");
        guesses.record("k1", 1, at(61));
        assert!(
            guesses.check("k1", at(62)).is_ok(),
            "a new window counts anew"
        );
    }
}
