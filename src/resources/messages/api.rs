//! Messages: POST /messages/print.

use poem_openapi::payload::Json;
use poem_openapi::{OpenApi, Tags};

use crate::error::ErrorCode;
use crate::http::auth::Tier1;
use crate::http::errors::ErrorResponse;
use crate::http::spec::errors::{DeclaredErrors, OperationErrors};
use crate::resources::messages::model::{PrintRequest, PrintedMessages};

#[derive(Tags)]
enum MessageTags {
    /// The messages campaigns show the Customer, and printing them.
    Messages,
}

/// Message endpoints.
#[derive(Debug, Default)]
pub struct MessagesApi;

/// The error codes of its own each operation answers.
impl DeclaredErrors for MessagesApi {
    const ERRORS: &'static [OperationErrors] = &[OperationErrors {
        operation: "POST /messages/print",
        codes: &[ErrorCode::MessageNotFound, ErrorCode::CustomerNotFound],
    }];
}

#[OpenApi(tag = "MessageTags::Messages")]
impl MessagesApi {
    /// Print a list of messages.
    ///
    /// `messages` are ids of the messages carts, Custom Events and triggers
    /// returned (`RULE_ID:KEY`), in the order to print them. The answer
    /// gives `text`, ready for the printer: each message's text in the
    /// Customer's language when its campaign has it in that language, else
    /// in the response language (`Accept-Language`), wrapped to `width`
    /// columns, separated by a blank line. Each message is recorded as
    /// printed for the Customer; a message meant `once` that the Customer
    /// was printed before is left out of `text` (`printed: false`, `reason:
    /// already_printed`) and no longer returned by events, even when two
    /// tills print it at the same moment. A message of no campaign of the
    /// Company (or of one since removed) is 404 `message_not_found` and
    /// nothing is printed or recorded.
    ///
    /// Rate limit: tier 1 (the till waits on it).
    #[oai(path = "/messages/print", method = "post")]
    async fn print(
        &self,
        caller: Tier1<'_>,
        body: Json<PrintRequest>,
    ) -> Result<Json<PrintedMessages>, ErrorResponse> {
        caller.answers_with(PrintedMessages::clone);
        Ok(Json(
            caller
                .services
                .print_messages(&caller.company, body.0, caller.language()?)
                .await?,
        ))
    }
}
