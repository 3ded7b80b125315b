//! Work made from what it read, tried again on fresh reads when another
//! request changed those records between its read and its write.
//!
//! An operation that answers from records it read (and writes its answer
//! with its work, see [`crate::http::idempotency::answer`]) has its write
//! refused with `concurrent_modification` when they changed meanwhile; it
//! then reads them again and makes its work and answer anew.

use std::future::Future;

use crate::error::ApiResult;
use crate::error::ErrorCode;

/// How many times work is tried on fresh reads: enough for a Customer's
/// records moved by a burst of their own concurrent events.
pub const READS: u32 = 8;

/// The refusal of a write whose reads another request changed meanwhile.
pub const CHANGED: &[ErrorCode] = &[ErrorCode::ConcurrentModification];

/// The tries one piece of work may make: the first, and one more for each
/// refusal that a fresh read or a new draw may overcome, up to a count.
///
/// Work that changes what it tries with between tries (reads a limit again,
/// draws a new code) loops itself and asks [`Tries::again`] after each
/// failure; work that is simply run again goes through [`again_on`].
#[derive(Debug, Clone, Copy)]
pub struct Tries {
    /// Tries left after the one under way.
    left: u32,
}

impl Tries {
    /// At most `tries` tries, the first included.
    pub const fn at_most(tries: u32) -> Self {
        Tries {
            left: tries.saturating_sub(1),
        }
    }

    /// Whether `result` failed with one of `codes` and a try is left, which
    /// it then takes.
    pub fn again<T>(&mut self, result: &ApiResult<T>, codes: &[ErrorCode]) -> bool {
        matches!(result, Err(error) if codes.contains(&error.code)) && self.another()
    }

    /// Takes a try when one is left: for work that sees for itself, before
    /// it writes, that what it read moved.
    pub fn another(&mut self) -> bool {
        let left = self.left > 0;
        self.left = self.left.saturating_sub(1);
        left
    }
}

/// Runs `work` until it does not fail with one of `codes`, within `tries`;
/// the last failure is answered.
pub async fn again_on<T, F, Fut>(mut tries: Tries, codes: &[ErrorCode], mut work: F) -> ApiResult<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = ApiResult<T>>,
{
    loop {
        let done = work().await;
        if !tries.again(&done, codes) {
            return done;
        }
    }
}

/// Runs `work` until it does not fail with `concurrent_modification`, at
/// most [`READS`] times; the last failure is answered.
pub async fn again_when_changed<T, F, Fut>(work: F) -> ApiResult<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = ApiResult<T>>,
{
    again_on(Tries::at_most(READS), CHANGED, work).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ApiError;

    #[tokio::test]
    async fn changed_records_are_read_again_until_the_attempts_run_out() {
        let mut tries = 0;
        let done = again_when_changed(|| {
            tries += 1;
            let this_try = tries;
            async move {
                if this_try < 3 {
                    Err(ApiError::new(ErrorCode::ConcurrentModification, "moved"))
                } else {
                    Ok(this_try)
                }
            }
        })
        .await;
        assert_eq!(done.unwrap(), 3);
        let mut tries = 0;
        let given_up: ApiResult<()> = again_when_changed(|| {
            tries += 1;
            async { Err(ApiError::new(ErrorCode::ConcurrentModification, "moved")) }
        })
        .await;
        assert_eq!(tries, READS);
        assert_eq!(
            given_up.unwrap_err().code,
            ErrorCode::ConcurrentModification
        );
        let mut tries = 0;
        let refused: ApiResult<()> = again_when_changed(|| {
            tries += 1;
            async { Err(ApiError::invalid("bad")) }
        })
        .await;
        assert_eq!(tries, 1, "other refusals are answered at once");
        assert!(refused.is_err());
    }

    #[test]
    fn tries_are_taken_only_by_the_refusals_named_and_run_out() {
        let contended: ApiResult<()> = Err(ApiError::new(ErrorCode::DrawContended, "again"));
        let taken: ApiResult<()> = Err(ApiError::new(ErrorCode::VoucherCodeTaken, "again"));
        let mut tries = Tries::at_most(3);
        assert!(!tries.again(&taken, &[ErrorCode::DrawContended]));
        assert!(!tries.again(&Ok(()), &[ErrorCode::DrawContended]));
        assert!(tries.again(&contended, &[ErrorCode::DrawContended]));
        assert!(tries.again(&taken, &[ErrorCode::VoucherCodeTaken]));
        assert!(
            !tries.again(&contended, &[ErrorCode::DrawContended]),
            "three tries in all: the first and two more"
        );
        assert!(!Tries::at_most(1).again(&contended, &[ErrorCode::DrawContended]));
    }
}
