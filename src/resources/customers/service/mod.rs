//! Customer use-cases: creation, look-up by any identifier, edits,
//! anonymization and deletion.

pub mod edits;
pub mod search;

use crate::engine::listens::CustomerMoment;
use crate::http::idempotency::answer::answer_now;
use crate::resources::customers::service::edits::anonymize;
use crate::resources::customers::service::edits::apply_patch;
use crate::resources::customers::service::edits::clean_patch;

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::time::Timestamp;
use crate::common::validate::validate_language;
use crate::common::validate::validate_slug;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::customers::model::Card;
use crate::resources::customers::model::Consents;
use crate::resources::customers::model::Customer;
use crate::resources::customers::model::CustomerPatch;
use crate::resources::customers::model::NewCard;
use crate::resources::customers::model::NewCustomer;
use crate::resources::customers::model::SearchBy;
use crate::resources::customers::model::checked_birth_date;
use crate::resources::customers::model::clean_text;
use crate::resources::customers::model::new_customer_id;
use crate::resources::customers::model::normalise_card;
use crate::resources::customers::model::normalise_code;
use crate::resources::customers::model::normalise_country;
use crate::resources::customers::model::normalise_email;
use crate::resources::customers::model::normalise_phone;
use crate::resources::customers::store::StoredCustomer;
use crate::services::Services;

/// Most cards one Customer may hold.
const MAX_CARDS: usize = 20;
/// Most custom attributes one Customer may carry.
const MAX_ATTRIBUTES: usize = 100;

/// The Customer an operation is about: already read, or named, to be read
/// with what the operation reads of it (a cart's Customer comes with its
/// facts, in one round trip).
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    /// Read before.
    Read(&'a Customer),
    /// Named by the request, not read yet.
    Named(CustomerRef<'a>),
}

/// How DELETE /customers/{value} removes a Customer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DeleteMode {
    /// Erase personal data irreversibly; keep the record for accounting.
    #[default]
    Anonymize,
    /// Remove the record and its identifiers outright.
    Delete,
}

/// How a Customer is named in a request: a value and what it is.
#[derive(Debug, Clone, Copy)]
pub struct CustomerRef<'a> {
    /// The value from the path or body.
    pub value: &'a str,
    /// Which identifier the value is.
    pub search_by: SearchBy,
    /// A code sent beside an id: the Customer must hold both.
    pub and_code: Option<&'a str>,
}

impl<'a> CustomerRef<'a> {
    /// A reference by service id.
    pub fn id(value: &'a str) -> Self {
        Self::by(value, Some(SearchBy::Id))
    }

    /// A reference by the identifier `search_by` names (the id when `None`).
    pub fn by(value: &'a str, search_by: Option<SearchBy>) -> Self {
        CustomerRef {
            value,
            search_by: search_by.unwrap_or_default(),
            and_code: None,
        }
    }

    /// The Customer named by `{prefix}_id`, `{prefix}_code` or both (then it
    /// must hold both: a till may send the id it cached with the code on the
    /// card); `None` when neither is given.
    pub fn optional(id: &'a Option<String>, code: &'a Option<String>) -> Option<Self> {
        match (id, code) {
            (Some(id), code) => Some(CustomerRef {
                and_code: code.as_deref(),
                ..CustomerRef::id(id)
            }),
            (None, Some(code)) => Some(CustomerRef::by(code, Some(SearchBy::Code))),
            (None, None) => None,
        }
    }

    /// 400 `invalid_request` when the reference is empty or only spaces: it
    /// names no Customer, and the store cannot even look it up.
    pub fn check_not_blank(&self) -> ApiResult<()> {
        if self.value.trim().is_empty() {
            return Err(ApiError::invalid(format!(
                "the Customer's {} must not be blank",
                self.search_by.as_str()
            )));
        }
        Ok(())
    }

    /// What to look up: the identifier's kind and its value as stored.
    /// `invalid_request` when it is blank, `customer_not_found` when it
    /// cannot be an identifier of its kind (nobody can hold it).
    pub fn lookup(&self) -> ApiResult<(SearchBy, String)> {
        self.check_not_blank()?;
        let value = self
            .search_by
            .normalise(self.value)
            .map_err(|_| not_found(*self))?;
        Ok((self.search_by, value))
    }

    /// The Customer named, from what its [`CustomerRef::lookup`] `found`:
    /// `customer_not_found` when nobody holds the identifier, or when the
    /// Customer found does not hold the code sent beside its id.
    pub fn accept(&self, found: Option<StoredCustomer>) -> ApiResult<StoredCustomer> {
        let holds_the_code = |stored: &StoredCustomer| match self.and_code {
            None => true,
            Some(code) => SearchBy::Code
                .normalise(code)
                .is_ok_and(|code| stored.customer.code.as_deref() == Some(code.as_str())),
        };
        found.filter(holds_the_code).ok_or_else(|| not_found(*self))
    }

    /// The Customer named by `{prefix}_id`, `{prefix}_code` or both; 400
    /// `invalid_request` when neither is sent or the one sent is blank.
    pub fn required(
        id: &'a Option<String>,
        code: &'a Option<String>,
        prefix: &str,
    ) -> ApiResult<Self> {
        let named = Self::optional(id, code).ok_or_else(|| {
            ApiError::invalid(format!(
                "name the Customer with {prefix}_id or {prefix}_code"
            ))
        })?;
        named.check_not_blank()?;
        Ok(named)
    }
}

fn not_found(reference: CustomerRef<'_>) -> ApiError {
    let also = match reference.and_code {
        Some(code) => format!(" and code `{code}`"),
        None => String::new(),
    };
    ApiError::new(
        ErrorCode::CustomerNotFound,
        format!(
            "no Customer with {} `{}`{also}",
            reference.search_by.as_str(),
            reference.value
        ),
    )
}

fn inactive(customer: &Customer, why: &str) -> ApiError {
    ApiError::new(
        ErrorCode::CustomerInactive,
        format!("Customer {} is {why}", customer.id),
    )
}

/// Refuses changes to a Customer whose personal data is gone or who lives on
/// inside another Customer.
pub(crate) fn ensure_editable(customer: &Customer) -> ApiResult<()> {
    if customer.anonymized_at.is_some() {
        return Err(inactive(customer, "anonymized"));
    }
    if let Some(target) = &customer.merged_into {
        return Err(inactive(customer, &format!("merged into {target}")));
    }
    Ok(())
}

fn clean_attributes(attributes: BTreeMap<String, Value>) -> ApiResult<BTreeMap<String, Value>> {
    if attributes.len() > MAX_ATTRIBUTES {
        return Err(ApiError::invalid(format!(
            "a Customer has at most {MAX_ATTRIBUTES} attributes"
        )));
    }
    for name in attributes.keys() {
        validate_slug("attribute name", name)?;
    }
    Ok(attributes)
}

fn clean_card(card: NewCard, now: Timestamp) -> ApiResult<Card> {
    Ok(Card {
        number: normalise_card(&card.number)?,
        kind: clean_text("card kind", card.kind)?,
        created_at: now,
    })
}

impl Services {
    /// Creates (and by default enrolls) a Customer. An identifier already held
    /// by another Customer refuses with `customer_already_exists`.
    pub async fn create_customer(&self, company: &str, new: NewCustomer) -> ApiResult<Customer> {
        let now = self.now();
        let enroll = new.enroll.unwrap_or(true);
        let mut cards: Vec<Card> = Vec::new();
        for card in new.cards.unwrap_or_default() {
            let card = clean_card(card, now)?;
            if cards.iter().any(|c| c.number == card.number) {
                return Err(ApiError::invalid(format!(
                    "card {} is listed twice",
                    card.number
                )));
            }
            cards.push(card);
        }
        if cards.len() > MAX_CARDS {
            return Err(ApiError::invalid(format!(
                "a Customer holds at most {MAX_CARDS} cards"
            )));
        }
        let language = new.language.map(|l| l.trim().to_string());
        if let Some(language) = &language {
            validate_language(language)?;
        }
        let customer = Customer {
            id: new_customer_id(),
            code: new.code.as_deref().map(normalise_code).transpose()?,
            email: new.email.as_deref().map(normalise_email).transpose()?,
            phone: new.phone.as_deref().map(normalise_phone).transpose()?,
            first_name: clean_text("first_name", new.first_name)?,
            last_name: clean_text("last_name", new.last_name)?,
            birth_date: new
                .birth_date
                .map(|date| checked_birth_date(date, now.as_datetime().date_naive()))
                .transpose()?,
            gender: clean_text("gender", new.gender)?,
            language,
            country: new.country.as_deref().map(normalise_country).transpose()?,
            postal_code: clean_text("postal_code", new.postal_code)?,
            active: true,
            loyalty_member: enroll,
            enrolled_at: enroll.then_some(now),
            consents: new
                .consents
                .map(|c| Consents {
                    recorded_at: Some(now),
                    ..c
                })
                .unwrap_or_default(),
            cards,
            attributes: clean_attributes(new.attributes.unwrap_or_default())?,
            anonymized_at: None,
            merged_into: None,
            created_at: now,
            updated_at: now,
        };
        answer_now(&customer).await;
        self.store.insert_customer(company, &customer).await?;
        tracing::info!(company, customer = %customer.id, "customer created");
        // Its welcome campaigns, before the answer: created, then enrolled.
        self.customer_moment(company, &customer.id, CustomerMoment::Created)
            .await;
        if customer.loyalty_member {
            self.customer_moment(company, &customer.id, CustomerMoment::Enrolled)
                .await;
        }
        Ok(customer)
    }

    /// The Customer named by `reference`, with its stored revision.
    pub async fn find_customer(
        &self,
        company: &str,
        reference: CustomerRef<'_>,
    ) -> ApiResult<StoredCustomer> {
        let (kind, value) = reference.lookup()?;
        let found = self.store.customer_by(company, kind, &value).await?;
        reference.accept(found)
    }

    /// Reads, changes and writes back a Customer, on fresh reads when another
    /// request changed it in between ([`crate::common::retry`]), so no
    /// concurrent update is lost.
    pub(crate) async fn modify_customer<F>(
        &self,
        company: &str,
        reference: CustomerRef<'_>,
        change: F,
    ) -> ApiResult<Customer>
    where
        F: Fn(&mut Customer) -> ApiResult<()>,
    {
        let change = &change;
        crate::common::retry::again_when_changed(|| async move {
            let stored = self.find_customer(company, reference).await?;
            let mut customer = stored.customer.clone();
            change(&mut customer)?;
            let reported = reported_change(&stored.customer, &customer);
            customer.updated_at = self.now();
            answer_now(&customer).await;
            self.store
                .replace_customer(company, &stored, &customer, reported)
                .await?;
            Ok(customer)
        })
        .await
    }

    /// Applies a partial update.
    pub async fn update_customer(
        &self,
        company: &str,
        reference: CustomerRef<'_>,
        patch: CustomerPatch,
    ) -> ApiResult<Customer> {
        let patch = clean_patch(patch, self.now())?;
        let now = self.now();
        // Whether the attempt that was written made it a loyalty member.
        let enrolled = std::sync::atomic::AtomicBool::new(false);
        let customer = self
            .modify_customer(company, reference, |customer| {
                ensure_editable(customer)?;
                let was_member = customer.loyalty_member;
                apply_patch(customer, &patch, now);
                enrolled.store(
                    !was_member && customer.loyalty_member,
                    std::sync::atomic::Ordering::Relaxed,
                );
                Ok(())
            })
            .await?;
        tracing::info!(company, customer = %customer.id, "customer updated");
        if enrolled.load(std::sync::atomic::Ordering::Relaxed) {
            self.customer_moment(company, &customer.id, CustomerMoment::Enrolled)
                .await;
        }
        Ok(customer)
    }

    /// Attaches a card to an active Customer.
    pub async fn add_card(
        &self,
        company: &str,
        reference: CustomerRef<'_>,
        card: NewCard,
    ) -> ApiResult<Customer> {
        let card = clean_card(card, self.now())?;
        self.modify_customer(company, reference, |customer| {
            ensure_editable(customer)?;
            if !customer.active {
                return Err(inactive(customer, "inactive"));
            }
            if customer.cards.iter().any(|c| c.number == card.number) {
                return Err(ApiError::new(
                    ErrorCode::IdentifierInUse,
                    format!(
                        "Customer {} already holds card {}",
                        customer.id, card.number
                    ),
                ));
            }
            if customer.cards.len() >= MAX_CARDS {
                return Err(ApiError::invalid(format!(
                    "a Customer holds at most {MAX_CARDS} cards"
                )));
            }
            customer.cards.push(card.clone());
            Ok(())
        })
        .await
    }

    /// Erases the Customer's personal data (idempotent).
    async fn anonymize_customer(
        &self,
        company: &str,
        reference: CustomerRef<'_>,
    ) -> ApiResult<Customer> {
        let now = self.now();
        let customer = self
            .modify_customer(company, reference, |customer| {
                if customer.anonymized_at.is_none() {
                    anonymize(customer, now);
                }
                Ok(())
            })
            .await?;
        self.store
            .forget_voucher_choices(company, &customer.id)
            .await?;
        Ok(customer)
    }

    /// Anonymizes (default) or deletes a Customer.
    pub async fn delete_customer(
        &self,
        company: &str,
        reference: CustomerRef<'_>,
        mode: DeleteMode,
    ) -> ApiResult<Customer> {
        match mode {
            DeleteMode::Anonymize => {
                let customer = self.anonymize_customer(company, reference).await?;
                // Customers merged into this one are the same person: their
                // records are erased with it.
                for merged in self.store.merged_into(company, &customer.id).await? {
                    self.anonymize_customer(company, CustomerRef::id(&merged))
                        .await?;
                    self.store.delete_associations_of(company, &merged).await?;
                    self.store.delete_merge_records_of(company, &merged).await?;
                }
                // The links are personal data too.
                self.store
                    .delete_associations_of(company, &customer.id)
                    .await?;
                tracing::info!(company, customer = %customer.id, "customer anonymized");
                Ok(customer)
            }
            DeleteMode::Delete => {
                let stored = self.find_customer(company, reference).await?;
                if !self
                    .store
                    .merged_into(company, &stored.customer.id)
                    .await?
                    .is_empty()
                {
                    return Err(ApiError::new(
                        ErrorCode::DeleteNotAllowed,
                        format!(
                            "other Customers are merged into {}; unmerge them or anonymize instead",
                            stored.customer.id
                        ),
                    ));
                }
                self.store.delete_customer(company, &stored).await?;
                self.store
                    .delete_associations_of(company, &stored.customer.id)
                    .await?;
                self.store
                    .delete_merge_records_of(company, &stored.customer.id)
                    .await?;
                tracing::info!(company, customer = %stored.customer.id, "customer deleted");
                Ok(stored.customer)
            }
        }
    }
}

/// The webhook event a change of a Customer from `before` to `after`
/// reports: `customer.anonymized` when it erased its personal data,
/// `customer.updated` when it changed anything else, none when it changed
/// nothing.
fn reported_change(before: &Customer, after: &Customer) -> Option<&'static str> {
    if before.anonymized_at.is_none() && after.anonymized_at.is_some() {
        Some("customer.anonymized")
    } else if before != after {
        Some("customer.updated")
    } else {
        None
    }
}
