use super::{declare_rule, Rule, RuleMeta};

declare_rule! {
    /// ## What it does
    /// Reports tool calls and tool results that a document holds — by any known format's
    /// markers: `tool_calls`, `tool_use`, `tool_result`, `functionCall`, `functionResponse`,
    /// `toolUse`, `toolResult`, `function_call`, `function_call_output`, `tool-call`,
    /// `tool-result`, `tool_call_id`... — but that the format toolcheck read the document
    /// as did not account for. It lists which structures were left unread and where.
    ///
    /// ## Why it matters
    /// A clean run must mean the history was checked, never that the chosen reader passed
    /// over what it did not understand. A file that mixes shapes (an Anthropic request with
    /// an OpenAI-style message, a framework dump with an unknown wrapper) would otherwise
    /// pass with its `tool_use` blocks unchecked, and the provider may still reject it.
    ///
    /// ## Example
    /// A request read as `openai-chat` whose messages also hold Anthropic blocks:
    /// ```json
    /// {"messages": [{"role": "user", "content": "hi"},
    ///   {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]}]}
    /// ```
    ///
    /// ## Fix
    /// None. Pass the right `--input-format`, or report the shape so toolcheck can read it.
    /// Session files are held to every record too, except Claude Code's: a session is
    /// rebuilt from a chain of records, and records off that chain (rewound branches) are
    /// rightly not replayed, so only the records it was rebuilt from are searched.
    pub struct UnreadToolStructures {
        code: "TC005",
        name: "unread-tool-structures",
        severity: Warning,
        fix: None,
        summary: "tool calls or results in the file that no conversation read went unchecked",
    }
}

impl Rule for UnreadToolStructures {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
}
