//! The draws' part of the group commit
//! ([`crate::storage::event_transaction`]): for every event of a batch that
//! drew, the Customer's participation counts move only if they are still the
//! ones the draws were decided on, one unit of each won limited prize is
//! taken from the stock shard the draw picked
//! ([`crate::resources::instant_wins::store::stock`]), the Vouchers and game
//! participations the draws use are taken, the draws are stored for audit
//! and, for each Reward or game won, the prize's delivery is queued in the
//! outbox (points prizes are ledger entries of the event, added by
//! [`crate::pipeline::run`]). A check that fails throws `draw_contended`:
//! the caller evaluates the event again on fresh state.
//!
//! Checks that read a counter run row by row, so two events of one batch
//! taking from the same counter each see the other's take; records only
//! appended are one `INSERT` for the batch.

use serde_json::{Map, Value, json};

use crate::storage::event_transaction::BatchPart;

/// The compare-and-set of each drawing event's participation counts
/// (`$draw_counts`: `company`, `customer_id`, `seen`, `next`).
pub(crate) const COUNT_PARTICIPATIONS: BatchPart = BatchPart {
    binding: "draw_counts",
    statements: "
    FOR $counted IN $draw_counts {
        IF ((SELECT VALUE rules FROM ONLY type::record('iw_counts', [$counted.company, $counted.customer_id])) ?? {}) != $counted.seen {
            THROW 'REFUSED|draw_contended|participations changed during the draw';
        };
        UPSERT type::record('iw_counts', [$counted.company, $counted.customer_id])
            SET company = $counted.company, customer_id = $counted.customer_id, rules = $counted.next
            RETURN NONE;
    };",
};

/// One use of each Voucher a targeted draw takes part with, when its
/// campaign's coupon counts them (`$draw_vouchers`: `company`, `key`). The
/// participation counts' compare-and-set keeps a Customer's draws apart; a
/// use taken by anything else meanwhile throws `draw_contended` like a
/// prize run out.
pub(crate) const USE_VOUCHERS: BatchPart = BatchPart {
    binding: "draw_vouchers",
    statements: "
    FOR $used IN $draw_vouchers {
        LET $voucher = type::record('voucher', [$used.company, $used.key]);
        IF ((SELECT VALUE uses_left FROM ONLY $voucher) ?? 0) <= 0 {
            THROW 'REFUSED|draw_contended|the Voucher was used up during the draw';
        };
        UPDATE $voucher SET uses_left -= 1 RETURN NONE;
    };",
};

/// One unit of each won limited prize (`$stock_takes`: `company`,
/// `rule_id`, `prize_id`, `shard`, `allowance`).
pub(crate) const TAKE_STOCK: BatchPart = BatchPart {
    binding: "stock_takes",
    statements: "
    FOR $take IN $stock_takes {
        LET $unit = type::record('iw_given', [$take.company, $take.rule_id, $take.prize_id, $take.shard]);
        LET $given = (SELECT VALUE given FROM ONLY $unit) ?? 0;
        IF $given >= $take.allowance {
            THROW 'REFUSED|draw_contended|the prize ran out during the draw';
        };
        UPSERT $unit SET company = $take.company, rule_id = $take.rule_id,
            prize_id = $take.prize_id, shard = $take.shard, given = $given + 1
            RETURN NONE;
    };",
};

/// One participation given of each game played past its free plays
/// (`$game_plays`: `company`, `customer_id`, `game`). One taken meanwhile
/// (another play, a merge, a rollback) throws `draw_contended`: the play is
/// decided again.
pub(crate) const USE_GAME_PARTICIPATIONS: BatchPart = BatchPart {
    binding: "game_plays",
    statements: "
    FOR $play IN $game_plays {
        LET $held = type::record('game_participation', [$play.company, $play.customer_id, $play.game]);
        LET $available = (SELECT VALUE available FROM ONLY $held) ?? 0;
        IF $available < 1 {
            THROW 'REFUSED|draw_contended|the participation was used during the play';
        };
        UPDATE $held SET available = $available - 1 RETURN NONE;
    };",
};

/// The audit record of each drawing event (`$draw_audits`).
pub(crate) const STORE_AUDITS: BatchPart = BatchPart {
    binding: "draw_audits",
    statements: "
    INSERT INTO iw_draws $draw_audits RETURN NONE;",
};

/// The delivery of each won Reward or game participation, in the outbox
/// (`$prize_deliveries`).
pub(crate) const QUEUE_DELIVERIES: BatchPart = BatchPart {
    binding: "prize_deliveries",
    statements: "
    INSERT INTO prize_outbox $prize_deliveries RETURN NONE;",
};

/// The prize fields a queued delivery copies, when the prize has them.
const DELIVERED_PRIZE_FIELDS: [&str; 6] = [
    "prize_id",
    "promotion_type",
    "promotion_id",
    "points",
    "points_kind",
    "points_expire_at",
];

/// Hands `add` the rows of `draw_write` (made by
/// [`crate::resources::instant_wins::store::draw_write`], or null) of
/// `company`, each with the part that writes it.
pub(crate) fn add_rows(
    company: &str,
    draw_write: &Value,
    add: &mut dyn FnMut(&'static BatchPart, Value),
) {
    if !draw_write.is_object() {
        return;
    }
    let customer = &draw_write["customer_id"];
    add(
        &COUNT_PARTICIPATIONS,
        json!({
            "company": company,
            "customer_id": customer,
            "seen": draw_write["seen"],
            "next": draw_write["next"],
        }),
    );
    for key in array(&draw_write["used"]) {
        add(&USE_VOUCHERS, json!({"company": company, "key": key}));
    }
    for draw in array(&draw_write["limited"]) {
        add(
            &TAKE_STOCK,
            json!({
                "company": company,
                "rule_id": draw["rule_id"],
                "prize_id": draw["prize"]["prize_id"],
                "shard": draw["shard"]["index"],
                "allowance": draw["shard"]["allowance"],
            }),
        );
    }
    for game in array(&draw_write["played"]) {
        add(
            &USE_GAME_PARTICIPATIONS,
            json!({"company": company, "customer_id": customer, "game": game}),
        );
    }
    let mut audit = draw_write["audit"].clone();
    audit["id"] = draw_write["id"].clone();
    add(&STORE_AUDITS, audit);
    for draw in array(&draw_write["won"]) {
        let mut delivery = Map::new();
        delivery.insert("id".into(), draw["draw_id"].clone());
        delivery.insert("company".into(), json!(company));
        delivery.insert("draw_id".into(), draw["draw_id"].clone());
        delivery.insert("customer_id".into(), customer.clone());
        delivery.insert("rule_id".into(), draw["rule_id"].clone());
        for field in DELIVERED_PRIZE_FIELDS {
            // An absent field stays absent, as the store reads it (NONE).
            match &draw["prize"][field] {
                Value::Null => {}
                value => {
                    delivery.insert(field.into(), value.clone());
                }
            }
        }
        delivery.insert("pending".into(), json!(true));
        delivery.insert(
            "created_at".into(),
            draw_write["audit"]["created_at"].clone(),
        );
        add(&QUEUE_DELIVERIES, Value::Object(delivery));
    }
}

/// The items of `value` when it is an array.
fn array(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}
