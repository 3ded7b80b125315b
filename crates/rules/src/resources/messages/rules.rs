//! Messages as campaign files write them, and which of them an event
//! shows.
//!
//! ```yaml
//! messages:
//!   - key: welcome                  # unique within the campaign; its id is "101:welcome"
//!     text: { en: Welcome back!, es: ¡Bienvenido de nuevo! }
//!     when: cart.total >= 20.0      # optional; sees what the campaign's `when` sees
//!     once: true                    # printed once per Customer (default false)
//!     channel: receipt              # receipt | app | any (default any)
//! ```
//!
//! A campaign's messages come with it: an event shows those of the
//! campaigns that applied to it (a `message` campaign applies when its
//! `when` holds and gives nothing else), each whose own `when` holds, but
//! a `once` message the Customer was printed already.

use std::collections::HashSet;
use std::sync::Arc;

use serde::Deserialize;

use crate::engine::campaign::Campaign;
use crate::engine::evaluate::CampaignFailure;
use crate::engine::evaluate::Explanation;
use crate::engine::problems::Problems;
use crate::engine::script::PreparedFacts;
use crate::engine::script::Script;
use crate::engine::script::ScriptEngine;
use crate::engine::text::Text;
use crate::resources::discounts::rules::CompileExpression;

/// Longest key of a message.
const MAX_KEY: usize = 64;

/// One entry of `messages:` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessageFile {
    key: String,
    text: Text,
    #[serde(default)]
    when: Option<String>,
    #[serde(default)]
    once: bool,
    #[serde(default)]
    channel: Option<String>,
}

/// Where a message is meant to be shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// Printed on the receipt.
    Receipt,
    /// Shown in the app or on the web.
    App,
    /// Either.
    Any,
}

impl Channel {
    /// Its name in files and responses.
    pub fn name(self) -> &'static str {
        match self {
            Channel::Receipt => "receipt",
            Channel::App => "app",
            Channel::Any => "any",
        }
    }
}

/// A compiled message of a campaign.
#[derive(Debug, Clone)]
pub struct Message {
    /// `RULE_ID:KEY`: how responses and POST /messages/print name it.
    pub id: Arc<str>,
    /// The campaign's id.
    pub rule_id: i64,
    /// Its text, translatable.
    pub text: Text,
    /// Its own condition, beside its campaign's; `None`: always.
    pub when: Option<Script>,
    /// Printed once per Customer.
    pub once: bool,
    /// Where it is meant to be shown.
    pub channel: Channel,
}

/// The id of message `key` of campaign `rule_id`.
pub fn message_id(rule_id: i64, key: &str) -> String {
    format!("{rule_id}:{key}")
}

/// Whether `key` may name a message: lowercase letters, digits, `_` and
/// `-`, starting with a letter or digit.
fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= MAX_KEY
        && key.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

/// Compiles the `messages:` of campaign `rule_id`; every problem goes to
/// `problems`, at the line of the entry it concerns.
pub fn compile_messages(
    files: Vec<MessageFile>,
    rule_id: i64,
    problems: &mut Problems<'_>,
    compile: &CompileExpression<'_>,
) -> Vec<Message> {
    let section = problems.line_of("messages");
    let mut keys = HashSet::new();
    let mut messages = Vec::new();
    for (index, file) in files.into_iter().enumerate() {
        let line = problems.nth_line_from(section, "key", index);
        if !valid_key(&file.key) {
            problems.at_line(
                line,
                format!(
                    "message key `{}` is 1 to {MAX_KEY} lowercase letters, digits, `_` or `-`",
                    file.key
                ),
            );
            continue;
        }
        if !keys.insert(file.key.clone()) {
            problems.at_line(
                line,
                format!("message key `{}` is used twice in this campaign", file.key),
            );
            continue;
        }
        if let Text::Plain(text) = &file.text
            && text.trim().is_empty()
        {
            problems.at_line(line, format!("message `{}` has no text", file.key));
        }
        let channel = match file.channel.as_deref() {
            None | Some("any") => Channel::Any,
            Some("receipt") => Channel::Receipt,
            Some("app") => Channel::App,
            Some(other) => {
                problems.at_line(
                    line,
                    format!("channel is `receipt`, `app` or `any`, not `{other}`"),
                );
                Channel::Any
            }
        };
        let when = file
            .when
            .as_deref()
            .and_then(|source| compile(problems, "when", source, &[]));
        messages.push(Message {
            id: message_id(rule_id, &file.key).into(),
            rule_id,
            text: file.text,
            when,
            once: file.once,
            channel,
        });
    }
    messages
}

/// A message an event shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownMessage {
    /// `RULE_ID:KEY`.
    pub id: Arc<str>,
    /// The campaign's id.
    pub rule_id: i64,
    /// Its text, to be put in the Customer's language.
    pub text: Text,
    /// Printed once per Customer.
    pub once: bool,
    /// Where it is meant to be shown.
    pub channel: Channel,
}

/// The messages an event shows: those of each campaign that applied
/// (`explanations` are the campaigns', in the same order), whose `when`
/// holds, but a `once` one in `printed`. A `when` that fails to evaluate
/// shows nothing and is pushed to `failures`, never silent.
pub fn shown_messages(
    engine: &ScriptEngine,
    campaigns: &[Campaign],
    explanations: &[Explanation],
    prepared: &PreparedFacts<'_>,
    printed: &HashSet<String>,
    failures: &mut Vec<CampaignFailure>,
) -> Vec<ShownMessage> {
    let mut shown = Vec::new();
    for (campaign, explanation) in campaigns.iter().zip(explanations) {
        if campaign.messages.is_empty() || !explanation.applied {
            continue;
        }
        for message in &campaign.messages {
            if message.once && printed.contains(&*message.id) {
                continue;
            }
            let holds = match &message.when {
                None => true,
                Some(when) => match engine.eval_prepared(when, prepared, None) {
                    Ok(holds) => holds,
                    // Not shown, and never silently: reported as the
                    // campaign's failure.
                    Err(error) => {
                        failures.push(CampaignFailure {
                            rule_id: campaign.id,
                            at: format!("{}:{}", when.origin.file.display(), when.origin.line)
                                .into(),
                            message: format!("message `{}` condition failed: {error}", message.id),
                        });
                        false
                    }
                },
            };
            if holds {
                shown.push(ShownMessage {
                    id: message.id.clone(),
                    rule_id: message.rule_id,
                    text: message.text.clone(),
                    once: message.once,
                    channel: message.channel,
                });
            }
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::json;

    use crate::engine::campaign::Campaign;
    use crate::engine::campaign::Listens;
    use crate::engine::evaluate::evaluate_plainly;
    use crate::engine::facts::Facts;
    use crate::engine::script::ScriptEngine;

    fn parse(text: &str) -> Result<Campaign, Vec<String>> {
        Campaign::parse(&ScriptEngine::new(), &PathBuf::from("m.yaml"), text)
            .map_err(|errors| errors.iter().map(ToString::to_string).collect())
    }

    const POINTS: &str = "id: 7\nkind: points\nname: P\non: cart\nwhen: cart.total > 5.0\npoints: { fixed: 1 }\nmessages:\n  - key: thanks\n    text: { en: Thanks, es: Gracias }\n  - key: big\n    text: Big spender\n    when: cart.total >= 20.0\n    channel: receipt\n  - key: hello\n    text: Hello\n    once: true\n";

    #[test]
    fn every_problem_of_a_message_is_at_its_line() {
        let errors = parse(
            "id: 7\nkind: points\nname: P\non: cart\npoints: { fixed: 1 }\nmessages:\n  - key: a\n    text: A\n  - key: a\n    text: again\n  - key: Bad Key\n    text: B\n  - key: c\n    text: C\n    channel: email\n  - key: d\n    text: D\n    when: cart.totl >\n",
        )
        .unwrap_err();
        for (line, says) in [
            (9, "used twice"),
            (11, "lowercase"),
            (13, "`receipt`, `app` or `any`"),
            (18, "incomplete"),
        ] {
            assert!(
                errors
                    .iter()
                    .any(|e| e.starts_with(&format!("m.yaml:{line}:")) && e.contains(says)),
                "line {line}: {errors:?}"
            );
        }
        let errors = parse("id: 8\nkind: message\nname: M\non: cart\n").unwrap_err();
        assert!(
            errors[0].starts_with("m.yaml:2:") && errors[0].contains("needs `messages:`"),
            "{errors:?}"
        );
        let errors = parse("id: 8\nkind: message\nname: M\nmessages:\n  - key: a\n    text: A\n")
            .unwrap_err();
        assert!(errors[0].contains("needs `on`"), "{errors:?}");
    }

    fn shown(campaigns: &[Campaign], total: f64, printed: &[&str]) -> Vec<(String, String)> {
        let facts = Facts {
            now: "2026-05-04T09:30:00Z".parse().unwrap(),
            cart: json!({"total": total, "lines": [{"product_code": "A", "quantity": 1, "price": total}]}),
            printed_messages: printed.iter().map(ToString::to_string).collect(),
            ..Facts::default()
        };
        evaluate_plainly(campaigns, &Listens::Cart, &facts)
            .messages
            .into_iter()
            .map(|message| (message.id.to_string(), message.channel.name().to_string()))
            .collect()
    }

    #[test]
    fn an_event_shows_the_messages_of_the_campaigns_that_applied() {
        let points = parse(POINTS).unwrap();
        let notice = parse(
            "id: 9\nkind: message\nname: Notice\non: cart\nwhen: cart.total < 10.0\nmessages:\n  - key: small\n    text: Small basket\n    channel: app\n",
        )
        .unwrap();
        let campaigns = [points, notice];
        let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            list.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        // The points campaign does not apply under 5: its messages neither.
        assert_eq!(shown(&campaigns, 3.0, &[]), pairs(&[("9:small", "app")]));
        assert_eq!(
            shown(&campaigns, 8.0, &[]),
            pairs(&[("7:thanks", "any"), ("7:hello", "any"), ("9:small", "app")])
        );
        assert_eq!(
            shown(&campaigns, 25.0, &["7:hello", "7:thanks"]),
            pairs(&[("7:thanks", "any"), ("7:big", "receipt")]),
            "a `once` message printed is not shown again; another is"
        );
    }

    #[test]
    fn a_message_condition_that_fails_is_a_failure_of_its_campaign_not_a_silence() {
        let campaign = parse(
            "id: 9\nkind: points\nname: P\non: cart\npoints: { fixed: 1 }\nmessages:\n  - key: budget\n    text: Within budget\n    when: customer.attributes.budget * 2 > 10\n",
        )
        .unwrap();
        let facts = Facts {
            now: "2026-05-04T09:30:00Z".parse().unwrap(),
            cart: json!({"total": 3.0, "lines": [{"product_code": "A", "quantity": 1, "price": 3.0}]}),
            ..Facts::default()
        };
        let evaluation = evaluate_plainly(&[campaign], &Listens::Cart, &facts);
        assert!(evaluation.messages.is_empty());
        assert_eq!(evaluation.failures.len(), 1, "{:?}", evaluation.failures);
        let failure = &evaluation.failures[0];
        assert_eq!(failure.rule_id, 9);
        assert_eq!(&*failure.at, "m.yaml:9");
        assert!(
            failure
                .message
                .starts_with("message `9:budget` condition failed"),
            "{}",
            failure.message
        );
    }
}

/// A `message` campaign's compiled kind: what it shows is its messages,
/// which every campaign has.
#[derive(Debug, Clone, Copy)]
pub struct MessagesOnly;
