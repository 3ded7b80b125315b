//! The Instant Win fields of a campaign file, checked and compiled into an
//! [`InstantWin`]; every problem is reported at the line it concerns.

use serde::Deserialize;

use crate::engine::problems::Problems;
use crate::resources::coupons::rules::CouponFile;
use crate::resources::instant_wins::rules::Audience;
use crate::resources::instant_wins::rules::InstantWin;
use crate::resources::instant_wins::rules::Period;
use crate::resources::instant_wins::rules::prize_file::PrizeFile;
use crate::resources::instant_wins::rules::prize_file::compile_prizes;

/// The Instant Win fields written at the top level of a campaign file.
#[derive(Debug, Default)]
pub struct InstantWinFields {
    pub select_customers: Option<String>,
    pub once: Option<String>,
    pub once_limit: Option<i64>,
    pub coupon: Option<CouponFile>,
    pub instant_win: Option<InstantWinFile>,
}

impl InstantWinFields {
    /// Checks every field and compiles them; `None` when any is wrong. A
    /// `game` is played with participations: `once` and `once_limit` are its
    /// free plays (none unless written), beyond which plays use the
    /// participations the Customer was given; it is for loyalty members.
    pub fn compile(self, problems: &mut Problems<'_>, game: bool) -> Option<InstantWin> {
        let before = problems.errors.len();
        if game && self.select_customers.as_deref() == Some("targeted") {
            problems.at_key(
                "select_customers",
                "a game is played with participations, not targeted Vouchers",
            );
        }
        let audience = match self.select_customers.as_deref() {
            None | Some("loyalty") => Audience::Loyalty,
            Some("targeted") => Audience::Targeted,
            Some(other) => {
                problems.at_key(
                    "select_customers",
                    format!("select_customers is `loyalty` or `targeted`, not `{other}`"),
                );
                Audience::Loyalty
            }
        };
        let once = match self.once.as_deref() {
            Some(name) => Period::parse(name).unwrap_or_else(|| {
                problems.at_key(
                    "once",
                    format!("once is day, week, month, year or campaign, not `{name}`"),
                );
                Period::Campaign
            }),
            None if game => Period::Campaign,
            None => {
                problems.at_key(
                    "kind",
                    "an instant_win campaign needs `once` (day, week, month, year or campaign)",
                );
                Period::Campaign
            }
        };
        let once_limit = match self.once_limit {
            Some(limit) if limit >= 1 || (game && limit == 0) => limit,
            Some(_) if game => {
                problems.at_key("once_limit", "once_limit (free plays) is 0 or more");
                0
            }
            None if game => 0,
            Some(_) => {
                problems.at_key("once_limit", "once_limit is at least 1");
                1
            }
            None => {
                problems.at_key("kind", "an instant_win campaign needs `once_limit`");
                1
            }
        };
        let coupon = match (audience, self.coupon) {
            (Audience::Targeted, Some(coupon)) => coupon.reference(problems),
            (Audience::Targeted, None) => {
                problems.at_key(
                    "select_customers",
                    "a targeted Instant Win needs `coupon: { id, name, static_code }` for its Vouchers",
                );
                None
            }
            (Audience::Loyalty, Some(_)) => {
                problems.at_key("coupon", "only a targeted Instant Win has a coupon");
                None
            }
            (Audience::Loyalty, None) => None,
        };
        let prizes = match self.instant_win {
            Some(section) => compile_prizes(problems, section.instant_win_prizes),
            // A game whose prizes are not written yet holds the
            // participations it is given; it is played once it has prizes.
            None if game => Vec::new(),
            None => {
                problems.at_key(
                    "kind",
                    "an instant_win campaign needs `instant_win: { instant_win_prizes: [...] }`",
                );
                Vec::new()
            }
        };
        (problems.errors.len() == before).then_some(InstantWin {
            audience,
            once,
            once_limit,
            coupon,
            prizes,
            granted_plays: game,
        })
    }
}

/// The `instant_win:` section of a campaign file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstantWinFile {
    pub instant_win_prizes: Vec<PrizeFile>,
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::engine::campaign::Campaign;
    use crate::engine::kinds::CampaignKind;
    use crate::engine::script::RuleError;
    use crate::engine::script::ScriptEngine;
    use crate::resources::instant_wins::rules::Audience;
    use crate::resources::instant_wins::rules::Period;
    use crate::resources::instant_wins::rules::PromotionType;
    use crate::resources::instant_wins::rules::StockStrategy;

    fn parse(text: &str) -> Result<Campaign, Vec<RuleError>> {
        Campaign::parse(&ScriptEngine::new(), &PathBuf::from("iw.yaml"), text)
    }

    fn described(text: &str) -> Vec<String> {
        parse(text)
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    const HEAD: &str = "id: 1\nkind: instant_win\nname: Draw\non: cart\nonce: day\nonce_limit: 1\n";

    #[test]
    fn a_valid_instant_win_compiles_with_its_defaults() {
        let text = format!(
            "{HEAD}instant_win:\n  instant_win_prizes:\n    - id: 7\n      name: Gift\n      outcome: {{ promotion_type: reward, promotion_id: 2 }}\n      weight: 0.25\n    - id: none\n      name: None\n      weight: 0.75\n"
        );
        let campaign = parse(&text).unwrap();
        let CampaignKind::InstantWin(instant_win) = campaign.kind else {
            panic!("not an instant_win");
        };
        assert_eq!(instant_win.audience, Audience::Loyalty);
        assert_eq!(instant_win.once, Period::Day);
        let gift = &instant_win.prizes[0];
        assert_eq!(
            (
                gift.id.as_str(),
                gift.stock,
                gift.strategy,
                gift.promotion_type
            ),
            ("7", -1, StockStrategy::RemovePrize, PromotionType::Reward)
        );
        assert_eq!(instant_win.prizes[1].promotion_type, PromotionType::NoPrize);
    }

    #[test]
    fn prize_problems_are_reported_at_the_prize_line() {
        let text = format!(
            "{HEAD}instant_win:\n  instant_win_prizes:\n    - id: a\n      name: A\n      outcome: {{ promotion_type: points, promotion_id: 2 }}\n      weight: 0.5\n    - id: b\n      name: B\n      outcome: {{ promotion_type: coupon, promotion_id: 3 }}\n      weight: 1.5\n      stock: -2\n      stock_management_strategy: shrug\n    - id: a\n      name: C\n      outcome: {{ promotion_type: game }}\n      weight: 0.1\n"
        );
        let errors = described(&text);
        let expect = [
            "iw.yaml:15:", // promotion_type coupon (line of prize b's outcome)
            "iw.yaml:16:", // weight 1.5
            "iw.yaml:17:", // stock -2
            "iw.yaml:18:", // strategy
            "iw.yaml:19:", // id a used twice
        ];
        for prefix in expect {
            assert!(
                errors.iter().any(|e| e.starts_with(prefix)),
                "{prefix} missing in {errors:#?}"
            );
        }
        assert!(
            errors.iter().any(|e| e.contains("needs the promotion_id")),
            "{errors:#?}"
        );
        assert!(errors.iter().any(|e| e.contains("sum to")), "{errors:#?}");
    }

    #[test]
    fn weights_must_sum_to_one_within_tolerance() {
        let prizes = |a: f64, b: f64| {
            format!(
                "{HEAD}instant_win:\n  instant_win_prizes:\n    - id: a\n      name: A\n      weight: {a}\n    - id: b\n      name: B\n      weight: {b}\n"
            )
        };
        assert!(parse(&prizes(0.1, 0.9)).is_ok());
        assert!(parse(&prizes(0.333_333_333_3, 0.666_666_666_7)).is_ok());
        let errors = described(&prizes(0.1, 0.8));
        assert!(
            errors[0].contains(
                "the prize weights sum to 0.9, not 1: give the rest (0.1) to the No Prize entry `a` (weight 0.2)"
            ),
            "{errors:?}"
        );
        let without_no_prize = format!(
            "{HEAD}instant_win:\n  instant_win_prizes:\n    - id: a\n      name: A\n      weight: 0.9\n      outcome: {{ promotion_type: points, promotion_id: 1 }}\n"
        );
        let errors = described(&without_no_prize);
        assert!(
            errors[0].contains(
                "the prize weights sum to 0.9, not 1: add a No Prize entry (an empty `outcome`) with the rest, weight 0.1"
            ),
            "{errors:?}"
        );
        // Float noise is not shown, and a No Prize entry that exists is
        // named, with the weight that makes the sum 1.
        let with_no_prize = format!(
            "{HEAD}instant_win:\n  instant_win_prizes:\n    - id: a\n      name: A\n      weight: 0.05\n      outcome: {{ promotion_type: points, promotion_id: 1 }}\n    - id: none\n      name: Nothing\n      weight: 0.9\n"
        );
        let errors = described(&with_no_prize);
        assert!(
            errors[0].contains(
                "the prize weights sum to 0.95, not 1: give the rest (0.05) to the No Prize entry `none` (weight 0.95)"
            ),
            "{errors:?}"
        );
        let errors = described(&prizes(0.5, 0.7));
        assert!(
            errors[0].contains("sum to 1.2, not 1: take 0.2 off them"),
            "{errors:?}"
        );
    }

    #[test]
    fn audience_period_and_recurrence_are_checked() {
        let prizes =
            "instant_win:\n  instant_win_prizes:\n    - id: n\n      name: N\n      weight: 1\n";
        let errors = described(&format!(
            "id: 1\nkind: instant_win\nname: D\non: cart\nselect_customers: targeted\nonce: fortnight\nonce_limit: 0\nrecurrence_type: weekly\nrecurrence_days: [monday, funday]\n{prizes}"
        ));
        for needle in ["coupon", "fortnight", "once_limit is at least 1", "funday"] {
            assert!(
                errors.iter().any(|e| e.contains(needle)),
                "{needle} missing in {errors:#?}"
            );
        }
        let errors = described(&format!(
            "id: 1\nkind: instant_win\nname: D\non: cart\n{prizes}"
        ));
        assert!(
            errors.iter().any(|e| e.contains("needs `once`")),
            "{errors:?}"
        );
        let errors = described(&format!("{HEAD}recurrence_type: weekly\n{prizes}"));
        assert!(
            errors.iter().any(|e| e.contains("needs recurrence_days")),
            "{errors:?}"
        );
        let errors = described(&format!(
            "id: 1\nkind: instant_win\nname: D\nonce: day\nonce_limit: 1\n{prizes}"
        ));
        assert!(
            errors.iter().any(|e| e.contains("needs `on`")),
            "{errors:?}"
        );
    }

    #[test]
    fn instant_win_fields_belong_to_instant_wins_and_rewards_listen_to_nothing() {
        let errors = described(
            "id: 1\nkind: points\nname: P\non: cart\nonce_limit: 3\npoints: { fixed: 1 }\n",
        );
        assert!(
            errors[0].starts_with("iw.yaml:5:")
                && errors[0].contains("instant_win and game campaigns only"),
            "{errors:?}"
        );
        let errors = described("id: 1\nkind: reward\nname: R\non: cart\n");
        assert!(errors[0].contains("remove `on`"), "{errors:?}");
        assert!(
            parse("id: 1\nkind: game\nname: G\n").is_ok(),
            "prizes come later"
        );
        let errors = described(
            "id: 1\nkind: game\nname: G\nselect_customers: targeted\ninstant_win:\n  instant_win_prizes:\n    - id: n\n      name: N\n      weight: 1\n",
        );
        assert!(
            errors[0].starts_with("iw.yaml:4:") && errors[0].contains("not targeted"),
            "{errors:?}"
        );
    }

    #[test]
    fn prizes_must_give_an_existing_campaign_of_their_kind() {
        let files = vec![
            (
                PathBuf::from("iw.yaml"),
                format!(
                    "{HEAD}instant_win:\n  instant_win_prizes:\n    - id: a\n      name: A\n      outcome: {{ promotion_type: reward, promotion_id: 2 }}\n      weight: 0.5\n    - id: b\n      name: B\n      outcome: {{ promotion_type: points, promotion_id: 99 }}\n      weight: 0.5\n"
                ),
            ),
            (
                PathBuf::from("game.yaml"),
                "id: 2\nkind: game\nname: G\ninstant_win:\n  instant_win_prizes:\n    - id: n\n      name: N\n      weight: 1\n".to_string(),
            ),
        ];
        let errors: Vec<String> = Campaign::load_all(&ScriptEngine::new(), &files)
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(errors.len(), 2, "{errors:#?}");
        assert!(
            errors[0].starts_with("iw.yaml:11:")
                && errors[0].contains("campaign 2 is a game campaign"),
            "{errors:?}"
        );
        assert!(
            errors[1].starts_with("iw.yaml:15:") && errors[1].contains("no campaign has that id"),
            "{errors:?}"
        );
    }
}
