use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::transcript::Conversation;

declare_rule! {
    /// ## What it does
    /// Validates each call's arguments against its tool's declared JSON Schema and reports
    /// calls that violate it: one finding per call, listing every violation with its path
    /// inside the arguments (`/filters/0/value: 7 is not one of [1,3,5]`).
    ///
    /// Schemas come from the conversation's own tool declarations, then from `--tools`.
    /// OpenAI `strict: true` is honoured (no extra keys, every property required), and
    /// Gemini's OpenAPI-style `parameters` (upper-case types, `nullable`) are normalised to
    /// JSON Schema first. A `pattern` the regex engine gives up on (it backtracks past
    /// toolcheck's limit) is not a violation: the engine failed, not the arguments, and
    /// `input-not-checked` reports the call. Neither are calls to a tool whose schema is beyond
    /// toolcheck's limits checked (see `input-not-checked`).
    ///
    /// ## Why it matters
    /// A runtime that dispatches arguments that do not match the schema gets a tool error
    /// back, and models often retry the same malformed call again and again. In fine-tuning
    /// data, such calls teach the model the wrong shape.
    ///
    /// ## Example
    /// ```json
    /// {"tools": [{"type": "function", "function": {"name": "search", "parameters":
    ///   {"type": "object", "properties": {"limit": {"type": "integer"}}}}}],
    ///  "messages": [{"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
    ///   "function": {"name": "search", "arguments": "{\"limit\": \"ten\"}"}}]}]}
    /// ```
    ///
    /// ## Fix
    /// None: the intended values cannot be known. Validate arguments before dispatch and
    /// answer the model with the violations.
    pub struct SchemaViolation {
        code: "TC301",
        name: "schema-violation",
        severity: Warning,
        fix: None,
        summary: "arguments violate the tool's declared schema",
    }
}

/// Violations listed in one message; the rest are counted.
const SHOWN: usize = 5;

impl Rule for SchemaViolation {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn checks_schemas(&self) -> bool {
        true
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        for (_, call) in conv.calls() {
            let Some(checked) = cx.checked(call) else {
                continue;
            };
            let violations = &checked.violations;
            if violations.is_empty() {
                continue;
            }
            let Some(tool) = conv.tool(cx.extra_tools, &call.name) else {
                continue;
            };
            let mut listed = violations
                .iter()
                .take(SHOWN)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ");
            if violations.len() > SHOWN {
                listed.push_str(&format!("; and {} more", violations.len() - SHOWN));
            }
            let declared = if conv.tools.iter().any(|t| t.name == call.name) {
                format!("declared at {}", cx.describe(&tool.loc))
            } else {
                "given with --tools".to_string()
            };
            out.push(
                Finding::about_call(
                    &Self::META,
                    call,
                    &call.args_loc,
                    format!(
                        "arguments of {} violate its schema: {listed}",
                        call.subject()
                    ),
                )
                .help(format!(
                    "make the arguments match the schema of `{}` ({declared}); validate arguments before dispatching calls",
                    call.name
                )),
            );
        }
    }
}
