//! The one registry of error codes, and the error type every layer returns.
//!
//! Each [`ErrorCode`] has exactly one machine-friendly `code` string and one HTTP
//! status. Handlers never pick a status themselves: they return an [`ApiError`]
//! carrying a code, and the registry decides how it is rendered. The README and
//! the OpenAPI description print [`ErrorCode::ALL`] as a table.

use std::fmt;

use poem::http::StatusCode;

/// Every error code the service can answer with.
///
/// The codes named by the interface keep their names; the ones added for
/// protocol-level failures (`route_not_found`, `unsupported_media_type`, ...)
/// follow the same snake_case style.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// A required parameter is missing or a value is invalid.
    InvalidRequest,
    /// Authentication failed; rendered as `{"message":"Forbidden"}`.
    Forbidden,
    /// The resource is forbidden for this request.
    ForbiddenRequest,
    /// No route matches the request path.
    RouteNotFound,
    /// The route exists but not for this HTTP method.
    MethodNotAllowed,
    /// The request body is larger than the configured limit.
    PayloadTooLarge,
    /// The request body is not in a content type the endpoint accepts.
    UnsupportedMediaType,
    /// The Company named by the request does not exist.
    CompanyNotFound,
    /// A Company with that slug already exists.
    CompanyAlreadyExists,
    /// The API key named by the request does not exist.
    ApiKeyNotFound,
    /// System keys are managed by the platform and cannot be edited.
    SystemKeyNotEditable,
    /// The back-office token is missing or wrong.
    OperatorUnauthorized,
    /// No Customer matches the identifier in this Company.
    CustomerNotFound,
    /// A Customer with one of these identifiers already exists.
    CustomerAlreadyExists,
    /// An identifier (code, e-mail, phone, card) belongs to another Customer.
    IdentifierInUse,
    /// The Customer is inactive (deactivated, anonymized or merged).
    CustomerInactive,
    /// The two Customers are not associated.
    AssociationNotFound,
    /// The two Customers are already associated.
    AssociationAlreadyExists,
    /// The Customer is not merged into another one.
    MergeNotFound,
    /// No audience with that id is defined for the Company.
    AudienceNotFound,
    /// No cart with that id exists in the Company.
    CartNotFound,
    /// No Custom Event with that id exists in the Company.
    CustomEventNotFound,
    /// A cart with this code was already recorded.
    CartAlreadyExists,
    /// The cart was already cancelled.
    CartAlreadyCancelled,
    /// The record changed while the request ran; retrying succeeds.
    ConcurrentModification,
    /// The Customer cannot be deleted outright; anonymize it instead.
    DeleteNotAllowed,
    /// A request with this Idempotency-Key is still being processed.
    IdempotencyKeyInUse,
    /// The Idempotency-Key was used with different request parameters.
    IdempotencyKeyReused,
    /// Too many requests for the caller's rate-limit tier.
    RateLimited,
    /// The service could not complete the request; retry with backoff.
    ServerError,
    /// The store is unreachable or refused the operation; retry with backoff.
    StoreUnavailable,
    /// The request took longer than the server's limit.
    RequestTimeout,
    /// Too many writes were waiting for the store; this one never started.
    ServerBusy,
    /// The Company's campaign files never loaded; events cannot be evaluated.
    CampaignsUnavailable,
    /// No Instant Win matches the identifier in this Company.
    InstantWinNotFound,
    /// The Customer's balance is smaller than the operation needs.
    CustomerNotEnoughScore,
    /// No points-to-wallet exchange exists for the location.
    ExchangeNotFound,
    /// No points campaign matches the identifier in this Company.
    PointsCampaignNotFound,
    /// Draws of one Instant Win kept colliding; retrying succeeds.
    DrawContended,
}

impl ErrorCode {
    /// Every code, in the order the documentation lists them.
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::InvalidRequest,
        ErrorCode::Forbidden,
        ErrorCode::ForbiddenRequest,
        ErrorCode::OperatorUnauthorized,
        ErrorCode::RouteNotFound,
        ErrorCode::CompanyNotFound,
        ErrorCode::ApiKeyNotFound,
        ErrorCode::CustomerNotFound,
        ErrorCode::AssociationNotFound,
        ErrorCode::MergeNotFound,
        ErrorCode::AudienceNotFound,
        ErrorCode::CartNotFound,
        ErrorCode::CustomEventNotFound,
        ErrorCode::InstantWinNotFound,
        ErrorCode::ExchangeNotFound,
        ErrorCode::PointsCampaignNotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::CompanyAlreadyExists,
        ErrorCode::CustomerAlreadyExists,
        ErrorCode::IdentifierInUse,
        ErrorCode::AssociationAlreadyExists,
        ErrorCode::CartAlreadyExists,
        ErrorCode::CartAlreadyCancelled,
        ErrorCode::ConcurrentModification,
        ErrorCode::DeleteNotAllowed,
        ErrorCode::IdempotencyKeyInUse,
        ErrorCode::PayloadTooLarge,
        ErrorCode::UnsupportedMediaType,
        ErrorCode::SystemKeyNotEditable,
        ErrorCode::CustomerInactive,
        ErrorCode::CustomerNotEnoughScore,
        ErrorCode::IdempotencyKeyReused,
        ErrorCode::RateLimited,
        ErrorCode::ServerError,
        ErrorCode::StoreUnavailable,
        ErrorCode::RequestTimeout,
        ErrorCode::ServerBusy,
        ErrorCode::CampaignsUnavailable,
        ErrorCode::DrawContended,
    ];

    /// The machine-friendly code sent in the `code` field.
    pub const fn code(self) -> &'static str {
        match self {
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::ForbiddenRequest => "forbidden_request",
            ErrorCode::RouteNotFound => "route_not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ErrorCode::CompanyNotFound => "company_not_found",
            ErrorCode::CompanyAlreadyExists => "company_already_exists",
            ErrorCode::ApiKeyNotFound => "api_key_not_found",
            ErrorCode::SystemKeyNotEditable => "system_key_not_editable",
            ErrorCode::OperatorUnauthorized => "operator_unauthorized",
            ErrorCode::CustomerNotFound => "customer_not_found",
            ErrorCode::CustomerAlreadyExists => "customer_already_exists",
            ErrorCode::IdentifierInUse => "identifier_in_use",
            ErrorCode::CustomerInactive => "customer_inactive",
            ErrorCode::AssociationNotFound => "association_not_found",
            ErrorCode::AssociationAlreadyExists => "association_already_exists",
            ErrorCode::MergeNotFound => "merge_not_found",
            ErrorCode::AudienceNotFound => "audience_not_found",
            ErrorCode::CartNotFound => "cart_not_found",
            ErrorCode::CustomEventNotFound => "custom_event_not_found",
            ErrorCode::CartAlreadyExists => "cart_already_exists",
            ErrorCode::CartAlreadyCancelled => "cart_already_cancelled",
            ErrorCode::ConcurrentModification => "concurrent_modification",
            ErrorCode::DeleteNotAllowed => "delete_not_allowed",
            ErrorCode::IdempotencyKeyInUse => "idempotency_key_in_use",
            ErrorCode::IdempotencyKeyReused => "idempotency_key_reused",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::ServerError => "server_error",
            ErrorCode::StoreUnavailable => "store_unavailable",
            ErrorCode::RequestTimeout => "request_timeout",
            ErrorCode::ServerBusy => "server_busy",
            ErrorCode::CampaignsUnavailable => "campaigns_unavailable",
            ErrorCode::InstantWinNotFound => "instant_win_not_found",
            ErrorCode::CustomerNotEnoughScore => "customer_not_enough_score",
            ErrorCode::ExchangeNotFound => "exchange_not_found",
            ErrorCode::PointsCampaignNotFound => "points_campaign_not_found",
            ErrorCode::DrawContended => "draw_contended",
        }
    }

    /// The one HTTP status this code is answered with.
    pub const fn status(self) -> StatusCode {
        match self {
            ErrorCode::InvalidRequest => StatusCode::BAD_REQUEST,
            ErrorCode::Forbidden | ErrorCode::ForbiddenRequest => StatusCode::FORBIDDEN,
            ErrorCode::OperatorUnauthorized => StatusCode::UNAUTHORIZED,
            ErrorCode::RouteNotFound
            | ErrorCode::CompanyNotFound
            | ErrorCode::ApiKeyNotFound
            | ErrorCode::CustomerNotFound
            | ErrorCode::AssociationNotFound
            | ErrorCode::MergeNotFound
            | ErrorCode::AudienceNotFound
            | ErrorCode::CartNotFound
            | ErrorCode::CustomEventNotFound
            | ErrorCode::InstantWinNotFound
            | ErrorCode::ExchangeNotFound
            | ErrorCode::PointsCampaignNotFound => StatusCode::NOT_FOUND,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::CompanyAlreadyExists
            | ErrorCode::CustomerAlreadyExists
            | ErrorCode::IdentifierInUse
            | ErrorCode::AssociationAlreadyExists
            | ErrorCode::CartAlreadyExists
            | ErrorCode::CartAlreadyCancelled
            | ErrorCode::ConcurrentModification
            | ErrorCode::DeleteNotAllowed
            | ErrorCode::IdempotencyKeyInUse => StatusCode::CONFLICT,
            ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::SystemKeyNotEditable
            | ErrorCode::CustomerInactive
            | ErrorCode::CustomerNotEnoughScore
            | ErrorCode::IdempotencyKeyReused => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::ServerError => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::StoreUnavailable
            | ErrorCode::RequestTimeout
            | ErrorCode::ServerBusy
            | ErrorCode::CampaignsUnavailable
            | ErrorCode::DrawContended => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// What the code means, for the documentation table.
    pub const fn meaning(self) -> &'static str {
        match self {
            ErrorCode::InvalidRequest => {
                "A required parameter is missing, a value is invalid, or the body is not valid JSON."
            }
            ErrorCode::Forbidden => {
                "Authentication failed (missing or wrong X-Api-Key, X-Api-Secret or X-Api-Version, or a disabled key). Body: {\"message\":\"Forbidden\"}."
            }
            ErrorCode::ForbiddenRequest => "The resource is forbidden for this request.",
            ErrorCode::OperatorUnauthorized => {
                "Back-office only: the operator token is missing or wrong."
            }
            ErrorCode::RouteNotFound => "No endpoint exists at this path.",
            ErrorCode::CompanyNotFound => "The Company does not exist.",
            ErrorCode::ApiKeyNotFound => "The API key does not exist.",
            ErrorCode::MethodNotAllowed => "The path exists but not for this HTTP method.",
            ErrorCode::CompanyAlreadyExists => "A Company with this slug already exists.",
            ErrorCode::PayloadTooLarge => "The request body exceeds the size limit.",
            ErrorCode::UnsupportedMediaType => "The request body must be sent as application/json.",
            ErrorCode::SystemKeyNotEditable => {
                "System keys are platform-managed and cannot be edited."
            }
            ErrorCode::CustomerNotFound => {
                "No Customer of this Company matches the identifier (or it was deleted)."
            }
            ErrorCode::CustomerAlreadyExists => {
                "A Customer with this code, e-mail, phone or card already exists; the error names it."
            }
            ErrorCode::IdentifierInUse => {
                "The code, e-mail, phone or card number belongs to another Customer."
            }
            ErrorCode::CustomerInactive => {
                "The Customer is inactive (deactivated, anonymized or merged), so the operation cannot run."
            }
            ErrorCode::AssociationNotFound => "The two Customers are not associated.",
            ErrorCode::AssociationAlreadyExists => "The two Customers are already associated.",
            ErrorCode::MergeNotFound => "The Customer is not merged into another Customer.",
            ErrorCode::CartNotFound => "No cart with this id exists in the Company.",
            ErrorCode::PointsCampaignNotFound => "No points campaign of the Company has this id.",
            ErrorCode::ExchangeNotFound => {
                "No points-to-wallet exchange exists for the location (and no default one)."
            }
            ErrorCode::CustomerNotEnoughScore => {
                "The Customer's balance is smaller than the redemption, transfer or debit; nothing was taken."
            }
            ErrorCode::InstantWinNotFound => {
                "No Instant Win of the Company matches the identifier (as read by search_by)."
            }
            ErrorCode::DrawContended => {
                "Simultaneous draws of one Instant Win kept colliding (same Customer or last units of a prize); nothing was recorded, retry."
            }
            ErrorCode::CustomEventNotFound => "No Custom Event with this id exists in the Company.",
            ErrorCode::CartAlreadyCancelled => {
                "The cart was already cancelled; a cart is cancelled at most once."
            }
            ErrorCode::CartAlreadyExists => {
                "A cart with this code was already recorded; its effects were applied then."
            }
            ErrorCode::AudienceNotFound => {
                "No audience with this id is defined in the Company's segments.yaml."
            }
            ErrorCode::ConcurrentModification => {
                "The record changed while the request ran; retry the request."
            }
            ErrorCode::IdempotencyKeyInUse => {
                "A request with this Idempotency-Key is still being processed; retry shortly."
            }
            ErrorCode::IdempotencyKeyReused => {
                "The Idempotency-Key was already used with different parameters or on another endpoint."
            }
            ErrorCode::DeleteNotAllowed => {
                "The Customer cannot be deleted outright (other Customers are merged into it); anonymize it instead."
            }
            ErrorCode::RateLimited => {
                "Rate limit exceeded; wait for the Retry-After header's seconds."
            }
            ErrorCode::ServerError => {
                "Unexpected server error. Retry with exponential backoff (1 s up to 32 s)."
            }
            ErrorCode::StoreUnavailable => {
                "The store is unavailable. Retry with exponential backoff (1 s up to 32 s)."
            }
            ErrorCode::CampaignsUnavailable => {
                "The Company's campaign files have errors and never loaded; the message lists them."
            }
            ErrorCode::RequestTimeout => {
                "The request took longer than the server allows. Its effects may or may not have been applied: retry with the same Idempotency-Key."
            }
            ErrorCode::ServerBusy => {
                "The server is at capacity (too many requests at once, or recording at once); this one was not started and changed nothing. Retry after a moment."
            }
        }
    }

    /// The code that renders a protocol-level failure with this status, used when
    /// the HTTP framework (not a handler) rejected the request.
    pub fn for_status(status: StatusCode) -> ErrorCode {
        match status {
            StatusCode::NOT_FOUND => ErrorCode::RouteNotFound,
            StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
            StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
            StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
            StatusCode::FORBIDDEN => ErrorCode::ForbiddenRequest,
            StatusCode::UNAUTHORIZED => ErrorCode::OperatorUnauthorized,
            StatusCode::TOO_MANY_REQUESTS => ErrorCode::RateLimited,
            StatusCode::SERVICE_UNAVAILABLE => ErrorCode::StoreUnavailable,
            s if s.is_client_error() => ErrorCode::InvalidRequest,
            _ => ErrorCode::ServerError,
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
}

impl ApiError {
    /// An error with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            code,
            message: message.into(),
        }
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
        tracing::error!(%detail, "internal error");
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
            serde_json::json!({ "error": self.message, "code": self.code.code() })
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ApiError {}

impl poem::error::ResponseError for ApiError {
    fn status(&self) -> StatusCode {
        self.code.status()
    }

    fn as_response(&self) -> poem::Response {
        poem::Response::builder()
            .status(self.code.status())
            .content_type("application/json")
            .body(self.body().to_string())
    }
}

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
    fn the_readme_prints_the_registry() {
        let readme = include_str!("../README.md");
        let table = ErrorCode::markdown_table();
        assert!(
            readme.contains(&table),
            "README.md must contain the error table exactly as generated:\n{table}"
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
