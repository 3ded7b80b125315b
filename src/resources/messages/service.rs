//! Messages' use-cases: the messages an event shows, in the Customer's
//! language, and printing them (POST /messages/print), a `once` message
//! never twice for one Customer.

use std::collections::HashSet;

use crate::common::language::Language;
use crate::common::retry::again_when_changed;
use crate::engine::campaign::Campaign;
use crate::engine::campaign::Listens;
use crate::engine::kinds::CampaignKind;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::answer::answer_now;
use crate::resources::customers::service::CustomerRef;
use crate::resources::messages::model::{
    MessageBody, NotPrinted, PrintRequest, PrintedMessage, PrintedMessages,
};
use crate::resources::messages::rules::{Message, ShownMessage};
use crate::resources::messages::store::PrintEntry;
use crate::services::Services;

/// `shown` as response bodies, each in `preferred` (the Customer's
/// language) when it has a text in it, else in the response language.
pub(crate) fn message_bodies(
    shown: Vec<ShownMessage>,
    preferred: Option<&str>,
    language: &Language,
) -> Vec<MessageBody> {
    shown
        .into_iter()
        .map(|message| {
            let (text, language) =
                message
                    .text
                    .resolve_preferring(preferred, &language.chosen, &language.default);
            MessageBody {
                id: message.id.to_string(),
                rule_id: message.rule_id,
                text,
                language,
                channel: message.channel.into(),
                once: message.once,
            }
        })
        .collect()
}

/// Whether a campaign of `campaigns` that can take part in an event of
/// `listens` carries a `once` message (whose printing must be read first).
pub(crate) fn once_messages_listen(campaigns: &[Campaign], listens: &Listens) -> bool {
    // A Coupon's campaign applies through the Vouchers a cart presents.
    campaigns.iter().any(|campaign| {
        (campaign.listens == *listens || matches!(campaign.kind, CampaignKind::Coupon(_)))
            && campaign.messages.iter().any(|message| message.once)
    })
}

/// Wraps `text` to lines of at most `width` characters, at spaces; a word
/// longer than a line is cut. Line breaks in `text` are kept.
pub fn wrap(text: &str, width: usize) -> String {
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    for paragraph in text.lines() {
        let mut line = String::new();
        let mut used = 0;
        for word in paragraph.split_whitespace() {
            let mut word: Vec<char> = word.chars().collect();
            while word.len() > width {
                if used > 0 {
                    lines.push(std::mem::take(&mut line));
                    used = 0;
                }
                lines.push(word.drain(..width).collect());
            }
            if word.is_empty() {
                continue;
            }
            if used > 0 && used + 1 + word.len() > width {
                lines.push(std::mem::take(&mut line));
                used = 0;
            }
            if used > 0 {
                line.push(' ');
                used += 1;
            }
            used += word.len();
            line.extend(word);
        }
        lines.push(line);
    }
    lines.join("\n")
}

impl Services {
    /// Prints the messages `request` names: their text in the Customer's
    /// language, wrapped to its width, and records them printed for the
    /// Customer (a `once` message printed before is left out, and says so).
    pub async fn print_messages(
        &self,
        company: &str,
        request: PrintRequest,
        language: &Language,
    ) -> ApiResult<PrintedMessages> {
        let rules = self.catalog.company(company);
        let mut found: Vec<&Message> = Vec::new();
        let mut missing: Vec<&str> = Vec::new();
        for id in &request.messages {
            let message = rules
                .campaigns
                .iter()
                .flat_map(|campaign| &campaign.messages)
                .find(|message| *message.id == **id);
            match message {
                Some(message) => found.push(message),
                None => missing.push(id),
            }
        }
        if !missing.is_empty() {
            return Err(ApiError::new(
                ErrorCode::MessageNotFound,
                format!(
                    "no campaign of the Company has the message(s) {}; nothing was printed",
                    missing.join(", ")
                ),
            ));
        }
        let customer = match CustomerRef::optional(&request.customer_id, &request.customer_code) {
            Some(reference) => Some(self.find_customer(company, reference).await?.customer),
            None => None,
        };
        let preferred = customer.as_ref().and_then(|c| c.language.as_deref());
        let compose = |printed_before: &HashSet<String>| {
            composed(&found, printed_before, (preferred, language), request.width)
        };
        let Some(customer) = &customer else {
            return Ok(compose(&HashSet::new()));
        };
        let answer = again_when_changed(|| async {
            let once: Vec<String> = found
                .iter()
                .filter(|message| message.once)
                .map(|message| message.id.to_string())
                .collect();
            let printed_before: HashSet<String> = if once.is_empty() {
                HashSet::new()
            } else {
                self.store
                    .printed_once(company, &customer.id, Some(&once))
                    .await?
                    .into_iter()
                    .collect()
            };
            let answer = compose(&printed_before);
            let entries: Vec<PrintEntry> = found
                .iter()
                .filter(|message| !printed_before.contains(&*message.id))
                .map(|message| PrintEntry {
                    message: message.id.to_string(),
                    rule_id: message.rule_id,
                    once: message.once,
                })
                .collect();
            if !entries.is_empty() {
                answer_now(&answer).await;
                let now = serde_json::json!(self.now());
                self.store
                    .record_prints(company, &customer.id, &entries, &now)
                    .await?;
            }
            Ok(answer)
        })
        .await?;
        let printed = answer.messages.iter().filter(|m| m.printed).count();
        tracing::info!(company, customer = %customer.id, printed, "messages printed");
        Ok(answer)
    }
}

/// The messages `found` as printed for a Customer who was printed the
/// `once` ones of `printed_before` already: each message's text in the
/// Customer's (`preferred`) or the response's language, wrapped to `width`.
fn composed(
    found: &[&Message],
    printed_before: &HashSet<String>,
    (preferred, language): (Option<&str>, &Language),
    width: Option<u32>,
) -> PrintedMessages {
    let width = width.map(|width| width as usize);
    let mut messages = Vec::new();
    let mut paragraphs = Vec::new();
    for message in found {
        let (text, text_language) =
            message
                .text
                .resolve_preferring(preferred, &language.chosen, &language.default);
        let text = width.map_or(text.clone(), |width| wrap(&text, width));
        let printed = !(message.once && printed_before.contains(&*message.id));
        if printed {
            paragraphs.push(text.clone());
        }
        messages.push(PrintedMessage {
            id: message.id.to_string(),
            rule_id: message.rule_id,
            printed,
            reason: (!printed).then_some(NotPrinted::AlreadyPrinted),
            text,
            language: text_language,
            once: message.once,
        });
    }
    PrintedMessages {
        text: paragraphs.join("\n\n"),
        messages,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_wrapped_at_spaces_and_long_words_are_cut() {
        assert_eq!(
            wrap("Double points on every coffee this week", 16),
            "Double points on\nevery coffee\nthis week"
        );
        assert_eq!(wrap("ABCDEFGHIJKLMNOPQRST", 8), "ABCDEFGH\nIJKLMNOP\nQRST");
        assert_eq!(wrap("a\nb c", 10), "a\nb c");
        assert_eq!(wrap("ñandú ñandú", 5), "ñandú\nñandú");
    }
}
