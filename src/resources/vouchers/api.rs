//! Vouchers: GET /vouchers, GET /vouchers/{code}, POST /vouchers/redeem,
//! POST /vouchers/rollback.

use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi, Tags};

use crate::common::pagination::PageRequest;
use crate::error::ErrorCode;
use crate::http::auth::Tier1;
use crate::http::auth::Tier2;
use crate::http::errors::ErrorResponse;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::customers::service::CustomerRef;
use crate::resources::vouchers::model::Voucher;
use crate::resources::vouchers::model::VoucherRedemption;
use crate::resources::vouchers::redemptions::RedeemAt;

#[derive(Tags)]
pub(crate) enum VoucherTags {
    /// Vouchers: the codes Customers present, issued from Coupons.
    Vouchers,
}

/// A page of Vouchers.
#[derive(Debug, Object)]
pub struct VoucherList {
    /// The Vouchers, in issue order, each in the state it is in now.
    pub vouchers: Vec<Voucher>,
    /// Pass as `starting_after` for the next page; absent on the last page.
    #[oai(skip_serializing_if_is_none)]
    pub next_token_starts_after: Option<String>,
}

/// Vouchers to redeem.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct VoucherRedeem {
    /// The Customer, by id.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: Option<String>,
    /// The Customer, by code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_code: Option<String>,
    /// The codes to redeem, each once (1 to 50; letters, digits, spaces and
    /// dashes, compared ignoring case, spaces and dashes).
    #[oai(validator(
        min_items = 1,
        max_items = 50,
        max_length = 64,
        pattern = r"^[A-Za-z0-9 -]*[A-Za-z0-9][A-Za-z0-9 -]*$"
    ))]
    pub codes: Vec<String>,
    /// The store they are redeemed at; a Coupon limited to stores needs it.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub location_code: Option<String>,
    /// The cart they are redeemed for, kept with each redemption.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub cart_code: Option<String>,
    /// The hold (POST /vouchers/{code}/freeze) whose use this redemption
    /// takes; a frozen Voucher is refused (`voucher_frozen`) without it.
    #[oai(validator(min_length = 1, max_length = 64))]
    pub reservation_id: Option<String>,
}

/// Redeemed Vouchers.
#[derive(Debug, Object)]
pub struct RedeemedVouchers {
    /// One redemption per code, in the order sent.
    pub redemptions: Vec<VoucherRedemption>,
    /// The Vouchers after their use, in the order sent.
    pub vouchers: Vec<Voucher>,
}

/// Redemptions to roll back: `codes` (each Voucher's latest redemption not
/// rolled back, of the Customer named) or `redemption_ids`, one of them.
#[derive(Debug, Object)]
#[oai(deny_unknown_fields)]
pub struct VoucherRollback {
    /// The Customer, by id (needed with `codes`).
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: Option<String>,
    /// The Customer, by code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_code: Option<String>,
    /// Codes whose latest redemption is rolled back, each once.
    #[oai(
        default,
        validator(
            max_items = 50,
            max_length = 64,
            pattern = r"^[A-Za-z0-9 -]*[A-Za-z0-9][A-Za-z0-9 -]*$"
        )
    )]
    pub codes: Vec<String>,
    /// Redemptions to roll back, each once.
    #[oai(default, validator(max_items = 50, min_length = 1, max_length = 64))]
    pub redemption_ids: Vec<String>,
}

/// Rolled-back redemptions.
#[derive(Debug, Object)]
pub struct RolledBackRedemptions {
    /// Each redemption rolled back, with `rolled_back_at`.
    pub redemptions: Vec<VoucherRedemption>,
}

/// What one Coupon never discounts.
#[derive(Debug, Object)]
pub struct CouponExclusions {
    /// The Coupon.
    pub coupon_id: i64,
    /// Product codes never discounted.
    pub excluded_products: Vec<String>,
    /// Product categories (cart line taxonomies) never discounted.
    pub excluded_categories: Vec<String>,
}

/// Excluded products and categories, per Coupon.
#[derive(Debug, Object)]
pub struct ExcludedProducts {
    /// By Coupon id.
    pub coupons: Vec<CouponExclusions>,
}

/// Voucher endpoints.
#[derive(Debug, Default)]
pub struct VouchersApi;

/// The refusals of a Voucher that is unknown (and of a key guessing
/// codes) or cannot be used now.
pub const VOUCHER_REFUSALS: &[ErrorCode] = &[
    ErrorCode::VoucherNotFound,
    ErrorCode::VoucherLookupsLimited,
    ErrorCode::VoucherFrozen,
    ErrorCode::VoucherRedeemed,
    ErrorCode::VoucherExpired,
    ErrorCode::VoucherInactive,
    ErrorCode::VoucherDeleted,
    ErrorCode::VoucherOutLocation,
    ErrorCode::VoucherOutDate,
];

/// A Voucher's refusals, and the Customer not found (operations naming
/// both).
pub const VOUCHER_REFUSALS_AND_CUSTOMER: &[ErrorCode] = &{
    let mut codes = [ErrorCode::CustomerNotFound; VOUCHER_REFUSALS.len() + 1];
    let mut i = 0;
    while i < VOUCHER_REFUSALS.len() {
        codes[i + 1] = VOUCHER_REFUSALS[i];
        i += 1;
    }
    codes
};

/// A Voucher's refusals, and an unknown or inactive Customer (a redemption).
const REDEEM_REFUSALS: &[ErrorCode] = &{
    let mut codes = [ErrorCode::CustomerInactive; VOUCHER_REFUSALS_AND_CUSTOMER.len() + 2];
    let mut i = 0;
    while i < VOUCHER_REFUSALS_AND_CUSTOMER.len() {
        codes[i + 2] = VOUCHER_REFUSALS_AND_CUSTOMER[i];
        i += 1;
    }
    // A Coupon's limit reached: the use would go past it.
    codes[1] = ErrorCode::VoucherLimitReached;
    codes
};

/// The error codes of its own each operation answers.
impl DeclaredErrors for VouchersApi {
    const ERRORS: &'static [OperationErrors] = &[
        OperationErrors {
            operation: "GET /vouchers",
            codes: &[ErrorCode::CustomerNotFound],
        },
        OperationErrors {
            operation: "GET /vouchers/{code}",
            codes: VOUCHER_REFUSALS,
        },
        OperationErrors {
            operation: "GET /vouchers/excluded_products",
            codes: &[ErrorCode::CouponNotFound, ErrorCode::VoucherNotFound],
        },
        OperationErrors {
            operation: "POST /vouchers/redeem",
            codes: REDEEM_REFUSALS,
        },
        OperationErrors {
            operation: "POST /vouchers/rollback",
            codes: &[
                ErrorCode::CustomerNotFound,
                ErrorCode::VoucherNotFound,
                ErrorCode::RedemptionNotFound,
                ErrorCode::VoucherNotRedeemed,
            ],
        },
    ];
}

#[OpenApi(tag = "VoucherTags::Vouchers")]
impl VouchersApi {
    /// List Vouchers, optionally of one Customer and one Coupon.
    ///
    /// Each Voucher is answered in the state it is in now: `active`,
    /// `frozen`, `redeemed` (no uses left), `expired` (its Coupon's
    /// `valid_to` or its own `valid_until` has passed), `inactive` or
    /// `deleted` (its Coupon is).
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/vouchers", method = "get")]
    #[allow(clippy::too_many_arguments)]
    async fn list(
        &self,
        caller: Tier2<'_>,
        /// The Customer, by id.
        #[oai(validator(min_length = 1, max_length = 128))]
        customer_id: Query<Option<String>>,
        /// The Customer, by code.
        #[oai(validator(min_length = 1, max_length = 128))]
        customer_code: Query<Option<String>>,
        /// Only Vouchers of this Coupon.
        coupon_id: Query<Option<i64>>,
        #[oai(validator(minimum(value = 1.0), maximum(value = 100.0)))] per_page: Query<
            Option<u32>,
        >,
        #[oai(validator(max_length = 128))] starting_after: Query<Option<String>>,
    ) -> Result<Json<VoucherList>, ErrorResponse> {
        let page = PageRequest::new(per_page.0, starting_after.0)?;
        let customer = CustomerRef::optional(&customer_id.0, &customer_code.0);
        if let Some(customer) = &customer {
            customer.check_not_blank()?;
        }
        let page = caller
            .services
            .vouchers(&caller.company, customer, coupon_id.0, page)
            .await?;
        Ok(Json(VoucherList {
            vouchers: page.items,
            next_token_starts_after: page.next_token_starts_after,
        }))
    }

    /// Get or validate a Voucher.
    ///
    /// Answers the Voucher when it can be used now (by the Customer and at
    /// the store named, when named) and changes nothing. When it cannot, the
    /// answer is the refusal a redemption would get: `voucher_not_found`
    /// (404: no such code in the Company, or not this Customer's),
    /// `voucher_redeemed`, `voucher_expired`, `voucher_inactive`,
    /// `voucher_deleted`, `voucher_out_location` or `voucher_out_date` (not
    /// yet valid, or outside its weekdays or hours), all 422. Codes are read
    /// ignoring case, spaces and dashes, `O` as `0` and `I` and `L` as `1`.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/vouchers/:code", method = "get")]
    async fn get(
        &self,
        caller: Tier1<'_>,
        /// The Voucher's code.
        #[oai(validator(min_length = 1, max_length = 64))]
        code: Path<String>,
        /// The Customer presenting it, by id.
        #[oai(validator(min_length = 1, max_length = 128))]
        customer_id: Query<Option<String>>,
        /// The Customer presenting it, by code.
        #[oai(validator(min_length = 1, max_length = 128))]
        customer_code: Query<Option<String>>,
        /// The store it is presented at.
        #[oai(validator(min_length = 1, max_length = 128))]
        location_code: Query<Option<String>>,
    ) -> Result<Json<Voucher>, ErrorResponse> {
        let customer = CustomerRef::optional(&customer_id.0, &customer_code.0);
        if let Some(customer) = &customer {
            customer.check_not_blank()?;
        }
        let services = caller.services;
        let validated = services.validate_voucher(
            &caller.company,
            &code.0,
            customer,
            location_code.0.as_deref(),
        );
        Ok(Json(
            services
                .guarded_lookup(&caller.company, &caller.key, validated)
                .await?,
        ))
    }

    /// Redeem a list of Vouchers.
    ///
    /// Uses one use of each Voucher of `codes` for the Customer, all or
    /// none: a till is never left with half its Vouchers taken. When any
    /// cannot be used, none is, and the answer is the first one's refusal
    /// (`error`, `code`, its status) with `errors[]` naming each code that
    /// failed and why. Each use has a `redemption_id` to roll it back by.
    /// Under any concurrency a Voucher's uses are never exceeded: of two
    /// tills redeeming its last use at once, one gets `voucher_redeemed`.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/vouchers/redeem", method = "post")]
    async fn redeem(
        &self,
        caller: Tier1<'_>,
        body: Json<VoucherRedeem>,
    ) -> Result<Json<RedeemedVouchers>, ErrorResponse> {
        let body = body.0;
        let customer = CustomerRef::required(&body.customer_id, &body.customer_code, "customer")?;
        let services = caller.services;
        caller.answers_with(
            |(redemptions, vouchers): &(Vec<VoucherRedemption>, Vec<Voucher>)| RedeemedVouchers {
                redemptions: redemptions.clone(),
                vouchers: vouchers.clone(),
            },
        );
        let redeemed = services.redeem_vouchers(
            &caller.company,
            customer,
            &body.codes,
            RedeemAt {
                location_code: body.location_code.as_deref(),
                cart_code: body.cart_code.as_deref(),
                reservation_id: body.reservation_id.as_deref(),
            },
        );
        let (redemptions, vouchers) = services
            .guarded_lookup(&caller.company, &caller.key, redeemed)
            .await?;
        Ok(Json(RedeemedVouchers {
            redemptions,
            vouchers,
        }))
    }

    /// Roll back a list of Vouchers.
    ///
    /// Gives back the use each redemption took: by `redemption_ids`, or by
    /// `codes` (each Voucher's latest redemption not rolled back; the
    /// Customer is named). All or none, with `errors[]` like a redemption;
    /// a redemption rolled back already is `voucher_not_redeemed`, and a
    /// retried rollback with its `Idempotency-Key` replays the first answer.
    /// The Voucher is `active` again unless its Coupon has ended meanwhile.
    ///
    /// Rate limit: tier 1 (critical).
    #[oai(path = "/vouchers/rollback", method = "post")]
    async fn rollback(
        &self,
        caller: Tier1<'_>,
        body: Json<VoucherRollback>,
    ) -> Result<Json<RolledBackRedemptions>, ErrorResponse> {
        let body = body.0;
        let customer = CustomerRef::optional(&body.customer_id, &body.customer_code);
        if let Some(customer) = &customer {
            customer.check_not_blank()?;
        }
        caller.answers_with(
            |redemptions: &Vec<VoucherRedemption>| RolledBackRedemptions {
                redemptions: redemptions.clone(),
            },
        );
        let redemptions = caller
            .services
            .roll_back_vouchers(&caller.company, customer, &body.codes, &body.redemption_ids)
            .await?;
        Ok(Json(RolledBackRedemptions { redemptions }))
    }

    /// Excluded products and product categories.
    ///
    /// What each Coupon never discounts: of the Coupon `coupon_id`, of the
    /// Voucher `code`'s Coupon, or of every Coupon (neither given).
    ///
    /// Rate limit: tier 2 (moderate).
    #[oai(path = "/vouchers/excluded_products", method = "get")]
    async fn excluded_products(
        &self,
        caller: Tier2<'_>,
        /// One Coupon.
        coupon_id: Query<Option<i64>>,
        /// The Coupon of this Voucher.
        #[oai(validator(min_length = 1, max_length = 64))]
        code: Query<Option<String>>,
    ) -> Result<Json<ExcludedProducts>, ErrorResponse> {
        let coupons = caller
            .services
            .coupon_exclusions(&caller.company, coupon_id.0, code.0.as_deref())
            .await?
            .into_iter()
            .map(|(coupon_id, products, categories)| CouponExclusions {
                coupon_id,
                excluded_products: products,
                excluded_categories: categories,
            })
            .collect();
        Ok(Json(ExcludedProducts { coupons }))
    }
}
