//! Associations: typed links between two active Customers of one Company.

use crate::common::retry::again_when_changed;
use crate::common::validate::validate_slug;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::answer::answer_now;
use crate::resources::associations::model::Association;
use crate::resources::associations::model::AssociationInput;
use crate::resources::customers::model::Customer;
use crate::resources::customers::service::CustomerRef;
use crate::services::Services;

/// An associated Customer as seen from one side of the link.
#[derive(Debug, Clone, PartialEq)]
pub struct Associate {
    /// The link.
    pub association: Association,
    /// The Customer on the other side.
    pub customer: Customer,
}

fn not_associated(a: &str, b: &str) -> ApiError {
    ApiError::new(
        ErrorCode::AssociationNotFound,
        format!("Customers {a} and {b} are not associated"),
    )
}

impl Services {
    /// Checks both Customers exist in the Company and can be linked.
    async fn association_parties(&self, company: &str, input: &AssociationInput) -> ApiResult<()> {
        validate_slug("association type", &input.kind)?;
        for id in [&input.customer_id, &input.associate_id] {
            CustomerRef::id(id).check_not_blank()?;
        }
        if input.customer_id == input.associate_id {
            return Err(ApiError::new(
                ErrorCode::SameCustomer,
                "a Customer cannot be associated with itself",
            ));
        }
        for id in [&input.customer_id, &input.associate_id] {
            let stored = self.find_customer(company, CustomerRef::id(id)).await?;
            crate::resources::customers::service::ensure_editable(&stored.customer)?;
        }
        Ok(())
    }

    /// Links two Customers.
    pub async fn create_association(
        &self,
        company: &str,
        input: AssociationInput,
    ) -> ApiResult<Association> {
        self.association_parties(company, &input).await?;
        let now = self.now();
        let association = Association {
            customer_id: input.customer_id,
            associate_id: input.associate_id,
            kind: input.kind,
            created_at: now,
            updated_at: now,
        };
        answer_now(&association).await;
        self.store.insert_association(company, &association).await?;
        Ok(association)
    }

    /// Changes the type of an existing link.
    pub async fn update_association(
        &self,
        company: &str,
        input: AssociationInput,
    ) -> ApiResult<Association> {
        self.association_parties(company, &input).await?;
        let (a, b) = (&input.customer_id, &input.associate_id);
        again_when_changed(|| async {
            let held = self
                .store
                .association(company, a, b)
                .await?
                .ok_or_else(|| not_associated(a, b))?;
            let changed = Association {
                kind: input.kind.clone(),
                updated_at: self.now(),
                ..held
            };
            answer_now(&changed).await;
            self.store
                .update_association_kind(company, &changed)
                .await?;
            Ok(changed)
        })
        .await
    }

    /// Removes a link.
    pub async fn delete_association(
        &self,
        company: &str,
        customer_id: &str,
        associate_id: &str,
    ) -> ApiResult<()> {
        for id in [customer_id, associate_id] {
            CustomerRef::id(id).check_not_blank()?;
        }
        if self
            .store
            .delete_association(company, customer_id, associate_id)
            .await?
        {
            Ok(())
        } else {
            Err(not_associated(customer_id, associate_id))
        }
    }

    /// The Customers linked to `reference`, with each link.
    pub async fn associates(
        &self,
        company: &str,
        reference: CustomerRef<'_>,
    ) -> ApiResult<Vec<Associate>> {
        let customer = self.find_customer(company, reference).await?.customer;
        let associations = self.store.associations_of(company, &customer.id).await?;
        let ids: Vec<String> = associations
            .iter()
            .map(|a| a.other(&customer.id).to_string())
            .collect();
        let customers = self.store.customers_by_ids(company, &ids).await?;
        Ok(associations
            .into_iter()
            .filter_map(|association| {
                let other = association.other(&customer.id).to_string();
                customers
                    .iter()
                    .find(|c| c.id == other)
                    .map(|found| Associate {
                        association,
                        customer: found.clone(),
                    })
            })
            .collect())
    }
}
