//! Associations: typed links between two Customers (POST, PATCH, DELETE
//! /associations; GET /customers/{id}/associates).

pub mod api;
pub mod model;
pub mod service;
pub mod store;
