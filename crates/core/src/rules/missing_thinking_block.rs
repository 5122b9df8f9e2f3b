use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::provider::Provider;
use crate::transcript::{CallKind, Conversation, Item, ReasoningKind, Role};

mod dialects;
use dialects::{reasoning_content, reasoning_items, thought_signatures};

declare_rule! {
    /// ## What it does
    /// Reports a tool-call turn whose reasoning the provider requires passed back, when the
    /// history dropped it. One rule, a dialect per provider, each active where the
    /// conversation is held to that provider (its format's, `--target`, or the provider its
    /// `model` names):
    ///
    /// - **Anthropic** (and Claude on Bedrock and Vertex AI): in a request that enables
    ///   extended thinking (`"thinking": {"type": "enabled", ...}`), the last assistant turn of
    ///   an unfinished tool-use loop (the conversation ends with the results of its calls)
    ///   must start with a `thinking` or `redacted_thinking` block: "messages.1.content.0.type:
    ///   Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is
    ///   enabled, a final `assistant` message must start with a thinking block (preceeding the
    ///   lastmost set of `tool_use` and `tool_result` blocks). We recommend you include
    ///   thinking blocks from previous turns. To avoid this requirement, disable `thinking`."
    ///   (mastra-ai/mastra#7799, anomalyco/opencode#3077 through LiteLLM and Bedrock,
    ///   Kilo-Org/kilocode#5219 on Vertex AI, deepset-ai/haystack-core-integrations#2146).
    ///   Only that turn is checked; adaptive thinking, bare message arrays and Claude Code
    ///   sessions are not (their files do not say whether thinking is on).
    /// - **DeepSeek** thinking mode: every assistant message with `tool_calls` keeps its
    ///   `reasoning_content`: "Missing `reasoning_content` field in the assistant message at
    ///   message index 2. For more information, please refer to
    ///   https://api-docs.deepseek.com/guides/thinking_mode#tool-calls" (abhigyanpatwari/GitNexus#43,
    ///   2026-02; deepseek-ai/DeepSeek-V3#1053, 2025-12; continuedev/continue#11285, 2026-03, at
    ///   message index 46, so not only since the last user message). The thinking-mode guide
    ///   says reasoning of tool-call turns "must be passed back to the API in all subsequent
    ///   requests". An empty string is accepted (recorded traffic, issue 24; the fix clients
    ///   ship, continuedev/continue#11290).
    /// - **Kimi / Moonshot** thinking: the same field: "thinking is enabled but
    ///   reasoning_content is missing in assistant tool call message at index 7"
    ///   (QuantumNous/new-api#3121, 2026-03, kimi-k2.5; mastra-ai/mastra#12592;
    ///   MoonshotAI/kimi-agent-sdk#169, 2026-04, K2.6).
    /// - **Gemini 3**: the first `functionCall` part of each model step of the current turn
    ///   (since the last user text) carries a `thoughtSignature`: "Function call is missing a
    ///   thought_signature in functionCall parts. This is required for tools to work
    ///   correctly, and missing thought_signature may lead to degraded model performance."
    ///   (nanbingxyz/5ire#405, 2026-02, gemini-3-pro-preview, "this does not happen with
    ///   gemini-2.5"; langgenius/dify-official-plugins#2088, 2025-11; the thought-signatures
    ///   guide, ai.google.dev/gemini-api/docs/thought-signatures). Only the first of parallel
    ///   calls needs one: three parallel calls with only the first signed were accepted
    ///   (recorded traffic, issue 24). The documented sentinel
    ///   `skip_thought_signature_validator` counts as a signature.
    /// - **OpenAI Responses**: under a named `--target openai-responses`, a `function_call`
    ///   item with an item id (`fc_…`) in a model turn without its `reasoning` item, when the
    ///   input holds reasoning items elsewhere (whether that response produced one the history
    ///   does not show: reasoning models may skip it):
    ///   "Item 'fc_…' of type 'function_call' was provided without its required 'reasoning'
    ///   item: 'rs_…'." (continuedev/continue#10018, 2026-01, gpt-5; cline/cline#12242, 2026-07,
    ///   gpt-5.5). What must follow a `reasoning` item is `reasoning-item-without-output`'s
    ///   (TC511).
    /// - **DeepSeek `/responses`**: the reasoning items of a turn come before its
    ///   `function_call` items; a `reasoning` item between two calls of one turn was rejected
    ///   (recorded traffic, pydantic-ai's DeepSeek Responses cassette, issue 24; DeepSeek
    ///   publishes no text for it). OpenAI's own output interleaves them, and OpenAI accepts
    ///   that order back.
    ///
    /// Whether thinking was on is read from the history: the model (`deepseek-reasoner`, a
    /// Kimi `…thinking` model), the request options (`thinking: {"type": "enabled"}`, also
    /// under `extra_body`; `reasoning_effort`), and other turns that carry reasoning. A
    /// `deepseek-chat` request without those needs none (recorded traffic). Where the history
    /// does not show it, a target named with `--target` (or `target` in the config) decides:
    /// DeepSeek and Kimi are then held to thinking mode (their current models think by
    /// default); without one there is no finding. For Gemini only the model (`gemini-3…`)
    /// counts, or a named target on a history whose other calls carry signatures: Gemini 2.5
    /// returns signatures too but does not require them back ("this does not happen with
    /// gemini-2.5", nanbingxyz/5ire#405), so a history without any signature does not show
    /// which generation it was sent to.
    ///
    /// ## Why it matters
    /// Frameworks that drop reasoning when they store or translate the history cause it, and
    /// every later request of the conversation fails the same way.
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
    /// Unsafe, where the provider accepts a stand-in:
    /// - DeepSeek and Kimi: add `reasoning_content: ""` to the message. DeepSeek accepted an
    ///   empty string on a `deepseek-reasoner` tool-call message (pydantic-ai's
    ///   `test_deepseek_deferred_capability_with_thinking` cassette, HTTP 200), and clients
    ///   (LiteLLM, Mastra) fill it in for Kimi; the same fix peers ship.
    /// - Gemini 3: sign the first call of each step of the current turn with
    ///   `"thoughtSignature": "skip_thought_signature_validator"`, the value Google documents
    ///   for calls that did not come from Gemini ("You can set thought_signature to
    ///   skip_thought_signature_validator", for the Gemini API and Vertex AI).
    ///
    /// Unsafe because the provider is then told the model reasoned nothing (or its
    /// signature check is skipped): the request is accepted, but the model continues without
    /// the reasoning it had, which can change what it does next. None for Anthropic thinking
    /// blocks and Responses reasoning items, which are signed by the provider and cannot be
    /// invented: keep the reasoning the model returned (unchanged) when storing the history,
    /// or disable thinking for the request.
    pub struct MissingThinkingBlock {
        code: "TC502",
        name: "missing-thinking-block",
        severity: Error,
        fix: Unsafe,
        judged_by: [Anthropic, Bedrock, Deepseek, Moonshot, Gemini, OpenaiResponses],
        summary: "a tool-call turn lacks the reasoning its provider requires passed back (thinking block, reasoning_content, thought signature, reasoning item)",
    }
}

impl Rule for MissingThinkingBlock {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        if conv.is_response {
            return;
        }
        anthropic(cx, conv, out);
        match conv.reasoning.kind {
            Some(ReasoningKind::ReasoningContent) => reasoning_content(cx, conv, out),
            Some(ReasoningKind::ThoughtSignature) => thought_signatures(cx, conv, out),
            Some(ReasoningKind::ReasoningItems) => reasoning_items(cx, conv, out),
            None => {}
        }
    }
}

/// Anthropic: the last assistant turn of an unfinished tool-use loop starts with thinking.
fn anthropic(cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
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
            &MissingThinkingBlock::META,
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
