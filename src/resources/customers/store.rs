//! Repository of Customers and of the claims that keep their identifiers unique.

use serde::Serialize;
use serde_json::Value;

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::store::WRITE_ANSWER;
use crate::resources::customers::cache::CachedCustomer;
use crate::resources::customers::model::Customer;
use crate::resources::customers::model::SearchBy;
use crate::resources::webhooks::outbox::WRITE_WEBHOOKS;
use crate::storage::Store;
use crate::storage::connection::StoreQuery;
use crate::storage::first;

/// A Customer with the revision its stored document had when read.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredCustomer {
    /// The Customer.
    pub customer: Customer,
    /// Incremented by every write; a write names the revision it read.
    pub revision: u64,
}

/// One identifier that must stay unique within a Company.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct Claim {
    kind: &'static str,
    value: String,
}

/// Every unique identifier `customer` holds.
fn claims_of(customer: &Customer) -> Vec<Claim> {
    let mut claims = Vec::new();
    let single = [
        (SearchBy::Code, &customer.code),
        (SearchBy::Email, &customer.email),
        (SearchBy::Phone, &customer.phone),
    ];
    for (kind, value) in single {
        if let Some(value) = value {
            claims.push(Claim {
                kind: kind.as_str(),
                value: value.clone(),
            });
        }
    }
    for card in &customer.cards {
        claims.push(Claim {
            kind: SearchBy::Card.as_str(),
            value: card.number.clone(),
        });
    }
    claims
}

/// Whether `customer` holds identifier `value` of `kind` (stored
/// normalised).
pub(crate) fn holds_identifier(customer: &Customer, kind: SearchBy, value: &str) -> bool {
    if kind == SearchBy::Id {
        return customer.id == value;
    }
    claims_of(customer)
        .iter()
        .any(|claim| claim.kind == kind.as_str() && claim.value == value)
}

/// The stored document of `customer`.
pub(crate) fn document(company: &str, customer: &Customer, revision: u64) -> ApiResult<Value> {
    let mut value = serde_json::to_value(customer).map_err(ApiError::internal)?;
    let object = value
        .as_object_mut()
        .ok_or_else(|| ApiError::internal("a Customer serialises to an object"))?;
    let id = object.remove("id").unwrap_or(Value::Null);
    object.insert("cid".into(), id);
    object.insert("company".into(), Value::String(company.to_string()));
    object.insert("revision".into(), Value::from(revision));
    Ok(value)
}

/// The Customer stored in `document`.
pub(crate) fn from_document(mut document: Value) -> ApiResult<StoredCustomer> {
    let object = document
        .as_object_mut()
        .ok_or_else(|| ApiError::internal("a stored Customer is an object"))?;
    let revision = object.get("revision").and_then(Value::as_u64).unwrap_or(0);
    let id = object.remove("cid").unwrap_or(Value::Null);
    object.insert("id".into(), id);
    object.remove("company");
    object.remove("revision");
    let customer = serde_json::from_value(document)
        .map_err(|e| ApiError::internal(format!("stored Customer unreadable: {e}")))?;
    Ok(StoredCustomer { customer, revision })
}

/// SurrealQL that claims every identifier in `$claims` for `$id`, throwing
/// `$taken_code` when another Customer holds one.
const CLAIM_IDENTIFIERS: &str = "
    FOR $claim IN $claims {
        LET $key = type::record('customer_claim', [$company, $claim.kind, $claim.value]);
        LET $holder = $key.customer;
        IF $holder != NONE AND $holder != $id {
            THROW 'REFUSED|' + $taken_code + '|another Customer already has ' + $claim.kind + ' ' + $claim.value;
        };
        IF $holder == NONE {
            CREATE $key CONTENT { company: $company, kind: $claim.kind, value: $claim.value, customer: $id };
        };
    };";

/// SurrealQL that releases every identifier in `$released`.
const RELEASE_IDENTIFIERS: &str = "
    FOR $claim IN $released {
        DELETE type::record('customer_claim', [$company, $claim.kind, $claim.value]);
    };";

/// The stored Customer `$customer` when it belongs to `$company`, else
/// `NONE`. A record read by its id in an expression, not a `SELECT`: SurrealDB
/// plans a `SELECT` even of one record, which costs five to eight times the
/// read itself (BENCHMARKS.md, "Reading a record by its id").
/// (A macro, so the look-ups below are texts fixed at compile time.)
macro_rules! customer_of_company {
    () => {
        "IF type::record('customer', $customer).company == $company { type::record('customer', $customer).* } ELSE { NONE }"
    };
}

/// Statements refusing with `concurrent_modification` unless the Customer
/// `$id` of `$company` is still at `$revision`, as it was read.
fn unchanged_statements() -> String {
    format!(
        "LET $current = IF type::record('customer', $id).company == $company {{ type::record('customer', $id).revision }};
         IF $current != $revision {{
             THROW '{REFUSED}{stale}|the Customer changed while the request ran; retry';
         }};",
        REFUSED = crate::storage::REFUSED,
        stale = ErrorCode::ConcurrentModification.code(),
    )
}

/// Statements that find the Customer of `$company` holding identifier
/// `$lookup` of kind `$kind` (bound by [`bind_lookup`]), leave its id in
/// `$customer` for the statements after them, and give the stored Customer
/// (or `NONE`) as their last result ([`found_customer`]); the second item is
/// how many statements they are. A cart's read starts with them, so the
/// Customer and what its campaigns know of it cost one round trip. By id,
/// `$customer` is the id sent: when no Customer of the Company has it, what
/// the statements after read of it is empty.
pub(crate) const fn lookup_statements(kind: SearchBy) -> (&'static str, usize) {
    match kind {
        SearchBy::Id => (concat!(customer_of_company!(), ";"), 1),
        _ => (
            concat!(
                "LET $customer = type::record('customer_claim', [$company, $kind, $lookup]).customer;
                 IF $customer { ",
                customer_of_company!(),
                " } ELSE { NONE };"
            ),
            2,
        ),
    }
}

/// `query` with what [`lookup_statements`] of `kind` read bound.
pub(crate) fn bind_lookup<'q>(
    query: StoreQuery<'q>,
    kind: SearchBy,
    value: &str,
) -> StoreQuery<'q> {
    match kind {
        SearchBy::Id => query.bind(("customer", value.to_string())),
        _ => query
            .bind(("kind", kind.as_str()))
            .bind(("lookup", value.to_string())),
    }
}

/// The Customer [`lookup_statements`] found: result `index` of `response`.
pub(crate) fn found_customer(
    response: &mut surrealdb::IndexedResults,
    index: usize,
) -> ApiResult<Option<StoredCustomer>> {
    let document: Option<Value> = response.take(index).map_err(crate::storage::store_error)?;
    document.map(from_document).transpose()
}

impl Store {
    /// Stores a new Customer and claims its identifiers, in one transaction
    /// with its `customer.created` webhook event.
    /// An identifier held by another Customer refuses with `customer_already_exists`.
    pub async fn insert_customer(&self, company: &str, customer: &Customer) -> ApiResult<()> {
        let doc = document(company, customer, 1)?;
        let claims = claims_of(customer);
        let webhooks = self
            .memory
            .webhooks
            .customer_rows(company, "customer.created", customer);
        let query = format!(
            "BEGIN TRANSACTION; {CLAIM_IDENTIFIERS}
             CREATE type::record('customer', $id) CONTENT $doc RETURN NONE;
             {WRITE_WEBHOOKS}
             {WRITE_ANSWER}
             COMMIT TRANSACTION;"
        );
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("id", customer.id.clone()))
                .bind(("claims", serde_json::to_value(&claims).unwrap_or_default()))
                .bind(("taken_code", ErrorCode::CustomerAlreadyExists.code()))
                .bind(("doc", doc.clone()))
                .bind(("webhook_deliveries", webhooks.clone()))
        })
        .await?;
        Ok(())
    }

    /// The Customer `id` of `company`, if it exists.
    pub async fn customer(&self, company: &str, id: &str) -> ApiResult<Option<StoredCustomer>> {
        self.customer_by(company, SearchBy::Id, id).await
    }

    /// The Customer of `company` holding identifier `value` of `kind` (its
    /// service id when `kind` is [`SearchBy::Id`]), found and read in one
    /// round trip (the till's look-up by code or card).
    pub async fn customer_by(
        &self,
        company: &str,
        kind: SearchBy,
        value: &str,
    ) -> ApiResult<Option<StoredCustomer>> {
        if let Some(entry) = self.memory.customers.by_identifier(company, kind, value) {
            return Ok(Some(entry.stored));
        }
        let ticket = self.memory.customers.ticket();
        let (statements, count) = lookup_statements(kind);
        let query = self
            .db
            .query(statements)
            .bind(("company", company.to_string()));
        let mut response = bind_lookup(query, kind, value)
            .await
            .and_then(|r| r.check())
            .map_err(crate::storage::store_error)?;
        let found = found_customer(&mut response, count - 1)?;
        if let Some(stored) = found.as_ref().filter(|_| self.memory.customers.enabled()) {
            let entry = CachedCustomer::read(stored.clone(), None, None);
            self.memory
                .customers
                .keep(company, Some((kind, value)), &ticket, entry);
        }
        Ok(found)
    }

    /// The id of the Customer of `company` holding identifier `value` of `kind`.
    pub async fn customer_id_by(
        &self,
        company: &str,
        kind: SearchBy,
        value: &str,
    ) -> ApiResult<Option<String>> {
        first(
            self.db
                .query("RETURN type::record('customer_claim', [$company, $kind, $value]).customer")
                .bind(("company", company.to_string()))
                .bind(("kind", kind.as_str()))
                .bind(("value", value.to_string())),
        )
        .await
    }

    /// Replaces the stored Customer read as `before` with `after`, moving
    /// identifier claims, in one transaction with the webhook event
    /// `reported` (`customer.updated`, `customer.anonymized`) when there is
    /// one. Refuses with
    /// `concurrent_modification` if the document changed since it was read and
    /// with `identifier_in_use` if a new identifier belongs to someone else.
    pub async fn replace_customer(
        &self,
        company: &str,
        before: &StoredCustomer,
        after: &Customer,
        reported: Option<&str>,
    ) -> ApiResult<()> {
        let webhooks = reported.map_or_else(Vec::new, |reported| {
            self.memory.webhooks.customer_rows(company, reported, after)
        });
        let old_claims = claims_of(&before.customer);
        let new_claims = claims_of(after);
        let released: Vec<&Claim> = old_claims
            .iter()
            .filter(|c| !new_claims.contains(c))
            .collect();
        let added: Vec<&Claim> = new_claims
            .iter()
            .filter(|c| !old_claims.contains(c))
            .collect();
        let doc = document(company, after, before.revision + 1)?;
        let query = format!(
            "BEGIN TRANSACTION;
             {unchanged}
             {RELEASE_IDENTIFIERS}
             {CLAIM_IDENTIFIERS}
             UPDATE type::record('customer', $id) CONTENT $doc RETURN NONE;
             {WRITE_WEBHOOKS}
             {WRITE_ANSWER}
             COMMIT TRANSACTION;",
            unchanged = unchanged_statements(),
        );
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("id", after.id.clone()))
                .bind(("revision", before.revision))
                .bind((
                    "released",
                    serde_json::to_value(&released).unwrap_or_default(),
                ))
                .bind(("claims", serde_json::to_value(&added).unwrap_or_default()))
                .bind(("taken_code", ErrorCode::IdentifierInUse.code()))
                .bind(("doc", doc.clone()))
                .bind(("webhook_deliveries", webhooks.clone()))
        })
        .await?;
        Ok(())
    }

    /// Deletes the Customer read as `before` and releases its identifiers.
    pub async fn delete_customer(&self, company: &str, before: &StoredCustomer) -> ApiResult<()> {
        let released = claims_of(&before.customer);
        let query = format!(
            "BEGIN TRANSACTION;
             {unchanged}
             {RELEASE_IDENTIFIERS}
             DELETE type::record('customer', $id);
             COMMIT TRANSACTION;",
            unchanged = unchanged_statements(),
        );
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("id", before.customer.id.clone()))
                .bind(("revision", before.revision))
                .bind((
                    "released",
                    serde_json::to_value(&released).unwrap_or_default(),
                ))
        })
        .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::REFUSED;

    #[test]
    fn refusal_marker_matches_store_module() {
        assert!(CLAIM_IDENTIFIERS.contains(REFUSED.trim_end_matches('|')));
    }
}
