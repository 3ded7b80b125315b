//! What one offer takes off each line, given what the offers before it
//! left: the one reckoning of discount campaigns and Vouchers alike.

use rust_decimal::Decimal;

use crate::common::money::allocate_with_ties;
use crate::common::money::round_money;
use crate::engine::effect::DiscountType;
use crate::engine::facts::Facts;
use crate::resources::discounts::rules::tie_keys;
use crate::resources::discounts::stacking::DiscountBase;

/// How an offer's value is spread over the lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spread {
    /// Each eligible line on its own worth (a line discount).
    PerLine,
    /// One value on the cart's total, shared over every line (a cart
    /// discount).
    Total,
    /// One value on the eligible lines together, shared over them (a
    /// Voucher).
    Eligible,
}

/// What one line of a [`Worth::PerLine`] offer takes off.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LineOff {
    /// A percentage of the line, as a rate.
    Rate(Decimal),
    /// A fixed amount, in whole minor units, at most the line's worth.
    Amount(Decimal),
}

/// What an offer is worth.
#[derive(Debug, Clone, PartialEq)]
pub enum Worth {
    /// A percentage as a rate (`0.1` for 10 %), of each line (a line
    /// discount) or of what it is given on;
    Rate(Decimal),
    /// a fixed amount, in whole minor units, off each line or off what it
    /// is given on;
    Amount(Decimal),
    /// each line its own (an expression over the line, the units or sets a
    /// line gives), always with [`Spread::PerLine`].
    PerLine {
        /// One per line of the cart.
        offs: Vec<LineOff>,
        /// How the campaign says it (`percent` or `amount`).
        kind: DiscountType,
    },
}

/// What an offer takes off, before it meets the other offers.
#[derive(Debug, Clone, PartialEq)]
pub struct Reckoning {
    /// What it is worth.
    pub worth: Worth,
    /// Most it takes off the cart, in whole minor units.
    pub max_amount: Option<Decimal>,
    /// Which lines it may take something off.
    pub eligible: Vec<bool>,
    /// How its value is spread.
    pub spread: Spread,
}

/// What is left to take off each line, and the cart: every discount
/// together takes at most a line's worth and at most the cart's total.
#[derive(Debug, Clone, PartialEq)]
pub struct Left {
    /// Per line, in cart order.
    pub lines: Vec<Decimal>,
    /// The whole cart.
    pub cart: Decimal,
}

impl Left {
    /// Everything of the cart in `facts`: nothing was taken off yet.
    pub fn all_of(facts: &Facts) -> Left {
        let amounts = facts.cart_amounts();
        let worth: Decimal = amounts.worths.iter().copied().sum();
        Left {
            lines: amounts.worths.clone(),
            cart: amounts.total.min(worth).max(Decimal::ZERO),
        }
    }

    /// Takes `shares` (one per line) off.
    pub fn take(&mut self, shares: &[Decimal]) {
        for (left, share) in self.lines.iter_mut().zip(shares) {
            *left -= *share;
            self.cart -= *share;
        }
    }
}

impl Reckoning {
    /// `Percent` or `Amount`, as its effects say.
    pub fn effect_type(&self) -> DiscountType {
        match &self.worth {
            Worth::Rate(_) => DiscountType::Percent,
            Worth::Amount(_) => DiscountType::Amount,
            Worth::PerLine { kind, .. } => *kind,
        }
    }

    /// What it takes off each line of the cart in `facts` when `left` is
    /// what the offers before it left, its percentage taken of `base`:
    /// every share is in whole minor units, at most what is left of its
    /// line, and all together at most what is left of the cart and its
    /// `max_amount`. All zero when it takes nothing.
    pub fn shares(&self, base: DiscountBase, left: &Left, facts: &Facts) -> Vec<Decimal> {
        let minor_units = facts.locale.minor_units;
        let amounts = facts.cart_amounts();
        let mut shares = vec![Decimal::ZERO; left.lines.len()];
        let base_of = |index: usize| match base {
            DiscountBase::Original => amounts.worths.get(index).copied().unwrap_or_default(),
            DiscountBase::Discounted => left.lines[index],
        };
        let eligible = |index: usize| self.eligible.get(index).copied().unwrap_or(false);
        let all: Vec<usize> = (0..left.lines.len()).collect();
        if self.spread == Spread::PerLine {
            let mut offs: Vec<Decimal> = (0..left.lines.len())
                .map(|index| {
                    let off = match &self.worth {
                        _ if !eligible(index) => return Decimal::ZERO,
                        Worth::Rate(rate) => LineOff::Rate(*rate),
                        Worth::Amount(amount) => LineOff::Amount(*amount),
                        Worth::PerLine { offs, .. } => offs
                            .get(index)
                            .copied()
                            .unwrap_or(LineOff::Amount(Decimal::ZERO)),
                    };
                    match off {
                        LineOff::Rate(rate) => round_money(base_of(index) * rate, minor_units),
                        LineOff::Amount(amount) => amount.min(base_of(index)),
                    }
                })
                .collect();
            let wanted: Decimal = offs.iter().copied().sum();
            // Over its cap, the discount is shared out over the lines in
            // proportion to what each would have got.
            if let Some(cap) = self.max_amount.filter(|cap| wanted > *cap) {
                offs = allocate_with_ties(cap, &offs, &tie_keys(facts, &all), minor_units)
                    .unwrap_or_else(|| vec![Decimal::ZERO; offs.len()]);
            }
            let mut cart_left = left.cart;
            for (index, off) in offs.into_iter().enumerate() {
                let value = off.min(left.lines[index]).min(cart_left).max(Decimal::ZERO);
                cart_left -= value;
                shares[index] = value;
            }
            return shares;
        }
        let weights: Vec<Decimal> = (0..left.lines.len())
            .map(|index| {
                if eligible(index) {
                    left.lines[index].max(Decimal::ZERO)
                } else {
                    Decimal::ZERO
                }
            })
            .collect();
        let room: Decimal = weights.iter().copied().sum();
        let pool = match (self.spread, base) {
            (Spread::Total, DiscountBase::Original) => amounts.total,
            (Spread::Total, DiscountBase::Discounted) => left.cart,
            (_, DiscountBase::Original) => (0..left.lines.len())
                .filter(|index| eligible(*index))
                .map(|index| amounts.worths.get(index).copied().unwrap_or_default())
                .sum(),
            (_, DiscountBase::Discounted) => room,
        };
        let wanted = match &self.worth {
            Worth::Rate(rate) => round_money(pool * rate, minor_units),
            Worth::Amount(amount) => *amount,
            // Only ever spread per line (above).
            Worth::PerLine { .. } => Decimal::ZERO,
        };
        let value = self
            .max_amount
            .map_or(wanted, |cap| wanted.min(cap))
            .min(room)
            .min(left.cart);
        if value <= Decimal::ZERO {
            return shares;
        }
        allocate_with_ties(value, &weights, &tie_keys(facts, &all), minor_units).unwrap_or(shares)
    }
}
