//! The `instant_win` and `game` kinds: a weighted prize draw when an event
//! it listens to arrives, or per play of a game. Their keys
//! (`select_customers`, `once`, `once_limit`, `coupon` and `instant_win:`)
//! compile to an [`InstantWin`] ([`super::rules::file`]); evaluated, it
//! draws ([`super::rules::draws`]).

use crate::engine::campaign_file::CampaignFile;
use crate::engine::effect::Effect;
use crate::engine::effect::InstantWinDrawEffect;
use crate::engine::kinds::CampaignKind;
use crate::engine::kinds::KindContext;
use crate::engine::kinds::KindDefinition;
use crate::engine::kinds::KindRules;
use crate::engine::kinds::written;
use crate::engine::not_applied::NotApplied;
use crate::engine::problems::Problems;
use crate::engine::schema::{PERIODS, def, one_of, whole};
use crate::resources::instant_wins::rules::InstantWin;
use crate::resources::instant_wins::rules::draws::instant_win_draw;
use crate::resources::instant_wins::rules::file::InstantWinFields;
use serde_json::Value;

/// How an `instant_win` campaign file reads.
pub static INSTANT_WIN: KindDefinition = KindDefinition {
    keys: instant_win_keys,
    compile: |file, problems, _| {
        compile(file, problems, false).map(|drawn| CampaignKind::InstantWin(Box::new(drawn)))
    },
    schema,
    required: None,
    sample: "id: 1\nkind: instant_win\nname: I\non: cart\nselect_customers: loyalty\nonce: day\nonce_limit: 1\ninstant_win:\n  instant_win_prizes:\n    - id: none\n      name: No prize\n      weight: 1\n",
};

/// How a `game` campaign file reads.
pub static GAME: KindDefinition = KindDefinition {
    keys: instant_win_keys,
    compile: |file, problems, _| {
        compile(file, problems, true).map(|game| CampaignKind::Game(Box::new(game)))
    },
    schema,
    required: None,
    sample: "id: 1\nkind: game\nname: G\ninstant_win:\n  instant_win_prizes:\n    - id: none\n      name: No prize\n      weight: 1\n",
};

/// The schema of the keys it describes.
fn schema() -> Vec<(&'static str, Value)> {
    vec![
        (
            "select_customers",
            one_of(
                &["loyalty", "targeted"],
                "Instant Win: who takes part (default loyalty).",
            ),
        ),
        (
            "once",
            one_of(
                &PERIODS,
                "Instant Win and game: the period participations (free plays) are counted over.",
            ),
        ),
        (
            "once_limit",
            whole(
                "Instant Win: participations per Customer per period; game: free plays per period.",
                0,
            ),
        ),
        (
            "instant_win",
            def("instant_win", "Instant Win and game: the prizes."),
        ),
    ]
}

/// The Instant Win keys `file` writes.
fn instant_win_keys(file: &CampaignFile) -> Vec<&'static str> {
    written(&[
        ("select_customers", file.select_customers.is_some()),
        ("once", file.once.is_some()),
        ("once_limit", file.once_limit.is_some()),
        ("coupon", file.coupon.is_some()),
        ("instant_win", file.instant_win.is_some()),
    ])
}

/// The draw `file` describes, a game's when `game`.
fn compile(file: &mut CampaignFile, problems: &mut Problems<'_>, game: bool) -> Option<InstantWin> {
    InstantWinFields {
        select_customers: file.select_customers.take(),
        once: file.once.take(),
        once_limit: file.once_limit.take(),
        coupon: file.coupon.take(),
        instant_win: file.instant_win.take(),
    }
    .compile(problems, game)
}

impl KindRules for InstantWin {
    fn effects(&self, cx: &mut KindContext<'_, '_>) -> Result<Vec<Effect>, NotApplied> {
        let (draw, record) = instant_win_draw(
            cx.campaign,
            self,
            cx.campaigns,
            cx.facts,
            cx.draws,
            cx.render,
        )?;
        cx.draw_records.push(record);
        Ok(vec![Effect::InstantWin(Box::new(InstantWinDrawEffect {
            rule_id: cx.campaign.id,
            rule_name: (cx.render)(&cx.campaign.name),
            draw,
        }))])
    }
}
