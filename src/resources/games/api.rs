//! Games: GET /games, GET /games/{id}, POST /games/{id}/play.

use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::error::ErrorCode;
use crate::http::auth::Tier1;
use crate::http::auth::Tier2;
use crate::http::errors::ErrorResponse;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::customers::service::CustomerRef;
use crate::resources::games::model::Game;
use crate::resources::games::model::GamePlay;

#[derive(Tags)]
enum GamesTags {
    /// Games played with participations, drawn like Instant Wins.
    Games,
}

/// Game campaigns.
#[derive(Debug, Object)]
pub struct GameList {
    /// By ascending id.
    pub games: Vec<Game>,
}

/// Who plays.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct PlayRequest {
    /// The Customer, by id (or `customer_code`).
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: Option<String>,
    /// The Customer, by code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_code: Option<String>,
}

/// Games endpoints.
#[derive(Default)]
pub struct GamesApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for GamesApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "GET /games",
            codes: &[ErrorCode::CustomerNotFound, ErrorCode::CustomerInactive],
        },
        OperationErrors {
            operation: "GET /games/{id}",
            codes: &[
                ErrorCode::GameNotFound,
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
            ],
        },
        OperationErrors {
            operation: "POST /games/{id}/play",
            codes: &[
                ErrorCode::GameNotFound,
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::GameNoParticipations,
                ErrorCode::GameNotAvailable,
                ErrorCode::DrawContended,
            ],
        },
    ];
}

#[OpenApi(tag = "GamesTags::Games")]
impl GamesApi {
    /// List game campaigns.
    ///
    /// Every game with its prizes (stock left included) and free plays; with
    /// `customer_id` or `customer_code`, the plays that Customer has now
    /// (`participations_left`) and the participations given to them
    /// (`available_participations`). A Customer who is inactive (merged,
    /// anonymized or deactivated) answers 422 `customer_inactive`.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/games", method = "get")]
    async fn games(
        &self,
        caller: Tier2<'_>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_id: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_code: Query<Option<String>>,
    ) -> Result<Json<GameList>, ErrorResponse> {
        let customer = CustomerRef::optional(&customer_id.0, &customer_code.0);
        let games = caller
            .services
            .games(&caller.company, customer, caller.language()?)
            .await?;
        Ok(Json(GameList { games }))
    }

    /// Get a game campaign by ID.
    ///
    /// As in the list; a Customer with no play left answers 200 with
    /// `participations_left: 0`.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/games/:id", method = "get")]
    async fn game(
        &self,
        caller: Tier2<'_>,
        /// The game's id.
        id: Path<i64>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_id: Query<Option<String>>,
        #[oai(validator(min_length = 1, max_length = 128))] customer_code: Query<Option<String>>,
    ) -> Result<Json<Game>, ErrorResponse> {
        let customer = CustomerRef::optional(&customer_id.0, &customer_code.0);
        let game = caller
            .services
            .game(&caller.company, id.0, customer, caller.language()?)
            .await?;
        Ok(Json(game))
    }

    /// Play a game.
    ///
    /// Uses one of the Customer's plays (a free play of the period first,
    /// then a participation given) and draws a prize by weight, in one
    /// transaction: the answer has the `prize` (null for No Prize) and the
    /// plays left. Points are in the balance when it answers; a Reward or a
    /// game participation is delivered right after. Concurrent plays never
    /// use more participations than there are. 422 `game_no_participations`
    /// when none is left.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/games/:id/play", method = "post")]
    async fn play(
        &self,
        caller: Tier1<'_>,
        /// The game's id.
        id: Path<i64>,
        body: Json<PlayRequest>,
    ) -> Result<Json<GamePlay>, ErrorResponse> {
        let customer =
            CustomerRef::required(&body.0.customer_id, &body.0.customer_code, "customer")?;
        caller.answers_with_some(Option::<GamePlay>::clone);
        let play = caller
            .services
            .play_game(&caller.company, id.0, customer, caller.language()?)
            .await?;
        Ok(Json(play))
    }
}
