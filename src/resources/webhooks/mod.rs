//! Webhooks: endpoints of a Company's other systems (a CRM, a marketing
//! tool, a warehouse) that are told of its changes. Operators manage them
//! through the back office (`/api/companies/{slug}/webhooks`, [`api`]) and
//! `loyalty webhooks` ([`service`], [`store`]); what they may subscribe to
//! is [`events`]; where they may point, [`receiver`].

pub mod api;
pub mod events;
pub mod model;
pub mod receiver;
pub mod service;
pub mod store;

pub use receiver::WebhookSettings;
