//! Log lines held back while the server starts, so that the first start's
//! welcome (the demo key and its secret) is the first thing a terminal
//! shows, and then written in order. A start on a remote store holds them at
//! most [`REMOTE_HOLD`] (a store still connecting shows its lines as they
//! come); one on an embedded store, whose start is local work however slow
//! the machine, until it has started, at most [`EMBEDDED_HOLD`].

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tracing_subscriber::fmt::MakeWriter;

/// Longest a start on a remote store holds its log lines back.
pub(crate) const REMOTE_HOLD: Duration = Duration::from_secs(5);

/// Longest a start on an embedded store holds them: opening it replays its
/// log, which a busy machine or a large log may make slow.
pub(crate) const EMBEDDED_HOLD: Duration = Duration::from_secs(60);

/// Standard error, held until [`HeldLog::release`].
#[derive(Debug, Clone, Default)]
pub(crate) struct HeldLog {
    released: Arc<AtomicBool>,
    held: Arc<Mutex<Vec<u8>>>,
}

impl HeldLog {
    /// Writes what was held, then every later line as it comes. Idempotent.
    pub(crate) fn release(&self) {
        let mut held = self
            .held
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if !self.released.swap(true, Ordering::AcqRel) {
            let _ = std::io::stderr().write_all(&held);
            held.clear();
            held.shrink_to_fit();
        }
    }

    /// Releases after `hold` if nothing released before.
    pub(crate) fn release_later(&self, hold: Duration) {
        let log = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(hold).await;
            log.release();
        });
    }
}

impl<'a> MakeWriter<'a> for HeldLog {
    type Writer = HeldWriter;

    fn make_writer(&'a self) -> HeldWriter {
        HeldWriter(self.clone())
    }
}

/// One log line's writer.
#[derive(Debug)]
pub(crate) struct HeldWriter(HeldLog);

impl Write for HeldWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let log = &self.0;
        if !log.released.load(Ordering::Acquire) {
            let mut held = log
                .held
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            // Checked again under the lock: a release in between wrote the
            // held lines already, so this one goes straight out after them.
            if !log.released.load(Ordering::Acquire) {
                held.extend_from_slice(buf);
                return Ok(buf.len());
            }
        }
        std::io::stderr().write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_held_until_released_and_then_pass() {
        let log = HeldLog::default();
        let mut writer = log.make_writer();
        writer.write_all(b"one\n").expect("held");
        assert_eq!(log.held.lock().expect("lock").as_slice(), b"one\n");
        log.release();
        assert!(log.held.lock().expect("lock").is_empty());
        writer.write_all(b"two\n").expect("written");
        assert!(
            log.held.lock().expect("lock").is_empty(),
            "not held after release"
        );
    }
}
