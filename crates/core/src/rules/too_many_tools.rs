use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::provider::Provider;
use crate::transcript::{Conversation, Loc};

declare_rule! {
    /// ## What it does
    /// Reports a request whose list of tools is longer than a targeted provider accepts:
    /// - OpenAI (Chat Completions and Responses): at most 128 entries in `tools`: "Invalid
    ///   'tools': array too long. Expected an array with maximum length 128, but got an array
    ///   with length 133 instead." (code `array_above_max_length`; zed-industries/zed#42393,
    ///   2025-11, GPT-5; musistudio/claude-code-router#686, 2025-08, gpt-5-mini on
    ///   `/v1/chat/completions`; anomalyco/opencode#4909, 2025-11, GPT-5.1 through Copilot);
    /// - Gemini: at most 512 function declarations in one `tools[]` entry: "The
    ///   GenerateContentRequest proto is invalid: * tools[0].function_declarations:
    ///   [FIELD_INVALID] At most 512 function declarations can be specified." (status
    ///   `INVALID_ARGUMENT`; google-gemini/gemini-cli#25440, 2026-04, gemini-3-flash-preview;
    ///   #19083).
    ///
    /// Each list is counted on its own (`tools`, or one `tools[k].functionDeclarations`),
    /// as the providers count them. Tools given with `--tools` are not counted: they are
    /// not part of the request.
    ///
    /// ## Why it matters
    /// Every request fails, whatever the conversation says, until tools are removed. Agents
    /// with many MCP servers connected reach the limit without noticing: each server adds its
    /// whole tool list.
    ///
    /// ## Example
    /// A request whose `tools` array holds 129 function tools, sent to OpenAI.
    ///
    /// ## Fix
    /// None: which tools the agent can do without is the user's choice. Disable MCP servers
    /// or tools not needed for the task, or route tools through a search tool.
    pub struct TooManyTools {
        code: "TC305",
        name: "too-many-tools",
        severity: Error,
        fix: None,
        judged_by: [Openai, OpenaiResponses, Gemini],
        summary: "a request declares more tools than a targeted provider accepts (OpenAI 128, Gemini 512)",
    }
}

/// The most entries `provider` accepts in one list of tools.
fn limit(provider: Provider) -> Option<usize> {
    match provider {
        Provider::Openai | Provider::OpenaiResponses => Some(128),
        Provider::Gemini => Some(512),
        _ => None,
    }
}

impl Rule for TooManyTools {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        // Each list of declarations (the array holding them) with its length, in order.
        let mut lists: Vec<(Loc, usize)> = Vec::new();
        for tool in &conv.tools {
            let Some((parent, _)) = tool.loc.pointer.rsplit_once('/') else {
                continue;
            };
            match lists.last_mut() {
                Some((loc, n)) if loc.base == tool.loc.base && loc.pointer == parent => *n += 1,
                _ => lists.push((Loc::new(tool.loc.base, parent), 1)),
            }
        }
        for (list, count) in lists {
            let Some((verdict, reasons)) = cx.judge_limits(|p| {
                limit(p)
                    .filter(|&max| count > max)
                    .map(|max| format!("at most {max}"))
            }) else {
                continue;
            };
            out.push(
                Finding::at(
                    &Self::META,
                    &list,
                    format!(
                        "the request declares {count} tools in one list, over the limit of {}",
                        reasons.join(" and ")
                    ),
                )
                .help("disable the MCP servers or tools this task does not need, so the list fits the provider's limit")
                .rejected_by(verdict),
            );
        }
    }
}
