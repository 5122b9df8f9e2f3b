//! The results agents and repair tools insert for a call whose real result was never
//! recorded: the texts, and who writes each. Read by adapters (a result that did not fail
//! keeps its text only when it is one of these) and by `invented-tool-result`.

/// How a placeholder's text is recognised.
enum Text {
    /// The whole result is this text (after trimming).
    Is(&'static str),
    /// The result starts with this text.
    StartsWith(&'static str),
    /// The result ends with this text.
    EndsWith(&'static str),
}

/// Who inserts each placeholder, and its text.
const PLACEHOLDERS: &[(&str, Text)] = &[
    ("Claude Code", Text::StartsWith("[Tool call interrupted: ")),
    ("Claude Code", Text::Is("[Tool result missing due to internal error]")),
    ("Codex", Text::Is("aborted")),
    ("pi", Text::Is("No result provided")),
    ("opencode", Text::StartsWith("[Tool execution was interrupted]")),
    ("Qwen Code", Text::StartsWith("Tool execution result was not recorded — ")),
    (
        "Copilot CLI",
        Text::Is("The execution of this tool, or a previous tool was interrupted."),
    ),
    (
        "Copilot CLI",
        Text::StartsWith("Tool execution was interrupted before a result was recorded. Its effects may be absent"),
    ),
    (
        "OpenClaw",
        Text::EndsWith("missing tool result in session history; inserted synthetic error result for transcript repair."),
    ),
    (
        "OpenClaw",
        Text::EndsWith("missing tool result in session history; inserted synthetic error result for transcript repair"),
    ),
    ("Hermes Agent", Text::Is("[Result unavailable — see context summary above]")),
    ("Factory Droid", Text::Is("Error: Tool execution was cancelled")),
    (
        "DeepSeek Harness",
        Text::Is("The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly."),
    ),
    (
        "DeepSeek Harness",
        Text::Is("The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed."),
    ),
    (
        "Gemini CLI",
        Text::Is("The tool execution result was lost due to context management truncation."),
    ),
    ("toolcheck", Text::EndsWith("(inserted by toolcheck)")),
    ("toolcheck", Text::EndsWith("(recorded by toolcheck)")),
    ("toolcheck", Text::StartsWith("Synthetic result written by toolcheck")),
];

/// Who inserted a result of this text, when it is a known placeholder.
pub fn inserted_by(text: &str) -> Option<&'static str> {
    let text = text.trim();
    let (first, last) = (text.as_bytes().first(), text.as_bytes().last());
    // Every result is asked, and almost none is a placeholder: the byte each text must
    // open or close with rules most out before comparing the texts.
    PLACEHOLDERS
        .iter()
        .find(|(_, t)| match t {
            Text::Is(p) => text == *p,
            Text::StartsWith(p) => first == p.as_bytes().first() && text.starts_with(p),
            Text::EndsWith(p) => last == p.as_bytes().last() && text.ends_with(p),
        })
        .map(|(who, _)| *who)
}

#[cfg(test)]
mod tests {
    use super::inserted_by;

    #[test]
    fn recognises_placeholders_and_not_real_output() {
        assert_eq!(inserted_by(" aborted\n"), Some("Codex"));
        assert_eq!(
            inserted_by("[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."),
            Some("OpenClaw")
        );
        assert_eq!(inserted_by("Build aborted after 3 errors"), None);
        assert_eq!(inserted_by("No results found"), None);
        assert_eq!(
            inserted_by(crate::edit::plan::INTERRUPTED),
            Some("toolcheck")
        );
    }
}
