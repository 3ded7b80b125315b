//! Discounts: POST /discounts/trigger.

use poem_openapi::param::Query;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::common::pagination::PageRequest;
use crate::error::ErrorCode;
use crate::http::auth::Tier1;
use crate::http::auth::Tier2;
use crate::http::errors::ErrorResponse;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::customers::service::CustomerRef;
use crate::resources::discounts::model::DiscountRedeem;
use crate::resources::discounts::model::DiscountTransaction;
use crate::resources::discounts::model::DiscountTransactionList;
use crate::resources::discounts::transactions::GivenAt;
use crate::resources::vouchers::model::Voucher;

#[derive(Tags)]
enum DiscountTags {
    /// Discount campaigns and the Coupons they are triggered through.
    Discounts,
}

/// A Coupon to trigger for a Customer.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct CouponTrigger {
    /// The Customer, by id.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: Option<String>,
    /// The Customer, by code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_code: Option<String>,
    /// The Coupon to issue a Voucher of.
    pub coupon_id: i64,
}

/// Discount endpoints.
#[derive(Debug, Default)]
pub struct DiscountsApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for DiscountsApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "POST /discounts/trigger",
            codes: &[
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::CouponNotFound,
                ErrorCode::VoucherInactive,
                ErrorCode::VoucherExpired,
                ErrorCode::VoucherCodeTaken,
                ErrorCode::CouponIssueLimitReached,
            ],
        },
        OperationErrors {
            operation: "POST /discounts/redeem",
            codes: &[
                ErrorCode::CustomerNotFound,
                ErrorCode::CustomerInactive,
                ErrorCode::DiscountNotFound,
                ErrorCode::DiscountUnavailable,
                ErrorCode::DiscountLimitReached,
            ],
        },
        OperationErrors {
            operation: "GET /discounts/transactions",
            codes: &[ErrorCode::CustomerNotFound],
        },
    ];
}

#[OpenApi(tag = "DiscountTags::Discounts")]
impl DiscountsApi {
    /// Trigger a coupon with a discount for a Customer.
    ///
    /// Issues the Customer a Voucher of the Coupon `coupon_id`, with a new
    /// unique code from its `code_pattern` and its `uses_per_voucher` uses;
    /// each call issues one more (send an `Idempotency-Key` to retry safely).
    /// For a Coupon with a `static_code` it answers the Customer's own
    /// Voucher of that code (the same one however often it is called), whose
    /// uses count the Customer's uses of the code. Refused with `voucher_inactive` or
    /// `voucher_expired` (422) when the Coupon is inactive or over.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/discounts/trigger", method = "post")]
    async fn trigger(
        &self,
        caller: Tier1<'_>,
        body: Json<CouponTrigger>,
    ) -> Result<Json<Voucher>, ErrorResponse> {
        let body = body.0;
        let customer = CustomerRef::required(&body.customer_id, &body.customer_code, "customer")?;
        caller.answers_with(Voucher::clone);
        Ok(Json(
            caller
                .services
                .trigger_coupon(&caller.company, customer, body.coupon_id)
                .await?,
        ))
    }

    /// Redeem a discount.
    ///
    /// Gives the Customer the discount campaign `discount_id` outside a cart
    /// (a service desk's goodwill discount, for example) and records it in
    /// their history (GET /discounts/transactions). A percentage is taken of
    /// `base_amount`; a fixed amount takes at most `base_amount`; both at
    /// most the campaign's `max_amount`. The campaign's conditions on a cart
    /// (`when`, `lines`) do not apply outside one; its activity and dates
    /// do, and it must take something off (422 `discount_unavailable`).
    /// Send an `Idempotency-Key` to retry safely.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/discounts/redeem", method = "post")]
    async fn redeem(
        &self,
        caller: Tier1<'_>,
        body: Json<DiscountRedeem>,
    ) -> Result<Json<DiscountTransaction>, ErrorResponse> {
        let body = body.0;
        let customer = CustomerRef::required(&body.customer_id, &body.customer_code, "customer")?;
        let given = GivenAt {
            base_amount: &body.base_amount,
            location_code: body.location_code.as_deref(),
            description: body.description.as_deref(),
        };
        caller.answers_with(DiscountTransaction::clone);
        Ok(Json(
            caller
                .services
                .redeem_discount(
                    &caller.company,
                    customer,
                    body.discount_id,
                    given,
                    caller.language()?,
                )
                .await?,
        ))
    }

    /// Redeemed-discount history of a Customer.
    ///
    /// Every discount the Customer got, newest first, one transaction per
    /// occasion: a realtime cart (`source: cart`) with each discount campaign
    /// (`given_by: campaign`) and each Voucher (`given_by: voucher`) that took
    /// money off it and what each took, or a discount given by
    /// POST /discounts/redeem (`source: redeem`). A cancelled cart's
    /// transaction stays, with `cancelled_at`.
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/discounts/transactions", method = "get")]
    async fn transactions(
        &self,
        caller: Tier2<'_>,
        /// The Customer, by id.
        #[oai(validator(min_length = 1, max_length = 128))]
        customer_id: Query<Option<String>>,
        /// The Customer, by code.
        #[oai(validator(min_length = 1, max_length = 128))]
        customer_code: Query<Option<String>>,
        #[oai(validator(minimum(value = 1.0), maximum(value = 100.0)))] per_page: Query<
            Option<u32>,
        >,
        #[oai(validator(max_length = 128))] starting_after: Query<Option<String>>,
    ) -> Result<Json<DiscountTransactionList>, ErrorResponse> {
        let page = PageRequest::new(per_page.0, starting_after.0)?;
        let customer = CustomerRef::required(&customer_id.0, &customer_code.0, "customer")?;
        let page = caller
            .services
            .discount_history(&caller.company, customer, page)
            .await?;
        Ok(Json(DiscountTransactionList {
            transactions: page.items,
            next_token_starts_after: page.next_token_starts_after,
        }))
    }
}
