//! The `voucher` kind: issues the Customer a Voucher of a Coupon. Its
//! `voucher:` section compiles to an [`EarnedVoucher`]; evaluated, it draws
//! the Voucher's code ([`super::rules`]).

use crate::engine::campaign_file::CampaignFile;
use crate::engine::effect::Effect;
use crate::engine::kinds::CampaignKind;
use crate::engine::kinds::KindContext;
use crate::engine::kinds::KindDefinition;
use crate::engine::kinds::KindRules;
use crate::engine::kinds::Reference;
use crate::engine::kinds::written;
use crate::engine::not_applied::NotApplied;
use crate::engine::schema::def;
use crate::resources::vouchers::rules::EarnedVoucher;
use crate::resources::vouchers::rules::earned_voucher;
use serde_json::Value;

/// How a `voucher` campaign file reads.
pub static VOUCHER: KindDefinition = KindDefinition {
    keys: |file: &CampaignFile| written(&[("voucher", file.voucher.is_some())]),
    compile: |file, problems, _| {
        let Some(section) = file.voucher.take() else {
            problems.at_key(
                "kind",
                "a `voucher` campaign needs a `voucher:` section naming its `coupon`",
            );
            return None;
        };
        section.compile(problems).map(CampaignKind::Voucher)
    },
    schema,
    required: Some("voucher"),
    sample: "id: 2\nkind: voucher\nname: V\non: { custom_event: review }\nvoucher:\n  coupon: 1\n",
};

/// The schema of the keys it describes.
fn schema() -> Vec<(&'static str, Value)> {
    vec![(
        "voucher",
        def(
            "voucher",
            "kind: voucher - the Coupon whose Voucher the event earns.",
        ),
    )]
}

impl KindRules for EarnedVoucher {
    fn references(&self) -> Vec<Reference> {
        vec![Reference {
            kind: "coupon",
            id: self.coupon_id,
            key: "coupon:",
            what: format!("the Voucher issued is of Coupon {}", self.coupon_id),
        }]
    }

    fn effects(&self, cx: &mut KindContext<'_, '_>) -> Result<Vec<Effect>, NotApplied> {
        Ok(earned_voucher(
            cx.campaign,
            *self,
            cx.campaigns,
            cx.facts,
            cx.render,
        )?)
    }
}
