//! What a Customer holds besides points (see [`crate::resources::points::api`]):
//! GET /games (with a Customer, their available participations). Game
//! participations won as Instant Win prizes appear here.

use crate::error::ErrorCode;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::customers::service::CustomerRef;
use poem_openapi::param::Query;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::http::auth::Tier2;
use crate::http::errors::ErrorResponse;
use crate::http::languages::language;
use crate::http::services;

#[derive(Tags)]
enum WalletTags {
    /// Points, Rewards and game participations a Customer holds.
    Wallet,
}

/// A game campaign.
#[derive(Debug, Object)]
pub struct Game {
    /// The game rule's id.
    pub id: i64,
    /// Name in the response language.
    pub name: String,
    /// Description in the response language.
    #[oai(skip_serializing_if_is_none)]
    pub description: Option<String>,
    /// With a Customer: the participations they have available.
    #[oai(skip_serializing_if_is_none)]
    pub available_participations: Option<i64>,
}

/// Game campaigns.
#[derive(Debug, Object)]
pub struct GameList {
    /// By ascending id.
    pub games: Vec<Game>,
}

/// Wallet endpoints.
#[derive(Default)]
pub struct WalletApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for WalletApi {
    const ERRORS: &'static [OperationErrors] = &[OperationErrors {
        operation: "GET /games",
        codes: &[ErrorCode::CustomerNotFound],
    }];
}

#[OpenApi(tag = "WalletTags::Wallet")]
impl WalletApi {
    /// List game campaigns; with `customer_id` or `customer_code`, each with
    /// the participations the Customer has available.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/games", method = "get")]
    async fn games(
        &self,
        caller: Tier2,
        request: &poem::Request,
        #[oai(validator(min_length = 1, max_length = 128))] customer_id: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_code: Query<Option<String>>,
    ) -> Result<Json<GameList>, ErrorResponse> {
        let customer = CustomerRef::optional(&customer_id.0, &customer_code.0);
        let games = services(request)?
            .games(&caller.0.company, customer, language(request)?)
            .await?;
        Ok(Json(GameList {
            games: games
                .into_iter()
                .map(|game| Game {
                    id: game.id,
                    name: game.name,
                    description: game.description,
                    available_participations: game.available_participations,
                })
                .collect(),
        }))
    }
}
