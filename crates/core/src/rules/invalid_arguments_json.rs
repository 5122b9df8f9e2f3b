use super::{declare_rule, ArgsKind, Context, Rule, RuleMeta};
use crate::finding::{quote, Applicability, Finding, FixIntent};
use crate::transcript::{Arguments, Conversation, ParsedArgs};

declare_rule! {
    /// ## What it does
    /// Reports tool-call arguments that are not valid JSON. When the text is a valid prefix
    /// of a JSON document (the stream was cut off), the message says "truncated".
    ///
    /// ## Why it matters
    /// A user who interrupts a streaming tool call leaves half-received arguments such as
    /// `{"query": "hello wor` in the history. Proxies and providers that validate arguments
    /// reject every later request of the conversation ("Invalid JSON format in tool call
    /// arguments"; MiniMax: "invalid params, invalid function arguments json string,
    /// tool_call_id: call_function_av290x6dp459_1 (2013)", `bad_request_error`, quoted in
    /// eight 2026 threads), and frameworks that do not may silently dispatch the call with
    /// `{}`.
    /// Free-text inputs (`custom_tool_call`) are not JSON by design and are not checked.
    ///
    /// ## Example
    /// ```json
    /// {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
    ///   "function": {"name": "search", "arguments": "{\"query\": \"hello wor"}}]}
    /// ```
    ///
    /// ## Fix
    /// Unsafe: replace the arguments with an empty object, in the format's own encoding (the
    /// string `"{}"` for OpenAI). The conversation becomes valid again, but what the model
    /// did send is discarded, so the fix is applied only with `--unsafe-fixes`. Arguments
    /// that are valid JSON beyond common parser limits (`1e400`, a lone surrogate escape)
    /// are not reported; arguments nested deeper than toolcheck reads are `input-not-checked`.
    pub struct InvalidArgumentsJson {
        code: "TC201",
        name: "invalid-arguments-json",
        severity: Error,
        fix: Unsafe,
        rejected_by: [Openai, Anthropic, Gemini, Bedrock, Minimax],
        summary: "arguments are not valid JSON (\"truncated\" when a valid prefix)",
    }
}

impl Rule for InvalidArgumentsJson {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        for (_, call) in conv.json_calls() {
            if cx.args_kind(call) != ArgsKind::Invalid {
                continue;
            }
            let parsed = cx.args(call);
            let ParsedArgs::Invalid { error, truncated } = &*parsed else {
                continue;
            };
            let truncated = *truncated;
            let text = match &call.arguments {
                Arguments::Encoded(text) => text.as_str(),
                _ => "",
            };
            let message = if truncated {
                format!(
                    "arguments of {} are truncated JSON: {}",
                    call.subject(),
                    quote(text, 80)
                )
            } else {
                format!(
                    "arguments of {} are not valid JSON ({error}): {}",
                    call.subject(),
                    quote(text, 80)
                )
            };
            let help = if truncated {
                "the arguments were cut off, likely by an interrupted stream; replace them with `{}` or re-run the call"
            } else {
                "replace the arguments with valid JSON, or with `{}`"
            };
            let mut finding =
                Finding::about_call(&Self::META, call, &call.args_loc, message).help(help);
            if let Arguments::Encoded(_) = call.arguments {
                finding = finding.fix(
                    Applicability::Unsafe,
                    "replace the arguments with an empty object",
                    FixIntent::Replace {
                        at: call.args_loc.clone(),
                        text: "\"{}\"".to_string(),
                    },
                );
            }
            out.push(finding);
        }
    }
}
