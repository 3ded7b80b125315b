//! Everything the service holds about one Customer, in one answer, for a
//! data-subject request (`GET /customers/{value}/export`): the profile
//! (with its cards, consents and attributes), its associations, balances,
//! carts, ledger entries, Custom Events, Vouchers, reward transactions,
//! Challenges, game participations, and the merges of the Customers merged
//! into it (whose carts and points it holds since).

use std::future::Future;

use poem_openapi::Object;

use crate::common::language::Language;
use crate::common::time::Timestamp;
use crate::error::ApiResult;
use crate::resources::associations::model::Association;
use crate::resources::carts::model::Cart;
use crate::resources::challenges::model::CustomerChallenge;
use crate::resources::customers::model::Customer;
use crate::resources::customers::service::CustomerRef;
use crate::resources::events::model::CustomEvent;
use crate::resources::exports::service::EXPORT_PAGE;
use crate::resources::games::model::Game;
use crate::resources::merges::model::MergeRecord;
use crate::resources::points::model::PointsKind;
use crate::resources::points::model::PointsTransaction;
use crate::resources::rewards::model::RewardTransaction;
use crate::resources::vouchers::model::Voucher;
use crate::services::Services;

/// Everything held about one Customer.
#[derive(Debug, Object)]
pub struct CustomerExport {
    /// When it was gathered.
    pub exported_at: Timestamp,
    /// The profile, with its cards, consents and attributes.
    pub customer: Customer,
    /// Its links to other Customers.
    pub associations: Vec<Association>,
    /// Its points balance.
    pub points: i64,
    /// Its wallet balance, in minor units.
    pub wallet: i64,
    /// Its carts (cancellations included), in id order.
    pub carts: Vec<Cart>,
    /// Its ledger entries, newest first.
    pub ledger: Vec<PointsTransaction>,
    /// Its Custom Events, in id order.
    pub custom_events: Vec<CustomEvent>,
    /// The Vouchers issued to it.
    pub vouchers: Vec<Voucher>,
    /// Its reward transactions (redemptions and prizes), newest first.
    pub reward_transactions: Vec<RewardTransaction>,
    /// Where it stands in each Challenge.
    pub challenges: Vec<CustomerChallenge>,
    /// The games and its participations in them.
    pub games: Vec<Game>,
    /// The merges of the Customers merged into it.
    pub merges: Vec<MergeRecord>,
}

/// Every record `fetch` gives, a page of [`EXPORT_PAGE`] at a time after
/// the key (`key`) of the last.
async fn every_page<T, F, Fut>(mut fetch: F, key: impl Fn(&T) -> String) -> ApiResult<Vec<T>>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = ApiResult<Vec<T>>>,
{
    let mut every = Vec::new();
    let mut after = None;
    loop {
        let page = fetch(after.take()).await?;
        let full = page.len() == EXPORT_PAGE;
        after = page.last().map(&key);
        every.extend(page);
        if !full {
            return Ok(every);
        }
    }
}

impl Services {
    /// Everything held about the Customer `reference` of `company`, its
    /// texts in `language`.
    pub async fn export_customer(
        &self,
        company: &str,
        reference: CustomerRef<'_>,
        language: &Language,
    ) -> ApiResult<CustomerExport> {
        let customer = self.find_customer(company, reference).await?.customer;
        let id = customer.id.as_str();
        let store = &self.store;
        let carts = every_page(
            |after| async move {
                store
                    .carts(company, Some(id), None, None, after.as_deref(), EXPORT_PAGE)
                    .await
            },
            |cart: &Cart| cart.id.clone(),
        )
        .await?;
        let ledger = every_page(
            |after| async move {
                store
                    .ledger_entries(company, id, None, after.as_deref(), EXPORT_PAGE)
                    .await
            },
            |entry: &PointsTransaction| entry.id.clone(),
        )
        .await?;
        let custom_events = every_page(
            |after| async move {
                store
                    .custom_events(company, Some(id), None, after.as_deref(), EXPORT_PAGE)
                    .await
            },
            |event: &CustomEvent| event.id.clone(),
        )
        .await?;
        let mut merges = Vec::new();
        for merged in store.merged_into(company, id).await? {
            merges.extend(store.merge_record(company, &merged).await?);
        }
        // A merged or anonymized Customer stands in no Challenge and plays
        // no game any more (the target does).
        let (challenges, games) = match customer.active {
            true => (
                self.customer_challenges(company, CustomerRef::id(id), None, language)
                    .await?,
                self.games(company, Some(CustomerRef::id(id)), language)
                    .await?,
            ),
            false => (Vec::new(), Vec::new()),
        };
        Ok(CustomerExport {
            exported_at: self.now(),
            associations: store.associations_of(company, id).await?,
            points: store.balance(company, id, PointsKind::Points).await?,
            wallet: store.balance(company, id, PointsKind::Wallet).await?,
            carts,
            ledger,
            custom_events,
            vouchers: store.vouchers_by(company, "customer_id", id).await?,
            reward_transactions: store.reward_transactions(company, id).await?,
            challenges,
            games,
            merges,
            customer,
        })
    }
}
