use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::provider::Provider;
use crate::transcript::{CallKind, Conversation, Item, Role};

declare_rule! {
    /// ## What it does
    /// In a request that enables extended thinking (`"thinking": {"type": "enabled", ...}`),
    /// reports the last assistant turn of an unfinished tool-use loop (the conversation ends
    /// with the results of its tool calls, so the model is asked to carry on) when that turn
    /// does not start with a `thinking` or `redacted_thinking` block.
    ///
    /// Only that turn is checked: the provider requires the block there alone, and ignores
    /// thinking blocks of earlier turns (keeping them is recommended, not enforced).
    /// Adaptive thinking (`"type": "adaptive"`) is not checked, since the model may answer
    /// without thinking; nor are bare message arrays and Claude Code sessions, whose files
    /// do not say whether thinking is on.
    ///
    /// ## Why it matters
    /// Anthropic (and Claude on Bedrock and Vertex AI) rejects the request:
    /// "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found
    /// `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a
    /// thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).
    /// We recommend you include thinking blocks from previous turns. To avoid this
    /// requirement, disable `thinking`." (quoted in mastra-ai/mastra#7799, anomalyco/opencode#3077
    /// through LiteLLM and Bedrock, Kilo-Org/kilocode#5219 on Vertex AI,
    /// deepset-ai/haystack-core-integrations#2146). Frameworks that drop thinking blocks
    /// when they store or translate the history cause it, and every retry of that
    /// conversation fails the same way.
    ///
    /// ## Example
    /// ```json
    /// {"thinking": {"type": "enabled", "budget_tokens": 4096}, "messages": [
    ///   {"role": "user", "content": "Weather in Paris?"},
    ///   {"role": "assistant", "content": [
    ///     {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}}
    ///   ]},
    ///   {"role": "user", "content": [
    ///     {"type": "tool_result", "tool_use_id": "toolu_1", "content": "18°C"}
    ///   ]}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// None: a thinking block carries a signature only the provider can make, so it cannot
    /// be invented. Keep the thinking blocks the model returned (unchanged, with their
    /// signatures) when storing the history, or disable thinking for this request.
    pub struct MissingThinkingBlock {
        code: "TC502",
        name: "missing-thinking-block",
        severity: Error,
        fix: None,
        summary: "thinking is enabled, but the last assistant turn of a tool-use loop does not start with a thinking block",
    }
}

impl Rule for MissingThinkingBlock {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        if conv.thinking != Some(true) {
            return;
        }
        let Some(verdict) = cx.judge(&[Provider::Anthropic, Provider::Bedrock]) else {
            return;
        };
        // The last turn, past trailing mid-conversation system messages, must hold results
        // answering calls of the assistant turn right before it.
        let Some(last) = conv.turns.iter().rposition(|t| t.role != Role::System) else {
            return;
        };
        let (Some(results), Some(assistant)) = (
            conv.turns.get(last),
            last.checked_sub(1).and_then(|i| conv.turns.get(i)),
        ) else {
            return;
        };
        if results.role != conv.results_role || assistant.role != Role::Assistant {
            return;
        }
        let continues_loop = results.items.iter().any(|item| match item {
            Item::Result(result) if !result.provider_executed => assistant
                .items
                .iter()
                .any(|i| matches!(i, Item::Call(c) if c.is_client() && c.key == result.key)),
            _ => false,
        });
        if !continues_loop {
            return;
        }
        let Some(first) = assistant.items.first() else {
            return;
        };
        let (found, at) = match first {
            Item::Thinking(_) => return,
            Item::Text(t) => ("other content".to_string(), &t.loc),
            Item::Call(c) if c.kind == CallKind::ProviderExecuted => {
                (format!("a server tool call to `{}`", c.name), &c.loc)
            }
            Item::Call(c) => (c.subject(), &c.loc),
            Item::Result(r) => (r.subject(), &r.loc),
        };
        let finding = Finding::at(
            &Self::META,
            at,
            format!(
                "the request enables thinking, and the conversation continues a tool-use loop, but its last assistant turn starts with {found}, not a `thinking` or `redacted_thinking` block"
            ),
        )
        .help("keep the thinking blocks the model returned with this turn (unchanged, with their signatures), or disable thinking for this request")
        .rejected_by(verdict);
        out.push(match first {
            Item::Call(c) => Finding {
                tool_call_id: c.id.clone(),
                ..finding
            },
            _ => finding,
        });
    }
}
