//! The prizes of an Instant Win file (`instant_win_prizes`), checked and
//! compiled: ids, weights summing to 1, stock and its strategy, outcomes.

use serde::Deserialize;

use crate::engine::problems::Problems;
use crate::engine::text::Text;
use crate::resources::instant_wins::rules::Prize;
use crate::resources::instant_wins::rules::PromotionType;
use crate::resources::instant_wins::rules::StockStrategy;
use crate::resources::instant_wins::rules::WEIGHT_TOLERANCE;

/// The prizes `files` describe; every problem goes to `problems`.
pub fn compile_prizes(problems: &mut Problems<'_>, files: Vec<PrizeFile>) -> Vec<Prize> {
    let start = problems.line_of("instant_win_prizes");
    if files.is_empty() {
        problems.at_key(
            "instant_win_prizes",
            "an Instant Win has at least one prize",
        );
    }
    let mut prizes: Vec<Prize> = Vec::new();
    for (index, file) in files.into_iter().enumerate() {
        let line = problems.nth_line_from(start, "id", index);
        let id = file.id.text();
        if id.trim().is_empty() {
            problems.at_line(line, "a prize id is not empty");
        }
        if prizes.iter().any(|p| p.id == id) {
            problems.at_line(line, format!("prize id `{id}` is used twice"));
        }
        if !(0.0..=1.0).contains(&file.weight) || !file.weight.is_finite() {
            problems.at_key_from(line, "weight", "a weight is a fraction from 0 to 1");
        }
        if file.stock < -1 {
            problems.at_key_from(line, "stock", "stock is -1 (unlimited) or at least 0");
        }
        let promotion_type =
            PromotionType::parse(&file.outcome.promotion_type).unwrap_or_else(|| {
                problems.at_key_from(
                    line,
                    "promotion_type",
                    format!(
                        "promotion_type is points, reward, game or empty (No Prize), not `{}`",
                        file.outcome.promotion_type
                    ),
                );
                PromotionType::NoPrize
            });
        match (promotion_type, file.outcome.promotion_id) {
            (PromotionType::NoPrize, Some(_)) if !file.outcome.promotion_type.is_empty() => {}
            (PromotionType::NoPrize, Some(_)) => problems.at_key_from(
                line,
                "promotion_id",
                "a No Prize entry (empty promotion_type) has no promotion_id",
            ),
            (PromotionType::NoPrize, None) => {}
            (_, None) => problems.at_key_from(
                line,
                "promotion_type",
                "a prize needs the promotion_id of the points campaign, reward or game it gives",
            ),
            (_, Some(_)) => {}
        }
        let strategy = match file.stock_management_strategy.as_deref() {
            None => StockStrategy::RemovePrize,
            Some(name) => StockStrategy::parse(name).unwrap_or_else(|| {
                problems.at_key_from(
                    line,
                    "stock_management_strategy",
                    format!("stock_management_strategy is remove_prize or keep_probabilities, not `{name}`"),
                );
                StockStrategy::RemovePrize
            }),
        };
        prizes.push(Prize {
            id,
            name: file.name,
            description: file.description,
            promotion_type,
            promotion_id: file
                .outcome
                .promotion_id
                .filter(|_| promotion_type != PromotionType::NoPrize),
            weight: file.weight,
            stock: file.stock,
            strategy,
        });
    }
    let sum: f64 = prizes.iter().map(|p| p.weight).sum();
    if !prizes.is_empty() && (sum - 1.0).abs() > WEIGHT_TOLERANCE {
        problems.at_key("instant_win_prizes", weights_message(&prizes, sum));
    }
    prizes
}

/// What to do about weights summing to `sum`, not 1: the rest given to the
/// No Prize entry (or one added), or what is too much taken off.
fn weights_message(prizes: &[Prize], sum: f64) -> String {
    let no_prize = prizes
        .iter()
        .find(|prize| prize.promotion_type == PromotionType::NoPrize);
    let said = format!("the prize weights sum to {}, not 1", decimal(sum));
    if sum > 1.0 {
        return format!("{said}: take {} off them", decimal(sum - 1.0));
    }
    let rest = decimal(1.0 - sum);
    match no_prize {
        Some(entry) => format!(
            "{said}: give the rest ({rest}) to the No Prize entry `{}` (weight {})",
            entry.id,
            decimal(entry.weight + 1.0 - sum)
        ),
        None => format!(
            "{said}: add a No Prize entry (an empty `outcome`) with the rest, weight {rest}"
        ),
    }
}

/// `value` as an author wrote it: no float noise (`0.9500000000000001` is
/// 0.95), at most nine decimals.
fn decimal(value: f64) -> String {
    let text = format!("{value:.9}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// A prize as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrizeFile {
    pub id: PrizeId,
    pub name: Text,
    #[serde(default)]
    pub description: Option<Text>,
    #[serde(default)]
    pub outcome: OutcomeFile,
    pub weight: f64,
    #[serde(default = "unlimited")]
    pub stock: i64,
    #[serde(default)]
    pub stock_management_strategy: Option<String>,
}

fn unlimited() -> i64 {
    -1
}

/// A prize id written as text or as a number.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum PrizeId {
    Text(String),
    Number(i64),
}

impl PrizeId {
    pub fn text(&self) -> String {
        match self {
            PrizeId::Text(text) => text.clone(),
            PrizeId::Number(number) => number.to_string(),
        }
    }
}

/// A prize's `outcome`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutcomeFile {
    #[serde(default)]
    pub promotion_type: String,
    #[serde(default)]
    pub promotion_id: Option<i64>,
}
