//! OpenAI Chat Completions: request bodies, bare message arrays, fine-tuning and batch JSONL
//! records. Also Ollama, Mistral and other OpenAI-compatible logs (arguments may be objects).
//!
//! Shapes: assistant `tool_calls[].function.{name, arguments: S}` and legacy `function_call`;
//! results are `role: "tool"` messages with `tool_call_id` (legacy: `role: "function"`, linked
//! by name and order). Tools live in `tools[].function.parameters` or legacy `functions`.
//! OpenAI merges nothing: tool messages must directly follow the assistant message.
//!
//! Tool messages carry no error flag: one is a failure when its content is an error object,
//! opens with `Error`/`error:` or an `Error:`-style label (`DB Error:`), or opens with the text
//! the OpenAI Agents SDK writes for a failed tool when it runs on Chat Completions ("An error
//! occurred while running the tool. Please try again.", see `AGENTS_SDK_FAILURES`).

use serde_json::{json, Value as Json};

use super::{
    all_have_role, array_at, blocks, has_text, opens_with_any, str_at, Adapter, CallSite, Dialect,
    Doc, Format, Taken, AGENTS_SDK_FAILURES,
};
use crate::transcript::{
    failed_text, looks_like_error, pairing_key, result_text, Arguments, CallKind, Conversation,
    MissingId,
    Item, Loc, Pairing, ReasoningKind, Role, Text, ToolCall, ToolDef, ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain openai-chat` prints (Markdown).
pub(super) const DOC: &str = r#"Chat Completions requests, bare message arrays, fine-tuning, preference and batch JSONL, legacy `function_call`, Ollama/Mistral-style object arguments"#;

pub struct OpenAiChat;

impl Dialect for OpenAiChat {
    fn interrupted_result(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        let call = site.call;
        // Legacy `function_call`s are answered by a `function` message, id-less calls by
        // name (Ollama's `tool_name`), the rest by `tool_call_id`.
        Some(match &call.id {
            Some(id) => json!({"role": "tool", "tool_call_id": id, "content": text}),
            None if call.loc.pointer.ends_with("/function_call") => {
                json!({"role": "function", "name": call.name, "content": text})
            }
            None => json!({"role": "tool", "tool_name": call.name, "content": text}),
        })
    }
}

impl Adapter for OpenAiChat {
    fn format(&self) -> Format {
        Format::OpenAiChat
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        let (_, messages) = locate_messages(doc)?;
        if messages.is_empty() {
            // `{"messages": []}` is an empty request (what remains after fixing away an
            // orphan-only history); a bare `[]` says nothing.
            return doc.is_object().then_some(5);
        }
        if !all_have_role(messages) {
            return None;
        }
        let openai_only = messages.iter().any(|m| {
            matches!(
                str_at(m, "role"),
                Some("system" | "developer" | "tool" | "function")
            ) || m.get("tool_calls").is_some()
                || m.get("function_call").is_some()
        });
        // Anthropic `tool_use`/`tool_result` blocks beside a `system` message are an
        // Anthropic request with a mid-conversation system message, not an OpenAI one.
        let anthropic_blocks = messages
            .iter()
            .flat_map(blocks)
            .any(|b| matches!(str_at(b, "type"), Some("tool_use" | "tool_result")));
        let openai_tools = messages.iter().any(|m| {
            matches!(str_at(m, "role"), Some("tool" | "function"))
                || m.get("tool_calls").is_some()
                || m.get("function_call").is_some()
        });
        Some(if openai_only && (openai_tools || !anthropic_blocks) {
            60
        } else {
            20
        })
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        docs.iter().map(normalise_doc).collect()
    }

    fn normalise_taking<'a>(
        &self,
        base: usize,
        doc: &mut Tree<'a>,
        visit: Taken<'_, 'a>,
    ) -> Option<Result<Vec<Conversation>, String>> {
        Some(normalise_taking(base, doc, visit).map(|conv| vec![conv]))
    }
}

/// Where the messages are: `messages`, a batch line's `body.messages`, a preference record's
/// `input.messages`, or a bare array.
fn locate_messages<'a>(doc: &'a Tree<'a>) -> Option<(&'static str, &'a Vec<Tree<'a>>)> {
    if let Some(messages) = array_at(doc, "messages") {
        return Some(("", messages));
    }
    if let Some(messages) = doc.get("body").and_then(|b| array_at(b, "messages")) {
        return Some(("/body", messages));
    }
    if let Some(messages) = doc.get("input").and_then(|b| array_at(b, "messages")) {
        return Some(("/input", messages));
    }
    doc.as_array().map(|a| ("", a))
}

/// The list `locate_messages` found at `prefix`, to take its messages from.
fn messages_mut<'d, 'a>(doc: &'d mut Tree<'a>, prefix: &str) -> Option<&'d mut Vec<Tree<'a>>> {
    match prefix {
        "" if doc.is_array() => doc.as_array_mut(),
        "" => doc.get_mut("messages")?.as_array_mut(),
        _ => doc
            .get_mut(prefix.trim_start_matches('/'))?
            .get_mut("messages")?
            .as_array_mut(),
    }
}

fn normalise_doc(doc: &Doc<'_>) -> Result<Conversation, String> {
    let (prefix, messages) = locate_messages(doc.value).ok_or(NO_MESSAGES)?;
    let (mut conv, messages_loc) = open_doc(doc, prefix, messages)?;
    // Legacy `function_call`s and id-less calls (Ollama) are answered by name and order.
    let mut pending_by_name: Vec<(String, String)> = Vec::new();
    let read = |conv: &mut Conversation, message: &Tree<'_>, mloc: &Loc| {
        read_message(conv, message, mloc, &mut pending_by_name);
        Ok(())
    };
    super::adapter::read_messages(&mut conv, messages, &messages_loc, read)?;
    Ok(conv)
}

/// [`normalise_doc`], taking each message out of the list once read (see
/// `Adapter::normalise_taking`).
fn normalise_taking<'a>(
    base: usize,
    doc: &mut Tree<'a>,
    visit: Taken<'_, 'a>,
) -> Result<Conversation, String> {
    let (prefix, mut conv, messages_loc) = {
        let doc = Doc { base, value: doc };
        let (prefix, messages) = locate_messages(doc.value).ok_or(NO_MESSAGES)?;
        let (conv, messages_loc) = open_doc(&doc, prefix, messages)?;
        (prefix, conv, messages_loc)
    };
    let messages = messages_mut(doc, prefix).ok_or(NO_MESSAGES)?;
    let mut pending_by_name: Vec<(String, String)> = Vec::new();
    let read = |conv: &mut Conversation, message: &Tree<'a>, mloc: &Loc| {
        read_message(conv, message, mloc, &mut pending_by_name);
        Ok(())
    };
    super::adapter::take_messages(&mut conv, messages, &messages_loc, visit, read)?;
    Ok(conv)
}

const NO_MESSAGES: &str =
    "expected a `messages` array of chat messages or a bare array of messages";

/// The conversation of `doc` before its `messages` (at `prefix`) are read: its tools and
/// options, and where its message list is.
fn open_doc(
    doc: &Doc<'_>,
    prefix: &'static str,
    messages: &[Tree<'_>],
) -> Result<(Conversation, Loc), String> {
    if !messages.is_empty() && !all_have_role(messages) {
        return Err("expected every message to have a `role`".into());
    }
    let root = Loc::new(doc.base, prefix);
    let is_array = doc.value.is_array();
    let messages_loc = if is_array {
        root.clone()
    } else {
        root.child("messages")
    };
    let mut conv = Conversation::new(Format::OpenAiChat, root.clone(), Pairing::NextTurn);
    if !is_array {
        let container = if prefix.is_empty() {
            doc.value
        } else {
            doc.value.get(&prefix[1..]).unwrap_or(doc.value)
        };
        read_tools(container, &root, &mut conv);
        read_options(container, &mut conv);
    }
    conv.reasoning.kind = Some(ReasoningKind::ReasoningContent);
    Ok((conv, messages_loc))
}

/// Reads one message, at `mloc`, into the conversation.
fn read_message(
    conv: &mut Conversation,
    message: &Tree<'_>,
    mloc: &Loc,
    pending_by_name: &mut Vec<(String, String)>,
) {
    let role = match str_at(message, "role") {
        Some("assistant") => Role::Assistant,
        Some("tool" | "function") => Role::Tool,
        Some("user") => Role::User,
        _ => Role::System,
    };
    match role {
        Role::Tool => {
            // Consecutive tool messages form one turn.
            let call_id = str_at(message, "tool_call_id").map(str::to_string);
            if call_id.is_none()
                && str_at(message, "role") == Some("tool")
                && message.get("tool_name").is_none()
            {
                conv.shapes
                    .missing_ids
                    .push((mloc.clone(), MissingId::Result));
            }
            let name = str_at(message, "name")
                .or_else(|| str_at(message, "tool_name"))
                .map(str::to_string);
            let key = match &call_id {
                Some(id) => id.clone(),
                None => take_pending(pending_by_name, name.as_deref())
                    .unwrap_or_else(|| pairing_key(None, mloc)),
            };
            let content = message.get("content").unwrap_or(&Tree::Null);
            let text = result_text(content);
            let is_error =
                looks_like_error(content) || opens_with_any(&text, AGENTS_SDK_FAILURES);
            let result = ToolResult {
                id_field: call_id.is_some().then_some("tool_call_id"),
                call_id,
                key,
                name,
                is_error,
                text: failed_text(is_error, || text),
                provider_executed: false,
                loc: mloc.clone(),
                message: mloc.clone(),
            };
            conv.push(Role::Tool, mloc, Item::Result(result));
        }
        _ => {
            conv.start_turn(role, mloc.clone());
            if role == Role::Assistant {
                pending_by_name.clear();
            }
            if has_text(message.get("content")) {
                conv.push_to_last(Item::Text(Text {
                    loc: mloc.child("content"),
                    message: mloc.clone(),
                }));
            }
            if role != Role::Assistant {
                return;
            }
            if message
                .get("reasoning_content")
                .is_some_and(Tree::is_string)
            {
                conv.reasoning.carried.push(mloc.clone());
            }
            for (j, call) in array_at(message, "tool_calls")
                .into_iter()
                .flatten()
                .enumerate()
            {
                let call = read_tool_call(call, mloc, j, pending_by_name);
                // Ollama writes id-less calls with object arguments, paired by name.
                if call.id.is_none() && matches!(call.arguments, Arguments::Encoded(_)) {
                    conv.shapes
                        .missing_ids
                        .push((call.loc.clone(), MissingId::Call));
                }
                conv.push_to_last(Item::Call(call));
            }
            let calls = array_at(message, "tool_calls");
            if calls.is_some_and(|c| c.is_empty()) {
                conv.shapes.empty_call_lists.push(mloc.child("tool_calls"));
            }
            let function_call = message.get("function_call").filter(|v| v.is_object());
            let no_content = matches!(message.get("content"), None | Some(Tree::Null));
            if no_content && calls.is_none_or(|c| c.is_empty()) && function_call.is_none() {
                conv.shapes.contentless.push(mloc.clone());
            }
            if let Some(fc) = function_call {
                let loc = mloc.child("function_call");
                let name = str_at(fc, "name").unwrap_or_default().to_string();
                let key = pairing_key(None, &loc);
                pending_by_name.push((name.clone(), key.clone()));
                conv.push_to_last(Item::Call(ToolCall {
                    id: None,
                    key,
                    name,
                    kind: CallKind::Function,
                    arguments: arguments(fc.get("arguments")),
                    args_loc: if fc.get("arguments").is_some() {
                        loc.child("arguments")
                    } else {
                        loc.clone()
                    },
                    loc,
                    message: mloc.clone(),
                }));
            }
        }
    }
}

/// The key of the pending id-less call answered by a result named `name` (the first pending
/// call when the result has no name). Shared with the LangChain adapter.
pub(crate) fn take_pending(
    pending: &mut Vec<(String, String)>,
    name: Option<&str>,
) -> Option<String> {
    let index = match name {
        Some(name) => pending.iter().position(|(n, _)| n == name)?,
        None if pending.is_empty() => return None,
        None => 0,
    };
    Some(pending.remove(index).1)
}

fn arguments(value: Option<&Tree>) -> Arguments {
    match value {
        None | Some(Tree::Null) => Arguments::Absent,
        Some(Tree::String(s)) => Arguments::Encoded(s.to_string()),
        // Ollama and some OpenAI-compatible servers send an object: that is their format.
        Some(other) => Arguments::value(other.to_serde()),
    }
}

/// A record that is one tool message answering its `tool_call_id`, named by its `tool_name`
/// where it has one (session formats that keep Chat Completions messages as records: Moltis,
/// Kimi, Hermes); `shown` is what its text is read from.
pub(crate) fn tool_record_result(record: &Tree, mloc: &Loc, is_error: bool, shown: &Tree) -> ToolResult {
    let call_id = str_at(record, "tool_call_id").map(str::to_string);
    ToolResult {
        key: pairing_key(call_id.as_deref(), mloc),
        call_id,
        name: str_at(record, "tool_name").map(str::to_string),
        is_error,
        text: result_text(shown),
        provider_executed: false,
        id_field: None,
        loc: mloc.clone(),
        message: mloc.clone(),
    }
}

/// Every OpenAI-shaped call of `record.tool_calls`, pushed to the conversation's last turn
/// (session formats that keep Chat Completions messages as records: Moltis, Kimi, Hermes).
pub(crate) fn push_tool_calls(conv: &mut Conversation, record: &Tree, mloc: &Loc) {
    let mut pending = Vec::new();
    for (j, call) in array_at(record, "tool_calls")
        .into_iter()
        .flatten()
        .enumerate()
    {
        let call = read_tool_call(call, mloc, j, &mut pending);
        conv.push_to_last(Item::Call(call));
    }
}

/// Reads one OpenAI `tool_calls[j]` of the message at `mloc`. Shared with the LangChain
/// adapter (`additional_kwargs.tool_calls`).
pub(crate) fn read_tool_call(
    call: &Tree,
    mloc: &Loc,
    j: usize,
    pending_by_name: &mut Vec<(String, String)>,
) -> ToolCall {
    let loc = mloc.child(("tool_calls", j));
    let id = str_at(call, "id").map(str::to_string);
    let custom = str_at(call, "type") == Some("custom");
    let body_key = if custom { "custom" } else { "function" };
    let body = call.get(body_key).unwrap_or(&Tree::Null);
    let name = str_at(body, "name").unwrap_or_default().to_string();
    let key = id.clone().unwrap_or_else(|| {
        let key = pairing_key(None, &loc);
        pending_by_name.push((name.clone(), key.clone()));
        key
    });
    let (kind, arguments, args_field) = if custom {
        (
            CallKind::FreeText,
            Arguments::value(body.get("input").map_or(Json::Null, Tree::to_serde)),
            "input",
        )
    } else {
        (
            CallKind::Function,
            arguments(body.get("arguments")),
            "arguments",
        )
    };
    let args_loc = if body.get(args_field).is_some() {
        loc.child((body_key, args_field))
    } else {
        loc.clone()
    };
    ToolCall {
        id,
        key,
        name,
        kind,
        arguments,
        loc,
        args_loc,
        message: mloc.clone(),
    }
}

/// Reads the model and what the request options say about thinking: `thinking: {type}`
/// (DeepSeek, Kimi; under `extra_body` as the OpenAI SDK sends it) and `reasoning_effort`.
fn read_options(container: &Tree, conv: &mut Conversation) {
    conv.model = str_at(container, "model").map(str::to_string);
    let thinking = container
        .get("thinking")
        .or_else(|| container.get("extra_body").and_then(|b| b.get("thinking")))
        .and_then(|t| str_at(t, "type"));
    conv.reasoning.requested = match thinking {
        Some("enabled") => Some(true),
        Some("disabled") => Some(false),
        _ => match str_at(container, "reasoning_effort") {
            Some("none") => Some(false),
            Some(_) => Some(true),
            None => None,
        },
    };
}

/// Reads `tools` (function and custom tools) and legacy `functions`.
fn read_tools(container: &Tree, root: &Loc, conv: &mut Conversation) {
    for (k, tool) in array_at(container, "tools")
        .into_iter()
        .flatten()
        .enumerate()
    {
        let loc = root.child(("tools", k));
        match str_at(tool, "type") {
            Some("custom") => {
                let name = tool.get("custom").and_then(|c| str_at(c, "name"));
                if let Some(name) = name {
                    conv.tools
                        .push(tool_def(name, None, false, loc.clone(), loc));
                }
            }
            _ => {
                let Some(function) = tool.get("function") else {
                    continue;
                };
                let Some(name) = str_at(function, "name") else {
                    continue;
                };
                let strict = function.get("strict").and_then(Tree::as_bool) == Some(true);
                let schema_loc = loc.child(("function", "parameters"));
                conv.tools.push(tool_def(
                    name,
                    function.get("parameters"),
                    strict,
                    loc,
                    schema_loc,
                ));
            }
        }
    }
    for (k, function) in array_at(container, "functions")
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(name) = str_at(function, "name") {
            let loc = root.child(("functions", k));
            let schema_loc = loc.child("parameters");
            conv.tools.push(tool_def(
                name,
                function.get("parameters"),
                false,
                loc,
                schema_loc,
            ));
        }
    }
}

fn tool_def(name: &str, schema: Option<&Tree>, strict: bool, loc: Loc, schema_loc: Loc) -> ToolDef {
    ToolDef {
        strict,
        ..ToolDef::declared(name, schema, loc, schema_loc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree_json;

    /// Only a failed result keeps its text (what `repeated-failing-call` compares); a result
    /// that did not fail keeps none.
    #[test]
    fn only_failed_results_keep_their_text() {
        let value = tree_json!({"messages": [
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ]},
            {"role": "tool", "tool_call_id": "a", "content": "Error: the disk is full"},
            {"role": "tool", "tool_call_id": "b", "content": "18C and sunny"}
        ]});
        let convs = OpenAiChat
            .normalise(&[Doc {
                base: 0,
                value: &value,
            }])
            .unwrap_or_default();
        let results: Vec<(bool, &str)> = convs
            .iter()
            .flat_map(|c| c.results())
            .map(|(_, r)| (r.is_error, r.text.as_str()))
            .collect();
        assert_eq!(
            results,
            [(true, "Error: the disk is full"), (false, "")],
            "{convs:#?}"
        );
    }
}
