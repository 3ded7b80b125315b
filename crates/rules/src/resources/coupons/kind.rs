//! The `coupon` kind: the template of Vouchers. Its `coupon:` section and
//! the Locations its Vouchers can be used at compile to a [`Coupon`]; it
//! has no effects of its own: its Vouchers' are reckoned after every
//! discount campaign's ([`super::apply`]).

use crate::engine::campaign_file::CampaignFile;
use crate::engine::effect::Effect;
use crate::engine::kinds::CampaignKind;
use crate::engine::kinds::KindContext;
use crate::engine::kinds::KindDefinition;
use crate::engine::kinds::KindRules;
use crate::engine::kinds::written;
use crate::engine::not_applied::NotApplied;
use crate::engine::schema::def;
use crate::resources::coupons::rules::Coupon;
use serde_json::Value;

/// How a `coupon` campaign file reads.
pub static COUPON: KindDefinition = KindDefinition {
    keys: |file: &CampaignFile| written(&[("coupon", file.coupon.is_some())]),
    compile: |file, problems, _| {
        let Some(section) = file.coupon.take() else {
            problems.at_key("kind", "a `coupon` campaign needs a `coupon:` section");
            return None;
        };
        // Where its Vouchers can be used, rather than where it runs.
        let locations = std::mem::take(&mut file.locations);
        section
            .compile(locations, problems)
            .map(|coupon| CampaignKind::Coupon(Box::new(coupon)))
    },
    schema,
    required: Some("coupon"),
    sample: "id: 1\nkind: coupon\nname: C\ncoupon:\n  discount: { percent: 10 }\n",
};

/// The schema of the keys it describes.
fn schema() -> Vec<(&'static str, Value)> {
    vec![(
        "coupon",
        def(
            "coupon",
            "kind: coupon - the Coupon; Instant Win (targeted): its Voucher's Coupon.",
        ),
    )]
}

impl KindRules for Coupon {
    fn effects(&self, _cx: &mut KindContext<'_, '_>) -> Result<Vec<Effect>, NotApplied> {
        Ok(Vec::new())
    }
}
