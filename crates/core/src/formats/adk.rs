//! Google ADK (Agent Development Kit): saved sessions (`adk run --save_session` →
//! `<agent_dir>/<session_id>.session.json`, the `adk web` Export), eval sets
//! (`<app>/<eval_set_id>.evalset.json`, `*.test.json`) and eval results
//! (`.adk/eval_history/*.evalset_result.json`).
//!
//! A session is `{id, appName, userId, state, events[]}`; each event wraps a Gemini `Content`
//! (`content {role, parts[]}`) with `author`, `invocationId`, `actions`, `id`, `timestamp`.
//! Calls are `functionCall {id?, name, args}` parts of `model` events; results are
//! `functionResponse {id?, name, response}` parts of events whose role is `user` but whose
//! author is the agent. Keys are camelCase (`by_alias=True`: the session export) or
//! snake_case (`model_dump_json()`: SQLite `event_data`, ADK 1.x exports, eval sets). Ids are
//! the model's, or `adk-<uuid>` that ADK makes up; Java's Firestore store drops them, so
//! id-less responses pair by name and order as Gemini's do.
//!
//! ADK builds the request from the events, moving a call's responses right after it and
//! merging what it moves, so consecutive events of one side form one turn. A trailing
//! unanswered call is sent again when the session is resumed (`adk run --resume`): the
//! session is `resumable`, unless the call is a long-running one (`longRunningToolIds`),
//! whose answer arrives later by design.
//!
//! Failures: `response.error` (ADK's own tools, argument validation, confirmations), MCP's
//! `CallToolResult` dump with `isError`/`is_error: true`, and the `ReflectAndRetryToolPlugin`
//! answer (`error_type`).
//!
//! An eval set holds `eval_cases[].conversation[]` invocations: `user_content`, expected
//! `intermediate_data` (`tool_uses[]`/`tool_responses[]`, or `invocation_events[]`) and
//! `final_response`. Each invocation is a conversation of its own. Expected tool uses often
//! have no id and no response: the expected answer then merges into the calls' turn, so
//! the invocation ends with its calls, as a request may, and they are not unanswered.
//! `app_details.agent_details.<agent>.tool_declarations` (a genai `Tool[]`) declares the
//! agents' tools; `parameters_json_schema` is untyped there, so a schema passed as a JSON
//! string is written as one.

use serde_json::{json, Value as Json};

use super::gemini::{
    function_call, function_response, object_field, pair_idless, part_item, read_tool_list,
};
use super::{array_at, field, str_at, Adapter, CallSite, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{
    pairing_key, Arguments, CallKind, Conversation, Item, Loc, Pairing, Role, Text, ToolCall,
    ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain adk` prints (Markdown).
pub(super) const DOC: &str = r#"Google ADK sessions (`adk run --save_session` → `<agent_dir>/<session_id>.session.json`, the `adk web` Export; camelCase or snake_case events), eval sets (`<app>/<eval_set_id>.evalset.json`, `*.test.json`: expected tool uses without ids or responses are fine; tools from `app_details`) and eval results (`<app>/.adk/eval_history/*.evalset_result.json`)

**SQLite.** Google ADK `SqliteSessionService` databases (`<agents_dir>/<agent>/.adk/session.db`, the `adk web` / `adk run` default; also `DatabaseSessionService` on SQLite): `events.event_data` (snake_case events), one conversation per session, in `timestamp` order"#;

pub struct Adk;

const FUNCTION_RESPONSE: &[&str] = &["functionResponse", "function_response"];
const EVENTS: &str = "events";
const APP_NAME: &[&str] = &["appName", "app_name"];
const USER_ID: &[&str] = &["userId", "user_id"];
const INVOCATION_ID: &[&str] = &["invocationId", "invocation_id"];
const LONG_RUNNING: &[&str] = &["longRunningToolIds", "long_running_tool_ids"];
const EVAL_SET_ID: &[&str] = &["eval_set_id", "evalSetId"];
const EVAL_CASES: &[&str] = &["eval_cases", "evalCases"];
const CASE_RESULTS: &[&str] = &["eval_case_results", "evalCaseResults"];
const PER_INVOCATION: &[&str] = &[
    "eval_metric_result_per_invocation",
    "evalMetricResultPerInvocation",
];
const INVOCATIONS_IN_RESULT: &[&str] = &[
    "actual_invocation",
    "actualInvocation",
    "expected_invocation",
    "expectedInvocation",
];
const USER_CONTENT: &[&str] = &["user_content", "userContent"];
const FINAL_RESPONSE: &[&str] = &["final_response", "finalResponse"];
const INTERMEDIATE: &[&str] = &["intermediate_data", "intermediateData"];
const TOOL_USES: &[&str] = &["tool_uses", "toolUses"];
const TOOL_RESPONSES: &[&str] = &["tool_responses", "toolResponses"];
const INVOCATION_EVENTS: &[&str] = &["invocation_events", "invocationEvents"];
const APP_DETAILS: &[&str] = &["app_details", "appDetails"];
const AGENT_DETAILS: &[&str] = &["agent_details", "agentDetails"];
const TOOL_DECLARATIONS: &[&str] = &["tool_declarations", "toolDeclarations"];

impl Dialect for Adk {
    /// A response event of its own after the call's event, by the same author and in the
    /// call's casing (ADK merges it with the responses around it), rather than a part added to
    /// an event someone else wrote, such as the user's next prompt. Only where the call sits
    /// in an event, not in an eval set's `tool_uses`.
    fn interrupted_result(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        let event = site.message()?;
        event.get("content")?;
        let author = str_at(event, "author")?;
        let part = super::gemini::Gemini.interrupted_block(site, text)?;
        let mut out = serde_json::Map::new();
        out.insert("content".into(), json!({"role": "user", "parts": [part]}));
        if let Some((key, id)) = field(event, INVOCATION_ID) {
            out.insert(key.into(), id.to_serde());
        }
        out.insert("author".into(), json!(author));
        Some(Json::Object(out))
    }
}

impl Adapter for Adk {
    fn format(&self) -> Format {
        Format::Adk
    }

    /// A session's events, one per record (`SqliteSessionService` rows).
    fn normalise_records(&self, docs: &[Doc<'_>]) -> Option<Result<Vec<Conversation>, String>> {
        Some(normalise_events(docs))
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        if let Some(events) = array_at(doc, EVENTS) {
            if field(doc, APP_NAME).is_some() && field(doc, USER_ID).is_some() {
                return Some(90);
            }
            return events.iter().any(is_event).then_some(80);
        }
        if field(doc, EVAL_SET_ID).is_some() || field(doc, CASE_RESULTS).is_some() {
            return Some(90);
        }
        if let Some(items) = doc.as_array() {
            return (!items.is_empty() && items.iter().all(is_old_test_item)).then_some(80);
        }
        field(doc, EVAL_CASES)
            .is_some_and(|(_, c)| c.is_array())
            .then_some(60)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let mut out = Vec::new();
        for doc in docs {
            out.extend(normalise_doc(doc)?);
        }
        Ok(out)
    }

    /// An event is more than its content: one whose `actions` do something (a state delta,
    /// a transfer to another agent, an escalation) loses only the removed part, left with
    /// `parts: []` (ADK leaves events without parts out of the request it builds), never the
    /// whole event and its actions with it.
    fn plan_edits(&self, intent: &FixIntent, cx: &EditContext<'_>) -> Planned {
        let Some((result, message)) = super::removal(intent) else {
            return Planned::Generic;
        };
        let acts = result != message
            && cx
                .value_at(message)
                .is_some_and(|event| event.get("actions").is_some_and(has_effect));
        if !acts {
            return Planned::Generic;
        }
        super::remove_only(cx, result)
    }
}

/// Whether an event's `actions` value does anything: ADK writes every field, empty (`{}`,
/// `null`, `false`) when it does nothing.
fn has_effect(value: &Tree) -> bool {
    if let Some(map) = value.as_object() {
        return map.iter().any(|(_, v)| has_effect(v));
    }
    if let Some(items) = value.as_array() {
        return !items.is_empty();
    }
    if let Some(b) = value.as_bool() {
        return b;
    }
    if let Some(s) = value.as_str() {
        return !s.is_empty();
    }
    !value.is_null()
}

/// An ADK event: `author` and an invocation id beside `content` or `actions`.
fn is_event(value: &Tree) -> bool {
    str_at(value, "author").is_some()
        && field(value, INVOCATION_ID).is_some()
        && (value.get("content").is_some() || value.get("actions").is_some())
}

fn normalise_doc(doc: &Doc<'_>) -> Result<Vec<Conversation>, String> {
    let root = Loc::new(doc.base, "");
    if let Some(events) = array_at(doc.value, EVENTS) {
        let list = events
            .iter()
            .enumerate()
            .map(|(i, e)| (root.child((EVENTS, i)), e));
        return Ok(vec![session(root.clone(), list)?]);
    }
    let mut out = Vec::new();
    if let Some((key, Tree::Array(cases))) = field(doc.value, EVAL_CASES) {
        for (c, case) in cases.iter().enumerate() {
            let cloc = root.child((key, c));
            let Some((ckey, Tree::Array(invocations))) = field(case, &["conversation"]) else {
                continue;
            };
            for (i, invocation) in invocations.iter().enumerate() {
                out.push(read_invocation(invocation, cloc.child((ckey, i)))?);
            }
        }
        return Ok(out);
    }
    if let Some((key, Tree::Array(results))) = field(doc.value, CASE_RESULTS) {
        for (r, result) in results.iter().enumerate() {
            let Some((pkey, Tree::Array(per))) = field(result, PER_INVOCATION) else {
                continue;
            };
            for (p, entry) in per.iter().enumerate() {
                let ploc = root.child((key, r)).child((pkey, p));
                for name in INVOCATIONS_IN_RESULT {
                    if let Some(invocation) = entry.get(name).filter(|v| v.is_object()) {
                        out.push(read_invocation(invocation, ploc.child(name))?);
                    }
                }
            }
        }
        return Ok(out);
    }
    if let Some(items) = doc
        .value
        .as_array()
        .filter(|i| i.iter().all(is_old_test_item))
    {
        for (i, item) in items.iter().enumerate() {
            let iloc = root.child(i);
            match array_at(item, "data") {
                Some(queries) => {
                    for (q, query) in queries.iter().enumerate() {
                        out.push(read_old_query(query, iloc.child(("data", q))));
                    }
                }
                None => out.push(read_old_query(item, iloc)),
            }
        }
        return Ok(out);
    }
    Err("expected an ADK session (`events`), an eval set (`eval_cases`), eval results (`eval_case_results`) or an old test file (`[{query, expected_tool_use}]`)".into())
}

/// ADK events read one by one, each a JSON document of its own (rows of a session store):
/// one conversation, with every location inside its event's document.
// Called by the ADK SQLite store (`events.event_data` rows, `store/`).
pub(crate) fn normalise_events(docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
    let first = docs.first().map_or(0, |d| d.base);
    let list = docs.iter().map(|d| (Loc::new(d.base, ""), d.value));
    Ok(vec![session(Loc::new(first, ""), list)?])
}

/// A session: its events in order.
fn session<'a>(
    loc: Loc,
    events: impl Iterator<Item = (Loc, &'a Tree<'a>)>,
) -> Result<Conversation, String> {
    let mut conv = new_conversation(loc);
    conv.resumable = true;
    for (eloc, event) in events {
        read_event(&mut conv, event, &eloc)?;
        // A long-running call is answered later by design, not when the session resumes.
        if field(event, LONG_RUNNING)
            .and_then(|(_, ids)| ids.as_array())
            .is_some_and(|ids| !ids.is_empty())
        {
            conv.resumable = false;
        }
    }
    pair_idless(&mut conv);
    Ok(conv)
}

fn new_conversation(loc: Loc) -> Conversation {
    let mut conv = Conversation::new(Format::Adk, loc, Pairing::NextTurn);
    conv.results_role = Role::User;
    conv
}

/// One event's `content` parts, on the side of its role (events without content, such as
/// state changes and model errors, hold nothing to read).
fn read_event(conv: &mut Conversation, event: &Tree, eloc: &Loc) -> Result<(), String> {
    let Some(content) = event.get("content").filter(|c| !c.is_null()) else {
        return Ok(());
    };
    let role = match content.get("role") {
        Some(Tree::String(r)) if r == "model" => Role::Assistant,
        Some(Tree::String(r)) if matches!(r.as_str(), "user" | "function" | "tool") => Role::User,
        None | Some(Tree::Null) => match str_at(event, "author") {
            Some("user") | None => Role::User,
            Some(_) => Role::Assistant,
        },
        Some(other) => {
            return Err(format!(
                "unexpected content role {other} at {}",
                eloc.pointer
            ))
        }
    };
    read_parts(conv, role, content, &eloc.child("content"), eloc);
    Ok(())
}

/// The parts of `content` (at `cloc`) as items of a `role` turn whose message is `mloc`.
fn read_parts(conv: &mut Conversation, role: Role, content: &Tree, cloc: &Loc, mloc: &Loc) {
    let parts = array_at(content, "parts").map_or(&[][..], Vec::as_slice);
    for (j, part) in parts.iter().enumerate() {
        let mut item = part_item(part, cloc.child(("parts", j)), mloc);
        if let (Item::Result(result), Some((_, response))) =
            (&mut item, object_field(part, FUNCTION_RESPONSE))
        {
            mark_failure(result, response);
        }
        conv.push(role, mloc, item);
    }
}

/// One eval invocation: the user's content, the expected calls and responses, the expected
/// answer, and the agents' declared tools.
fn read_invocation(invocation: &Tree, iloc: Loc) -> Result<Conversation, String> {
    let mut conv = new_conversation(iloc.clone());
    if let Some((key, content)) = object_field(invocation, USER_CONTENT) {
        let cloc = iloc.child(key);
        read_parts(&mut conv, Role::User, content, &cloc, &cloc);
    }
    if let Some((key, data)) = object_field(invocation, INTERMEDIATE) {
        let dloc = iloc.child(key);
        if let Some((ekey, Tree::Array(events))) = object_field(data, INVOCATION_EVENTS) {
            for (k, event) in events.iter().enumerate() {
                read_event(&mut conv, event, &dloc.child((ekey, k)))?;
            }
        }
        if let Some((ukey, Tree::Array(uses))) = object_field(data, TOOL_USES) {
            for (k, call) in uses.iter().enumerate() {
                let loc = dloc.child((ukey, k));
                let item = Item::Call(function_call(call, loc.clone(), loc.clone(), &loc));
                conv.push(Role::Assistant, &loc, item);
            }
        }
        if let Some((rkey, Tree::Array(responses))) = object_field(data, TOOL_RESPONSES) {
            for (k, response) in responses.iter().enumerate() {
                let loc = dloc.child((rkey, k));
                let mut result = function_response(response, loc.clone(), &loc);
                mark_failure(&mut result, response);
                let item = Item::Result(result);
                conv.push(Role::User, &loc, item);
            }
        }
    }
    if let Some((key, content)) = object_field(invocation, FINAL_RESPONSE) {
        let cloc = iloc.child(key);
        read_parts(&mut conv, Role::Assistant, content, &cloc, &cloc);
    }
    read_app_details(invocation, &iloc, &mut conv);
    pair_idless(&mut conv);
    Ok(conv)
}

/// An entry of an old `.test.json` list: `{query, expected_tool_use, reference}`, or a
/// `{name, data: [...]}` group of them.
fn is_old_test_item(value: &Tree) -> bool {
    let query = |v: &Tree| {
        str_at(v, "query").is_some()
            && (v.get("expected_tool_use").is_some() || v.get("reference").is_some())
    };
    query(value) || array_at(value, "data").is_some_and(|d| !d.is_empty() && d.iter().all(query))
}

/// One old-format query: the user's text, the expected `{tool_name, tool_input}` uses (no ids,
/// no responses) and the reference answer in the same turn, so the query ends with its
/// expected calls.
fn read_old_query(query: &Tree, qloc: Loc) -> Conversation {
    let mut conv = new_conversation(qloc.clone());
    let text = |loc: Loc| {
        Item::Text(Text {
            message: loc.clone(),
            loc,
        })
    };
    conv.push(Role::User, &qloc, text(qloc.child("query")));
    if let Some(uses) = array_at(query, "expected_tool_use") {
        for (k, tool_use) in uses.iter().enumerate() {
            let loc = qloc.child(("expected_tool_use", k));
            let (arguments, args_loc) = match tool_use.get("tool_input") {
                Some(input) => (Arguments::value(input.to_serde()), loc.child("tool_input")),
                None => (Arguments::value(json!({})), loc.clone()),
            };
            let call = ToolCall {
                id: None,
                key: pairing_key(None, &loc),
                name: str_at(tool_use, "tool_name")
                    .unwrap_or_default()
                    .to_string(),
                kind: CallKind::Function,
                arguments,
                args_loc,
                message: loc.clone(),
                loc: loc.clone(),
            };
            conv.push(Role::Assistant, &loc, Item::Call(call));
        }
    }
    if query.get("reference").is_some() {
        let rloc = qloc.child("reference");
        conv.push(Role::Assistant, &rloc, text(rloc.clone()));
    }
    conv
}

/// Failures beyond Gemini's `error` key: an MCP `CallToolResult` with `isError`, and the
/// `ReflectAndRetryToolPlugin` answer (`error_type`).
fn mark_failure(result: &mut ToolResult, response: &Tree) {
    let Some(body) = response.get("response") else {
        return;
    };
    let flagged = ["isError", "is_error"]
        .iter()
        .any(|k| body.get(k).and_then(Tree::as_bool) == Some(true));
    if flagged || body.get("error_type").is_some_and(|e| !e.is_null()) {
        result.is_error = true;
    }
}

/// `app_details.agent_details.<agent>.tool_declarations`: each agent's genai `Tool[]`.
fn read_app_details(invocation: &Tree, iloc: &Loc, conv: &mut Conversation) {
    let Some((akey, details)) = object_field(invocation, APP_DETAILS) else {
        return;
    };
    let Some((dkey, Tree::Object(agents))) = object_field(details, AGENT_DETAILS) else {
        return;
    };
    for (name, agent) in agents {
        if let Some((tkey, Tree::Array(tools))) = object_field(agent, TOOL_DECLARATIONS) {
            let tloc = iloc.child((akey, dkey)).child((name, tkey));
            read_tool_list(tools, &tloc, conv);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::lint_str;
    use crate::tree_json;

    fn codes(text: &str) -> Vec<String> {
        lint_str("x.json", text).codes()
    }

    #[test]
    fn events_one_per_document_are_one_session() {
        // As a session store hands them over: one event per row, each its own document.
        let rows = [
            tree_json!({"content": {"parts": [{"text": "hi"}], "role": "user"}, "invocation_id": "e-1", "author": "user", "actions": {}}),
            tree_json!({"content": {"parts": [{"function_call": {"id": "adk-1", "name": "f", "args": {}}}], "role": "model"}, "invocation_id": "e-1", "author": "a", "actions": {}}),
            tree_json!({"content": {"parts": [{"function_response": {"id": "adk-1", "name": "f", "response": {"isError": true, "content": []}}}], "role": "user"}, "invocation_id": "e-1", "author": "a", "actions": {}}),
            tree_json!({"content": {"parts": [{"function_call": {"id": "adk-2", "name": "f", "args": {}}}], "role": "model"}, "invocation_id": "e-1", "author": "a", "actions": {}}),
        ];
        let docs: Vec<Doc<'_>> = rows
            .iter()
            .enumerate()
            .map(|(i, value)| Doc {
                base: i * 100,
                value,
            })
            .collect();
        let convs = normalise_events(&docs).unwrap_or_default();
        assert_eq!(convs.len(), 1);
        let (_, result) = convs[0].results().next().expect("one result");
        assert!(result.is_error);
        assert_eq!(result.loc, Loc::new(200, "/content/parts/0"));
        assert_eq!(result.message, Loc::new(200, ""));
        let calls: Vec<Loc> = convs[0].calls().map(|(_, c)| c.loc.clone()).collect();
        assert_eq!(
            calls,
            [
                Loc::new(100, "/content/parts/0"),
                Loc::new(300, "/content/parts/0")
            ]
        );
        // A trailing call is sent again on resume.
        assert!(convs[0].resumable);
    }

    #[test]
    fn old_test_files_are_queries_ending_with_their_expected_calls() {
        let text = r#"[{"query": "Turn off the kitchen light", "expected_tool_use": [{"tool_name": "set_light", "tool_input": {"room": "kitchen", "on": false}}, {"tool_name": "get_light", "tool_input": "kitchen"}], "reference": "Done."},
            {"name": "group", "data": [{"query": "Status?", "expected_tool_use": [], "reference": "All off."}]}]"#;
        let value: Tree = crate::tree::parse(text)
            .map(|t| t.value)
            .unwrap_or_default();
        assert_eq!(
            crate::formats::detect(&value).map(|a| a.format()),
            Some(Format::Adk)
        );
        // The string `tool_input` is not an object; nothing else fires.
        assert_eq!(codes(text), ["TC203@1:181"]);
    }

    #[test]
    fn idless_expected_tool_uses_are_not_unanswered() {
        let two = r#"{"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": [
            {"user_content": {"parts": [{"text": "a"}], "role": "user"},
             "intermediate_data": {"tool_uses": [{"id": null, "name": "f", "args": {"x": 1}}], "tool_responses": []},
             "final_response": {"parts": [{"text": "done"}], "role": "model"}},
            {"user_content": {"parts": [{"text": "b"}], "role": "user"},
             "intermediate_data": {"tool_uses": [{"name": "f", "args": {"x": 2}}, {"name": "f", "args": {"x": 3}}],
                                   "tool_responses": [{"name": "f", "response": {"r": 2}}, {"name": "f", "response": {"r": 3}}]},
             "final_response": {"parts": [{"text": "done"}], "role": "model"}}
        ]}]}"#;
        assert_eq!(codes(two), Vec::<String>::new());
        // A third response has no call.
        let orphan = two.replace(
            r#"{"name": "f", "response": {"r": 3}}]"#,
            r#"{"name": "f", "response": {"r": 3}}, {"name": "f", "response": {}}]"#,
        );
        assert_eq!(codes(&orphan), ["TC101@7:129"]);
    }
}
