//! Fix planning for Claude Code sessions: whole-line edits that keep the `parentUuid` chain
//! whole (docs/architecture.md, "Fix principles").
//!
//! A removed line's children are re-parented to its own parent; an inserted result line (an
//! interrupted error, with a uuid derived from the session and the call so that fixing twice
//! inserts the same line) or a moved one is linked in after the call's turn, and the lines
//! that hung there hang from it instead. What the planner looks up in the text is indexed
//! once per file ([`SessionIndex`]).

// foldhash: these maps key on ids and offsets a run compares itself; SipHash's
// flood resistance buys nothing there and costs a few percent of a lint.
use foldhash::{HashMap, HashMapExt, HashSet};

use serde_json::Value as Json;

use crate::edit::json_edit::{self, split_index};
use crate::edit::plan::{insert_record_after, remove_node, EditContext, INTERRUPTED};
use crate::finding::Edit;
use crate::formats::anthropic::interrupted_block;
use crate::transcript::{Loc, ToolCall};

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
pub(super) fn is_whole_line(cx: &EditContext<'_>, node: &Loc, message: &Loc) -> bool {
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
    crate::pointer::locate(text, node.base, parent)
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
pub(super) fn remove_line(cx: &EditContext<'_>, message: &Loc) -> Option<Vec<Edit>> {
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
pub(super) fn insert_result(
    cx: &EditContext<'_>,
    call: &ToolCall,
    after: &Loc,
) -> Option<Vec<Edit>> {
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
    let (s, e) = crate::pointer::locate(text, after_start, "/uuid")?;
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
pub(super) fn move_result(
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
    let (ps, pe) = crate::pointer::locate(text, start, "/parentUuid")?;
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
pub(super) fn self_overlapping(edits: &[Edit]) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
