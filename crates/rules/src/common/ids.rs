//! Time-ordered ids: Customers, Custom Events, draws and points operations
//! are listed in id order, which is the order they were made in.

use rand::RngCore;

/// A new id `{prefix}_` + 12 hex digits of milliseconds + 12 random hex
/// digits, so ids sort by when they were made.
///
/// The milliseconds come from the system clock, not the service's
/// `Clock` (`common::clock`): a manual clock standing still (scenarios)
/// would otherwise give every id the same prefix and lose their order.
pub fn time_ordered_id(prefix: &str) -> String {
    id_at(prefix, chrono::Utc::now().timestamp_millis())
}

/// The smallest id `prefix` may have at `millis` since the epoch: every id
/// made then or later sorts after it (the start of a range of ids by time).
pub fn earliest_id_at(prefix: &str, millis: i64) -> String {
    let millis = millis.max(0) as u64;
    format!("{prefix}_{millis:012x}")
}

/// The smallest id `prefix` may have for something made within `age` of
/// now, by the same system clock ids are made with.
pub fn earliest_id_within(prefix: &str, age: chrono::TimeDelta) -> String {
    earliest_id_at(prefix, (chrono::Utc::now() - age).timestamp_millis())
}

/// `bytes` random bytes from the OS-seeded generator, hex-encoded: the
/// random part of ids, and of keys and secrets (the service's `secrets`).
pub fn random_hex(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buffer);
    hex::encode(buffer)
}

/// The id made at `millis` since the epoch.
fn id_at(prefix: &str, millis: i64) -> String {
    let millis = millis.max(0) as u64;
    format!("{prefix}_{millis:012x}{}", random_hex(6))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_carry_their_prefix_and_sort_by_time() {
        let first = id_at("evt", 1_779_000_000_000);
        let second = id_at("evt", 1_779_000_000_001);
        let much_later = id_at("evt", 4_102_444_800_000);
        assert!(
            first.starts_with("evt_") && first.len() == 4 + 24,
            "{first}"
        );
        assert!(
            first < second && second < much_later,
            "{first} {second} {much_later}"
        );
        assert!(time_ordered_id("cus").starts_with("cus_"));
        assert!(earliest_id_at("evt", 1_779_000_000_001) < second);
        assert!(earliest_id_at("evt", 1_779_000_000_001) > first);
    }
}
