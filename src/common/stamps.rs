//! Time stamps that keep the order one process issued them in: the ids of
//! the points ledger's entries and of the webhook events, which are read
//! back (a balance replayed for expiry) or delivered (a Customer's events)
//! in id order.

use std::sync::atomic::{AtomicU64, Ordering};

/// Issues stamps: the milliseconds since the epoch shifted left 12 bits,
/// plus a sequence, so stamps issued by one process in the same millisecond
/// still sort in the order they were issued. Written in hex, a stamp is the
/// milliseconds' 12 digits followed by the sequence's 3.
#[derive(Debug, Default)]
pub struct StampClock {
    last: AtomicU64,
}

impl StampClock {
    /// The next stamp: now, or just after the last one when that is later.
    pub fn next(&self) -> u64 {
        let now = (chrono::Utc::now().timestamp_millis().max(0) as u64) << 12;
        let previous = self
            .last
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| {
                Some(now.max(last + 1))
            })
            .unwrap_or_default();
        now.max(previous + 1)
    }

    /// A new id `{prefix}_` + the next stamp in hex + 10 random hex digits
    /// (which keep the ids of processes sharing a store apart).
    pub fn id(&self, prefix: &str) -> String {
        format!(
            "{prefix}_{:015x}{}",
            self.next(),
            crate::secrets::random_hex(5)
        )
    }
}

/// The start of the ids `{prefix}_...` issued at `at` (milliseconds since
/// the epoch): every id issued before sorts before it, every one issued at
/// or after it sorts after.
pub fn first_id_at(prefix: &str, at_millis: i64) -> String {
    format!("{prefix}_{:015x}", (at_millis.max(0) as u64) << 12)
}

/// The start of the ids `{prefix}_...` issued `ago` before now, on the
/// wall clock that stamps them (not the service's, which a rehearsal may
/// set).
pub fn first_id_since(prefix: &str, ago: chrono::Duration) -> String {
    first_id_at(prefix, (chrono::Utc::now() - ago).timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::{StampClock, first_id_at};

    #[test]
    fn the_ids_of_an_instant_start_after_those_of_the_instants_before() {
        let clock = StampClock::default();
        let now = chrono::Utc::now().timestamp_millis();
        let id = clock.id("evt");
        assert!(first_id_at("evt", now - 1) < id, "{id}");
        assert!(first_id_at("evt", now + 1_000) > id, "{id}");
        assert!(first_id_at("evt", now - 86_400_000) < first_id_at("evt", now));
    }

    #[test]
    fn the_clock_issues_increasing_stamps_that_start_with_the_milliseconds() {
        let clock = StampClock::default();
        let before = chrono::Utc::now().timestamp_millis() as u64;
        let stamps: Vec<u64> = (0..10_000).map(|_| clock.next()).collect();
        assert!(stamps.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(stamps[0] >> 12 >= before);
        let written = format!("{:015x}", stamps[0]);
        assert_eq!(&written[..12], format!("{:012x}", stamps[0] >> 12));
    }

    #[test]
    fn ids_sort_in_the_order_they_were_issued() {
        let clock = StampClock::default();
        let ids: Vec<String> = (0..1_000).map(|_| clock.id("evt")).collect();
        assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(
            ids.iter()
                .all(|id| id.starts_with("evt_") && id.len() == 4 + 25)
        );
    }
}
