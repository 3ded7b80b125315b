//! The `points` kind: points into the wallet. Its `points:` section
//! compiles to a [`PointsAccrual`]; evaluated, it credits the points the
//! event earns, within its limits.

use crate::engine::campaign_file::CampaignFile;
use crate::engine::effect::Effect;
use crate::engine::kinds::CampaignKind;
use crate::engine::kinds::KindContext;
use crate::engine::kinds::KindDefinition;
use crate::engine::kinds::KindRules;
use crate::engine::kinds::written;
use crate::engine::not_applied::NotApplied;
use crate::engine::schema::def;
use crate::resources::points_campaigns::rules::PointsAccrual;
use crate::resources::points_campaigns::rules::points_effects;
use serde_json::Value;

/// How a `points` campaign file reads.
pub static POINTS: KindDefinition = KindDefinition {
    keys: |file: &CampaignFile| written(&[("points", file.points.is_some())]),
    compile: |file, problems, _| {
        let Some(section) = file.points.take() else {
            problems.at_key("kind", "a `points` campaign needs a `points:` section");
            return None;
        };
        section.compile(problems).map(CampaignKind::Points)
    },
    schema,
    required: Some("points"),
    sample: "id: 1\nkind: points\nname: P\non: cart\npoints:\n  fixed: 5\n",
};

/// The schema of the keys it describes.
fn schema() -> Vec<(&'static str, Value)> {
    vec![(
        "points",
        def("points", "kind: points - points or wallet money earned."),
    )]
}

impl KindRules for PointsAccrual {
    fn effects(&self, cx: &mut KindContext<'_, '_>) -> Result<Vec<Effect>, NotApplied> {
        let rule_name = (cx.render)(&cx.campaign.name);
        points_effects(cx.campaign, self, cx.facts, rule_name, cx.event_limit_takes)
    }
}
