//! `loyalty`: a self-hostable Customer Loyalty and Data Collection service.
//!
//! The code is sliced by resource: everything of one resource group of the
//! interface sits in one folder under [`resources`] (`api.rs` its HTTP
//! operations, `service.rs` its use-cases, `store.rs` its queries,
//! `schema.surql` its tables, `model.rs` its records). What every resource
//! shares has its own folder. The rules are the crate `loyalty-rules`
//! (`crates/rules`: [`engine`] and each kind's pure part, `rules.rs` its
//! campaign-file section and evaluation), re-exported here at the paths the
//! service names them by; the records both use and the error registry are
//! `loyalty-types` (`crates/types`). CONTRIBUTING.md says how to add a
//! resource or a campaign kind; the layer rules (`src/layer_rules.rs`) are
//! checked by tests. `docs/architecture.md` follows a cart through these
//! modules.
//!
//! Module map:
//! - [`resources`]: one folder per resource group: `customers`, `associations`, `merges`,
//!   `segments`, `carts`, `events` (Custom Events and triggers), `points` (ledger, balances,
//!   redemptions, expiry), `cashback`, `api_campaigns` (campaigns created through the API, of any
//!   kind; the one flow and the four operations of the resources that write them: `resource.rs`,
//!   `resource_api.rs`), `points_campaigns`, `coupons`, `discounts`, `limits` (the budgets and caps
//!   of discount, Coupon and points campaigns, counted in the event's transaction), `instant_wins`
//!   (draws, fairness, stock, prize delivery), `rewards` (the catalogue, redemptions, rollbacks,
//!   what a Reward gives), `games` (plays through the pipeline), `challenges` (goals, progress in
//!   the event's transaction, enrolment), `vouchers`, `products`, `locations`, `taxonomies` (of
//!   Products and Locations, with their features), `master_data` (the catalogue events read from
//!   memory, refreshed on change), `promotions` (legacy Promotions, compiled into discount
//!   campaigns), `messages` (campaigns' messages and their printing), `utilities`, `companies` (the
//!   back office's Companies and keys); beside them, what models share: `campaign_header` (a
//!   campaign's header and the body API campaigns are written in) and `optional_fields`.
//! - [`pipeline`]: the one event pipeline carts, simulations, Custom Events and triggers go
//!   through: facts, evaluation, the write, retries, the effects they answer with; the seam a
//!   campaign kind plugs its service part in by (`contribution.rs`, listed in `kinds.rs`).
//! - [`engine`]: the rules engine core: rhai expressions and their fast path, campaign files, the
//!   kinds registry (`kinds.rs`, where every campaign kind plugs in), typed effects, the
//!   interpreter, the catalog and its loaders (from `crates/rules`). Pure: no I/O but its file
//!   loader.
//! - [`storage`]: the storage core: opening a store (`open.rs`; an embedded one on a fresh
//!   write-ahead log, `fresh_log.rs`), SurrealDB connection (`connection.rs`) and whether a remote
//!   server answers (`health.rs`), transactions and retries, group commit in write lanes, the
//!   processes sharing a store (`instances.rs`) and the background jobs one of them runs for all
//!   (`duties.rs`), the paginated list query, schema assembly.
//! - [`http`]: the HTTP plumbing: the app and its resource groups (`ApiGroups`), admission, the
//!   store gate (503 at once while a remote store is unreachable), authentication and tiers, rate
//!   limits (shared among the processes of one store), idempotency, languages, error bodies, shared
//!   parameters, the spec, the back-office listener (its JSON API under `/api` and its page,
//!   `http/back_office/pages/`).
//! - [`telemetry`]: `GET /metrics` (`metrics.rs`) and every request's id, span and log line
//!   (`requests.rs`).
//! - [`common`]: small helpers: the injected clock, timestamps, time-ordered ids, pagination,
//!   validation, the random source.
//! - [`services`]: the `Services` handle every use-case hangs off (each resource adds its methods
//!   in its own `service.rs`).
//! - [`error`]: the one registry of error codes, one line each; [`crate::error::ApiError`].
//! - [`config`]: command-line flags and environment variables.
//! - [`secrets`]: generating, digesting and comparing credentials.
//! - [`server`]: starts both listeners and shuts them down gracefully.
//! - [`cli`]: what each command does (serve, back office, authoring).
//! - [`scenarios`]: given/when/then scenario files, run against the real service.
//! - [`bench`](mod@bench): `loyalty bench`, the load generator and report, one server or several
//!   nodes on a SurrealDB server (`bench/surreal.rs` starts the official server,
//!   `src/bin/surreal.rs`).
//! - [`torture`]: `loyalty torture`, SIGKILL cycles under a mixed write load, checked from the API
//!   after every restart.
//!
//! Where to look for each behaviour of the interface:
//! - Authentication, the three headers, tiers: `http/auth/`; rate limits: `http/rate_limits/`.
//! - Several servers on one SurrealDB server (docs/deploy.md): what they share is read through the
//!   store (`storage/instances.rs`, `storage/duties.rs`); a lost store: `storage/health.rs`,
//!   `http/store_gate.rs`; Idempotency-Keys a lost store left held: `http/idempotency/here.rs`.
//! - Idempotency-Key: `http/idempotency/`; `Accept-Language` and translations: `http/languages/`
//!   (the middleware), `common/language.rs` (the negotiation), `resources/companies/settings.rs`
//!   (the Company's settings, kept 30 s).
//! - Error body shapes and codes: `error` (the registry, from `crates/types`),
//!   `http/errors.rs` (bodies).
//! - Overload (`server_busy`) and request timeouts: `http/admission.rs`, `http/errors.rs`.
//! - Versioning (`Api-Version`): `http/auth/credentials.rs`.
//! - Customers, cards, search, anonymization: `resources/customers/` (and
//!   the Customers kept in memory with their facts: `resources/customers/cache.rs`); associations:
//!   `resources/associations/`; merges: `resources/merges/`.
//! - POST /carts/realtime and /carts/simulate: `resources/carts/` through `pipeline/`;
//!   cancellations: `resources/carts/service.rs`.
//! - Custom Events and triggers: `resources/events/` through `pipeline/`.
//! - Discounts: `resources/discounts/rules/`; points earned by campaigns:
//!   `resources/points_campaigns/rules.rs` and `resources/points/earned.rs`; budgets and caps
//!   (`limits:`) of both: `resources/limits/`.
//! - The Instant Win draw: `resources/instant_wins/rules/draws.rs` (pure),
//!   `resources/instant_wins/draws.rs` (random values, forced prizes, stock shards), made in the
//!   pipeline's evaluation step (`pipeline/evaluate.rs`); stock and limits:
//!   `resources/instant_wins/store/`; prize delivery: `resources/instant_wins/deliveries.rs`.
//! - Points, wallet, redemptions, transfers, expiry: `resources/points/`; cashback:
//!   `resources/cashback/`.
//! - Rewards (kind `reward`): `resources/rewards/`; games (kind `game`, POST /games/{id}/play as an
//!   occurrence of the pipeline): `resources/games/`.
//! - Challenges (kind `challenge`): `resources/challenges/`: the goal measured (`measure.rs`),
//!   progress moved and given back (`progress.rs`), evaluated (`evaluate.rs`), read and
//!   written compare-and-set with the event (`contribution.rs`, `store.rs`), merges
//!   (`merges.rs`).
//! - Tiers, audiences, calculated attributes: `resources/segments/`.
//! - Coupons (kind `coupon`, POST /coupons): `resources/coupons/`, stored with every API-created
//!   campaign by `resources/api_campaigns/`.
//! - Vouchers: `resources/vouchers/`: codes and their one normalisation (`codes.rs`), whether one
//!   can be used (`usable.rs`), issue and validation (`service.rs`, POST /discounts/trigger in
//!   `resources/discounts/api.rs`), redeem and rollback (`redemptions.rs`), the wallet
//!   (`selection.rs`), checkout holds (`freeze.rs`).
//! - Master data: Products `resources/products/`, Locations `resources/locations/`, taxonomies and
//!   features of both `resources/taxonomies/`; what an event sees of them (`line.has_feature`,
//!   `line.product`, `location`, a Location's time zone, `discountable: false`):
//!   `resources/master_data/` (`snapshot.rs` the in-memory catalogue, `refresh.rs` keeping it
//!   current, `enrich.rs` completing an event's facts).
//! - Legacy Promotions: `resources/promotions/` (`spec.rs` compiles one into a discount campaign).
//! - Messages (`messages:` on any campaign, kind `message`, POST /messages/print):
//!   `resources/messages/` (`rules.rs` which an event shows, `service.rs` the Customer's language
//!   and printing once).
//! - Companies and API keys (back office): `resources/companies/`; when keys were last used:
//!   `resources/companies/key_use.rs`; the back-office page: `http/back_office/pages/`.
//! - Webhooks (back office, `loyalty webhooks`): `resources/webhooks/` (`events.rs` the types
//!   subscribed to, `receiver.rs` which URLs may receive, `outbox.rs` the deliveries waiting,
//!   `deliver.rs` the worker trying them, each endpoint on its own, `history.rs` what operators
//!   see and send again, `signature.rs` `Loyalty-Signature`); their page:
//!   `http/back_office/pages/webhooks.rs`.
//! - "Why didn't my campaign fire?" (`explain=true`, `loyalty campaigns explain`):
//!   `engine/evaluate.rs`, the deciding parts of a condition in `engine/why/`, the offline command
//!   in `cli/explain.rs`; file errors with line: `engine/problems.rs`, `engine/yaml.rs` (every
//!   unknown key); mistakes caught at load (unknown fields, mismatched comparisons, impossible
//!   values): `engine/check/`; forced draws in scenarios: `resources/instant_wins/rules/forced.rs`.

// Module docs point at the crate-private items that do the work; read them
// with `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

pub mod bench;
pub mod cli;
pub mod common;
pub mod config;
pub use loyalty_rules::engine;
pub use loyalty_types::error;
pub mod http;
#[cfg(test)]
mod layer_rules;
pub mod pipeline;
pub mod resources;
pub mod scenarios;
pub mod secrets;
pub mod server;
pub mod services;
pub mod storage;
pub mod telemetry;
pub mod torture;
