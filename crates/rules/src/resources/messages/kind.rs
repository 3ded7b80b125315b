//! The `message` kind: messages only (`messages:`, every campaign's key,
//! checked with the campaign: [`super::rules`]), shown when its condition
//! holds. It has no effects.

use crate::engine::effect::Effect;
use crate::engine::kinds::CampaignKind;
use crate::engine::kinds::KindContext;
use crate::engine::kinds::KindDefinition;
use crate::engine::kinds::KindRules;
use crate::engine::not_applied::NotApplied;
use crate::resources::messages::rules::MessagesOnly;

/// How a `message` campaign file reads.
pub static MESSAGE: KindDefinition = KindDefinition {
    keys: |_| Vec::new(),
    compile: |file, problems, _| {
        if file.messages.is_empty() {
            problems.at_key("kind", "a `message` campaign needs `messages:`");
        }
        Some(CampaignKind::Message(MessagesOnly))
    },
    schema: Vec::new,
    required: None,
    sample: "id: 4\nkind: message\nname: M\non: cart\nmessages:\n  - key: hello\n    text: Hello\n",
};

impl KindRules for MessagesOnly {
    fn effects(&self, _cx: &mut KindContext<'_, '_>) -> Result<Vec<Effect>, NotApplied> {
        Ok(Vec::new())
    }
}
