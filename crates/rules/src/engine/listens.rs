//! What a campaign listens to (`on:`), and which events each kind may
//! listen to: a Reward, a game and a Coupon are given, never triggered; a
//! discount needs a cart; the kinds that react to events need one.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::engine::problems::Problems;

/// Which events a campaign listens to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listens {
    /// Carts (POST /carts/realtime and /carts/simulate).
    Cart,
    /// Custom Events of this type.
    CustomEvent(String),
    /// Triggers of this type.
    Trigger(String),
    /// No event: the campaign is only given (an Instant Win prize, a
    /// Reward, a Coupon).
    Prize,
    /// Plays of this game (POST /games/{id}/play): a game listens to its own.
    Play(i64),
    /// A moment of a Customer's life the service itself sees (`on:
    /// customer_created`, `on: customer_enrolled`): a welcome campaign
    /// needs no call of its own from the integrator.
    Customer(CustomerMoment),
}

/// A moment of a Customer's life campaigns may listen to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CustomerMoment {
    /// POST /customers created it.
    Created,
    /// It became a loyalty member: created enrolled (the default), or
    /// `loyalty_member` turned true.
    Enrolled,
}

impl CustomerMoment {
    /// Its name in `on:` and in `event.type`.
    pub fn name(self) -> &'static str {
        match self {
            CustomerMoment::Created => "customer_created",
            CustomerMoment::Enrolled => "customer_enrolled",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
/// `on:` as written: `cart`, `customer_created`, `customer_enrolled`, or
/// `{ custom_event: TYPE }` / `{ trigger: TYPE }`.
pub enum OnFile {
    Named(String),
    Typed(BTreeMap<String, String>),
}

/// What `on` says; `None` (and a problem at `on`) when it is none of the
/// forms. No `on` is a campaign that is only given.
pub fn listens_of(on: Option<OnFile>, problems: &mut Problems<'_>) -> Option<Listens> {
    let listens = match on {
        None => Some(Listens::Prize),
        Some(OnFile::Named(name)) if name == "cart" => Some(Listens::Cart),
        Some(OnFile::Named(name)) if name == CustomerMoment::Created.name() => {
            Some(Listens::Customer(CustomerMoment::Created))
        }
        Some(OnFile::Named(name)) if name == CustomerMoment::Enrolled.name() => {
            Some(Listens::Customer(CustomerMoment::Enrolled))
        }
        Some(OnFile::Typed(map)) if map.len() == 1 => match map.into_iter().next() {
            Some((key, value)) if key == "custom_event" => Some(Listens::CustomEvent(value)),
            Some((key, value)) if key == "trigger" => Some(Listens::Trigger(value)),
            _ => None,
        },
        _ => None,
    };
    if listens.is_none() {
        problems.at_key(
            "on",
            "`on` is `cart`, `customer_created`, `customer_enrolled`, `{ custom_event: TYPE }` or `{ trigger: TYPE }`",
        );
    }
    listens
}

/// Refuses an `on` that a campaign of `kind` cannot listen to.
pub fn check_listens(kind: &str, listens: Option<&Listens>, problems: &mut Problems<'_>) {
    match (kind, listens) {
        ("reward" | "game" | "coupon", Some(listens)) if *listens != Listens::Prize => {
            problems.at_key("on", format!("a {kind} listens to no event: remove `on`"));
        }
        // A Custom Event or trigger has no cart to take money off.
        (
            "discount",
            Some(Listens::CustomEvent(_) | Listens::Trigger(_) | Listens::Customer(_)),
        ) => {
            problems.at_key(
                "on",
                "a discount takes money off a cart: use `on: cart`. To reward a Custom \
                 Event or trigger with a discount, issue the Customer a Coupon's Voucher \
                 for a later cart: a `voucher` campaign (`kind: voucher`, `voucher: \
                 { coupon: ID }`), or POST /discounts/trigger",
            );
        }
        (
            "discount" | "instant_win" | "voucher" | "challenge" | "message",
            Some(Listens::Prize),
        ) => {
            problems.at_key(
                "kind",
                format!("a {kind} campaign needs `on`: cart, custom_event or trigger"),
            );
        }
        _ => {}
    }
}
