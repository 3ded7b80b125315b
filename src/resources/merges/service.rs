//! Merging one Customer into another (or into a new one), and undoing it.

use crate::common::retry::{CHANGED, Tries};
use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::answer::answer_now;
use crate::resources::associations::model::Association;
use crate::resources::customers::model::Customer;
use crate::resources::customers::model::SearchBy;
use crate::resources::customers::model::new_customer_id;
use crate::resources::customers::service::CustomerRef;
use crate::resources::customers::service::ensure_editable;
use crate::resources::merges::model::MergeRecord;
use crate::resources::merges::model::MovedAssociation;
use crate::resources::merges::model::MovedHoldings;
use crate::resources::merges::model::MovedIdentifier;
use crate::resources::merges::model::NotRestored;
use crate::resources::merges::store::ClaimMove;
use crate::resources::merges::store::CustomerChanges;
use crate::resources::merges::store::CustomerWrite;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::points::model::PointsKind;
use crate::services::Services;

/// How often a merge is re-planned when something it read changed meanwhile.
const PLAN_ATTEMPTS: u32 = 5;

/// Where a merge puts the merged Customer's data.
#[derive(Debug, Clone, Copy)]
pub enum MergeTarget<'a> {
    /// An existing Customer (POST /customers/transfer).
    Existing(&'a str),
    /// A new Customer created with the merged Customer's data (POST /customers/transfer-new).
    New,
}

/// The result of a merge.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeOutcome {
    /// The merged Customer, now inactive.
    pub merged: Customer,
    /// The Customer that received the data.
    pub target: Customer,
    /// What was moved, kept for unmerge.
    pub record: MergeRecord,
}

/// The result of an unmerge.
#[derive(Debug, Clone, PartialEq)]
pub struct UnmergeOutcome {
    /// The restored Customer.
    pub customer: Customer,
    /// The former target, without what was given back.
    pub target: Customer,
    /// What could not be given back, and why.
    pub not_restored: Vec<NotRestored>,
}

/// Ledger entries moving `points` of `kind` from one Customer's balance to another's.
fn points_transfer(
    from: &str,
    to: &str,
    kind: PointsKind,
    points: i64,
    reason: &str,
    now: Timestamp,
) -> Vec<LedgerEntry> {
    [(from, to, -points), (to, from, points)]
        .into_iter()
        .map(|(customer, other, points)| LedgerEntry {
            counterpart_id: Some(other.to_string()),
            ..LedgerEntry::new(customer, kind, points, reason, now)
        })
        .collect()
}

impl Services {
    /// Merges the Customer `merged_id` into `target`: its cards and
    /// associations move (and, into a new Customer, its code, e-mail and phone);
    /// it becomes inactive with `merged_into` set. One transaction.
    pub async fn merge_customers(
        &self,
        company: &str,
        merged_id: &str,
        target: MergeTarget<'_>,
    ) -> ApiResult<MergeOutcome> {
        let mut tries = Tries::at_most(PLAN_ATTEMPTS);
        loop {
            let merged_before = self
                .find_customer(company, CustomerRef::id(merged_id))
                .await?;
            ensure_editable(&merged_before.customer)?;
            let now = self.now();
            let target_before = match target {
                MergeTarget::Existing(id) => {
                    if id == merged_id {
                        return Err(ApiError::new(
                            ErrorCode::SameCustomer,
                            "a Customer cannot be merged into itself",
                        ));
                    }
                    let stored = self.find_customer(company, CustomerRef::id(id)).await?;
                    ensure_editable(&stored.customer)?;
                    Some(stored)
                }
                MergeTarget::New => None,
            };
            let mut merged = merged_before.customer.clone();
            let mut target_after = match &target_before {
                Some(stored) => stored.customer.clone(),
                None => Customer {
                    id: new_customer_id(),
                    code: None,
                    email: None,
                    phone: None,
                    cards: Vec::new(),
                    created_at: now,
                    ..merged.clone()
                },
            };
            let mut claim_moves = Vec::new();
            let mut identifiers = Vec::new();
            if target_before.is_none() {
                let fields = [
                    (SearchBy::Code, merged.code.take(), &mut target_after.code),
                    (
                        SearchBy::Email,
                        merged.email.take(),
                        &mut target_after.email,
                    ),
                    (
                        SearchBy::Phone,
                        merged.phone.take(),
                        &mut target_after.phone,
                    ),
                ];
                for (kind, value, slot) in fields {
                    if let Some(value) = value {
                        claim_moves.push(ClaimMove {
                            kind: kind.as_str().to_string(),
                            value: value.clone(),
                            from: merged.id.clone(),
                            to: target_after.id.clone(),
                        });
                        identifiers.push(MovedIdentifier {
                            kind: kind.as_str().to_string(),
                            value: value.clone(),
                        });
                        *slot = Some(value);
                    }
                }
            }
            let cards = std::mem::take(&mut merged.cards);
            for card in &cards {
                claim_moves.push(ClaimMove {
                    kind: SearchBy::Card.as_str().to_string(),
                    value: card.number.clone(),
                    from: merged.id.clone(),
                    to: target_after.id.clone(),
                });
            }
            target_after.cards.extend(cards.iter().cloned());
            target_after.updated_at = now;

            let merged_links = self.store.associations_of(company, &merged.id).await?;
            let target_links = match &target_before {
                Some(_) => {
                    self.store
                        .associations_of(company, &target_after.id)
                        .await?
                }
                None => Vec::new(),
            };
            let mut changes = CustomerChanges::default();
            let mut associations = Vec::new();
            for link in &merged_links {
                let other = link.other(&merged.id).to_string();
                let movable = other != target_after.id
                    && !target_links
                        .iter()
                        .any(|t| t.other(&target_after.id) == other);
                changes
                    .association_deletes
                    .push((link.customer_id.clone(), link.associate_id.clone()));
                if movable {
                    changes.association_creates.push(Association {
                        customer_id: target_after.id.clone(),
                        associate_id: other.clone(),
                        kind: link.kind.clone(),
                        created_at: link.created_at,
                        updated_at: now,
                    });
                }
                associations.push(MovedAssociation {
                    associate_id: other,
                    kind: link.kind.clone(),
                    created_at: link.created_at,
                    moved: movable,
                });
            }
            changes
                .association_guards
                .push((merged.id.clone(), merged_links.len()));
            if target_before.is_some() {
                changes
                    .association_guards
                    .push((target_after.id.clone(), target_links.len()));
            }

            let carts = self.store.cart_ids_of(company, &merged.id).await?;
            let points = self.store.points_balance(company, &merged.id).await?;
            let wallet = self
                .store
                .balance(company, &merged.id, PointsKind::Wallet)
                .await?;
            changes.cart_moves = carts
                .iter()
                .map(|id| (id.clone(), merged.id.clone(), target_after.id.clone()))
                .collect();
            for (kind, amount) in [(PointsKind::Points, points), (PointsKind::Wallet, wallet)] {
                if amount != 0 {
                    changes.ledger.extend(points_transfer(
                        &merged.id,
                        &target_after.id,
                        kind,
                        amount,
                        "merge",
                        now,
                    ));
                }
            }
            changes.restat = vec![merged.id.clone(), target_after.id.clone()];
            let holdings = self
                .plan_holdings_merge(company, &merged.id, &target_after.id)
                .await?;
            let record = holdings.record_into(MergeRecord {
                merged_customer_id: merged.id.clone(),
                target_customer_id: target_after.id.clone(),
                target_created: target_before.is_none(),
                merged_at: now,
                merged_was_active: merged.active,
                cards,
                identifiers,
                associations,
                carts,
                points,
                wallet,
                holdings: MovedHoldings::default(),
            })?;
            changes.holdings = holdings.moves;
            merged.active = false;
            merged.merged_into = Some(target_after.id.clone());
            merged.updated_at = now;

            changes.customers = vec![
                CustomerWrite {
                    before: target_before.as_ref(),
                    after: &target_after,
                },
                CustomerWrite {
                    before: Some(&merged_before),
                    after: &merged,
                },
            ];
            changes.claim_moves = claim_moves;
            changes.merge_create = Some(record.clone());
            let outcome = MergeOutcome {
                merged: merged.clone(),
                target: target_after.clone(),
                record,
            };
            changes.webhooks = self.merge_webhooks(company, &outcome, target_before.is_none());
            answer_now(&outcome).await;
            let applied = self.store.apply_customer_changes(company, &changes).await;
            if tries.again(&applied, CHANGED) {
                continue;
            }
            applied?;
            tracing::info!(company, merged = %merged.id, target = %target_after.id, "customers merged");
            return Ok(outcome);
        }
    }

    /// Undoes the merge of `merged_id`: gives back what the target still
    /// holds, restores the Customer's state, and reports what it cannot give back.
    pub async fn unmerge_customer(
        &self,
        company: &str,
        merged_id: &str,
    ) -> ApiResult<UnmergeOutcome> {
        let mut tries = Tries::at_most(PLAN_ATTEMPTS);
        loop {
            let merged_before = self
                .find_customer(company, CustomerRef::id(merged_id))
                .await?;
            if merged_before.customer.anonymized_at.is_some() {
                return Err(ApiError::new(
                    ErrorCode::CustomerInactive,
                    format!("Customer {merged_id} is anonymized"),
                ));
            }
            let record = self
                .store
                .merge_record(company, merged_id)
                .await?
                .ok_or_else(|| {
                    ApiError::new(
                        ErrorCode::MergeNotFound,
                        format!("Customer {merged_id} is not merged into another Customer"),
                    )
                })?;
            let target_before = self
                .find_customer(company, CustomerRef::id(&record.target_customer_id))
                .await?;
            let now = self.now();
            let mut customer = merged_before.customer.clone();
            let mut target = target_before.customer.clone();
            let mut claim_moves = Vec::new();
            let mut not_restored = Vec::new();

            for card in &record.cards {
                match target.cards.iter().position(|c| c.number == card.number) {
                    Some(index) => {
                        customer.cards.push(target.cards.remove(index));
                        claim_moves.push(ClaimMove {
                            kind: SearchBy::Card.as_str().to_string(),
                            value: card.number.clone(),
                            from: target.id.clone(),
                            to: customer.id.clone(),
                        });
                    }
                    None => not_restored.push(NotRestored {
                        kind: "card".into(),
                        value: card.number.clone(),
                        reason: "the target no longer holds this card".into(),
                    }),
                }
            }
            for identifier in &record.identifiers {
                let (target_slot, customer_slot) = match identifier.kind.as_str() {
                    "code" => (&mut target.code, &mut customer.code),
                    "email" => (&mut target.email, &mut customer.email),
                    _ => (&mut target.phone, &mut customer.phone),
                };
                if target_slot.as_deref() == Some(identifier.value.as_str())
                    && customer_slot.is_none()
                {
                    *customer_slot = target_slot.take();
                    claim_moves.push(ClaimMove {
                        kind: identifier.kind.clone(),
                        value: identifier.value.clone(),
                        from: target.id.clone(),
                        to: customer.id.clone(),
                    });
                } else {
                    not_restored.push(NotRestored {
                        kind: identifier.kind.clone(),
                        value: identifier.value.clone(),
                        reason: "the target's identifier has changed since the merge".into(),
                    });
                }
            }

            let customer_links = self.store.associations_of(company, &customer.id).await?;
            let target_links = self.store.associations_of(company, &target.id).await?;
            let mut changes = CustomerChanges::default();
            for moved in &record.associations {
                let still_on_target = target_links
                    .iter()
                    .find(|l| l.other(&target.id) == moved.associate_id && l.kind == moved.kind);
                let associate_exists = self
                    .store
                    .customer(company, &moved.associate_id)
                    .await?
                    .is_some_and(|a| a.customer.anonymized_at.is_none());
                let free = !customer_links
                    .iter()
                    .any(|l| l.other(&customer.id) == moved.associate_id);
                let restorable =
                    associate_exists && free && (!moved.moved || still_on_target.is_some());
                if !restorable {
                    not_restored.push(NotRestored {
                        kind: "association".into(),
                        value: moved.associate_id.clone(),
                        reason: "the link was changed or removed since the merge".into(),
                    });
                    continue;
                }
                if let Some(link) = still_on_target.filter(|_| moved.moved) {
                    changes
                        .association_deletes
                        .push((link.customer_id.clone(), link.associate_id.clone()));
                }
                changes.association_creates.push(Association {
                    customer_id: customer.id.clone(),
                    associate_id: moved.associate_id.clone(),
                    kind: moved.kind.clone(),
                    created_at: moved.created_at,
                    updated_at: now,
                });
            }
            changes
                .association_guards
                .push((customer.id.clone(), customer_links.len()));
            changes
                .association_guards
                .push((target.id.clone(), target_links.len()));

            let target_carts = self.store.cart_ids_of(company, &target.id).await?;
            for cart in &record.carts {
                if target_carts.contains(cart) {
                    changes
                        .cart_moves
                        .push((cart.clone(), target.id.clone(), customer.id.clone()));
                } else {
                    not_restored.push(NotRestored {
                        kind: "cart".into(),
                        value: cart.clone(),
                        reason: "the cart no longer belongs to the target".into(),
                    });
                }
            }
            for (kind, moved) in [
                (PointsKind::Points, record.points),
                (PointsKind::Wallet, record.wallet),
            ] {
                if moved <= 0 {
                    continue;
                }
                let available = self.store.balance(company, &target.id, kind).await?.max(0);
                let back = moved.min(available);
                if back > 0 {
                    changes.ledger.extend(points_transfer(
                        &target.id,
                        &customer.id,
                        kind,
                        back,
                        "unmerge",
                        now,
                    ));
                }
                if back < moved {
                    not_restored.push(NotRestored {
                        kind: kind.name().into(),
                        value: (moved - back).to_string(),
                        reason: "the target spent them after the merge".into(),
                    });
                }
            }
            changes.restat = vec![customer.id.clone(), target.id.clone()];
            let mut holdings = self
                .plan_holdings_unmerge(company, &record, &customer.id, &target.id)
                .await?;
            not_restored.append(&mut holdings.not_restored);
            changes.holdings = holdings.moves;
            customer.active = record.merged_was_active;
            customer.merged_into = None;
            customer.updated_at = now;
            target.updated_at = now;
            changes.customers = vec![
                CustomerWrite {
                    before: Some(&merged_before),
                    after: &customer,
                },
                CustomerWrite {
                    before: Some(&target_before),
                    after: &target,
                },
            ];
            changes.claim_moves = claim_moves;
            changes.merge_delete = Some(customer.id.clone());
            let outcome = UnmergeOutcome {
                customer: customer.clone(),
                target: target.clone(),
                not_restored,
            };
            changes.webhooks = self.unmerge_webhooks(company, &outcome);
            answer_now(&outcome).await;
            let applied = self.store.apply_customer_changes(company, &changes).await;
            if tries.again(&applied, CHANGED) {
                continue;
            }
            applied?;
            tracing::info!(company, customer = %customer.id, target = %target.id, "customer unmerged");
            return Ok(outcome);
        }
    }
}
