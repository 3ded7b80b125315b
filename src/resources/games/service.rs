//! Games: the list and one game with a Customer's participations left, and
//! a play run through the event pipeline.

use std::collections::HashMap;

use crate::common::language::Language;
use crate::engine::campaign::Campaign;
use crate::engine::catalog::CompanyRules;
use crate::engine::effect::Effect;
use crate::engine::kinds::CampaignKind;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::pipeline::contributions::EvaluatedEvent;
use crate::pipeline::run::Mode;
use crate::resources::campaign_header::CampaignHeader;
use crate::resources::customers::service::CustomerRef;
use crate::resources::customers::service::Subject;
use crate::resources::games::model::FreePlays;
use crate::resources::games::model::Game;
use crate::resources::games::model::GamePlay;
use crate::resources::games::model::PlayPrize;
use crate::resources::games::play::Play;
use crate::resources::instant_wins::draw_record::InstantWinState;
use crate::resources::instant_wins::draws::state_query_at;
use crate::resources::instant_wins::rules::InstantWin;
use crate::resources::instant_wins::rules::draws::NO_PARTICIPATIONS;
use crate::resources::instant_wins::service::prize_views;
use crate::services::Services;

/// The games of `campaigns`, by id.
fn games_of(campaigns: &[Campaign]) -> Vec<(&Campaign, &InstantWin)> {
    campaigns
        .iter()
        .filter_map(|campaign| match &campaign.kind {
            CampaignKind::Game(game) => Some((campaign, game.as_ref())),
            _ => None,
        })
        .collect()
}

/// The game `id` of `campaigns`.
fn find_game(campaigns: &[Campaign], id: i64) -> ApiResult<(&Campaign, &InstantWin)> {
    games_of(campaigns)
        .into_iter()
        .find(|(campaign, _)| campaign.id == id)
        .ok_or_else(|| ApiError::new(ErrorCode::GameNotFound, format!("no game `{id}`")))
}

/// Plays a Customer in `state` has of `game`: free plays left in the
/// period, and participations given.
fn plays_left(game: &InstantWin, state: &InstantWinState) -> i64 {
    (game.once_limit - state.participations).max(0) + state.granted.max(0)
}

impl Services {
    /// The state of `games` for the Customer `customer_id`, now.
    async fn game_states(
        &self,
        company: &str,
        customer_id: &str,
        games: &[(&Campaign, &InstantWin)],
    ) -> ApiResult<HashMap<i64, InstantWinState>> {
        let locale = self.company_locale(company).await?;
        let wall_clock = locale.wall_clock(self.now().as_datetime());
        let queries: Vec<_> = games
            .iter()
            .map(|(campaign, game)| state_query_at(campaign, game, wall_clock))
            .collect();
        Ok(self
            .store
            .instant_win_states(company, customer_id, &queries)
            .await?
            .states)
    }

    async fn game_views(
        &self,
        company: &str,
        games: &[(&Campaign, &InstantWin)],
        customer: Option<CustomerRef<'_>>,
        language: &Language,
    ) -> ApiResult<Vec<Game>> {
        let ids: Vec<i64> = games.iter().map(|(campaign, _)| campaign.id).collect();
        let given = self.store.prizes_given(company, &ids).await?;
        let standing = match customer {
            Some(reference) => {
                let customer = self.active_customer_by(company, reference).await?;
                let states = self.game_states(company, &customer.id, games).await?;
                Some((customer.id, states))
            }
            None => None,
        };
        let render =
            |text: &crate::engine::text::Text| text.resolve(&language.chosen, &language.default);
        Ok(games
            .iter()
            .map(|&(campaign, game)| {
                let state = standing
                    .as_ref()
                    .map(|(_, states)| states.get(&campaign.id).cloned().unwrap_or_default());
                Game {
                    header: CampaignHeader::of(campaign, language, &language.locale),
                    free_plays: (game.once_limit > 0).then(|| FreePlays {
                        count: game.once_limit,
                        per: game.once.name().to_string(),
                    }),
                    prizes: prize_views(campaign.id, game, &given, &render),
                    customer_id: standing.as_ref().map(|(id, _)| id.clone()),
                    participations_left: state.as_ref().map(|state| plays_left(game, state)),
                    available_participations: state.as_ref().map(|state| state.granted),
                }
            })
            .collect())
    }

    /// GET /games: every game by id; with a Customer, the plays they have.
    pub async fn games(
        &self,
        company: &str,
        customer: Option<CustomerRef<'_>>,
        language: &Language,
    ) -> ApiResult<Vec<Game>> {
        let rules = self.catalog.company(company);
        let games = games_of(&rules.campaigns);
        self.game_views(company, &games, customer, language).await
    }

    /// GET /games/{id}.
    pub async fn game(
        &self,
        company: &str,
        id: i64,
        customer: Option<CustomerRef<'_>>,
        language: &Language,
    ) -> ApiResult<Game> {
        let rules = self.catalog.company(company);
        let found = find_game(&rules.campaigns, id)?;
        self.game_views(company, &[found], customer, language)
            .await?
            .pop()
            .ok_or_else(|| ApiError::internal("a game's view was not made"))
    }

    /// POST /games/{id}/play: one play, using a free play of the period or
    /// else a participation given, and its draw, in one transaction;
    /// `game_no_participations` when the Customer has none left.
    pub async fn play_game(
        &self,
        company: &str,
        id: i64,
        customer: CustomerRef<'_>,
        language: &Language,
    ) -> ApiResult<GamePlay> {
        let rules = self.catalog.company(company);
        let (_, game) = find_game(&rules.campaigns, id)?;
        let customer = self.active_customer_by(company, customer).await?;
        if game.prizes.is_empty() {
            return Err(ApiError::new(
                ErrorCode::GameNotAvailable,
                format!("game {id} has no prizes yet: its file names none"),
            ));
        }
        let mut play = Play {
            game_id: id,
            date: self.now(),
            rules: rules.clone(),
            customer_id: customer.id.clone(),
            language: language.clone(),
        };
        let evaluated = self
            .run_pipeline(
                company,
                Subject::Read(&customer),
                &mut play,
                language,
                Mode::Record,
                false,
            )
            .await?;
        let played = game_play(&rules, id, &customer.id, &evaluated, language)?;
        tracing::info!(company, customer = %customer.id, game = id,
            won = played.prize.as_ref().map(|p| p.id.as_str()), "game played");
        Ok(played)
    }
}

/// The answer to a play of game `id` by `customer_id` from what the
/// pipeline made of it: the prize drawn and the plays left after it; the
/// reason it could not be played otherwise. Made before the play's write,
/// so a keyed play's answer is written with it.
pub(crate) fn game_play(
    rules: &CompanyRules,
    id: i64,
    customer_id: &str,
    evaluated: &EvaluatedEvent,
    language: &Language,
) -> ApiResult<GamePlay> {
    let (_, game) = find_game(&rules.campaigns, id)?;
    let drawn = evaluated.effects.iter().find_map(|effect| match effect {
        Effect::InstantWin(draw) if draw.rule_id == id => Some(&draw.draw),
        _ => None,
    });
    let Some(drawn) = drawn else {
        let reason = evaluated
            .explanations
            .iter()
            .find(|explanation| explanation.rule_id == id)
            .and_then(|explanation| explanation.reason.clone())
            .unwrap_or_else(|| "it did not take part".into());
        let code = if reason.starts_with(NO_PARTICIPATIONS) {
            ErrorCode::GameNoParticipations
        } else {
            ErrorCode::GameNotAvailable
        };
        return Err(ApiError::new(
            code,
            format!("game {id} cannot be played: {reason}"),
        ));
    };
    let render =
        |text: &crate::engine::text::Text| text.resolve(&language.chosen, &language.default);
    let prize = drawn
        .prize_name
        .as_ref()
        .and_then(|_| usize::try_from(drawn.winned_prize_index).ok())
        .and_then(|index| game.prizes.get(index))
        .map(|prize| PlayPrize {
            id: prize.id.clone(),
            name: render(&prize.name),
            description: prize.description.as_ref().map(render),
            promotion_type: prize.promotion_type.name().to_string(),
            promotion_id: prize.promotion_id,
        });
    // The play used one of the plays the draw was decided on; the write
    // refuses the play when they changed meanwhile.
    let before = evaluated.draw_states.get(&id).cloned().unwrap_or_default();
    Ok(GamePlay {
        game_id: id,
        customer_id: customer_id.to_string(),
        prize,
        winned_prize_index: drawn.winned_prize_index,
        participations_left: (plays_left(game, &before) - 1).max(0),
    })
}
