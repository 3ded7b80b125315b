//! Where the service reads the time: the system clock in production, or a
//! clock that moves only when told, so scenarios run on the dates they state.

use std::sync::Mutex;

use crate::common::time::Timestamp;

/// The service's clock.
#[derive(Debug, Default)]
pub enum Clock {
    /// The system clock.
    #[default]
    System,
    /// A clock set and moved by hand.
    Manual(Mutex<Timestamp>),
}

impl Clock {
    /// A clock standing at `at` until moved.
    pub fn manual(at: Timestamp) -> Self {
        Clock::Manual(Mutex::new(at))
    }

    /// The current instant.
    pub fn now(&self) -> Timestamp {
        match self {
            Clock::System => Timestamp::now(),
            Clock::Manual(at) => match at.lock() {
                Ok(at) => *at,
                Err(poisoned) => *poisoned.into_inner(),
            },
        }
    }

    /// Sets a manual clock to `at` (the system clock cannot be set).
    pub fn set(&self, at: Timestamp) {
        if let Clock::Manual(now) = self {
            match now.lock() {
                Ok(mut now) => *now = at,
                Err(poisoned) => *poisoned.into_inner() = at,
            }
        }
    }

    /// Moves a manual clock forward by `seconds` (the system clock moves by itself).
    pub fn advance(&self, seconds: i64) {
        if let Clock::Manual(at) = self {
            let mut at = match at.lock() {
                Ok(at) => at,
                Err(poisoned) => poisoned.into_inner(),
            };
            *at = Timestamp::from(at.as_datetime() + chrono::Duration::seconds(seconds));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_moves_only_when_told() {
        let clock = Clock::manual("2026-05-04T09:00:00Z".parse().unwrap());
        assert_eq!(clock.now().to_string(), "2026-05-04T09:00:00Z");
        clock.advance(86_400);
        assert_eq!(clock.now().to_string(), "2026-05-05T09:00:00Z");
    }
}
