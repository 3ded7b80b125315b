//! Every Company's master data on this server, as events read it: the
//! snapshots ([`super::snapshot`]) kept current by [`super::refresh`].

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use crate::resources::master_data::snapshot::MasterData;

/// Every Company's master data on this server.
#[derive(Debug, Default)]
pub struct MasterDataCache {
    companies: RwLock<HashMap<String, Arc<MasterData>>>,
    /// One refresh at a time, so an older read never replaces a newer one.
    pub(crate) refreshing: tokio::sync::Mutex<()>,
}

impl MasterDataCache {
    /// The Company's master data (empty when it has none).
    pub fn company(&self, company: &str) -> Arc<MasterData> {
        self.companies
            .read()
            .ok()
            .and_then(|companies| companies.get(company).cloned())
            .unwrap_or_default()
    }

    /// Replaces the Company's master data.
    pub fn set(&self, company: &str, data: MasterData) {
        if let Ok(mut companies) = self.companies.write() {
            companies.insert(company.to_string(), Arc::new(data));
        }
    }
}
