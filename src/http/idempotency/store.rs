//! Repository of Idempotency-Keys and the responses they replay.

use crate::http::idempotency::model::KeyClaim;
use crate::http::idempotency::model::StoredResponse;
use serde::Deserialize;
use serde_json::Value;

use crate::common::time::Timestamp;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::storage::Store;
use crate::storage::execute;

/// A live key as the claim reads it, and whether the process that holds it
/// (when it is running) is still running.
#[derive(Debug, Deserialize)]
struct Claimed {
    live: Option<KeyRecord>,
    #[serde(default)]
    held: bool,
}

#[derive(Debug, Deserialize)]
struct KeyRecord {
    state: String,
    fingerprint: String,
    lease_until: String,
    #[serde(default)]
    response: Option<StoredResponse>,
}

/// SurrealQL completing the Idempotency-Key of `$answer` (made by
/// [`super::answer::written_answer`], or null) with its response, in the transaction that
/// holds it: only while the key is running for the same request.
macro_rules! write_answer_sql {
    () => {
        "
    IF $answer {
        UPDATE type::record('idempotency', [$answer.company, $answer.key])
            SET state = 'done', response = $answer.response
            WHERE fingerprint = $answer.fingerprint AND state = 'running' RETURN NONE;
    };"
    };
}
pub(crate) use write_answer_sql;

/// [`write_answer_sql`] as a `&str`, for queries made with `format!`.
pub(crate) const WRITE_ANSWER: &str = write_answer_sql!();

impl Store {
    /// Claims `key` of `company` for a request with `fingerprint` run by
    /// the process `holder`, in one transaction: a missing or expired key,
    /// or one abandoned by its request (its lease passed, the process
    /// running it is gone, [`crate::storage::instances`], or it is `holder`
    /// itself, which runs no request with it), becomes `running` for this
    /// request.
    #[allow(clippy::too_many_arguments)]
    pub async fn claim_idempotency_key(
        &self,
        company: &str,
        key: &str,
        fingerprint: &str,
        holder: &str,
        now: Timestamp,
        lease_until: Timestamp,
        expires_at: Timestamp,
    ) -> ApiResult<KeyClaim> {
        // A key held by no named process (recorded before processes were)
        // is held; one held by another, while that process renews its
        // lease. One held by this process is not: none of its requests runs
        // it (`here::KeysHere` keeps them apart before this claim), so the
        // request that held it ended without recording its outcome.
        let query = "BEGIN TRANSACTION;
             LET $record = type::record('idempotency', [$company, $key]);
             LET $found = $record.*;
             LET $live = IF $found != NONE AND $found.expires_at > $now { $found } ELSE { NONE };
             LET $held = IF $live != NONE AND $live.state == 'running' {
                 $live.holder == NONE
                     OR ($live.holder != $holder
                         AND ((type::record('server_instance', $live.holder).alive_until) ?? '') > $now)
             } ELSE { false };
             IF $live == NONE OR ($live.state == 'running' AND ($live.lease_until <= $now OR !$held) AND $live.fingerprint == $fingerprint) {
                 UPSERT $record CONTENT {
                     company: $company, key: $key, fingerprint: $fingerprint, state: 'running',
                     holder: $holder, lease_until: $lease_until, expires_at: $expires_at, created_at: $now
                 } RETURN NONE;
             };
             { live: $live, held: $held };
             COMMIT TRANSACTION;";
        let mut response = self
            .transact(|db| {
                db.query_keeping_customers(query)
                    .bind(("company", company.to_string()))
                    .bind(("key", key.to_string()))
                    .bind(("fingerprint", fingerprint.to_string()))
                    .bind(("holder", holder.to_string()))
                    .bind(("now", now.to_string()))
                    .bind(("lease_until", lease_until.to_string()))
                    .bind(("expires_at", expires_at.to_string()))
            })
            .await?;
        let index = response.num_statements().saturating_sub(2);
        let claimed: Option<Value> = response
            .take(index)
            .map_err(|e| ApiError::internal(format!("reading the idempotency key: {e}")))?;
        let Some(claimed) = claimed else {
            return Err(ApiError::internal(
                "the idempotency key's claim answered nothing",
            ));
        };
        let claimed: Claimed = serde_json::from_value(claimed)
            .map_err(|e| ApiError::internal(format!("stored idempotency key unreadable: {e}")))?;
        let Some(record) = claimed.live else {
            return Ok(KeyClaim::Run);
        };
        Ok(if record.fingerprint != fingerprint {
            KeyClaim::Mismatch
        } else if record.state == "done" {
            match record.response {
                Some(response) => KeyClaim::Replay(response),
                None => KeyClaim::InUse,
            }
        } else if claimed.held && record.lease_until.as_str() > now.to_string().as_str() {
            KeyClaim::InUse
        } else {
            KeyClaim::Run
        })
    }

    /// Stores the response of the request that holds `key`, while the
    /// process `holder` holds it.
    pub async fn complete_idempotency_key(
        &self,
        company: &str,
        key: &str,
        (fingerprint, holder): (&str, &str),
        response: &StoredResponse,
    ) -> ApiResult<()> {
        execute(
            self.db
                .query_keeping_customers(
                    "UPDATE type::record('idempotency', [$company, $key]) \
                     SET state = 'done', response = $response \
                     WHERE fingerprint = $fingerprint AND state = 'running' \
                     AND (holder == NONE OR holder == $holder) RETURN NONE",
                )
                .bind(("company", company.to_string()))
                .bind(("key", key.to_string()))
                .bind(("fingerprint", fingerprint.to_string()))
                .bind(("holder", holder.to_string()))
                .bind((
                    "response",
                    serde_json::to_value(response).map_err(ApiError::internal)?,
                )),
        )
        .await
    }

    /// Gives `key` up after a transient failure, so a retry runs again,
    /// while the process `holder` holds it (a retry through another process
    /// may hold it by now).
    pub async fn release_idempotency_key(
        &self,
        company: &str,
        key: &str,
        (fingerprint, holder): (&str, &str),
    ) -> ApiResult<()> {
        execute(
            self.db
                .query_keeping_customers(
                    "DELETE type::record('idempotency', [$company, $key]) \
                     WHERE fingerprint = $fingerprint AND state = 'running' \
                     AND (holder == NONE OR holder == $holder)",
                )
                .bind(("company", company.to_string()))
                .bind(("key", key.to_string()))
                .bind(("fingerprint", fingerprint.to_string()))
                .bind(("holder", holder.to_string())),
        )
        .await
    }

    /// Deletes every key that expired before `now`.
    pub async fn purge_idempotency_keys(&self, now: Timestamp) -> ApiResult<()> {
        execute(
            self.db
                .query_keeping_customers("DELETE idempotency WHERE expires_at <= $now")
                .bind(("now", now.to_string())),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `seconds` after 2026-07-06T10:00:00Z, when each test starts.
    fn at(seconds: i64) -> Timestamp {
        let start: Timestamp = "2026-07-06T10:00:00Z".parse().unwrap();
        Timestamp::from(start.as_datetime() + chrono::Duration::seconds(seconds))
    }

    /// Claims key `k` (fingerprint `f`) for `holder` `seconds` after the
    /// start, with the service's lease and lifetime.
    async fn claim(store: &Store, holder: &str, seconds: i64) -> KeyClaim {
        let now = at(seconds);
        let later =
            |seconds: i64| Timestamp::from(now.as_datetime() + chrono::Duration::seconds(seconds));
        store
            .claim_idempotency_key("c", "k", "f", holder, now, later(120), later(86_400))
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn a_key_is_held_while_its_process_runs_and_free_once_it_is_gone() {
        let store = Store::connect("mem://", None).await.unwrap();
        store.register_instance("srv_a", at(0)).await.unwrap();
        assert_eq!(claim(&store, "srv_a", 0).await, KeyClaim::Run);
        // Another process while srv_a renews its lease: in use.
        assert_eq!(claim(&store, "srv_b", 10).await, KeyClaim::InUse);
        store.renew_instance("srv_a", at(10)).await.unwrap();
        assert_eq!(claim(&store, "srv_b", 20).await, KeyClaim::InUse);
        // srv_a stopped renewing: 15 s after its last renewal it is gone,
        // long before the key's own lease of 120 s ends.
        assert_eq!(claim(&store, "srv_b", 26).await, KeyClaim::Run);
        // Now srv_b holds it, and a process that retired holds nothing.
        store.register_instance("srv_c", at(30)).await.unwrap();
        assert_eq!(claim(&store, "srv_c", 30).await, KeyClaim::Run);
        store.retire_instance("srv_c").await.unwrap();
        assert_eq!(claim(&store, "srv_b", 31).await, KeyClaim::Run);
    }

    #[tokio::test]
    async fn a_key_its_own_process_left_running_is_taken_over_by_it() {
        let store = Store::connect("mem://", None).await.unwrap();
        store.register_instance("srv_a", at(0)).await.unwrap();
        assert_eq!(claim(&store, "srv_a", 0).await, KeyClaim::Run);
        // The request ended without recording its outcome (the store was
        // unreachable); srv_a runs no request with the key any more.
        assert_eq!(claim(&store, "srv_a", 1).await, KeyClaim::Run);
        assert_eq!(claim(&store, "srv_b", 2).await, KeyClaim::InUse);
    }

    #[tokio::test]
    async fn a_process_starting_on_an_embedded_store_knows_every_other_is_gone() {
        let store = Store::connect("mem://", None).await.unwrap();
        store.register_instance("srv_killed", at(0)).await.unwrap();
        assert_eq!(claim(&store, "srv_killed", 0).await, KeyClaim::Run);
        assert_eq!(claim(&store, "srv_new", 1).await, KeyClaim::InUse);
        // The restarted process registers: the killed one's hold is free
        // at once.
        store.register_instance("srv_new", at(2)).await.unwrap();
        assert_eq!(claim(&store, "srv_new", 2).await, KeyClaim::Run);
    }
}
