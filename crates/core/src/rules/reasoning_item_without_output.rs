use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::{Applicability, Finding, FixIntent};
use crate::provider::{self, Provider};
use crate::transcript::{AfterReasoning, Conversation};

declare_rule! {
    /// ## What it does
    /// Reports a `reasoning` item of a Responses request's input that keeps its server id
    /// (`rs_…`) but is not followed by the item the model produced with it:
    ///
    /// - **error**: the next item is an assistant `message` or a call (`function_call`, …)
    ///   written without its own server id (`msg_…`, `fc_…`), as clients write a message
    ///   they re-created or edited;
    /// - **warning**: the reasoning item is the last item of the input, or the next item is
    ///   one the client writes (a user message, a `function_call_output`) or another
    ///   `reasoning` item. No rejection of these shapes is recorded, and no acceptance
    ///   either.
    ///
    /// A reasoning item without an id (sent with its `encrypted_content` only) is not
    /// reported: the provider does not look it up. Nor is a reasoning item followed by an
    /// `item_reference`, whose item is on the server.
    ///
    /// ## Why it matters
    /// The Responses API ties a reasoning item to the output item that followed it in the
    /// response, by their server ids. Sent with an id-less item after it, the request fails
    /// (HTTP 400, `invalid_request_error`, `param: "input"`): "Item
    /// 'rs_68c42de022c881948db7ed1cc2529f2e0202c9ad459e0d23' of type 'reasoning' was provided
    /// without its required following item." Recorded in pydantic-ai's cassette
    /// `test_openai_responses_thinking_with_modified_history` (gpt-5: `user, reasoning{id},
    /// message{assistant, no id, edited content}, user`); reported in continuedev/continue#8933,
    /// vercel/ai#7099 (tool calls replayed without their item ids) and mastra-ai/mastra#11103,
    /// whose repro on gpt-5.1-chat-latest fails with the assistant message's id left out and
    /// works with it. The same reasoning item
    /// followed by a `message` with its `msg_` id or a `function_call` with its `fc_` id was
    /// accepted in every recorded request (pydantic-ai's OpenAI Responses cassettes).
    ///
    /// A reasoning item that is last, or followed by a client item or another reasoning
    /// item, appears in no recorded request; the OpenAI Agents SDK documents the error for a
    /// reasoning item "sent with an `id` but without its required following item", so these
    /// shapes are reported as warnings.
    ///
    /// ## Example
    /// ```json
    /// {"model": "gpt-5", "input": [
    ///   {"role": "user", "content": "Name a prime."},
    ///   {"type": "reasoning", "id": "rs_68c42de0", "summary": [],
    ///    "encrypted_content": "gAAAAABo..."},
    ///   {"type": "message", "role": "assistant",
    ///    "content": [{"type": "output_text", "text": "7 (edited)"}]},
    ///   {"role": "user", "content": "Another one?"}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// Unsafe, for a reasoning item that carries its `encrypted_content`: drop the reasoning
    /// item's `id`, so the provider reads the reasoning from the item itself instead of
    /// pairing it by id, as the OpenAI Agents SDK does with `reasoning_item_id_policy="omit"`.
    /// Unsafe because no recorded request shows this repair accepted after the fact, and the
    /// request must ask for `reasoning.encrypted_content` in `include` for later turns to
    /// keep it. Otherwise none: keep the server id of the item that followed the reasoning
    /// item (`"id": "msg_…"`), or leave the reasoning item out.
    pub struct ReasoningItemWithoutOutput {
        code: "TC511",
        name: "reasoning-item-without-output",
        severity: Error,
        fix: Unsafe,
        judged_by: [OpenaiResponses],
        summary: "a reasoning item with a server id is not followed by the output item it came with (OpenAI Responses)",
    }
}

impl Rule for ReasoningItemWithoutOutput {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        for item in &conv.reasoning.items {
            let Some(id) = &item.id else {
                continue;
            };
            let (verdict, after) = match &item.next {
                AfterReasoning::OutputWithoutId(next) => {
                    let Some(verdict) = cx.judge(&[Provider::OpenaiResponses]) else {
                        continue;
                    };
                    let after = format!(
                        "is followed by {} without its server id (at {}), which {} rejects (\"Item '{id}' of type 'reasoning' was provided without its required following item.\")",
                        with_article(&next.label),
                        cx.describe(&next.loc),
                        provider::list(&verdict.1)
                    );
                    (verdict, after)
                }
                AfterReasoning::Input(next) | AfterReasoning::Reasoning(next) => {
                    let Some(verdict) = cx.judge_contested(&[], &[Provider::OpenaiResponses])
                    else {
                        continue;
                    };
                    let after = format!(
                        "is followed by {} (at {}), not by the message or call it came with; {} rejects a reasoning item followed by an output item without its id, and no request of this shape is recorded either way",
                        with_article(&next.label),
                        cx.describe(&next.loc),
                        provider::list(&verdict.1)
                    );
                    (verdict, after)
                }
                AfterReasoning::Nothing => {
                    let Some(verdict) = cx.judge_contested(&[], &[Provider::OpenaiResponses])
                    else {
                        continue;
                    };
                    let after = format!(
                        "is the last item of the input, without the message or call it came with; {} rejects a reasoning item followed by an output item without its id, and no request ending with one is recorded either way",
                        provider::list(&verdict.1)
                    );
                    (verdict, after)
                }
                AfterReasoning::OutputWithId
                | AfterReasoning::Reference
                | AfterReasoning::Unknown => continue,
            };
            let mut finding = Finding::at(
                &Self::META,
                &item.loc,
                format!("`reasoning` item \"{id}\" {after}"),
            )
            .help(if item.encrypted {
                "keep the server id of the item the response returned after this reasoning item, or drop the reasoning item's `id` and send it with its `encrypted_content` only"
            } else {
                "keep the server id of the item the response returned after this reasoning item, or leave the reasoning item out"
            })
            .rejected_by(verdict);
            if item.encrypted {
                finding = finding.fix(
                    Applicability::Unsafe,
                    "drop the reasoning item's `id`; its `encrypted_content` carries the reasoning",
                    FixIntent::RemoveMember {
                        object: item.loc.clone(),
                        key: "id",
                    },
                );
            }
            out.push(finding);
        }
    }
}

/// `label` with its indefinite article: "an assistant message", "a `function_call` item",
/// "a user message".
fn with_article(label: &str) -> String {
    let first = label.trim_start_matches('`').chars().next();
    let article = if first.is_some_and(|c| "aeio".contains(c)) {
        "an"
    } else {
        "a"
    };
    format!("{article} {label}")
}
