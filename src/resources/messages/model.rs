//! Messages as the API shows them, and the request and answer of POST
//! /messages/print.

use poem_openapi::{Enum, Object};
use serde::{Deserialize, Serialize};

use crate::resources::messages::rules::Channel;

/// Where a message is meant to be shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Enum)]
#[oai(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum MessageChannel {
    /// Printed on the receipt.
    Receipt,
    /// Shown in the app or on the web.
    App,
    /// Either.
    Any,
}

impl From<Channel> for MessageChannel {
    fn from(channel: Channel) -> Self {
        match channel {
            Channel::Receipt => MessageChannel::Receipt,
            Channel::App => MessageChannel::App,
            Channel::Any => MessageChannel::Any,
        }
    }
}

/// A message of a campaign that applied to the event, for the Customer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct MessageBody {
    /// `RULE_ID:KEY` (the campaign's id and the message's key): what POST
    /// /messages/print takes.
    pub id: String,
    /// The campaign the message belongs to.
    pub rule_id: i64,
    /// Its text, in the Customer's language when the campaign has it in
    /// that language, else in the response language.
    pub text: String,
    /// The language of `text`.
    pub language: String,
    /// Where it is meant to be shown.
    pub channel: MessageChannel,
    /// Printed once per Customer: once POST /messages/print printed it for
    /// the Customer, events no longer show it and it is not printed again.
    pub once: bool,
}

/// Body of POST /messages/print.
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
#[oai(deny_unknown_fields)]
pub struct PrintRequest {
    /// The Customer printed for (their language, and the record of what
    /// they were printed); or name them with `customer_code`. Without
    /// either, the messages are printed in the response language and
    /// nothing is recorded.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_id: Option<String>,
    /// The Customer's code.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub customer_code: Option<String>,
    /// The ids of the messages (`RULE_ID:KEY`, as events return them), in
    /// the order they are printed; 1 to 50, each once.
    #[oai(validator(min_items = 1, max_items = 50, unique_items = true))]
    pub messages: Vec<String>,
    /// Columns of the printer: the text is wrapped at word boundaries to
    /// lines of at most this many characters (16 to 200). Without it, each
    /// message is one paragraph.
    #[oai(validator(minimum(value = "16"), maximum(value = "200")))]
    pub width: Option<u32>,
}

/// Why a message was not printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Enum)]
#[oai(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum NotPrinted {
    /// A `once` message the Customer was printed before.
    AlreadyPrinted,
}

/// One message of a print.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct PrintedMessage {
    /// The message's id.
    pub id: String,
    /// The campaign it belongs to.
    pub rule_id: i64,
    /// Whether it is in `text` (a `once` message printed before is not).
    pub printed: bool,
    /// Why not, when it is not.
    #[oai(skip_serializing_if_is_none)]
    pub reason: Option<NotPrinted>,
    /// Its text, wrapped to `width`.
    pub text: String,
    /// The language of its text.
    pub language: String,
    /// Printed once per Customer.
    pub once: bool,
}

/// Answer of POST /messages/print.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Object)]
pub struct PrintedMessages {
    /// What to print: the text of each message printed, in the order
    /// asked, separated by a blank line.
    pub text: String,
    /// Each message asked for, in the order asked.
    pub messages: Vec<PrintedMessage>,
}
