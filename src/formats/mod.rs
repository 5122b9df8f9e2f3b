//! Provider formats: detection and normalisation.
//!
//! One file per format (a directory for a large one: `claude_code/`). An adapter knows its
//! JSON shapes and turns them into the normalised [`Conversation`] model; it never decides
//! what is wrong. Detection is cheap: each adapter scores a document from its top-level
//! shape, and the best score wins.

use crate::edit::plan::EditContext;
pub use crate::edit::plan::{CallSite, Dialect};
use crate::finding::{Edit, FixIntent};
pub use crate::format::Format;
use crate::transcript::Conversation;
use crate::tree::Value as Tree;

mod adk;
mod agentscope;
mod anthropic;
mod bedrock_converse;
mod claude_code;
mod cline;
mod codex;
mod gemini;
mod langchain;
mod langgraph_stream;
mod mcp;
mod moltis;
mod openai_chat;
mod openai_responses;
mod pi;
mod spring_ai;
mod vercel_ai;

/// Every adapter, one per format, in detection-priority order (ties go to the earlier one).
/// Adding a format is one file plus one line here.
static ADAPTERS: &[&dyn Adapter] = &[
    &openai_chat::OpenAiChat,
    &anthropic::Anthropic,
    &cline::Cline,
    &gemini::Gemini,
    &bedrock_converse::BedrockConverse,
    &openai_responses::OpenAiResponses,
    &codex::Codex,
    &claude_code::ClaudeCode,
    &vercel_ai::VercelAi,
    &langchain::Langchain,
    &moltis::Moltis,
    &mcp::Mcp,
    &spring_ai::SpringAi,
    &agentscope::AgentScope,
    &adk::Adk,
    &langgraph_stream::LanggraphStream,
    &pi::Pi,
];

// Defined beside the transcript, which carries it as a tag; the adapters live here.
impl Format {
    /// The adapter for this format, if this build has one.
    pub fn adapter(self) -> Option<&'static dyn Adapter> {
        ADAPTERS.iter().copied().find(|a| a.format() == self)
    }
}

pub use crate::json::Doc;

/// One provider or framework format. Its [`Dialect`] is the JSON a fix inserts in it.
pub trait Adapter: Dialect + Sync {
    fn format(&self) -> Format;

    /// Whether the conversations are built from every record of a session. A format rebuilt
    /// from a chain of records (Claude Code) deliberately leaves records off the chain out
    /// (branches abandoned by a rewind or an edit); the unread-structure guard then holds
    /// it to the records its conversations drew on.
    fn replays_every_record(&self) -> bool {
        true
    }

    /// How strongly a whole document (a `.json` file, or one JSONL record read on its own)
    /// looks like this format, from its top-level shape only: `None` for "not this format",
    /// otherwise a score where a higher one wins (10 = plausible, 50 = likely,
    /// 90 = unmistakable).
    fn sniff(&self, doc: &Tree) -> Option<u8>;

    /// How strongly one JSONL record looks like a record of a session of this format, where
    /// the records of a file are read together as one session (Claude Code, Codex, MCP
    /// captures, Moltis, Spring AI and AgentScope message lines, LangGraph stream events):
    /// `None` for formats whose records are documents of their own. Which unit a JSONL file
    /// is read in is decided by its records, not by the format.
    fn sniff_record(&self, _record: &Tree) -> Option<u8> {
        None
    }

    /// Whether the format has whole documents at all: `false` for formats that exist only as
    /// sessions of records (Claude Code, Codex, MCP captures, Moltis), so a JSONL file forced
    /// to one is always read as one session.
    fn has_documents(&self) -> bool {
        true
    }

    /// Builds the conversations of one document. `Err` says why the input does not fit this
    /// format (used when it was forced).
    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String>;

    /// Builds one session's conversations from its records, one document each, in the
    /// order they were written or the library reads them back (a JSONL session, the rows of
    /// a SQLite store): `None` where the format keeps no session as separate records.
    fn normalise_records(&self, _docs: &[Doc<'_>]) -> Option<Result<Vec<Conversation>, String>> {
        None
    }

    /// Turns a fix intent into byte edits. Most formats keep the default, the generic
    /// planner of `fix::plan`; session formats that must re-link records override it.
    fn plan_edits(&self, _intent: &FixIntent, _cx: &EditContext<'_>) -> Planned {
        Planned::Generic
    }

    /// For formats whose JSONL lines may carry text around the JSON (log lines): the byte
    /// range of the record in `line`. `None` when the line is not one of this format's.
    fn record_span(&self, _line: &str) -> Option<(usize, usize)> {
        None
    }
}

/// The byte range of the record in a JSONL line: what an adapter finds inside text it
/// recognises, else the whole line.
pub fn record_span(line: &str) -> (usize, usize) {
    ADAPTERS
        .iter()
        .find_map(|a| a.record_span(line))
        .unwrap_or((0, line.len()))
}

/// An adapter's answer to a fix intent.
pub enum Planned {
    /// Use the generic planner.
    Generic,
    /// These edits.
    Edits(Vec<Edit>),
    /// This format cannot make that repair.
    Unsupported,
}

/// The edits that carry out `intent` in a file of `adapter`'s format.
pub fn plan(adapter: &dyn Adapter, intent: &FixIntent, cx: &EditContext<'_>) -> Option<Vec<Edit>> {
    match adapter.plan_edits(intent, cx) {
        Planned::Generic => crate::edit::plan::generic(adapter, intent, cx),
        Planned::Edits(edits) => Some(edits),
        Planned::Unsupported => None,
    }
}

/// The best document-level format for `doc`, if any adapter recognises it.
pub fn detect(doc: &Tree) -> Option<&'static dyn Adapter> {
    best(doc, false)
}

/// The session format of a JSONL file, judged from its first records.
pub fn detect_session<'a>(
    records: impl Iterator<Item = &'a Tree<'a>>,
) -> Option<&'static dyn Adapter> {
    let mut votes: Vec<(Format, u32)> = Vec::new();
    for record in records {
        if let Some(adapter) = best(record, true) {
            match votes.iter_mut().find(|(f, _)| *f == adapter.format()) {
                Some((_, n)) => *n += 1,
                None => votes.push((adapter.format(), 1)),
            }
        }
    }
    votes
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .and_then(|(f, _)| f.adapter())
}

fn best(doc: &Tree, record: bool) -> Option<&'static dyn Adapter> {
    let mut best: Option<(u8, &'static dyn Adapter)> = None;
    for adapter in ADAPTERS.iter().copied() {
        let score = if record {
            adapter.sniff_record(doc)
        } else {
            adapter.sniff(doc)
        };
        if let Some(score) = score {
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, adapter));
            }
        }
    }
    best.map(|(_, a)| a)
}

// Shape helpers shared by adapters.

/// `value[key]` as a string.
pub(crate) fn str_at<'a>(value: &'a Tree, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Tree::as_str)
}

/// `value[key]` as an array.
pub(crate) fn array_at<'a>(value: &'a Tree, key: &str) -> Option<&'a Vec<Tree<'a>>> {
    value.get(key).and_then(Tree::as_array)
}

/// The first of several spellings of a field that is present (camelCase and snake_case).
pub(crate) fn field<'a>(
    value: &'a Tree,
    names: &[&'static str],
) -> Option<(&'static str, &'a Tree<'a>)> {
    names
        .iter()
        .find_map(|&name| value.get(name).map(|v| (name, v)))
}

/// Whether every element of `items` (and at least one) is an object with a string `role`.
pub(crate) fn all_have_role(items: &[Tree]) -> bool {
    !items.is_empty() && items.iter().all(|m| str_at(m, "role").is_some())
}

/// The content blocks of a message: its `content` array, or nothing for string content.
pub(crate) fn blocks<'a>(message: &'a Tree<'a>) -> &'a [Tree<'a>] {
    array_at(message, "content").map_or(&[], Vec::as_slice)
}

/// Whether message content holds anything: a non-blank string or a non-empty part list.
pub(crate) fn has_text(content: Option<&Tree>) -> bool {
    match content {
        Some(Tree::String(s)) => !s.is_blank(),
        Some(Tree::Array(parts)) => !parts.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod registry_tests {
    use super::*;

    #[test]
    fn one_adapter_per_format() {
        let mut formats: Vec<Format> = ADAPTERS.iter().map(|a| a.format()).collect();
        let listed = formats.len();
        formats.sort_by_key(|f| f.name());
        formats.dedup();
        assert_eq!(formats.len(), listed, "a format has two adapters");
        for format in Format::ALL {
            assert!(
                format.adapter().is_some(),
                "{} has no adapter",
                format.name()
            );
        }
    }
}
