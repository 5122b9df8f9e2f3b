use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::provider::Provider;
use crate::transcript::Conversation;

declare_rule! {
    /// ## What it does
    /// Reports a Bedrock Converse request whose messages hold tool calls or tool results
    /// (`toolUse`, `toolResult` blocks) but that defines no `toolConfig`. Bare message lists
    /// and saved responses are not requests, and are not reported.
    ///
    /// ## Why it matters
    /// Bedrock rejects the request with "The toolConfig field must be defined when using
    /// toolUse and toolResult content blocks." (nearai/ironclaw#1629,
    /// aws-samples/bedrock-access-gateway#239, langgenius/dify#16421). It happens when a
    /// conversation that used tools continues in a step that offers none: a summary or
    /// side-chat over the history, `toolChoice: none`, or an empty active-tool list
    /// (vercel/ai#7537).
    ///
    /// ## Example
    /// ```json
    /// {"messages": [
    ///   {"role": "user", "content": [{"text": "Weather in Paris?"}]},
    ///   {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_1",
    ///     "name": "get_weather", "input": {"city": "Paris"}}}]},
    ///   {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_1",
    ///     "content": [{"text": "18°C"}]}}]}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// None: toolcheck cannot know the tools' specifications. Send the `toolConfig` of the
    /// conversation with the request (its `tools` may not be empty).
    pub struct MissingToolConfig {
        code: "TC505",
        name: "missing-tool-config",
        severity: Error,
        fix: None,
        judged_by: [Bedrock],
        summary: "a request's messages hold tool calls or results, but it declares no tools",
    }
}

impl Rule for MissingToolConfig {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        if conv.declares_tools != Some(false) {
            return;
        }
        let Some(verdict) = cx.judge(&[Provider::Bedrock]) else {
            return;
        };
        let calls = conv.calls().filter(|(_, c)| c.is_client()).count();
        let results = conv.results().filter(|(_, r)| !r.provider_executed).count();
        let first = conv
            .turns
            .iter()
            .flat_map(|t| t.items.iter())
            .find_map(|item| match item {
                crate::transcript::Item::Call(c) if c.is_client() => Some(c.loc.clone()),
                crate::transcript::Item::Result(r) if !r.provider_executed => Some(r.loc.clone()),
                _ => None,
            });
        let Some(first) = first else {
            return;
        };
        let message = format!(
            "the request's messages hold {calls} tool call{} and {results} tool result{}, but it declares no tools (`toolConfig`)",
            if calls == 1 { "" } else { "s" },
            if results == 1 { "" } else { "s" },
        );
        out.push(
            Finding::at(&Self::META, &first, message)
                .help("send the conversation's `toolConfig` with the request")
                .rejected_by(verdict),
        );
    }
}
