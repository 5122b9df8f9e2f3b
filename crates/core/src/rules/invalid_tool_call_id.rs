use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::provider::{self, Provider};
use crate::transcript::{Conversation, MissingId};

declare_rule! {
    /// ## What it does
    /// Reports a tool-call id that a targeted provider's id rules reject:
    /// - Anthropic: `tool_use.id` must match `^[a-zA-Z0-9_-]+$` (so it cannot be empty):
    ///   "messages.1.content.1.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
    ///   (anomalyco/opencode#1279, CommandCodeAI/command-code#323);
    /// - OpenAI Chat Completions: at most 40 characters: "Invalid
    ///   'messages[2].tool_calls[0].id': string too long. Expected a string with maximum length
    ///   40, but got a string with length 43 instead." (vercel/ai#5171, agno-agi/agno#5382);
    /// - OpenAI Responses: a `call_id` of at most 64 characters: "Invalid
    ///   'input[95].call_id': string too long. Expected a string with maximum length 64, but
    ///   got a string with length 116 instead." (code `string_above_max_length`;
    ///   AnswerDotAI/fastllm#45, 2026-06; decolua/9router#393, 2026-03; also from the Codex
    ///   backend, V1ki/dsh-plugin-subscriptions#29, 2026-08, where ids the backend returned
    ///   itself were too long to send back);
    /// - Mistral: exactly nine letters or digits: "Tool call id was call_0fypS1hVX but must be
    ///   a-z, A-Z, 0-9, with a length of 9." (jackmpcollins/magentic#276,
    ///   langchain-ai/langchain#24668).
    ///
    /// - OpenAI Chat Completions: an id at all. A `tool` message without `tool_call_id` is
    ///   rejected with "Missing parameter 'tool_call_id': messages with role 'tool' must have
    ///   a 'tool_call_id'." (`param: messages.[3].tool_call_id`), and the API reference marks
    ///   a `tool_calls` entry's `id` required; toolcheck pairs such calls and results by
    ///   position, so nothing else reports them. Ollama's id-less calls (object arguments,
    ///   results named by `tool_name`) pair by name by design and are not reported.
    ///
    /// Each conversation is held to its own format's provider, or to `--target`.
    ///
    /// ## Why it matters
    /// Ids minted by one provider or framework break another: Responses-API ids (`fc_…`,
    /// 53 characters) replayed to Chat Completions, OpenAI's `call_…` ids sent to Mistral,
    /// empty ids from a framework sent to Anthropic. Every later request of the conversation
    /// is rejected with a 400.
    ///
    /// ## Example
    /// ```json
    /// {"role": "assistant", "content": [{"type": "tool_use", "id": "call.1", "name": "f", "input": {}}]}
    /// ```
    ///
    /// ## Fix
    /// None: an id must be renamed in the call and in its result together, consistently across
    /// the history; translation layers do this when they send to the provider.
    pub struct InvalidToolCallId {
        code: "TC106",
        name: "invalid-tool-call-id",
        severity: Error,
        fix: None,
        judged_by: [Openai, OpenaiResponses, Anthropic, Mistral],
        summary: "a tool-call id breaks a targeted provider's pattern or length limit",
    }
}

/// Why `provider` rejects `id`, if it does.
fn violation(provider: Provider, id: &str) -> Option<String> {
    let safe_chars = |extra: &[char]| {
        id.chars()
            .all(|c| c.is_ascii_alphanumeric() || extra.contains(&c))
    };
    match provider {
        Provider::Anthropic if id.is_empty() || !safe_chars(&['_', '-']) => {
            Some("must match ^[a-zA-Z0-9_-]+$".to_string())
        }
        Provider::Openai if id.chars().count() > 40 => Some(format!(
            "at most 40 characters, this one has {}",
            id.chars().count()
        )),
        Provider::OpenaiResponses if id.chars().count() > 64 => Some(format!(
            "at most 64 characters, this one has {}",
            id.chars().count()
        )),
        Provider::Mistral if id.chars().count() != 9 || !safe_chars(&[]) => {
            Some("exactly 9 letters or digits".to_string())
        }
        _ => None,
    }
}

impl Rule for InvalidToolCallId {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        if let Some(verdict) = (!conv.shapes.missing_ids.is_empty())
            .then(|| cx.judge(&[Provider::Openai]))
            .flatten()
        {
            for (loc, side) in &conv.shapes.missing_ids {
                let (message, help) = match side {
                    MissingId::Call => (
                        "tool call has no `id`; OpenAI requires one on every `tool_calls` entry",
                        "give the call an id (`call_…`) and its tool message the same `tool_call_id`",
                    ),
                    MissingId::Result => (
                        "tool message has no `tool_call_id` (\"Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.\")",
                        "set `tool_call_id` to the id of the call this message answers",
                    ),
                };
                out.push(
                    Finding::at(&Self::META, loc, message)
                        .help(help)
                        .rejected_by(verdict.clone()),
                );
            }
        }
        for (_, call) in conv.client_calls() {
            let Some(id) = call.id.as_deref() else {
                continue;
            };
            let Some((verdict, reasons)) = cx.judge_limits(|p| violation(p, id)) else {
                continue;
            };
            out.push(
                Finding::about_call(
                    &Self::META,
                    call,
                    &call.loc,
                    format!(
                        "tool call id \"{id}\" is rejected by {}",
                        reasons.join(" and ")
                    ),
                )
                .help(format!(
                    "rename the id in the call and in its result (translation layers such as LiteLLM do this when sending to {})",
                    provider::list(&verdict.1)
                ))
                .rejected_by(verdict),
            );
        }
    }
}
