//! Reading what an event's Instant Win draws need: the Customer's
//! participations, the units given of limited prizes (from the stock view
//! while it has them all fresh, [`crate::resources::instant_wins::store::stock_view`]) and the Customer's
//! Vouchers of targeted campaigns.
//!
//! A read is planned first ([`StateRead`]) and its statements can run on
//! their own ([`Store::instant_win_states`]) or after other statements of the
//! same round trip ([`Store::read_facts`]): a cart's facts and
//! its draw state cost one query.

use std::collections::HashMap;
use std::time::Instant;

use crate::storage::connection::StoreQuery;
use serde_json::Value;
use surrealdb::IndexedResults;

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::challenges::progress::ChallengeRecord;
use crate::resources::challenges::store::records_from;
use crate::resources::instant_wins::draw_record::InstantWinState;
use crate::resources::instant_wins::store::of_rules;
use crate::resources::instant_wins::store::participations::ParticipationCounts;
use crate::resources::instant_wins::store::stock::PrizeCounters;
use crate::resources::instant_wins::store::stock_view::PrizeKey;
use crate::resources::instant_wins::store::stock_view::ReadStart;
use crate::resources::vouchers::store::voucher_from;
use crate::storage::Store;
use crate::storage::store_error;

/// One Instant Win whose state an event needs.
#[derive(Debug, Clone)]
pub struct StateQuery {
    /// Rule id.
    pub rule_id: i64,
    /// Key of the current participation period.
    pub period: String,
    /// The prize ids, in order.
    pub prize_ids: Vec<String>,
    /// Whether a prize has a limited stock, whose units given are read.
    pub limited: bool,
    /// Whether it is targeted, so the Customer's Voucher is read.
    pub targeted: bool,
    /// Whether it is a game, so the Customer's participations given are read.
    pub game: bool,
    /// Whether it is a Challenge, so the Customer's Challenge records are
    /// read (and no Instant Win state).
    pub challenge: bool,
}

/// What the draws of one event need from the store.
#[derive(Debug, Clone, Default)]
pub struct DrawState {
    /// Per Instant Win rule id.
    pub states: HashMap<i64, InstantWinState>,
    /// Stock counters per (rule id, prize id).
    pub counters: HashMap<(i64, String), PrizeCounters>,
    /// The Customer's participation counts, as read.
    pub participations: ParticipationCounts,
    /// The Customer's Challenge records, by Challenge id.
    pub challenges: HashMap<i64, ChallengeRecord>,
}

/// The records of one Customer its draw state is made of, as read: kept with
/// the Customer in memory ([`crate::resources::customers::cache`]) so that
/// its next event reads only the units given of limited prizes, if the
/// stock view has them not.
#[derive(Debug, Clone, Default)]
pub struct CustomerDraws {
    /// Its participation counts per rule and period (its state's `rules`,
    /// [`crate::resources::customers::state`]).
    pub counts: Option<Value>,
    /// Its game participations given, when they were read.
    pub games: Option<Vec<Value>>,
    /// Its Challenge records, when they were read.
    pub challenges: Option<Vec<Value>>,
    /// Its Vouchers of the targeted rules listed, when they were read.
    pub vouchers: Option<(Vec<i64>, Vec<Value>)>,
}

impl CustomerDraws {
    /// Whether these hold every record of the Customer `read` needs.
    fn cover(&self, read: &StateRead<'_>) -> bool {
        (!read.games || self.games.is_some())
            && (!read.challenges || self.challenges.is_some())
            && (read.targeted.is_empty()
                || self
                    .vouchers
                    .as_ref()
                    .is_some_and(|(rules, _)| read.targeted.iter().all(|r| rules.contains(r))))
    }

    /// These, completed with what `before` (as fresh) holds and these not.
    pub fn over(self, before: &CustomerDraws) -> CustomerDraws {
        CustomerDraws {
            counts: self.counts,
            games: self.games.or_else(|| before.games.clone()),
            challenges: self.challenges.or_else(|| before.challenges.clone()),
            vouchers: self.vouchers.or_else(|| before.vouchers.clone()),
        }
    }
}

/// The result of statement `index` of `response`.
fn statement_result<T>(response: &mut Option<&mut IndexedResults>, index: usize) -> ApiResult<T>
where
    T: surrealdb::types::SurrealValue,
    usize: surrealdb::opt::QueryResult<T>,
{
    match response {
        Some(response) => response.take(index).map_err(store_error),
        None => Err(ApiError::internal(
            "a draw state read without its statements",
        )),
    }
}

/// A planned read of the draw state of `queries`: the statements to run and
/// how to turn their results into a [`DrawState`]. Units given and Vouchers
/// are read only for the rules that have them, so a cart meeting untargeted
/// unlimited Instant Wins costs one point read.
pub(crate) struct StateRead<'a> {
    company: &'a str,
    queries: &'a [StateQuery],
    /// Every prize of the rules with a limited stock.
    limited_prizes: Vec<PrizeKey>,
    /// Their units given, when the stock view had them all fresh.
    viewed: Option<HashMap<PrizeKey, PrizeCounters>>,
    /// Otherwise: what the view had added when the read started, and the
    /// rules whose units are read.
    read_start: Option<ReadStart>,
    read_at: Instant,
    limited: Vec<i64>,
    targeted: Vec<i64>,
    /// Whether a game's participations given are read.
    games: bool,
    /// Whether the Customer's Challenge records are read.
    challenges: bool,
    /// The Customer's records, when they are known already: then only the
    /// units given are read.
    known: Option<CustomerDraws>,
}

impl<'a> StateRead<'a> {
    /// Whether it knows the Customer's records already.
    pub(crate) fn knows_the_customer(&self) -> bool {
        self.known.is_some()
    }

    /// This read, knowing the Customer's records `draws` when they hold
    /// all it needs.
    pub(crate) fn knowing(mut self, draws: Option<CustomerDraws>) -> Self {
        self.known = draws.filter(|draws| draws.cover(&self));
        self
    }
    /// The statements to run, in order; they read `$company`, `$customer`
    /// and what [`StateRead::bind`] binds.
    pub(crate) fn statements(&self) -> String {
        let mut statements = String::new();
        if !self.limited.is_empty() {
            statements.push_str(&format!(
                "SELECT rule_id, prize_id, shard, given FROM iw_given WHERE {};",
                of_rules("limited", self.limited.len())
            ));
        }
        if self.known.is_some() {
            return statements;
        }
        statements.push_str("type::record('customer_state', [$company, $customer]).rules;");
        if !self.targeted.is_empty() {
            statements.push_str(
                "SELECT * OMIT id FROM voucher WHERE company = $company AND customer_id = $customer AND rule_id IN $targeted;",
            );
        }
        if self.games {
            statements.push_str(
                "SELECT game_id, available FROM game_participation WHERE company = $company AND customer_id = $customer;",
            );
        }
        if self.challenges {
            statements.push_str(
                "SELECT * OMIT id, company FROM challenge_progress WHERE company = $company AND customer_id = $customer;",
            );
        }
        statements
    }

    /// `query` with the parameters of the statements bound.
    pub(crate) fn bind<'q>(&self, query: StoreQuery<'q>) -> StoreQuery<'q> {
        query
            .bind(("limited", self.limited.clone()))
            .bind(("targeted", self.targeted.clone()))
    }

    /// The state, and the Customer's records it was made of (to keep), from
    /// `response` whose statement `first` is the first of
    /// [`StateRead::statements`] (none when there are no statements).
    pub(crate) fn read_with_records(
        mut self,
        store: &Store,
        mut response: Option<&mut IndexedResults>,
        first: usize,
    ) -> ApiResult<(DrawState, CustomerDraws)> {
        let given: Vec<Value> = if self.limited.is_empty() {
            Vec::new()
        } else {
            statement_result(&mut response, first)?
        };
        let records = match self.known.take() {
            Some(known) => known,
            None => {
                // The statements after the units given: counts, then rows.
                let counts_at = first + usize::from(!self.limited.is_empty());
                let counts = statement_result::<Option<Value>>(&mut response, counts_at)?;
                let mut next = counts_at + 1;
                let mut take_rows = |response: &mut Option<&mut IndexedResults>| {
                    next += 1;
                    statement_result::<Vec<Value>>(response, next - 1)
                };
                let vouchers = if self.targeted.is_empty() {
                    None
                } else {
                    Some((self.targeted.clone(), take_rows(&mut response)?))
                };
                let games = if self.games {
                    Some(take_rows(&mut response)?)
                } else {
                    None
                };
                let challenges = if self.challenges {
                    Some(take_rows(&mut response)?)
                } else {
                    None
                };
                CustomerDraws {
                    counts,
                    games,
                    challenges,
                    vouchers,
                }
            }
        };
        let state = self.assemble(store, given, &records)?;
        Ok((state, records))
    }

    /// The state, from the units given read (`given`) and the Customer's
    /// `records`.
    fn assemble(
        self,
        store: &Store,
        given: Vec<Value>,
        records: &CustomerDraws,
    ) -> ApiResult<DrawState> {
        let participations = ParticipationCounts::from_stored(records.counts.as_ref());
        let no_rows = Vec::new();
        let granted = records.games.as_ref().unwrap_or(&no_rows);
        let vouchers: Vec<&Value> = match &records.vouchers {
            Some((_, documents)) => documents
                .iter()
                .filter(|row| {
                    row["rule_id"]
                        .as_i64()
                        .is_some_and(|rule| self.targeted.contains(&rule))
                })
                .collect(),
            None => Vec::new(),
        };
        let challenges: HashMap<i64, ChallengeRecord> = if self.challenges {
            let documents = records.challenges.clone().unwrap_or_default();
            records_from(documents)?
                .into_iter()
                .map(|record| (record.rule_id, record))
                .collect()
        } else {
            HashMap::new()
        };
        let viewed = match self.viewed {
            Some(viewed) => viewed,
            None => {
                let read: HashMap<PrizeKey, PrizeCounters> = self
                    .limited_prizes
                    .iter()
                    .map(|key| {
                        let rows = given.iter().filter(|row| {
                            row["rule_id"].as_i64() == Some(key.1)
                                && row["prize_id"].as_str() == Some(key.2.as_str())
                        });
                        (key.clone(), PrizeCounters::from_rows(rows))
                    })
                    .collect();
                if let (Some(start), Some(view)) = (&self.read_start, store.memory.stock_view()) {
                    view.read(start, read.clone(), self.read_at);
                }
                read
            }
        };
        let mut states = HashMap::new();
        let mut counters = HashMap::new();
        for query in self.queries.iter().filter(|q| !q.challenge) {
            for prize in &query.prize_ids {
                let key = (self.company.to_string(), query.rule_id, prize.clone());
                let prize_counters = viewed.get(&key).cloned().unwrap_or_else(|| {
                    // A prize without a limit: nothing is counted.
                    PrizeCounters::from_rows(std::iter::empty())
                });
                counters.insert((query.rule_id, prize.clone()), prize_counters);
            }
            let mut state = InstantWinState {
                participations: participations.count(query.rule_id, &query.period),
                given: query
                    .prize_ids
                    .iter()
                    .map(|prize| counters[&(query.rule_id, prize.clone())].total())
                    .collect(),
                voucher: None,
                granted: granted
                    .iter()
                    .find(|row| row["game_id"].as_i64() == Some(query.rule_id))
                    .and_then(|row| row["available"].as_i64())
                    .unwrap_or(0),
            };
            if let Some(document) = vouchers
                .iter()
                .find(|row| row["rule_id"].as_i64() == Some(query.rule_id))
            {
                state.voucher = Some(voucher_from((*document).clone())?);
            }
            states.insert(query.rule_id, state);
        }
        Ok(DrawState {
            states,
            counters,
            participations,
            challenges,
        })
    }
}

impl Store {
    /// Plans reading the draw state of `queries` for a Customer of `company`.
    pub(crate) fn plan_state_read<'a>(
        &self,
        company: &'a str,
        queries: &'a [StateQuery],
    ) -> StateRead<'a> {
        let limited_prizes: Vec<PrizeKey> = queries
            .iter()
            .filter(|q| q.limited)
            .flat_map(|q| {
                q.prize_ids
                    .iter()
                    .map(|prize| (company.to_string(), q.rule_id, prize.clone()))
            })
            .collect();
        let read_at = Instant::now();
        let view = self.memory.stock_view();
        let viewed = view.and_then(|view| view.fresh(&limited_prizes, read_at));
        let (limited, read_start) = if viewed.is_some() {
            (Vec::new(), None)
        } else {
            let rules = queries
                .iter()
                .filter(|q| q.limited)
                .map(|q| q.rule_id)
                .collect();
            (rules, view.map(|view| view.read_starts(&limited_prizes)))
        };
        let targeted = queries
            .iter()
            .filter(|q| q.targeted)
            .map(|q| q.rule_id)
            .collect();
        StateRead {
            company,
            queries,
            limited_prizes,
            viewed,
            read_start,
            read_at,
            limited,
            targeted,
            games: queries.iter().any(|q| q.game),
            challenges: queries.iter().any(|q| q.challenge),
            known: None,
        }
    }

    /// Participations, units given and Vouchers of `customer_id` for `queries`.
    pub async fn instant_win_states(
        &self,
        company: &str,
        customer_id: &str,
        queries: &[StateQuery],
    ) -> ApiResult<DrawState> {
        let read = self.plan_state_read(company, queries);
        Ok(self.run_state_read(company, customer_id, read).await?.0)
    }

    /// The draw state `read` plans for `customer_id`, and the Customer's
    /// records it was made of; no query when `read` knows them all and
    /// needs no units given.
    pub(crate) async fn run_state_read(
        &self,
        company: &str,
        customer_id: &str,
        read: StateRead<'_>,
    ) -> ApiResult<(DrawState, CustomerDraws)> {
        let statements = read.statements();
        if statements.is_empty() {
            return read.read_with_records(self, None, 0);
        }
        let query = self
            .db
            .query(statements)
            .bind(("company", company.to_string()))
            .bind(("customer", customer_id.to_string()));
        let mut response = read
            .bind(query)
            .await
            .and_then(|r| r.check())
            .map_err(store_error)?;
        read.read_with_records(self, Some(&mut response), 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::execute;

    fn queries() -> Vec<StateQuery> {
        vec![
            StateQuery {
                rule_id: 7,
                period: "2026-11-22".into(),
                prize_ids: vec!["gift".into(), "none".into()],
                limited: true,
                targeted: false,
                game: false,
                challenge: false,
            },
            StateQuery {
                rule_id: 8,
                period: "campaign".into(),
                prize_ids: vec!["coffee".into()],
                limited: false,
                targeted: true,
                game: false,
                challenge: false,
            },
        ]
    }

    #[tokio::test]
    async fn facts_and_draw_state_read_together_are_what_each_read_alone_gives() {
        let store = Store::connect("mem://", None).await.unwrap();
        execute(store.db.query(
            "UPSERT type::record('customer_state', ['c', 'x']) CONTENT { company: 'c', customer_id: 'x', points: 12, rules: { '7': { '2026-11-22': 2 } } };
             UPSERT type::record('iw_given', ['c', 7, 'gift', 3]) CONTENT { company: 'c', rule_id: 7, prize_id: 'gift', shard: 3, given: 4 };
             UPSERT type::record('voucher', ['c', 'VC1']) CONTENT { company: 'c', vid: 'v1', code: 'VC1', key: 'VC1', customer_id: 'x', rule_id: 8, coupon_id: 9, coupon_name: 'Ticket', static_code: 'T', state: 'active', uses_left: 1, source: 'targeted_delivery', campaign_history_id: 'ch', loyalty_rule_history_id: 'lh', created_at: '2026-11-22T10:00:00Z' };",
        ))
        .await
        .unwrap();
        let queries = queries();
        let read = crate::pipeline::store::FactsRead {
            of: crate::pipeline::store::FactsOf::Id("x"),
            history_since: None,
            queries: &queries,
            printed_once: false,
        };
        let read = store.read_facts("c", read).await.unwrap();
        let (facts, together) = (read.facts, read.state);
        assert_eq!(facts.points_balance, 12);
        assert_eq!(together.states[&7].participations, 2);
        assert_eq!(together.states[&7].given, vec![4, 0]);
        assert_eq!(
            together.states[&8]
                .voucher
                .as_ref()
                .map(|v| v.code.as_str()),
            Some("VC1")
        );
        // The units given now come from the stock view; the same read alone
        // gives the same state.
        let alone = store.instant_win_states("c", "x", &queries).await.unwrap();
        assert_eq!(alone.states, together.states);
        assert_eq!(alone.counters, together.counters);
        assert_eq!(alone.participations, together.participations);
    }
}
