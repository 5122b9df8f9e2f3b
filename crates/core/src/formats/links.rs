//! Whole-line edits for tree-shaped JSONL sessions, whose records name their parent
//! (Claude Code `uuid`/`parentUuid`, pi `id`/`parentId`): the agent follows those links, not
//! file order, so a fix keeps the chain whole (docs/architecture.md, "Fix principles"). A
//! removed line's children are re-parented to its own parent; an inserted line is linked in
//! after a line, and the lines that hung there hang from it instead. What the planner looks
//! up in the text is indexed once per file ([`SessionIndex`]). The record a format inserts
//! is its own adapter's business.

// foldhash: these maps key on ids and offsets a run compares itself; SipHash's
// flood resistance buys nothing there and costs a few percent of a lint.
use foldhash::{HashMap, HashMapExt, HashSet};

use serde_json::Value as Json;

use crate::edit::json_edit;
use crate::edit::plan::{insert_record_after, remove_node, EditContext};
use crate::finding::Edit;
use crate::transcript::Loc;

/// The pointers of a format's record id and parent link.
pub(crate) trait Links: 'static + Send + Sync {
    const ID: &'static str;
    const PARENT: &'static str;
}

/// Records linked by `id` and `parentId` (pi entries, Copilot CLI events).
pub(crate) struct IdParent;

impl Links for IdParent {
    const ID: &'static str = "/id";
    const PARENT: &'static str = "/parentId";
}

/// Records linked by `uuid` and `parentUuid` (Qwen Code chat records).
pub(crate) struct UuidParent;

impl Links for UuidParent {
    const ID: &'static str = "/uuid";
    const PARENT: &'static str = "/parentUuid";
}

/// A whole-line fix's answer to the planner: its edits, unless there are none or two of them
/// overlap (the fix engine would never take such a fix).
pub(crate) fn planned(edits: Option<Vec<Edit>>) -> super::Planned {
    match edits {
        Some(edits) if !self_overlapping(&edits) => super::Planned::Edits(edits),
        _ => super::Planned::Unsupported,
    }
}

/// Byte offset where the line holding `offset` starts.
pub(crate) fn line_start(cx: &EditContext<'_>, offset: usize) -> usize {
    cx.source.line_range(cx.source.line_index(offset)).0
}

/// The string at `pointer` in the record starting at `base`.
pub(crate) fn string_at(cx: &EditContext<'_>, base: usize, pointer: &str) -> Option<String> {
    let raw = json_edit::value_text(&cx.source.text, base, pointer)?;
    serde_json::from_str::<String>(raw).ok()
}

/// The record on the line holding `base`, parsed.
pub(crate) fn record(cx: &EditContext<'_>, base: usize) -> Option<Json> {
    let (start, end) = cx.source.line_range(cx.source.line_index(base));
    serde_json::from_str(cx.source.text.get(start..end)?).ok()
}

/// What the planner looks up in a session file, indexed once per file: scanning the text
/// for every fix made N fixes cost N times the file.
struct SessionIndex<L> {
    /// Parent id → the starts of the lines that have it, in file order.
    children: HashMap<String, Vec<usize>>,
    /// Every 36-byte window of the text shaped like a lowercase UUID (what
    /// [`derived_uuid`] writes), to tell whether the text mentions one.
    uuids: HashSet<[u8; 36]>,
    links: std::marker::PhantomData<fn() -> L>,
}

impl<L: Links> SessionIndex<L> {
    fn of(cx: &EditContext<'_>) -> std::sync::Arc<SessionIndex<L>> {
        cx.source.derived(|source| {
            let text = source.text.as_str();
            let mut children: HashMap<String, Vec<usize>> = HashMap::new();
            for line in 0..source.line_count() {
                let (start, _) = source.line_range(line);
                let parent = json_edit::value_text(text, start, L::PARENT)
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
            SessionIndex {
                children,
                uuids,
                links: std::marker::PhantomData,
            }
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

/// Whether the text mentions `id`, one an inserted line would get.
pub(crate) fn mentions_id<L: Links>(cx: &EditContext<'_>, id: &str) -> bool {
    match <[u8; 36]>::try_from(id.as_bytes()) {
        Ok(window) if uuid_shaped(&window) => SessionIndex::<L>::of(cx).uuids.contains(&window),
        // Not the shape the index holds: look in the text itself.
        _ => cx.source.text.contains(id),
    }
}

/// Line starts of the records whose parent is `id` and whose line mentions it as written (a
/// parent spelled with escapes is not a child here, as before the index).
fn children<L: Links>(cx: &EditContext<'_>, id: &str) -> Vec<usize> {
    if id.is_empty() {
        return Vec::new();
    }
    let index = SessionIndex::<L>::of(cx);
    let Some(starts) = index.children.get(id) else {
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
            let end = (next + id.len()).saturating_sub(1).min(text.len());
            text.get(start..end)
                .is_some_and(|window| memchr::memmem::find(window, id.as_bytes()).is_some())
        })
        .collect()
}

/// Points the children of `id` (except the lines in `skip`) at `parent_json`.
pub(crate) fn relink<L: Links>(
    cx: &EditContext<'_>,
    id: &str,
    parent_json: &str,
    skip: &[usize],
) -> Vec<Edit> {
    children::<L>(cx, id)
        .into_iter()
        .filter(|start| !skip.contains(start))
        .filter_map(|start| {
            json_edit::replace_value(&cx.source.text, start, L::PARENT, parent_json.to_string())
        })
        .collect()
}

/// Removes the line of `message` and re-parents its children to its own parent.
pub(crate) fn remove_line<L: Links>(cx: &EditContext<'_>, message: &Loc) -> Option<Vec<Edit>> {
    let start = line_start(cx, message.base);
    let mut edits = vec![remove_node(cx, &Loc::new(start, ""))?];
    if let Some(id) = string_at(cx, start, L::ID) {
        let parent = json_edit::value_text(&cx.source.text, start, L::PARENT).unwrap_or("null");
        edits.extend(relink::<L>(cx, &id, parent, &[start]));
    }
    Some(edits)
}

/// Inserts `line` (a record whose id is `id` and whose parent is `after`'s id) after the line
/// of `after`; the lines that hung from `after` hang from it instead.
pub(crate) fn insert_linked_after<L: Links>(
    cx: &EditContext<'_>,
    after: &Loc,
    id: &str,
    line: &str,
) -> Option<Vec<Edit>> {
    let text = cx.source.text.as_str();
    let after_start = line_start(cx, after.base);
    let after_id = string_at(cx, after_start, L::ID)?;
    let mut edits = vec![insert_record_after(cx, after, line)?];
    // `after`'s id, rewritten as itself: two inserts after one line then clash, so they land
    // in separate rounds and the chain stays a line instead of forking.
    let (s, e) = crate::pointer::locate(text, after_start, L::ID)?;
    edits.push(Edit {
        start: s,
        end: e,
        content: text.get(s..e)?.to_string(),
    });
    let quoted = serde_json::to_string(id).ok()?;
    edits.extend(relink::<L>(cx, &after_id, &quoted, &[after_start]));
    Some(edits)
}

/// Inserts a `{"type": "message", id, parentId, timestamp, message}` line answering the call
/// `call_id` after its assistant's line `after` (pi entries, Droid messages, linked by `id` and
/// `parentId`): its id derived from the session's and the call's (`id_len` characters of it),
/// its timestamp the assistant's, `message` built from the assistant's record. `None` when
/// the line's id is already there (inserted before and still not answering, or taken).
pub(crate) fn insert_message_line(
    cx: &EditContext<'_>,
    after: &Loc,
    call_id: &str,
    id_len: usize,
    message: impl FnOnce(&serde_json::Map<String, Json>) -> Json,
) -> Option<Vec<Edit>> {
    let holder = record(cx, after.base)?;
    let holder = holder.as_object()?;
    let after_id = holder.get("id").and_then(Json::as_str)?;
    // The header's id: the same call in another session gets another line id.
    let session = string_at(cx, 0, "/id").unwrap_or_default();
    let id = derived_uuid(&session, call_id).get(..id_len)?.to_string();
    if mentions_id::<IdParent>(cx, &id) {
        return None;
    }
    let mut line = serde_json::Map::new();
    line.insert("type".into(), "message".into());
    line.insert("id".into(), id.clone().into());
    line.insert("parentId".into(), after_id.into());
    if let Some(ts) = holder.get("timestamp") {
        line.insert("timestamp".into(), ts.clone());
    }
    line.insert("message".into(), message(holder));
    let rendered = serde_json::to_string(&Json::Object(line)).ok()?;
    insert_linked_after::<IdParent>(cx, after, &id, &rendered)
}

/// Moves a result line (the caller checks the result is the whole line) to right after
/// `after`'s line: it is cut out of the chain (its children take its parent) and linked in after `after` (whose
/// children then hang from it). A result sharing its line with other blocks is not moved.
pub(crate) fn move_result<L: Links>(
    cx: &EditContext<'_>,
    result: &Loc,
    message: &Loc,
    after: &Loc,
) -> Option<Vec<Edit>> {
    if result.base != message.base {
        return None;
    }
    let text = cx.source.text.as_str();
    let start = line_start(cx, message.base);
    let after_start = line_start(cx, after.base);
    if start == after_start {
        return None;
    }
    let uuid = string_at(cx, start, L::ID)?;
    let after_uuid = string_at(cx, after_start, L::ID)?;
    let (ps, pe) = crate::pointer::locate(text, start, L::PARENT)?;
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
    edits.extend(relink::<L>(cx, &uuid, old_parent, &[start]));
    let quoted = serde_json::to_string(&uuid).ok()?;
    edits.extend(relink::<L>(cx, &after_uuid, &quoted, &[start, after_start]));
    Some(edits)
}

/// Whether two of `edits` overlap (as the fix engine judges it): such a fix is never taken.
pub(crate) fn self_overlapping(edits: &[Edit]) -> bool {
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
pub(crate) fn derived_uuid(session: &str, call_id: &str) -> String {
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
