//! Claude Code session transcripts (`~/.claude/projects/<encoded-cwd>/<sessionId>.jsonl`,
//! and sub-agent files `<sessionId>/subagents/agent-<id>.jsonl`).
//!
//! A file is one session: a tree of records linked by `uuid`/`parentUuid`. Only `user` and
//! `assistant` records carry messages (`message` is an Anthropic message); `progress`,
//! `system`, `attachment` ... records are links of the tree but not messages, and
//! `summary`, `file-history-snapshot`, `queue-operation` ... records are not in the tree.
//!
//! The conversation is rebuilt the way `claude --resume` does: from the leaf (the last main
//! message record, or the `leafUuid` of a trailing `summary`) follow `parentUuid` back to the
//! root, through link records; a parent outside the file (compaction and sub-agent
//! compaction files) or `null` ends the walk. Records off that chain (branches abandoned by a
//! rewind or an edit) are ignored, except what Claude Code itself recovers: an API response
//! is written one content block per record, all sharing `message.id`, and each `tool_result`
//! record points at the record of its own `tool_use`, so the results of parallel calls (and
//! sometimes sibling assistant records) hang off the chain; they are put back after their
//! response, by `message.id` and `sourceToolAssistantUUID`/`parentUuid`.
//!
//! Sidechain records (`isSidechain: true`: sub-agents, whether inline or in their own file)
//! form their own conversations, one per root, rebuilt the same way among themselves.
//! Sessions hold no tool definitions.

// foldhash: these maps key on ids and offsets a run compares itself; SipHash's
// flood resistance buys nothing there and costs a few percent of a lint.
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use serde_json::Value as Json;

use crate::tree::Value;

use super::anthropic::{interrupted_block, push_message};
use super::{blocks, str_at, Adapter, Dialect, Doc, Format, Planned, Unit};
use crate::edit::json_edit::{self, split_index};
use crate::edit::plan::{insert_record_after, remove_node, EditContext, INTERRUPTED};
use crate::finding::{Edit, FixIntent};
use crate::transcript::{Conversation, Loc, Pairing, Role, ToolCall};

pub struct ClaudeCode;

/// Record types Claude Code writes to a session file.
const RECORD_TYPES: &[&str] = &[
    "user",
    "assistant",
    "system",
    "summary",
    "progress",
    "file-history-snapshot",
    "queue-operation",
    "attachment",
    "custom-title",
    "ai-title",
    "agent-name",
    "last-prompt",
    "permission-mode",
    "pr-link",
    "agent-setting",
    "bridge-session",
    "worktree-state",
];

impl Dialect for ClaudeCode {}

impl Adapter for ClaudeCode {
    fn format(&self) -> Format {
        Format::ClaudeCode
    }

    fn unit(&self) -> Unit {
        Unit::Session
    }

    fn replays_every_record(&self) -> bool {
        false
    }

    fn sniff(&self, doc: &Value) -> Option<u8> {
        let record_type = str_at(doc, "type")?;
        if !RECORD_TYPES.contains(&record_type) {
            return None;
        }
        let marked = str_at(doc, "sessionId").is_some()
            || str_at(doc, "uuid").is_some()
            || doc
                .get("parentUuid")
                .is_some_and(|p| p.is_null() || p.is_string())
            || str_at(doc, "leafUuid").is_some()
            || (record_type == "file-history-snapshot"
                && doc.get("snapshot").is_some_and(Value::is_object));
        marked.then_some(90)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let session = Session::new(docs);
        if !session.any_claude_record {
            return Err(
                "expected Claude Code session records (`type` user/assistant/system/progress/... with `uuid`, `parentUuid` and `sessionId`)"
                    .into(),
            );
        }
        Ok(session.conversations())
    }

    /// Fixes keep the `parentUuid` chain whole (docs/architecture.md, "Fix principles"): a
    /// removed line's children are re-parented to its own parent, an inserted or moved line is
    /// linked in after the call's turn and the lines that hung there hang from it instead.
    fn plan_edits(&self, intent: &FixIntent, cx: &EditContext<'_>) -> Planned {
        if !cx.jsonl {
            return Planned::Generic;
        }
        let planned = match intent {
            FixIntent::RemoveResult { result, message } => {
                if !is_whole_line(cx, result, message) {
                    return Planned::Generic;
                }
                remove_line(cx, message)
            }
            FixIntent::RemoveCall { call, message } => {
                if !is_whole_line(cx, call, message) {
                    return Planned::Generic;
                }
                remove_line(cx, message)
            }
            // Result lines are inserted whole, re-linked; `before` (a block position) does not
            // apply to one-block lines.
            FixIntent::InsertResult { call, after, .. } => insert_result(cx, call, after),
            // Result lines move as whole lines, re-linked; `before` (a block position)
            // does not apply to one-block lines.
            FixIntent::MoveResult {
                result,
                message,
                after,
                ..
            } => move_result(cx, result, message, after),
            FixIntent::Replace { .. }
            | FixIntent::MoveBlocks { .. }
            | FixIntent::GatherResults { .. }
            | FixIntent::FillErrorResult { .. } => return Planned::Generic,
        };
        match planned {
            Some(edits) if !self_overlapping(&edits) => Planned::Edits(edits),
            _ => Planned::Unsupported,
        }
    }
}

/// Fields of the record envelope an inserted result line copies from the assistant line of
/// its call (in that line's key order): the rest of a record is its own.
const ENVELOPE: &[&str] = &[
    "isSidechain",
    "userType",
    "entrypoint",
    "cwd",
    "sessionId",
    "version",
    "gitBranch",
    "agentId",
    "slug",
    "teamName",
];

/// Whether removing `node` removes its whole line: it is the message itself, or the only
/// block of the message's `content`.
fn is_whole_line(cx: &EditContext<'_>, node: &Loc, message: &Loc) -> bool {
    if node == message {
        return true;
    }
    let Some((parent, _)) = split_index(&node.pointer) else {
        return false;
    };
    if node.base != message.base || parent != format!("{}/content", message.pointer) {
        return false;
    }
    let text = cx.source.text.as_str();
    crate::source::locate(text, node.base, parent)
        .and_then(|(s, e)| json_edit::elements(text, s, e))
        .is_some_and(|els| els.len() == 1)
}

/// Byte offset where the line holding `offset` starts.
fn line_start(cx: &EditContext<'_>, offset: usize) -> usize {
    cx.source.line_range(cx.source.line_index(offset)).0
}

/// The string at `pointer` in the record starting at `base`.
fn string_at(cx: &EditContext<'_>, base: usize, pointer: &str) -> Option<String> {
    let raw = json_edit::value_text(&cx.source.text, base, pointer)?;
    serde_json::from_str::<String>(raw).ok()
}

/// The record on the line holding `base`, parsed.
fn record(cx: &EditContext<'_>, base: usize) -> Option<Json> {
    let (start, end) = cx.source.line_range(cx.source.line_index(base));
    serde_json::from_str(cx.source.text.get(start..end)?).ok()
}

/// What the planner looks up in a session file, indexed once per file: scanning the text
/// for every fix made N fixes cost N times the file.
struct SessionIndex {
    /// `parentUuid` → the starts of the lines that have it, in file order.
    children: HashMap<String, Vec<usize>>,
    /// Every 36-byte window of the text shaped like a lowercase UUID (what
    /// [`derived_uuid`] writes), to tell whether the text mentions one.
    uuids: HashSet<[u8; 36]>,
}

impl SessionIndex {
    fn of(cx: &EditContext<'_>) -> std::sync::Arc<SessionIndex> {
        cx.source.derived(|source| {
            let text = source.text.as_str();
            let mut children: HashMap<String, Vec<usize>> = HashMap::new();
            for line in 0..source.line_count() {
                let (start, _) = source.line_range(line);
                let parent = json_edit::value_text(text, start, "/parentUuid")
                    .and_then(|raw| serde_json::from_str::<String>(raw).ok());
                if let Some(parent) = parent.filter(|p| !p.is_empty()) {
                    children.entry(parent).or_default().push(start);
                }
            }
            let bytes = text.as_bytes();
            let uuids = memchr::memchr_iter(b'-', bytes)
                .filter_map(|dash| {
                    let window: [u8; 36] = bytes
                        .get(dash.checked_sub(8)?..dash + 28)?
                        .try_into()
                        .ok()?;
                    uuid_shaped(&window).then_some(window)
                })
                .collect();
            SessionIndex { children, uuids }
        })
    }
}

/// Lowercase hex in 8-4-4-4-12 groups. Each such window is found from its first dash.
fn uuid_shaped(window: &[u8; 36]) -> bool {
    window.iter().enumerate().all(|(i, b)| match i {
        8 | 13 | 18 | 23 => *b == b'-',
        _ => b.is_ascii_digit() || (b'a'..=b'f').contains(b),
    })
}

/// Whether the text mentions `uuid`, one of [`derived_uuid`]'s.
fn mentions_uuid(cx: &EditContext<'_>, uuid: &str) -> bool {
    match <[u8; 36]>::try_from(uuid.as_bytes()) {
        Ok(window) if uuid_shaped(&window) => SessionIndex::of(cx).uuids.contains(&window),
        // Not the shape the index holds: look in the text itself.
        _ => cx.source.text.contains(uuid),
    }
}

/// Line starts of the records whose `parentUuid` is `uuid` and whose line mentions it as
/// written (a `parentUuid` spelled with escapes is not a child here, as before the index).
fn children(cx: &EditContext<'_>, uuid: &str) -> Vec<usize> {
    if uuid.is_empty() {
        return Vec::new();
    }
    let index = SessionIndex::of(cx);
    let Some(starts) = index.children.get(uuid) else {
        return Vec::new();
    };
    let text = cx.source.text.as_bytes();
    starts
        .iter()
        .copied()
        .filter(|&start| {
            // A mention starting on this line (it may run past the line's end).
            let next = cx
                .source
                .line_range_with_terminator(cx.source.line_index(start))
                .1;
            let end = (next + uuid.len()).saturating_sub(1).min(text.len());
            text.get(start..end)
                .is_some_and(|window| memchr::memmem::find(window, uuid.as_bytes()).is_some())
        })
        .collect()
}

/// Points the children of `uuid` (except the lines in `skip`) at `parent_json`.
fn relink(cx: &EditContext<'_>, uuid: &str, parent_json: &str, skip: &[usize]) -> Vec<Edit> {
    children(cx, uuid)
        .into_iter()
        .filter(|start| !skip.contains(start))
        .filter_map(|start| {
            json_edit::replace_value(
                &cx.source.text,
                start,
                "/parentUuid",
                parent_json.to_string(),
            )
        })
        .collect()
}

/// Removes the line of `message` and re-parents its children to its own parent.
fn remove_line(cx: &EditContext<'_>, message: &Loc) -> Option<Vec<Edit>> {
    let start = line_start(cx, message.base);
    let mut edits = vec![remove_node(cx, &Loc::new(start, ""))?];
    if let Some(uuid) = string_at(cx, start, "/uuid") {
        let parent = json_edit::value_text(&cx.source.text, start, "/parentUuid").unwrap_or("null");
        edits.extend(relink(cx, &uuid, parent, &[start]));
    }
    Some(edits)
}

/// A new user line answering `call` with an interrupted error, after the line of `after`
/// (the last message of the call's turn), linked to it; `after`'s children move under it.
fn insert_result(cx: &EditContext<'_>, call: &ToolCall, after: &Loc) -> Option<Vec<Edit>> {
    let text = cx.source.text.as_str();
    let id = call.id.as_deref()?;
    let after_start = line_start(cx, after.base);
    let after_uuid = string_at(cx, after_start, "/uuid")?;
    let holder = record(cx, call.message.base)?;
    let holder = holder.as_object()?;
    let uuid = derived_uuid(
        holder
            .get("sessionId")
            .and_then(Json::as_str)
            .unwrap_or_default(),
        id,
    );
    if mentions_uuid(cx, &uuid) {
        // Inserted before and still not answering: do not add a second line with that uuid.
        return None;
    }
    let mut line = serde_json::Map::new();
    line.insert("parentUuid".into(), Json::String(after_uuid.clone()));
    for (key, value) in holder {
        if ENVELOPE.contains(&key.as_str()) {
            line.insert(key.clone(), value.clone());
        }
    }
    line.insert("type".into(), "user".into());
    line.insert(
        "message".into(),
        serde_json::json!({"role": "user", "content": [interrupted_block(call, INTERRUPTED)]}),
    );
    line.insert("uuid".into(), Json::String(uuid.clone()));
    if let Some(timestamp) = holder.get("timestamp") {
        line.insert("timestamp".into(), timestamp.clone());
    }
    line.insert("toolUseResult".into(), Json::String(INTERRUPTED.into()));
    if let Some(source) = holder.get("uuid") {
        line.insert("sourceToolAssistantUUID".into(), source.clone());
    }
    let rendered = serde_json::to_string(&Json::Object(line)).ok()?;
    let mut edits = vec![insert_record_after(cx, after, &rendered)?];
    // `after`'s uuid, rewritten as itself: two inserts after one line then clash, so they
    // land in separate rounds and the chain stays a line instead of forking.
    let (s, e) = crate::source::locate(text, after_start, "/uuid")?;
    edits.push(Edit {
        start: s,
        end: e,
        content: text[s..e].to_string(),
    });
    let quoted = serde_json::to_string(&uuid).ok()?;
    edits.extend(relink(cx, &after_uuid, &quoted, &[after_start]));
    Some(edits)
}

/// Moves a result line (whose only block is the result) to right after `after`'s line: it
/// is cut out of the chain (its children take its parent) and linked in after `after` (whose
/// children then hang from it). A result sharing its line with other blocks is not moved.
fn move_result(
    cx: &EditContext<'_>,
    result: &Loc,
    message: &Loc,
    after: &Loc,
) -> Option<Vec<Edit>> {
    if !is_whole_line(cx, result, message) {
        return None;
    }
    let text = cx.source.text.as_str();
    let start = line_start(cx, message.base);
    let after_start = line_start(cx, after.base);
    if start == after_start {
        return None;
    }
    let uuid = string_at(cx, start, "/uuid")?;
    let after_uuid = string_at(cx, after_start, "/uuid")?;
    let (ps, pe) = crate::source::locate(text, start, "/parentUuid")?;
    let old_parent = &text[ps..pe];
    if serde_json::from_str::<String>(old_parent).ok().as_deref() == Some(&after_uuid) {
        // Already linked after the call's turn: moving the line would change nothing.
        return None;
    }
    let end = cx.source.line_range(cx.source.line_index(start)).1;
    let moved = format!(
        "{}{}{}",
        &text[start..ps],
        serde_json::to_string(&after_uuid).ok()?,
        &text[pe..end]
    );
    let mut edits = vec![
        remove_node(cx, &Loc::new(start, ""))?,
        insert_record_after(cx, after, &moved)?,
    ];
    edits.extend(relink(cx, &uuid, old_parent, &[start]));
    let quoted = serde_json::to_string(&uuid).ok()?;
    edits.extend(relink(cx, &after_uuid, &quoted, &[start, after_start]));
    Some(edits)
}

/// Whether two of `edits` overlap (as the fix engine judges it): such a fix is never taken.
fn self_overlapping(edits: &[Edit]) -> bool {
    let overlaps = |a: &Edit, b: &Edit| {
        let inside = |p: usize, r: &Edit| p > r.start && p < r.end;
        match (a.start == a.end, b.start == b.end) {
            (true, true) => false,
            (true, false) => inside(a.start, b),
            (false, true) => inside(b.start, a),
            (false, false) => a.start < b.end && b.start < a.end,
        }
    };
    edits
        .iter()
        .enumerate()
        .any(|(i, a)| edits[i + 1..].iter().any(|b| overlaps(a, b)))
}

/// A version-4-shaped UUID derived from the session and the call id, so that fixing the same
/// file twice inserts the same line (FNV-1a over 128 bits, then mixed).
fn derived_uuid(session: &str, call_id: &str) -> String {
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013B;
    let mut h: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    let input = [
        b"toolcheck interrupted result\0".as_slice(),
        session.as_bytes(),
        b"\0",
        call_id.as_bytes(),
    ];
    for byte in input.iter().flat_map(|part| part.iter()) {
        h ^= u128::from(*byte);
        h = h.wrapping_mul(PRIME);
    }
    h ^= h >> 67;
    h = h.wrapping_mul(PRIME);
    h ^= h >> 61;
    let mut b = h.to_be_bytes();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// One record of the session file, with what the rebuild needs.
struct Rec<'a> {
    base: usize,
    value: &'a Value<'a>,
    uuid: Option<&'a str>,
    parent: Option<&'a str>,
    sidechain: bool,
    /// `Some` for records that carry a message sent to the model.
    role: Option<Role>,
    /// `message.id` of assistant records (one API response is split over several records).
    msg_id: Option<&'a str>,
}

impl<'a> Rec<'a> {
    fn message(&self) -> Option<&'a Value<'a>> {
        self.role.and(self.value.get("message"))
    }

    /// `tool_use` ids (assistant) or `tool_use_id`s of `tool_result` blocks (user).
    fn tool_ids(
        &self,
        block_type: &'static str,
        key: &'static str,
    ) -> impl Iterator<Item = &'a str> + use<'a> {
        self.message()
            .map_or(&[][..], blocks)
            .iter()
            .filter(move |b| str_at(b, "type") == Some(block_type))
            .filter_map(move |b| str_at(b, key))
    }

    fn call_ids(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        self.tool_ids("tool_use", "id")
    }

    fn result_ids(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        self.tool_ids("tool_result", "tool_use_id")
    }
}

struct Session<'a> {
    recs: Vec<Rec<'a>>,
    any_claude_record: bool,
    /// Record index by `uuid` (the last record wins, as when Claude Code loads a session).
    index: HashMap<&'a str, usize>,
    /// Assistant message records by (`message.id`, sidechain).
    by_msg_id: HashMap<(&'a str, bool), Vec<usize>>,
    /// User records carrying `tool_result` blocks, by the assistant record they answer
    /// (`sourceToolAssistantUUID`) and by their `parentUuid`.
    results_by_source: HashMap<&'a str, Vec<usize>>,
}

impl<'a> Session<'a> {
    fn new(docs: &[Doc<'a>]) -> Self {
        let mut session = Session {
            recs: Vec::with_capacity(docs.len()),
            any_claude_record: false,
            index: HashMap::new(),
            by_msg_id: HashMap::new(),
            results_by_source: HashMap::new(),
        };
        for doc in docs {
            let value = doc.value;
            let record_type = str_at(value, "type").unwrap_or_default();
            session.any_claude_record |= RECORD_TYPES.contains(&record_type);
            let has_message = value.get("message").is_some_and(Value::is_object);
            let role = match record_type {
                "user" if has_message => Some(Role::User),
                "assistant" if has_message => Some(Role::Assistant),
                _ => None,
            };
            let rec = Rec {
                base: doc.base,
                value,
                uuid: str_at(value, "uuid"),
                parent: str_at(value, "parentUuid"),
                sidechain: value.get("isSidechain").and_then(Value::as_bool) == Some(true),
                role,
                msg_id: match role {
                    Some(Role::Assistant) => value.get("message").and_then(|m| str_at(m, "id")),
                    _ => None,
                },
            };
            let i = session.recs.len();
            if let Some(uuid) = rec.uuid {
                session.index.insert(uuid, i);
            }
            if let Some(id) = rec.msg_id {
                session
                    .by_msg_id
                    .entry((id, rec.sidechain))
                    .or_default()
                    .push(i);
            }
            if rec.role == Some(Role::User) && rec.result_ids().next().is_some() {
                let source = str_at(value, "sourceToolAssistantUUID");
                for key in source.into_iter().chain(rec.parent) {
                    let list = session.results_by_source.entry(key).or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            }
            session.recs.push(rec);
        }
        session
    }

    fn parent_of(&self, i: usize) -> Option<usize> {
        self.recs[i].parent.and_then(|p| self.index.get(p).copied())
    }

    /// The chain from `leaf` back to its root, returned root first. Ends at a `null` parent,
    /// a parent outside the file, or a cycle.
    fn chain(&self, leaf: usize) -> Vec<usize> {
        let mut chain = vec![leaf];
        let mut seen: HashSet<usize> = [leaf].into_iter().collect();
        let mut cur = leaf;
        while let Some(parent) = self.parent_of(cur) {
            if !seen.insert(parent) {
                break;
            }
            chain.push(parent);
            cur = parent;
        }
        chain.reverse();
        chain
    }

    fn is_message(&self, i: usize, sidechain: bool) -> bool {
        let rec = &self.recs[i];
        rec.role.is_some() && rec.uuid.is_some() && rec.sidechain == sidechain
    }

    /// The leaf of the main conversation: the last main message record, or the `leafUuid` of
    /// a `summary` written after it when that names a main record of this file.
    fn main_leaf(&self) -> Option<usize> {
        let last = (0..self.recs.len())
            .rev()
            .find(|&i| self.is_message(i, false));
        let after = last.map_or(0, |i| i + 1);
        let from_summary = self.recs[after..].iter().rev().find_map(|rec| {
            if str_at(rec.value, "type") != Some("summary") {
                return None;
            }
            let leaf = *self.index.get(str_at(rec.value, "leafUuid")?)?;
            (!self.recs[leaf].sidechain).then_some(leaf)
        });
        from_summary.or(last)
    }

    /// The leaves of the sidechain conversations: for each sidechain root, its last message
    /// record, in order of first appearance.
    fn sidechain_leaves(&self) -> Vec<usize> {
        let mut root_of: Vec<Option<usize>> = vec![None; self.recs.len()];
        let mut leaves: Vec<usize> = Vec::new();
        let mut group_of_root: HashMap<usize, usize> = HashMap::new();
        for i in 0..self.recs.len() {
            if !self.is_message(i, true) {
                continue;
            }
            // Walk up until a record whose root is known, or the root itself; then memoise.
            let mut path = Vec::new();
            let mut on_path = HashSet::new();
            let mut cur = i;
            let root = loop {
                if let Some(root) = root_of[cur] {
                    break root;
                }
                path.push(cur);
                on_path.insert(cur);
                match self.parent_of(cur) {
                    Some(parent) if !on_path.contains(&parent) => cur = parent,
                    _ => break cur,
                }
            };
            for p in path {
                root_of[p] = Some(root);
            }
            match group_of_root.get(&root) {
                Some(&g) => leaves[g] = i,
                None => {
                    group_of_root.insert(root, leaves.len());
                    leaves.push(i);
                }
            }
        }
        leaves
    }

    fn conversations(&self) -> Vec<Conversation> {
        let mut out = Vec::new();
        let leaves = self
            .main_leaf()
            .into_iter()
            .map(|leaf| (leaf, false))
            .chain(self.sidechain_leaves().into_iter().map(|leaf| (leaf, true)));
        for (leaf, sidechain) in leaves {
            let chain = self.chain(leaf);
            let conv = self.build(&chain, sidechain);
            if !conv.turns.is_empty() {
                out.push(conv);
            }
        }
        out
    }

    /// The message records of `chain`, in order, with the off-chain records of parallel tool
    /// calls put back after their response.
    fn messages(&self, chain: &[usize], sidechain: bool) -> Vec<usize> {
        let on_chain: HashSet<usize> = chain.iter().copied().collect();
        let mut answered: HashSet<&str> = chain
            .iter()
            .flat_map(|&i| self.recs[i].result_ids())
            .collect();
        let messages: Vec<usize> = chain
            .iter()
            .copied()
            .filter(|&i| self.is_message(i, sidechain))
            .collect();
        let mut out = Vec::with_capacity(messages.len());
        let mut recovered = HashSet::new();
        let mut group: Vec<usize> = Vec::new();
        for (k, &i) in messages.iter().enumerate() {
            out.push(i);
            let Some(id) = self.recs[i].msg_id else {
                continue;
            };
            group.push(i);
            let next_id = messages.get(k + 1).and_then(|&n| self.recs[n].msg_id);
            if next_id == Some(id) {
                continue;
            }
            // End of one API response on the chain: its off-chain sibling records, then the
            // off-chain results of its calls.
            let members = std::mem::take(&mut group);
            let siblings: Vec<usize> = self
                .by_msg_id
                .get(&(id, sidechain))
                .into_iter()
                .flatten()
                .copied()
                .filter(|s| !on_chain.contains(s) && recovered.insert(*s))
                .collect();
            let calls: HashSet<&str> = members
                .iter()
                .chain(&siblings)
                .flat_map(|&m| self.recs[m].call_ids())
                .collect();
            let mut results: Vec<usize> = members
                .iter()
                .chain(&siblings)
                .filter_map(|&m| self.recs[m].uuid)
                .filter_map(|uuid| self.results_by_source.get(uuid))
                .flatten()
                .copied()
                .filter(|&r| !on_chain.contains(&r) && self.recs[r].sidechain == sidechain)
                .filter(|&r| {
                    self.recs[r]
                        .result_ids()
                        .any(|id| calls.contains(id) && !answered.contains(id))
                })
                .collect();
            results.sort_unstable();
            results.dedup();
            results.retain(|r| recovered.insert(*r));
            for &r in &results {
                answered.extend(self.recs[r].result_ids());
            }
            out.extend(siblings);
            out.extend(results);
        }
        out
    }

    fn build(&self, chain: &[usize], sidechain: bool) -> Conversation {
        let root = chain.first().map_or(0, |&i| self.recs[i].base);
        let mut conv = Conversation::new(Format::ClaudeCode, Loc::new(root, ""), Pairing::NextTurn);
        conv.results_role = Role::User;
        conv.results_first = true;
        conv.resumable = true;
        for i in self.messages(chain, sidechain) {
            let rec = &self.recs[i];
            if let (Some(role), Some(message)) = (rec.role, rec.message()) {
                push_message(&mut conv, role, message, &Loc::new(rec.base, "/message"));
            }
        }
        conv
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::{lint_str, Outcome};
    use crate::transcript::Item;
    use crate::tree_json as json;

    fn codes(name: &str, text: &str) -> Vec<String> {
        lint_str(name, text).codes()
    }

    /// Parses JSONL text into records with their byte offsets.
    fn records(text: &str) -> Vec<(usize, Value<'_>)> {
        let mut out = Vec::new();
        let mut base = 0;
        for line in text.split_inclusive('\n') {
            if !line.trim().is_empty() {
                out.push((base, crate::tree::parse(line).expect("test JSONL").value));
            }
            base += line.len();
        }
        out
    }

    fn normalise(text: &str) -> Vec<Conversation> {
        let recs = records(text);
        let docs: Vec<Doc<'_>> = recs
            .iter()
            .map(|(base, value)| Doc { base: *base, value })
            .collect();
        ClaudeCode.normalise(&docs).expect("a Claude Code session")
    }

    /// Each turn as its role and items: `call:<name>`, `result:<id>`, `text`.
    fn shape(conv: &Conversation) -> Vec<String> {
        conv.turns
            .iter()
            .map(|t| {
                let items: Vec<String> = t
                    .items
                    .iter()
                    .map(|item| match item {
                        Item::Text(_) => "text".to_string(),
                        Item::Thinking(_) => "thinking".to_string(),
                        Item::Call(c) => format!("call:{}", c.name),
                        Item::Result(r) => {
                            format!("result:{}", r.call_id.clone().unwrap_or_default())
                        }
                    })
                    .collect();
                format!("{} {}", t.role.as_str(), items.join(","))
            })
            .collect()
    }

    const CLEAN_SESSION: &str = include_str!("../../fixtures/claude-code/clean-session.jsonl");

    #[test]
    fn clean_fixtures_have_no_findings() {
        for (name, text) in [
            ("clean-session.jsonl", CLEAN_SESSION),
            (
                "clean-subagent.jsonl",
                include_str!("../../fixtures/claude-code/clean-subagent.jsonl"),
            ),
            (
                "clean-subagent-compaction.jsonl",
                include_str!("../../fixtures/claude-code/clean-subagent-compaction.jsonl"),
            ),
        ] {
            let report = lint_str(name, text);
            assert_eq!(report.codes(), Vec::<String>::new(), "{name}");
            assert_eq!(
                report.outcome,
                Outcome::Checked(vec![Format::ClaudeCode]),
                "{name}"
            );
        }
    }

    #[test]
    fn broken_fixtures() {
        let cases: [(&str, &str, &[&str]); 7] = [
            (
                "broken-interrupted-mid-tool.jsonl",
                include_str!("../../fixtures/claude-code/broken-interrupted-mid-tool.jsonl"),
                &["TC102@3:359"],
            ),
            (
                "broken-unanswered-then-prompt.jsonl",
                include_str!("../../fixtures/claude-code/broken-unanswered-then-prompt.jsonl"),
                &["TC102@2:359"],
            ),
            (
                "broken-compaction-orphan.jsonl",
                include_str!("../../fixtures/claude-code/broken-compaction-orphan.jsonl"),
                &["TC101@3:295"],
            ),
            (
                "broken-duplicate-tool-use-id.jsonl",
                include_str!("../../fixtures/claude-code/broken-duplicate-tool-use-id.jsonl"),
                &["TC102@3:376", "TC104@4:376"],
            ),
            (
                "broken-duplicate-tool-result.jsonl",
                include_str!("../../fixtures/claude-code/broken-duplicate-tool-result.jsonl"),
                &["TC105@4:295"],
            ),
            (
                "broken-queued-prompt-before-result.jsonl",
                include_str!("../../fixtures/claude-code/broken-queued-prompt-before-result.jsonl"),
                &["TC103@4:295"],
            ),
            (
                "broken-input-not-object.jsonl",
                include_str!("../../fixtures/claude-code/broken-input-not-object.jsonl"),
                &["TC203@2:455"],
            ),
        ];
        for (name, text, expected) in cases {
            assert_eq!(codes(name, text), expected, "{name}");
        }
    }

    #[test]
    fn sniffs_claude_code_records_only() {
        let sniff = |v: Value| ClaudeCode.sniff(&v);
        assert_eq!(
            sniff(
                json!({"parentUuid": null, "isSidechain": false, "type": "user",
                "sessionId": "s", "uuid": "u", "message": {"role": "user", "content": "hi"}})
            ),
            Some(90)
        );
        assert_eq!(
            sniff(json!({"type": "summary", "summary": "x", "leafUuid": "u"})),
            Some(90)
        );
        assert_eq!(
            sniff(json!({"type": "file-history-snapshot", "messageId": "m",
                "snapshot": {"messageId": "m", "trackedFileBackups": {}}, "isSnapshotUpdate": false})),
            Some(90)
        );
        assert_eq!(
            sniff(json!({"type": "queue-operation", "operation": "dequeue", "sessionId": "s"})),
            Some(90)
        );
        // Codex rollouts, fine-tuning examples, bare Anthropic messages.
        assert_eq!(
            sniff(json!({"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}})),
            None
        );
        assert_eq!(
            sniff(json!({"timestamp": "t", "type": "response_item",
                "payload": {"type": "message", "role": "user", "content": []}})),
            None
        );
        assert_eq!(
            sniff(json!({"messages": [{"role": "user", "content": "hi"}]})),
            None
        );
        assert_eq!(
            sniff(json!({"type": "user", "message": {"role": "user", "content": "hi"}})),
            None
        );
        assert_eq!(
            sniff(json!({"type": "message", "role": "assistant", "content": []})),
            None
        );
    }

    #[test]
    fn fine_tuning_jsonl_is_not_claimed() {
        let text = concat!(
            r#"{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}"#,
            "\n",
            r#"{"messages":[{"role":"user","content":"2+2"},{"role":"assistant","content":"4"}]}"#,
            "\n"
        );
        let report = lint_str("train.jsonl", text);
        assert_eq!(report.outcome, Outcome::Checked(vec![Format::OpenAiChat]));
    }

    #[test]
    fn rebuilds_the_resumed_chain() {
        let convs = normalise(CLEAN_SESSION);
        assert_eq!(convs.len(), 2, "the main chain and one sidechain");
        let main = &convs[0];
        let names = shape(main);
        // Parallel calls on four records of one response form one turn; the Read result,
        // which hangs off the chain, is put back next to the Grep result.
        assert_eq!(names[0], "user text");
        assert_eq!(names[1], "assistant thinking,text,call:Grep,call:Read");
        assert!(names[2].starts_with("user result:") && names[2].matches("result:").count() == 2);
        // The abandoned prompt (and its unanswered Glob call) is not on the chain.
        assert!(!names.iter().any(|t| t.contains("Glob")));
        assert_eq!(main.calls().count(), 6);
        assert_eq!(main.results().count(), 6);
        assert!(main.resumable && main.results_first);
        assert_eq!(
            main.loc,
            Loc::new(CLEAN_SESSION.find("{\"parentUuid\":null").unwrap(), "")
        );
        // Every node points into its own record.
        let (_, read) = main.calls().find(|(_, c)| c.name == "Read").unwrap();
        assert!(CLEAN_SESSION[read.loc.base..].starts_with('{'));
        assert_eq!(read.loc.pointer, "/message/content/0");
        let side = &convs[1];
        let bash_id = side.calls().next().and_then(|(_, c)| c.id.clone()).unwrap();
        assert_eq!(
            shape(side),
            [
                "user text".to_string(),
                "assistant call:Bash".into(),
                format!("user result:{bash_id}"),
                "assistant text".into()
            ]
        );
    }

    fn line(v: Value) -> String {
        let mut s = v.to_string();
        s.push('\n');
        s
    }

    fn msg(uuid: &str, parent: Option<&str>, role: &str, content: Value) -> String {
        let mut message = serde_json::json!({"role": role, "content": content});
        if role == "assistant" {
            message["id"] = serde_json::json!(format!("msg_{uuid}"));
        }
        line(
            json!({"parentUuid": parent, "isSidechain": false, "userType": "external",
            "sessionId": "s1", "type": role, "message": message, "uuid": uuid}),
        )
    }

    fn call(id: &str) -> Value<'_> {
        json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "ls"}}])
    }

    fn result(id: &str) -> Value<'_> {
        json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}])
    }

    #[test]
    fn a_trailing_summary_picks_the_leaf() {
        // Two branches from u1; the summary written last names the first one as the leaf.
        let records = [
            msg("u1", None, "user", json!("go")),
            msg("a1", Some("u1"), "assistant", call("toolu_a")),
            msg("r1", Some("a1"), "user", result("toolu_a")),
            msg("a2", Some("u1"), "assistant", call("toolu_b")),
            line(json!({"type": "summary", "summary": "listing", "leafUuid": "r1"})),
        ];
        assert!(codes("s.jsonl", &records.concat()).is_empty());
        // Without the summary, the last message record is the leaf: its call is unanswered.
        assert_eq!(codes("s.jsonl", &records[..4].concat()), ["TC102@4:139"]);
    }

    #[test]
    fn a_summary_naming_another_session_is_ignored() {
        let text = [
            line(json!({"type": "summary", "summary": "older work", "leafUuid": "elsewhere"})),
            msg("u1", None, "user", json!("go")),
            msg("a1", Some("u1"), "assistant", call("toolu_a")),
        ]
        .concat();
        assert_eq!(codes("s.jsonl", &text), ["TC102@3:139"]);
    }

    #[test]
    fn survives_parent_cycles() {
        let text = [
            msg("u1", Some("r1"), "user", json!("go")),
            msg("a1", Some("u1"), "assistant", call("toolu_a")),
            msg("r1", Some("a1"), "user", result("toolu_a")),
        ]
        .concat();
        let convs = normalise(&text);
        assert_eq!(convs.len(), 1);
        assert_eq!(convs[0].turns.len(), 3);
        let side = text.replace("\"isSidechain\":false", "\"isSidechain\":true");
        assert_eq!(normalise(&side).len(), 1);
    }

    #[test]
    fn sidechains_are_separate_conversations() {
        let side = |s: String| s.replace("\"isSidechain\":false", "\"isSidechain\":true");
        let text = [
            msg("u1", None, "user", json!("delegate")),
            msg("a1", Some("u1"), "assistant", call("toolu_task")),
            side(msg("s1", None, "user", json!("sub task one"))),
            side(msg("t1", None, "user", json!("sub task two"))),
            side(msg("s2", Some("s1"), "assistant", call("toolu_x"))),
            side(msg("t2", Some("t1"), "assistant", json!("nothing to do"))),
            side(msg("s3", Some("s2"), "user", result("toolu_x"))),
            msg("r1", Some("a1"), "user", result("toolu_task")),
        ]
        .concat();
        let convs = normalise(&text);
        assert_eq!(convs.len(), 3);
        assert_eq!(
            shape(&convs[0]),
            ["user text", "assistant call:Bash", "user result:toolu_task"]
        );
        assert_eq!(
            shape(&convs[1]),
            ["user text", "assistant call:Bash", "user result:toolu_x"]
        );
        assert_eq!(shape(&convs[2]), ["user text", "assistant text"]);
        assert!(codes("s.jsonl", &text).is_empty());
    }

    #[test]
    fn recovers_sibling_records_of_one_response() {
        // Both tool_use records hang off u1 (siblings sharing message.id); the chain runs
        // through the second one only.
        let rec = |uuid: &str, parent: &str, content: Value| {
            line(
                json!({"parentUuid": parent, "isSidechain": false, "sessionId": "s1",
                "type": "assistant", "uuid": uuid,
                "message": {"id": "msg_same", "role": "assistant", "content": content}}),
            )
        };
        let text = [
            msg("u1", None, "user", json!("go")),
            rec("a1", "u1", call("toolu_a")),
            rec("a2", "u1", call("toolu_b")),
            msg("ra", Some("a1"), "user", result("toolu_a")),
            msg("rb", Some("a2"), "user", result("toolu_b")),
            msg("a3", Some("rb"), "assistant", json!("done")),
        ]
        .concat();
        let convs = normalise(&text);
        assert_eq!(
            shape(&convs[0]),
            [
                "user text",
                "assistant call:Bash,call:Bash",
                "user result:toolu_a,result:toolu_b",
                "assistant text"
            ]
        );
        assert!(codes("s.jsonl", &text).is_empty());
    }

    // Fixing: the parentUuid chain stays whole.

    const INTERRUPTED_MID_TOOL: &str =
        include_str!("../../fixtures/claude-code/broken-interrupted-mid-tool.jsonl");
    const UNANSWERED_THEN_PROMPT: &str =
        include_str!("../../fixtures/claude-code/broken-unanswered-then-prompt.jsonl");
    const COMPACTION_ORPHAN: &str =
        include_str!("../../fixtures/claude-code/broken-compaction-orphan.jsonl");
    const DUPLICATE_TOOL_RESULT: &str =
        include_str!("../../fixtures/claude-code/broken-duplicate-tool-result.jsonl");
    const QUEUED_PROMPT: &str =
        include_str!("../../fixtures/claude-code/broken-queued-prompt-before-result.jsonl");

    fn fix_with(text: &str, opts: &crate::lint::LintOptions) -> String {
        let name = crate::lint::SourceName {
            name: "session.jsonl".into(),
            path: None,
        };
        let fixed = crate::fix::fix_bytes(&name, text.as_bytes().to_vec(), true, opts, true)
            .expect("fixing converges and parses");
        assert!(
            !fixed.report.findings.iter().any(|f| f.fix.is_some()),
            "a fixable finding is left: {:?}",
            fixed.report.findings
        );
        fixed.into_fixed_text()
    }

    fn fix(text: &str) -> String {
        fix_with(text, &crate::lint::LintOptions::default())
    }

    fn parse_lines(text: &str) -> Vec<Value<'_>> {
        records(text).into_iter().map(|(_, v)| v).collect()
    }

    fn by_uuid<'v>(lines: &'v [Value<'v>], uuid: &str) -> &'v Value<'v> {
        lines
            .iter()
            .find(|l| str_at(l, "uuid") == Some(uuid))
            .unwrap_or_else(|| panic!("no line {uuid}"))
    }

    /// Every `parentUuid` names a line of the file, is null, or already named nothing in the
    /// original; no uuid is used twice.
    fn assert_chain_whole(original: &str, fixed: &str) {
        let dangling = |text: &str| -> HashSet<String> {
            let lines = parse_lines(text);
            let uuids: HashSet<&str> = lines.iter().filter_map(|l| str_at(l, "uuid")).collect();
            lines
                .iter()
                .filter_map(|l| str_at(l, "parentUuid"))
                .filter(|p| !uuids.contains(p))
                .map(str::to_string)
                .collect()
        };
        let before = dangling(original);
        for parent in dangling(fixed) {
            assert!(
                before.contains(&parent),
                "parentUuid {parent} names no line"
            );
        }
        let fixed_lines = parse_lines(fixed);
        let mut seen = HashSet::new();
        for uuid in fixed_lines.iter().filter_map(|l| str_at(l, "uuid")) {
            assert!(seen.insert(uuid), "uuid {uuid} is used twice");
        }
    }

    #[test]
    fn fixed_fixtures_parse_lint_clean_and_keep_the_chain() {
        for (name, text, lines_added) in [
            ("interrupted-mid-tool", INTERRUPTED_MID_TOOL, 1),
            ("unanswered-then-prompt", UNANSWERED_THEN_PROMPT, 1),
            ("compaction-orphan", COMPACTION_ORPHAN, -1),
            ("duplicate-tool-result", DUPLICATE_TOOL_RESULT, -1),
            ("queued-prompt-before-result", QUEUED_PROMPT, 0),
        ] {
            let fixed = fix(text);
            assert_ne!(fixed, text, "{name}");
            // Every line parses (records() panics otherwise), one record per line.
            let count = |t: &str| t.lines().filter(|l| !l.trim().is_empty()).count() as i64;
            assert_eq!(count(&fixed), count(text) + lines_added, "{name}");
            assert_eq!(parse_lines(&fixed).len() as i64, count(&fixed), "{name}");
            assert!(fixed.ends_with('\n'), "{name}");
            assert_eq!(fix(&fixed), fixed, "{name}: fixing again changes nothing");
            assert_chain_whole(text, &fixed);
            // Only the lines the fix is about changed: the rest are kept byte for byte.
            let kept: HashSet<&str> = text.lines().collect();
            let changed = fixed.lines().filter(|l| !kept.contains(l)).count();
            assert!(changed <= 3, "{name}: {changed} lines changed");
        }
    }

    #[test]
    fn an_inserted_result_line_is_linked_in_with_its_neighbours_fields() {
        let fixed = fix(INTERRUPTED_MID_TOOL);
        let lines = parse_lines(&fixed);
        // Line 3 holds the call and ends the turn; the new line follows it.
        let assistant = &lines[2];
        let inserted = &lines[3];
        for key in [
            "sessionId",
            "cwd",
            "version",
            "gitBranch",
            "userType",
            "isSidechain",
        ] {
            assert_eq!(inserted.get(key), assistant.get(key), "{key}");
        }
        assert_eq!(inserted["timestamp"], assistant["timestamp"]);
        assert_eq!(inserted["parentUuid"], assistant["uuid"]);
        assert_eq!(inserted["sourceToolAssistantUUID"], assistant["uuid"]);
        assert_eq!(inserted["type"], "user");
        assert_eq!(inserted["toolUseResult"], INTERRUPTED);
        let block = &inserted["message"]["content"][0];
        assert_eq!(block["type"], "tool_result");
        assert_eq!(block["tool_use_id"], "toolu_01J32yhGXn1SsbUHuwQ8qRmA");
        assert_eq!(block["is_error"], true);
        // A fresh v4-shaped uuid, the same on every run, and the next line hangs from it.
        let uuid = str_at(inserted, "uuid").unwrap();
        assert_eq!(uuid.len(), 36);
        assert_eq!(&uuid[14..15], "4");
        assert!(!INTERRUPTED_MID_TOOL.contains(uuid));
        assert_eq!(str_at(&lines[4], "parentUuid"), Some(uuid));
        assert_eq!(str_at(&lines[4], "type"), Some("progress"));
        assert_eq!(fix(INTERRUPTED_MID_TOOL), fixed);
        // Keys in the order Claude Code writes a result line.
        let keys: Vec<&str> = inserted.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "parentUuid",
                "isSidechain",
                "userType",
                "cwd",
                "sessionId",
                "version",
                "gitBranch",
                "type",
                "message",
                "uuid",
                "timestamp",
                "toolUseResult",
                "sourceToolAssistantUUID"
            ]
        );
        // The whole file rebuilds as one chain ending in the inserted result.
        let convs = normalise(&fixed);
        assert_eq!(convs.len(), 1);
        assert_eq!(
            shape(&convs[0]).last().unwrap(),
            &format!("user result:{}", block["tool_use_id"].as_str().unwrap())
        );
    }

    #[test]
    fn a_result_inserted_before_a_prompt_stays_on_the_chain() {
        let fixed = fix(UNANSWERED_THEN_PROMPT);
        let lines = parse_lines(&fixed);
        let inserted = &lines[2];
        assert_eq!(inserted["parentUuid"], lines[1]["uuid"]);
        // The progress line that hung from the call now hangs from the result; the prompt
        // after it is untouched.
        assert_eq!(lines[3]["parentUuid"], inserted["uuid"]);
        assert_eq!(
            UNANSWERED_THEN_PROMPT.lines().nth(3),
            fixed.lines().nth(4),
            "the prompt line"
        );
        let convs = normalise(&fixed);
        assert_eq!(
            shape(&convs[0]),
            [
                "user text",
                "assistant call:Bash",
                "user result:toolu_01tYs03t7pxlJeyU5ZZTL36B,text",
                "assistant text"
            ]
        );
    }

    #[test]
    fn a_removed_line_s_child_is_re_parented() {
        // The orphaned result line is removed; the assistant line under it takes its parent.
        let fixed = fix(COMPACTION_ORPHAN);
        let recs = parse_lines(&fixed);
        assert!(!fixed.contains("\"uuid\":\"6d167ec4-6dff-434b-a5ed-cb4224cc9507\""));
        assert_eq!(
            by_uuid(&recs, "748197ac-0c56-43cf-9b69-1d080e5a7a7a")["parentUuid"],
            "8fbf5ca1-08b4-4545-863d-b5f88156e86e"
        );
        // The duplicate result line goes; the reply under it hangs from the first result.
        let fixed = fix(DUPLICATE_TOOL_RESULT);
        let lines = parse_lines(&fixed);
        assert!(!fixed.contains("\"uuid\":\"85bc9873-236b-4ee7-9b1e-883e972f3174\""));
        assert_eq!(
            by_uuid(&lines, "24f97a41-7aa5-4f09-92a1-99014ed9e5c9")["parentUuid"],
            "69a5d2ac-53a8-4257-8351-3ff72a96f024"
        );
    }

    #[test]
    fn a_removed_root_passes_on_its_null_parent() {
        let text = [
            msg("r0", None, "user", result("toolu_gone")),
            msg("u1", Some("r0"), "user", json!("go")),
            msg("a1", Some("u1"), "assistant", json!("done")),
        ]
        .concat();
        let fixed = fix(&text);
        assert_eq!(
            fixed,
            [
                msg("u1", None, "user", json!("go")),
                msg("a1", Some("u1"), "assistant", json!("done")),
            ]
            .concat()
        );
    }

    #[test]
    fn a_result_sharing_its_line_is_removed_as_a_block() {
        let both = json!([
            {"type": "tool_result", "tool_use_id": "toolu_a", "content": "ok"},
            {"type": "tool_result", "tool_use_id": "toolu_a", "content": "again"}
        ]);
        let text = [
            msg("u1", None, "user", json!("go")),
            msg("a1", Some("u1"), "assistant", call("toolu_a")),
            msg("r1", Some("a1"), "user", both),
            msg("a2", Some("r1"), "assistant", json!("done")),
        ]
        .concat();
        let fixed = fix(&text);
        assert_eq!(fixed.lines().count(), 4);
        assert!(!fixed.contains("again"));
        assert_eq!(fixed.lines().last(), text.lines().last());
    }

    #[test]
    fn remove_call_re_parents_the_call_s_children() {
        let mut opts = crate::lint::LintOptions::default();
        opts.rule_options.unpaired = crate::rules::UnpairedFix::RemoveCall;
        let fixed = fix_with(UNANSWERED_THEN_PROMPT, &opts);
        let lines = parse_lines(&fixed);
        assert_eq!(lines.len(), 4);
        assert!(!fixed.contains("toolu_01tYs03t7pxlJeyU5ZZTL36B\",\"name\""));
        // The progress line that hung from the removed call hangs from the first prompt.
        assert_eq!(lines[1]["type"], "progress");
        assert_eq!(lines[1]["parentUuid"], lines[0]["uuid"]);
        assert_chain_whole(UNANSWERED_THEN_PROMPT, &fixed);
        assert_eq!(fix_with(&fixed, &opts), fixed);
    }

    #[test]
    fn parallel_unanswered_calls_get_results_on_one_chain() {
        let calls = json!([
            {"type": "tool_use", "id": "toolu_a", "name": "Bash", "input": {}},
            {"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {}}
        ]);
        let text = [
            msg("u1", None, "user", json!("go")),
            msg("a1", Some("u1"), "assistant", calls),
            msg("u2", Some("a1"), "user", json!("stop")),
            msg("a2", Some("u2"), "assistant", json!("stopped")),
        ]
        .concat();
        let fixed = fix(&text);
        assert_chain_whole(&text, &fixed);
        let lines = parse_lines(&fixed);
        assert_eq!(lines.len(), 6);
        // a1 -> result -> result -> u2: no fork.
        let mut children: HashMap<&str, usize> = HashMap::new();
        for parent in lines.iter().filter_map(|l| str_at(l, "parentUuid")) {
            *children.entry(parent).or_default() += 1;
        }
        assert!(children.values().all(|&n| n == 1), "{children:?}");
        // Both answered in the next turn (the second insert lands first: order is free).
        let shape = shape(&normalise(&fixed)[0]);
        assert_eq!(shape.len(), 4);
        assert!(shape[2].contains("result:toolu_a") && shape[2].contains("result:toolu_b"));
        assert!(shape[2].ends_with(",text"));
        // Trailing calls (nothing hangs from the call's line yet): still one chain.
        let trailing = text
            .lines()
            .take(2)
            .map(|l| format!("{l}\n"))
            .collect::<String>();
        let fixed = fix(&trailing);
        assert_chain_whole(&trailing, &fixed);
        let lines = parse_lines(&fixed);
        assert_eq!(lines.len(), 4);
        let parents: HashSet<&str> = lines
            .iter()
            .filter_map(|l| str_at(l, "parentUuid"))
            .collect();
        assert_eq!(parents.len(), 3, "{fixed}");
    }

    #[test]
    fn a_misplaced_result_line_moves_after_its_call() {
        let fixed = fix(QUEUED_PROMPT);
        let lines = parse_lines(&fixed);
        // call, result, queued prompt, reply: re-linked in that order.
        assert_eq!(lines[2]["uuid"], "45733332-4415-4ff2-876a-c93f02cbadba");
        assert_eq!(lines[2]["parentUuid"], lines[1]["uuid"]);
        assert_eq!(lines[3]["uuid"], "4adb1d42-92dd-4c02-8467-3b8904b8735b");
        assert_eq!(lines[3]["parentUuid"], lines[2]["uuid"]);
        assert_eq!(lines[4]["parentUuid"], lines[3]["uuid"]);
        assert_chain_whole(QUEUED_PROMPT, &fixed);
    }

    #[test]
    fn derived_uuids_are_stable_and_distinct() {
        let a = derived_uuid("s1", "toolu_a");
        assert_eq!(a, derived_uuid("s1", "toolu_a"));
        assert_ne!(a, derived_uuid("s1", "toolu_b"));
        assert_ne!(a, derived_uuid("s2", "toolu_a"));
        let parts: Vec<usize> = a.split('-').map(str::len).collect();
        assert_eq!(parts, [8, 4, 4, 4, 12]);
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"));
    }

    #[test]
    fn forced_on_other_jsonl_says_what_it_expected() {
        let recs = records("{\"messages\": []}\n");
        let docs: Vec<Doc<'_>> = recs
            .iter()
            .map(|(b, v)| Doc { base: *b, value: v })
            .collect();
        assert!(ClaudeCode.normalise(&docs).is_err());
    }
}
