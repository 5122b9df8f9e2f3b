use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::{Applicability, Finding, FixIntent};
use crate::provider::Provider;
use crate::transcript::{CallKind, Conversation, Item, Loc, Pairing, Role, ToolCall};

declare_rule! {
    /// ## What it does
    /// Reports an assistant message whose `tool_use` block is followed, in the same message,
    /// by something other than another `tool_use`: text, an image, or a server tool's
    /// `server_tool_use`/`*_tool_result` blocks. Content *before* the first `tool_use` is
    /// fine. Thinking blocks after a `tool_use` are not reported (not verified).
    ///
    /// ## Why it matters
    /// Claude requires client `tool_use` blocks to end their message, because their results
    /// must come "immediately after", in the next message. With anything after them,
    /// Anthropic (and Claude on Bedrock and Vertex AI) rejects the request even when every
    /// result is in the next message:
    /// "messages.N: `tool_use` ids were found without `tool_result` blocks immediately
    /// after: toolu_... Each `tool_use` block must have a corresponding `tool_result` block
    /// in the next message." Reported with text after `tool_use` in stacklok/mecatl#1465
    /// (the same request succeeded once the text was moved before the `tool_use`), and with
    /// web-search blocks after `tool_use` in vercel/ai#13013. Frameworks that rebuild an
    /// assistant message from streamed parts, or append a closing remark to it, cause it.
    ///
    /// Only formats whose blocks are ordered can have this: an OpenAI-style assistant
    /// message with both `content` and `tool_calls` is translated for Claude with the text
    /// first (LiteLLM, LangChain, the Vercel AI SDK do), so it is not reported under
    /// `--target anthropic`. In a Vercel AI SDK or Gemini history, parts keep their order
    /// and are reported.
    ///
    /// ## Example
    /// ```json
    /// {"role": "assistant", "content": [
    ///   {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "rust"}},
    ///   {"type": "text", "text": "Searching now."}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// Unsafe: move the trailing content before the message's first `tool_use` block. Every
    /// byte is kept and the provider accepts the result, but it changes the order the model
    /// wrote: text written after the call (often a remark about the call, or the start of
    /// what should have been a later turn) reads as said before it, and the model sees a
    /// history it did not produce.
    pub struct ContentAfterToolUse {
        code: "TC501",
        name: "content-after-tool-use",
        severity: Error,
        fix: Unsafe,
        judged_by: [Anthropic, Bedrock],
        summary: "an assistant message has content after its `tool_use` blocks",
    }
}

impl Rule for ContentAfterToolUse {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        // Where results may come anywhere later (Responses items, Vercel UI messages, whose
        // one message spans several steps), a message is not what the provider is sent.
        if conv.pairing != Pairing::NextTurn {
            return;
        }
        let Some(verdict) = cx.judge(&[Provider::Anthropic, Provider::Bedrock]) else {
            return;
        };
        for turn in conv.turns.iter().filter(|t| t.role == Role::Assistant) {
            for (_, items) in turn.by_message() {
                if let Some(finding) = check_message(cx, &items) {
                    out.push(finding.rejected_by(verdict.clone()));
                }
            }
        }
    }
}

/// The finding for one message's items, if content follows its first client call.
fn check_message(cx: &Context<'_>, items: &[&Item]) -> Option<Finding> {
    let first = items.iter().position(|i| is_client_call(i))?;
    let call: &ToolCall = match items.get(first)? {
        Item::Call(call) => call,
        _ => return None,
    };
    let trailing: Vec<&Loc> = items
        .get(first + 1..)?
        .iter()
        .filter_map(|item| match item {
            Item::Text(t) => Some(&t.loc),
            Item::Call(c) if c.kind == CallKind::ProviderExecuted => Some(&c.loc),
            Item::Result(r) if r.provider_executed => Some(&r.loc),
            _ => None,
        })
        .collect();
    let (&at, rest) = trailing.split_first()?;
    // Blocks of a message are array elements; a message whose content is one string holds
    // no call, so this is always a block, but stay safe.
    if *at == call.message {
        return None;
    }
    let more = match rest.len() {
        0 => String::new(),
        1 => " and 1 more block after it".to_string(),
        n => format!(" and {n} more blocks after it"),
    };
    let finding = Finding::about_call(
        &ContentAfterToolUse::META,
        call,
        at,
        format!(
            "content follows {} in the same assistant message (this block{more}); `tool_use` blocks must end their message",
            call.subject(),
        ),
    )
    .help(format!(
        "move this content before the first `tool_use` block of the message ({})",
        cx.describe(&call.loc)
    ))
    .fix(
        Applicability::Unsafe,
        "move the content before the message's first `tool_use` block",
        FixIntent::MoveBlocks {
            blocks: trailing.into_iter().cloned().collect(),
            before: call.loc.clone(),
        },
    );
    Some(finding)
}

fn is_client_call(item: &Item) -> bool {
    matches!(item, Item::Call(c) if c.is_client())
}
