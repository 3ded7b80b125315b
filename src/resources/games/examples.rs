//! Example requests and answers of the game operations, published in the
//! spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;
use crate::resources::games::api::{GameList, PlayRequest};
use crate::resources::games::model::{Game, GamePlay};

/// A game as listed for a named Customer.
macro_rules! game {
    () => {
        r#"{"id": 501, "name": "Wheel of fortune", "description": "Spin to win coffee or points",
            "active": true, "free_plays": {"count": 1, "per": "week"},
            "prizes": {"instant_win_prizes": [
                {"id": "coffee", "name": "Free coffee", "outcome": {"promotion_type": "reward", "promotion_id": 401},
                 "weight": 0.1, "stock": 37, "stock_management_strategy": "remove_prize"},
                {"id": "points", "name": "50 points", "outcome": {"promotion_type": "points", "promotion_id": 204},
                 "weight": 0.3, "stock": -1, "stock_management_strategy": "remove_prize"},
                {"id": "none", "name": "Better luck next time", "outcome": {"promotion_type": ""},
                 "weight": 0.6, "stock": -1, "stock_management_strategy": "remove_prize"}]},
            "customer_id": "cus_0190aa00000000aa00000001", "participations_left": 3,
            "available_participations": 2}"#
    };
}

/// The game operations' examples.
pub const EXAMPLES: &[OperationExample] = &[
    OperationExample::new("GET /games").answers::<GameList>(concat!(
        r#"{"games": ["#,
        game!(),
        "]}"
    )),
    OperationExample::new("GET /games/{id}").answers::<Game>(game!()),
    OperationExample::new("POST /games/{id}/play")
        .takes::<PlayRequest>(r#"{"customer_code": "EXT-1"}"#)
        .answers::<GamePlay>(
            r#"{"game_id": 501, "customer_id": "cus_0190aa00000000aa00000001",
                "prize": {"id": "points", "name": "50 points", "promotion_type": "points",
                          "promotion_id": 204},
                "winned_prize_index": 1, "participations_left": 2}"#,
        ),
];
