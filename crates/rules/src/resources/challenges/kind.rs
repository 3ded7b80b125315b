//! The `challenge` kind: a goal Customers reach with the events that count,
//! for a reward. Its keys compile to a [`Challenge`] ([`super::rules`]);
//! evaluated, it moves the Customer's progress ([`super::evaluate`]).

use crate::engine::campaign_file::CampaignFile;
use crate::engine::effect::Effect;
use crate::engine::kinds::CampaignKind;
use crate::engine::kinds::KindContext;
use crate::engine::kinds::KindDefinition;
use crate::engine::kinds::KindRules;
use crate::engine::kinds::Reference;
use crate::engine::kinds::written;
use crate::engine::not_applied::NotApplied;
use crate::engine::schema::{PERIODS, def, one_of};
use crate::engine::script::Script;
use crate::resources::challenges::evaluate::challenge_effects;
use crate::resources::challenges::goal::Measure;
use crate::resources::challenges::rules::Challenge;
use crate::resources::challenges::rules::ChallengeFields;
use serde_json::Value;

/// How a `challenge` campaign file reads.
pub static CHALLENGE: KindDefinition = KindDefinition {
    keys: |file: &CampaignFile| {
        written(&[
            ("goal", file.goal.is_some()),
            ("enrollment", file.enrollment.is_some()),
            ("period", file.period.is_some()),
            ("period_starts", file.period_starts.is_some()),
            ("repeat", file.repeat.is_some()),
            ("reward", file.reward.is_some()),
            ("on_return", file.on_return.is_some()),
        ])
    },
    compile: |file, problems, compile| {
        ChallengeFields {
            goal: file.goal.take(),
            enrollment: file.enrollment.take(),
            period: file.period.take(),
            period_starts: file.period_starts.take(),
            repeat: file.repeat.take(),
            reward: file.reward.take(),
            on_return: file.on_return.take(),
        }
        .compile(problems, compile)
        .map(|challenge| CampaignKind::Challenge(Box::new(challenge)))
    },
    schema,
    required: Some("goal"),
    sample: "id: 3\nkind: challenge\nname: C\non: cart\ngoal: { count: 3 }\nreward: { points: 10 }\n",
};

/// The schema of the keys it describes.
fn schema() -> Vec<(&'static str, Value)> {
    vec![
        ("goal", def("goal", "kind: challenge - what completes it.")),
        (
            "enrollment",
            one_of(
                &["automatic", "required"],
                "Challenge: everyone (default), or those enrolled.",
            ),
        ),
        (
            "period",
            one_of(
                &PERIODS,
                "Challenge: the period progress is counted over (default the whole Challenge).",
            ),
        ),
        (
            "period_starts",
            one_of(
                &["calendar", "enrollment"],
                "Challenge: where a period starts.",
            ),
        ),
        (
            "repeat",
            one_of(
                &["never", "each_period", "once_completed"],
                "Challenge: whether it can be completed again.",
            ),
        ),
        (
            "reward",
            def("challenge_reward", "Challenge: what completing it gives."),
        ),
        (
            "on_return",
            one_of(
                &["keep", "revoke"],
                "Challenge: what a returned cart does to progress it counted.",
            ),
        ),
    ]
}

impl KindRules for Challenge {
    fn expressions(&self) -> Vec<&Script> {
        match &self.goal.measure {
            Measure::Sum { amount, .. } => vec![amount],
            Measure::Count(_) | Measure::Streak { .. } => Vec::new(),
        }
    }

    fn references(&self) -> Vec<Reference> {
        Challenge::references(self)
    }

    fn effects(&self, cx: &mut KindContext<'_, '_>) -> Result<Vec<Effect>, NotApplied> {
        Ok(challenge_effects(cx.campaign, self, cx)?)
    }
}
