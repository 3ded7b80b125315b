//! `loyalty`: a self-hostable Customer Loyalty and Data Collection service.
//!
//! Module map:
//! - [`config`]: command-line flags and environment variables.
//! - [`error`]: the one registry of error codes and HTTP statuses; [`crate::error::ApiError`].
//! - [`model`]: domain records (Company, API key, Customer, association, merge, cart, event, points, Voucher, Instant Win) and their validation.
//! - [`secrets`]: generating, digesting and comparing credentials.
//! - [`rules`]: the pure rules engine: rhai expressions, campaigns, Instant Win draws and their fairness, cashback, segments, the interpreter, the per-Company catalog.
//! - [`store`]: SurrealDB connection, schema and every query; carts and Custom Events recorded by group commit in write lanes, the points ledger a write at a time, and the units given of limited prizes kept in view between draws.
//! - [`service`]: use-cases (authentication, rate limits, idempotency, keys, Companies, Customers, merges, segments, carts, events, draws and prize delivery, points and expiry, cashback).
//! - [`api`]: the integrator HTTP API on poem-openapi: one file per resource group, and the layers every request goes through (admission, auth, rate limits, idempotency, languages, error bodies), and the OpenAPI spec.
//! - [`admin`]: the back-office listener and the client the operator CLI uses.
//! - [`server`]: starts both listeners and shuts them down gracefully.
//! - [`cli`]: what each command-line command does.
//! - [`scenarios`]: given/when/then scenario files, run against the real service.
//! - [`bench`]: `loyalty bench`, the load generator and report measuring the service against the machine's ceilings.

pub mod bench;
pub mod cli;
pub mod common;
pub mod config;
pub mod engine;
pub mod error;
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
