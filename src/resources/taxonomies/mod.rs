//! Taxonomies and their features, of Products and of Locations: POST /taxonomies,
//! PATCH and DELETE /taxonomies/{slug}, POST /taxonomies/{taxonomy_slug}/features,
//! PATCH and DELETE /taxonomies/{taxonomy_slug}/features/{id}, the same under
//! /locations/taxonomies, and GET on each to read them back.

pub mod api;
pub mod examples;
pub mod model;
pub mod service;
pub mod store;
