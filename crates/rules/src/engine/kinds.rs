//! Campaign kinds: the one list every kind plugs into the engine by, like
//! a command enum. A kind's pure part lives in its resource folder
//! (`resources/<kind>/kind.rs`): its [`KindDefinition`] (the keys of the
//! campaign file it owns and how they compile) and the [`KindRules`] of its
//! compiled form (its expressions, the campaigns it names, its effects).
//! Adding a kind is those and one line in [`campaign_kinds!`]'s list below
//! (with its file keys in [`crate::engine::campaign_file::CampaignFile`]);
//! the tests check every listed kind compiles from a sample file.

use crate::engine::campaign::Campaign;
use crate::engine::campaign_file::CampaignFile;
use crate::engine::effect::Effect;
use crate::engine::facts::Facts;
use crate::engine::not_applied::NotApplied;
use crate::engine::problems::Problems;
use crate::engine::script::PreparedFacts;
use crate::engine::script::Script;
use crate::engine::script::ScriptEngine;
use crate::engine::text::Text;
use crate::resources::challenges::rules::Challenge;
use crate::resources::coupons::rules::Coupon;
use crate::resources::discounts::rules::CompileExpression;
use crate::resources::discounts::rules::Discount;
use crate::resources::discounts::settle::CampaignOffer;
use crate::resources::instant_wins::draw_record::DrawRecord;
use crate::resources::instant_wins::rules::InstantWin;
use crate::resources::instant_wins::rules::draws::Draws;
use crate::resources::limits::LimitTake;
use crate::resources::messages::rules::MessagesOnly;
use crate::resources::points_campaigns::rules::PointsAccrual;
use crate::resources::rewards::rules::Reward;
use crate::resources::vouchers::rules::EarnedVoucher;

/// The kinds, one line each: the variant and what it holds, its `kind:`
/// name, its definition, and what it does in words. The list makes
/// [`CampaignKind`], [`CampaignKind::NAMES`] (in the order the error message
/// lists them) and the dispatch to each kind's definition and rules.
macro_rules! campaign_kinds {
    ($($variant:ident($compiled:ty) = $name:literal by $definition:path, $doc:literal;)*) => {
        /// What a campaign does; one variant per kind.
        #[derive(Debug, Clone)]
        pub enum CampaignKind {
            $(#[doc = $doc] $variant($compiled),)*
        }

        impl CampaignKind {
            /// Every kind's `kind:` name, in the order the error message lists them.
            pub const NAMES: &'static [&'static str] = &[$($name),*];

            /// Every kind's definition, in the order of [`CampaignKind::NAMES`].
            pub const DEFINITIONS: &'static [&'static KindDefinition] = &[$(&$definition),*];

            /// The `kind` name in files and effects.
            pub fn name(&self) -> &'static str {
                match self {
                    $(CampaignKind::$variant(_) => $name,)*
                }
            }

            /// What the kind does with an event.
            fn rules(&self) -> &dyn KindRules {
                match self {
                    $(CampaignKind::$variant(compiled) => compiled,)*
                }
            }
        }
    };
}

campaign_kinds! {
    Discount(Box<Discount>) = "discount" by crate::resources::discounts::kind::DISCOUNT, "Money off.";
    Points(PointsAccrual) = "points" by crate::resources::points_campaigns::kind::POINTS, "Points into the wallet.";
    InstantWin(Box<InstantWin>) = "instant_win" by crate::resources::instant_wins::kind::INSTANT_WIN, "A weighted prize draw.";
    Reward(Box<Reward>) = "reward" by crate::resources::rewards::kind::REWARD, "A Reward of the catalogue: redeemed with points, or given as a prize.";
    Game(Box<InstantWin>) = "game" by crate::resources::instant_wins::kind::GAME, "A game, played with participations: a weighted prize draw per play.";
    Coupon(Box<Coupon>) = "coupon" by crate::resources::coupons::kind::COUPON, "A Coupon: the template of Vouchers, which apply it to carts.";
    Voucher(EarnedVoucher) = "voucher" by crate::resources::vouchers::kind::VOUCHER, "Issues the Customer a Voucher of a Coupon.";
    Challenge(Box<Challenge>) = "challenge" by crate::resources::challenges::kind::CHALLENGE, "A goal Customers reach with the events that count, for a reward.";
    Message(MessagesOnly) = "message" by crate::resources::messages::kind::MESSAGE, "Messages only (`messages:`), shown when its condition holds.";
}

/// How a kind reads its campaign files.
pub struct KindDefinition {
    /// The keys of `file` this kind owns that are written; a file of
    /// another kind writing one is refused at it.
    pub keys: fn(&CampaignFile) -> Vec<&'static str>,
    /// Compiles the kind of a file of this kind, taking its keys out of the
    /// file; every problem goes to the problems.
    pub compile:
        fn(&mut CampaignFile, &mut Problems<'_>, &CompileExpression<'_>) -> Option<CampaignKind>,
    /// The schema of the keys it describes, by key
    /// ([`crate::engine::schema`]).
    pub schema: fn() -> Vec<(&'static str, serde_json::Value)>,
    /// The key a file of this kind must write, when there is one.
    pub required: Option<&'static str>,
    /// A smallest valid campaign file of the kind, which the tests compile.
    pub sample: &'static str,
}

/// What a compiled kind does; each kind implements it in its folder.
pub trait KindRules {
    /// The expressions of its own section, beside the campaign's `when`.
    fn expressions(&self) -> Vec<&Script> {
        Vec::new()
    }

    /// The other campaigns it names.
    fn references(&self) -> Vec<Reference> {
        Vec::new()
    }

    /// The effects of its campaign (`cx.campaign`) taking part in the
    /// event of `cx`; the reason when it gives none.
    fn effects(&self, cx: &mut KindContext<'_, '_>) -> Result<Vec<Effect>, NotApplied>;
}

impl<T: KindRules> KindRules for Box<T> {
    fn expressions(&self) -> Vec<&Script> {
        (**self).expressions()
    }

    fn references(&self) -> Vec<Reference> {
        (**self).references()
    }

    fn effects(&self, cx: &mut KindContext<'_, '_>) -> Result<Vec<Effect>, NotApplied> {
        (**self).effects(cx)
    }
}

/// The keys among `written` (each with whether it is) that are.
pub fn written(keys: &[(&'static str, bool)]) -> Vec<&'static str> {
    keys.iter()
        .filter_map(|(key, is)| is.then_some(*key))
        .collect()
}

/// Another campaign a campaign names, which must exist and be of `kind`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The kind it must be.
    pub kind: &'static str,
    /// Its id.
    pub id: i64,
    /// How the line naming it starts, for the error's line.
    pub key: &'static str,
    /// What the campaign does with it, in words.
    pub what: String,
}

/// What evaluating one campaign sees and where its draws go.
pub struct KindContext<'a, 'd> {
    /// The expression engine.
    pub engine: &'a ScriptEngine,
    /// The campaign evaluated.
    pub campaign: &'a Campaign,
    /// Every campaign of the Company (prizes name others).
    pub campaigns: &'a [Campaign],
    /// The event and what is known of its Customer.
    pub facts: &'a Facts,
    /// The facts, prepared once for every expression.
    pub prepared: &'a PreparedFacts<'a>,
    /// Random values and state for Instant Win draws.
    pub draws: &'a mut Draws<'d>,
    /// Puts translatable text in the response language.
    pub render: &'a dyn Fn(&Text) -> String,
    /// The draws made, to be recorded with the event.
    pub draw_records: &'a mut Vec<DrawRecord>,
    /// The discounts offered, settled with each other and the Vouchers
    /// once every campaign was evaluated.
    pub discount_offers: &'a mut Vec<CampaignOffer>,
    /// What the points campaigns that applied take from their limits,
    /// counted with the event itself.
    pub event_limit_takes: &'a mut Vec<LimitTake>,
    /// How many effects the campaigns before this one gave.
    pub effects_so_far: usize,
}

impl CampaignKind {
    /// The expressions of its own section, beside the campaign's `when`.
    pub fn expressions(&self) -> Vec<&Script> {
        self.rules().expressions()
    }

    /// The other campaigns it names.
    pub fn references(&self) -> Vec<Reference> {
        self.rules().references()
    }

    /// The effects of a campaign of this kind that takes part in the event
    /// of `cx`; the reason when it gives none.
    pub fn effects(&self, cx: &mut KindContext<'_, '_>) -> Result<Vec<Effect>, NotApplied> {
        self.rules().effects(cx)
    }

    /// The kind `file` describes, its keys taken out of it; every problem
    /// goes to `problems`. A key another kind owns is refused where it is
    /// written.
    pub fn compile(
        file: &mut CampaignFile,
        problems: &mut Problems<'_>,
        compile: &CompileExpression<'_>,
    ) -> Option<CampaignKind> {
        let Some(index) = Self::NAMES.iter().position(|name| *name == file.kind) else {
            problems.at_key(
                "kind",
                format!(
                    "kind `{}` is not available; use {} or {}",
                    file.kind,
                    Self::NAMES[..Self::NAMES.len() - 1].join(", "),
                    Self::NAMES[Self::NAMES.len() - 1]
                ),
            );
            return None;
        };
        let own = (Self::DEFINITIONS[index].keys)(file);
        let written: Vec<Vec<&'static str>> = Self::DEFINITIONS
            .iter()
            .map(|definition| (definition.keys)(file))
            .collect();
        let mut refused = Vec::new();
        for key in written.iter().flatten() {
            if own.contains(key) || refused.contains(key) {
                continue;
            }
            refused.push(*key);
            let owners: Vec<&str> = Self::NAMES
                .iter()
                .zip(&written)
                .filter(|(_, keys)| keys.contains(key))
                .map(|(name, _)| *name)
                .collect();
            problems.at_key(
                key,
                format!("`{key}` belongs to {} campaigns only", owners.join(" and ")),
            );
        }
        if !refused.is_empty() {
            return None;
        }
        (Self::DEFINITIONS[index].compile)(file, problems, compile)
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn every_registered_kind_compiles_from_its_file_and_answers_to_its_name() {
        let engine = ScriptEngine::new();
        for (name, definition) in CampaignKind::NAMES.iter().zip(CampaignKind::DEFINITIONS) {
            let campaign = Campaign::parse(&engine, &PathBuf::from("k.yaml"), definition.sample)
                .unwrap_or_else(|errors| panic!("kind `{name}`: {errors:?}"));
            assert_eq!(campaign.kind.name(), *name);
        }
        let mut names = CampaignKind::NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CampaignKind::NAMES.len(), "names are unique");
    }

    #[test]
    fn an_unregistered_kind_is_refused_with_the_registered_names() {
        let errors = Campaign::parse(
            &ScriptEngine::new(),
            &PathBuf::from("k.yaml"),
            "id: 1\nkind: raffle\nname: R\n",
        )
        .unwrap_err();
        let message = errors[0].to_string();
        for name in CampaignKind::NAMES {
            assert!(message.contains(name), "{message}");
        }
    }

    /// The problems of `text` as `line: message`.
    fn problems(text: &str) -> Vec<(usize, String)> {
        Campaign::parse(&ScriptEngine::new(), &PathBuf::from("k.yaml"), text)
            .expect_err("refused")
            .iter()
            .map(|error| (error.line, error.to_string()))
            .collect()
    }

    #[test]
    fn a_key_of_another_kind_is_refused_where_it_is_written_naming_its_kinds() {
        let found = problems(
            "id: 1\nkind: discount\nname: D\non: cart\ndiscount:\n  applies_to: cart\n  percent: 10\npoints:\n  fixed: 5\n",
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, 8, "{found:?}");
        assert!(
            found[0]
                .1
                .contains("`points` belongs to points campaigns only"),
            "{found:?}"
        );
        let found = problems("id: 1\nkind: reward\nname: R\nonce: day\n");
        assert_eq!(found[0].0, 4, "{found:?}");
        assert!(
            found[0]
                .1
                .contains("`once` belongs to instant_win and game campaigns only"),
            "{found:?}"
        );
    }

    #[test]
    fn a_key_two_kinds_own_is_refused_on_neither() {
        // `coupon:` is a Coupon's section and a targeted Instant Win's Coupon.
        let text = "id: 1\nkind: instant_win\nname: I\non: cart\nselect_customers: targeted\ncoupon:\n  discount: { percent: 10 }\ninstant_win:\n  instant_win_prizes:\n    - id: none\n      name: No prize\n      weight: 1\n";
        let refused: Vec<String> =
            match Campaign::parse(&ScriptEngine::new(), &PathBuf::from("k.yaml"), text) {
                Ok(_) => Vec::new(),
                Err(errors) => errors.iter().map(ToString::to_string).collect(),
            };
        assert!(
            !refused.iter().any(|message| message.contains("belongs to")),
            "{refused:?}"
        );
    }

    #[test]
    fn every_kind_without_its_required_key_is_refused_at_its_kind() {
        for (name, definition) in CampaignKind::NAMES.iter().zip(CampaignKind::DEFINITIONS) {
            let Some(key) = definition.required else {
                continue;
            };
            let found = problems(&format!("id: 1\nkind: {name}\nname: N\non: cart\n"));
            assert!(
                found
                    .iter()
                    .any(|(line, message)| *line == 2 && message.contains(key)),
                "kind `{name}`: {found:?}"
            );
        }
    }
}
