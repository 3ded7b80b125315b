//! Instant Win: the campaign's audience, participation period, recurrence and
//! prizes, and the weighted draw. Pure: the stock already given and the random
//! value are passed in, so a draw is reproducible and can be audited.
//!
//! ```yaml
//! id: 301
//! kind: instant_win
//! name: { en: Scratch and win }
//! on: cart
//! when: cart.total >= 10.0
//! select_customers: loyalty        # or targeted (needs `coupon`)
//! once: day                        # day | week | month | year | campaign
//! once_limit: 1
//! recurrence_type: weekly          # optional: daily | weekly
//! recurrence_days: [friday, saturday]
//! instant_win:
//!   instant_win_prizes:
//!     - id: coffee
//!       name: { en: Free coffee }
//!       outcome: { promotion_type: reward, promotion_id: 401 }
//!       weight: 0.1
//!       stock: 50                  # -1: unlimited
//!       stock_management_strategy: remove_prize   # or keep_probabilities
//!     - id: none
//!       name: No prize
//!       weight: 0.9                # empty outcome: the No Prize entry
//! ```

#[cfg(test)]
mod draw_properties;
pub mod draws;
pub mod fairness;
pub mod file;
pub mod forced;
pub mod prize_file;
pub mod rehearsal;

use crate::engine::text::Text;
use chrono::{Datelike, NaiveDateTime};

/// How far the weights of a campaign may sum away from 1.
pub const WEIGHT_TOLERANCE: f64 = 1e-6;

/// Who may take part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// Every loyalty member.
    Loyalty,
    /// Customers holding the campaign's Voucher (Targeted Delivery).
    Targeted,
}

impl Audience {
    /// The interface's `select_customers` value.
    pub fn name(self) -> &'static str {
        match self {
            Audience::Loyalty => "loyalty",
            Audience::Targeted => "targeted",
        }
    }
}

/// The period `once_limit` counts participations over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    /// A calendar day on the Company's clocks.
    Day,
    /// An ISO week (Monday to Sunday) on the Company's clocks.
    Week,
    /// A calendar month.
    Month,
    /// A calendar year.
    Year,
    /// The whole life of the campaign.
    Campaign,
}

impl Period {
    /// Every period, by its file name.
    pub const ALL: [(&'static str, Period); 5] = [
        ("day", Period::Day),
        ("week", Period::Week),
        ("month", Period::Month),
        ("year", Period::Year),
        ("campaign", Period::Campaign),
    ];

    /// The period's name in files and responses.
    pub fn name(self) -> &'static str {
        Period::ALL
            .iter()
            .find(|(_, period)| *period == self)
            .map_or("campaign", |(name, _)| name)
    }

    /// The period named `name`.
    pub fn parse(name: &str) -> Option<Period> {
        Period::ALL
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, period)| *period)
    }

    /// The key of the period containing `at` (the Company's wall-clock
    /// time): participations with the same key count against the same limit.
    pub fn key(self, at: NaiveDateTime) -> String {
        match self {
            Period::Day => at.format("%Y-%m-%d").to_string(),
            Period::Week => {
                let week = at.iso_week();
                format!("{}-W{:02}", week.year(), week.week())
            }
            Period::Month => at.format("%Y-%m").to_string(),
            Period::Year => at.format("%Y").to_string(),
            Period::Campaign => "campaign".to_string(),
        }
    }
}

/// What a prize gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromotionType {
    /// Nothing: the No Prize entry.
    NoPrize,
    /// The points of a points campaign, into the wallet.
    Points,
    /// A Reward.
    Reward,
    /// A participation in a game.
    Game,
}

impl PromotionType {
    /// The interface's `outcome.promotion_type` (empty for No Prize).
    pub fn name(self) -> &'static str {
        match self {
            PromotionType::NoPrize => "",
            PromotionType::Points => "points",
            PromotionType::Reward => "reward",
            PromotionType::Game => "game",
        }
    }

    /// The type named `name` in a file.
    pub fn parse(name: &str) -> Option<PromotionType> {
        match name {
            "" => Some(PromotionType::NoPrize),
            "points" => Some(PromotionType::Points),
            "reward" => Some(PromotionType::Reward),
            "game" => Some(PromotionType::Game),
            _ => None,
        }
    }

    /// The campaign kind a prize of this type refers to.
    pub fn campaign_kind(self) -> Option<&'static str> {
        match self {
            PromotionType::NoPrize => None,
            PromotionType::Points => Some("points"),
            PromotionType::Reward => Some("reward"),
            PromotionType::Game => Some("game"),
        }
    }
}

/// What happens when a prize runs out of stock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StockStrategy {
    /// The prize is no longer drawn: its probability passes to No Prize.
    RemovePrize,
    /// Probabilities stay as configured: drawing the exhausted prize is a
    /// participation without a prize.
    KeepProbabilities,
}

impl StockStrategy {
    /// The interface's `stock_management_strategy`.
    pub fn name(self) -> &'static str {
        match self {
            StockStrategy::RemovePrize => "remove_prize",
            StockStrategy::KeepProbabilities => "keep_probabilities",
        }
    }

    /// The strategy named `name` in a file.
    pub fn parse(name: &str) -> Option<StockStrategy> {
        match name {
            "remove_prize" => Some(StockStrategy::RemovePrize),
            "keep_probabilities" => Some(StockStrategy::KeepProbabilities),
            _ => None,
        }
    }
}

/// One entry of `instant_win.instant_win_prizes`.
#[derive(Debug, Clone, PartialEq)]
pub struct Prize {
    /// Unique within the campaign.
    pub id: String,
    /// Display name, translatable.
    pub name: Text,
    /// Description, translatable.
    pub description: Option<Text>,
    /// What it gives.
    pub promotion_type: PromotionType,
    /// The points campaign, Reward or game it gives (none for No Prize).
    pub promotion_id: Option<i64>,
    /// Configured probability, a fraction of 1.
    pub weight: f64,
    /// Units available in total; -1 is unlimited.
    pub stock: i64,
    /// What happens when it runs out.
    pub strategy: StockStrategy,
}

impl Prize {
    /// Units left after `given` were won; `None` when unlimited.
    pub fn remaining(&self, given: i64) -> Option<i64> {
        (self.stock >= 0).then(|| (self.stock - given).max(0))
    }

    /// Whether drawing it gives something (it is not the No Prize entry).
    pub fn is_prize(&self) -> bool {
        self.promotion_type != PromotionType::NoPrize
    }
}

/// The Coupon a targeted Instant Win's Vouchers belong to.
pub use crate::engine::reach::Recurrence;
pub use crate::resources::coupons::rules::CouponReference as Coupon;

/// The Instant Win part of a campaign.
#[derive(Debug, Clone, PartialEq)]
pub struct InstantWin {
    /// Who may take part.
    pub audience: Audience,
    /// The period participations are counted over.
    pub once: Period,
    /// Most participations of one Customer in one period.
    pub once_limit: i64,
    /// The Voucher of a targeted campaign.
    pub coupon: Option<Coupon>,
    /// The prizes, No Prize included.
    pub prizes: Vec<Prize>,
    /// A game: beyond its free plays (`once_limit` per `once`), each play
    /// uses one of the participations the Customer was given.
    pub granted_plays: bool,
}

/// The outcome of one draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn {
    /// The probability each prize had in this draw (after end-of-stock moves).
    pub weights: Vec<f64>,
    /// The entry the random value fell on; `None` when it fell on the
    /// probability passed to No Prize of a campaign without a No Prize entry.
    pub index: Option<usize>,
    /// Whether the Customer won that entry (a prize with stock left).
    pub won: bool,
}

/// The probability of each prize given how many units of each were already
/// given (`given[i]` for `prizes[i]`): a `remove_prize` prize without stock
/// passes its weight to the first No Prize entry (or to nobody, when there is
/// none, so the draw lands outside every entry).
pub fn effective_weights(prizes: &[Prize], given: &[i64]) -> Vec<f64> {
    let mut weights: Vec<f64> = prizes.iter().map(|p| p.weight).collect();
    let no_prize = prizes.iter().position(|p| !p.is_prize());
    for (index, prize) in prizes.iter().enumerate() {
        let exhausted = prize.remaining(given.get(index).copied().unwrap_or(0)) == Some(0);
        if prize.is_prize() && exhausted && prize.strategy == StockStrategy::RemovePrize {
            let moved = weights[index];
            weights[index] = 0.0;
            if let Some(no_prize) = no_prize {
                weights[no_prize] += moved;
            }
        }
    }
    weights
}

/// Draws one entry with `random`, a value in [0, 1).
pub fn draw(prizes: &[Prize], given: &[i64], random: f64) -> Drawn {
    let weights = effective_weights(prizes, given);
    let mut cumulative = 0.0;
    let mut index = None;
    for (i, weight) in weights.iter().enumerate() {
        cumulative += weight;
        if *weight > 0.0 && random < cumulative {
            index = Some(i);
            break;
        }
    }
    // Weights may sum to a hair under 1: a value in that sliver belongs to the
    // last entry with any probability, unless probability was removed on purpose.
    let removed = prizes.iter().map(|p| p.weight).sum::<f64>() - weights.iter().sum::<f64>();
    if index.is_none() && removed <= WEIGHT_TOLERANCE {
        index = weights.iter().rposition(|w| *w > 0.0);
    }
    let won = index.is_some_and(|i| {
        let prize = &prizes[i];
        prize.is_prize() && prize.remaining(given.get(i).copied().unwrap_or(0)) != Some(0)
    });
    Drawn {
        weights,
        index,
        won,
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A prize of `weight` and `stock` (-1: unlimited), removed when it runs out.
    pub fn prize(id: &str, kind: PromotionType, weight: f64, stock: i64) -> Prize {
        Prize {
            id: id.into(),
            name: Text::Plain(id.into()),
            description: None,
            promotion_type: kind,
            promotion_id: (kind != PromotionType::NoPrize).then_some(1),
            weight,
            stock,
            strategy: StockStrategy::RemovePrize,
        }
    }

    /// A Reward prize, or the No Prize entry when `id` is `none`.
    pub fn reward_or_none(id: &str, weight: f64, stock: i64) -> Prize {
        let kind = if id == "none" {
            PromotionType::NoPrize
        } else {
            PromotionType::Reward
        };
        prize(id, kind, weight, stock)
    }

    #[test]
    fn the_random_value_falls_on_cumulative_weights() {
        let prizes = [
            prize("a", PromotionType::Reward, 0.25, -1),
            prize("none", PromotionType::NoPrize, 0.75, -1),
        ];
        assert_eq!(draw(&prizes, &[0, 0], 0.0).index, Some(0));
        assert!(draw(&prizes, &[0, 0], 0.2499).won);
        let none = draw(&prizes, &[0, 0], 0.25);
        assert_eq!((none.index, none.won), (Some(1), false));
        assert_eq!(draw(&prizes, &[0, 0], 0.999_999_9).index, Some(1));
    }

    #[test]
    fn remove_prize_passes_probability_to_no_prize() {
        let prizes = [
            prize("a", PromotionType::Reward, 0.25, 3),
            prize("none", PromotionType::NoPrize, 0.75, -1),
        ];
        assert_eq!(effective_weights(&prizes, &[2, 0]), [0.25, 0.75]);
        assert_eq!(effective_weights(&prizes, &[3, 0]), [0.0, 1.0]);
        let drawn = draw(&prizes, &[3, 0], 0.1);
        assert_eq!((drawn.index, drawn.won), (Some(1), false));
    }

    #[test]
    fn without_a_no_prize_entry_removed_probability_wins_nothing() {
        let prizes = [
            prize("a", PromotionType::Points, 0.5, 0),
            prize("b", PromotionType::Points, 0.5, -1),
        ];
        // `a` is out: `b` keeps its half, the other half wins nothing.
        assert_eq!(effective_weights(&prizes, &[0, 0]), [0.0, 0.5]);
        let drawn = draw(&prizes, &[0, 0], 0.7);
        assert_eq!((drawn.index, drawn.won), (None, false));
        assert!(draw(&prizes, &[0, 0], 0.2).won);
    }

    #[test]
    fn keep_probabilities_draws_the_exhausted_prize_without_winning_it() {
        let mut exhausted = prize("a", PromotionType::Game, 0.5, 1);
        exhausted.strategy = StockStrategy::KeepProbabilities;
        let prizes = [exhausted, prize("none", PromotionType::NoPrize, 0.5, -1)];
        let drawn = draw(&prizes, &[1, 0], 0.1);
        assert_eq!((drawn.index, drawn.won), (Some(0), false));
        assert_eq!(drawn.weights, [0.5, 0.5]);
    }

    #[test]
    fn periods_have_calendar_keys() {
        let wall_clock =
            |text: &str| chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S").unwrap();
        let at = wall_clock("2026-01-01T10:00:00");
        assert_eq!(Period::Day.key(at), "2026-01-01");
        assert_eq!(Period::Week.key(at), "2026-W01");
        assert_eq!(Period::Month.key(at), "2026-01");
        assert_eq!(Period::Year.key(at), "2026");
        assert_eq!(Period::Campaign.key(at), "campaign");
        let sunday = wall_clock("2026-11-22T10:00:00");
        assert!(Recurrence::Weekly(vec![chrono::Weekday::Sun]).allows(sunday));
        assert!(!Recurrence::Weekly(vec![chrono::Weekday::Mon]).allows(sunday));
    }
}
