//! Gemini CLI repairs: a corrected version of a message, appended at the end of the file,
//! which the loader upserts in the message's place. The version is made from the message's
//! kept version (after updates, rewinds and checkpoints).
//! - An unanswered call: the call `cancelled`, with an error `functionResponse`.
//! - A duplicated response the CLI made itself (in `toolCalls[].result` and in a durable user
//!   message): the calls' message with its calls in `content` and without those `toolCalls`
//!   entries. Removing one copy the other way does not last: with the durable copy gone the
//!   next resume writes the regenerated turn back as a durable message, and with the
//!   `toolCalls[].result` gone it syncs it back from the durable turn; either way the resume
//!   after that sends two copies again (seen on 0.61.0). With no `toolCalls` entry left for a
//!   call, nothing is regenerated or synced, and the session resumes with one copy each time.
//!   Responses recorded after the fix are duplicated again by the CLI until #29366 lands.
//! - Other duplicated or orphaned responses: the message without that copy (a user message
//!   left empty is not replayed). Parallel calls that each store every sibling's response
//!   keep the copy whose `id` is their own.
//!
//! Legacy `.json` records get no fix (the CLI converts them to `.jsonl` on resume).

use serde_json::{json, Map, Value as Json};

use super::{fold, truthy};
use crate::edit::plan::{insert_record_after, EditContext};
use crate::finding::Edit;
use crate::formats::links;
use crate::formats::{array_at, str_at, Doc};
use crate::transcript::{Loc, ToolCall};
use crate::tree::Value as Tree;

/// What the error response of a cancelled call says.
const NEVER_RETURNED: &str = "Synthetic result written by toolcheck: no result was recorded for this call; it may or may not have run; it is marked cancelled.";

/// A version of `call`'s message with the call `cancelled` and an error response.
pub(super) fn cancel_call(cx: &EditContext<'_>, call: &ToolCall) -> Option<Vec<Edit>> {
    let id = call.id.as_deref()?;
    append_version(cx, &call.message, |message| {
        let response = json!([{"functionResponse": {
            "id": id,
            "name": call.name,
            "response": {"error": NEVER_RETURNED},
        }}]);
        let calls = message
            .entry("toolCalls")
            .or_insert_with(|| Json::Array(Vec::new()))
            .as_array_mut()?;
        let found = calls
            .iter_mut()
            .filter_map(Json::as_object_mut)
            .find(|c| c.get("id").and_then(Json::as_str) == Some(id));
        match found {
            Some(entry) => {
                // A result is there and still answers nothing: not ours to overwrite.
                if entry.get("result").is_some_and(json_truthy) {
                    return None;
                }
                entry.insert("status".into(), "cancelled".into());
                entry.insert("result".into(), response);
            }
            // A modern call recorded only in `content`.
            None => {
                let mut entry = Map::new();
                entry.insert("id".into(), id.into());
                entry.insert("name".into(), call.name.clone().into());
                let args = call_args(cx, call).unwrap_or_else(|| json!({}));
                entry.insert("args".into(), args);
                entry.insert("result".into(), response);
                entry.insert("status".into(), "cancelled".into());
                calls.push(Json::Object(entry));
            }
        }
        Some(())
    })
}

/// The call's `args` as recorded.
fn call_args(cx: &EditContext<'_>, call: &ToolCall) -> Option<Json> {
    let pointer = if call.loc.pointer.starts_with("/content") {
        format!("{}/functionCall/args", call.loc.pointer)
    } else {
        format!("{}/args", call.loc.pointer)
    };
    let raw = crate::edit::json_edit::value_text(&cx.source.text, call.loc.base, &pointer)?;
    serde_json::from_str(raw).ok()
}

/// One kept message of the file as the planner needs it: where it sits, and the call ids its
/// recorded results and its response parts answer.
struct Kept {
    at: Loc,
    gemini: bool,
    /// Ids of `toolCalls[]` entries with a result (a `gemini` message).
    recorded: Vec<String>,
    /// Ids of the `functionResponse` parts of a `user` message's content.
    responses: Vec<String>,
}

/// The strings `pick` finds in the elements of `list`.
fn ids<'t, 'a: 't>(
    list: Option<&'t Vec<Tree<'a>>>,
    pick: fn(&'t Tree<'a>) -> Option<&'t str>,
) -> Vec<String> {
    list.map_or_else(Vec::new, |l| {
        l.iter().filter_map(pick).map(str::to_string).collect()
    })
}

/// The kept messages of a file in the loader's order, folded once per text.
struct KeptIndex(Vec<Kept>);

impl KeptIndex {
    fn of(cx: &EditContext<'_>) -> std::sync::Arc<KeptIndex> {
        cx.source.derived(|source| {
            let text = source.text.as_str();
            let parsed: Vec<(usize, crate::json::Parsed<'_>)> = (0..source.line_count())
                .filter_map(|line| {
                    let (start, end) = source.line_range(line);
                    let raw = text.get(start..end)?;
                    let lead = raw.len() - raw.trim_start().len();
                    let body = raw.trim();
                    if body.is_empty() {
                        return None;
                    }
                    Some((start + lead, crate::json::parse(body).ok()?))
                })
                .collect();
            let docs: Vec<Doc<'_>> = parsed
                .iter()
                .map(|(base, p)| Doc {
                    base: *base,
                    value: &p.value,
                })
                .collect();
            let kept = fold(&docs, &mut Vec::new())
                .live
                .into_iter()
                .map(|live| {
                    let kind = str_at(live.value, "type");
                    Kept {
                        at: live.at,
                        gemini: kind == Some("gemini"),
                        recorded: ids(array_at(live.value, "toolCalls"), |call| {
                            call.get("result").filter(|r| truthy(r))?;
                            str_at(call, "id")
                        }),
                        responses: match kind {
                            Some("user") => ids(array_at(live.value, "content"), |part| {
                                str_at(part.get("functionResponse")?, "id")
                            }),
                            _ => Vec::new(),
                        },
                    }
                })
                .collect();
            KeptIndex(kept)
        })
    }
}

/// The CLI's own duplicate (google-gemini/gemini-cli#29365, 0.44.0 to at least 0.61.0):
/// a response recorded both in the call's `toolCalls[].result` and in a durable `user`
/// message is sent twice on resume, and the resume writes it back (`updateMessagesFromHistory`
/// syncs `toolCalls[].result` from the durable turn and persists the regenerated
/// `<id>_response` turn). The one edit that holds across resumes: a version of the call's
/// `gemini` message with its calls in `content` (as the CLI itself rewrites it on resume) and
/// without the `toolCalls[]` entries whose responses a durable message keeps, so nothing is
/// regenerated and nothing is synced back. `None` unless the response at `result` is one of
/// those.
pub(super) fn stop_regenerating(
    cx: &EditContext<'_>,
    result: &Loc,
    message: &Loc,
) -> Option<Vec<Edit>> {
    // Only for a copy of a response the CLI regenerates (not an orphan in the same turn).
    let response = cx.parse_at(result)?;
    let answers = str_at(response.get("functionResponse")?, "id")?.to_string();
    let index = KeptIndex::of(cx);
    let kept = &index.0;
    let at = kept.iter().position(|k| &k.at == message)?;
    // The call's message: this one, or the last `gemini` message before this response.
    let call_turn = kept.get(..=at)?.iter().rposition(|k| k.gemini)?;
    let model = kept.get(call_turn)?;
    let durable: Vec<&String> = kept
        .get(call_turn + 1..)?
        .iter()
        .take_while(|k| !k.gemini)
        .flat_map(|k| &k.responses)
        .collect();
    let covered: Vec<&String> = model
        .recorded
        .iter()
        .filter(|id| durable.contains(id))
        .collect();
    if !covered.contains(&&answers) {
        return None;
    }
    append_version(cx, &model.at, |record| {
        let calls = record.get("toolCalls")?.as_array()?.clone();
        let content = model_parts(record, &calls);
        record.insert("content".into(), Json::Array(content));
        let left: Vec<Json> = calls
            .into_iter()
            .filter(|call| {
                let id = call.get("id").and_then(Json::as_str);
                !id.is_some_and(|id| covered.iter().any(|c| c.as_str() == id))
            })
            .collect();
        if left.is_empty() {
            record.remove("toolCalls");
        } else {
            record.insert("toolCalls".into(), Json::Array(left));
        }
        Some(())
    })
}

/// The model turn `convertSessionToClientHistory` builds for a `gemini` message: its content
/// parts when they hold a call or a thought, else its thoughts, content and one
/// `functionCall` per `toolCalls[]` entry.
fn model_parts(record: &Map<String, Json>, calls: &[Json]) -> Vec<Json> {
    let content: Vec<Json> = match record.get("content") {
        Some(Json::Array(list)) => list
            .iter()
            .map(|p| match p {
                Json::String(text) => json!({"text": text}),
                other => other.clone(),
            })
            .collect(),
        Some(Json::String(text)) if !text.is_empty() => vec![json!({"text": text})],
        Some(other) if json_truthy(other) && !other.is_string() => vec![other.clone()],
        _ => Vec::new(),
    };
    let modern = content.iter().any(|p| {
        p.get("functionCall").is_some_and(|f| !f.is_null())
            || p.get("thought").is_some_and(json_truthy)
    });
    if modern {
        return content;
    }
    let mut parts: Vec<Json> =
        record
            .get("thoughts")
            .and_then(Json::as_array)
            .map_or_else(Vec::new, |thoughts| {
                thoughts
                    .iter()
                    .map(|t| {
                        let text = |k: &str| t.get(k).and_then(Json::as_str).unwrap_or_default();
                        let said = match text("subject") {
                            "" => text("description").to_string(),
                            subject => format!("**{subject}** {}", text("description")),
                        };
                        json!({"text": said, "thought": true})
                    })
                    .collect()
            });
    parts.extend(content);
    parts.extend(calls.iter().map(|call| {
        let mut function_call = Map::new();
        for key in ["id", "name", "args"] {
            if let Some(value) = call.get(key) {
                function_call.insert(key.into(), value.clone());
            }
        }
        json!({"functionCall": function_call})
    }));
    parts
}

/// A version of the message without the response at `result`: an element of a
/// `toolCalls[i].result` list, or a part of a durable user message.
pub(super) fn drop_response(
    cx: &EditContext<'_>,
    result: &Loc,
    message: &Loc,
) -> Option<Vec<Edit>> {
    if result.base != message.base {
        return None;
    }
    let index = |s: &str| -> Option<usize> {
        // `usize::from_str` takes a `+`; a pointer index never has one.
        s.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    // The response's place inside its message (a line, or an element of a `messages` list).
    let inside = result.pointer.strip_prefix(message.pointer.as_str())?;
    let steps: Vec<&str> = inside.split('/').skip(1).collect();
    append_version(cx, message, |record| {
        let (list, j) = match steps.as_slice() {
            ["toolCalls", i, "result", j] => {
                let calls = record.get_mut("toolCalls")?.as_array_mut()?;
                let (i, j) = own_copy_kept(calls, index(i)?, index(j)?)?;
                let entry = calls.get_mut(i)?;
                (entry.get_mut("result")?.as_array_mut()?, j)
            }
            ["content", j] if record.get("type").and_then(Json::as_str) == Some("user") => {
                (record.get_mut("content")?.as_array_mut()?, index(j)?)
            }
            _ => return None,
        };
        (j < list.len()).then(|| list.remove(j))?;
        Some(())
    })
}

/// Which copy of a response in `toolCalls[i].result[j]` goes. Parallel calls may each store
/// every sibling's response (gemini-cli#29365): when the one named is the call's own
/// response and an identical copy sits in a sibling's `result`, the sibling's copy goes, so
/// each call keeps the response whose `id` is its own.
fn own_copy_kept(calls: &[Json], i: usize, j: usize) -> Option<(usize, usize)> {
    let result = |k: usize| calls.get(k)?.get("result")?.as_array();
    let target = result(i)?.get(j)?;
    let response_id = target.get("functionResponse")?.get("id")?.as_str();
    let call_id = |k: usize| calls.get(k)?.get("id")?.as_str();
    if response_id.is_none() || response_id != call_id(i) {
        return Some((i, j));
    }
    let sibling = (0..calls.len())
        .filter(|&k| k != i && call_id(k) != response_id)
        .find_map(|k| Some((k, result(k)?.iter().position(|r| r == target)?)));
    Some(sibling.unwrap_or((i, j)))
}

/// Appends at the end of the file a version of the message whose last live line is at
/// `message`, changed by `change`. The message's `id`, rewritten as itself, is claimed too:
/// two fixes of one message then land in separate rounds, each acting on the version before.
fn append_version(
    cx: &EditContext<'_>,
    message: &Loc,
    change: impl FnOnce(&mut Map<String, Json>) -> Option<()>,
) -> Option<Vec<Edit>> {
    let text = cx.source.text.as_str();
    let start = links::line_start(cx, message.base);
    // A message of a `messages` list is upserted by a line after it like any other (since
    // 0.44.0); a message sharing its line with another record is left alone.
    let mut record: Json = if message.pointer.is_empty() {
        if start != message.base {
            return None;
        }
        links::record(cx, start)?
    } else {
        let raw = crate::edit::json_edit::value_text(text, message.base, &message.pointer)?;
        serde_json::from_str(raw).ok()?
    };
    change(record.as_object_mut()?)?;
    let line = serde_json::to_string(&record).ok()?;
    let last = (0..cx.source.line_count()).rev().find(|&l| {
        let (s, e) = cx.source.line_range(l);
        text.get(s..e).is_some_and(|t| !t.trim().is_empty())
    })?;
    let end_of_file = Loc::new(cx.source.line_range(last).0, "");
    let (s, e) = crate::pointer::locate(text, message.base, &format!("{}/id", message.pointer))?;
    Some(vec![
        Edit {
            start: s,
            end: e,
            content: text.get(s..e)?.to_string(),
        },
        insert_record_after(cx, &end_of_file, &line)?,
    ])
}

/// JavaScript truthiness of a parsed JSON value.
fn json_truthy(value: &Json) -> bool {
    match value {
        Json::Null => false,
        Json::Bool(b) => *b,
        Json::String(s) => !s.is_empty(),
        Json::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        _ => true,
    }
}
