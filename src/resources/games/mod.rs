//! Games: GET /games, GET /games/{id} (with a named Customer's
//! participations left) and POST /games/{id}/play. A game is a campaign of
//! kind `game` with Instant Win prizes; a play is an occurrence of the one
//! event pipeline ([`play`]), so its draw, stock, audit record and prize
//! delivery are the Instant Win's own, and it uses one participation in
//! the play's transaction.

pub mod api;
pub mod examples;
pub mod model;
pub mod play;
pub mod service;
