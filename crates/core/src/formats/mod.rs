//! Provider formats: the registry of adapters, and detection.
//!
//! One file per format (a directory for a large one: `claude_code/`), registered by its line
//! of [`crate::format::each_format!`], which declares the modules and [`ADAPTERS`]. An adapter
//! (`adapter.rs`) knows its JSON shapes and turns them into the normalised
//! [`crate::transcript::Conversation`] model; it never decides what is wrong. Detection is
//! cheap: each adapter scores a document (or a session record) from its top-level shape, and
//! the best score wins. `shape.rs` holds the field helpers adapters share.

pub use crate::edit::plan::{CallSite, Dialect};
pub use crate::format::Format;
use crate::tree::Value as Tree;

mod adapter;
mod links;
mod shape;

pub use adapter::{plan, Adapter, Planned, Records, Taken, Visit};
pub(crate) use adapter::{removal, remove_only};
/// Whether a document is one span as `ConsoleSpanExporter` prints it (for saying why one
/// without model calls is no conversation).
pub(crate) use console_spans::is_span as is_printed_span;
/// Whether a JSONL file's first record opens a Kimi Code CLI wire log.
pub(crate) use kimi_cli::is_wire_log as is_kimi_wire_log;
/// A LangGraph checkpoint column as JSON text (for the store layer).
pub(crate) use langgraph_checkpoint::{decode as decode_checkpoint, Undecoded};
/// Whether a document is Arize Phoenix spans (for saying why one without model calls is no
/// conversation).
pub(crate) use phoenix::is_container as is_phoenix_spans;
pub(crate) use shape::{
    all_have_role, all_roles_among, array_at, blocks, field, has_text, opens_with_any, str_at,
    text_at, AGENTS_SDK_FAILURES,
};
#[cfg(test)]
pub(crate) use shape::{one_conversation, session_docs};

mod calls;
mod console_spans;
mod otlp;
mod phoenix;
mod tool_spans;

/// One module per format, and every adapter in the registry's order
/// ([`crate::format::each_format!`]).
macro_rules! adapters {
    ($($variant:ident $name:literal $kind:ident [$($native:ident),*] $module:ident,)*) => {
        $(mod $module;)*

        static ADAPTERS: &[&dyn Adapter] = &[$(&$module::$variant,)*];

        impl Format {
            /// What toolcheck reads in this format, from its module's `DOC` (Markdown): the
            /// format's page in `docs/formats/` and what `toolcheck explain` prints.
            pub fn doc(self) -> &'static str {
                match self {
                    $(Format::$variant => $module::DOC,)*
                }
            }
        }
    };
}
crate::format::each_format!(adapters);

// Defined beside the transcript, which carries it as a tag; the adapters live here.
impl Format {
    /// The adapter for this format, if this build has one.
    pub fn adapter(self) -> Option<&'static dyn Adapter> {
        ADAPTERS.iter().copied().find(|a| a.format() == self)
    }
}

pub use crate::json::Doc;

/// The byte range of the record in a JSONL line: what an adapter finds inside text it
/// recognises, else the whole line.
pub fn record_span(line: &str) -> (usize, usize) {
    ADAPTERS
        .iter()
        .find_map(|a| a.record_span(line))
        .unwrap_or((0, line.len()))
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
        for &format in Format::ALL {
            assert!(
                format.adapter().is_some(),
                "{} has no adapter",
                format.name()
            );
        }
    }
}
