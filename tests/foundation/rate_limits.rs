//! Rate limits per Company and tier, with their headers.

use super::*;
use loyalty::resources::companies::model::CreatedApiKey;
use loyalty::resources::companies::model::RateLimits;

const SMALL: RateLimits = RateLimits {
    critical: 5,
    moderate: 3,
    low: 2,
};

/// Fires `count` GET /check (tier 2) at once; returns (status, headers, body) of each.
async fn burst(
    server: &TestServer,
    key: &CreatedApiKey,
    count: usize,
) -> Vec<(u16, reqwest::header::HeaderMap, Value)> {
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..count {
        let request = server.request_as("GET", "/check", key);
        tasks.spawn(async move {
            let response = request.send().await.expect("sent");
            let headers = response.headers().clone();
            let (status, body) = read(response).await;
            (status, headers, body)
        });
    }
    let mut answers = Vec::new();
    while let Some(answer) = tasks.join_next().await {
        answers.push(answer.expect("task"));
    }
    answers
}

fn header<'h>(headers: &'h reqwest::header::HeaderMap, name: &str) -> &'h str {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_burst_over_the_tier_limit_gets_honest_429s() {
    let server = TestServer::start().await;
    let key = server.company_with_limits("small", Some(SMALL)).await;
    let answers = burst(&server, &key, 20).await;
    let admitted = answers
        .iter()
        .filter(|(status, _, _)| *status == 200)
        .count();
    let refused: Vec<_> = answers
        .iter()
        .filter(|(status, _, _)| *status == 429)
        .collect();
    assert!(admitted >= 3, "the burst allowance is served: {admitted}");
    assert!(!refused.is_empty(), "20 at once exceed 3 per second");
    assert_eq!(admitted + refused.len(), 20);
    let mut longest_wait = 0;
    for (_, headers, body) in &refused {
        assert_eq!(body["code"], "rate_limited", "{body}");
        assert!(body["error"].as_str().is_some_and(|m| m.contains("tier2")));
        let retry_after: u64 = header(headers, "retry-after")
            .parse()
            .expect("Retry-After in whole seconds");
        assert!(retry_after >= 1);
        longest_wait = longest_wait.max(retry_after);
        assert_eq!(header(headers, "ratelimit-policy"), "\"tier2\";q=3;w=1");
    }
    for (status, headers, _) in &answers {
        if *status == 200 {
            assert_eq!(header(headers, "ratelimit-policy"), "\"tier2\";q=3;w=1");
            assert!(header(headers, "ratelimit").starts_with("\"tier2\";r="));
        }
    }
    // Honest: after waiting what Retry-After said, the call succeeds.
    tokio::time::sleep(std::time::Duration::from_secs(longest_wait)).await;
    assert_eq!(server.get_as("/check", &key).await.0, 200);
}

#[tokio::test]
async fn companies_do_not_share_quota_and_tiers_are_separate() {
    let server = TestServer::start().await;
    let busy = server.company_with_limits("busy", Some(SMALL)).await;
    let quiet = server.company_with_limits("quiet", Some(SMALL)).await;
    let answers = burst(&server, &busy, 12).await;
    assert!(answers.iter().any(|(status, _, _)| *status == 429));
    assert_eq!(
        server.get_as("/check", &quiet).await.0,
        200,
        "another Company is unaffected"
    );
    // Tier 1 of the busy Company still has its own allowance.
    let (status, body) = server
        .call_as(
            "POST",
            "/customers",
            &busy,
            Some(json!({"email": "x@example.com"})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn unauthenticated_requests_never_spend_a_companys_quota() {
    let server = TestServer::start().await;
    let key = server.company_with_limits("guarded", Some(SMALL)).await;
    for _ in 0..30 {
        let (status, _) = check_with(
            &server,
            &[
                ("X-Api-Key", key.key.key.as_str()),
                ("X-Api-Secret", "ls_wrong"),
                ("X-Api-Version", "1"),
            ],
        )
        .await;
        assert_eq!(status, 403);
    }
    let answers = burst(&server, &key, 3).await;
    assert!(
        answers.iter().all(|(status, _, _)| *status == 200),
        "the full allowance is left"
    );
}

#[tokio::test]
async fn limits_are_configurable_per_company() {
    let server = TestServer::start().await;
    let key = server.company_with_key("tuned").await;
    let response = server
        .request_as("GET", "/check", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(
        header(response.headers(), "ratelimit-policy"),
        "\"tier2\";q=25;w=1",
        "the interface's default"
    );
    server
        .back_office()
        .await
        .set_rate_limits(
            "tuned",
            RateLimits {
                critical: 100,
                moderate: 40,
                low: 15,
            },
        )
        .await
        .expect("limits set");
    let response = server
        .request_as("GET", "/check", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(
        header(response.headers(), "ratelimit-policy"),
        "\"tier2\";q=40;w=1"
    );
    let (status, body) = server
        .send(
            server
                .http
                .post(format!(
                    "{}/api/companies/tuned/rate_limits",
                    server.admin_url()
                ))
                .bearer_auth(OPERATOR_TOKEN)
                .json(&json!({"critical": 0, "moderate": 1, "low": 1})),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("invalid_request"))
    );
}
