//! Where a webhook endpoint may point: an `http` or `https` URL whose host
//! resolves to public addresses only. A receiver on loopback, a link-local
//! address (the cloud's metadata service) or a private range would let
//! whoever sets an endpoint make the server call into its own network; a
//! server started with `--webhooks-allow-private` accepts them (a receiver
//! beside the server, tests). The check runs when an endpoint is set and
//! again before each delivery, since a name may resolve elsewhere later.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use reqwest::Url;

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;

/// Longest URL an endpoint may have.
const MAX_URL_CHARS: usize = 2048;

/// How long resolving a receiver's host may take.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);

/// Days settled deliveries are kept for operators to see and send again,
/// unless the server is told otherwise.
pub const KEEP_SETTLED_DAYS: u32 = 7;

/// How the server treats webhook receivers and what it keeps of its
/// deliveries.
#[derive(Debug, Clone, Copy)]
pub struct WebhookSettings {
    /// Accept receivers on loopback, link-local and private addresses.
    pub allow_private: bool,
    /// Days a delivery delivered or failed is kept after its event (with
    /// its body, to be sent again); older ones are deleted.
    pub keep_settled_days: u32,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        WebhookSettings {
            allow_private: false,
            keep_settled_days: KEEP_SETTLED_DAYS,
        }
    }
}

/// `url` parsed, when it may receive deliveries under `settings`, with
/// the addresses its host resolves to; `webhook_url_refused` otherwise.
pub(crate) async fn checked_receiver(
    url: &str,
    settings: WebhookSettings,
) -> ApiResult<(Url, Vec<SocketAddr>)> {
    let refused = |why: String| ApiError::new(ErrorCode::WebhookUrlRefused, why);
    let url = url.trim();
    if url.chars().count() > MAX_URL_CHARS {
        return Err(refused(format!(
            "a webhook URL has at most {MAX_URL_CHARS} characters"
        )));
    }
    let parsed = Url::parse(url).map_err(|e| refused(format!("`{url}` is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(refused(format!("`{url}` is not an http or https URL")));
    }
    let (Some(host), Some(port)) = (parsed.host_str(), parsed.port_or_known_default()) else {
        return Err(refused(format!("`{url}` names no host")));
    };
    // An IPv6 literal is written in brackets in a URL, bare to the resolver.
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let resolved = tokio::time::timeout(RESOLVE_TIMEOUT, tokio::net::lookup_host((host, port)))
        .await
        .map_err(|_| refused(format!("`{host}` did not resolve within 5 s")))?
        .map_err(|e| refused(format!("`{host}` does not resolve: {e}")))?
        .collect::<Vec<SocketAddr>>();
    if resolved.is_empty() {
        return Err(refused(format!("`{host}` resolves to no address")));
    }
    if !settings.allow_private
        && let Some(address) = resolved.iter().find(|address| !is_public(address.ip()))
    {
        return Err(refused(format!(
            "`{host}` resolves to {}, a loopback, link-local or private address; \
             a server started with --webhooks-allow-private accepts it",
            address.ip()
        )));
    }
    Ok((parsed, resolved))
}

/// Whether `address` is reachable on the public internet: not loopback,
/// link-local, private, shared (carrier-grade NAT), unspecified,
/// broadcast, multicast or documentation space, nor an IPv6 address
/// wrapping one of those.
pub(crate) fn is_public(address: IpAddr) -> bool {
    match address {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(address: Ipv4Addr) -> bool {
    let [a, b, ..] = address.octets();
    !(address.is_loopback()
        || address.is_private()
        || address.is_link_local()
        || address.is_unspecified()
        || address.is_broadcast()
        || address.is_multicast()
        || address.is_documentation()
        || a == 0
        // 100.64.0.0/10: shared address space (carrier-grade NAT).
        || (a == 100 && (64..128).contains(&b)))
}

fn is_public_v6(address: Ipv6Addr) -> bool {
    let first = address.segments()[0];
    !(address.is_loopback()
        || address.is_unspecified()
        || address.is_multicast()
        // fc00::/7: unique local; fe80::/10: link-local.
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
        // 2001:db8::/32: documentation.
        || (first == 0x2001 && address.segments()[1] == 0x0db8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_link_local_and_private_addresses_are_not_public() {
        for address in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
        ] {
            assert!(!is_public(address.parse().unwrap()), "{address}");
        }
        for address in [
            "93.184.216.34",
            "1.1.1.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert!(is_public(address.parse().unwrap()), "{address}");
        }
    }

    #[tokio::test]
    async fn a_receiver_on_loopback_is_refused_unless_private_ones_are_allowed() {
        let strict = WebhookSettings::default();
        for url in [
            "http://127.0.0.1:9/hook",
            "http://localhost/hook",
            "http://[::1]:80/",
        ] {
            let refused = checked_receiver(url, strict).await.unwrap_err();
            assert_eq!(refused.code, ErrorCode::WebhookUrlRefused, "{url}");
        }
        let allowed = WebhookSettings {
            allow_private: true,
            ..WebhookSettings::default()
        };
        let (url, addresses) = checked_receiver("http://127.0.0.1:9/hook", allowed)
            .await
            .unwrap();
        assert_eq!(url.as_str(), "http://127.0.0.1:9/hook");
        assert_eq!(addresses, ["127.0.0.1:9".parse::<SocketAddr>().unwrap()]);
    }

    #[tokio::test]
    async fn only_http_urls_with_a_host_are_accepted() {
        let allowed = WebhookSettings {
            allow_private: true,
            ..WebhookSettings::default()
        };
        for url in [
            "ftp://127.0.0.1/x",
            "not a url",
            "file:///etc/passwd",
            "http://",
        ] {
            let refused = checked_receiver(url, allowed).await.unwrap_err();
            assert_eq!(refused.code, ErrorCode::WebhookUrlRefused, "{url}");
        }
    }
}
