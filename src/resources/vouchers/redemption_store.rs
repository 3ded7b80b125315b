//! Voucher redemptions in the store, keyed by [company, redemption id]: a
//! use taken from its Voucher in the same transaction that records it, and
//! given back by a rollback in the same way.

use serde_json::{Value, json};

use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::store::WRITE_ANSWER;
use crate::resources::limits::LimitTake;
use crate::resources::limits::store::give_back_limits_sql;
use crate::resources::limits::store::limit_take_documents;
use crate::resources::limits::store::take_limits_sql;
use crate::resources::vouchers::model::Reservation;
use crate::resources::vouchers::model::Voucher;
use crate::resources::vouchers::model::VoucherRedemption;
use crate::resources::vouchers::store::voucher_document;
use crate::resources::webhooks::emit::Subscriptions;
use crate::resources::webhooks::outbox::WRITE_WEBHOOKS;
use crate::storage::REFUSED;
use crate::storage::Store;
use crate::storage::first;

/// One use of a Voucher to take.
#[derive(Debug, Clone, PartialEq)]
pub struct VoucherUse {
    /// The key the Voucher is stored under.
    pub key: String,
    /// The redemption recording it.
    pub redemption: VoucherRedemption,
    /// The Voucher to store first when none is stored under `key` yet (a
    /// Customer's Voucher of a static code, used for the first time).
    pub create: Option<Voucher>,
    /// What the use takes from its Coupon's limits (kept with the
    /// redemption, so a rollback gives it back).
    pub limit_takes: Vec<LimitTake>,
    /// The Voucher as read when the request's answer was made from it: the
    /// use is refused with `concurrent_modification` when its uses left or
    /// holds changed since. `None` takes the use whatever they are.
    pub seen: Option<Voucher>,
}

/// SurrealQL refusing with `concurrent_modification` when the Voucher
/// `$held` (its `vid`, `uses_left` and `reservations` read in the transaction) is
/// no longer `$seen` ([`seen_document`]), the Voucher an answer was made
/// from; nothing is checked when `$seen` is none.
macro_rules! voucher_unchanged_sql {
    () => {
        "
        IF $seen AND ($held.vid != $seen.id OR ($held.uses_left ?? 0) != $seen.uses_left
                OR ($held.reservations ?? []).reservation_id != $seen.holds) {
            THROW 'REFUSED|concurrent_modification|' + $seen.code + ' changed meanwhile';
        };"
    };
}
pub(crate) use voucher_unchanged_sql;

/// What [`voucher_unchanged_sql`] compares of `voucher`: its id (another
/// request may have stored a static code's Voucher first), its uses left
/// and the ids of its holds.
pub(crate) fn seen_document(voucher: &Voucher) -> Value {
    json!({
        "code": voucher.code,
        "id": voucher.id,
        "uses_left": voucher.uses_left,
        "holds": voucher
            .reservations
            .iter()
            .map(|hold| hold.reservation_id.as_str())
            .collect::<Vec<_>>(),
    })
}

/// SurrealQL taking one use from the Voucher of each of `$voucher_uses`
/// (made by [`voucher_use_documents`]) at `$now` and recording its
/// redemption: `voucher_redeemed` when it has no use left, `voucher_frozen`
/// when every use left is held by another checkout than the use's
/// `reservation_id`. Shared by POST /vouchers/redeem and the carts' group
/// commit ([`crate::storage::group_commit`]), so a use is taken one way.
pub(crate) const TAKE_VOUCHER_USES: &str = concat!(
    "
    FOR $use IN $voucher_uses {
        LET $record = type::record('voucher', [$company, $use.key]);
        IF $use.create AND !record::exists($record) {
            CREATE $record CONTENT $use.create RETURN NONE;
        };
        LET $held = ($record.{vid, uses_left, reservations});
        LET $left = $held.uses_left ?? 0;
        LET $holds = ($held.reservations ?? [])[WHERE until > $now];
        LET $others = $holds[WHERE reservation_id != $use.redemption.reservation_id];
        IF $left <= 0 {
            THROW 'REFUSED|voucher_redeemed|' + $use.redemption.voucher_code + ' has no uses left';
        };
        IF $left - array::len($others) <= 0 {
            THROW 'REFUSED|voucher_frozen|' + $use.redemption.voucher_code + ' is held by another checkout';
        };
        LET $seen = $use.seen;",
    voucher_unchanged_sql!(),
    "
        UPDATE $record SET uses_left = $left - 1, reservations = $others,
            state = IF $left <= 1 { 'redeemed' } ELSE { state } RETURN NONE;
        CREATE type::record('voucher_redemption', [$company, $use.redemption.redemption_id])
            CONTENT $use.redemption RETURN NONE;
        IF $use.webhooks {
            INSERT INTO webhook_outbox $use.webhooks RETURN NONE;
        };
        LET $limit_takes = $use.redemption.limit_takes ?? [];",
    take_limits_sql!(),
    "
    };"
);

/// SurrealQL giving back every use the cart `$original_code` took and did
/// not give back yet, with what it took from its Coupon's limits, at
/// `$now`: part of its cancellation's transaction.
pub(crate) const GIVE_BACK_CART_VOUCHERS: &str = concat!(
    "
    FOR $taken IN (SELECT redemption_id, key, limit_takes FROM voucher_redemption
            WHERE company = $company AND cart_code = $original_code AND rolled_back_at = NONE) {
        UPDATE type::record('voucher_redemption', [$company, $taken.redemption_id])
            SET rolled_back_at = $now RETURN NONE;
        UPDATE type::record('voucher', [$company, $taken.key])
            SET uses_left = uses_left + 1, state = 'active' RETURN NONE;
        LET $limit_takes = $taken.limit_takes ?? [];",
    give_back_limits_sql!(),
    "
    };"
);

/// `uses` as [`TAKE_VOUCHER_USES`] reads them, each with the outbox rows of
/// its `voucher.redeemed` webhook event for the endpoints of `webhooks`
/// subscribed.
pub(crate) fn voucher_use_documents(
    webhooks: &Subscriptions,
    company: &str,
    uses: &[VoucherUse],
) -> Vec<Value> {
    uses.iter()
        .map(|taken| {
            let reported =
                redemption_webhooks(webhooks, company, "voucher.redeemed", &taken.redemption);
            let mut redemption = json!(taken.redemption);
            redemption["company"] = json!(company);
            redemption["key"] = json!(taken.key);
            if !taken.limit_takes.is_empty() {
                redemption["limit_takes"] = json!(limit_take_documents(&taken.limit_takes));
            }
            let mut document = json!({
                "key": taken.key,
                "redemption": redemption,
                "create": taken
                    .create
                    .as_ref()
                    .map(|voucher| voucher_document(company, &taken.key, voucher, None)),
                "seen": taken.seen.as_ref().map(seen_document),
            });
            if !reported.is_empty() {
                document["webhooks"] = Value::Array(reported);
            }
            document
        })
        .collect()
}

/// The outbox rows of the webhook event `reported` of `redemption`.
fn redemption_webhooks(
    webhooks: &Subscriptions,
    company: &str,
    reported: &str,
    redemption: &VoucherRedemption,
) -> Vec<Value> {
    poem_openapi::types::ToJSON::to_json(redemption).map_or_else(Vec::new, |data| {
        webhooks.rows(
            company,
            reported,
            Some(&redemption.customer_id),
            data,
            redemption.rolled_back_at.unwrap_or(redemption.redeemed_at),
        )
    })
}

fn redemption_from(mut document: Value) -> ApiResult<VoucherRedemption> {
    if let Some(object) = document.as_object_mut() {
        object.remove("id");
        object.remove("company");
        object.remove("key");
        object.remove("limit_takes");
    }
    serde_json::from_value(document)
        .map_err(|e| ApiError::internal(format!("stored redemption unreadable: {e}")))
}

impl Store {
    /// Takes one use from the Voucher stored under each key and records its
    /// redemption, all or none: a Voucher with no use left (another till took
    /// it meanwhile) refuses the whole with `voucher_redeemed`.
    pub async fn redeem_vouchers(
        &self,
        company: &str,
        uses: &[VoucherUse],
        now: Timestamp,
    ) -> ApiResult<()> {
        let query = format!(
            "BEGIN TRANSACTION;
             LET $voucher_uses = $uses;
             {TAKE_VOUCHER_USES}
             {WRITE_ANSWER}
             COMMIT TRANSACTION;"
        );
        let uses = voucher_use_documents(&self.memory.webhooks, company, uses);
        let now = now.to_string();
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("uses", uses.clone()))
                .bind(("now", now.clone()))
        })
        .await?;
        Ok(())
    }

    /// Holds one use of the Voucher stored under `key` for `customer_id`
    /// until `until`: `voucher_frozen` when every use left is held already,
    /// `voucher_redeemed` when none is left.
    pub async fn freeze_voucher(
        &self,
        company: &str,
        voucher: (&str, &Voucher),
        customer_id: &str,
        hold: &Reservation,
        now: Timestamp,
    ) -> ApiResult<()> {
        let statements = format!(
            "LET $holds = ($held.reservations ?? [])[WHERE until > $now];
             IF ($held.uses_left ?? 0) <= 0 {{
                 THROW '{REFUSED}{redeemed}|the Voucher has no uses left';
             }};
             IF $held.uses_left - array::len($holds) <= 0 {{
                 THROW '{REFUSED}{frozen}|every use left is held by a checkout';
             }};
             UPDATE $record SET reservations = array::append($holds, $change) RETURN NONE;",
            redeemed = ErrorCode::VoucherRedeemed.code(),
            frozen = ErrorCode::VoucherFrozen.code(),
        );
        let change = Some(json!(hold));
        self.change_holds(company, voucher, customer_id, (&statements, change), now)
            .await
    }

    /// Releases the hold `reservation_id` on the Voucher stored under `key`
    /// (every hold, with `None`), and the ones that ended.
    pub async fn unfreeze_voucher(
        &self,
        company: &str,
        voucher: (&str, &Voucher),
        customer_id: &str,
        reservation_id: Option<&str>,
        now: Timestamp,
    ) -> ApiResult<()> {
        let statements = "UPDATE $record SET reservations = IF $change == NONE { [] } ELSE {
                 ($held.reservations ?? [])[WHERE until > $now AND reservation_id != $change]
             } RETURN NONE;";
        let change = reservation_id.map(|id| Value::String(id.to_string()));
        self.change_holds(company, voucher, customer_id, (statements, change), now)
            .await
    }

    /// Runs `statements` on the holds of the Voucher stored under `key`,
    /// in one transaction, once it is checked to be still `customer_id`'s
    /// and as `seen` read it (`voucher_not_found`, `concurrent_modification`
    /// otherwise). They read `$record`, `$held` (its holder, uses left and
    /// holds), `$now` and `$change`.
    async fn change_holds(
        &self,
        company: &str,
        (key, seen): (&str, &Voucher),
        customer_id: &str,
        (statements, change): (&str, Option<Value>),
        now: Timestamp,
    ) -> ApiResult<()> {
        let query = format!(
            "BEGIN TRANSACTION;
             LET $record = type::record('voucher', [$company, $key]);
             LET $held = ($record.{{vid, customer_id, uses_left, reservations}});
             IF $held.customer_id != $customer {{
                 THROW '{REFUSED}{not_found}|the Voucher is held by another Customer';
             }};
             {unchanged}
             {statements}
             {WRITE_ANSWER}
             COMMIT TRANSACTION;",
            unchanged = voucher_unchanged_sql!(),
            not_found = ErrorCode::VoucherNotFound.code(),
        );
        let now = now.to_string();
        let seen = seen_document(seen);
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("key", key.to_string()))
                .bind(("customer", customer_id.to_string()))
                .bind(("change", change.clone()))
                .bind(("seen", seen.clone()))
                .bind(("now", now.clone()))
        })
        .await?;
        Ok(())
    }

    /// Gives back the use each redemption of `rolled_back` took, at `at`
    /// (each as it is once rolled back), all or none, with their
    /// `voucher.rolled_back` webhook events: `voucher_not_redeemed` when
    /// one was rolled back already.
    pub async fn roll_back_redemptions(
        &self,
        company: &str,
        rolled_back: &[VoucherRedemption],
        at: Timestamp,
    ) -> ApiResult<()> {
        let ids: Vec<String> = rolled_back
            .iter()
            .map(|redemption| redemption.redemption_id.clone())
            .collect();
        let webhooks: Vec<Value> = rolled_back
            .iter()
            .flat_map(|redemption| {
                redemption_webhooks(
                    &self.memory.webhooks,
                    company,
                    "voucher.rolled_back",
                    redemption,
                )
            })
            .collect();
        let query = format!(
            "BEGIN TRANSACTION;
             FOR $id IN $ids {{
                 LET $record = type::record('voucher_redemption', [$company, $id]);
                 LET $redemption = ($record.*);
                 IF $redemption == NONE {{
                     THROW '{REFUSED}{unknown}|no redemption ' + $id;
                 }};
                 IF $redemption.rolled_back_at != NONE {{
                     THROW '{REFUSED}{again}|redemption ' + $id + ' was rolled back already';
                 }};
                 UPDATE $record SET rolled_back_at = $at RETURN NONE;
                 UPDATE type::record('voucher', [$company, $redemption.key])
                     SET uses_left = uses_left + 1, state = 'active' RETURN NONE;
                 LET $limit_takes = $redemption.limit_takes ?? [];
                 {give_back}
             }};
             {WRITE_WEBHOOKS}
             {WRITE_ANSWER}
             COMMIT TRANSACTION;",
            unknown = ErrorCode::RedemptionNotFound.code(),
            again = ErrorCode::VoucherNotRedeemed.code(),
            give_back = give_back_limits_sql!(),
        );
        let at_text = at.to_string();
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("ids", ids.clone()))
                .bind(("at", at_text.clone()))
                .bind(("webhook_deliveries", webhooks.clone()))
        })
        .await?;
        Ok(())
    }

    /// The redemption `id` of `company`.
    pub async fn redemption(
        &self,
        company: &str,
        id: &str,
    ) -> ApiResult<Option<VoucherRedemption>> {
        let row: Option<Value> = first(
            self.db
                .query("RETURN type::record('voucher_redemption', [$company, $id]).*")
                .bind(("company", company.to_string()))
                .bind(("id", id.to_string())),
        )
        .await?;
        row.map(redemption_from).transpose()
    }

    /// The most recent redemption not rolled back of the Voucher stored
    /// under `key`.
    pub async fn last_redemption(
        &self,
        company: &str,
        key: &str,
    ) -> ApiResult<Option<VoucherRedemption>> {
        let row: Option<Value> = first(
            self.db
                .query(
                    "SELECT * FROM voucher_redemption WHERE company = $company AND key = $key
                         AND rolled_back_at = NONE ORDER BY redemption_id DESC LIMIT 1",
                )
                .bind(("company", company.to_string()))
                .bind(("key", key.to_string())),
        )
        .await
        .map(|rows: Vec<Value>| rows.into_iter().next())?;
        row.map(redemption_from).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusals_a_use_throws_are_the_registry_codes() {
        for code in [ErrorCode::VoucherRedeemed, ErrorCode::VoucherFrozen] {
            assert!(
                TAKE_VOUCHER_USES.contains(&format!("{REFUSED}{}|", code.code())),
                "{}",
                code.code()
            );
        }
    }
}
