//! What an event's conditions know about its Customer, read in one round
//! trip: the Customer itself when the event names it by an identifier,
//! associations, purchase history, purchase totals and points balance, the
//! `once` messages it was shown, and the state of the event's Instant Win
//! draws ([`crate::resources::instant_wins::store::draw_state`]). The till
//! waits on this for every cart, so it is one query of a few statements
//! rather than one query each.

mod customer_facts;

pub use customer_facts::CustomerFacts;
use customer_facts::FACT_STATEMENT_COUNT;
use customer_facts::facts_from;
use customer_facts::first_month;
use customer_facts::push_fact_statements;

use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::resources::customers::cache::CachedCustomer;
use crate::resources::customers::cache::CachedFacts;
use crate::resources::customers::cache::ReadTicket;
use crate::resources::customers::model::SearchBy;
use crate::resources::customers::store::StoredCustomer;
use crate::resources::customers::store::bind_lookup;
use crate::resources::customers::store::found_customer;
use crate::resources::customers::store::lookup_statements;
use crate::resources::instant_wins::store::draw_state::CustomerDraws;
use crate::resources::instant_wins::store::draw_state::DrawState;
use crate::resources::instant_wins::store::draw_state::StateQuery;
use crate::resources::messages::store::PRINTED_ONCE;
use crate::storage::Store;
use crate::storage::store_error;

/// Whose facts are read.
#[derive(Debug, Clone, Copy)]
pub enum FactsOf<'a> {
    /// A Customer already read, by its id.
    Id(&'a str),
    /// The Customer holding identifier `.1` of kind `.0`, looked up and read
    /// with its facts.
    Lookup(SearchBy, &'a str),
}

/// One read of a Customer's facts, in one round trip: the Customer itself
/// when it is looked up, its facts, the draw state of `queries` and, with
/// `printed_once`, the `once` messages it was shown.
#[derive(Debug, Clone, Copy)]
pub struct FactsRead<'a> {
    /// Whose facts.
    pub of: FactsOf<'a>,
    /// Purchases are read from this instant when it is set.
    pub history_since: Option<Timestamp>,
    /// The Instant Wins, games and Challenges whose state is read.
    pub queries: &'a [StateQuery],
    /// Whether the `once` messages already shown are read.
    pub printed_once: bool,
}

/// What a [`FactsRead`] read.
#[derive(Debug, Clone, Default)]
pub struct ReadFacts {
    /// The Customer looked up ([`FactsOf::Lookup`]), if one holds the
    /// identifier; `None` when the Customer was given by id.
    pub found: Option<StoredCustomer>,
    /// Its stored facts (empty when the look-up found nobody).
    pub facts: CustomerFacts,
    /// The draw state of the read's queries.
    pub state: DrawState,
    /// The `once` messages it was shown, when they were read.
    pub printed_once: Vec<String>,
    /// The Customer's records the draw state was made of, when read from
    /// the store (kept in memory with the Customer).
    pub draws: Option<CustomerDraws>,
}

impl Store {
    /// Everything `read` names: from this process's memory when it read the
    /// Customer lately and nothing changed it since (then only the draw
    /// state, if any, is read), else in one query whose result is kept.
    pub async fn read_facts(&self, company: &str, read: FactsRead<'_>) -> ApiResult<ReadFacts> {
        if let Some(remembered) = self.remembered_facts(company, &read).await? {
            return Ok(remembered);
        }
        let ticket = self.memory.customers.ticket();
        let facts = self.read_facts_from_store(company, read).await?;
        if self.memory.customers.enabled() {
            self.keep_facts(company, &read, &ticket, &facts);
        }
        Ok(facts)
    }

    /// What `read` names, when the Customer cache holds the Customer and its
    /// facts: its draw records too, or they are read (alone, and kept), and
    /// the units given of limited prizes unless the stock view has them.
    async fn remembered_facts(
        &self,
        company: &str,
        read: &FactsRead<'_>,
    ) -> ApiResult<Option<ReadFacts>> {
        // Before the entry is found: a write forgetting it after that makes
        // what this read keeps stale, and the ticket refuses it.
        let ticket = self.memory.customers.ticket();
        let entry = match read.of {
            FactsOf::Id(id) => self.memory.customers.by_id(company, id),
            FactsOf::Lookup(kind, value) => {
                self.memory.customers.by_identifier(company, kind, value)
            }
        };
        let Some(entry) = entry else {
            return Ok(None);
        };
        let Some(facts) = entry
            .facts
            .as_ref()
            .and_then(|cached| cached.covering(read.history_since))
        else {
            return Ok(None);
        };
        let printed_once = match (read.printed_once, &entry.printed_once) {
            (false, _) => Vec::new(),
            (true, Some(printed)) => printed.clone(),
            (true, None) => return Ok(None),
        };
        let state = if read.queries.is_empty() {
            DrawState::default()
        } else {
            let state_read = self
                .plan_state_read(company, read.queries)
                .knowing(entry.draws.clone());
            let knew = state_read.knows_the_customer();
            let (state, draws) = self
                .run_state_read(company, &entry.stored.customer.id, state_read)
                .await?;
            if !knew {
                let kept = entry.clone().with_draws(Some(draws));
                self.memory.customers.keep(company, None, &ticket, kept);
            }
            state
        };
        Ok(Some(ReadFacts {
            found: matches!(read.of, FactsOf::Lookup(..)).then_some(entry.stored),
            facts,
            state,
            printed_once,
            draws: None,
        }))
    }

    /// Keeps what `read` read under `ticket` in the Customer cache.
    fn keep_facts(
        &self,
        company: &str,
        read: &FactsRead<'_>,
        ticket: &ReadTicket,
        facts: &ReadFacts,
    ) {
        let (stored, found_by) = match read.of {
            FactsOf::Lookup(kind, value) => (facts.found.clone(), Some((kind, value))),
            // Read by id after the Customer itself, which the cache then
            // holds unless a write moved it since.
            FactsOf::Id(id) => (
                self.memory.customers.by_id(company, id).map(|e| e.stored),
                None,
            ),
        };
        let Some(stored) = stored else {
            return;
        };
        let cached = CachedFacts {
            since: read.history_since,
            facts: facts.facts.clone(),
        };
        let printed_once = read.printed_once.then(|| facts.printed_once.clone());
        let entry = CachedCustomer::read(stored, Some(cached), printed_once)
            .with_draws(facts.draws.clone());
        self.memory.customers.keep(company, found_by, ticket, entry);
    }

    /// Everything `read` names, in one query: the statements of each part
    /// follow one another, the look-up first so that the others read the
    /// `$customer` it found.
    async fn read_facts_from_store(
        &self,
        company: &str,
        read: FactsRead<'_>,
    ) -> ApiResult<ReadFacts> {
        let state_read =
            (!read.queries.is_empty()).then(|| self.plan_state_read(company, read.queries));
        let mut text = String::new();
        let mut lookup_count = 0;
        if let FactsOf::Lookup(kind, _) = read.of {
            let (statements, count) = lookup_statements(kind);
            text.push_str(statements);
            lookup_count = count;
        }
        push_fact_statements(&mut text);
        if read.printed_once {
            text.push_str(PRINTED_ONCE);
        }
        if let Some(state_read) = &state_read {
            text.push_str(&state_read.statements());
        }
        let mut query = self
            .db
            .query(text)
            .bind(("company", company.to_string()))
            .bind(("since_month", read.history_since.map(first_month)));
        query = match read.of {
            FactsOf::Id(id) => query.bind(("customer", id.to_string())),
            FactsOf::Lookup(kind, value) => bind_lookup(query, kind, value),
        };
        if let Some(state_read) = &state_read {
            query = state_read.bind(query);
        }
        let mut response = query.await.and_then(|r| r.check()).map_err(store_error)?;
        let found = match read.of {
            FactsOf::Id(_) => None,
            FactsOf::Lookup(..) => found_customer(&mut response, lookup_count - 1)?,
        };
        let mut next = lookup_count;
        let facts = facts_from(&mut response, next)?;
        next += FACT_STATEMENT_COUNT;
        let printed_once: Vec<String> = if read.printed_once {
            next += 1;
            response.take(next - 1).map_err(store_error)?
        } else {
            Vec::new()
        };
        let (state, draws) = match state_read {
            Some(state_read) => {
                let (state, draws) =
                    state_read.read_with_records(self, Some(&mut response), next)?;
                (state, Some(draws))
            }
            None => (DrawState::default(), None),
        };
        Ok(ReadFacts {
            found,
            facts,
            state,
            printed_once,
            draws,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::customers::model::Customer;
    use crate::storage::execute;

    fn customer(id: &str, code: &str) -> Customer {
        serde_json::from_value(serde_json::json!({
            "id": id, "code": code, "active": true, "loyalty_member": true,
            "consents": {}, "cards": [], "attributes": {},
            "created_at": "2026-11-01T10:00:00Z", "updated_at": "2026-11-01T10:00:00Z",
        }))
        .unwrap()
    }

    fn lookup(kind: SearchBy, value: &str, printed_once: bool) -> FactsRead<'_> {
        FactsRead {
            of: FactsOf::Lookup(kind, value),
            history_since: None,
            queries: &[],
            printed_once,
        }
    }

    #[tokio::test]
    async fn a_customer_looked_up_comes_with_its_own_facts_and_nobody_with_none() {
        let store = Store::connect("mem://", None).await.unwrap();
        for (id, code, balance) in [("cus_a", "A1", 12), ("cus_b", "B1", 40)] {
            store
                .insert_customer("c", &customer(id, code))
                .await
                .unwrap();
            execute(store.db.query(format!(
                "UPSERT type::record('customer_state', ['c', '{id}']) CONTENT {{ company: 'c', customer_id: '{id}', points: {balance} }};
                 UPSERT type::record('message_print', ['c', '{id}', '1:hello']) CONTENT {{ company: 'c', customer: '{id}', message: '1:hello', rule_id: 1, once: true, count: 1 }};"
            )))
            .await
            .unwrap();
        }

        let by_code = store
            .read_facts("c", lookup(SearchBy::Code, "B1", true))
            .await
            .unwrap();
        assert_eq!(
            by_code.found.map(|f| f.customer.id).as_deref(),
            Some("cus_b")
        );
        assert_eq!(by_code.facts.points_balance, 40);
        assert_eq!(by_code.printed_once, vec!["1:hello".to_string()]);

        let by_id = store
            .read_facts("c", lookup(SearchBy::Id, "cus_a", false))
            .await
            .unwrap();
        assert_eq!(by_id.found.map(|f| f.customer.id).as_deref(), Some("cus_a"));
        assert_eq!(by_id.facts.points_balance, 12);
        assert!(by_id.printed_once.is_empty(), "not asked for");

        // Another Company's Customer, an unknown code and an unknown id find
        // nobody, and read no one's facts.
        for (company, kind, value) in [
            ("other", SearchBy::Code, "A1"),
            ("c", SearchBy::Code, "ZZ"),
            ("c", SearchBy::Id, "cus_z"),
        ] {
            let nobody = store
                .read_facts(company, lookup(kind, value, true))
                .await
                .unwrap();
            assert!(nobody.found.is_none(), "{company} {value}");
            assert_eq!(nobody.facts.points_balance, 0, "{company} {value}");
            assert!(nobody.printed_once.is_empty(), "{company} {value}");
        }
    }

    #[tokio::test]
    async fn a_recorded_cart_moves_the_kept_facts_on_as_the_store_has_them() {
        use crate::resources::carts::model::Cart;
        use crate::resources::carts::store::CartWrite;
        use crate::resources::points::ledger_entry::LedgerEntry;
        use crate::resources::points::model::PointsKind;

        let store = Store::connect("mem://", None).await.unwrap();
        store
            .insert_customer("c", &customer("cus_a", "A1"))
            .await
            .unwrap();
        let since: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let read = || FactsRead {
            of: FactsOf::Lookup(SearchBy::Code, "A1"),
            history_since: Some(since),
            queries: &[],
            printed_once: false,
        };
        store.read_facts("c", read()).await.unwrap();
        // 0.1 and 0.2 make 0.3 as the store sums them; the second cart is
        // dated before the first.
        for (code, date, total, points) in [
            ("T1", "2026-11-20T10:00:00Z", 0.1, 10),
            ("T2", "2026-11-02T10:00:00Z", 0.2, 5),
        ] {
            let cart: Cart = serde_json::from_value(serde_json::json!({
                "id": code, "customer_id": "cus_a", "date": date,
                "lines": [{"product_code": "P1", "quantity": 1.0, "price": total}],
                "total": total, "discount_total": 0.0, "points_earned": points,
                "created_at": date,
            }))
            .unwrap();
            let ledger = [LedgerEntry::new(
                "cus_a",
                PointsKind::Points,
                points,
                "cart",
                date.parse().unwrap(),
            )];
            let write = CartWrite::earning_only(&cart, &ledger);
            store.insert_cart("c", write).await.unwrap();
            let before = store.queries_sent();
            let remembered = store.read_facts("c", read()).await.unwrap();
            assert_eq!(store.queries_sent(), before, "{code}: served from memory");
            let fresh = store.read_facts_from_store("c", read()).await.unwrap();
            assert_eq!(remembered.facts.history, fresh.facts.history, "{code}");
            assert_eq!(remembered.facts.totals, fresh.facts.totals, "{code}");
            assert_eq!(
                remembered.facts.points_balance, fresh.facts.points_balance,
                "{code}"
            );
        }
        let facts = store.read_facts("c", read()).await.unwrap().facts;
        assert_eq!(facts.totals.lifetime_spend, 0.3);
        assert_eq!(facts.totals.cart_count, 2);
        assert_eq!(facts.points_balance, 15);
        assert_eq!(
            facts.history.to_string(),
            "2026-11-02 0.2 1, 2026-11-20 0.1 1"
        );
    }

    #[tokio::test]
    async fn a_customers_associations_are_read_however_they_were_made() {
        use crate::resources::associations::model::Association;
        use crate::resources::merges::store::CustomerChanges;

        let store = Store::connect("mem://", None).await.unwrap();
        let at: Timestamp = "2026-11-01T10:00:00Z".parse().unwrap();
        let link = |a: &str, b: &str| Association {
            customer_id: a.into(),
            associate_id: b.into(),
            kind: "family".into(),
            created_at: at,
            updated_at: at,
        };
        let linked = |store: Store, id: &'static str| async move {
            let read = FactsRead {
                of: FactsOf::Id(id),
                history_since: None,
                queries: &[],
                printed_once: false,
            };
            let facts = store.read_facts_from_store("c", read).await.unwrap().facts;
            facts
                .associations
                .iter()
                .map(|a| a.other(id).to_string())
                .collect::<Vec<_>>()
        };

        // Through the API's write, and through a merge's.
        store
            .insert_association("c", &link("cus_a", "cus_b"))
            .await
            .unwrap();
        let merged = CustomerChanges {
            association_creates: vec![link("cus_e", "cus_a")],
            ..Default::default()
        };
        store.apply_customer_changes("c", &merged).await.unwrap();
        assert_eq!(linked(store.clone(), "cus_a").await, ["cus_b", "cus_e"]);
        assert_eq!(linked(store.clone(), "cus_b").await, ["cus_a"]);
        assert_eq!(linked(store.clone(), "cus_e").await, ["cus_a"]);
        assert!(linked(store.clone(), "cus_z").await.is_empty());

        // A store written before Customers were marked: its associations are
        // found once the schema has run again, as it does at every start.
        execute(store.db.query(
            "CREATE association:['c', 'cus_c', 'cus_d'] CONTENT { company: 'c', customer_id: 'cus_d', associate_id: 'cus_c', type: 'friend', created_at: '2026-11-01T10:00:00Z', updated_at: '2026-11-01T10:00:00Z' };
             DELETE associated; DELETE migration:associated;",
        ))
        .await
        .unwrap();
        assert!(linked(store.clone(), "cus_c").await.is_empty(), "unmarked");
        execute(store.db.query(crate::storage::schema::schema()))
            .await
            .unwrap();
        assert_eq!(linked(store.clone(), "cus_c").await, ["cus_d"]);
        assert_eq!(linked(store.clone(), "cus_d").await, ["cus_c"]);
        assert_eq!(linked(store.clone(), "cus_a").await, ["cus_b", "cus_e"]);
    }
}
