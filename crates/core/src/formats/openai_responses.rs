//! OpenAI Responses API: request bodies (`input` items), saved response objects
//! (`object: "response"` with `output` items), both in one document, NeMo-Gym rollout records
//! (`{responses_create_params: {input, tools}, response: {output}}`) and bare item arrays.
//!
//! The conversation is `input ++ output`. Items are messages (`{role, content}`, `type:
//! "message"` optional) or typed items. Calls pair with their outputs by **`call_id`**; the
//! `fc_…` item `id` is not a pairing key. `custom_tool_call.input` is free text. Built-in calls
//! with a `call_id` (`computer_call`, `local_shell_call`, `shell_call`, `apply_patch_call`,
//! client `tool_search_call`) are answered by their `*_output` items; self-contained items
//! (`web_search_call`, `file_search_call`, `code_interpreter_call`, `image_generation_call`,
//! `mcp_call`) run on the provider and are never paired. Outputs carry no error flag: an
//! output is a failure when it is an error object, opens with `Error`/`error:` or an
//! `Error:`-style label (`DB Error:`), or opens with the text the OpenAI Agents SDK writes for
//! a failed tool ("An error occurred while running the tool. Please try again.", see
//! `AGENTS_SDK_FAILURES`), or when its item's `status` is `failed`.
//!
//! Results may come anywhere after their call ([`Pairing::AnyLater`]). `previous_response_id`
//! or `conversation` (and `item_reference` items) mean earlier items live on the server.
//!
//! What the provider resolves by server id is recorded for the request's `input` (and bare
//! item arrays and session rows, which are input items): each `reasoning` item with its id,
//! its `encrypted_content`, its `content` and the item after it, each `item_reference`, and
//! the request's `store` flag. Rules judge them; the response's `output` is not input.
//!
//! The item reading here is shared with the Codex rollout adapter, whose `response_item`
//! payloads are the same items; the id facts are not recorded for those (see
//! [`super::codex`]).

use serde_json::{json, Value as Json};

use super::{
    all_have_role, array_at, opens_with_any, str_at, Adapter, CallSite, Dialect, Doc, Format,
    AGENTS_SDK_FAILURES,
};
use crate::transcript::{
    failed_text, looks_like_error, pairing_key, result_text, AfterReasoning, Arguments, CallKind, Conversation,
    Follower, Item, Loc, Pairing, ReasoningItem, ReasoningKind, Role, Text, ToolCall, ToolDef,
    ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain openai-responses` prints (Markdown).
pub(super) const DOC: &str = r#"Responses API `input` items and saved responses' `output`; pairs by `call_id`; `previous_response_id` means earlier items live on the server

**SQLite.** OpenAI Agents SDK `SQLiteSession` databases (the `db_path` given to `SQLiteSession`, e.g. `conversations.db`): `agent_messages.message_data`, one Responses input item per row, one conversation per `session_id`, in `id` order"#;

pub struct OpenAiResponses;

impl Dialect for OpenAiResponses {
    fn interrupted_result(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        output_item(site.element, text)
    }
}

impl Adapter for OpenAiResponses {
    fn format(&self) -> Format {
        Format::OpenAiResponses
    }

    /// A session's input items, one per record (the OpenAI Agents SDK's SQLite rows).
    fn normalise_records(&self, docs: &[Doc<'_>]) -> Option<Result<Vec<Conversation>, String>> {
        Some(Ok(vec![normalise_items(docs)]))
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        if let Some(items) = doc.as_array() {
            // A bare item list (`to_input_list()` dumps). Arrays of plain role messages are
            // OpenAI Chat's.
            let typed = items.iter().all(Tree::is_object) && items.iter().any(is_typed_item);
            return typed.then_some(60);
        }
        if doc
            .get("responses_create_params")
            .is_some_and(Tree::is_object)
        {
            return Some(90);
        }
        if str_at(doc, "object") == Some("response") && array_at(doc, "output").is_some() {
            return Some(90);
        }
        let request_keys = [
            "instructions",
            "tools",
            "previous_response_id",
            "conversation",
            "reasoning",
            "store",
            "max_output_tokens",
        ]
        .iter()
        .any(|k| doc.get(k).is_some());
        match doc.get("input")? {
            // `{input: {messages}}` preference records are OpenAI Chat's; a list of strings or
            // token arrays is an embeddings request.
            Tree::Array(items) if items.is_empty() => Some(if request_keys { 30 } else { 5 }),
            Tree::Array(items) if !items.iter().all(Tree::is_object) => None,
            Tree::Array(items) if items.iter().any(is_typed_item) => Some(85),
            Tree::Array(items) if all_have_role(items) => Some(50),
            Tree::String(_) if request_keys => Some(40),
            _ => None,
        }
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        docs.iter().map(normalise_doc).collect()
    }
}

/// Item types only the Responses API (and Codex) use, or message content parts typed as
/// Responses parts.
fn is_typed_item(item: &Tree) -> bool {
    let responses_parts = || {
        array_at(item, "content").is_some_and(|parts| {
            parts.iter().any(|p| {
                matches!(
                    str_at(p, "type"),
                    Some("input_text" | "output_text" | "input_image" | "input_file" | "refusal")
                )
            })
        })
    };
    match str_at(item, "type") {
        Some("message") => item.get("role").is_some(),
        Some(kind) => kind.ends_with("_call") || kind.ends_with("_output") || kind == "reasoning",
        None => item.get("role").is_some() && responses_parts(),
    }
}

fn normalise_doc(doc: &Doc<'_>) -> Result<Conversation, String> {
    let value = doc.value;
    let root = Loc::new(doc.base, "");
    let mut conv = Conversation::new(Format::OpenAiResponses, root.clone(), Pairing::AnyLater);
    conv.reasoning.kind = Some(ReasoningKind::ReasoningItems);

    if let Some(items) = value.as_array() {
        read_items(items, &root, &mut conv);
        record_links(items.iter().enumerate().map(|(i, v)| (v, root.child(i))), &mut conv);
        return Ok(conv);
    }
    if !value.is_object() {
        return Err("expected an object with `input` items, a response with `output` items, or an array of items".into());
    }
    // (request, its location) and (response, its location); a plain document is both.
    let (request, request_loc, response, response_loc) = match value
        .get("responses_create_params")
        .filter(|p| p.is_object())
    {
        Some(params) => (
            params,
            root.child("responses_create_params"),
            value.get("response").unwrap_or(&Tree::Null),
            root.child("response"),
        ),
        None => (value, root.clone(), value, root.clone()),
    };

    let input = request.get("input");
    let output = array_at(response, "output");
    match input {
        Some(Tree::Array(_) | Tree::String(_)) => {}
        Some(Tree::Object(_)) => {
            return Err("expected `input` to be an array of items or a string (`input.messages` is an OpenAI Chat record)".into())
        }
        _ if output.is_some() => {}
        _ => return Err("expected `input` items or a response with `output` items".into()),
    }

    // Tools: the request's, else those the response echoes.
    if request.get("tools").is_some() {
        read_tools(request, &request_loc, &mut conv);
    } else if response.get("tools").is_some() {
        read_tools(response, &response_loc, &mut conv);
    }
    let chained = |v: &Tree| {
        ["previous_response_id", "conversation"]
            .iter()
            .any(|k| v.get(k).is_some_and(|x| !x.is_null()))
    };
    conv.server_history = chained(request) || chained(response);
    conv.model = str_at(request, "model").map(str::to_string);
    conv.stored.store = request.get("store").and_then(Tree::as_bool);

    if let Some(items) = input.and_then(Tree::as_array) {
        let input_loc = request_loc.child("input");
        read_items(items, &input_loc, &mut conv);
        let located = items.iter().enumerate().map(|(i, v)| (v, input_loc.child(i)));
        record_links(located, &mut conv);
    }
    if let Some(items) = output {
        read_items(items, &response_loc.child("output"), &mut conv);
    }
    Ok(conv)
}

/// One conversation from items stored one per document (an OpenAI Agents SDK
/// `SQLiteSession` keeps one input item per row), each located at its own document.
pub fn normalise_items(docs: &[Doc<'_>]) -> Conversation {
    let root = Loc::new(docs.first().map_or(0, |d| d.base), "");
    let mut conv = Conversation::new(Format::OpenAiResponses, root, Pairing::AnyLater);
    conv.reasoning.kind = Some(ReasoningKind::ReasoningItems);
    for doc in docs {
        read_item(doc.value, Loc::new(doc.base, ""), &mut conv);
    }
    record_links(
        docs.iter().map(|d| (d.value, Loc::new(d.base, ""))),
        &mut conv,
    );
    conv
}

/// Records what the provider links by server id in a request's input: each `reasoning` item
/// with its id, its encrypted content, its reasoning text and the item after it, and each
/// `item_reference`. Input items only: a response's `output` is what the provider made, not
/// what it is sent; and not Codex rollouts, whose items Codex serialises its own way (without
/// reasoning ids) for its own backend.
fn record_links<'a, 't: 'a>(
    items: impl Iterator<Item = (&'a Tree<'t>, Loc)>,
    conv: &mut Conversation,
) {
    let items: Vec<(&Tree, Loc)> = items.filter(|(item, _)| item.is_object()).collect();
    for (i, (item, loc)) in items.iter().enumerate() {
        match str_at(item, "type") {
            Some("item_reference") => {
                let id = str_at(item, "id").map(str::to_string);
                conv.stored.references.push((loc.clone(), id));
            }
            Some("reasoning") => {
                let next = match items.get(i + 1) {
                    Some((next, at)) => follower(next, at),
                    None => AfterReasoning::Nothing,
                };
                let content = array_at(item, "content")
                    .filter(|parts| !parts.is_empty())
                    .map(|_| loc.child("content"));
                conv.reasoning.items.push(ReasoningItem {
                    loc: loc.clone(),
                    id: server_id(item).map(str::to_string),
                    encrypted: str_at(item, "encrypted_content").is_some_and(|e| !e.is_empty()),
                    content,
                    next,
                });
            }
            _ => {}
        }
    }
}

/// An item's server id (`rs_…`, `msg_…`, `fc_…`), when it has a non-empty one.
fn server_id<'a>(item: &'a Tree) -> Option<&'a str> {
    str_at(item, "id").filter(|id| !id.is_empty())
}

/// What the item `item` at `loc` is, as the item after a reasoning item.
fn follower(item: &Tree, loc: &Loc) -> AfterReasoning {
    let kind = str_at(item, "type").unwrap_or("message");
    let named = |label: String| Follower {
        loc: loc.clone(),
        label,
    };
    let output = match kind {
        "reasoning" => return AfterReasoning::Reasoning(named("`reasoning` item".into())),
        "item_reference" => return AfterReasoning::Reference,
        "message" => match str_at(item, "role") {
            Some("assistant") => true,
            Some(role) => return AfterReasoning::Input(named(format!("{role} message"))),
            None => return AfterReasoning::Unknown,
        },
        // A server-side tool search's output is the model's own item.
        "tool_search_output" => str_at(item, "execution") == Some("server"),
        "mcp_list_tools" | "mcp_approval_request" => true,
        "mcp_approval_response" => false,
        k if k.ends_with("_output") => false,
        k if k.ends_with("_call") => true,
        _ => return AfterReasoning::Unknown,
    };
    let label = match kind {
        "message" => "assistant message".to_string(),
        other => format!("`{other}` item"),
    };
    match (output, server_id(item)) {
        (true, Some(_)) => AfterReasoning::OutputWithId,
        (true, None) => AfterReasoning::OutputWithoutId(named(label)),
        (false, _) => AfterReasoning::Input(named(label)),
    }
}

fn read_items(items: &[Tree], loc: &Loc, conv: &mut Conversation) {
    for (i, item) in items.iter().enumerate() {
        read_item(item, loc.child(i), conv);
    }
}

/// Reads one Responses item (also a Codex `response_item` payload) into `conv`. Adjacent
/// items of one role form one turn: a model turn is its reasoning, messages and calls; the
/// outputs that follow are one tool turn. Unknown item types are skipped.
pub(crate) fn read_item(item: &Tree, loc: Loc, conv: &mut Conversation) {
    if !item.is_object() {
        return;
    }
    let kind = str_at(item, "type").unwrap_or("message");
    match kind {
        "message" => {
            let role = match str_at(item, "role") {
                Some("assistant") => Role::Assistant,
                Some("user") => Role::User,
                Some(_) => Role::System,
                None => return,
            };
            let text_loc = if item.get("content").is_some() {
                loc.child("content")
            } else {
                loc.clone()
            };
            push_text(conv, role, text_loc, &loc);
        }
        "reasoning" => {
            conv.reasoning.carried.push(loc.clone());
            push_text(conv, Role::Assistant, loc.clone(), &loc);
        }
        // Remote compaction summaries (Responses `compaction`, Codex `compaction_summary`).
        "compaction" | "compaction_summary" => push_text(conv, Role::System, loc.clone(), &loc),
        // Points at an item stored on the server, which may be a call this file never shows.
        "item_reference" => conv.server_history = true,
        "function_call" => {
            // An item id (`fc_…`) ties the call to the reasoning item that produced it.
            if str_at(item, "id").is_some() {
                conv.reasoning.linked_calls.push(loc.clone());
            }
            let args = item.get("arguments");
            let arguments = match args {
                None | Some(Tree::Null) => Arguments::Absent,
                Some(Tree::String(s)) => Arguments::Encoded(s.to_string()),
                Some(other) => Arguments::value(other.to_serde()),
            };
            push_call(conv, item, loc, CallKind::Function, arguments, "arguments");
        }
        "custom_tool_call" => {
            let input = item.get("input").map_or(Json::Null, Tree::to_serde);
            let arguments = Arguments::value(input);
            push_call(conv, item, loc, CallKind::FreeText, arguments, "input");
        }
        "computer_call" | "local_shell_call" | "shell_call" | "apply_patch_call" => {
            let field = if kind == "apply_patch_call" {
                "operation"
            } else {
                "action"
            };
            let arguments =
                Arguments::value(item.get(field).map_or_else(|| json!({}), Tree::to_serde));
            push_call(conv, item, loc, CallKind::Function, arguments, field);
        }
        "tool_search_call" => {
            let arguments = Arguments::value(
                item.get("arguments")
                    .map_or_else(|| json!({}), Tree::to_serde),
            );
            let kind = if str_at(item, "execution") == Some("server") {
                CallKind::ProviderExecuted
            } else {
                CallKind::Function
            };
            push_call(conv, item, loc, kind, arguments, "arguments");
        }
        "web_search_call"
        | "file_search_call"
        | "code_interpreter_call"
        | "image_generation_call"
        | "mcp_call" => {
            let (arguments, field) = match item.get("arguments") {
                Some(Tree::String(s)) => (Arguments::Encoded(s.to_string()), "arguments"),
                _ => match item.get("action").filter(|a| a.is_object()) {
                    Some(action) => (Arguments::value(action.to_serde()), "action"),
                    None => (Arguments::value(json!({})), ""),
                },
            };
            push_call(
                conv,
                item,
                loc,
                CallKind::ProviderExecuted,
                arguments,
                field,
            );
        }
        "function_call_output"
        | "custom_tool_call_output"
        | "computer_call_output"
        | "local_shell_call_output"
        | "shell_call_output"
        | "apply_patch_call_output"
        | "tool_search_output" => push_result(conv, item, kind, loc),
        _ => {}
    }
}

fn push_text(conv: &mut Conversation, role: Role, loc: Loc, item_loc: &Loc) {
    let text = Text {
        loc,
        message: item_loc.clone(),
    };
    conv.push(role, item_loc, Item::Text(text));
}

/// The call's name as tools declare it: built-ins are named by their tool type, the declared
/// variant when there is one (`computer_call` answers `computer` or `computer_use_preview`).
fn call_name(item: &Tree, kind: &str, tools: &[ToolDef]) -> String {
    if let Some(name) = str_at(item, "name") {
        return name.to_string();
    }
    let base = kind.strip_suffix("_call").unwrap_or(kind);
    tools
        .iter()
        .find(|t| t.builtin && t.name.starts_with(base))
        .map_or(base, |t| t.name.as_str())
        .to_string()
}

fn push_call(
    conv: &mut Conversation,
    item: &Tree,
    loc: Loc,
    kind: CallKind,
    arguments: Arguments,
    args_field: &str,
) {
    let item_type = str_at(item, "type").unwrap_or_default();
    // Provider-executed items have no `call_id`; their item id names them. `local_shell_call`
    // carries its `id` alone when it came through Chat Completions (Codex).
    let id = str_at(item, "call_id")
        .or_else(|| {
            (kind == CallKind::ProviderExecuted || item_type == "local_shell_call")
                .then(|| str_at(item, "id"))
                .flatten()
        })
        .map(str::to_string);
    let key = match (&id, kind) {
        (Some(id), CallKind::Function | CallKind::FreeText) => id.clone(),
        _ => pairing_key(None, &loc),
    };
    let args_loc = if !args_field.is_empty() && item.get(args_field).is_some() {
        loc.child(args_field)
    } else {
        loc.clone()
    };
    let call = ToolCall {
        id,
        key,
        name: call_name(item, item_type, &conv.tools),
        kind,
        arguments,
        args_loc,
        message: loc.clone(),
        loc: loc.clone(),
    };
    conv.push(Role::Assistant, &loc, Item::Call(call));
}

fn push_result(conv: &mut Conversation, item: &Tree, kind: &str, loc: Loc) {
    // Early `local_shell_call_output`s named the call by `id`.
    let call_id = str_at(item, "call_id")
        .or_else(|| {
            (kind == "local_shell_call_output")
                .then(|| str_at(item, "id"))
                .flatten()
        })
        .map(str::to_string);
    let output = item.get("output").unwrap_or(&Tree::Null);
    let (is_error, text) = match output {
        // Codex rollouts: `{content, success}`, where `success: false` is the error flag.
        Tree::Object(map) if map.contains_key("content") && !map.contains_key("type") => {
            let content = map.get("content").unwrap_or(&Tree::Null);
            let failed = match map.get("success").and_then(Tree::as_bool) {
                Some(success) => !success,
                None => looks_like_error(content),
            };
            (failed, result_text(content))
        }
        other => (looks_like_error(other), result_text(other)),
    };
    let is_error = is_error
        || str_at(item, "status") == Some("failed")
        || opens_with_any(&text, AGENTS_SDK_FAILURES);
    let result = ToolResult {
        key: pairing_key(call_id.as_deref(), &loc),
        call_id,
        name: None,
        is_error,
        // Read to tell a failure; held only where rules read it.
        text: failed_text(is_error, || text),
        provider_executed: kind == "tool_search_output"
            && str_at(item, "execution") == Some("server"),
        id_field: None,
        message: loc.clone(),
        loc: loc.clone(),
    };
    conv.push(Role::Tool, &loc, Item::Result(result));
}

/// Reads `tools`: flat function tools, custom tools, built-ins (named by their type), and
/// chat-style nested `{type: "function", function: {...}}` definitions, which are read as
/// written (whether they are acceptable is for the rules to say).
fn read_tools(container: &Tree, root: &Loc, conv: &mut Conversation) {
    for (k, tool) in array_at(container, "tools")
        .into_iter()
        .flatten()
        .enumerate()
    {
        let loc = root.child(("tools", k));
        let kind = str_at(tool, "type").unwrap_or("function");
        let (body, body_loc) = match tool.get("function").filter(|f| f.is_object()) {
            Some(function) if kind == "function" => (function, loc.child("function")),
            _ => (tool, loc.clone()),
        };
        let (name, schema, builtin) = match kind {
            "function" => (str_at(body, "name"), body.get("parameters"), false),
            "custom" => (str_at(body, "name"), None, false),
            other => (Some(other), None, true),
        };
        let Some(name) = name else {
            continue;
        };
        conv.tools.push(ToolDef {
            strict: body.get("strict").and_then(Tree::as_bool) == Some(true),
            builtin,
            ..ToolDef::declared(name, schema, loc, body_loc.child("parameters"))
        });
    }
}

/// The output item answering the call item `call` with an error saying `text`, for the
/// call types whose output can carry text. Shared with Codex.
pub(crate) fn output_item(call: &Tree, text: &str) -> Option<Json> {
    let call_id = str_at(call, "call_id")?;
    match str_at(call, "type")? {
        "function_call" => {
            Some(json!({"type": "function_call_output", "call_id": call_id, "output": text}))
        }
        "custom_tool_call" => {
            Some(json!({"type": "custom_tool_call_output", "call_id": call_id, "output": text}))
        }
        "apply_patch_call" => Some(
            json!({"type": "apply_patch_call_output", "call_id": call_id, "status": "failed", "output": text}),
        ),
        // Screenshots and structured shell outputs cannot be faked with text.
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::tree_json;

    use super::*;
    use crate::lint::{lint_str, Outcome};

    fn codes(name: &str, text: &str) -> Vec<String> {
        lint_str(name, text).codes()
    }

    fn detected(value: &Tree) -> Option<Format> {
        crate::formats::detect(value).map(|a| a.format())
    }

    fn normalise(value: &Tree) -> Conversation {
        let docs = [Doc { base: 0, value }];
        let mut convs = OpenAiResponses.normalise(&docs).unwrap_or_default();
        assert_eq!(convs.len(), 1);
        convs.remove(0)
    }

    #[test]
    fn clean_fixtures_have_no_findings() {
        for (name, text) in [
            (
                "clean-request.json",
                include_str!("../../../../fixtures/openai-responses/clean-request.json"),
            ),
            (
                "clean-response.json",
                include_str!("../../../../fixtures/openai-responses/clean-response.json"),
            ),
            (
                "clean-chained.json",
                include_str!("../../../../fixtures/openai-responses/clean-chained.json"),
            ),
            (
                "clean-nemo-gym.jsonl",
                include_str!("../../../../fixtures/openai-responses/clean-nemo-gym.jsonl"),
            ),
        ] {
            let report = lint_str(name, text);
            assert_eq!(report.codes(), Vec::<String>::new(), "{name}");
            assert_eq!(
                report.outcome,
                Outcome::Checked(vec![Format::OpenAiResponses]),
                "{name}"
            );
        }
    }

    #[test]
    fn broken_pairing() {
        // The output names the `fc_…` item id instead of the `call_id`: orphaned, and its
        // call is unanswered; the second call is abandoned for a user message.
        assert_eq!(
            codes(
                "broken-pairing.json",
                include_str!("../../../../fixtures/openai-responses/broken-pairing.json")
            ),
            ["TC102@36:5", "TC101@43:5", "TC102@48:5"]
        );
    }

    #[test]
    fn broken_duplicates() {
        assert_eq!(
            codes(
                "broken-duplicates.json",
                include_str!("../../../../fixtures/openai-responses/broken-duplicates.json")
            ),
            ["TC104@15:5", "TC105@44:5"]
        );
    }

    #[test]
    fn broken_arguments() {
        // The free-text `custom_tool_call` input is not JSON and is not reported.
        assert_eq!(
            codes(
                "broken-arguments.json",
                include_str!("../../../../fixtures/openai-responses/broken-arguments.json")
            ),
            ["TC201@44:20", "TC202@51:20", "TC203@58:20"]
        );
    }

    #[test]
    fn detection() {
        let responses = Some(Format::OpenAiResponses);
        assert_eq!(
            detected(
                &tree_json!({"input": [{"type": "function_call_output", "call_id": "c", "output": "1"}]})
            ),
            responses
        );
        assert_eq!(
            detected(&tree_json!({"model": "gpt-5", "input": [{"role": "user", "content": "hi"}]})),
            responses
        );
        assert_eq!(
            detected(&tree_json!({"instructions": "Be brief.", "input": "hi"})),
            responses
        );
        assert_eq!(
            detected(&tree_json!({"object": "response", "output": []})),
            responses
        );
        assert_eq!(
            detected(
                &tree_json!([{"role": "user", "content": "hi"}, {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}])
            ),
            responses
        );
        // Chat preference records, plain message arrays and embeddings requests are not ours.
        assert_eq!(
            detected(
                &tree_json!({"input": {"messages": [{"role": "user", "content": "hi"}]}, "preferred_output": []})
            ),
            Some(Format::OpenAiChat)
        );
        assert_eq!(
            detected(&tree_json!([{"role": "user", "content": "hi"}])),
            Some(Format::OpenAiChat)
        );
        assert_eq!(
            detected(&tree_json!({"model": "text-embedding-3-small", "input": ["a", "b"]})),
            None
        );
        assert_eq!(
            detected(&tree_json!({"model": "text-embedding-3-small", "input": "a"})),
            None
        );
    }

    #[test]
    fn server_history_excuses_outputs_without_calls() {
        let output = tree_json!({"type": "function_call_output", "call_id": "call_1", "output": "ok"});
        for doc in [
            tree_json!({"previous_response_id": "resp_1", "input": [output]}),
            tree_json!({"conversation": {"id": "conv_1"}, "input": [output]}),
            tree_json!({"model": "gpt-5", "input": [{"type": "item_reference", "id": "fc_1"}, output]}),
        ] {
            assert!(normalise(&doc).server_history, "{doc}");
            assert_eq!(codes("x.json", &doc.to_string()), Vec::<String>::new());
        }
        // `previous_response_id: null` in a saved response is not a chain.
        let doc = tree_json!({"object": "response", "previous_response_id": null, "output": [output]});
        assert_eq!(codes("x.json", &doc.to_string()), ["TC101@1:60"]);
    }

    #[test]
    fn trailing_calls_are_fine_but_a_call_left_behind_is_not() {
        let call = |id: &str| tree_json!({"type": "function_call", "call_id": id, "name": "f", "arguments": "{}"});
        let output =
            |id: &str| tree_json!({"type": "function_call_output", "call_id": id, "output": "ok"});
        let doc = tree_json!({"input": [call("a"), call("b")]});
        assert_eq!(codes("x.json", &doc.to_string()), Vec::<String>::new());
        let doc = tree_json!({"input": [call("a"), call("b"), output("a")]});
        assert_eq!(codes("x.json", &doc.to_string()), ["TC102@1:78"]);
    }

    #[test]
    fn provider_executed_items_are_not_paired() {
        let doc = tree_json!({"input": [
            {"role": "user", "content": "search"},
            {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "q"}},
            {"type": "file_search_call", "id": "fs_1", "status": "completed", "queries": ["q"]},
            {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": null},
            {"type": "mcp_call", "id": "mcp_1", "server_label": "docs", "name": "lookup", "arguments": "{\"q\": 1}", "output": "x"},
            {"type": "tool_search_call", "id": "ts_1", "execution": "server", "arguments": {"query": "q"}},
            {"type": "tool_search_output", "id": "tso_1", "execution": "server", "tools": []},
            {"role": "user", "content": "thanks"}
        ]});
        assert_eq!(codes("x.json", &doc.to_string()), Vec::<String>::new());
        let conv = normalise(&doc);
        assert!(conv
            .calls()
            .all(|(_, c)| c.kind == CallKind::ProviderExecuted));
        // An `mcp_call` with broken arguments is still reported.
        let doc = tree_json!({"input": [{"type": "mcp_call", "id": "mcp_1", "server_label": "docs",
            "name": "lookup", "arguments": "{\"q\": ", "output": "x"}]});
        assert_eq!(codes("x.json", &doc.to_string()), ["TC201@1:93"]);
    }

    #[test]
    fn builtin_client_calls_pair_with_their_outputs() {
        let doc = tree_json!({"input": [
            {"type": "computer_call", "id": "cu_1", "call_id": "call_c", "status": "completed",
             "action": {"type": "click", "x": 10, "y": 20, "button": "left"}, "pending_safety_checks": []},
            {"type": "local_shell_call", "id": "lsh_1", "call_id": "call_l", "status": "completed",
             "action": {"type": "exec", "command": ["ls"], "env": {}}},
            {"type": "apply_patch_call", "call_id": "call_p", "status": "completed",
             "operation": {"type": "update_file", "path": "a.txt", "diff": "@@\n-a\n+b"}},
            {"type": "tool_search_call", "call_id": "call_t", "execution": "client", "arguments": {"query": "db"}},
            {"type": "computer_call_output", "call_id": "call_c",
             "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,AAAA"}},
            {"type": "local_shell_call_output", "id": "call_l", "output": "a.txt"},
            {"type": "apply_patch_call_output", "call_id": "call_p", "status": "failed", "output": "context mismatch"},
            {"type": "tool_search_output", "call_id": "call_t", "execution": "client", "tools": []},
            {"role": "user", "content": "go on"}
        ]});
        let mut with_tools = doc.to_serde();
        with_tools["tools"] = serde_json::json!([{"type": "computer_use_preview", "display_width": 1024,
            "display_height": 768, "environment": "browser"}]);
        let conv = normalise(&Tree::from_serde(&with_tools));
        let (_, computer) = conv.calls().next().unwrap_or_else(|| panic!("no call"));
        assert_eq!(computer.name, "computer_use_preview");
        assert_eq!(codes("x.json", &doc.to_string()), Vec::<String>::new());
        let conv = normalise(&doc);
        let names: Vec<&str> = conv.calls().map(|(_, c)| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["computer", "local_shell", "apply_patch", "tool_search"]
        );
        let errors: Vec<bool> = conv.results().map(|(_, r)| r.is_error).collect();
        assert_eq!(errors, [false, false, true, false]);
    }

    #[test]
    fn reads_tools() {
        let doc = tree_json!({"input": "hi", "tools": [
            {"type": "function", "name": "f", "parameters": {"type": "object"}, "strict": true},
            {"type": "function", "function": {"name": "nested", "parameters": {"type": "object"}}},
            {"type": "custom", "name": "grammar_tool", "format": {"type": "text"}},
            {"type": "web_search_preview"},
            {"type": "mcp", "server_label": "docs", "server_url": "https://mcp.example.com"}
        ]});
        let conv = normalise(&doc);
        let tools: Vec<(&str, bool, bool, &str)> = conv
            .tools
            .iter()
            .map(|t| {
                (
                    t.name.as_str(),
                    t.strict,
                    t.builtin,
                    t.schema_loc.pointer.as_str(),
                )
            })
            .collect();
        assert_eq!(
            tools,
            [
                ("f", true, false, "/tools/0/parameters"),
                ("nested", false, false, "/tools/1/function/parameters"),
                ("grammar_tool", false, false, "/tools/2"),
                ("web_search_preview", false, true, "/tools/3"),
                ("mcp", false, true, "/tools/4"),
            ]
        );
        assert!(conv.tools[2].schema.is_none());
    }

    #[test]
    fn records_what_follows_reasoning_items_in_the_input_only() {
        let doc = tree_json!({"store": false, "input": [
            {"type": "reasoning", "id": "rs_1", "encrypted_content": "gA", "summary": []},
            {"type": "message", "role": "assistant", "id": "msg_1", "content": []},
            {"type": "reasoning", "id": "", "summary": [], "content": [{"type": "reasoning_text", "text": "t"}]},
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c", "output": "ok"},
            {"type": "reasoning", "id": "rs_3", "summary": [], "content": []},
            {"role": "developer", "content": "be brief"},
            {"type": "reasoning", "id": "rs_4", "summary": []},
            {"type": "item_reference", "id": "msg_9"},
            {"type": "reasoning", "id": "rs_5", "summary": []},
            {"type": "reasoning", "id": "rs_6", "summary": []}
        ], "output": [{"type": "reasoning", "id": "rs_out", "summary": []}]});
        let conv = normalise(&doc);
        assert_eq!(conv.stored.store, Some(false));
        let refs: Vec<(&str, Option<&str>)> = conv
            .stored
            .references
            .iter()
            .map(|(loc, id)| (loc.pointer.as_str(), id.as_deref()))
            .collect();
        assert_eq!(refs, [("/input/8", Some("msg_9"))]);
        let items: Vec<_> = conv
            .reasoning
            .items
            .iter()
            .map(|r| {
                let content = r.content.as_ref().map(|c| c.pointer.as_str());
                (r.loc.pointer.as_str(), r.id.as_deref(), r.encrypted, content)
            })
            .collect();
        assert_eq!(
            items,
            [
                ("/input/0", Some("rs_1"), true, None),
                ("/input/2", None, false, Some("/input/2/content")),
                ("/input/5", Some("rs_3"), false, None),
                ("/input/7", Some("rs_4"), false, None),
                ("/input/9", Some("rs_5"), false, None),
                ("/input/10", Some("rs_6"), false, None),
            ]
        );
        let follower = |pointer: &str, label: &str| Follower {
            loc: Loc::new(0, pointer),
            label: label.into(),
        };
        let next: Vec<AfterReasoning> = conv.reasoning.items.iter().map(|r| r.next.clone()).collect();
        assert_eq!(
            next,
            [
                AfterReasoning::OutputWithId,
                AfterReasoning::OutputWithoutId(follower("/input/3", "`function_call` item")),
                AfterReasoning::Input(follower("/input/6", "developer message")),
                AfterReasoning::Reference,
                AfterReasoning::Reasoning(follower("/input/10", "`reasoning` item")),
                AfterReasoning::Nothing,
            ]
        );
        // `store` is read as written: absent or not a boolean is `None`.
        assert_eq!(normalise(&tree_json!({"input": []})).stored.store, None);
        assert_eq!(
            normalise(&tree_json!({"store": "false", "input": []})).stored.store,
            None
        );
    }

    #[test]
    fn nemo_gym_locations() {
        let doc = tree_json!({"responses_create_params": {"input": [{"role": "user", "content": "q"}],
            "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}}]},
            "response": {"output": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": "{"}]}});
        let conv = normalise(&doc);
        assert_eq!(
            conv.tools[0].loc.pointer,
            "/responses_create_params/tools/0"
        );
        let (_, call) = conv.calls().next().unwrap_or_else(|| panic!("no call"));
        assert_eq!(call.args_loc.pointer, "/response/output/0/arguments");
    }
}
