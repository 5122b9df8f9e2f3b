//! Fix planning for Claude Code sessions: whole-line edits that keep the `parentUuid` chain
//! whole (docs/architecture.md, "Fix principles").
//!
//! A removed line's children are re-parented to its own parent; an inserted result line (an
//! interrupted error, with a uuid derived from the session and the call so that fixing twice
//! inserts the same line) or a moved one is linked in after the call's turn, and the lines
//! that hung there hang from it instead. The chain edits are `formats/links.rs`'s; this file
//! says which lines are whole and what an inserted result line holds.

use serde_json::Value as Json;

use crate::edit::json_edit::{self, split_index};
use crate::edit::plan::{EditContext, INTERRUPTED};
use crate::finding::Edit;
use crate::formats::anthropic::interrupted_block;
use crate::formats::links::{self, derived_uuid, insert_linked_after, mentions_id, record, Links};
use crate::transcript::{Loc, ToolCall};

/// Claude Code's record links.
pub(super) struct Chain;

impl Links for Chain {
    const ID: &'static str = "/uuid";
    const PARENT: &'static str = "/parentUuid";
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

/// A new user line answering `call` with an interrupted error, after the line of `after`
/// (the last message of the call's turn), linked to it; `after`'s children move under it.
pub(super) fn insert_result(
    cx: &EditContext<'_>,
    call: &ToolCall,
    after: &Loc,
) -> Option<Vec<Edit>> {
    let id = call.id.as_deref()?;
    let after_uuid = links::string_at(cx, links::line_start(cx, after.base), "/uuid")?;
    let holder = record(cx, call.message.base)?;
    let holder = holder.as_object()?;
    let uuid = derived_uuid(
        holder
            .get("sessionId")
            .and_then(Json::as_str)
            .unwrap_or_default(),
        id,
    );
    if mentions_id::<Chain>(cx, &uuid) {
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
    insert_linked_after::<Chain>(cx, after, &uuid, &rendered)
}

/// Moves a result line whose only block is the result: see [`links::move_result`].
pub(super) fn move_result(
    cx: &EditContext<'_>,
    result: &Loc,
    message: &Loc,
    after: &Loc,
) -> Option<Vec<Edit>> {
    if !is_whole_line(cx, result, message) {
        return None;
    }
    links::move_result::<Chain>(cx, result, message, after)
}

/// Removes the line of `message`, re-parenting its children.
pub(super) fn remove_line(cx: &EditContext<'_>, message: &Loc) -> Option<Vec<Edit>> {
    links::remove_line::<Chain>(cx, message)
}
