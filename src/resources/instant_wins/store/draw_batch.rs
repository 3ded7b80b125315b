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
//! The participation counts every drawing event moves are checked and
//! written by statements over the whole batch's rows. The checks of what
//! a few events take (a prize's units, Vouchers, game participations) run
//! row by row, so two events of one batch taking from the same counter
//! each see the other's take; records only appended are one `INSERT` for
//! the batch.

use serde_json::{Map, Value, json};

use crate::storage::event_transaction::BatchPart;
use crate::storage::event_transaction::insert_rows;
use crate::storage::record_text::record_value;

/// The check of each drawing event's participation counts: the stored
/// counts of the batch's Customers (`$draw_count_ids`: their states'
/// record ids as SurrealQL text, [`crate::storage::record_text`], one per
/// drawing event) are read in one expression and must be the ones each draw
/// was decided on ([`COUNTS_SEEN`]). The counts the draws leave are written
/// with the rest of the Customer's state, after every check
/// ([`crate::resources::customers::state::MOVE_CUSTOMER_STATES`]). Two
/// events of one Customer never share a batch
/// ([`crate::pipeline::contribution::Contribution::once_per_batch`]),
/// so no row's check depends on another's write. (A `FOR` loop of a read,
/// a check and an upsert per event cost 198 µs per cart in a batch of 16;
/// a check and an upsert over the batch 44 µs: BENCHMARKS.md.)
pub(crate) const COUNT_PARTICIPATIONS: BatchPart = BatchPart {
    binding: "draw_count_ids",
    statements: "
    IF ((<array<record>> $draw_count_ids).rules)[WHERE $this != NONE AND $this != NULL AND $this != {}]
        != ($draw_counts_seen ?? []) {
        THROW 'REFUSED|draw_contended|participations changed during the draw';
    };",
};

/// The counts each drawing event of the batch was decided on, in the order
/// of its [`COUNT_PARTICIPATIONS`] rows, leaving out the empty ones (a
/// Customer's first draws): exactly the non-empty counts the store must
/// hold for those rows, in that order, as reading them gives them.
pub(crate) const COUNTS_SEEN: BatchPart = BatchPart::read_by_others("draw_counts_seen");

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
        IF ($voucher.uses_left ?? 0) <= 0 {
            THROW 'REFUSED|draw_contended|the Voucher was used up during the draw';
        };
        UPDATE $voucher SET uses_left -= 1 RETURN NONE;
    };",
};

/// One unit of each won limited prize (`$stock_takes`: a row of the
/// prize's stock shard, `id`, `company`, `rule_id`, `prize_id`, `shard`,
/// `given` 1), taken for the whole batch by one upsert (rows of one shard
/// add up in turn); then every shard taken from must be within its
/// allowance ([`STOCK_IDS`] and [`STOCK_ALLOWANCES`], in the order of the
/// rows), else `draw_contended`, and the batch's events are recorded one
/// by one. (A `FOR` loop of a read, a check and an upsert per unit cost 64
/// to 85 µs more for a lone cart, 17 to 27 µs more per cart in a batch of
/// 16: BENCHMARKS.md.)
pub(crate) const TAKE_STOCK: BatchPart = BatchPart {
    binding: "stock_takes",
    statements: "
    INSERT INTO iw_given $stock_takes ON DUPLICATE KEY UPDATE given += 1 RETURN NONE;
    IF array::transpose([(<array<record>> $stock_ids).given, $stock_allowances])[WHERE $this[0] > $this[1]] {
        THROW 'REFUSED|draw_contended|the prize ran out during the draw';
    };",
};

/// The record ids of [`TAKE_STOCK`]'s shards as SurrealQL text, in the
/// order of its rows ([`crate::storage::record_text`]).
pub(crate) const STOCK_IDS: BatchPart = BatchPart::read_by_others("stock_ids");

/// The allowance of each of [`TAKE_STOCK`]'s shards, in the order of its
/// rows: the units the shard may give in all.
pub(crate) const STOCK_ALLOWANCES: BatchPart = BatchPart::read_by_others("stock_allowances");

/// One participation given of each game played past its free plays
/// (`$game_plays`: `company`, `customer_id`, `game`). One taken meanwhile
/// (another play, a merge, a rollback) throws `draw_contended`: the play is
/// decided again.
pub(crate) const USE_GAME_PARTICIPATIONS: BatchPart = BatchPart {
    binding: "game_plays",
    statements: "
    FOR $play IN $game_plays {
        LET $held = type::record('game_participation', [$play.company, $play.customer_id, $play.game]);
        LET $available = $held.available ?? 0;
        IF $available < 1 {
            THROW 'REFUSED|draw_contended|the participation was used during the play';
        };
        UPDATE $held SET available = $available - 1 RETURN NONE;
    };",
};

/// The audit record of each drawing event (`$draw_audits`).
pub(crate) const STORE_AUDITS: BatchPart = insert_rows!("draw_audits" into "iw_draws");

/// The delivery of each won Reward or game participation, in the outbox
/// (`$prize_deliveries`).
pub(crate) const QUEUE_DELIVERIES: BatchPart = insert_rows!("prize_deliveries" into "prize_outbox");

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
        record_value("customer_state", &json!([company, customer])),
    );
    let seen = &draw_write["seen"];
    if seen.as_object().is_some_and(|counts| !counts.is_empty()) {
        add(&COUNTS_SEEN, seen.clone());
    }
    for key in array(&draw_write["used"]) {
        add(&USE_VOUCHERS, json!({"company": company, "key": key}));
    }
    for draw in array(&draw_write["limited"]) {
        let (rule, prize, shard) = (
            &draw["rule_id"],
            &draw["prize"]["prize_id"],
            &draw["shard"]["index"],
        );
        let id = json!([company, rule, prize, shard]);
        add(&STOCK_IDS, record_value("iw_given", &id));
        add(&STOCK_ALLOWANCES, draw["shard"]["allowance"].clone());
        add(
            &TAKE_STOCK,
            json!({
                "id": id,
                "company": company,
                "rule_id": rule,
                "prize_id": prize,
                "shard": shard,
                "given": 1,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::customers::state::MOVE_CUSTOMER_STATES;
    use crate::resources::customers::state::state_moves;
    use crate::storage::Store;
    use crate::storage::first;

    /// The rows of events of `customers` that drew, each decided on the
    /// counts `seen` and moving them to `next`, and of their states' moves.
    fn draws(customers: &[(&str, Value, Value)]) -> Map<String, Value> {
        let mut rows: Map<String, Value> = Map::new();
        let mut push = |binding: &str, row: Value| {
            let rows = rows.entry(binding).or_insert_with(|| json!([]));
            rows.as_array_mut().unwrap().push(row);
        };
        for (customer, seen, next) in customers {
            let write = json!({"customer_id": customer, "seen": seen, "next": next, "audit": {}});
            add_rows("c", &write, &mut |part, row| {
                if part.binding != STORE_AUDITS.binding {
                    push(part.binding, row);
                }
            });
            let event = json!({"company": "c", "customer": customer, "draw_write": write});
            for state in state_moves("c", &event) {
                push(MOVE_CUSTOMER_STATES.binding, state);
            }
        }
        rows
    }

    /// Runs the compare-and-set over `customers`' draws, with the move of
    /// their states: whether it was accepted.
    async fn count(store: &Store, customers: &[(&str, Value, Value)]) -> bool {
        let text = format!(
            "BEGIN; {} {} COMMIT;",
            COUNT_PARTICIPATIONS.statements, MOVE_CUSTOMER_STATES.statements
        );
        crate::storage::execute(store.db.query(text).bind(Value::Object(draws(customers))))
            .await
            .is_ok()
    }

    async fn stored(store: &Store) -> Vec<Value> {
        first(
            store.db.query(
                "SELECT VALUE [customer_id, rules] FROM customer_state ORDER BY customer_id",
            ),
        )
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn participation_counts_move_only_from_the_ones_each_draw_saw() {
        let store = Store::connect("mem://", None).await.unwrap();
        let (x1, y1) = (json!({"1": [1]}), json!({"2": [1]}));
        assert!(
            count(
                &store,
                &[("x", json!({}), x1.clone()), ("y", json!({}), y1.clone())]
            )
            .await
        );

        // Rows in any order, a Customer's first draws among them.
        let (x2, y2, z1) = (json!({"1": [2]}), json!({"2": [2]}), json!({"3": [1]}));
        let batch = [
            ("y", y1.clone(), y2.clone()),
            ("z", json!({}), z1.clone()),
            ("x", x1.clone(), x2.clone()),
        ];
        assert!(count(&store, &batch).await);
        let moved = json!([["x", x2], ["y", y2], ["z", z1]]);
        assert_eq!(Value::Array(stored(&store).await), moved);

        // Each refused, and nothing of its batch written: counts seen that
        // are another Customer's, stale ones, counts seen empty for a
        // Customer who has some, and counts seen for one who has none.
        for refused in [
            vec![("y", x2.clone(), json!({})), ("x", y2.clone(), json!({}))],
            vec![("x", x1.clone(), json!({"1": [9]}))],
            vec![
                ("w", json!({}), json!({"4": [1]})),
                ("z", json!({}), json!({})),
            ],
            vec![("w", json!({"4": [1]}), json!({"4": [2]}))],
        ] {
            assert!(!count(&store, &refused).await, "{refused:?}");
            assert_eq!(Value::Array(stored(&store).await), moved, "{refused:?}");
        }
    }

    /// Runs the units' take of `draws` (each `(shard, allowance)` of one
    /// prize): whether it was accepted.
    async fn take(store: &Store, draws: &[(i64, i64)]) -> bool {
        let mut rows: Map<String, Value> = Map::new();
        let limited: Vec<Value> = draws
            .iter()
            .map(|(shard, allowance)| {
                json!({"rule_id": 7, "prize": {"prize_id": "gift"}, "shard": {"index": shard, "allowance": allowance}})
            })
            .collect();
        let write = json!({"customer_id": "x", "limited": limited, "audit": {}});
        add_rows("c", &write, &mut |part, row| {
            let stock = [&TAKE_STOCK, &STOCK_IDS, &STOCK_ALLOWANCES];
            if stock.iter().any(|known| known.binding == part.binding) {
                let rows = rows.entry(part.binding).or_insert_with(|| json!([]));
                rows.as_array_mut().unwrap().push(row);
            }
        });
        let text = format!("BEGIN; {} COMMIT;", TAKE_STOCK.statements);
        crate::storage::execute(store.db.query(text).bind(Value::Object(rows)))
            .await
            .is_ok()
    }

    async fn given(store: &Store) -> Vec<Value> {
        first(
            store
                .db
                .query("SELECT VALUE [shard, given] FROM iw_given ORDER BY shard"),
        )
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn units_are_taken_only_while_each_shard_is_within_its_allowance() {
        let store = Store::connect("mem://", None).await.unwrap();
        assert!(take(&store, &[(0, 2), (1, 1)]).await);
        assert_eq!(given(&store).await, [json!([0, 1]), json!([1, 1])]);
        // Two units of one shard in a batch count together.
        assert!(take(&store, &[(2, 2), (2, 2)]).await);
        assert_eq!(given(&store).await[2], json!([2, 2]));
        // Each refused, and nothing of its batch written: a shard given
        // out, a batch taking past the allowance, a fresh shard beside one
        // given out.
        let before = given(&store).await;
        for refused in [vec![(1, 1)], vec![(0, 2), (0, 2)], vec![(3, 5), (2, 2)]] {
            assert!(!take(&store, &refused).await, "{refused:?}");
            assert_eq!(given(&store).await, before, "{refused:?}");
        }
        assert!(take(&store, &[(0, 2)]).await);
    }
}
