//! Repository of Challenge progress: one record per Customer and Challenge
//! (`challenge_progress`), written by the transaction of the event that
//! moved it, compare-and-set on its version: two events of one Customer
//! completing a Challenge at the same instant cannot both grant it, the
//! second is evaluated again on the record the first wrote.

use serde_json::{Value, json};

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::store::WRITE_ANSWER;
use crate::resources::challenges::progress::ChallengeRecord;
use crate::resources::challenges::progress::Grant;
use crate::resources::instant_wins::store::prizes::ADD_GAME_PARTICIPATION;
use crate::resources::vouchers::codes::code_key;
use crate::storage::REFUSED;
use crate::storage::Store;
use crate::storage::first;

/// `record` of `company` as it is stored.
pub(crate) fn record_document(company: &str, record: &ChallengeRecord) -> Value {
    let mut document = json!(record);
    document["company"] = json!(company);
    document
}

/// A stored record.
fn record_from(mut document: Value) -> ApiResult<ChallengeRecord> {
    if let Some(object) = document.as_object_mut() {
        object.remove("company");
        object.remove("id");
    }
    serde_json::from_value(document)
        .map_err(|e| ApiError::internal(format!("a stored Challenge record is unreadable: {e}")))
}

/// The check every write of a record makes: the version it read is still
/// the stored one, or `draw_contended` (the caller evaluates again).
const COMPARE_AND_SET: &str =
    "LET $progress = type::record('challenge_progress', [$company, $step.customer, $step.rule_id]);
         IF (($progress.version) ?? 0) != $step.expected {
             THROW 'REFUSED|draw_contended|the Challenge progress changed during the event';
         };
         UPSERT $progress CONTENT $step.document RETURN NONE;";

/// Part of the group commit ([`crate::storage::group_commit`]): each
/// Challenge record an event moved (`$part`, made by
/// [`crate::resources::challenges::contribution::Challenges`]), and the
/// game participation or Reward a completion gives (its points are ledger
/// entries of the event, its Voucher one of the event's Voucher issues).
pub(crate) fn advance_statements() -> String {
    format!(
        "FOR $step IN $part {{
             {cas}
             IF $step.game {{
                 LET $participant = $step.customer;
                 LET $game = $step.game;
                 {ADD_GAME_PARTICIPATION}
             }};
             IF $step.reward_transaction {{
                 CREATE type::record('reward_transaction', [$company, $step.reward_transaction.tid])
                     CONTENT $step.reward_transaction RETURN NONE;
             }};
         }};",
        cas = COMPARE_AND_SET,
    )
}

/// Part of a cart's cancellation: the records its return changed
/// (`$part`, made by [`give_back_documents`]), and what revoked
/// completions gave taken back where it is still held (a game participation
/// not played, a Reward not used, a Voucher not redeemed); their points are
/// ledger entries of the cancellation.
pub(crate) fn give_back_statements() -> String {
    format!(
        "FOR $step IN $part {{
             {cas}
             IF $step.game {{
                 UPDATE type::record('game_participation', [$company, $step.customer, $step.game])
                     SET available = math::max([(available ?? 0) - 1, 0]) RETURN NONE;
             }};
             IF $step.reward_transaction {{
                 UPDATE type::record('reward_transaction', [$company, $step.reward_transaction])
                     SET state = 'rolled_back', rolled_back_at = $now, rollback_reason = 'Challenge completion revoked'
                     WHERE state = 'available' RETURN NONE;
             }};
             IF $step.voucher_key {{
                 UPDATE type::record('voucher', [$company, $step.voucher_key])
                     SET state = 'inactive', voided_at = $now
                     WHERE state = 'active' RETURN NONE;
             }};
         }};",
        cas = COMPARE_AND_SET,
    )
}

/// A record a return changed, and the grant its revoked completion gave.
#[derive(Debug, Clone)]
pub struct GivenBack {
    /// The record to write (its version one past the one read).
    pub record: ChallengeRecord,
    /// What the revoked completion gave, to take back.
    pub revoked: Option<Grant>,
}

/// `$challenges` of [`give_back_statements`].
pub(crate) fn give_back_documents(company: &str, given_back: &[GivenBack]) -> Value {
    Value::Array(
        given_back
            .iter()
            .map(|given| {
                let (game, reward_transaction, voucher_key) = match &given.revoked {
                    Some(Grant::Game { game_id }) => (json!(game_id), Value::Null, Value::Null),
                    Some(Grant::Reward { transaction_id, .. }) => {
                        (Value::Null, json!(transaction_id), Value::Null)
                    }
                    Some(Grant::Voucher { code, .. }) => {
                        (Value::Null, Value::Null, json!(code_key(code)))
                    }
                    Some(Grant::Points { .. }) | None => (Value::Null, Value::Null, Value::Null),
                };
                json!({
                    "rule_id": given.record.rule_id,
                    "customer": given.record.customer_id,
                    "expected": given.record.version - 1,
                    "document": record_document(company, &given.record),
                    "game": game,
                    "reward_transaction": reward_transaction,
                    "voucher_key": voucher_key,
                })
            })
            .collect(),
    )
}

impl Store {
    /// Every Challenge record of `customer_id`.
    pub async fn challenge_records(
        &self,
        company: &str,
        customer_id: &str,
    ) -> ApiResult<Vec<ChallengeRecord>> {
        let documents: Vec<Value> = first(
            self.db
                .query(
                    "SELECT * OMIT id, company FROM challenge_progress WHERE company = $company AND customer_id = $customer",
                )
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string())),
        )
        .await?;
        documents.into_iter().map(record_from).collect()
    }

    /// The record of `customer_id` in Challenge `rule_id`, if any.
    pub async fn challenge_record(
        &self,
        company: &str,
        customer_id: &str,
        rule_id: i64,
    ) -> ApiResult<Option<ChallengeRecord>> {
        let document: Option<Value> = first(
            self.db
                .query(
                    "SELECT * OMIT id, company FROM ONLY type::record('challenge_progress', [$company, $customer, $rule_id])",
                )
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string()))
                .bind(("rule_id", rule_id)),
        )
        .await?;
        document.map(record_from).transpose()
    }

    /// Stores `enrolled`, the record of an enrolment, when `changed`, if
    /// the record is still at version `seen` (0: none is stored);
    /// `concurrent_modification` otherwise, writing nothing.
    pub async fn enroll_in_challenge(
        &self,
        company: &str,
        enrolled: &ChallengeRecord,
        seen: i64,
        changed: bool,
    ) -> ApiResult<()> {
        let document = record_document(company, enrolled);
        let query = format!(
            "BEGIN TRANSACTION;
             LET $progress = type::record('challenge_progress', [$company, $customer, $rule_id]);
             IF (($progress.version) ?? 0) != $seen {{
                 THROW '{REFUSED}{moved}|the Challenge record changed meanwhile';
             }};
             IF $changed {{
                 UPSERT $progress CONTENT $document RETURN NONE;
             }};
             {WRITE_ANSWER}
             COMMIT TRANSACTION;",
            moved = ErrorCode::ConcurrentModification.code(),
        );
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("customer", enrolled.customer_id.clone()))
                .bind(("rule_id", enrolled.rule_id))
                .bind(("seen", seen))
                .bind(("changed", changed))
                .bind(("document", document.clone()))
        })
        .await?;
        Ok(())
    }
}

/// Records read as part of an event's state
/// ([`crate::resources::instant_wins::store::draw_state`]).
pub(crate) fn records_from(documents: Vec<Value>) -> ApiResult<Vec<ChallengeRecord>> {
    documents.into_iter().map(record_from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_enrolment_is_stored_only_over_the_record_it_was_made_from() {
        let store = Store::connect("mem://", None).await.unwrap();
        let at: crate::common::time::Timestamp = "2026-11-23T10:00:00Z".parse().unwrap();
        let record = ChallengeRecord {
            rule_id: 7,
            customer_id: "x".into(),
            version: 1,
            enrolled_at: Some(at),
            enrolled_on: Some(at.as_datetime().date_naive()),
            ..ChallengeRecord::default()
        };
        store
            .enroll_in_challenge("c", &record, 0, true)
            .await
            .unwrap();
        assert_eq!(
            store.challenge_record("c", "x", 7).await.unwrap(),
            Some(record.clone())
        );
        // Made from no record while one is stored: refused, nothing changed.
        let later = ChallengeRecord {
            enrolled_at: Some("2026-11-24T10:00:00Z".parse().unwrap()),
            ..record.clone()
        };
        let refused = store
            .enroll_in_challenge("c", &later, 0, true)
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::ConcurrentModification);
        assert_eq!(
            store.challenge_records("c", "x").await.unwrap(),
            vec![record]
        );
    }
}
