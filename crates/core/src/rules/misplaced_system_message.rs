use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::{Applicability, Finding, FixIntent};
use crate::provider::Provider;
use crate::transcript::{Conversation, Role};

declare_rule! {
    /// ## What it does
    /// Reports a `system` message that comes after a user, assistant or tool message, in a
    /// history held to Mistral. System messages at the start, however many, are fine.
    ///
    /// ## Why it matters
    /// Mistral's chat completions reject the order with HTTP 400 "Unexpected role 'system'
    /// after role 'tool'" (or "… after role 'assistant'"; `type:
    /// invalid_request_message_order`, code `3230`): a live failure recorded in a test of an
    /// agent moving from GLM to `mistral-medium` (2026-07-20), and the reason Ollama's
    /// OpenAI-compatible endpoint, Continue and gateway adapters move later system messages
    /// to the front for Mistral models. No acceptance is recorded. Agents that inject a budget
    /// reminder, a summary or a mode switch as a `system` message mid-conversation produce
    /// it; OpenAI and most OpenAI-compatible endpoints accept it, so it shows only when the
    /// history is sent to Mistral.
    ///
    /// ## Example
    /// ```json
    /// {"model": "mistral-medium-latest", "messages": [
    ///   {"role": "system", "content": "You are a release assistant."},
    ///   {"role": "user", "content": "Tag the release."},
    ///   {"role": "assistant", "content": "Done: v1.4.0."},
    ///   {"role": "system", "content": "Budget: 2 tool calls left."}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// Unsafe: move the system message to the end of the leading system messages, as the
    /// adapters above do. Every byte is kept, but the model reads the instruction as given
    /// before the conversation instead of at the point it was given; sending it as a `user`
    /// message instead keeps its place and changes its authority.
    pub struct MisplacedSystemMessage {
        code: "TC513",
        name: "misplaced-system-message",
        severity: Error,
        fix: Unsafe,
        rejected_by: [Mistral],
        summary: "a system message comes after the conversation has begun (Mistral)",
    }
}

impl Rule for MisplacedSystemMessage {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        // No format is Mistral's own: histories are held to it only when it is targeted.
        if !cx.targets.contains(&Provider::Mistral) || conv.is_response {
            return;
        }
        let Some(verdict) = cx.judge(&[Provider::Mistral]) else {
            return;
        };
        let Some(first) = conv.turns.iter().position(|t| t.role != Role::System) else {
            return;
        };
        let mut previous = None;
        for turn in conv.turns.iter().skip(first) {
            if turn.role != Role::System {
                previous = Some(turn.role);
                continue;
            }
            let (article, after) = match previous {
                Some(Role::Tool) => ("a", "tool"),
                Some(Role::Assistant) => ("an", "assistant"),
                _ => ("a", "user"),
            };
            let mut finding = Finding::at(
                &Self::META,
                &turn.loc,
                format!("system message after {article} {after} message; Mistral accepts system messages only at the start (\"Unexpected role 'system' after role '{after}'\")"),
            )
            .help("move the instruction to the system messages at the start, or send it as a user message")
            .rejected_by(verdict.clone());
            if let Some(start) = conv.turns.get(first) {
                finding = finding.fix(
                    Applicability::Unsafe,
                    "move the system message before the conversation's first message",
                    FixIntent::MoveBlocks {
                        blocks: vec![turn.loc.clone()],
                        before: start.loc.clone(),
                    },
                );
            }
            out.push(finding);
        }
    }
}
