//! Repository of prize delivery: the outbox the draw's transaction writes,
//! and what delivering a prize writes (ledger points, a Reward transaction
//! with what the Reward gives, or a game participation), each delivery at
//! most once.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::resources::points::ledger_entry::LedgerEntry;
use crate::resources::points::model::PointsKind;
use crate::resources::points::store::ledger::APPEND_LEDGER;
use crate::resources::rewards::gift::GiftWrite;
use crate::resources::vouchers::issue_store::issue_documents;
use crate::resources::vouchers::issue_store::issue_statements;
use crate::resources::vouchers::model::VoucherIssue;
use crate::resources::webhooks::emit::Subscriptions;
use crate::storage::Store;
use crate::storage::first;
use crate::storage::first_rows;

/// A prize waiting in the outbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingPrize {
    /// The Company.
    pub company: String,
    /// The draw that won it; also the outbox key.
    pub draw_id: String,
    /// The winner.
    pub customer_id: String,
    /// The Instant Win.
    pub rule_id: i64,
    /// The prize within it.
    pub prize_id: String,
    /// `points`, `reward` or `game`.
    pub promotion_type: String,
    /// The points campaign, Reward or game.
    pub promotion_id: i64,
    /// Points to credit (points prizes).
    #[serde(default)]
    pub points: Option<i64>,
    /// The balance they go to.
    #[serde(default)]
    pub points_kind: Option<PointsKind>,
    /// When they expire.
    #[serde(default)]
    pub points_expire_at: Option<Timestamp>,
    /// When it was won.
    pub created_at: Timestamp,
}

/// SurrealQL adding one participation in game `$game` to the Customer
/// `$participant` of `$company`, inside the caller's transaction.
pub(crate) const ADD_GAME_PARTICIPATION: &str = "
    UPSERT type::record('game_participation', [$company, $participant, $game])
        SET company = $company, customer_id = $participant,
            game_id = $game, available = (available ?? 0) + 1
        RETURN NONE;";

/// SurrealQL giving `$prize` (the outbox row `$key`) when it is a Reward or a
/// game participation, and marking it delivered; points prizes are ledger
/// entries, appended by the caller.
const GIVE: &str = "
    IF $prize.promotion_type == 'reward' {
        CREATE type::record('reward_transaction', [$company, $prize.draw_id]) CONTENT {
            company: $company, tid: $prize.draw_id, seq: string::split($prize.draw_id, '_')[1],
            customer_id: $prize.customer_id,
            reward_id: $prize.promotion_id, source: 'instant_win', rule_id: $prize.rule_id,
            state: 'available', points: 0, given: $prize.given, created_at: $now
        } RETURN NONE;
        IF $prize.gift_game {
            LET $participant = $prize.customer_id;
            LET $game = $prize.gift_game;
            __ADD_GAME_PARTICIPATION__
        };
    };
    IF $prize.promotion_type == 'game' {
        LET $participant = $prize.customer_id;
        LET $game = $prize.promotion_id;
        __ADD_GAME_PARTICIPATION__
    };
    IF $prize.webhooks {
        INSERT INTO webhook_outbox $prize.webhooks RETURN NONE;
    };
    UPDATE $key SET pending = false, delivered_at = $now RETURN NONE;";

/// SurrealQL delivering `$prize` (the outbox row `$key`) if it is still
/// pending, then marking it delivered: a second delivery changes nothing.
const DELIVER: &str = "
    BEGIN TRANSACTION;
    LET $key = type::record('prize_outbox', $id);
    LET $pending = ($key.pending) ?? false;
    IF $pending {
        __APPEND_LEDGER__
        __GIVE__
        LET $refuse = true;
        __ISSUE__
    };
    COMMIT TRANSACTION;";

/// SurrealQL delivering every prize of `$prizes` (of one Company) in one
/// transaction, refusing with `concurrent_modification` if any was
/// delivered meanwhile; the points prizes' entries are `$ledger`.
const DELIVER_BATCH: &str = "
    BEGIN TRANSACTION;
    FOR $prize IN $prizes {
        LET $key = type::record('prize_outbox', $prize.draw_id);
        IF !(($key.pending) ?? false) {
            THROW 'REFUSED|concurrent_modification|prize ' + $prize.draw_id + ' was delivered meanwhile';
        };
        __GIVE__
    };
    __APPEND_LEDGER__
    LET $refuse = true;
    __ISSUE__
    COMMIT TRANSACTION;";

/// The ledger entry crediting a points prize (none for other prizes). Points
/// prizes are credited by the draw's transaction; the outbox holds them only
/// in stores written before that.
fn prize_ledger(prize: &PendingPrize, now: Timestamp) -> Option<LedgerEntry> {
    match (prize.promotion_type.as_str(), prize.points) {
        ("points", Some(points)) if points > 0 => Some(LedgerEntry::instant_win_prize(
            &prize.customer_id,
            &prize.draw_id,
            prize.promotion_id,
            prize.points_kind.unwrap_or_default(),
            points,
            prize.points_expire_at,
            now,
        )),
        _ => None,
    }
}

/// `template` ([`DELIVER`] or [`DELIVER_BATCH`]) with its parts.
fn delivery_query(template: &str) -> String {
    template
        .replace("__APPEND_LEDGER__", APPEND_LEDGER)
        .replace("__GIVE__", GIVE)
        .replace("__ADD_GAME_PARTICIPATION__", ADD_GAME_PARTICIPATION)
        .replace("__ISSUE__", &issue_statements())
}

/// `prize` as the delivery reads it, with what a Reward gives (`given`,
/// `gift_game`) and the outbox rows of its `prize.delivered` webhook event
/// for the endpoints of `webhooks` subscribed (written with the delivery,
/// which happens once).
fn prize_document(
    webhooks: &Subscriptions,
    prize: &PendingPrize,
    gift: Option<&GiftWrite>,
    now: Timestamp,
) -> Value {
    let mut document = json!(prize);
    if let Some(gift) = gift {
        document["given"] = json!(gift.given);
        document["gift_game"] = json!(gift.game_id);
    }
    let mut delivered = document.clone();
    delivered["delivered_at"] = json!(now);
    if let Some(fields) = delivered.as_object_mut() {
        fields.remove("company");
        fields.retain(|_, value| !value.is_null());
    }
    let reported = webhooks.rows(
        &prize.company,
        "prize.delivered",
        Some(&prize.customer_id),
        delivered,
        now,
    );
    if !reported.is_empty() {
        document["webhooks"] = Value::Array(reported);
    }
    document
}

impl Store {
    /// Up to `limit` prizes waiting for delivery, oldest first, of every
    /// Company. A row that cannot be read is taken out of the outbox (and
    /// logged with its content), so it never blocks the prizes behind it.
    pub async fn pending_prizes(&self, limit: usize) -> ApiResult<Vec<PendingPrize>> {
        let rows: Vec<Value> = first(
            self.db
                .query("SELECT * OMIT id FROM prize_outbox WHERE pending = true ORDER BY created_at LIMIT $limit")
                .bind(("limit", limit as i64)),
        )
        .await?;
        let mut prizes = Vec::with_capacity(rows.len());
        for row in rows {
            match serde_json::from_value::<PendingPrize>(row.clone()) {
                Ok(prize) => prizes.push(prize),
                Err(error) => {
                    tracing::error!(%error, %row, "unreadable prize in the outbox; set aside");
                    if let Some(draw_id) = row["draw_id"].as_str() {
                        self.abandon_prize(draw_id, "unreadable").await?;
                    }
                }
            }
        }
        Ok(prizes)
    }

    /// How many prizes wait for delivery, and when the oldest of them was
    /// won (`None` when none waits).
    pub async fn prize_outbox_backlog(&self) -> ApiResult<(i64, Option<Timestamp>)> {
        let oldest: Vec<Value> = first(self.db.query(
            "SELECT created_at FROM prize_outbox WHERE pending = true ORDER BY created_at LIMIT 1",
        ))
        .await?;
        let Some(oldest) = oldest.first() else {
            return Ok((0, None));
        };
        let counted: Vec<Value> =
            first(self.db.query(
                "SELECT count() AS pending FROM prize_outbox WHERE pending = true GROUP ALL",
            ))
            .await?;
        let pending = counted
            .first()
            .and_then(|row| row["pending"].as_i64())
            .unwrap_or(0);
        let oldest = oldest["created_at"]
            .as_str()
            .and_then(|at| at.parse::<Timestamp>().ok());
        Ok((pending, oldest))
    }

    /// Delivers `prize` (a Reward with what it gives, `gift`) once, at
    /// `now`: a prize already delivered is left alone.
    pub async fn deliver_prize(
        &self,
        prize: &PendingPrize,
        gift: Option<&GiftWrite>,
        now: Timestamp,
    ) -> ApiResult<()> {
        let mut ledger: Vec<LedgerEntry> = prize_ledger(prize, now).into_iter().collect();
        ledger.extend(gift.iter().flat_map(|g| g.ledger.iter().cloned()));
        let written = self.ledger_write(&prize.company, &ledger);
        let vouchers = issue_documents(
            &self.memory.webhooks,
            &prize.company,
            &gift
                .and_then(|g| g.voucher.clone())
                .into_iter()
                .collect::<Vec<_>>(),
        )?;
        let query = delivery_query(DELIVER);
        let document = prize_document(&self.memory.webhooks, prize, gift, now);
        let delivered = self
            .transact(|db| {
                db.query_keeping_customers(query.as_str())
                    .bind(("company", prize.company.clone()))
                    .bind(("id", prize.draw_id.clone()))
                    .bind(("prize", document.clone()))
                    .bind_ledger(&written)
                    .bind(("vouchers", vouchers.clone()))
                    .bind(("now", now.to_string()))
            })
            .await;
        self.forget_delivered(&prize.company, [prize], &ledger, &vouchers);
        delivered.map(drop)
    }

    /// Delivers `prizes`, all of `company`, at `now` in one transaction; refuses with
    /// `concurrent_modification` (and writes nothing) when any of them was
    /// delivered meanwhile, so the caller can deliver them one by one.
    pub async fn deliver_prizes(
        &self,
        company: &str,
        prizes: &[(PendingPrize, Option<GiftWrite>)],
        now: Timestamp,
    ) -> ApiResult<()> {
        let mut ledger: Vec<LedgerEntry> = prizes
            .iter()
            .filter_map(|(prize, _)| prize_ledger(prize, now))
            .collect();
        ledger.extend(
            prizes
                .iter()
                .flat_map(|(_, gift)| gift.iter().flat_map(|g| g.ledger.iter().cloned())),
        );
        let written = self.ledger_write(company, &ledger);
        let issues: Vec<VoucherIssue> = prizes
            .iter()
            .filter_map(|(_, gift)| gift.as_ref().and_then(|g| g.voucher.clone()))
            .collect();
        let vouchers = issue_documents(&self.memory.webhooks, company, &issues)?;
        let query = delivery_query(DELIVER_BATCH);
        let documents: Vec<Value> = prizes
            .iter()
            .map(|(prize, gift)| prize_document(&self.memory.webhooks, prize, gift.as_ref(), now))
            .collect();
        let delivered = self
            .transact(|db| {
                db.query_keeping_customers(query.as_str())
                    .bind(("company", company.to_string()))
                    .bind(("prizes", documents.clone()))
                    .bind_ledger(&written)
                    .bind(("vouchers", vouchers.clone()))
                    .bind(("now", now.to_string()))
            })
            .await;
        let winners = prizes.iter().map(|(prize, _)| prize);
        self.forget_delivered(company, winners, &ledger, &vouchers);
        delivered.map(drop)
    }

    /// Forgets the Customers kept in memory that a delivery of `prizes`
    /// wrote (its winners, and whoever its `ledger` credits or its
    /// `vouchers` are issued to), whatever its outcome: a lost answer may
    /// have committed.
    fn forget_delivered<'p>(
        &self,
        company: &str,
        prizes: impl IntoIterator<Item = &'p PendingPrize>,
        ledger: &[LedgerEntry],
        vouchers: &[Value],
    ) {
        let winners = prizes.into_iter().map(|prize| prize.customer_id.as_str());
        let credited = ledger.iter().map(|entry| entry.customer_id.as_str());
        let issued = vouchers
            .iter()
            .filter_map(|voucher| voucher["customer_id"].as_str());
        for customer in winners.chain(credited).chain(issued) {
            self.memory.customers.forget(company, customer);
        }
    }

    /// Takes the prize of `draw_id` out of the outbox without delivering it,
    /// recording why.
    pub async fn abandon_prize(&self, draw_id: &str, reason: &str) -> ApiResult<()> {
        crate::storage::execute(
            self.db
                .query("UPDATE type::record('prize_outbox', $id) SET pending = false, abandoned = $reason, delivered_at = NONE RETURN NONE")
                .bind(("id", draw_id.to_string()))
                .bind(("reason", reason.to_string())),
        )
        .await
    }

    /// Participations a Customer has available in each game (game id → count).
    pub async fn game_participations(
        &self,
        company: &str,
        customer_id: &str,
    ) -> ApiResult<Vec<(i64, i64)>> {
        first_rows(self.db
                .query("SELECT game_id, available FROM game_participation WHERE company = $company AND customer_id = $customer ORDER BY game_id")
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string())), &["game_id", "available"]).await
    }
}
