//! Building URLs from values the outside world gave (slugs, keys, codes).

/// Percent-encodes a path segment or query value: everything but the
/// unreserved characters of RFC 3986.
pub fn encode_component(value: &str) -> String {
    value
        .bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (byte as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unreserved_characters_stay() {
        assert_eq!(encode_component("demo-1_a.b~"), "demo-1_a.b~");
        assert_eq!(encode_component("a/b c?é"), "a%2Fb%20c%3F%C3%A9");
    }
}
