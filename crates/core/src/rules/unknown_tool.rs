use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::transcript::Conversation;

declare_rule! {
    /// ## What it does
    /// Reports a call to a tool name that the conversation (or `--tools`) does not declare.
    /// Silent when nothing is declared at all, since many logs do not store their tool
    /// definitions. Provider built-ins (Anthropic server tools, Responses built-ins) are not
    /// unknown.
    ///
    /// ## Why it matters
    /// A runtime cannot dispatch the call, and some providers reject a history whose calls
    /// name undeclared tools. It usually means the tool list changed between turns, a
    /// hallucinated or misspelled name, or a tool that was renamed.
    ///
    /// ## Example
    /// ```json
    /// {"tools": [{"type": "function", "function": {"name": "search_docs", "parameters": {"type": "object"}}}],
    ///  "messages": [{"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
    ///   "function": {"name": "search_doc", "arguments": "{}"}}]}]}
    /// ```
    ///
    /// ## Fix
    /// None. Declare the tool, or correct the name.
    pub struct UnknownTool {
        code: "TC302",
        name: "unknown-tool",
        severity: Warning,
        fix: None,
        summary: "a call names a tool the conversation (or --tools) does not declare",
    }
}

impl Rule for UnknownTool {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        let declared: Vec<&str> = conv
            .tools
            .iter()
            .chain(cx.extra_tools)
            .map(|t| t.name.as_str())
            .collect();
        if declared.is_empty() {
            return;
        }
        for (_, call) in conv.client_calls() {
            if declared.contains(&call.name.as_str()) {
                continue;
            }
            let closest = declared
                .iter()
                .map(|d| (strsim::jaro_winkler(d, &call.name), *d))
                .filter(|(score, _)| *score > 0.85)
                .max_by(|a, b| a.0.total_cmp(&b.0));
            let help = match closest {
                Some((_, name)) => format!("did you mean `{name}`? Otherwise declare `{}`", call.name),
                None => format!(
                    "declare `{}` in the conversation's tools (or pass it with --tools), or correct the name",
                    call.name
                ),
            };
            out.push(
                Finding::about_call(
                    &Self::META,
                    call,
                    &call.loc,
                    format!(
                        "{} calls an undeclared tool; declared tools: {}",
                        call.subject(),
                        super::id_list(declared.iter().copied())
                    ),
                )
                .help(help),
            );
        }
    }
}
