//! LangChain message dumps: `messages_to_dict` (`{type: "ai", data: {...}}`, chat-history
//! stores), `dumpd` (`{lc: 1, type: "constructor", id: [..., "AIMessage"], kwargs: {...}}`,
//! LangGraph state and LangSmith runs), and pydantic `model_dump()` (`{type: "ai", content,
//! additional_kwargs, ...}` flat, as LangGraph's API streams messages).
//!
//! Where the messages are: a bare array, `messages` (LangGraph state), `values.messages` (a
//! state snapshot) or `inputs.messages` (a LangSmith chat-model run); a `messages` array of
//! arrays holds one conversation per inner array (LangSmith batches).
//!
//! Calls: AI message `tool_calls[] {name, args: O, id}` and `invalid_tool_calls[] {name, args:
//! S | null, id, error}` (arguments that failed to parse). The provider-raw copy in
//! `additional_kwargs.tool_calls` (OpenAI shape, `arguments: S`) is read only when neither
//! list has anything (old Python dumps, LangChain.js stored messages); a legacy
//! `additional_kwargs.function_call` likewise. Anthropic `tool_use` blocks in `content` are
//! duplicates of `tool_calls` and read as text.
//!
//! Results: ToolMessage `{content, tool_call_id, status}` with `status: "error"` as the error
//! flag (its default, "success", is left out of `dumpd` output; dumps older than the field fall
//! back to the content, which LangGraph's ToolNode starts with `Error:`). FunctionMessage has
//! only `name` and is paired by name and order, as OpenAI's legacy function role is.
//!
//! Histories are replayed to OpenAI-compatible providers, so turns are OpenAI's: every
//! non-tool message starts a turn, and consecutive tool messages form one.

use serde_json::{json, Value as Json};

use super::openai_chat::{read_tool_call, take_pending};
use super::{array_at, has_text, str_at, Adapter, CallSite, Dialect, Doc, Format};
use crate::transcript::{
    looks_like_error, pairing_key, result_text, Arguments, CallKind, Conversation, Item, Loc,
    Pairing, Role, Text, ToolCall, ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain langchain` prints (Markdown).
pub(super) const DOC: &str = r#"`messages_to_dict` and `dumpd` (`lc: 1`) dumps, LangGraph state"#;

pub struct Langchain;

impl Dialect for Langchain {
    fn interrupted_result(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        let id = site.call.id.as_deref()?;
        // Answer in the serialisation the conversation uses.
        let message = site.message()?;
        if message.get("lc").is_some() {
            Some(json!({
                "lc": 1,
                "type": "constructor",
                "id": ["langchain_core", "messages", "ToolMessage"],
                "kwargs": {"content": text, "tool_call_id": id, "name": site.call.name, "status": "error", "type": "tool"}
            }))
        } else if message.get("data").is_some() {
            Some(json!({
                "type": "tool",
                "data": {"content": text, "tool_call_id": id, "name": site.call.name, "status": "error", "type": "tool"}
            }))
        } else {
            Some(
                json!({"content": text, "additional_kwargs": {}, "response_metadata": {}, "type": "tool", "name": site.call.name, "tool_call_id": id, "status": "error"}),
            )
        }
    }
}

impl Adapter for Langchain {
    fn format(&self) -> Format {
        Format::Langchain
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        let (_, messages) = locate_messages(doc)?;
        let messages = match messages.first() {
            Some(Tree::Array(first)) => first,
            _ => messages,
        };
        messages.iter().any(|m| classify(m).is_some()).then_some(90)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let mut out = Vec::new();
        for doc in docs {
            out.extend(normalise_doc(doc)?);
        }
        Ok(out)
    }
}

/// The messages array and its pointer.
fn locate_messages<'a>(doc: &'a Tree<'a>) -> Option<(&'static str, &'a Vec<Tree<'a>>)> {
    if let Some(messages) = doc.as_array() {
        return Some(("", messages));
    }
    if let Some(messages) = array_at(doc, "messages") {
        return Some(("/messages", messages));
    }
    if let Some(messages) = doc.get("values").and_then(|v| array_at(v, "messages")) {
        return Some(("/values/messages", messages));
    }
    if let Some(messages) = doc.get("inputs").and_then(|v| array_at(v, "messages")) {
        return Some(("/inputs/messages", messages));
    }
    None
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Human,
    Ai,
    System,
    Tool,
    /// Legacy FunctionMessage: answers by `name` only.
    Function,
    /// ChatMessage: an arbitrary `role`.
    Chat,
}

/// The kind of a dumped message, its body (`data` or `kwargs`) and the body's key.
fn classify<'a>(message: &'a Tree<'a>) -> Option<(Kind, &'a Tree<'a>, Option<&'static str>)> {
    // All three carry a string `type`: asked first, it rules out other formats' messages
    // (every document's are asked) with one lookup.
    let written_type = str_at(message, "type")?;
    let (class, body_key) = if message.get("lc").is_some() {
        if written_type != "constructor" {
            return None;
        }
        let class = array_at(message, "id")?.last()?.as_str()?;
        (class, Some("kwargs"))
    } else if message.get("data").is_some() {
        (written_type, Some("data"))
    } else if message
        .get("additional_kwargs")
        .is_some_and(Tree::is_object)
    {
        // A pydantic `model_dump()` (LangGraph API and SDK streams): the message is its body.
        (written_type, None)
    } else {
        return None;
    };
    let body = match body_key {
        Some(key) => message.get(key).filter(|b| b.is_object())?,
        None => message,
    };
    let kind = match class {
        "human" | "HumanMessage" | "HumanMessageChunk" => Kind::Human,
        "ai" | "AIMessage" | "AIMessageChunk" => Kind::Ai,
        "system" | "SystemMessage" | "SystemMessageChunk" => Kind::System,
        "tool" | "ToolMessage" | "ToolMessageChunk" => Kind::Tool,
        "function" | "FunctionMessage" | "FunctionMessageChunk" => Kind::Function,
        "chat" | "ChatMessage" | "ChatMessageChunk" => Kind::Chat,
        _ => return None,
    };
    Some((kind, body, body_key))
}

/// Whether a value is a LangChain message in one of the three serialisations.
pub(crate) fn is_message(message: &Tree) -> bool {
    classify(message).is_some()
}

fn normalise_doc(doc: &Doc<'_>) -> Result<Vec<Conversation>, String> {
    let (prefix, messages) = locate_messages(doc.value).ok_or(
        "expected an array of LangChain messages (`messages_to_dict` or `dumpd`), or a `messages` array",
    )?;
    let messages_loc = Loc::new(doc.base, prefix);
    if messages.first().is_some_and(Tree::is_array) {
        // One conversation per inner array.
        return messages
            .iter()
            .enumerate()
            .map(|(k, inner)| {
                let inner = inner
                    .as_array()
                    .ok_or("expected every element of `messages` to be an array of messages")?;
                conversation(inner, messages_loc.child(k))
            })
            .collect();
    }
    Ok(vec![conversation(messages, messages_loc)?])
}

/// One conversation from a LangChain message list at `messages_loc` (also LangGraph stream
/// snapshots).
pub(crate) fn conversation(messages: &[Tree], messages_loc: Loc) -> Result<Conversation, String> {
    if !messages.is_empty() && !messages.iter().any(|m| classify(m).is_some()) {
        return Err(
            "expected LangChain messages: `{type, data}` (`messages_to_dict`) or `{lc: 1, type: \"constructor\", id, kwargs}` (`dumpd`)"
                .into(),
        );
    }
    let mut conv = Conversation::new(Format::Langchain, messages_loc.clone(), Pairing::NextTurn);
    // Id-less calls (legacy `function_call`, providers that omit ids) are answered by name and
    // order.
    let mut pending: Vec<(String, String)> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let mloc = messages_loc.child(i);
        // Anything else (`RemoveMessage`, unknown classes) is not sent to a model.
        let Some((role, items)) = message_items(message, &mloc, &mut pending) else {
            continue;
        };
        if role == Role::Tool {
            for item in items {
                conv.push(Role::Tool, &mloc, item);
            }
            continue;
        }
        conv.start_turn(role, mloc.clone());
        for item in items {
            conv.push_to_last(item);
        }
    }
    Ok(conv)
}

/// One LangChain message at `mloc` (any of the three serialisations): its role and items,
/// `None` for what is not sent to a model (`RemoveMessage`, unknown classes). `pending`
/// carries id-less calls to the results that answer them by name and order (also LangSmith
/// runs).
pub(crate) fn message_items(
    message: &Tree,
    mloc: &Loc,
    pending: &mut Vec<(String, String)>,
) -> Option<(Role, Vec<Item>)> {
    let (kind, body, body_key) = classify(message)?;
    let bloc = body_key.map_or_else(|| mloc.clone(), |key| mloc.child(key));
    let role = match kind {
        Kind::Human => Role::User,
        Kind::Ai => Role::Assistant,
        Kind::System => Role::System,
        Kind::Tool | Kind::Function => Role::Tool,
        Kind::Chat => match str_at(body, "role") {
            Some("assistant" | "ai") => Role::Assistant,
            Some("user" | "human") => Role::User,
            _ => Role::System,
        },
    };
    if role == Role::Tool {
        let result = read_result(kind, body, mloc, pending);
        return Some((role, vec![Item::Result(result)]));
    }
    let mut items = Vec::new();
    if role == Role::Assistant {
        pending.clear();
    }
    if has_text(body.get("content")) {
        items.push(Item::Text(Text {
            loc: bloc.child("content"),
            message: mloc.clone(),
        }));
    }
    if role == Role::Assistant {
        items.extend(
            read_calls(body, &bloc, mloc, pending)
                .into_iter()
                .map(Item::Call),
        );
    }
    Some((role, items))
}

fn read_result(
    kind: Kind,
    body: &Tree,
    mloc: &Loc,
    pending: &mut Vec<(String, String)>,
) -> ToolResult {
    let call_id = match kind {
        Kind::Tool => str_at(body, "tool_call_id").map(str::to_string),
        _ => None,
    };
    let name = str_at(body, "name").map(str::to_string);
    let key = match &call_id {
        Some(id) => id.clone(),
        None => take_pending(pending, name.as_deref()).unwrap_or_else(|| pairing_key(None, mloc)),
    };
    let content = body.get("content").unwrap_or(&Tree::Null);
    let is_error = match str_at(body, "status") {
        Some(status) => status == "error",
        None => looks_like_error(content),
    };
    ToolResult {
        call_id,
        key,
        name,
        is_error,
        text: result_text(content),
        provider_executed: false,
        id_field: None,
        loc: mloc.clone(),
        message: mloc.clone(),
    }
}

/// The calls of an AI message: `tool_calls` and `invalid_tool_calls`, or the provider-raw
/// `additional_kwargs` copy when both are empty.
fn read_calls(
    body: &Tree,
    bloc: &Loc,
    mloc: &Loc,
    pending: &mut Vec<(String, String)>,
) -> Vec<ToolCall> {
    let mut calls = Vec::new();
    for (field, invalid) in [("tool_calls", false), ("invalid_tool_calls", true)] {
        for (j, call) in array_at(body, field).into_iter().flatten().enumerate() {
            let loc = bloc.child((field, j));
            let id = str_at(call, "id").map(str::to_string);
            let name = str_at(call, "name").unwrap_or_default().to_string();
            let key = id.clone().unwrap_or_else(|| {
                let key = pairing_key(None, &loc);
                pending.push((name.clone(), key.clone()));
                key
            });
            let args = call.get("args");
            let arguments = match args {
                None => Arguments::Absent,
                // `invalid_tool_calls` keeps the raw text, or null when there was none.
                Some(Tree::Null) if invalid => Arguments::Absent,
                Some(Tree::String(s)) => Arguments::Encoded(s.to_string()),
                Some(other) => Arguments::value(other.to_serde()),
            };
            calls.push(ToolCall {
                id,
                key,
                name,
                kind: CallKind::Function,
                arguments,
                args_loc: if args.is_some() {
                    loc.child("args")
                } else {
                    loc.clone()
                },
                loc,
                message: mloc.clone(),
            });
        }
    }
    if !calls.is_empty() {
        return calls;
    }
    let Some(kwargs) = body.get("additional_kwargs") else {
        return calls;
    };
    let kloc = bloc.child("additional_kwargs");
    for (j, call) in array_at(kwargs, "tool_calls")
        .into_iter()
        .flatten()
        .enumerate()
    {
        let mut call = read_tool_call(call, &kloc, j, pending);
        call.message = mloc.clone();
        calls.push(call);
    }
    if let Some(fc) = kwargs.get("function_call").filter(|v| v.is_object()) {
        let loc = kloc.child("function_call");
        let name = str_at(fc, "name").unwrap_or_default().to_string();
        let key = pairing_key(None, &loc);
        pending.push((name.clone(), key.clone()));
        let args = fc.get("arguments");
        calls.push(ToolCall {
            id: None,
            key,
            name,
            kind: CallKind::Function,
            arguments: match args {
                None | Some(Tree::Null) => Arguments::Absent,
                Some(Tree::String(s)) => Arguments::Encoded(s.to_string()),
                Some(other) => Arguments::value(other.to_serde()),
            },
            args_loc: if args.is_some() {
                loc.child("arguments")
            } else {
                loc.clone()
            },
            loc,
            message: mloc.clone(),
        });
    }
    calls
}

#[cfg(test)]
mod tests {
    use crate::tree_json;

    use super::*;
    use crate::lint::{lint_str, Outcome};

    fn codes(text: &str) -> Vec<String> {
        lint_str("x.json", text).codes()
    }

    fn convs(value: &Tree) -> Vec<Conversation> {
        let doc = Doc { base: 0, value };
        Langchain.normalise(&[doc]).unwrap_or_default()
    }

    #[test]
    fn clean_fixtures() {
        for text in [
            include_str!("../../../../fixtures/langchain/clean-messages-to-dict.json"),
            include_str!("../../../../fixtures/langchain/clean-dumpd-langgraph.json"),
            include_str!("../../../../fixtures/langchain/clean-legacy-kwargs.json"),
        ] {
            let report = lint_str("x.json", text);
            assert_eq!(report.outcome, Outcome::Checked(vec![Format::Langchain]));
            assert_eq!(report.codes(), Vec::<String>::new());
        }
    }

    #[test]
    fn broken_pairing() {
        assert_eq!(
            codes(include_str!("../../../../fixtures/langchain/broken-pairing.json")),
            [
                "TC104@13:9",
                "TC101@26:3",
                "TC105@44:3",
                "TC102@54:9",
                "TC103@76:3"
            ]
        );
    }

    #[test]
    fn broken_arguments() {
        assert_eq!(
            codes(include_str!(
                "../../../../fixtures/langchain/broken-arguments.json"
            )),
            ["TC201@22:21", "TC202@29:21", "TC203@36:21"]
        );
    }

    #[test]
    fn detection_and_wrappers() {
        let stored = tree_json!([{"type": "human", "data": {"content": "hi"}}]);
        let dumpd = tree_json!({"values": {"messages": [
            {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"], "kwargs": {"content": "hi"}}
        ]}});
        for doc in [&stored, &dumpd] {
            assert_eq!(
                crate::formats::detect(doc).map(|a| a.format()),
                Some(Format::Langchain)
            );
        }
        // Not LangChain: OpenAI messages, Responses-style items.
        assert_eq!(
            Langchain.sniff(&tree_json!([{"role": "user", "content": "hi"}])),
            None
        );
        assert_eq!(
            Langchain.sniff(&tree_json!([{"type": "message", "role": "user", "content": "hi"}])),
            None
        );
        // A LangSmith batch: one conversation per inner array.
        let batch = r#"{"inputs": {"messages": [
  [{"type": "tool", "data": {"content": "x", "tool_call_id": "c1"}}],
  [{"type": "tool", "data": {"content": "y", "tool_call_id": "c2"}}]
]}}"#;
        assert_eq!(codes(batch), ["TC101@2:4", "TC101@3:4"]);
    }

    #[test]
    fn raw_copies_and_legacy_functions() {
        // `additional_kwargs.tool_calls` duplicates `tool_calls`/`invalid_tool_calls`: not read.
        let ai = tree_json!([{"type": "ai", "data": {
            "content": "",
            "tool_calls": [],
            "invalid_tool_calls": [{"name": "f", "args": "{", "id": "c1", "error": "bad"}],
            "additional_kwargs": {"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{"}}]}
        }}]);
        let calls: Vec<_> = convs(&ai)[0]
            .calls()
            .map(|(_, c)| c.loc.pointer.clone())
            .collect();
        assert_eq!(calls, ["/0/data/invalid_tool_calls/0"]);
        // A legacy function call answered by a FunctionMessage of another name, then a user turn.
        let text = r#"[
  {"type": "ai", "data": {"content": "", "additional_kwargs": {"function_call": {"name": "get_rate", "arguments": "{}"}}}},
  {"type": "function", "data": {"content": "1.1", "name": "get_price"}},
  {"type": "human", "data": {"content": "?"}}
]"#;
        // Opening with a call is a warning: Gemini would reject it.
        assert_eq!(codes(text), ["TC504@2:3", "TC102@2:81", "TC101@3:3"]);
    }

    #[test]
    fn error_status() {
        let value = tree_json!([
            {"type": "ai", "data": {"content": "", "tool_calls": [
                {"name": "f", "args": {}, "id": "a"}, {"name": "f", "args": {}, "id": "b"}, {"name": "f", "args": {}, "id": "c"}
            ]}},
            {"type": "tool", "data": {"content": "boom", "tool_call_id": "a", "status": "error"}},
            {"type": "tool", "data": {"content": "Error: ValueError('x')\n Please fix your mistakes.", "tool_call_id": "b"}},
            {"type": "tool", "data": {"content": "Error: is fine here", "tool_call_id": "c", "status": "success"}},
            {"type": "RemoveMessage", "data": {"id": "m1"}}
        ]);
        let conv = &convs(&value)[0];
        let flags: Vec<_> = conv.results().map(|(_, r)| r.is_error).collect();
        assert_eq!(flags, [true, true, false]);
        assert_eq!(conv.turns.len(), 2);
    }

    #[test]
    fn rejects_other_shapes() {
        let value = tree_json!([{"role": "user", "content": "hi"}]);
        let doc = Doc {
            base: 0,
            value: &value,
        };
        assert!(Langchain.normalise(&[doc]).is_err());
    }
}
