use super::{declare_rule, ArgsKind, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::transcript::{Arguments, Conversation};

declare_rule! {
    /// ## What it does
    /// Reports a tool call whose arguments are null, missing or an empty string, and a call
    /// whose arguments are `{}` while the tool's declared schema requires parameters.
    ///
    /// ## Why it matters
    /// A call with empty arguments is dispatched anyway, the tool fails ("missing 'command'
    /// parameter"), and the model often retries the identical call until the iteration
    /// limit: one real session made 25 `exec({})` calls in a row. `{}` for a tool that takes
    /// no parameters is fine, so `{}` is only reported when a schema (declared in the log or
    /// given with `--tools`) lists required parameters.
    ///
    /// ## Example
    /// ```json
    /// {"tools": [{"type": "function", "function": {"name": "exec", "parameters":
    ///   {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}],
    ///  "messages": [{"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
    ///   "function": {"name": "exec", "arguments": "{}"}}]}]}
    /// ```
    ///
    /// ## Fix
    /// None: the missing values cannot be invented. Validate arguments before dispatch, and
    /// return a clear error to the model when they are missing.
    pub struct EmptyArguments {
        code: "TC202",
        name: "empty-arguments",
        severity: Warning,
        fix: None,
        summary: "arguments are null, empty or `{}` while the tool's schema requires parameters",
    }
}

impl Rule for EmptyArguments {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        for (_, call) in conv.json_calls() {
            // Most calls carry arguments: classified first, so that the tool's required
            // parameters are listed only for the few that do not.
            let empty_object = match cx.args_kind(call) {
                ArgsKind::Empty => false,
                ArgsKind::Object { empty: true } => true,
                _ => continue,
            };
            let required = conv
                .tool(cx.extra_tools, &call.name)
                .map(|t| t.required_params())
                .unwrap_or_default();
            let required_list = || {
                required
                    .iter()
                    .map(|r| format!("\"{r}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let message = if empty_object {
                if required.is_empty() {
                    continue;
                }
                format!(
                    "arguments of {} are `{{}}`, but `{}` requires {}",
                    call.subject(),
                    call.name,
                    required_list()
                )
            } else {
                let shown = match &call.arguments {
                    Arguments::Absent => "missing",
                    Arguments::Encoded(s) if s.trim().is_empty() => "an empty string",
                    _ => "null",
                };
                if required.is_empty() {
                    format!("arguments of {} are {shown}", call.subject())
                } else {
                    format!(
                        "arguments of {} are {shown}, but `{}` requires {}",
                        call.subject(),
                        call.name,
                        required_list()
                    )
                }
            };
            out.push(Finding::about_call(&Self::META, call, &call.args_loc, message).help(
                "validate arguments before dispatching a call, and answer the model with an error naming the missing parameters; send `{}` for tools without parameters",
            ));
        }
    }
}
