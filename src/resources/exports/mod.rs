//! Exports: what a Company collected, for its warehouse, its CRM or a
//! data-subject request. [`model`] names what can be exported and reads the
//! period on the Company's clocks; [`stream`] hands a body to the client a
//! chunk at a time while the pages are read; [`service`] reads each kind of
//! record a page at a time; [`api`] serves the back office's
//! `GET /api/companies/{slug}/export` (called by `loyalty export`);
//! [`subject`] gathers everything held about one Customer
//! (`GET /customers/{value}/export`).

pub mod api;
pub mod model;
pub mod service;
pub mod stream;
pub mod subject;
