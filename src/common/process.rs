//! What this process has used of the machine, as the kernel counts it.

/// The most memory this process has held resident at once, in bytes
/// (Linux's `VmHWM`); `None` where the kernel does not say.
pub fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kilobytes: u64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kilobytes * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peak_grows_with_what_is_held() {
        let before = peak_resident_bytes().expect("Linux says");
        let held = vec![1u8; 64 << 20];
        let after = peak_resident_bytes().expect("Linux says");
        assert!(after >= before && after >= 64 << 20, "{before} -> {after}");
        drop(held);
    }
}
