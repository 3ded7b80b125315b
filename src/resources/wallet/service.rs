//! What a Customer holds besides points: game participations (where
//! delivered Instant Win prizes appear).

use crate::engine::kinds::CampaignKind;
use crate::error::ApiResult;
use crate::http::languages::negotiate::Language;
use crate::resources::customers::service::CustomerRef;
use crate::services::Services;

/// A game of the Company, with the participations a Customer has in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameStanding {
    /// The game's rule id.
    pub id: i64,
    /// Name in the response language.
    pub name: String,
    /// Description in the response language.
    pub description: Option<String>,
    /// Participations the Customer has available (with a Customer only).
    pub available_participations: Option<i64>,
}

impl Services {
    /// The games of the Company; with a Customer, their available participations.
    pub async fn games(
        &self,
        company: &str,
        customer: Option<CustomerRef<'_>>,
        language: &Language,
    ) -> ApiResult<Vec<GameStanding>> {
        let held = match customer {
            Some(reference) => {
                let customer = self.find_customer(company, reference).await?.customer;
                Some(
                    self.store
                        .game_participations(company, &customer.id)
                        .await?,
                )
            }
            None => None,
        };
        let rules = self.catalog.company(company);
        let render =
            |text: &crate::engine::text::Text| text.resolve(&language.chosen, &language.default);
        Ok(rules
            .campaigns
            .iter()
            .filter(|c| matches!(c.kind, CampaignKind::Game))
            .map(|game| GameStanding {
                id: game.id,
                name: render(&game.name),
                description: game.description.as_ref().map(render),
                available_participations: held.as_ref().map(|held| {
                    held.iter()
                        .find(|(id, _)| *id == game.id)
                        .map_or(0, |(_, available)| *available)
                }),
            })
            .collect())
    }
}
