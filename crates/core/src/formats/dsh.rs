//! DeepSeek Harness (`dsh`) sessions: `~/.dsh/sessions/--<project>--/<id>/session.jsonl.zstd`,
//! an event log kept as Zstandard frames (read as its text by `zstd_log.rs`; a plain
//! `session.jsonl` when dsh is set to `compression: none`). Built from dsh's published
//! source (`deepseek-ai/deepseek-harness`, tag `dsh-v0.1.1-rc.2`, whose session format is
//! the same on every tag since 0.1.0-rc.7), not from sessions a running dsh wrote.
//!
//! The first line is the header `{"type": "session", "version": 0, id, createdAt, cwd?,
//! parentSession?, seedLength?, origin?, delegationDepth, agentPreset?}`
//! (`session-persistence-jsonl/src/format.ts`); a `version` other than 0 is a later
//! release's format (`session.vN.jsonl.zstd`, 0.1.3 and later), which dsh 0.1.1 refuses and
//! this reader does not read yet. Every other line is an event `{type, seq, time, data,
//! surfaceOp?, sourceEventSeqs?, ignorable?}` with `seq` dense from 0, or a packed run of
//! stream chunks `{type: "text-chunks" | "reasoning-chunks" | "tool-call-chunks", seq0,
//! time0, data}` standing for `data.texts`/`data.args` members at `seq0 + k`
//! (`core/session/src/chunk-rows.ts`).
//!
//! What dsh sends on resume is the surface (`core/session/src/surface.ts`, `foldSurface`):
//! the `user/message`, `assistant/message` and `tool/result` events folded in seq order,
//! each `surfaceOp: "append"` adding its event and each `{"op": "replace", start, end}`
//! (compaction's summary, a pruned tool result) replacing the nodes from `start` to `end`;
//! an assistant message with no content is not sent. Stream chunks, `tool/call`, turn and
//! step boundaries, request headers and the rest are log only. The DeepSeek adapter
//! (`llm-deepseek/src/serialize.ts`) sends each as Chat Completions: text blocks joined as
//! `content`, reasoning blocks as `reasoning_content` when not empty, `tool-call` blocks as
//! `tool_calls` with their `arguments` string as stored, and each `tool-result` block as a
//! `role: "tool"` message. Tools and the model come from the last `request/header`.
//!
//! The loader's own checks are followed where they decide what is read: a seq gap or a
//! malformed packed row ends what is read, and when a `turn/end` follows it dsh refuses
//! the session (`SessionLogScanner`, format.ts); a replace that names nodes not on the
//! surface makes it refuse too. The calls of the step the log was stopped in are recorded
//! for the replay model (`open_calls`, as `repair.ts`'s `interruptedTurnClosers` finds
//! them).
//!
//! The one fix is what dsh's own resume repair writes (`interruptedTurnClosers`, written
//! back by `commitRepair`): for each open call of the stopped step, the `tool/result` it
//! appends, with its text, at the next seq and the last event's time, `surfaceOp:
//! "append"`, citing the `tool/call` that started it (`append_result`); a compressed log
//! gets it as one new frame (`zstd_log::Log::rewrite`). Only the results are appended, not
//! dsh's `step/end` and `turn/end`: dsh still closes the turn on resume, and finds no call
//! left to answer. Every other fix is withheld with why: seqs are dense from 0, so no line
//! can be inserted, removed or moved; a surface `replace` puts one message in place of a
//! run, so it cannot add or drop one; and events are never edited in place. A live dsh
//! holds no lock on its log and counts seqs in memory: fixing a session it is running would
//! give its next event a seq already taken, so its format page says to fix only stopped sessions.

use super::{array_at, str_at, Adapter, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::{Edit, FixIntent};
use crate::transcript::{
    failed_text, Arguments, CallKind, Conversation, Item, Loc, Pairing, ReasoningKind, Role, Text,
    ToolCall, ToolDef, ToolResult,
};
use crate::tree::Value as Tree;
use serde_json::json;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain deepseek-harness` prints (Markdown).
pub(super) const DOC: &str = r#"DeepSeek Harness (`dsh`) sessions (`~/.dsh/sessions/--<project>--/<id>/session.jsonl.zstd`, `DSH_HOME` moves `~/.dsh`; built from dsh's published source, tag `dsh-v0.1.1-rc.2`, not run: no published release installs here): the Zstandard frames decompressed (see "Compressed logs" in [Formats](../formats.md)), a `session` header line (format `version` 0; a later release's `version` or `session.vN.jsonl.zstd` is reported as not read yet), then seq-numbered events and packed chunk rows; the history is what dsh sends on resume, its surface: `user/message`, `assistant/message` and `tool/result` events folded by their `surfaceOp` (a compaction's `replace` shadows what it summarised), sent as DeepSeek Chat Completions (reasoning blocks as `reasoning_content`, `tool-call` arguments as the raw strings stored, each `tool-result` a `tool` message); tools and the model from the last `request/header`; held to DeepSeek; dsh answers the calls of the step it was stopped in on resume and writes those results back ("The tool call was interrupted after it was recorded, …" or "… before the Harness recorded it as started. …"), so those are warnings; any other unanswered call or stray result is sent as held. `fix` answers a call of the stopped step by appending exactly the `tool/result` dsh's resume repair writes (its text, the next seq, the last event's time, `surfaceOp: "append"`, citing the `tool/call`), one event per call, as one new Zstandard frame: every frame before it keeps its bytes; every other fix is withheld and says why (seqs are dense, so no line can be inserted, removed or moved; a surface `replace` puts one message in place of a run, so it cannot add or drop one; events are never edited in place). A torn or damaged log and one read from stdin are never written. Fix a session only while no dsh runs it: dsh holds no lock on the file and counts seqs in memory, so a live dsh would append its own events at the seq the fix took, and refuse the log on its next load (`doctor --fix` skips a session modified in the last minute unless `--force`). A plain `session.jsonl` (`compression: none`) is read the same way"#;

pub struct DeepseekHarness;

/// The format version this reader reads (`SESSION_FORMAT_VERSION`, core/session/src/types.ts).
const VERSION: u64 = 0;

/// The packed rows' types (chunk-rows.ts).
const PACKED: [&str; 3] = ["text-chunks", "reasoning-chunks", "tool-call-chunks"];

/// Event types whose lines are dsh's beyond doubt (a slash-separated type with `seq`).
const EVENT_PREFIXES: [&str; 8] = [
    "turn/", "step/", "user/", "assistant/", "tool/", "request/", "session/", "compaction/",
];

impl Dialect for DeepseekHarness {}

impl Adapter for DeepseekHarness {
    fn format(&self) -> Format {
        Format::DeepseekHarness
    }

    fn has_documents(&self) -> bool {
        false
    }

    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        let kind = str_at(record, "type")?;
        if kind == "session" {
            // pi's header is `type: "session"` too, with a string `timestamp`.
            let ours = record.get("createdAt").is_some_and(Tree::is_u64)
                && record.get("delegationDepth").is_some();
            return ours.then_some(95);
        }
        if PACKED.contains(&kind) {
            let packed = record.get("seq0").is_some_and(Tree::is_u64) && record.get("time0").is_some();
            return packed.then_some(90);
        }
        let event = EVENT_PREFIXES.iter().any(|p| kind.starts_with(p))
            && record.get("seq").is_some_and(Tree::is_u64)
            && record.get("time").is_some()
            && record.get("data").is_some();
        event.then_some(90)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let first = docs.first().map_or(0, |d| d.base);
        let mut conv =
            Conversation::new(Format::DeepseekHarness, Loc::new(first, ""), Pairing::NextTurn);
        conv.results_role = Role::Tool;
        conv.resumable = true;
        conv.reasoning.kind = Some(ReasoningKind::ReasoningContent);
        let Some(header) = docs.iter().find(|d| str_at(d.value, "type") == Some("session")) else {
            if docs.is_empty() {
                return Ok(vec![conv]);
            }
            // dsh refuses such a log: "empty or header-less Zstandard session log".
            return Err("expected a DeepSeek Harness session, which opens with a `session` header line".into());
        };
        check_version(header.value)?;
        let events = committed(docs)?;
        let surface = fold_surface(&events)?;
        let on_surface: std::collections::HashSet<usize> = surface.iter().map(|d| d.base).collect();
        // What dsh does not send is left out on purpose: shadowed messages, stream chunks,
        // `tool/call` records, and lines past what its loader reads.
        for doc in docs {
            let kept = std::ptr::eq(doc, header) || on_surface.contains(&doc.base);
            if !kept {
                conv.excluded.push(Loc::new(doc.base, ""));
            }
        }
        read_header(&mut conv, &events);
        for doc in &surface {
            push_event(&mut conv, doc);
        }
        conv.open_calls = Some(open_calls(&events));
        Ok(vec![conv])
    }

    /// Only what dsh's own resume repair writes: a result appended for an open call of the
    /// stopped step; every other repair is withheld, with why.
    fn plan_edits(&self, intent: &FixIntent, cx: &EditContext<'_>) -> Planned {
        if !cx.jsonl {
            return Planned::Unsupported;
        }
        match intent {
            FixIntent::InsertResult { call, .. } => match append_result(cx, call) {
                Ok(edit) => Planned::Edits(vec![edit]),
                Err(why) => Planned::Withheld(why),
            },
            FixIntent::RemoveResult { .. }
            | FixIntent::MoveResult { .. }
            | FixIntent::GatherResults { .. } => Planned::Withheld(DENSE_SEQS),
            // A call is a block of its assistant message's event.
            FixIntent::RemoveCall { .. }
            | FixIntent::FillErrorResult { .. }
            | FixIntent::Replace { .. }
            | FixIntent::MoveBlocks { .. }
            | FixIntent::AddMember { .. }
            | FixIntent::RemoveMember { .. } => Planned::Withheld(IN_PLACE),
        }
    }
}

/// The header's `version`: 0 is read; a later one is a newer release's format.
fn check_version(header: &Tree) -> Result<(), String> {
    match header.get("version").and_then(Tree::as_u64) {
        Some(VERSION) => Ok(()),
        Some(v) => Err(format!(
            "its header says session format version {v}, written by a DeepSeek Harness newer than 0.1.1 (`session.v{v}.jsonl.zstd`), which toolcheck does not read yet"
        )),
        None => Err("its header's `version` is not a format version DeepSeek Harness writes".into()),
    }
}

/// The events dsh's loader reads: every line after the header while seqs run dense from
/// 0, packed rows counted by their members. At the first line that breaks the run (a seq
/// gap, a malformed packed row) reading stops: dsh drops such a tail, or refuses the whole
/// session when a `turn/end` comes at or after it (format.ts, `consumeEventLine`).
fn committed<'d>(docs: &'d [Doc<'d>]) -> Result<Vec<&'d Doc<'d>>, String> {
    let mut events = Vec::with_capacity(docs.len());
    let mut next: u64 = 0;
    for (i, doc) in docs.iter().enumerate() {
        let record = doc.value;
        let kind = str_at(record, "type");
        if kind == Some("session") {
            continue;
        }
        let (seq, members) = match kind {
            Some(k) if PACKED.contains(&k) => match packed_members(record) {
                Some(n) => (record.get("seq0").and_then(Tree::as_u64), n),
                None => (None, 0),
            },
            _ => (record.get("seq").and_then(Tree::as_u64), 1),
        };
        if seq != Some(next) {
            let ends_a_turn = docs
                .get(i..)
                .unwrap_or_default()
                .iter()
                .any(|d| str_at(d.value, "type") == Some("turn/end"));
            if ends_a_turn {
                let got = seq.map_or_else(|| "no seq".to_string(), |s| format!("seq {s}"));
                return Err(format!(
                    "its events break off at seq {next} (the next line has {got}) before a later `turn/end`, so DeepSeek Harness refuses to load it (\"seq gap in committed region\")"
                ));
            }
            break;
        }
        next += members as u64;
        events.push(doc);
    }
    Ok(events)
}

/// How many chunk events a packed row stands for: its `texts` (or `args`) members, with
/// one `dt` gap between each two; `None` for a row dsh would not expand.
pub(crate) fn packed_members(record: &Tree) -> Option<usize> {
    let data = record.get("data")?;
    let list = if str_at(record, "type") == Some("tool-call-chunks") {
        str_at(data, "id")?;
        array_at(data, "args")?
    } else {
        array_at(data, "texts")?
    };
    let dt = array_at(data, "dt")?;
    let ok = !list.is_empty()
        && list.iter().all(Tree::is_string)
        && dt.len() + 1 == list.len()
        && dt.iter().all(|d| d.as_i64().is_some());
    ok.then_some(list.len())
}

/// The surface dsh folds into the history it sends, in order: the records of the nodes
/// left after every append and replace (surface.ts, `foldSurface`).
fn fold_surface<'d>(events: &[&'d Doc<'d>]) -> Result<Vec<&'d Doc<'d>>, String> {
    let mut nodes: Vec<(u64, &'d Doc<'d>)> = Vec::new();
    for &doc in events {
        let record = doc.value;
        let Some(op) = record.get("surfaceOp") else {
            continue;
        };
        let seq = record.get("seq").and_then(Tree::as_u64).unwrap_or(0);
        if op.as_str() == Some("append") {
            nodes.push((seq, doc));
            continue;
        }
        let bound = |key: &str| op.get(key).and_then(Tree::as_u64);
        let position = |s: Option<u64>| s.and_then(|s| nodes.iter().position(|(n, _)| *n == s));
        match (str_at(op, "op"), position(bound("start")), position(bound("end"))) {
            (Some("replace"), Some(start), Some(end)) if start <= end => {
                nodes.splice(start..=end, [(seq, doc)]);
            }
            _ => {
                return Err(format!(
                    "the event at seq {seq} has a `surfaceOp` that names no run of the history's messages, so DeepSeek Harness refuses to load it"
                ))
            }
        }
    }
    Ok(nodes.into_iter().map(|(_, d)| d).collect())
}

/// Tools, the model and whether thinking is on, from the last `request/header`
/// (request-header.ts, `foldRequestHeader`); the model also from the last assistant message.
fn read_header(conv: &mut Conversation, events: &[&Doc<'_>]) {
    let last = events
        .iter()
        .rev()
        .find(|d| str_at(d.value, "type") == Some("request/header"));
    if let Some(doc) = last {
        let header = doc.value.get("data").and_then(|d| d.get("header"));
        let hloc = Loc::new(doc.base, "/data/header");
        let config = header.and_then(|h| h.get("config"));
        conv.model = config.and_then(|c| str_at(c, "model")).map(str::to_string);
        // `reasoningEffort: "off"` is sent as `thinking: {type: "disabled"}`.
        conv.reasoning.requested = config
            .and_then(|c| str_at(c, "reasoningEffort"))
            .map(|e| e != "off");
        for (i, tool) in header
            .and_then(|h| array_at(h, "tools"))
            .into_iter()
            .flatten()
            .enumerate()
        {
            let Some(name) = str_at(tool, "name") else {
                continue;
            };
            let loc = hloc.child(("tools", i));
            conv.tools.push(ToolDef::declared(
                name,
                tool.get("parameters"),
                loc.clone(),
                loc.child("parameters"),
            ));
        }
    }
    if conv.model.is_none() {
        conv.model = events
            .iter()
            .rev()
            .filter(|d| str_at(d.value, "type") == Some("assistant/message"))
            .find_map(|d| {
                let source = d.value.get("data")?.get("message")?.get("source")?;
                str_at(source, "model").map(str::to_string)
            });
    }
}

/// One surface node as the messages dsh sends for it.
fn push_event(conv: &mut Conversation, doc: &Doc<'_>) {
    let record = doc.value;
    let (role, pointer) = match str_at(record, "type") {
        Some("user/message") => (Role::User, "/data"),
        Some("assistant/message") => (Role::Assistant, "/data/message"),
        Some("tool/result") => (Role::Tool, "/data/message"),
        _ => return,
    };
    let Some(message) = record.pointer(pointer) else {
        return;
    };
    let mloc = Loc::new(doc.base, pointer);
    let blocks = array_at(message, "content").map(Vec::as_slice).unwrap_or_default();
    match role {
        Role::Assistant => {
            // Empty content (a max-tokens step) is not sent (surface.ts, `deriveEventMessage`).
            if blocks.is_empty() {
                return;
            }
            conv.start_turn(Role::Assistant, mloc.clone());
            let mut reasoning = false;
            for (i, block) in blocks.iter().enumerate() {
                let loc = mloc.child(("content", i));
                let text = Text {
                    loc: loc.clone(),
                    message: mloc.clone(),
                };
                match str_at(block, "type") {
                    Some("text") => conv.push_to_last(Item::Text(text)),
                    Some("reasoning") => {
                        reasoning |= str_at(block, "text").is_some_and(|t| !t.is_empty());
                        conv.push_to_last(Item::Thinking(text));
                    }
                    Some("tool-call") => conv.push_to_last(Item::Call(tool_call(block, loc, &mloc))),
                    _ => {}
                }
            }
            // `reasoning_content` is sent only when the joined reasoning is not empty.
            if reasoning {
                conv.reasoning.carried.push(mloc);
            }
        }
        _ => {
            let mut text_pushed = false;
            for (i, block) in blocks.iter().enumerate() {
                let loc = mloc.child(("content", i));
                match str_at(block, "type") {
                    Some("text") if role == Role::User => {
                        if !text_pushed {
                            conv.start_turn(Role::User, mloc.clone());
                            text_pushed = true;
                        }
                        conv.push_to_last(Item::Text(Text {
                            loc,
                            message: mloc.clone(),
                        }));
                    }
                    Some("tool-result") => {
                        conv.push(Role::Tool, &mloc, Item::Result(tool_result(block, loc, &mloc)));
                    }
                    _ => {}
                }
            }
            // A user message with neither is still sent, as `content: ""`.
            if role == Role::User && !text_pushed && !blocks.iter().any(is_result) {
                conv.start_turn(Role::User, mloc);
            }
        }
    }
}

fn is_result(block: &Tree) -> bool {
    str_at(block, "type") == Some("tool-result")
}

/// A `tool-call` block: `{type, id, name, arguments}`, the arguments the string the model
/// streamed, never parsed or rewritten by dsh.
fn tool_call(block: &Tree, loc: Loc, mloc: &Loc) -> ToolCall {
    let id = str_at(block, "id").map(str::to_string);
    let (arguments, args_loc) = match block.get("arguments") {
        Some(Tree::String(s)) => (Arguments::Encoded(s.as_str().to_string()), loc.child("arguments")),
        Some(other) => (Arguments::value(other.to_serde()), loc.child("arguments")),
        None => (Arguments::Absent, loc.clone()),
    };
    ToolCall {
        key: crate::transcript::pairing_key(id.as_deref(), &loc),
        id,
        name: str_at(block, "name").unwrap_or_default().to_string(),
        kind: CallKind::Function,
        arguments,
        loc,
        args_loc,
        message: mloc.clone(),
    }
}

/// A `tool-result` block: `{type, toolCallId, content: [blocks], isError?}`; its text
/// children are what is sent (`isError` is not).
fn tool_result(block: &Tree, loc: Loc, mloc: &Loc) -> ToolResult {
    let call_id = str_at(block, "toolCallId").map(str::to_string);
    let is_error = block.get("isError").and_then(Tree::as_bool) == Some(true);
    let text: String = array_at(block, "content")
        .into_iter()
        .flatten()
        .filter_map(|b| str_at(b, "text"))
        .collect();
    ToolResult {
        key: crate::transcript::pairing_key(call_id.as_deref(), &loc),
        call_id,
        name: None,
        is_error,
        text: failed_text(is_error, || text),
        provider_executed: false,
        id_field: None,
        loc,
        message: mloc.clone(),
    }
}

/// A call of the step the log was stopped in, as dsh's resume finds it.
struct OpenCall {
    id: String,
    loc: Loc,
    /// The `step` of the assistant message that made it (absent: left out, as dsh's
    /// `JSON.stringify` leaves out an undefined member).
    step: Option<serde_json::Value>,
    /// The seq of the `tool/call` that records it as started.
    started: Option<u64>,
}

/// The turn the log was stopped in and its step's open calls, in the order dsh answers
/// them (repair.ts, `interruptedTurnClosers`): a `turn/start` or `step/end` or `turn/end`
/// forgets the calls before it, an assistant message's `tool-call` blocks are pending (a
/// repeated id starts over in its first place), a `tool/call` records its call as started,
/// a `tool/result` answers its call. `None` when no turn is open.
struct Stopped {
    /// The open turn's `turn`.
    turn: Option<serde_json::Value>,
    calls: Vec<OpenCall>,
}

fn stopped(events: &[&Doc<'_>]) -> Option<Stopped> {
    let mut open: Option<Stopped> = None;
    let mut pending: Vec<OpenCall> = Vec::new();
    for doc in events {
        let record = doc.value;
        let data = record.get("data");
        match str_at(record, "type") {
            Some("turn/start") => {
                open = Some(Stopped {
                    turn: data.and_then(|d| d.get("turn")).map(Tree::to_serde),
                    calls: Vec::new(),
                });
                pending.clear();
            }
            Some("turn/end") => {
                open = None;
                pending.clear();
            }
            Some("step/end") => pending.clear(),
            Some("assistant/message") => {
                let mloc = Loc::new(doc.base, "/data/message");
                let step = data.and_then(|d| d.get("step")).map(Tree::to_serde);
                let blocks = data
                    .and_then(|d| d.get("message"))
                    .and_then(|m| array_at(m, "content"));
                for (i, block) in blocks.into_iter().flatten().enumerate() {
                    if str_at(block, "type") != Some("tool-call") {
                        continue;
                    }
                    let Some(id) = str_at(block, "id") else {
                        continue;
                    };
                    let call = OpenCall {
                        id: id.to_string(),
                        loc: mloc.child(("content", i)),
                        step: step.clone(),
                        started: None,
                    };
                    match pending.iter_mut().find(|p| p.id == id) {
                        Some(entry) => *entry = call,
                        None => pending.push(call),
                    }
                }
            }
            Some("tool/call") => {
                let id = data.and_then(|d| str_at(d, "callId"));
                if let Some(entry) = pending.iter_mut().find(|p| Some(p.id.as_str()) == id) {
                    entry.started = record.get("seq").and_then(Tree::as_u64);
                }
            }
            Some("tool/result") => {
                let id = data
                    .and_then(|d| d.get("message"))
                    .and_then(|m| m.get("source"))
                    .and_then(|s| str_at(s, "callId"));
                pending.retain(|p| Some(p.id.as_str()) != id);
            }
            _ => {}
        }
    }
    let mut open = open?;
    open.calls = pending;
    Some(open)
}

/// The calls of the step the log was stopped in, each with whether a `tool/call` records it
/// as started (see [`stopped`]); nothing is open when no turn is.
fn open_calls(events: &[&Doc<'_>]) -> Vec<(Loc, bool)> {
    stopped(events)
        .map(|s| s.calls.into_iter().map(|c| (c.loc, c.started.is_some())).collect())
        .unwrap_or_default()
}

/// What dsh's resume repair starts from, read from the whole text as a fix finds it: the
/// next seq, the time of the last event (each closer reuses it), the turn and calls left
/// open. `None` when dsh's loader would not read every line (a line that does not parse, a
/// seq gap, a malformed packed row, a last line without its newline, no header): an event
/// appended after such a line would not be read either.
struct Resume {
    next_seq: u64,
    /// Absent when the last event has none (`JSON.stringify` then leaves it out too).
    time: Option<serde_json::Value>,
    stopped: Option<Stopped>,
}

impl Resume {
    fn of(cx: &EditContext<'_>) -> std::sync::Arc<Option<Resume>> {
        cx.source.derived(|source| {
            let text = source.text.as_str();
            if !text.ends_with('\n') {
                return None;
            }
            let mut trees = Vec::new();
            // The last line is the empty one after the final newline. dsh's loader stops at
            // a blank line too (it does not parse), so one anywhere else is an unread tail.
            for line in 0..source.line_count().saturating_sub(1) {
                let (start, end) = source.line_range(line);
                let raw = text.get(start..end)?;
                trees.push((start, crate::json::parse(raw).ok()?.value));
            }
            let docs: Vec<Doc<'_>> = trees
                .iter()
                .map(|(base, value)| Doc { base: *base, value })
                .collect();
            let header = docs.first().filter(|d| str_at(d.value, "type") == Some("session"))?;
            check_version(header.value).ok()?;
            let events = committed(&docs).ok()?;
            if events.len() + 1 != docs.len() {
                return None;
            }
            let (next_seq, time) = match events.last() {
                Some(last) => last_event(last.value)?,
                None => return None,
            };
            Some(Resume {
                next_seq,
                time,
                stopped: stopped(&events),
            })
        })
    }
}

/// The seq after the last event a line stands for, and that event's time: a packed row's
/// last member is at `seq0 + n - 1`, `time0` plus every `dt` (chunk-rows.ts, `expandRow`).
fn last_event(record: &Tree) -> Option<(u64, Option<serde_json::Value>)> {
    if str_at(record, "type").is_some_and(|k| PACKED.contains(&k)) {
        let members = packed_members(record)? as u64;
        let seq0 = record.get("seq0")?.as_u64()?;
        let mut time = record.get("time0")?.as_i64()?;
        for dt in array_at(record.get("data")?, "dt")? {
            time = time.checked_add(dt.as_i64()?)?;
        }
        return Some((seq0.checked_add(members)?, Some(time.into())));
    }
    let seq = record.get("seq")?.as_u64()?;
    Some((seq.checked_add(1)?, record.get("time").map(Tree::to_serde)))
}

/// Why a result is not inserted for a call outside the stopped step.
const CLOSED_STEP: &str = "the call's step was closed, so its result would belong right after it, in the middle of the log: dsh numbers its events with dense seqs, so no line can be inserted there, and a surface `replace` appended at the end puts one message in place of a run, so it cannot add one (dsh sends the call as held)";

/// Why nothing is appended to a log dsh does not read to its end.
const UNREAD_TAIL: &str = "dsh's loader stops before the end of this log (a line that does not parse, a seq gap, a malformed packed row, or a last line without its newline), so an event appended after it would not be read";

/// Why a result's line is not removed or moved.
const DENSE_SEQS: &str = "a result is a `tool/result` event of its own, and dsh numbers its events with dense seqs: removing or moving its line breaks the run (dsh then refuses the session, or drops every event after the gap), and a surface `replace` appended at the end puts one message in place of a run, so it cannot drop or move one";

/// Why a recorded event is not edited.
const IN_PLACE: &str = "dsh's log is append-only: an event is never edited where it is (its stream chunks and `tool/call` record hold the same content and would disagree), and toolcheck does not write the surface `replace` that would carry a corrected copy";

/// The `tool/result` dsh's resume repair appends for an open call of the stopped step
/// (repair.ts, `interruptedTurnClosers`): an error result with dsh's own text, at the next
/// seq and the last event's time, on the surface (`append`), citing the `tool/call` that
/// started it. It is appended as an edit of the text's final newline, so two such fixes
/// overlap and the fix loop takes one per round, each at the seq the one before left.
fn append_result(cx: &EditContext<'_>, call: &ToolCall) -> Result<Edit, &'static str> {
    let resume = Resume::of(cx);
    let resume = resume.as_ref().as_ref().ok_or(UNREAD_TAIL)?;
    let stopped = resume.stopped.as_ref().ok_or(CLOSED_STEP)?;
    let open = stopped.calls.iter().find(|c| c.loc == call.loc).ok_or(CLOSED_STEP)?;
    let seq = resume.next_seq;
    let (text, error) = match open.started {
        Some(_) => (
            crate::replay::dsh::OUTCOME_UNKNOWN,
            json!({"name": "ToolOutcomeUnknownError", "code": "TOOL_OUTCOME_UNKNOWN"}),
        ),
        None => (
            crate::replay::dsh::NOT_STARTED,
            json!({"name": "ToolNotStartedError", "code": "TOOL_NOT_STARTED"}),
        ),
    };
    let message = json!({
        "id": format!("interrupted-tool-result-{}-{seq}", open.id),
        "role": "user",
        "source": {"kind": "tool", "callId": open.id},
        "content": [{
            "type": "tool-result",
            "toolCallId": open.id,
            "isError": true,
            "content": [{"type": "text", "text": text}],
        }],
    });
    let mut data = serde_json::Map::new();
    if let Some(turn) = &stopped.turn {
        data.insert("turn".into(), turn.clone());
    }
    if let Some(step) = &open.step {
        data.insert("step".into(), step.clone());
    }
    data.insert("message".into(), message);
    data.insert("error".into(), error);
    let mut event = serde_json::Map::new();
    event.insert("type".into(), "tool/result".into());
    event.insert("seq".into(), seq.into());
    if let Some(time) = &resume.time {
        event.insert("time".into(), time.clone());
    }
    event.insert("data".into(), data.into());
    event.insert("surfaceOp".into(), "append".into());
    if let Some(started) = open.started {
        event.insert("sourceEventSeqs".into(), json!([started]));
    }
    let line = serde_json::to_string(&serde_json::Value::Object(event)).map_err(|_| UNREAD_TAIL)?;
    let len = cx.source.text.len();
    Ok(Edit {
        start: len.checked_sub(1).ok_or(UNREAD_TAIL)?,
        end: len,
        content: format!("\n{line}\n"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{one_conversation, session_docs};
    use crate::tree_json;

    fn header() -> Tree<'static> {
        tree_json!({"type": "session", "version": 0, "id": "session-1", "createdAt": 1786939415611u64, "cwd": "/w", "delegationDepth": 0})
    }

    #[test]
    fn records_sniff_and_pi_headers_stay_pi() {
        assert_eq!(DeepseekHarness.sniff_record(&header()), Some(95));
        let pi = tree_json!({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"});
        assert_eq!(DeepseekHarness.sniff_record(&pi), None);
        let packed = tree_json!({"type": "text-chunks", "seq0": 4, "time0": 1, "data": {"turn": 1, "step": 1, "index": 0, "dt": [1], "texts": ["a", "b"]}});
        assert_eq!(DeepseekHarness.sniff_record(&packed), Some(90));
        assert_eq!(packed_members(&packed), Some(2));
        let droid = tree_json!({"type": "message", "id": "a", "message": {"role": "user", "content": "hi"}});
        assert_eq!(DeepseekHarness.sniff_record(&droid), None);
    }

    #[test]
    fn a_compaction_replace_shadows_what_it_summarised() {
        let records = [
            header(),
            tree_json!({"type": "user/message", "seq": 0, "time": 1, "data": {"id": "u1", "role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": "a"}]}, "surfaceOp": "append"}),
            tree_json!({"type": "assistant/message", "seq": 1, "time": 2, "data": {"turn": 1, "step": 1, "message": {"id": "a1", "role": "assistant", "source": {"kind": "model", "provider": "deepseek", "model": "deepseek-chat"}, "content": [{"type": "tool-call", "id": "c1", "name": "read", "arguments": "{}"}]}}, "surfaceOp": "append"}),
            tree_json!({"type": "user/message", "seq": 2, "time": 3, "data": {"id": "u2", "role": "user", "source": {"kind": "plugin", "plugin": "compaction"}, "content": [{"type": "text", "text": "summary"}]}, "surfaceOp": {"op": "replace", "start": 0, "end": 1}, "sourceEventSeqs": [0, 1]}),
        ];
        let conv = one_conversation(&DeepseekHarness, &records);
        assert_eq!(conv.turns.len(), 1);
        assert_eq!(conv.calls().count(), 0);
        assert_eq!(conv.open_calls, Some(Vec::new()));
    }

    #[test]
    fn the_stopped_step_s_calls_are_open() {
        let records = [
            header(),
            tree_json!({"type": "turn/start", "seq": 0, "time": 1, "data": {"turn": 1}}),
            tree_json!({"type": "step/start", "seq": 1, "time": 1, "data": {"turn": 1, "step": 1}}),
            tree_json!({"type": "assistant/message", "seq": 2, "time": 2, "data": {"turn": 1, "step": 1, "message": {"id": "a1", "role": "assistant", "source": {"kind": "model", "provider": "deepseek", "model": "deepseek-chat"}, "content": [{"type": "tool-call", "id": "c1", "name": "read", "arguments": "{}"}, {"type": "tool-call", "id": "c2", "name": "read", "arguments": ""}]}}, "surfaceOp": "append"}),
            tree_json!({"type": "tool/call", "seq": 3, "time": 3, "data": {"turn": 1, "step": 1, "callId": "c1", "name": "read", "arguments": "{}"}}),
        ];
        let conv = one_conversation(&DeepseekHarness, &records);
        let open = conv.open_calls.expect("recorded");
        assert_eq!(open.iter().map(|(_, s)| *s).collect::<Vec<_>>(), [true, false]);
    }

    #[test]
    fn a_newer_format_is_not_read() {
        let records = [tree_json!({"type": "session", "version": 4, "id": "s", "createdAt": 1, "delegationDepth": 0})];
        let docs = session_docs(&records);
        let err = DeepseekHarness.normalise(&docs).expect_err("refused");
        assert!(err.contains("version 4"), "{err}");
    }

    #[test]
    fn a_seq_gap_before_a_turn_end_is_refused_and_a_trailing_one_dropped() {
        let gap = |end: bool| {
            let mut records = vec![
                header(),
                tree_json!({"type": "turn/start", "seq": 0, "time": 1, "data": {"turn": 1}}),
                tree_json!({"type": "turn/start", "seq": 5, "time": 1, "data": {"turn": 2}}),
            ];
            if end {
                records.push(tree_json!({"type": "turn/end", "seq": 6, "time": 1, "data": {"turn": 2, "reason": {"kind": "completed"}}}));
            }
            records
        };
        let refused = gap(true);
        assert!(DeepseekHarness.normalise(&session_docs(&refused)).is_err());
        let dropped = gap(false);
        assert!(DeepseekHarness.normalise(&session_docs(&dropped)).is_ok());
    }

    #[test]
    fn a_packed_row_s_last_member_sets_the_next_seq_and_time() {
        let packed = tree_json!({"type": "text-chunks", "seq0": 4, "time0": 100, "data": {"turn": 1, "step": 1, "index": 0, "dt": [3, 5], "texts": ["a", "b", "c"]}});
        assert_eq!(last_event(&packed), Some((7, Some(serde_json::json!(108)))));
        let event = tree_json!({"type": "tool/call", "seq": 6, "time": 1786939415662u64, "data": {}});
        assert_eq!(
            last_event(&event),
            Some((7, Some(serde_json::json!(1786939415662u64))))
        );
        let malformed = tree_json!({"type": "text-chunks", "seq0": 4, "time0": 100, "data": {"dt": [3], "texts": ["a", "b", "c"]}});
        assert_eq!(last_event(&malformed), None);
    }

}
