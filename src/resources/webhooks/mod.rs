//! Webhooks: endpoints of a Company's other systems (a CRM, a marketing
//! tool, a warehouse) that are told of its changes. Operators manage them
//! through the back office (`/api/companies/{slug}/webhooks`, [`api`]) and
//! `loyalty webhooks` ([`service`], [`store`]); what they may subscribe to
//! is [`events`]; where they may point, [`receiver`]. Events go out in
//! groups ([`groups`]), one write's for one Customer; each group's delivery
//! to each endpoint waits in the outbox ([`outbox`]) until the delivery
//! worker ([`deliver`]) has POSTed it ([`tries`]), signed ([`signature`]); what
//! operators see of them, settled or not, is [`history`].

pub mod api;
pub mod clients;
pub mod deliver;
pub mod emit;
pub mod events;
pub mod groups;
pub mod history;
pub mod model;
pub mod outbox;
pub mod receiver;
mod round_write;
pub mod rounds;
pub mod service;
pub mod signature;
pub mod store;
mod tries;

use std::sync::Arc;

pub use receiver::WebhookSettings;

/// What the service keeps for webhooks: how receivers are treated and the
/// clients deliveries go out with. The enabled endpoints' subscriptions,
/// which every write reads to know whom its events go to, and the
/// endpoints told of new events ([`emit`]), are the store's
/// ([`crate::storage::memory::Memory`]).
#[derive(Debug, Clone, Default)]
pub struct Webhooks {
    /// How receivers are treated.
    pub(crate) settings: WebhookSettings,
    /// The clients deliveries go out with, by receiver.
    pub(crate) clients: Arc<clients::ReceiverClients>,
}
