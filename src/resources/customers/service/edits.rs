//! Pure changes to a Customer: validating and applying a patch, anonymizing.

use std::collections::BTreeMap;

use crate::common::time::Timestamp;
use crate::common::validate::validate_language;
use crate::common::validate::validate_slug;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::customers::model::Consents;
use crate::resources::customers::model::Customer;
use crate::resources::customers::model::CustomerPatch;
use crate::resources::customers::model::checked_birth_date;
use crate::resources::customers::model::clean_text;
use crate::resources::customers::model::normalise_code;
use crate::resources::customers::model::normalise_country;
use crate::resources::customers::model::normalise_email;
use crate::resources::customers::model::normalise_phone;

/// A patch whose values are already normalised, so applying it cannot fail.
pub(crate) struct CleanPatch {
    patch: CustomerPatch,
}

pub(crate) fn clean_patch(mut patch: CustomerPatch, now: Timestamp) -> ApiResult<CleanPatch> {
    use poem_openapi::types::MaybeUndefined;
    fn normalise(
        field: MaybeUndefined<String>,
        f: impl Fn(&str) -> ApiResult<String>,
    ) -> ApiResult<MaybeUndefined<String>> {
        Ok(match field {
            MaybeUndefined::Value(value) => MaybeUndefined::Value(f(&value)?),
            other => other,
        })
    }
    let text = |field: &'static str| {
        move |value: &str| -> ApiResult<String> {
            clean_text(field, Some(value.to_string()))?.ok_or_else(|| {
                ApiError::invalid(format!("{field} cannot be empty; send null to clear it"))
            })
        }
    };
    patch.code = normalise(patch.code, normalise_code)?;
    patch.email = normalise(patch.email, normalise_email)?;
    patch.phone = normalise(patch.phone, normalise_phone)?;
    patch.country = normalise(patch.country, normalise_country)?;
    patch.first_name = normalise(patch.first_name, text("first_name"))?;
    patch.last_name = normalise(patch.last_name, text("last_name"))?;
    patch.gender = normalise(patch.gender, text("gender"))?;
    patch.postal_code = normalise(patch.postal_code, text("postal_code"))?;
    if let MaybeUndefined::Value(date) = patch.birth_date {
        checked_birth_date(date, now.as_datetime().date_naive())?;
    }
    patch.language = normalise(patch.language, |l| {
        validate_language(l.trim())?;
        Ok(l.trim().to_string())
    })?;
    if let Some(attributes) = &patch.attributes {
        for name in attributes.keys() {
            validate_slug("attribute name", name)?;
        }
    }
    Ok(CleanPatch { patch })
}

pub(crate) fn apply_patch(customer: &mut Customer, clean: &CleanPatch, now: Timestamp) {
    let patch = &clean.patch;
    patch.code.clone().update_to(&mut customer.code);
    patch.email.clone().update_to(&mut customer.email);
    patch.phone.clone().update_to(&mut customer.phone);
    patch.first_name.clone().update_to(&mut customer.first_name);
    patch.last_name.clone().update_to(&mut customer.last_name);
    patch.birth_date.update_to(&mut customer.birth_date);
    patch.gender.clone().update_to(&mut customer.gender);
    patch.language.clone().update_to(&mut customer.language);
    patch.country.clone().update_to(&mut customer.country);
    patch
        .postal_code
        .clone()
        .update_to(&mut customer.postal_code);
    if let Some(active) = patch.active {
        customer.active = active;
    }
    if let Some(member) = patch.loyalty_member {
        if member && !customer.loyalty_member {
            customer.enrolled_at = Some(now);
        }
        customer.loyalty_member = member;
    }
    if let Some(consents) = &patch.consents {
        customer.consents = Consents {
            recorded_at: Some(now),
            ..consents.clone()
        };
    }
    if let Some(attributes) = &patch.attributes {
        for (name, value) in attributes {
            if value.is_null() {
                customer.attributes.remove(name);
            } else {
                customer.attributes.insert(name.clone(), value.clone());
            }
        }
    }
}

/// Erases every piece of personal data, keeping what accounting needs: the
/// id, the dates, and the membership flags.
pub(crate) fn anonymize(customer: &mut Customer, now: Timestamp) {
    *customer = Customer {
        id: customer.id.clone(),
        code: None,
        email: None,
        phone: None,
        first_name: None,
        last_name: None,
        birth_date: None,
        gender: None,
        language: None,
        country: None,
        postal_code: None,
        active: false,
        loyalty_member: false,
        enrolled_at: customer.enrolled_at,
        consents: Consents::default(),
        cards: Vec::new(),
        attributes: BTreeMap::new(),
        anonymized_at: Some(now),
        merged_into: customer.merged_into.clone(),
        created_at: customer.created_at,
        updated_at: now,
    };
}
