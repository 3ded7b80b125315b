//! Time-ordered ids: Customers, Custom Events, draws and points operations
//! are listed in id order, which is the order they were made in.

use crate::secrets::random_hex;

/// A new id `{prefix}_` + 12 hex digits of milliseconds + 12 random hex
/// digits, so ids sort by when they were made.
///
/// The milliseconds come from the system clock, not the service's
/// [`crate::common::clock::Clock`]: a manual clock standing still (scenarios)
/// would otherwise give every id the same prefix and lose their order.
pub fn time_ordered_id(prefix: &str) -> String {
    let millis = chrono::Utc::now().timestamp_millis().max(0) as u64;
    format!("{prefix}_{millis:012x}{}", random_hex(6))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_carry_their_prefix_and_sort_by_time() {
        let first = time_ordered_id("evt");
        std::thread::sleep(std::time::Duration::from_millis(2));
        let second = time_ordered_id("evt");
        assert!(
            first.starts_with("evt_") && first.len() == 4 + 24,
            "{first}"
        );
        assert!(first < second, "{first} then {second}");
    }
}
