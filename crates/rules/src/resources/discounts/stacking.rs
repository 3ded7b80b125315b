//! Stacking: how a discount campaign or a Coupon shares a cart with the
//! other offers, written by its author in one `stacking:` section.
//!
//! ```yaml
//! stacking:
//!   priority: 10              # higher first, and it wins conflicts (default 0)
//!   group: seasonal           # the group other offers name in combines_with
//!   combines_with: [loyalty]  # the groups it may share a cart with (absent: any)
//!   excludes: [staff]         # the groups it never shares a cart with (others: as above)
//!   exclusive: true           # shares a cart with no other offer
//!   base: discounted          # percentage of the price after the offers before it,
//!                             # or `original` (the price on the shelf)
//!   max_per_cart: 1           # Coupons: most of its Vouchers one cart uses
//! ```
//!
//! Two offers share a cart only when each allows the other (`combines_with`
//! is symmetric). How the competing ones are settled is
//! [`crate::resources::discounts::settle`].

use serde::Deserialize;

use crate::engine::problems::Problems;

/// Most a priority may be, either way.
pub const MAX_PRIORITY: i64 = 1_000_000;

pub use loyalty_types::discounts::DiscountBase;

/// How an offer shares a cart with the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stacking {
    /// Offers of higher priority are reckoned first and win conflicts.
    pub priority: i64,
    /// The group other offers name in their `combines_with`.
    pub group: Option<String>,
    /// The groups it may share a cart with; `None`: any; empty: none
    /// (exclusive).
    pub combines_with: Option<Vec<String>>,
    /// The groups it never shares a cart with, whatever `combines_with`
    /// allows: keeps two groups apart without shutting out the offers of
    /// no group.
    pub excludes: Vec<String>,
    /// What its percentage is taken of.
    pub base: DiscountBase,
    /// Most Vouchers of one Coupon a cart uses; `None`: no limit.
    pub max_per_cart: Option<u32>,
}

impl Stacking {
    /// The stacking of an offer that says nothing about it: priority 0, no
    /// group, combining with any offer that allows it, on `base`.
    pub fn default_on(base: DiscountBase) -> Stacking {
        Stacking {
            priority: 0,
            group: None,
            combines_with: None,
            excludes: Vec::new(),
            base,
            max_per_cart: None,
        }
    }

    /// The stacking of a campaign of kind `kind` with no `stacking:`.
    pub fn of_kind(kind: &str) -> Stacking {
        Stacking::default_on(default_base(kind))
    }

    /// Whether it shares a cart with no other offer.
    pub fn exclusive(&self) -> bool {
        self.combines_with.as_ref().is_some_and(Vec::is_empty)
    }

    /// Whether it allows `other` beside it (one side of [`Self::combines`]).
    fn allows(&self, other: &Stacking) -> bool {
        let excluded = other
            .group
            .as_ref()
            .is_some_and(|group| self.excludes.contains(group));
        if excluded {
            return false;
        }
        match &self.combines_with {
            None => true,
            Some(groups) => other
                .group
                .as_ref()
                .is_some_and(|group| groups.contains(group)),
        }
    }

    /// Whether the two may share a cart: each allows the other.
    pub fn combines(&self, other: &Stacking) -> bool {
        self.allows(other) && other.allows(self)
    }
}

/// What a percentage of a campaign of kind `kind` is taken of, unless its
/// author says.
fn default_base(kind: &str) -> DiscountBase {
    if kind == "coupon" {
        DiscountBase::Discounted
    } else {
        DiscountBase::Original
    }
}

/// The `stacking:` section as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StackingFile {
    #[serde(default)]
    priority: Option<i64>,
    #[serde(default)]
    group: Option<String>,
    #[serde(default)]
    combines_with: Option<Vec<String>>,
    #[serde(default)]
    excludes: Option<Vec<String>>,
    #[serde(default)]
    exclusive: Option<bool>,
    #[serde(default)]
    base: Option<DiscountBase>,
    #[serde(default)]
    max_per_cart: Option<u32>,
}

impl StackingFile {
    /// The stacking of a campaign of kind `kind`; every problem goes to
    /// `problems`. Only discount and Coupon campaigns stack.
    pub fn compile(self, kind: &str, problems: &mut Problems<'_>) -> Stacking {
        if kind != "discount" && kind != "coupon" {
            problems.at_key(
                "stacking",
                "`stacking` is for discount and coupon campaigns: only they take money off a cart",
            );
        }
        if self.priority.is_some_and(|p| p.abs() > MAX_PRIORITY) {
            problems.at_key(
                "priority",
                format!("priority is -{MAX_PRIORITY} to {MAX_PRIORITY}"),
            );
        }
        let name_ok = |name: &String| !name.trim().is_empty() && name.len() <= 64;
        if self.group.as_ref().is_some_and(|g| !name_ok(g)) {
            problems.at_key("group", "group is a name of 1 to 64 characters");
        }
        for (key, groups) in [
            ("combines_with", &self.combines_with),
            ("excludes", &self.excludes),
        ] {
            if let Some(bad) = groups.iter().flatten().find(|group| !name_ok(group)) {
                problems.at_key(
                    key,
                    format!("{key} lists group names of 1 to 64 characters, not `{bad}`"),
                );
            }
        }
        let excludes = self.excludes.unwrap_or_default();
        if self.exclusive == Some(true) && !excludes.is_empty() {
            problems.at_key(
                "excludes",
                "an exclusive offer already shares a cart with no group: write `exclusive` or `excludes`, not both",
            );
        }
        let allowed = self.combines_with.as_deref().unwrap_or_default();
        if let Some(both) = excludes.iter().find(|group| allowed.contains(group)) {
            problems.at_key(
                "excludes",
                format!("group `{both}` is both in combines_with and in excludes"),
            );
        }
        let combines_with = match (self.exclusive, self.combines_with) {
            (Some(true), Some(_)) => {
                problems.at_key(
                    "exclusive",
                    "an exclusive offer combines with nothing: write `exclusive` or `combines_with`, not both",
                );
                None
            }
            (Some(true), None) => Some(Vec::new()),
            (_, groups) => groups,
        };
        match self.max_per_cart {
            Some(_) if kind != "coupon" => problems.at_key(
                "max_per_cart",
                "max_per_cart limits the Vouchers of a Coupon: it is for coupon campaigns",
            ),
            Some(0) => problems.at_key("max_per_cart", "max_per_cart is at least 1"),
            _ => {}
        }
        Stacking {
            priority: self.priority.unwrap_or(0),
            group: self.group,
            combines_with,
            excludes,
            base: self.base.unwrap_or(default_base(kind)),
            max_per_cart: self.max_per_cart,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(group: Option<&str>, combines_with: Option<&[&str]>) -> Stacking {
        Stacking {
            group: group.map(str::to_string),
            combines_with: combines_with.map(|g| g.iter().map(|s| s.to_string()).collect()),
            ..Stacking::default_on(DiscountBase::Original)
        }
    }

    #[test]
    fn combining_takes_both_sides() {
        let open = offer(None, None);
        let seasonal_with_loyalty = offer(Some("seasonal"), Some(&["loyalty"]));
        let loyalty_with_all = offer(Some("loyalty"), None);
        let exclusive = offer(Some("loyalty"), Some(&[]));
        assert!(open.combines(&open));
        // The seasonal offer names only the loyalty group: an offer of no
        // group is not in it, whatever that offer allows.
        assert!(!seasonal_with_loyalty.combines(&open));
        assert!(!open.combines(&seasonal_with_loyalty));
        assert!(seasonal_with_loyalty.combines(&loyalty_with_all));
        assert!(loyalty_with_all.combines(&seasonal_with_loyalty));
        for other in [&open, &seasonal_with_loyalty, &loyalty_with_all, &exclusive] {
            assert!(!exclusive.combines(other) && !other.combines(&exclusive));
        }
        assert!(exclusive.exclusive() && !open.exclusive());
    }

    #[test]
    fn excludes_keeps_two_groups_apart_and_lets_the_rest_in() {
        let seasonal = Stacking {
            excludes: vec!["staff".into()],
            ..offer(Some("seasonal"), None)
        };
        let staff = offer(Some("staff"), None);
        let open = offer(None, None);
        let loyalty = offer(Some("loyalty"), None);
        // Unlike `combines_with: [loyalty]`, an offer of no group still shares.
        assert!(seasonal.combines(&open) && open.combines(&seasonal));
        assert!(seasonal.combines(&loyalty));
        // Either side excluding the other's group keeps them apart.
        assert!(!seasonal.combines(&staff) && !staff.combines(&seasonal));
    }
}
