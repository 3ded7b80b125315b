//! Master data shared by Products, Locations and their taxonomies
//! (`resources/products`, `resources/locations`, `resources/taxonomies`):
//! how their `{id}`/`{value}` path is read and the features map both carry
//! (`model.rs`), the Company's revision every change moves and the writes
//! they share (`store.rs`, `service.rs`), and the catalogue the engine reads
//! on every event without a store read: one [`snapshot::MasterData`] per
//! Company in memory (`snapshot.rs`, kept in `cache.rs`), refreshed on change on every server
//! (`refresh.rs`) and applied to an event's facts (`enrich.rs`); and
//! imports of whole files (`import/`, `import_api.rs`); lists of Locations
//! and Products that campaigns and Coupons write, resolved through the
//! catalogue (`matching.rs`); the five operations Products and Locations
//! each serve, written once (`record_api.rs`).

pub mod cache;
pub use loyalty_rules::resources::master_data::enrich;
pub mod import;
pub mod import_api;
pub use loyalty_rules::resources::master_data::matching;
pub use loyalty_rules::resources::master_data::model;
pub mod record_api;
pub mod references;
pub mod refresh;
pub mod search_by;
pub mod service;
pub use loyalty_rules::resources::master_data::snapshot;
pub mod store;
