//! Keeping each server's catalogue current: after every write on this
//! server at once, and every half second for what other servers sharing the
//! store wrote (one small read of every Company's revision).

use crate::error::ApiResult;
use crate::services::Services;

impl Services {
    /// Reads what changed in the Company's master data since this server's
    /// catalogue last saw it, and swaps the catalogue.
    pub async fn refresh_master_data_of(&self, company: &str) -> ApiResult<()> {
        let _one_at_a_time = self.master_data.refreshing.lock().await;
        let current = self.master_data.company(company);
        let changes = self.store.master_changes(company, current.revision).await?;
        if changes.revision != current.revision {
            let next = current.apply(&changes);
            tracing::debug!(
                company,
                revision = next.revision,
                products = next.product_count(),
                "master data refreshed"
            );
            self.master_data.set(company, next);
        }
        Ok(())
    }

    /// Refreshes every Company whose master data moved since this server
    /// last looked.
    pub async fn refresh_master_data(&self) -> ApiResult<()> {
        for (company, revision) in self.store.master_revisions().await? {
            if self.master_data.company(&company).revision != revision {
                self.refresh_master_data_of(&company).await?;
            }
        }
        Ok(())
    }
}
