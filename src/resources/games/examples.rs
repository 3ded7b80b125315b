//! Example requests and answers of the game operations, published in the
//! spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;

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
    OperationExample {
        operation: "GET /games",
        request: None,
        response: Some(concat!(r#"{"games": ["#, game!(), "]}")),
    },
    OperationExample {
        operation: "GET /games/{id}",
        request: None,
        response: Some(game!()),
    },
    OperationExample {
        operation: "POST /games/{id}/play",
        request: Some(r#"{"customer_code": "EXT-1"}"#),
        response: Some(
            r#"{"game_id": 501, "customer_id": "cus_0190aa00000000aa00000001",
                "prize": {"id": "points", "name": "50 points", "promotion_type": "points",
                          "promotion_id": 204},
                "winned_prize_index": 1, "participations_left": 2}"#,
        ),
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::spec::examples::parses;
    use crate::resources::games::api::{GameList, PlayRequest};
    use crate::resources::games::model::{Game, GamePlay};

    #[test]
    fn every_example_is_what_the_operation_accepts_and_answers() {
        for example in EXAMPLES {
            let (operation, request, response) =
                (example.operation, example.request, example.response);
            match operation {
                "GET /games" => parses::<GameList>(operation, response),
                "GET /games/{id}" => parses::<Game>(operation, response),
                "POST /games/{id}/play" => {
                    parses::<PlayRequest>(operation, request);
                    parses::<GamePlay>(operation, response);
                }
                other => panic!("no check for {other}"),
            }
        }
    }
}
