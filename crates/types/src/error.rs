//! The one registry of error codes, and the error type every layer returns.
//!
//! Each [`ErrorCode`] has exactly one machine-friendly `code` string and one HTTP
//! status. Handlers never pick a status themselves: they return an [`ApiError`]
//! carrying a code, and the registry decides how it is rendered. `docs/errors.md` and
//! the OpenAPI description print [`ErrorCode::ALL`] as a table.

use std::fmt;

use http::StatusCode;

/// Declares [`ErrorCode`] from one line per code: its variant, its string,
/// its HTTP status and its meaning (the variant's doc and the documentation
/// table's text). The order of the lines is the order of [`ErrorCode::ALL`].
macro_rules! error_codes {
    ($($variant:ident: $code:literal, $status:ident, $meaning:literal;)+) => {
        /// Every error code the service can answer with.
        ///
        /// The codes named by the interface keep their names; the ones added for
        /// protocol-level failures (`route_not_found`, `unsupported_media_type`, ...)
        /// follow the same snake_case style.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $(#[doc = $meaning] $variant,)+
        }

        impl ErrorCode {
            /// Every code, in the order the documentation lists them.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)+];

            /// The machine-friendly code sent in the `code` field.
            pub const fn code(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $code,)+
                }
            }

            /// The one HTTP status this code is answered with.
            pub const fn status(self) -> StatusCode {
                match self {
                    $(ErrorCode::$variant => StatusCode::$status,)+
                }
            }

            /// What the code means, for the documentation table.
            pub const fn meaning(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $meaning,)+
                }
            }
        }
    };
}

// One line per code: variant, code, HTTP status, meaning.
#[rustfmt::skip]
error_codes! {
    InvalidRequest: "invalid_request", BAD_REQUEST, "A required parameter is missing, a value is invalid, or the body is not valid JSON.";
    Forbidden: "forbidden", FORBIDDEN, "Authentication failed (missing or wrong X-Api-Key, X-Api-Secret or X-Api-Version, or a disabled key). Body: {\"message\":\"Forbidden\"}.";
    ForbiddenRequest: "forbidden_request", FORBIDDEN, "The resource is forbidden for this request.";
    OperatorUnauthorized: "operator_unauthorized", UNAUTHORIZED, "Back-office only: the operator token is missing or wrong.";
    RouteNotFound: "route_not_found", NOT_FOUND, "No endpoint exists at this path.";
    CompanyNotFound: "company_not_found", NOT_FOUND, "The Company does not exist.";
    ApiKeyNotFound: "api_key_not_found", NOT_FOUND, "The API key does not exist.";
    CustomerNotFound: "customer_not_found", NOT_FOUND, "No Customer of this Company matches the identifier (or it was deleted).";
    AssociationNotFound: "association_not_found", NOT_FOUND, "The two Customers are not associated.";
    MergeNotFound: "merge_not_found", NOT_FOUND, "The Customer is not merged into another Customer.";
    AudienceNotFound: "audience_not_found", NOT_FOUND, "No audience with this id is defined in the Company's segments.yaml.";
    CartNotFound: "cart_not_found", NOT_FOUND, "No cart with this id exists in the Company.";
    CustomEventNotFound: "custom_event_not_found", NOT_FOUND, "No Custom Event with this id exists in the Company.";
    InstantWinNotFound: "instant_win_not_found", NOT_FOUND, "No Instant Win of the Company matches the identifier (as read by search_by).";
    ExchangeNotFound: "exchange_not_found", NOT_FOUND, "No points-to-wallet exchange exists for the location (and no default one).";
    PointsCampaignNotFound: "points_campaign_not_found", NOT_FOUND, "No points campaign of the Company has this id.";
    CouponNotFound: "coupon_not_found", NOT_FOUND, "No Coupon of the Company has this id (or it was deleted).";
    DiscountNotFound: "discount_not_found", NOT_FOUND, "No discount campaign of the Company has this id.";
    RewardNotFound: "reward_not_found", NOT_FOUND, "No Reward of the Company has this id.";
    RewardTransactionNotFound: "reward_transaction_not_found", NOT_FOUND, "No reward transaction of the Company has this id.";
    GameNotFound: "game_not_found", NOT_FOUND, "No game of the Company has this id.";
    ChallengeNotFound: "challenge_not_found", NOT_FOUND, "No Challenge of the Company has this id.";
    RedemptionNotFound: "redemption_not_found", NOT_FOUND, "No redemption of the Company has this id.";
    VoucherNotFound: "voucher_not_found", NOT_FOUND, "Voucher not found, Customer not found, or the Voucher does not belong to the Customer.";
    LocationNotFound: "location_not_found", NOT_FOUND, "No Location of the Company matches the identifier (its id, or its code with search_by=code), or a `location_id` and a `location_code` name different Locations.";
    PromotionNotFound: "promotion_not_found", NOT_FOUND, "No legacy Promotion of the Company has this id (or it was deleted).";
    MessageNotFound: "message_not_found", NOT_FOUND, "No campaign of the Company has a message with this id (`RULE_ID:KEY`); nothing was printed.";
    ProductNotFound: "product_not_found", NOT_FOUND, "No Product of the Company matches the identifier (its id, or its code or an alias with search_by=code).";
    TaxonomyNotFound: "taxonomy_not_found", NOT_FOUND, "No taxonomy of the Company has this slug (product taxonomies under /taxonomies, Location taxonomies under /locations/taxonomies).";
    FeatureNotFound: "feature_not_found", NOT_FOUND, "No feature of the taxonomy has this id or slug.";
    WebhookEndpointNotFound: "webhook_endpoint_not_found", NOT_FOUND, "Back-office only: no webhook endpoint of the Company has this id.";
    WebhookDeliveryNotFound: "webhook_delivery_not_found", NOT_FOUND, "Back-office only: the webhook endpoint has no delivery of this event.";
    MethodNotAllowed: "method_not_allowed", METHOD_NOT_ALLOWED, "The path exists but not for this HTTP method.";
    CompanyAlreadyExists: "company_already_exists", CONFLICT, "A Company with this slug already exists.";
    ProductAlreadyExists: "product_already_exists", CONFLICT, "Another Product of the Company already has this code or alias (codes and aliases share one namespace); the error names it.";
    LocationAlreadyExists: "location_already_exists", CONFLICT, "Another Location of the Company already has this code.";
    TaxonomyAlreadyExists: "taxonomy_already_exists", CONFLICT, "The Company already has a taxonomy with this slug in this scope (products or Locations).";
    FeatureAlreadyExists: "feature_already_exists", CONFLICT, "The taxonomy already has a feature with this slug.";
    TaxonomyInUse: "taxonomy_in_use", CONFLICT, "Products or Locations still carry features of the taxonomy; nothing was deleted. Delete with `detach=true` to take them off first.";
    FeatureInUse: "feature_in_use", CONFLICT, "Products or Locations still carry the feature, or other features have it as their parent; nothing was deleted. Delete with `detach=true` to take it off them (its children move up to its parent).";
    CustomerAlreadyExists: "customer_already_exists", CONFLICT, "A Customer with this code, e-mail, phone or card already exists; the error names it.";
    IdentifierInUse: "identifier_in_use", CONFLICT, "The code, e-mail, phone or card number belongs to another Customer.";
    AssociationAlreadyExists: "association_already_exists", CONFLICT, "The two Customers are already associated.";
    CartAlreadyExists: "cart_already_exists", CONFLICT, "A cart with this code was already recorded; its effects were applied then.";
    VoucherCodeTaken: "voucher_code_taken", CONFLICT, "The Voucher code is already another Voucher's (codes are compared ignoring case, spaces, dashes and confusable characters).";
    CartAlreadyCancelled: "cart_already_cancelled", CONFLICT, "The cart was already cancelled; a cart is cancelled at most once.";
    ConcurrentModification: "concurrent_modification", CONFLICT, "The record changed while the request ran; retry the request.";
    DeleteNotAllowed: "delete_not_allowed", CONFLICT, "The Customer cannot be deleted outright (other Customers are merged into it); anonymize it instead.";
    IdempotencyKeyInUse: "idempotency_key_in_use", CONFLICT, "A request with this Idempotency-Key is still being processed; retry shortly.";
    PayloadTooLarge: "payload_too_large", PAYLOAD_TOO_LARGE, "The request body exceeds the size limit.";
    MalformedRequest: "malformed_request", BAD_REQUEST, "The request is not valid HTTP/1.1: a header holds a character HTTP forbids (a bare CR, a NUL, ...) or a line is malformed. The connection is closed after this answer.";
    UrlTooLong: "url_too_long", URI_TOO_LONG, "The URL is longer than 65,534 bytes. The connection is closed after this answer.";
    HeadersTooLarge: "headers_too_large", REQUEST_HEADER_FIELDS_TOO_LARGE, "The request sends more than 100 headers, or more than 408 KiB of request line and headers. The connection is closed after this answer.";
    UnsupportedMediaType: "unsupported_media_type", UNSUPPORTED_MEDIA_TYPE, "The request body must be sent as application/json.";
    SystemKeyNotEditable: "system_key_not_editable", UNPROCESSABLE_ENTITY, "System keys are platform-managed and cannot be edited.";
    CustomerInactive: "customer_inactive", UNPROCESSABLE_ENTITY, "The Customer is inactive (deactivated, anonymized or merged), so the operation cannot run.";
    CartIsCancellation: "cart_is_cancellation", UNPROCESSABLE_ENTITY, "The cart named is itself a cancellation; name the cart it cancels.";
    SameCustomer: "same_customer", UNPROCESSABLE_ENTITY, "The operation links two Customers (an association, a merge, a transfer) but both name the same one.";
    CustomerNotEnoughScore: "customer_not_enough_score", UNPROCESSABLE_ENTITY, "The Customer's balance is smaller than the redemption, transfer or debit; nothing was taken.";
    IdempotencyKeyReused: "idempotency_key_reused", UNPROCESSABLE_ENTITY, "The Idempotency-Key was already used with different parameters or on another endpoint.";
    VoucherRedeemed: "voucher_redeemed", UNPROCESSABLE_ENTITY, "Voucher is already redeemed (no uses left).";
    VoucherExpired: "voucher_expired", UNPROCESSABLE_ENTITY, "Voucher is expired (its Coupon's validity has ended).";
    VoucherInactive: "voucher_inactive", UNPROCESSABLE_ENTITY, "Coupon or Voucher is inactive.";
    VoucherDeleted: "voucher_deleted", UNPROCESSABLE_ENTITY, "Coupon was deleted.";
    VoucherOutLocation: "voucher_out_location", UNPROCESSABLE_ENTITY, "Voucher cannot be redeemed at the current location.";
    VoucherFrozen: "voucher_frozen", UNPROCESSABLE_ENTITY, "The Voucher's uses are held by another checkout (frozen) until the hold ends or is released.";
    VoucherNotRedeemed: "voucher_not_redeemed", UNPROCESSABLE_ENTITY, "Nothing to roll back: the Voucher has no use that was not rolled back already.";
    VoucherOutDate: "voucher_out_date", UNPROCESSABLE_ENTITY, "Voucher is not yet available, or not on this day or at this hour.";
    DiscountUnavailable: "discount_unavailable", UNPROCESSABLE_ENTITY, "The discount cannot be given: its campaign is inactive or outside its dates, or it takes nothing off the amount sent, or it is worked out on a cart's lines or units (given in carts only).";
    VoucherNotApplicable: "voucher_not_applicable", UNPROCESSABLE_ENTITY, "The Voucher does not apply to this cart: its Coupon's condition is not met, every line is excluded from it, or nothing is left to take off.";
    VoucherLimitReached: "voucher_limit_reached", UNPROCESSABLE_ENTITY, "The Coupon's limit is reached: its redemptions or its discount amount, overall or in this period, across the Company, at this Location or for this Customer.";
    DiscountLimitReached: "discount_limit_reached", UNPROCESSABLE_ENTITY, "The discount campaign's limit is reached: its redemptions or its discount amount, overall or in this period, across the Company, at this Location or for this Customer.";
    CouponIssueLimitReached: "coupon_issue_limit_reached", UNPROCESSABLE_ENTITY, "The Customer holds as many Vouchers of the Coupon as it issues to one Customer (its `issues_per_customer`); nothing was issued.";
    VoucherNotCombinable: "voucher_not_combinable", UNPROCESSABLE_ENTITY, "The Voucher was left out of the cart by the stacking rules: an offer it does not combine with applies instead, or the cart already uses as many Vouchers of its Coupon as the Coupon allows.";
    VoucherLookupsLimited: "voucher_lookups_limited", TOO_MANY_REQUESTS, "The API key sent too many unknown Voucher codes within a minute (codes cannot be guessed); Voucher look-ups are refused until the minute ends.";
    RewardNotRedeemable: "reward_not_redeemable", UNPROCESSABLE_ENTITY, "The Reward has no points cost: it is only given (as a prize or by a Challenge), never redeemed with points.";
    RewardNotAvailable: "reward_not_available", UNPROCESSABLE_ENTITY, "The Reward cannot be redeemed now: it is inactive, outside its dates, or its condition (audience, tier) does not hold for the Customer.";
    RewardOutOfStock: "reward_out_of_stock", UNPROCESSABLE_ENTITY, "Every unit of the Reward's stock is taken.";
    RewardLimitReached: "reward_limit_reached", UNPROCESSABLE_ENTITY, "The Customer redeemed the Reward as often as its `limit` allows in this period.";
    RewardTransactionRolledBack: "reward_transaction_rolled_back", UNPROCESSABLE_ENTITY, "The reward transaction was rolled back already; a redemption is rolled back once.";
    RewardTransactionNotRedemption: "reward_transaction_not_redemption", UNPROCESSABLE_ENTITY, "Only redemptions are rolled back: this reward transaction was given (an Instant Win prize), not paid for.";
    RewardGiftUsed: "reward_gift_used", UNPROCESSABLE_ENTITY, "What the redemption gave was used since (its Voucher redeemed, its game participation played, its points spent), so it cannot be taken back.";
    GameNoParticipations: "game_no_participations", UNPROCESSABLE_ENTITY, "The Customer has no participation left in the game: its free plays of the period are used and none was given (by an Instant Win prize, a Reward or a Challenge).";
    ChallengeNotAvailable: "challenge_not_available", UNPROCESSABLE_ENTITY, "The Challenge cannot be joined now: it is inactive or outside its dates, or its condition leaves the Customer out.";
    UnknownFeature: "unknown_feature", UNPROCESSABLE_ENTITY, "The body names a taxonomy or feature the Company does not have (in `features`, or a feature's `parent`); create it first.";
    FeatureParentCycle: "feature_parent_cycle", UNPROCESSABLE_ENTITY, "The feature's new parent is the feature itself or one of its descendants; a taxonomy's features form a tree.";
    GameNotAvailable: "game_not_available", UNPROCESSABLE_ENTITY, "The game cannot be played now: it is inactive, outside its dates or recurrence days, or its condition, tiers or locations leave the Customer out.";
    WebhookUrlRefused: "webhook_url_refused", UNPROCESSABLE_ENTITY, "Back-office only: the webhook URL is not an http or https URL, does not resolve, or resolves to a loopback, link-local or private address (allowed only on a server started with --webhooks-allow-private).";
    RateLimited: "rate_limited", TOO_MANY_REQUESTS, "Rate limit exceeded; wait for the Retry-After header's seconds.";
    ServerError: "server_error", INTERNAL_SERVER_ERROR, "Unexpected server error. Retry with exponential backoff (1 s up to 32 s).";
    StoreUnavailable: "store_unavailable", SERVICE_UNAVAILABLE, "The store is unavailable. Retry with exponential backoff (1 s up to 32 s).";
    StoreFull: "store_full", SERVICE_UNAVAILABLE, "The store's disk is full, so nothing was recorded. Retry after the Retry-After header's seconds (30): the service takes requests again by itself, without a restart, once its operator frees space.";
    RequestTimeout: "request_timeout", SERVICE_UNAVAILABLE, "The request took longer than the server allows. Its effects may or may not have been applied: retry with the same Idempotency-Key.";
    ServerBusy: "server_busy", SERVICE_UNAVAILABLE, "The server is at capacity (too many requests at once, or recording at once); this one was not started and changed nothing. Retry after a moment.";
    DrawContended: "draw_contended", SERVICE_UNAVAILABLE, "Simultaneous events kept colliding on what they count (an Instant Win's draws for one Customer or the last units of a prize, the last of a points campaign's budget); nothing was recorded, retry.";
}

impl ErrorCode {
    /// The code that renders a protocol-level failure with this status, used when
    /// the HTTP framework (not a handler) rejected the request.
    pub fn for_status(status: StatusCode) -> ErrorCode {
        match status {
            StatusCode::NOT_FOUND => ErrorCode::RouteNotFound,
            StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
            StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
            StatusCode::URI_TOO_LONG => ErrorCode::UrlTooLong,
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => ErrorCode::HeadersTooLarge,
            StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
            StatusCode::FORBIDDEN => ErrorCode::ForbiddenRequest,
            StatusCode::UNAUTHORIZED => ErrorCode::OperatorUnauthorized,
            StatusCode::TOO_MANY_REQUESTS => ErrorCode::RateLimited,
            StatusCode::SERVICE_UNAVAILABLE => ErrorCode::StoreUnavailable,
            s if s.is_client_error() => ErrorCode::InvalidRequest,
            _ => ErrorCode::ServerError,
        }
    }

    /// Seconds a client waits before retrying a 503 of this code (its
    /// `Retry-After`): a full disk waits for its operator, the rest pass
    /// within about a second.
    pub const fn retry_after_seconds(self) -> u64 {
        match self {
            ErrorCode::StoreFull => 30,
            _ => 1,
        }
    }

    /// The code whose string is `code`, if it is registered.
    pub fn from_code(code: &str) -> Option<ErrorCode> {
        Self::ALL.iter().copied().find(|known| known.code() == code)
    }

    /// Markdown table of every code, its status and its meaning.
    pub fn markdown_table() -> String {
        let mut table = String::from("| Code | HTTP status | Meaning |\n|---|---|---|\n");
        for code in Self::ALL {
            table.push_str(&format!(
                "| `{}` | {} | {} |\n",
                code.code(),
                code.status().as_u16(),
                code.meaning()
            ));
        }
        table
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// An error with a registered code and a human-readable message.
///
/// This is what the service and store layers return; the HTTP layer renders it
/// as `{"error": message, "code": code}` with the code's status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The registered code; decides the HTTP status.
    pub code: ErrorCode,
    /// A message for humans; never contains secrets.
    pub message: String,
    /// For a request on several Vouchers: each one that failed (the first
    /// gives `code` and `message`).
    pub voucher_failures: Vec<VoucherFailure>,
}

/// One Voucher of a request that failed, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoucherFailure {
    /// The code as sent.
    pub voucher_code: String,
    /// Why.
    pub code: ErrorCode,
    /// For humans.
    pub message: String,
}

impl ApiError {
    /// An error with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            code,
            message: message.into(),
            voucher_failures: Vec::new(),
        }
    }

    /// The refusal of a request on several Vouchers: the first failure's
    /// code and message, and every failure. `None` when none failed.
    pub fn of_vouchers(failures: Vec<VoucherFailure>) -> Option<Self> {
        let first = failures.first()?.clone();
        Some(ApiError {
            code: first.code,
            message: first.message,
            voucher_failures: failures,
        })
    }

    /// `invalid_request` with `message`.
    pub fn invalid(message: impl Into<String>) -> Self {
        ApiError::new(ErrorCode::InvalidRequest, message)
    }

    /// The authentication failure; its body never says which part was wrong.
    pub fn forbidden() -> Self {
        ApiError::new(ErrorCode::Forbidden, "Forbidden")
    }

    /// `server_error`; `detail` is logged, never sent to the client.
    pub fn internal(detail: impl fmt::Display) -> Self {
        // Logged under the service's target, as its log filters name it.
        tracing::error!(target: "loyalty::error", %detail, "internal error");
        ApiError::new(
            ErrorCode::ServerError,
            "The service could not complete the request. Retry with backoff.",
        )
    }

    /// The JSON body this error is rendered as.
    pub fn body(&self) -> serde_json::Value {
        if self.code == ErrorCode::Forbidden {
            serde_json::json!({ "message": "Forbidden" })
        } else {
            let mut body = serde_json::json!({ "error": self.message, "code": self.code.code() });
            if !self.voucher_failures.is_empty() {
                body["errors"] = self
                    .voucher_failures
                    .iter()
                    .map(|failure| {
                        serde_json::json!({
                            "voucher_code": failure.voucher_code,
                            "code": failure.code.code(),
                            "error": failure.message,
                        })
                    })
                    .collect();
            }
            body
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ApiError {}

/// The media type of every JSON answer, errors included.
pub const JSON_CONTENT_TYPE: &str = "application/json; charset=utf-8";

/// Shorthand for results whose error is an [`ApiError`].
pub type ApiResult<T> = Result<T, ApiError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.code()), "duplicate code {}", code.code());
        }
    }

    #[test]
    fn the_error_page_prints_the_registry() {
        let page = include_str!("../../../docs/errors.md");
        let table = ErrorCode::markdown_table();
        assert!(
            page.contains(&table),
            "docs/errors.md must contain the error table exactly as generated:\n{table}"
        );
    }

    #[test]
    fn forbidden_body_is_exactly_message() {
        assert_eq!(
            ApiError::forbidden().body().to_string(),
            r#"{"message":"Forbidden"}"#
        );
    }

    #[test]
    fn framework_statuses_map_to_registered_codes() {
        for status in [400u16, 404, 405, 413, 415, 422, 500] {
            let status = StatusCode::from_u16(status).unwrap();
            let code = ErrorCode::for_status(status);
            assert!(ErrorCode::ALL.contains(&code));
            if status != StatusCode::UNPROCESSABLE_ENTITY {
                assert_eq!(code.status(), status);
            }
        }
    }
}
