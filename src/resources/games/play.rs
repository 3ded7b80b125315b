//! A play of a game as an occurrence of the one event pipeline: only the
//! game listens to it, its draw is the game's, and it is written with the
//! draw (one participation used, the stock taken, the audit record and the
//! prize's delivery) in one transaction.

use std::sync::Arc;

use serde_json::Value;

use crate::common::language::Language;
use crate::common::time::Timestamp;
use crate::engine::campaign::Listens;
use crate::engine::catalog::CompanyRules;
use crate::engine::evaluate::Evaluation;
use crate::engine::facts::Facts;
use crate::pipeline::contributions::EvaluatedEvent;
use crate::pipeline::occurrence::Occurrence;
use crate::resources::games::model::GamePlay;
use crate::resources::games::service::game_play;

/// One play of game `game_id`.
pub(crate) struct Play {
    /// The game.
    pub game_id: i64,
    /// When it was asked for.
    pub date: Timestamp,
    /// The Company's campaigns it is played under.
    pub rules: Arc<CompanyRules>,
    /// Who plays.
    pub customer_id: String,
    /// The language its answer is in.
    pub language: Language,
}

impl Occurrence for Play {
    fn listens(&self) -> Listens {
        Listens::Play(self.game_id)
    }

    fn belongs_to(&mut self, customer_id: &str) {
        customer_id.clone_into(&mut self.customer_id);
    }

    fn date(&self) -> Timestamp {
        self.date
    }

    fn describe(&mut self, facts: &mut Facts) {
        facts.event = serde_json::json!({
            "type": "game_play",
            "data": {"game_id": self.game_id},
            "date": self.date,
        });
    }

    fn points_reason(&self) -> String {
        format!("game:{}", self.game_id)
    }

    fn draw_source(&self) -> String {
        format!("game:{}", self.game_id)
    }

    fn settle(&mut self, _evaluation: &Evaluation, _points_earned: i64, _at: Timestamp) {}

    /// The play's answer; none when it drew nothing (then nothing is written).
    type Answer = Option<GamePlay>;

    fn answer(&self, evaluated: EvaluatedEvent) -> Option<GamePlay> {
        game_play(
            &self.rules,
            self.game_id,
            &self.customer_id,
            &evaluated,
            &self.language,
        )
        .ok()
    }

    /// A play that drew nothing (no participation left) writes nothing.
    fn always_written(&self) -> bool {
        false
    }

    fn webhook_event(&self, evaluated: &EvaluatedEvent) -> Option<(&'static str, Value)> {
        let play = game_play(
            &self.rules,
            self.game_id,
            &self.customer_id,
            evaluated,
            &self.language,
        )
        .ok()?;
        Some(("game.played", poem_openapi::types::ToJSON::to_json(&play)?))
    }
}
