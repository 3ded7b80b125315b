//! Example requests and answers of the Challenges operations, published in
//! the spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;
use crate::resources::challenges::api::{ChallengeList, CustomerChallengeList};
use crate::resources::challenges::model::{ChallengeView, CustomerChallenge, EnrollRequest};

/// A Customer's standing in the demo's Coffee club.
macro_rules! standing {
    ($history:literal) => {
        concat!(
            r#"{"challenge_id": 701, "customer_id": "cus_0190aa00000000aa00000001",
                "enrolled": true, "enrolled_at": "2026-11-23T09:12:00Z", "period": "2026-W48",
                "progress": 2, "target": 3, "completed": false, "completions": 4,
                "seconds_left": 308880, "counted": ["cart:T1-0041", "cart:T2-0007"]"#,
            $history,
            "}"
        )
    };
}

/// The demo's Coffee club as listed for a named Customer.
macro_rules! challenge {
    () => {
        concat!(
            r#"{"id": 701, "name": "Coffee club", "description": "Three visits a week for 50 points",
                "counts": "cart", "goal": "count", "target": 3, "period": "week",
                "repeat": "each_period", "enrollment": "required",
                "reward": {"type": "points", "points": 50},
                "available_from": "2026-01-01T00:00:00Z", "customer": "#,
            standing!(""),
            "}"
        )
    };
}

/// The Challenges operations' examples.
pub const EXAMPLES: &[OperationExample] = &[
    OperationExample::new("GET /challenges").answers::<ChallengeList>(concat!(
        r#"{"challenges": ["#,
        challenge!(),
        "]}"
    )),
    OperationExample::new("GET /challenges/{id}").answers::<ChallengeView>(challenge!()),
    OperationExample::new("GET /customers/{value}/challenges")
        .answers::<CustomerChallengeList>(concat!(r#"{"challenges": ["#, standing!(""), "]}")),
    OperationExample::new("GET /customers/{value}/challenges/{id}").answers::<CustomerChallenge>(
        standing!(
            r#", "history": [
                {"period": "2026-W47", "completed_at": "2026-11-21T18:40:00Z",
                 "events": ["cart:T1-0032", "cart:T1-0035", "cart:T3-0101"],
                 "granted": {"type": "points", "points": 50}},
                {"period": "2026-W46", "completed_at": "2026-11-13T08:05:00Z",
                 "events": ["cart:T1-0011", "cart:T1-0019", "cart:T2-0002"],
                 "granted": {"type": "points", "points": 50},
                 "revoked_at": "2026-11-14T12:00:00Z"}]"#
        ),
    ),
    OperationExample::new("POST /challenges/{id}/enroll")
        .takes::<EnrollRequest>(r#"{"customer_code": "EXT-1"}"#)
        .answers::<CustomerChallenge>(
            r#"{"challenge_id": 701, "customer_id": "cus_0190aa00000000aa00000001",
                "enrolled": true, "enrolled_at": "2026-11-23T09:12:00Z", "period": "2026-W48",
                "progress": 0, "target": 3, "completed": false, "completions": 0,
                "seconds_left": 571680, "counted": []}"#,
        ),
];
