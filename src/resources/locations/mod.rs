//! Locations of the Company: POST /locations, GET, PATCH and DELETE
//! /locations/{value}. What campaigns see of a cart's Location (`location`,
//! its features and time zone) is the engine's catalogue
//! (`resources/master_data`).

pub mod api;
pub mod examples;
pub mod model;
pub mod service;
