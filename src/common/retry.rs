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

/// Runs `work` until it does not fail with `concurrent_modification`, at
/// most [`READS`] times; the last failure is answered.
pub async fn again_when_changed<T, F, Fut>(mut work: F) -> ApiResult<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = ApiResult<T>>,
{
    let mut attempt = 0;
    loop {
        attempt += 1;
        match work().await {
            Err(error) if error.code == ErrorCode::ConcurrentModification && attempt < READS => {}
            done => return done,
        }
    }
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
}
