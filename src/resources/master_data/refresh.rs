//! Keeping each server's catalogue current: after every write on this
//! server at once, and every half second for what other servers sharing the
//! store wrote (one small read of every Company's revision); and checking
//! the campaigns against it, whenever either changes.

use crate::engine::script::RuleError;
use crate::error::ApiResult;
use crate::resources::master_data::references::FeatureCatalogue;
use crate::resources::master_data::references::unknown_features;
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
            let trees_changed = next.product_tree != current.product_tree
                || next.location_tree != current.location_tree;
            tracing::debug!(
                company,
                revision = next.revision,
                products = next.product_count(),
                "master data refreshed"
            );
            self.master_data.set(company, next);
            if trees_changed {
                self.warn_of_unknown_features(company);
            }
        }
        Ok(())
    }

    /// Every taxonomy or feature the Company's campaigns name that its
    /// catalogue does not have, at its file and line.
    pub fn unknown_features_of(&self, company: &str) -> Vec<RuleError> {
        let known = FeatureCatalogue::of(&self.master_data.company(company));
        unknown_features(&self.catalog.company(company).campaigns, &known)
    }

    /// Logs [`Services::unknown_features_of`] as warnings: such a condition
    /// can never hold.
    pub fn warn_of_unknown_features(&self, company: &str) {
        for problem in self.unknown_features_of(company) {
            tracing::warn!(company, %problem, "a campaign names a taxonomy or feature the Company does not have: it can never match");
        }
    }

    /// The Company's taxonomies and features, as this server's catalogue
    /// holds them after reading the latest changes.
    pub async fn feature_catalogue(&self, company: &str) -> ApiResult<FeatureCatalogue> {
        self.company_locale(company).await?;
        self.refresh_master_data_of(company).await?;
        Ok(FeatureCatalogue::of(&self.master_data.company(company)))
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
