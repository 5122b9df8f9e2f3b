//! The adapter framework: what a format adapter is (`Adapter`: sniffing a document or a
//! session record, normalising either into conversations, planning the edits of a fix) and
//! its answer to a fix intent (`Planned`). The registry of formats is `format.rs`'s `each_format!`.

use super::Dialect;
use crate::edit::plan::EditContext;
use crate::finding::{Edit, FixIntent};
use crate::format::Format;
use crate::json::Doc;
use crate::transcript::Conversation;
use crate::tree::Value as Tree;

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
    /// 90 = unmistakable). `None` for formats that have no whole documents.
    fn sniff(&self, _doc: &Tree) -> Option<u8> {
        None
    }

    /// How strongly one JSONL record looks like a record of a session of this format, where
    /// the records of a file are read together as one session (Claude Code, Codex, MCP
    /// captures, Moltis, Spring AI and AgentScope message lines, LangGraph stream events):
    /// `None` for formats whose records are documents of their own. Which unit a JSONL file
    /// is read in is decided by its records, not by the format.
    fn sniff_record(&self, _record: &Tree) -> Option<u8> {
        None
    }

    /// Whether the format has whole documents at all: `false` for formats that exist only as
    /// sessions of records (Claude Code, Codex, MCP captures, Moltis, pi, Copilot CLI), so a
    /// JSONL file forced to one is always read as one session, by its `normalise`.
    fn has_documents(&self) -> bool {
        true
    }

    /// Builds the conversations of one document. `Err` says why the input does not fit this
    /// format (used when it was forced).
    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String>;

    /// Builds the conversation of one whole document (`doc`, at byte `base`) as
    /// [`Adapter::normalise`] does, taking each message out of its message list once read and
    /// handing it to `visit`, whose it then is to drop: a big document's tree is then never
    /// held whole beside its transcript. `visit` is shown the elements of the list in order,
    /// each once it is read, up to the first that does not fit (then the result is `Err`);
    /// what is left of `doc` afterwards holds nulls in the places of those shown. `None` where
    /// the format reads its documents whole (then `doc` is untouched).
    fn normalise_taking<'a>(
        &self,
        _base: usize,
        _doc: &mut Tree<'a>,
        _visit: Taken<'_, 'a>,
    ) -> Option<Result<Vec<Conversation>, String>> {
        None
    }

    /// Builds one session's conversations from its records, one document each, in the
    /// order they were written or the library reads them back (a JSONL session, the rows of
    /// a SQLite store): `None` where the format keeps no session as separate records. A
    /// format without documents reads its sessions with `normalise`.
    fn normalise_records(&self, docs: &[Doc<'_>]) -> Option<Result<Vec<Conversation>, String>> {
        (!self.has_documents()).then(|| self.normalise(docs))
    }

    /// Builds one JSONL session's conversations from its records read one at a time, for
    /// formats whose sessions grow too big to hold every record's tree at once (a Claude
    /// Code session of 100 MB): `None` where the format reads its records together (with
    /// [`Adapter::normalise_records`]). A record may be read more than once; `visit` is shown
    /// its tree each time a conversation has read from it, with the conversation and where it
    /// stood before (the unread-structure guard runs there, while the tree is alive). An
    /// adapter reading this way reads a record's items from that record, and, where it
    /// replays every record ([`Adapter::replays_every_record`]), shows `visit` every record
    /// that parses.
    fn normalise_one_by_one(
        &self,
        _records: &mut dyn Records<'_>,
        _visit: Visit<'_>,
    ) -> Option<Result<Vec<Conversation>, String>> {
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

/// One JSONL session's records, read one at a time ([`Adapter::normalise_one_by_one`]).
pub trait Records<'t> {
    /// How many records the session has (some of which may not parse).
    fn count(&self) -> usize;

    /// Record `i`: its byte offset and its tree, parsed on every call (the caller drops it
    /// when done; a first record parsed to judge the format is handed over once instead).
    /// `None` for a record that does not parse, which the session's reader reports itself.
    fn read(&mut self, i: usize) -> Option<(usize, Tree<'t>)>;

    /// Whether the session is small enough to hold every record's tree at once: an adapter
    /// that would read a record twice then keeps its first tree instead of parsing it again.
    fn small(&self) -> bool {
        false
    }
}

/// How an adapter that reads a session's records twice (once for what links them, then the
/// records its conversations replay) gets a record's tree again.
pub(crate) trait Trees<'t> {
    /// Shows `read` the tree of record `at`.
    fn with_tree(&mut self, at: usize, read: &mut dyn FnMut(Doc<'_>));

    /// Reads record `at` into `conv` with `read`, then shows `visit` the record and what
    /// that added to `conv`.
    fn read_into(
        &mut self,
        at: usize,
        conv: &mut Conversation,
        visit: Visit<'_>,
        read: &mut dyn FnMut(Doc<'_>, &mut Conversation),
    ) {
        self.with_tree(at, &mut |doc| {
            let mark = conv.mark();
            read(doc, conv);
            visit(at, doc, conv, mark);
        });
    }
}

/// Trees all held at once: the documents the records were read from, by position.
impl<'t> Trees<'t> for &[Doc<'t>] {
    fn with_tree(&mut self, at: usize, read: &mut dyn FnMut(Doc<'_>)) {
        if let Some(&doc) = self.get(at) {
            read(doc);
        }
    }
}

/// Trees parsed again, one at a time.
impl<'t> Trees<'t> for &mut dyn Records<'t> {
    fn with_tree(&mut self, at: usize, read: &mut dyn FnMut(Doc<'_>)) {
        if let Some((base, value)) = self.read(at) {
            read(Doc {
                base,
                value: &value,
            });
        }
    }
}

/// The trees of a small session's records, by record ([`Records::small`]).
pub(crate) struct Held<'t>(Vec<Option<(usize, Tree<'t>)>>);

impl<'t> Trees<'t> for Held<'t> {
    fn with_tree(&mut self, at: usize, read: &mut dyn FnMut(Doc<'_>)) {
        if let Some(Some((base, value))) = self.0.get(at) {
            read(Doc { base: *base, value });
        }
    }
}

/// What `header` (given each record's index, offset and tree) makes of every record that
/// parses, in order, each tree dropped once read unless the session is small: its trees are
/// then held, by record, for reading again.
pub(crate) fn read_headers<'t, H>(
    records: &mut dyn Records<'t>,
    mut header: impl FnMut(usize, usize, &Tree<'t>) -> H,
) -> (Vec<H>, Option<Held<'t>>) {
    // Sized once: grown by doubling, the list was the peak of a big session's lint.
    let mut list = Vec::with_capacity(records.count());
    let mut held = records.small().then(|| Vec::with_capacity(records.count()));
    for i in 0..records.count() {
        let record = records.read(i);
        if let Some((base, value)) = &record {
            list.push(header(i, *base, value));
        }
        if let Some(held) = &mut held {
            held.push(record);
        }
    }
    (list, held.map(Held))
}

/// What `header` (given each record's index, offset and tree) makes of every document of a
/// session read together: [`read_headers`]'s list, when the trees are all held anyway.
pub(crate) fn doc_headers<'t, H>(
    docs: &[Doc<'t>],
    mut header: impl FnMut(usize, usize, &Tree<'t>) -> H,
) -> Vec<H> {
    docs.iter()
        .enumerate()
        .map(|(at, doc)| header(at, doc.base, doc.value))
        .collect()
}

/// `rebuild` given the trees of a session's records to read again: a small session's, held
/// since [`read_headers`] read them, else `records` parsed again.
pub(crate) fn read_again<'t, R>(
    records: &mut dyn Records<'t>,
    held: Option<Held<'t>>,
    rebuild: impl FnOnce(&mut dyn Trees<'t>) -> R,
) -> R {
    match held {
        Some(mut held) => rebuild(&mut held),
        None => rebuild(&mut { records }),
    }
}

/// The reader of a session format whose records are each read once, in order (Codex
/// rollouts, Kimi Code CLI, Droid and Moltis sessions, MCP captures), whichever way the
/// session is read: [`read_in_order`] over documents, [`read_one_by_one`] over records.
pub(crate) trait InOrder: Sized {
    /// A reader for a session whose first record starts at byte `first`.
    fn new(first: usize) -> Self;
    /// Reads one record into the conversation being read, and returns where that stood
    /// before.
    fn read(&mut self, doc: Doc<'_>) -> crate::transcript::Mark;
    /// The conversation being read.
    fn conversation(&self) -> &Conversation;
    /// The session's conversations; `any`: whether it had records that parse.
    fn finish(self, any: bool) -> Result<Vec<Conversation>, String>;
}

/// The two [`Adapter`] methods of a session format read by an [`InOrder`] reader: over
/// documents, and one line at a time, each line's tree dropped once read.
macro_rules! read_in_order_by {
    ($reader:ty) => {
        fn normalise(
            &self,
            docs: &[$crate::json::Doc<'_>],
        ) -> Result<Vec<$crate::transcript::Conversation>, String> {
            $crate::formats::adapter::read_in_order::<$reader>(docs)
        }

        fn normalise_one_by_one(
            &self,
            records: &mut dyn $crate::formats::Records<'_>,
            visit: $crate::formats::Visit<'_>,
        ) -> Option<Result<Vec<$crate::transcript::Conversation>, String>> {
            Some($crate::formats::adapter::read_one_by_one::<$reader>(
                records, visit,
            ))
        }
    };
}
pub(crate) use read_in_order_by;

/// A session of documents read by `R`.
pub(crate) fn read_in_order<R: InOrder>(docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
    let mut reader = R::new(docs.first().map_or(0, |d| d.base));
    for doc in docs {
        reader.read(*doc);
    }
    reader.finish(!docs.is_empty())
}

/// A session read by `R` one record at a time, each record's tree dropped once read and
/// shown to `visit` first.
pub(crate) fn read_one_by_one<R: InOrder>(
    records: &mut dyn Records<'_>,
    visit: Visit<'_>,
) -> Result<Vec<Conversation>, String> {
    let mut reader: Option<R> = None;
    for i in 0..records.count() {
        let Some((base, value)) = records.read(i) else {
            continue;
        };
        let reader = reader.get_or_insert_with(|| R::new(base));
        let doc = Doc {
            base,
            value: &value,
        };
        let mark = reader.read(doc);
        visit(i, doc, reader.conversation(), mark);
    }
    let any = reader.is_some();
    reader.unwrap_or_else(|| R::new(0)).finish(any)
}

/// What an adapter reading records one at a time shows of each record as a conversation
/// reads it: which record of the session it is (its index in [`Records`]), the record, the
/// conversation, and where the conversation stood before.
pub type Visit<'v> = &'v mut dyn FnMut(usize, Doc<'_>, &Conversation, crate::transcript::Mark);

/// What an adapter reading a document's messages one at a time
/// ([`Adapter::normalise_taking`]) hands over of each: where it was, its tree, the
/// conversation, and where the conversation stood before it was read.
pub type Taken<'v, 'a> =
    &'v mut dyn FnMut(&crate::transcript::Loc, Tree<'a>, &Conversation, crate::transcript::Mark);

/// Reads `messages` (the list at `list`) in order with `read`, each at its place in the
/// list; [`take_messages`] is the same loop, taking the messages out.
pub(crate) fn read_messages<'a>(
    conv: &mut Conversation,
    messages: &[Tree<'a>],
    list: &crate::transcript::Loc,
    mut read: impl FnMut(&mut Conversation, &Tree<'a>, &crate::transcript::Loc) -> Result<(), String>,
) -> Result<(), String> {
    for (i, message) in messages.iter().enumerate() {
        read(conv, message, &list.child(i))?;
    }
    Ok(())
}

/// Reads `messages` (the list at `list`) in order with `read`, taking each message out of
/// the list once read and handing it to `visit` (see [`Adapter::normalise_taking`]).
pub(crate) fn take_messages<'a>(
    conv: &mut Conversation,
    messages: &mut [Tree<'a>],
    list: &crate::transcript::Loc,
    visit: Taken<'_, 'a>,
    mut read: impl FnMut(&mut Conversation, &Tree<'a>, &crate::transcript::Loc) -> Result<(), String>,
) -> Result<(), String> {
    for (i, slot) in messages.iter_mut().enumerate() {
        let message = std::mem::take(slot);
        let mloc = list.child(i);
        let mark = conv.mark();
        read(conv, &message, &mloc)?;
        visit(&mloc, message, conv, mark);
    }
    Ok(())
}

/// An adapter's answer to a fix intent.
pub enum Planned {
    /// Use the generic planner.
    Generic,
    /// These edits.
    Edits(Vec<Edit>),
    /// This format cannot make that repair.
    Unsupported,
    /// This format cannot make that repair, for this reason (a note the finding carries:
    /// the repair would need what the format's files cannot take as a minimal edit).
    Withheld(&'static str),
}

/// The node a removal intent takes out and the message holding it (`RemoveResult`,
/// `RemoveCall`), for adapters that plan removals their own way.
pub(crate) fn removal(
    intent: &FixIntent,
) -> Option<(&crate::transcript::Loc, &crate::transcript::Loc)> {
    match intent {
        FixIntent::RemoveResult { result, message }
        | FixIntent::RemoveCall {
            call: result,
            message,
        } => Some((result, message)),
        _ => None,
    }
}

/// Removes `node` alone, leaving the message holding it in place even if that empties it.
pub(crate) fn remove_only(cx: &EditContext<'_>, node: &crate::transcript::Loc) -> Planned {
    match crate::edit::plan::remove_node(cx, node) {
        Some(edit) => Planned::Edits(vec![edit]),
        None => Planned::Unsupported,
    }
}

/// The one conversation `adapter` reads from `rows`, each a record (a store's row), for
/// adapter tests.
#[cfg(test)]
pub(crate) fn read_rows(adapter: &dyn Adapter, rows: &[&'static str]) -> Conversation {
    let values: Vec<Tree> = rows
        .iter()
        .map(|r| crate::json::parse(r).expect("JSON").value)
        .collect();
    adapter
        .normalise(&super::session_docs(&values))
        .expect("read")
        .into_iter()
        .next()
        .expect("one conversation")
}

/// The edits that carry out `intent` in a file of `adapter`'s format, or why there are none
/// when the adapter says so.
pub fn plan(
    adapter: &dyn Adapter,
    intent: &FixIntent,
    cx: &EditContext<'_>,
) -> Result<Vec<Edit>, Option<&'static str>> {
    match adapter.plan_edits(intent, cx) {
        Planned::Generic => crate::edit::plan::generic(adapter, intent, cx).ok_or(None),
        Planned::Edits(edits) => Ok(edits),
        Planned::Unsupported => Err(None),
        Planned::Withheld(why) => Err(Some(why)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoRecords;

    impl<'t> Records<'t> for NoRecords {
        fn count(&self) -> usize {
            0
        }

        fn read(&mut self, _: usize) -> Option<(usize, Tree<'t>)> {
            None
        }
    }

    /// Which formats read a session one record at a time: each is held to reading it
    /// together by `lint::check`'s tests, over its fixtures.
    #[test]
    fn formats_reading_records_one_by_one() {
        let one_by_one: Vec<Format> = Format::ALL
            .iter()
            .copied()
            .filter(|format| {
                format.adapter().is_some_and(|adapter| {
                    adapter
                        .normalise_one_by_one(&mut NoRecords, &mut |_, _, _, _| {})
                        .is_some()
                })
            })
            .collect();
        assert_eq!(
            one_by_one,
            [
                Format::ClaudeCode,
                Format::Codex,
                Format::Moltis,
                Format::Mcp,
                Format::Pi,
                Format::CopilotCli,
                Format::QwenCode,
                Format::KimiCli,
                Format::Droid
            ]
        );
    }
}
