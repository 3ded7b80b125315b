//! The webhook events a merge and an unmerge report, written in their
//! transaction ([`crate::resources::merges::store::CustomerChanges::webhooks`]).

use serde_json::Value;

use crate::resources::merges::service::{MergeOutcome, UnmergeOutcome};
use crate::services::Services;

impl Services {
    /// The outbox rows of a merge's webhook events: `customer.created` for a
    /// target it creates, then `customer.merged` with the merge as the API
    /// answers it (`merged`, `target`, `merge`).
    pub(super) fn merge_webhooks(
        &self,
        company: &str,
        outcome: &MergeOutcome,
        created: bool,
    ) -> Vec<Value> {
        use poem_openapi::types::ToJSON;
        let webhooks = &self.store.memory.webhooks;
        let mut rows = Vec::new();
        if created {
            rows.extend(webhooks.customer_rows(company, "customer.created", &outcome.target));
        }
        let merge = serde_json::json!({
            "merged": outcome.merged.to_json(),
            "target": outcome.target.to_json(),
            "merge": outcome.record.to_json(),
        });
        let merged = Some(outcome.merged.id.as_str());
        let at = outcome.record.merged_at;
        rows.extend(webhooks.rows(company, "customer.merged", merged, merge, at));
        rows
    }

    /// The outbox rows of an unmerge's: `customer.updated` for both
    /// Customers, the one restored and the one it left.
    pub(super) fn unmerge_webhooks(&self, company: &str, outcome: &UnmergeOutcome) -> Vec<Value> {
        [&outcome.customer, &outcome.target]
            .into_iter()
            .flat_map(|changed| {
                self.store
                    .memory
                    .webhooks
                    .customer_rows(company, "customer.updated", changed)
            })
            .collect()
    }
}
