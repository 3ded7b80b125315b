//! Games as the API answers them, and what a play answers.

use poem_openapi::Object;

use crate::resources::campaign_header::CampaignHeader;
use crate::resources::instant_wins::model::InstantWinPrizes;

/// Free plays of a game per period.
#[derive(Debug, Clone, PartialEq, Eq, Object)]
pub struct FreePlays {
    /// Plays per period without a participation given.
    pub count: i64,
    /// `day`, `week`, `month`, `year` (on the Company's clocks) or `campaign`.
    pub per: String,
}

/// A game.
#[derive(Debug, Clone, PartialEq, Object)]
pub struct Game {
    /// Its id, name, description, whether it is active and its dates.
    #[oai(flatten)]
    pub header: CampaignHeader,
    /// Plays every Customer has per period without a participation given;
    /// absent when every play needs one.
    #[oai(skip_serializing_if_is_none)]
    pub free_plays: Option<FreePlays>,
    /// The prizes, drawn by weight as an Instant Win's, stock left included.
    pub prizes: InstantWinPrizes,
    /// With a Customer: who.
    #[oai(skip_serializing_if_is_none)]
    pub customer_id: Option<String>,
    /// With a Customer: plays they have now (free plays left in the period
    /// plus participations given).
    #[oai(skip_serializing_if_is_none)]
    pub participations_left: Option<i64>,
    /// With a Customer: participations given (by Instant Win prizes,
    /// Rewards, Challenges) not played yet.
    #[oai(skip_serializing_if_is_none)]
    pub available_participations: Option<i64>,
}

/// A prize won in a play.
#[derive(Debug, Clone, PartialEq, Object)]
pub struct PlayPrize {
    /// The prize's id within the game.
    pub id: String,
    /// Name in the response language.
    pub name: String,
    /// Description in the response language.
    #[oai(skip_serializing_if_is_none)]
    pub description: Option<String>,
    /// `points`, `reward` or `game`.
    pub promotion_type: String,
    /// The points campaign, Reward or game given.
    #[oai(skip_serializing_if_is_none)]
    pub promotion_id: Option<i64>,
}

/// What a play did.
#[derive(Debug, Clone, PartialEq, Object)]
pub struct GamePlay {
    /// The game.
    pub game_id: i64,
    /// The Customer who played.
    pub customer_id: String,
    /// The prize won; null for No Prize. Points are in the balance already;
    /// a Reward or a game participation is delivered right after.
    pub prize: Option<PlayPrize>,
    /// Index of the drawn entry among the prizes (-1: none).
    pub winned_prize_index: i64,
    /// Plays left after this one.
    pub participations_left: i64,
}
