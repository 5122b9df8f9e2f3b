//! AgentScope memory: Python 1.x `JSONSession` files, 2.x `AgentState` JSON, and message
//! lists one `Msg` per line (Java `memory_messages.jsonl`, Python 2.x `context.jsonl`).
//!
//! Messages are `{id, name, role, content: S | [blocks], metadata, timestamp | created_at}`;
//! `role` is lower case in Python, upper case (with `TOOL`) in Java.
//! - 1.x `JSONSession`: `{<agent>: {memory: {content: [[msg, marks], ...]}, ...}}` (older
//!   releases: plain msgs). Calls are `tool_use {id, name, input: O, raw_input?: S}`; results
//!   are `tool_result {id, name, output}` blocks of a separate `role: "system"` message.
//!   `input` is what the model's text became after AgentScope repaired it; `raw_input` (Java:
//!   the block's `content`) is the text the model sent, so when present it is read as the
//!   arguments, and invalid JSON is located there. Rewriting that text changes nothing that is
//!   replayed (the repaired `input` is), so no fix edits it.
//! - 2.x `AgentState`: `{session_id, context: [msg], ...}`; `tool_call {id, name, input: S,
//!   state}` and its `tool_result {..., state}` sit in the same assistant message. The
//!   formatter sends them as a call, then its results, then the text after them, so the turns
//!   are split that way here.
//! - Java: results in `role: "TOOL"` messages.
//!
//! - Multi-agent memories (assistant messages from more than one agent, e.g. a game's
//!   moderator and players): the multi-agent formatters (`DashScopeMultiAgentFormatter` and
//!   siblings, agentscope `src/agentscope/formatter/_dashscope_formatter.py`) fold every
//!   message without tool blocks into a user `<history>` message, so those are user turns.
//!
//! Failure markers: 2.x `state` `error`/`denied`/`interrupted`; 1.x output text starting
//! `Error`, `[ERROR]` (Java), or one of the `Toolkit`'s error names. No tool definitions are
//! persisted (`--tools` supplies them). Pairing is by block `id`.

use serde_json::{json, Value as Json};

use super::{str_at, Adapter, CallSite, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{
    looks_like_error, pairing_key, result_text, text_looks_like_error, Arguments, CallKind,
    Conversation, Item, Loc, Pairing, Role, Text, ToolCall, ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain agentscope` prints (Markdown).
pub(super) const DOC: &str = r#"AgentScope 1.x `JSONSession` files (`<save_dir>/<session_id>.json`, `memory.content` of `[msg, marks]` pairs; a truncated `raw_input` is reported there), 2.x `AgentState` JSON (`session_id` + `context`), Java `memory_messages.jsonl` (`~/.agentscope/sessions/<key>/`); tools come from `--tools`"#;

/// AgentScope memory: a JSON document (a `JSONSession` file, an `AgentState`, or an array of
/// messages), or a JSONL file of messages, one per line, read as one history.
pub struct AgentScope;

/// Whether `v` is an AgentScope `Msg`: every variant writes `id`, `name`, `metadata` and a
/// timestamp beside `role` and `content`, and none has OpenAI's tool keys.
fn is_msg(v: &Tree) -> bool {
    let keys = ["id", "metadata"].iter().all(|k| v.get(k).is_some())
        && v.get("tool_calls").is_none()
        && v.get("tool_call_id").is_none();
    let role = str_at(v, "role").unwrap_or_default();
    matches!(
        role.to_ascii_lowercase().as_str(),
        "user" | "assistant" | "system" | "tool"
    ) && keys
        && str_at(v, "name").is_some()
        && v.get("content")
            .is_some_and(|c| c.is_string() || c.is_array())
        && (v.get("timestamp").is_some() || v.get("created_at").is_some())
}

/// A memory entry's message and whether the entry is a 1.x `[msg, marks]` pair.
fn entry<'a>(v: &'a Tree<'a>) -> Option<(&'a Tree<'a>, bool)> {
    match v {
        Tree::Array(pair) => match pair.as_slice() {
            [msg, marks] if is_msg(msg) && marks.is_array() => Some((msg, true)),
            _ => None,
        },
        msg if is_msg(msg) => Some((msg, false)),
        _ => None,
    }
}

/// The message lists of a document, with their pointers.
fn histories<'a>(doc: &'a Tree<'a>) -> Vec<(String, &'a Vec<Tree<'a>>)> {
    let mut out = Vec::new();
    match doc {
        Tree::Array(items) => out.push((String::new(), items)),
        Tree::Object(map) => {
            if let Some(list) = memory(doc) {
                out.push(("/memory/content".to_string(), list));
            } else if let (Some(Tree::Array(list)), true) = (
                map.get("context"),
                map.contains_key("session_id") || map.contains_key("reply_id"),
            ) {
                out.push(("/context".to_string(), list));
            } else if let (Some(Tree::Array(list)), true) =
                (map.get("content"), map.contains_key("_compressed_summary"))
            {
                out.push(("/content".to_string(), list));
            } else {
                for (key, value) in map {
                    if let Some(list) = memory(value) {
                        let key = crate::pointer::escape_token(key);
                        out.push((format!("/{key}/memory/content"), list));
                    }
                }
            }
        }
        _ => {}
    }
    out
}

/// A 1.x agent state's memory list.
fn memory<'a>(v: &'a Tree<'a>) -> Option<&'a Vec<Tree<'a>>> {
    v.get("memory")
        .and_then(|m| m.get("content"))
        .and_then(Tree::as_array)
}

fn fits(list: &[Tree]) -> bool {
    list.iter().all(|e| entry(e).is_some())
}

impl Adapter for AgentScope {
    fn format(&self) -> Format {
        Format::AgentScope
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        let found = histories(doc);
        let any = found.iter().any(|(_, l)| !l.is_empty());
        let all = found.iter().all(|(_, l)| fits(l));
        // An empty memory still is one when the file says so by its keys.
        let keyed = doc.is_object() && !found.is_empty();
        (all && (any || keyed)).then_some(90)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let mut out = Vec::new();
        for doc in docs {
            let found = histories(doc.value);
            if found.is_empty() {
                return Err("expected a JSONSession (`{agent: {memory: {content: [...]}}}`), an AgentState (`session_id` and `context`) or an array of AgentScope messages".into());
            }
            for (pointer, list) in found {
                let root = Loc::new(doc.base, pointer);
                let mut conv =
                    Conversation::new(Format::AgentScope, root.clone(), Pairing::NextTurn);
                let multi = multi_agent(list.iter().filter_map(|item| entry(item).map(|e| e.0)));
                for (i, item) in list.iter().enumerate() {
                    let (msg, pair) = entry(item).ok_or_else(|| {
                        format!(
                            "expected an AgentScope message or `[message, marks]` pair at {}/{i}",
                            root.pointer
                        )
                    })?;
                    let at = root.child(i);
                    let msg_loc = if pair { at.child(0) } else { at.clone() };
                    read_message(&mut conv, msg, &msg_loc, &at, multi);
                }
                out.push(conv);
            }
        }
        Ok(out)
    }

    /// One message per JSONL line (memory saved message by message).
    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        is_msg(record).then_some(90)
    }

    fn normalise_records(&self, docs: &[Doc<'_>]) -> Option<Result<Vec<Conversation>, String>> {
        // One line that is a whole document is read as a document.
        if let [doc] = docs {
            if !is_msg(doc.value) {
                return Some(self.normalise(docs));
            }
        }
        let first = docs.first().map_or(0, |d| d.base);
        let mut conv =
            Conversation::new(Format::AgentScope, Loc::new(first, ""), Pairing::NextTurn);
        let multi = multi_agent(docs.iter().map(|d| d.value));
        for doc in docs {
            if !is_msg(doc.value) {
                return Some(Err("expected one AgentScope message per line".into()));
            }
            let loc = Loc::new(doc.base, "");
            read_message(&mut conv, doc.value, &loc, &loc, multi);
        }
        Some(Ok(vec![conv]))
    }

    fn plan_edits(&self, intent: &FixIntent, _cx: &EditContext<'_>) -> Planned {
        plan_edits(intent)
    }
}

impl Dialect for AgentScope {
    fn interrupted_result(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        interrupted_result(site, text)
    }
}

/// The raw argument strings are evidence, not what is replayed: no fix rewrites them.
fn plan_edits(intent: &FixIntent) -> Planned {
    match intent {
        FixIntent::Replace { at, .. }
            if at.pointer.ends_with("/raw_input") || at.pointer.ends_with("/content") =>
        {
            Planned::Unsupported
        }
        _ => Planned::Generic,
    }
}

/// A result message answering the call at `site`: 1.x Python a `system` message (in a
/// `[msg, marks]` pair where memory holds pairs), Java a `TOOL` message. 2.x keeps results
/// inside the assistant message, which this does not write.
fn interrupted_result(site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
    let call = site.call;
    let id = call.id.as_deref()?;
    let (message, pair) = match site.message()? {
        Tree::Array(pair) => (pair.first()?, true),
        other => (other, false),
    };
    if site.element.get("type").and_then(Tree::as_str) != Some("tool_use") {
        return None;
    }
    let java = str_at(message, "role") == Some("ASSISTANT");
    let block = json!({"type": "tool_result", "id": id, "name": call.name, "output": [{"type": "text", "text": text}]});
    let mut msg = if java {
        json!({"id": format!("toolcheck-{id}"), "name": str_at(message, "name").unwrap_or("assistant"), "role": "TOOL", "content": [block], "metadata": {}})
    } else {
        json!({"id": format!("toolcheck-{id}"), "name": "system", "role": "system", "content": [block], "metadata": {}})
    };
    if let (Some(stamp), Some(obj)) = (message.get("timestamp"), msg.as_object_mut()) {
        obj.insert("timestamp".into(), stamp.to_serde());
    }
    Some(if pair { json!([msg, []]) } else { msg })
}

/// Whether a memory holds more than one agent's assistant messages (a game's moderator and
/// players, a debate): such a memory is sent with a multi-agent formatter.
fn multi_agent<'a>(msgs: impl Iterator<Item = &'a Tree<'a>>) -> bool {
    let mut first: Option<&str> = None;
    for msg in msgs {
        let assistant = str_at(msg, "role").is_some_and(|r| r.eq_ignore_ascii_case("assistant"));
        let Some(name) = str_at(msg, "name").filter(|_| assistant) else {
            continue;
        };
        match first {
            None => first = Some(name),
            Some(seen) if seen != name => return true,
            Some(_) => {}
        }
    }
    false
}

fn has_tool_blocks(msg: &Tree) -> bool {
    msg.get("content")
        .and_then(Tree::as_array)
        .is_some_and(|blocks| {
            blocks.iter().any(|b| {
                matches!(
                    str_at(b, "type"),
                    Some("tool_use" | "tool_call" | "tool_result")
                )
            })
        })
}

/// Reads one message at `msg_loc`; `entry_loc` is its memory entry (the pair, for 1.x), which
/// fixes remove or insert after. In a multi-agent memory (`multi`), the multi-agent formatters
/// (`DashScopeMultiAgentFormatter` and its siblings) fold every message without tool blocks,
/// whichever agent said it, into a user message (`<history>` ... `</history>`, each line
/// `{name}: {text}`), and send only tool calls and results as they are: so an assistant
/// message without tool blocks is a user turn here.
fn read_message(conv: &mut Conversation, msg: &Tree, msg_loc: &Loc, entry_loc: &Loc, multi: bool) {
    let role = match str_at(msg, "role").map(str::to_ascii_lowercase).as_deref() {
        Some("assistant") if multi && !has_tool_blocks(msg) => Role::User,
        Some("assistant") => Role::Assistant,
        Some("user") => Role::User,
        Some("tool") => Role::Tool,
        _ => Role::System,
    };
    let blocks = match msg.get("content") {
        Some(Tree::Array(blocks)) => blocks.as_slice(),
        Some(Tree::String(s)) => {
            conv.start_turn(role, entry_loc.clone());
            if !s.trim().is_empty() {
                conv.push_to_last(Item::Text(Text {
                    loc: msg_loc.child("content"),
                    message: entry_loc.clone(),
                }));
            }
            return;
        }
        _ => &[],
    };
    let content = msg_loc.child("content");
    // The role of the turn blocks go to next: results make a tool turn, and in 2.x an
    // assistant message continues after its results with a new assistant turn.
    let mut started = false;
    let mut current = role;
    let begin = |conv: &mut Conversation, turn: Role, started: &mut bool, current: &mut Role| {
        if !*started || *current != turn {
            match turn {
                // Consecutive result messages are one turn, as the formatter sends them.
                Role::Tool => {}
                _ => conv.start_turn(turn, entry_loc.clone()),
            }
            *started = true;
            *current = turn;
        }
    };
    for (j, block) in blocks.iter().enumerate() {
        let loc = content.child(j);
        match str_at(block, "type") {
            Some("tool_use" | "tool_call") => {
                let turn = if role == Role::Assistant {
                    Role::Assistant
                } else {
                    role
                };
                begin(conv, turn, &mut started, &mut current);
                conv.push_to_last(Item::Call(read_call(block, loc, entry_loc)));
            }
            Some("tool_result") => {
                begin(conv, Role::Tool, &mut started, &mut current);
                conv.push(
                    Role::Tool,
                    entry_loc,
                    Item::Result(read_result(block, loc, entry_loc)),
                );
            }
            _ => {
                // Text in a result message stays out of the turns (it is not replayed as a
                // turn of its own); in a 2.x assistant message, text after its results starts
                // the next assistant turn.
                if role == Role::Tool
                    || (started && current == Role::Tool && role != Role::Assistant)
                {
                    continue;
                }
                begin(conv, role, &mut started, &mut current);
                conv.push_to_last(Item::Text(Text {
                    loc,
                    message: entry_loc.clone(),
                }));
            }
        }
    }
    if !started && role != Role::Tool {
        conv.start_turn(role, entry_loc.clone());
    }
}

fn read_call(block: &Tree, loc: Loc, message: &Loc) -> ToolCall {
    let id = str_at(block, "id").map(str::to_string);
    let name = str_at(block, "name").unwrap_or_default().to_string();
    // The model's own text first (1.x `raw_input`, Java `content`), else `input`.
    let raw = ["raw_input", "content"].iter().find_map(|k| {
        str_at(block, k)
            .filter(|s| !s.trim().is_empty())
            .map(|s| (*k, s))
    });
    let (arguments, args_loc) = match (raw, block.get("input")) {
        (Some((key, text)), _) => (Arguments::Encoded(text.to_string()), loc.child(key)),
        (None, Some(Tree::String(s))) => (Arguments::Encoded(s.to_string()), loc.child("input")),
        (None, Some(Tree::Null)) | (None, None) => (Arguments::Absent, loc.clone()),
        (None, Some(other)) => (Arguments::value(other.to_serde()), loc.child("input")),
    };
    ToolCall {
        key: pairing_key(id.as_deref(), &loc),
        id,
        name,
        kind: CallKind::Function,
        arguments,
        args_loc,
        loc,
        message: message.clone(),
    }
}

/// Prefixes of the text AgentScope's toolkits answer failures with.
const ERROR_PREFIXES: &[&str] = &[
    "[ERROR]",
    "FunctionNotFoundError:",
    "FunctionInactiveError:",
    "Invalid arguments:",
    "Input validation failed",
];

fn read_result(block: &Tree, loc: Loc, message: &Loc) -> ToolResult {
    let call_id = str_at(block, "id").map(str::to_string);
    let output = block.get("output").unwrap_or(&Tree::Null);
    let text = result_text(output);
    let failed_state = matches!(
        str_at(block, "state"),
        Some("error" | "denied" | "interrupted")
    );
    let is_error = failed_state
        || looks_like_error(output)
        || text_looks_like_error(&text)
        || ERROR_PREFIXES.iter().any(|p| text.starts_with(p));
    ToolResult {
        key: pairing_key(call_id.as_deref(), &loc),
        call_id,
        name: str_at(block, "name").map(str::to_string),
        is_error,
        text,
        provider_executed: false,
        id_field: None,
        loc,
        message: message.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree_json;

    fn read(doc: &Tree) -> Vec<Conversation> {
        AgentScope
            .normalise(&[Doc {
                base: 0,
                value: doc,
            }])
            .expect("reads")
    }

    fn msg(role: &str, content: Tree) -> Tree<'static> {
        tree_json!({"id": "m", "name": "Friday", "role": role, "content": content, "metadata": {}, "timestamp": "2026-11-21 09:38:31.116"})
    }

    #[test]
    fn reads_a_json_session_and_prefers_raw_input() {
        let doc = tree_json!({"friday": {"memory": {"_compressed_summary": "", "content": [
            [msg("user", tree_json!("Search")), []],
            [msg("assistant", tree_json!([{"type": "tool_use", "id": "c1", "name": "search", "input": {"query": "hello wor"}, "raw_input": "{\"query\": \"hello wor"}])), []],
            [msg("system", tree_json!([{"type": "tool_result", "id": "c1", "name": "search", "output": [{"type": "text", "text": "Error: boom"}]}])), []]
        ]}, "toolkit": {"active_groups": []}}});
        assert_eq!(AgentScope.sniff(&doc), Some(90));
        let conv = &read(&doc)[0];
        assert_eq!(conv.turns.len(), 3);
        let (_, call) = conv.calls().next().expect("a call");
        assert_eq!(
            call.args_loc.pointer,
            "/friday/memory/content/1/0/content/0/raw_input"
        );
        assert_eq!(call.message.pointer, "/friday/memory/content/1");
        let (t, result) = conv.results().next().expect("a result");
        assert_eq!(t, 2);
        assert!(result.is_error);
    }

    #[test]
    fn splits_a_2x_assistant_message_at_its_results() {
        let doc = tree_json!({"session_id": "s", "context": [
            {"name": "Friday", "role": "assistant", "id": "r1", "metadata": {}, "created_at": "x", "content": [
                {"type": "tool_call", "id": "c1", "name": "w", "input": "{}", "state": "finished"},
                {"type": "tool_result", "id": "c1", "name": "w", "output": "ok", "state": "error"},
                {"type": "text", "text": "done"}
            ]}
        ]});
        assert_eq!(AgentScope.sniff(&doc), Some(90));
        let conv = &read(&doc)[0];
        let roles: Vec<Role> = conv.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [Role::Assistant, Role::Tool, Role::Assistant]);
        assert!(conv.results().next().expect("a result").1.is_error);
    }

    #[test]
    fn leaves_other_formats_alone() {
        let anthropic = tree_json!([{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}]);
        assert_eq!(AgentScope.sniff(&anthropic), None);
        assert_eq!(AgentScope.sniff(&tree_json!({"messages": []})), None);
        assert_eq!(AgentScope.sniff(&tree_json!([])), None);
        // A chat export with names and timestamps, in OpenAI's shape.
        let openai = tree_json!([{"id": "1", "role": "assistant", "name": "bot", "content": "", "metadata": {}, "timestamp": "t", "tool_calls": []}]);
        assert_eq!(AgentScope.sniff(&openai), None);
        assert_eq!(AgentScope.sniff_record(&openai[0]), None);
    }
}
