use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::provider::{self, Provider};
use crate::transcript::{Conversation, Loc};

declare_rule! {
    /// ## What it does
    /// Reports a tool name, declared or called, that a targeted provider's naming rules
    /// reject:
    /// - OpenAI: `^[a-zA-Z0-9_-]+$`, at most 64 characters: "Invalid
    ///   'tools[0].function.name': string does not match pattern. Expected a string that
    ///   matches the pattern '^[a-zA-Z0-9_-]+$'." (also for
    ///   `messages[9].tool_calls[0].function.name`; mcp-use/mcp-use#90,
    ///   run-llama/llama_index#16093);
    /// - Anthropic: `^[a-zA-Z0-9_-]+$`, at most 128 characters: "tools.18.custom.name: String
    ///   should have at most 128 characters" (anthropics/claude-code#96152);
    /// - Bedrock Converse: `[a-zA-Z0-9_-]+`, at most 64 characters: "Value at
    ///   'messages.73.member.content.2.member.toolUse.name' failed to satisfy constraint:
    ///   Member must have length less than or equal to 64; ... Member must satisfy regular
    ///   expression pattern: [a-zA-Z0-9_-]+" (openclaw/openclaw#12892);
    /// - Gemini: starts with a letter or an underscore; letters, digits, underscores, dots,
    ///   colons and dashes; at most 64 characters (the `FunctionDeclaration.name` reference of
    ///   the Gemini API).
    /// - OpenAI Responses: not empty: "Invalid 'input[4].name': empty string. Expected a
    ///   string with minimum length 1, but got an empty string instead." (a `function_call`
    ///   item whose name a stream never delivered; quoted in 2026 gateway and agent threads).
    ///
    /// ## Why it matters
    /// MCP servers and plugins name tools `server.tool`, `get_/whoami` or `Complete Session`;
    /// one such name in the declared tools, or in a replayed call, fails every request of the
    /// conversation, even when the tool is never called again.
    ///
    /// ## Example
    /// ```json
    /// {"tools": [{"type": "function", "function": {"name": "fs.read_file", "parameters": {"type": "object"}}}]}
    /// ```
    ///
    /// ## Fix
    /// None: rename the tool where it is declared and in every call, consistently.
    pub struct InvalidToolName {
        code: "TC304",
        name: "invalid-tool-name",
        severity: Error,
        fix: None,
        judged_by: [Openai, OpenaiResponses, Anthropic, Gemini, Bedrock],
        summary: "a tool name breaks a targeted provider's naming pattern or length limit",
    }
}

/// Whether every provider takes `name`: letters, digits, `_` and `-`, starting with a letter
/// or `_`, at most 64 bytes. Most names are; they skip asking each provider.
fn fits_every_provider(name: &str) -> bool {
    let bytes = name.as_bytes();
    bytes
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        && bytes.len() <= 64
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
}

/// Why `provider` rejects the tool name `name`, if it does.
fn violation(provider: Provider, name: &str) -> Option<String> {
    let len = name.chars().count();
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match provider {
        Provider::Openai | Provider::Bedrock if !plain => {
            Some("must match ^[a-zA-Z0-9_-]+$".to_string())
        }
        Provider::Openai | Provider::Bedrock if len > 64 => {
            Some(format!("at most 64 characters, this one has {len}"))
        }
        Provider::Anthropic if !plain => Some("must match ^[a-zA-Z0-9_-]+$".to_string()),
        Provider::OpenaiResponses if name.is_empty() => Some("must not be empty".to_string()),
        Provider::Anthropic if len > 128 => {
            Some(format!("at most 128 characters, this one has {len}"))
        }
        Provider::Gemini => {
            let first_ok = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
            let chars_ok = name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.:-".contains(c));
            if !first_ok || !chars_ok {
                Some("must start with a letter or `_` and use only letters, digits, `_`, `.`, `:` and `-`".to_string())
            } else if len > 64 {
                Some(format!("at most 64 characters, this one has {len}"))
            } else {
                None
            }
        }
        _ => None,
    }
}

impl Rule for InvalidToolName {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        // Each name once: where it is declared, else at its first call.
        let mut seen: Vec<&str> = Vec::new();
        let declared = conv
            .tools
            .iter()
            .filter(|t| !t.builtin)
            .map(|t| (t.name.as_str(), &t.loc, "tool"));
        let called = conv
            .calls()
            .filter(|(_, c)| c.is_client())
            .map(|(_, c)| (c.name.as_str(), &c.loc, "called tool"));
        let named: Vec<(&str, &Loc, &str)> = declared.chain(called).collect();
        for (name, loc, what) in named {
            if seen.contains(&name) {
                continue;
            }
            seen.push(name);
            if fits_every_provider(name) {
                continue;
            }
            let Some((verdict, reasons)) = cx.judge_limits(|p| violation(p, name)) else {
                continue;
            };
            out.push(
                Finding::at(
                    &Self::META,
                    loc,
                    format!(
                        "{what} name {} is rejected by {}",
                        crate::finding::quote(name, 80),
                        reasons.join(" and ")
                    ),
                )
                .help(format!(
                    "rename the tool where it is declared and in every call (for {}: letters, digits, `_` and `-`)",
                    provider::list(&verdict.1)
                ))
                .rejected_by(verdict),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The fast path never skips a name some provider rejects.
        #[test]
        fn a_name_that_fits_every_provider_has_no_violation(name in "[a-zA-Z0-9_.:é -]{0,70}") {
            if fits_every_provider(&name) {
                for provider in Provider::ALL {
                    prop_assert_eq!(violation(provider.base(), &name), None, "{}", provider);
                }
            }
        }
    }

    #[test]
    fn names_that_some_provider_rejects_do_not_fit() {
        for name in ["", "9lives", "a.b", "a b", "é", &"a".repeat(65)] {
            assert!(!fits_every_provider(name), "{name}");
        }
        assert!(fits_every_provider("get_weather-2"));
    }
}
