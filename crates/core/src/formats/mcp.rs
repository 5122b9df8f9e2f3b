//! Model Context Protocol traffic: newline-delimited JSON-RPC 2.0 as a raw stdio capture
//! writes it, or a Claude Desktop log (`~/Library/Logs/Claude/mcp-server-<name>.log`) whose
//! lines carry the message after a prefix: `<ts> [info] [server] Message from client: {...}`.
//! One log is one conversation.
//!
//! A `tools/call` request is a call (its JSON-RPC `id`, numbers rendered as text, is the call
//! id; `params.arguments` are the arguments, `{}` when absent as the protocol allows), and
//! the response with the same `id` is its result: failed when `result.isError` is true or the
//! response is a JSON-RPC `error`. A `tools/list` result declares the tools and their
//! `inputSchema`s. A `notifications/cancelled` for an open call ends it as a failure: the
//! receiver sends no response after it, and the requester ignores one that crosses it.
//!
//! Responses may arrive in any order (`AnyLater`). A capture that ends while a call is in
//! flight is normal, so only calls that later traffic (other than notifications, which
//! arrive while calls run) leaves unanswered are reported (not `resumable`). Responses that
//! answer no request are results without a call when they have the shape of a tool result.
//!
//! A capture of one direction only (a server's stdout holds its responses and none of the
//! requests; a client's, the reverse) is marked `one_sided`: requests and responses cannot
//! be paired when one side is missing, and the rules say so once instead of reporting every
//! response as a result without a call. Only messages with an `id` count: notifications go
//! either way and are answered by nothing.
//!
//! No fixes: a log records what went over the wire, and a server response cannot be made up.

// foldhash: these maps key on ids and offsets a run compares itself; SipHash's
// flood resistance buys nothing there and costs a few percent of a lint.
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::adapter::{read_in_order_by, InOrder};
use super::{array_at, str_at, Adapter, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{
    result_text, Arguments, CallKind, Conversation, Item, Loc, Mark, OneSide, Pairing, Role, Text,
    ToolCall, ToolDef, ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain mcp` prints (Markdown).
pub(super) const DOC: &str = r#"MCP JSON-RPC 2.0 logs: raw stdio captures (NDJSON) and Claude Desktop logs (`~/Library/Logs/Claude/mcp-server-<name>.log`, read when named); `tools/call` ↔ response by `id`, `isError`/`error` fail, `tools/list` declares the schemas"#;

pub struct Mcp;

/// Nothing is inserted into a recorded log.
impl Dialect for Mcp {}

/// What an open request was.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Request {
    ToolsCall,
    ToolsList,
    Other,
}

impl Adapter for Mcp {
    fn format(&self) -> Format {
        Format::Mcp
    }

    fn has_documents(&self) -> bool {
        false
    }

    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        // A batch (JSON-RPC arrays, allowed before 2025-06-18) is judged by its first message.
        let message = match record {
            Tree::Array(items) => items.first()?,
            other => other,
        };
        if str_at(message, "jsonrpc") != Some("2.0") {
            return None;
        }
        let tools = matches!(str_at(message, "method"), Some("tools/call" | "tools/list"))
            || message.get("result").is_some_and(|r| {
                r.get("tools").is_some() || r.get("content").is_some() || r.get("isError").is_some()
            });
        Some(if tools { 90 } else { 60 })
    }

    read_in_order_by!(Capture);

    fn plan_edits(&self, _intent: &FixIntent, _cx: &EditContext<'_>) -> Planned {
        Planned::Unsupported
    }

    fn record_span(&self, line: &str) -> Option<(usize, usize)> {
        claude_log_message(line)
    }
}

/// A capture as read so far: its reader, and whether any line was a JSON-RPC message.
struct Capture {
    reader: Reader,
    recognised: bool,
}

impl InOrder for Capture {
    fn new(first: usize) -> Self {
        let mut conv = Conversation::new(Format::Mcp, Loc::new(first, ""), Pairing::AnyLater);
        // The calls are made for a model whose chat lives in the client, not in the log: an
        // empty user turn stands for it, so a log that opens with a call does not read as a
        // history that opens with one.
        conv.start_turn(Role::User, Loc::new(first, ""));
        Capture {
            reader: Reader {
                conv,
                open: HashMap::new(),
                cancelled: HashSet::new(),
                requests: 0,
                responses: 0,
            },
            recognised: false,
        }
    }

    fn read(&mut self, doc: Doc<'_>) -> Mark {
        let mark = self.reader.conv.mark();
        let root = Loc::new(doc.base, "");
        match doc.value {
            Tree::Array(batch) => {
                for (i, message) in batch.iter().enumerate() {
                    self.recognised |= self.reader.read(message, root.child(i));
                }
            }
            message => self.recognised |= self.reader.read(message, root),
        }
        mark
    }

    fn conversation(&self) -> &Conversation {
        &self.reader.conv
    }

    fn finish(self, any: bool) -> Result<Vec<Conversation>, String> {
        if !self.recognised && any {
            return Err("expected JSON-RPC 2.0 messages `{\"jsonrpc\": \"2.0\", ...}`".into());
        }
        let mut conv = self.reader.conv;
        conv.one_sided = match (self.reader.requests, self.reader.responses) {
            (0, 1..) => Some(OneSide::ResponsesOnly),
            (1.., 0) => Some(OneSide::RequestsOnly),
            _ => None,
        };
        Ok(vec![conv])
    }
}

struct Reader {
    conv: Conversation,
    /// Requests not answered yet, by id, oldest first. Client and server number their
    /// requests independently (a server asks for sampling while a tool runs), and a capture
    /// does not say who sent what, so one id may be open twice.
    open: HashMap<String, Vec<Request>>,
    /// Calls ended by a cancellation: a response that crosses it is ignored.
    cancelled: HashSet<String>,
    /// How many requests and responses (messages with an `id`) the capture holds.
    requests: usize,
    responses: usize,
}

impl Reader {
    /// Reads one JSON-RPC message; `false` when it is not one.
    fn read(&mut self, message: &Tree, loc: Loc) -> bool {
        if str_at(message, "jsonrpc") != Some("2.0") {
            return false;
        }
        let id = message.get("id").and_then(id_text);
        match (str_at(message, "method"), id) {
            (Some("notifications/cancelled"), _) => self.cancel(message, loc),
            // Other notifications (progress, logging) arrive while calls run.
            (Some(_), None) => {}
            (Some(method), Some(id)) => {
                self.requests += 1;
                self.request(method, id, message, loc)
            }
            (None, Some(id)) => {
                self.responses += 1;
                self.response(id, message, loc)
            }
            (None, None) => {}
        }
        true
    }

    fn request(&mut self, method: &str, id: String, message: &Tree, loc: Loc) {
        let kind = match method {
            "tools/call" => Request::ToolsCall,
            "tools/list" => Request::ToolsList,
            _ => Request::Other,
        };
        self.open.entry(id.clone()).or_default().push(kind);
        self.cancelled.remove(&id);
        if kind != Request::ToolsCall {
            self.traffic(loc);
            return;
        }
        let params = message.get("params").unwrap_or(&Tree::Null);
        let params_loc = loc.child("params");
        let (arguments, args_loc) = match params.get("arguments") {
            Some(args) => (
                Arguments::value(args.to_serde()),
                params_loc.child("arguments"),
            ),
            None => (
                Arguments::value(serde_json::Value::Object(Default::default())),
                loc.clone(),
            ),
        };
        let call = ToolCall {
            id: Some(id.clone()),
            key: id,
            name: str_at(params, "name").unwrap_or_default().to_string(),
            kind: CallKind::Function,
            arguments,
            args_loc,
            message: loc.clone(),
            loc: loc.clone(),
        };
        self.conv.push(Role::Assistant, &loc, Item::Call(call));
    }

    fn response(&mut self, id: String, message: &Tree, loc: Loc) {
        let result = message.get("result");
        if let Some(tools) = result.and_then(|r| array_at(r, "tools")) {
            self.declare(tools, &loc.child(("result", "tools")));
        }
        let shaped = message.get("error").is_some() || result.is_some_and(tool_shaped);
        let answers_call = match self.take_open(&id, shaped) {
            Some(kind) => kind == Request::ToolsCall,
            // The requester ignores a response to a call it cancelled.
            None if self.cancelled.contains(&id) => return,
            // No request: a result without a call, when it is shaped like one.
            None => shaped,
        };
        if !answers_call {
            self.traffic(loc);
            return;
        }
        let (is_error, text) = match (result, message.get("error")) {
            (Some(result), _) => (
                result.get("isError").and_then(Tree::as_bool) == Some(true),
                result_text(result.get("content").unwrap_or(&Tree::Null)),
            ),
            (None, Some(error)) => (true, result_text(error.get("message").unwrap_or(error))),
            (None, None) => (false, String::new()),
        };
        self.result(id, is_error, text, loc);
    }

    /// The open request a response with `id` answers: when the id is open for a tool call
    /// and for another request, a response shaped like a tool result answers the call.
    fn take_open(&mut self, id: &str, tool_shaped: bool) -> Option<Request> {
        let open = self.open.get_mut(id)?;
        let at = open
            .iter()
            .position(|r| (*r == Request::ToolsCall) == tool_shaped)
            .unwrap_or(0);
        let kind = (at < open.len()).then(|| open.remove(at));
        if open.is_empty() {
            self.open.remove(id);
        }
        kind
    }

    /// A cancelled call ends as a failure saying why.
    fn cancel(&mut self, message: &Tree, loc: Loc) {
        let params = message.get("params").unwrap_or(&Tree::Null);
        let Some(id) = params.get("requestId").and_then(id_text) else {
            return;
        };
        let Some(open) = self.open.get_mut(&id) else {
            return;
        };
        let Some(at) = open.iter().rposition(|r| *r == Request::ToolsCall) else {
            return;
        };
        open.remove(at);
        self.cancelled.insert(id.clone());
        let reason = str_at(params, "reason").unwrap_or_default();
        self.result(id, true, format!("cancelled: {reason}"), loc);
    }

    fn result(&mut self, id: String, is_error: bool, text: String, loc: Loc) {
        let result = ToolResult {
            call_id: Some(id.clone()),
            key: id,
            name: None,
            is_error,
            text,
            provider_executed: false,
            id_field: None,
            message: loc.clone(),
            loc: loc.clone(),
        };
        self.conv.push(Role::Tool, &loc, Item::Result(result));
    }

    /// Requests and responses that are not tool calls: the session goes on.
    fn traffic(&mut self, loc: Loc) {
        let text = Item::Text(Text {
            loc: loc.clone(),
            message: loc.clone(),
        });
        self.conv.push(Role::User, &loc, text);
    }

    /// A `tools/list` result's tools; a later listing of a tool replaces the earlier one.
    fn declare(&mut self, tools: &[Tree], tools_loc: &Loc) {
        for (i, tool) in tools.iter().enumerate() {
            let Some(name) = str_at(tool, "name") else {
                continue;
            };
            let loc = tools_loc.child(i);
            let schema_loc = loc.child("inputSchema");
            self.conv.tools.retain(|t| t.name != name);
            self.conv.tools.push(ToolDef::declared(
                name,
                tool.get("inputSchema"),
                loc,
                schema_loc,
            ));
        }
    }
}

/// Whether a result is a `CallToolResult`: a `content` list or an `isError` flag, and not a
/// sampling result (`role`, `model`), which has content too.
fn tool_shaped(result: &Tree) -> bool {
    let content = result.get("content").is_some_and(Tree::is_array)
        || result.get("isError").is_some()
        || result.get("structuredContent").is_some();
    content && result.get("role").is_none() && result.get("model").is_none()
}

/// A JSON-RPC id as text: strings as they are, numbers as written.
fn id_text(id: &Tree) -> Option<String> {
    match id {
        Tree::String(s) => Some(s.to_string()),
        Tree::Number(n) => Some(n.as_str().to_string()),
        _ => None,
    }
}

/// Where the message of a Claude Desktop log line is: `<ISO timestamp> [level] [server]
/// Message from client: {...}`, often followed by ` { metadata: undefined }` (the logger's
/// second argument). `None` for other lines (server start-up, stderr), which are log text.
fn claude_log_message(line: &str) -> Option<(usize, usize)> {
    let stamped = matches!(
        line.as_bytes().get(..11),
        Some([a, b, c, d, b'-', _, _, b'-', _, _, b'T']) if [a, b, c, d].iter().all(|x| x.is_ascii_digit())
    );
    if !stamped {
        return None;
    }
    let start = ["Message from client: ", "Message from server: "]
        .iter()
        .find_map(|marker| line.find(marker).map(|at| at + marker.len()))?;
    let rest = line.get(start..)?;
    // The message ends where its JSON value does; when it does not parse, the whole rest is
    // the record, so the parse error is reported on it.
    let mut values = serde_json::Deserializer::from_str(rest).into_iter::<serde::de::IgnoredAny>();
    let len = match values.next() {
        Some(Ok(_)) => values.byte_offset(),
        _ => rest.len(),
    };
    Some((start, start + len))
}

#[cfg(test)]
mod tests {
    use crate::tree_json as json;

    use super::*;

    #[test]
    fn finds_the_message_in_claude_log_lines() {
        let message = |line: &'static str| {
            let (from, to) = claude_log_message(line)?;
            line.get(from..to)
        };
        assert_eq!(
            message(r#"2025-06-13T14:44:29.945Z [info] [db] Message from client: {"id":0}"#),
            Some(r#"{"id":0}"#)
        );
        assert_eq!(
            message(
                r#"2025-07-28T21:32:03.987Z [db] [info] Message from server: {"id":1,"result":{}} { metadata: undefined }"#
            ),
            Some(r#"{"id":1,"result":{}}"#)
        );
        // A broken message is the record, so its parse error is reported.
        assert_eq!(
            message(r#"2025-07-28T21:32:03.987Z [db] [info] Message from server: {"id":1,"res"#),
            Some(r#"{"id":1,"res"#)
        );
        assert_eq!(
            message("2025-06-13T14:44:29.945Z [db] [info] Initializing server..."),
            None
        );
        assert_eq!(message(r#"{"jsonrpc":"2.0"}"#), None);
        assert_eq!(message("2025"), None);
    }

    #[test]
    fn sniffs_json_rpc() {
        assert_eq!(
            Mcp.sniff_record(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call"})),
            Some(90)
        );
        assert_eq!(
            Mcp.sniff_record(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
            Some(60)
        );
        assert_eq!(
            Mcp.sniff_record(&json!({"role": "user", "content": "hi"})),
            None
        );
    }

    /// `isError` and JSON-RPC errors are failures, as a loop of them shows; a cancelled call
    /// is one too, and the response that crosses the cancellation is not a second result.
    #[test]
    fn failures_and_cancellations() {
        let call = |id: u32| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "exec", "arguments": {}}});
        let records = [
            call(1),
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "missing command"}}),
            call(2),
            json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "missing command"}], "isError": true}}),
            call(3),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3, "reason": "missing command"}}),
            json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [], "isError": false}}),
        ];
        let text: String = records.iter().map(|r| format!("{r}\n")).collect();
        assert_eq!(
            crate::lint::lint_str("mcp.jsonl", &text).codes(),
            ["TC401@5:1"]
        );
    }

    #[test]
    fn ids_render_as_text() {
        assert_eq!(id_text(&json!(5)), Some("5".to_string()));
        assert_eq!(id_text(&json!("a-1")), Some("a-1".to_string()));
        assert_eq!(id_text(&Tree::Null), None);
    }
}
