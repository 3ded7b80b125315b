//! Segments: calculated attributes, tiers and audiences defined in each
//! Company's `segments.yaml`, read by GET /customers/{id}/attributes, /tiers,
//! /audiences and /audience_validation.

pub mod api;
pub use loyalty_rules::resources::segments::rules;
pub mod service;
