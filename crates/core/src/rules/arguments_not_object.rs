use super::{declare_rule, ArgsKind, Context, Rule, RuleMeta};
use crate::finding::{quote, Applicability, Finding, FixIntent};
use crate::transcript::{Arguments, Conversation, ParsedArgs};
use serde_json::Value as Json;

declare_rule! {
    /// ## What it does
    /// Reports tool-call arguments that parse to something other than an object: an array,
    /// a number, or a string. A string that itself holds a JSON object is double-encoded
    /// arguments, and the message says so.
    ///
    /// ## Why it matters
    /// Every provider requires arguments to be an object ("tool_use.input: Input should be a
    /// valid dictionary"). Double encoding comes from serialising arguments that were already
    /// a JSON string; the OpenAI cookbook's own fine-tuning example data contains such a line.
    /// The model learns or replays the wrong shape.
    ///
    /// ## Example
    /// ```json
    /// {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
    ///   "function": {"name": "locate", "arguments": "\"{\\\"location\\\": \\\"current\\\"}\""}}]}
    /// ```
    ///
    /// ## Fix
    /// Safe where decoding one level yields an object (double-encoded arguments); none
    /// otherwise.
    pub struct ArgumentsNotObject {
        code: "TC203",
        name: "arguments-not-object",
        severity: Error,
        fix: Sometimes,
        rejected_by: [Openai, Anthropic, Gemini, Bedrock],
        summary: "arguments parse to a non-object, including double-encoded JSON strings",
    }
}

impl Rule for ArgumentsNotObject {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        for (_, call) in conv.json_calls() {
            if cx.args_kind(call) != ArgsKind::NotObject {
                continue;
            }
            let parsed = cx.args(call);
            let ParsedArgs::NotObject(value) = &*parsed else {
                continue;
            };
            let decoded = value
                .as_str()
                .and_then(|s| serde_json::from_str::<Json>(s).ok())
                .filter(Json::is_object);
            let double_encoded = decoded.is_some();
            let (message, help) = if double_encoded {
                (
                    format!(
                        "arguments of {} are double-encoded: a JSON string holding an object, {}",
                        call.subject(),
                        quote(value.as_str().unwrap_or_default(), 60)
                    ),
                    "decode the arguments one level, so they are the object itself",
                )
            } else {
                (
                    format!(
                        "arguments of {} are {}, not an object: {}",
                        call.subject(),
                        super::json_kind(value),
                        quote(&value.to_string(), 60)
                    ),
                    "tool arguments must be a JSON object; wrap the value in an object keyed by its parameter name",
                )
            };
            let mut finding =
                Finding::about_call(&Self::META, call, &call.args_loc, message).help(help);
            if let (Some(object), Some(inner)) = (decoded, value.as_str()) {
                // One level less: the inner JSON text, itself a string where the format
                // encodes arguments as strings. Multi-line text is compacted so a JSONL
                // record stays one line.
                let inner = if inner.contains('\n') {
                    object.to_string()
                } else {
                    inner.to_string()
                };
                let text = match call.arguments {
                    Arguments::Encoded(_) => serde_json::to_string(&inner).unwrap_or_default(),
                    _ => inner,
                };
                finding = finding.fix(
                    Applicability::Safe,
                    "decode the arguments one level",
                    FixIntent::Replace {
                        at: call.args_loc.clone(),
                        text,
                    },
                );
            }
            out.push(finding);
        }
    }
}
