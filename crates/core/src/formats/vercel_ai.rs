//! Vercel AI SDK message arrays: `ModelMessage` (v5+) and `CoreMessage` (v4), bare or under
//! `messages`, and the persisted `UIMessage` arrays chat apps store.
//!
//! Model messages: assistant `{type: "tool-call", toolCallId, toolName, input (v5) | args (v4),
//! providerExecuted?}` parts; `role: "tool"` messages hold `{type: "tool-result", toolCallId,
//! toolName, output: {type, value} (v5) | result + isError (v4)}` parts. The error flag is an
//! `error-text`/`error-json` output (v5) or `isError` (v4). Provider-executed calls are answered
//! by `tool-result` parts inside the assistant message. An `execution-denied` output answers its
//! call but is not a failure (the user declined; the tool did not fail), likewise UI `output-denied`. The SDK merges consecutive tool
//! messages; adjacent same-role messages are merged here too (what Anthropic and Gemini do).
//!
//! Approvals: `tool-approval-request` (assistant) and `tool-approval-response` (tool) parts are
//! not calls or results. The SDK counts an approval response as resolving its call, because it
//! executes approved calls (and writes `execution-denied` results for denied ones) from the
//! approval responses of the *last* message before calling the model. So an approval response
//! answers its call only when it is in the conversation's final run of tool messages and no
//! `tool-result` answers that call; an earlier approval response with no result left the call
//! unanswered when the history reaches a provider, which is reported.
//!
//! UI messages: `{id, role, parts}` where a `tool-<name>` or `dynamic-tool` part holds the call
//! and (in state `output-available`, `output-error`, `output-denied`) its result, so each part
//! becomes a call followed by its result and pairing is [`Pairing::AnyLater`]. v4
//! `tool-invocation` parts and `toolInvocations` (state `call`/`partial-call`/`result`) too.

// foldhash: these maps key on ids and offsets a run compares itself; SipHash's
// flood resistance buys nothing there and costs a few percent of a lint.
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use serde_json::{json, Value as Json};

use super::{all_have_role, all_roles_among, array_at, str_at, Adapter, CallSite, Dialect, Doc, Format};
use crate::transcript::{
    looks_like_error, pairing_key, result_text, Arguments, CallKind, Conversation, Item, Loc,
    Pairing, Role, Text, ToolCall, ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain vercel-ai` prints (Markdown).
pub(super) const DOC: &str = r#"AI SDK `ModelMessage` (v5 `input`/`output`, v4 `args`/`result`) and persisted `UIMessage` arrays"#;

pub struct VercelAi;

impl Dialect for VercelAi {
    fn interrupted_block(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        // UI messages keep call and result in one part: there is no message to insert.
        let pointer = &site.call.loc.pointer;
        if pointer.contains("/parts/") || pointer.contains("/toolInvocations/") {
            return None;
        }
        let id = site.call.id.as_deref()?;
        let part = if site.element.get("args").is_some() {
            // v4 `CoreMessage`.
            json!({"type": "tool-result", "toolCallId": id, "toolName": site.call.name, "result": text, "isError": true})
        } else {
            json!({"type": "tool-result", "toolCallId": id, "toolName": site.call.name, "output": {"type": "error-text", "value": text}})
        };
        Some(part)
    }

    fn result_message(&self, part: Json) -> Option<Json> {
        Some(json!({"role": "tool", "content": [part]}))
    }
}

impl Adapter for VercelAi {
    fn format(&self) -> Format {
        Format::VercelAi
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        let messages = array_at(doc, "messages").or_else(|| doc.as_array())?;
        if !all_roles_among(messages, &["system", "user", "assistant", "tool"]) {
            return None;
        }
        let unmistakable = messages.iter().any(|m| {
            is_ui_message(m)
                || m.get("toolInvocations").is_some()
                || array_at(m, "content")
                    .is_some_and(|parts| parts.iter().any(|p| is_sdk_tool_part(str_at(p, "type"))))
        });
        Some(if unmistakable { 90 } else { 10 })
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        docs.iter().map(normalise_doc).collect()
    }
}

/// The kebab-case part types only the AI SDK uses.
fn is_sdk_tool_part(kind: Option<&str>) -> bool {
    matches!(
        kind,
        Some("tool-call" | "tool-result" | "tool-approval-request" | "tool-approval-response")
    )
}

/// A UIMessage: `parts` whose elements carry a `type` (Gemini parts have none).
fn is_ui_message(message: &Tree) -> bool {
    array_at(message, "parts")
        .is_some_and(|parts| parts.iter().any(|p| str_at(p, "type").is_some()))
}

fn normalise_doc(doc: &Doc<'_>) -> Result<Conversation, String> {
    let root = Loc::new(doc.base, "");
    let (messages, messages_loc) = match doc.value {
        Tree::Array(messages) => (messages, root.clone()),
        _ => (
            array_at(doc.value, "messages")
                .ok_or("expected an array of AI SDK messages or a `messages` array")?,
            root.child("messages"),
        ),
    };
    if !messages.is_empty() && !all_have_role(messages) {
        return Err("expected every message to have a `role`".into());
    }
    let ui = messages
        .iter()
        .any(|m| is_ui_message(m) || m.get("toolInvocations").is_some());
    let pairing = if ui {
        Pairing::AnyLater
    } else {
        Pairing::NextTurn
    };
    let mut conv = Conversation::new(Format::VercelAi, root, pairing);
    let scan = Scan::new(messages);
    // Where the final run of tool messages starts (approval responses there are pending).
    let final_tool_run = messages
        .iter()
        .rposition(|m| str_at(m, "role") != Some("tool"))
        .map_or(0, |i| i + 1);
    for (i, message) in messages.iter().enumerate() {
        let mloc = messages_loc.child(i);
        let role = match str_at(message, "role") {
            Some("assistant") => Role::Assistant,
            Some("tool") => Role::Tool,
            Some("user") => Role::User,
            Some("system") => Role::System,
            Some(other) => return Err(format!("unexpected role \"{other}\" at {}", mloc.pointer)),
            None => return Err(format!("message without a `role` at {}", mloc.pointer)),
        };
        let before = conv.turns.len();
        if ui && (array_at(message, "parts").is_some() || message.get("toolInvocations").is_some())
        {
            push_ui_message(&mut conv, role, message, &mloc);
        } else {
            let pending = i >= final_tool_run;
            push_model_message(&mut conv, role, message, &mloc, &scan, pending);
        }
        // An empty message still separates turns.
        let extended =
            conv.turns.len() > before || conv.turns.last().is_some_and(|t| t.role == role);
        if !extended {
            conv.start_turn(role, mloc.clone());
        }
    }
    Ok(conv)
}

/// What the whole document says about calls, needed before reading it in order.
struct Scan<'a> {
    /// Call ids some `tool-result` answers.
    answered: HashSet<&'a str>,
    /// Ids of provider-executed calls (their results may come in a tool message too).
    provider_calls: HashSet<&'a str>,
    /// `approvalId` -> (`toolCallId`, `toolName`) from approval requests.
    approvals: HashMap<&'a str, (&'a str, Option<&'a str>)>,
}

impl<'a> Scan<'a> {
    fn new(messages: &'a [Tree]) -> Self {
        let mut scan = Scan {
            answered: HashSet::new(),
            provider_calls: HashSet::new(),
            approvals: HashMap::new(),
        };
        for part in messages
            .iter()
            .filter_map(|m| array_at(m, "content"))
            .flatten()
        {
            let id = str_at(part, "toolCallId");
            match (str_at(part, "type"), id) {
                (Some("tool-result"), Some(id)) => {
                    scan.answered.insert(id);
                }
                (Some("tool-call"), Some(id)) if provider_executed(part) => {
                    scan.provider_calls.insert(id);
                }
                (Some("tool-approval-request"), Some(id)) => {
                    if let Some(approval) = str_at(part, "approvalId") {
                        scan.approvals
                            .insert(approval, (id, str_at(part, "toolName")));
                    }
                }
                _ => {}
            }
        }
        scan
    }
}

fn provider_executed(part: &Tree) -> bool {
    part.get("providerExecuted").and_then(Tree::as_bool) == Some(true)
}

/// The arguments as the log holds them: an object, or JSON text in streamed/provider parts.
fn arguments(value: Option<&Tree>) -> Arguments {
    match value {
        None => Arguments::Absent,
        Some(Tree::String(s)) => Arguments::Encoded(s.to_string()),
        Some(other) => Arguments::value(other.to_serde()),
    }
}

/// The pairing key: the id, or one no result can meet.
fn key(id: &Option<String>, loc: &Loc) -> String {
    pairing_key(id.as_deref(), loc)
}

fn push_model_message(
    conv: &mut Conversation,
    role: Role,
    message: &Tree,
    mloc: &Loc,
    scan: &Scan<'_>,
    final_tool_run: bool,
) {
    let parts = match message.get("content") {
        Some(Tree::String(s)) => {
            if !s.trim().is_empty() {
                let text = Text {
                    loc: mloc.child("content"),
                    message: mloc.clone(),
                };
                conv.push(role, mloc, Item::Text(text));
            }
            return;
        }
        Some(Tree::Array(parts)) => parts,
        _ => return,
    };
    for (j, part) in parts.iter().enumerate() {
        let loc = mloc.child(("content", j));
        let item = match str_at(part, "type") {
            Some("tool-call") => {
                let id = str_at(part, "toolCallId").map(str::to_string);
                // v5 `input`, v4 `args`.
                let field = ["input", "args"]
                    .into_iter()
                    .find(|f| part.get(f).is_some());
                Item::Call(ToolCall {
                    key: key(&id, &loc),
                    id,
                    name: str_at(part, "toolName").unwrap_or_default().to_string(),
                    kind: if provider_executed(part) {
                        CallKind::ProviderExecuted
                    } else {
                        CallKind::Function
                    },
                    arguments: arguments(field.and_then(|f| part.get(f))),
                    args_loc: field.map_or_else(|| loc.clone(), |f| loc.child(f)),
                    loc,
                    message: mloc.clone(),
                })
            }
            Some("tool-result") => {
                let call_id = str_at(part, "toolCallId").map(str::to_string);
                let (is_error, text) = outcome(part);
                let provider = role == Role::Assistant
                    || provider_executed(part)
                    || call_id
                        .as_deref()
                        .is_some_and(|id| scan.provider_calls.contains(id));
                Item::Result(ToolResult {
                    key: key(&call_id, &loc),
                    call_id,
                    name: str_at(part, "toolName").map(str::to_string),
                    is_error,
                    text,
                    provider_executed: provider,
                    id_field: None,
                    loc,
                    message: mloc.clone(),
                })
            }
            Some("tool-approval-response") => {
                let Some(result) = approval_answer(part, &loc, mloc, scan, final_tool_run) else {
                    continue;
                };
                Item::Result(result)
            }
            Some("tool-approval-request") => continue,
            _ => Item::Text(Text {
                loc,
                message: mloc.clone(),
            }),
        };
        conv.push(role, mloc, item);
    }
}

/// An approval response that stands for its call's result (see the module docs).
fn approval_answer(
    part: &Tree,
    loc: &Loc,
    mloc: &Loc,
    scan: &Scan<'_>,
    final_tool_run: bool,
) -> Option<ToolResult> {
    if !final_tool_run || provider_executed(part) {
        return None;
    }
    let &(call_id, name) = scan.approvals.get(str_at(part, "approvalId")?)?;
    if scan.answered.contains(call_id) || scan.provider_calls.contains(call_id) {
        return None;
    }
    Some(ToolResult {
        call_id: Some(call_id.to_string()),
        key: call_id.to_string(),
        name: name.map(str::to_string),
        is_error: false,
        text: str_at(part, "reason").unwrap_or_default().to_string(),
        provider_executed: false,
        id_field: None,
        loc: loc.clone(),
        message: mloc.clone(),
    })
}

/// The error flag and text of a `tool-result` part (v5 `output`, v4 `result`/`isError`).
fn outcome(part: &Tree) -> (bool, String) {
    if let Some(output) = part.get("output") {
        let kind = str_at(output, "type").unwrap_or_default();
        let text = match kind {
            "execution-denied" => output.get("reason").map(result_text),
            _ => output.get("value").map(result_text),
        };
        let is_error = kind.starts_with("error-");
        return (is_error, text.unwrap_or_default());
    }
    let result = part.get("result").unwrap_or(&Tree::Null);
    let is_error = part.get("isError").and_then(Tree::as_bool) == Some(true);
    (is_error, result_text(result))
}

/// One UIMessage: its `parts` (or v4 `content` plus `toolInvocations`).
fn push_ui_message(conv: &mut Conversation, role: Role, message: &Tree, mloc: &Loc) {
    match array_at(message, "parts") {
        Some(parts) => {
            for (j, part) in parts.iter().enumerate() {
                let loc = mloc.child(("parts", j));
                let kind = str_at(part, "type").unwrap_or_default();
                if kind == "tool-invocation" {
                    if let Some(inv) = part.get("toolInvocation") {
                        push_v4_invocation(conv, role, inv, loc.child("toolInvocation"), mloc);
                    }
                } else if kind == "dynamic-tool" || kind.starts_with("tool-") {
                    let name = str_at(part, "toolName")
                        .or_else(|| kind.strip_prefix("tool-"))
                        .unwrap_or_default();
                    push_tool_part(conv, role, part, name, loc, mloc);
                } else if matches!(kind, "text" | "reasoning" | "file") {
                    let text = Text {
                        loc,
                        message: mloc.clone(),
                    };
                    conv.push(role, mloc, Item::Text(text));
                }
            }
        }
        None => {
            if str_at(message, "content").is_some_and(|s| !s.trim().is_empty()) {
                let text = Text {
                    loc: mloc.child("content"),
                    message: mloc.clone(),
                };
                conv.push(role, mloc, Item::Text(text));
            }
            for (k, inv) in array_at(message, "toolInvocations")
                .into_iter()
                .flatten()
                .enumerate()
            {
                let loc = mloc.child(("toolInvocations", k));
                push_v4_invocation(conv, role, inv, loc, mloc);
            }
        }
    }
}

/// A v5 tool UI part: the call, then its result when the state has one.
fn push_tool_part(
    conv: &mut Conversation,
    role: Role,
    part: &Tree,
    name: &str,
    loc: Loc,
    mloc: &Loc,
) {
    let id = str_at(part, "toolCallId").map(str::to_string);
    let state = str_at(part, "state").unwrap_or_default();
    let provider = provider_executed(part);
    let (arguments, args_loc) = match (part.get("input"), part.get("rawInput")) {
        (Some(input), _) => (self::arguments(Some(input)), loc.child("input")),
        // Input that failed to parse is kept as `rawInput` on `output-error`.
        (None, Some(raw)) => (self::arguments(Some(raw)), loc.child("rawInput")),
        // Nothing streamed yet.
        (None, None) if state == "input-streaming" => (Arguments::value(json!({})), loc.clone()),
        (None, None) => (Arguments::Absent, loc.clone()),
    };
    let call = ToolCall {
        key: key(&id, &loc),
        id: id.clone(),
        name: name.to_string(),
        kind: if provider {
            CallKind::ProviderExecuted
        } else {
            CallKind::Function
        },
        arguments,
        args_loc,
        loc: loc.clone(),
        message: mloc.clone(),
    };
    let key = call.key.clone();
    conv.push(role, mloc, Item::Call(call));
    let (is_error, text) = match state {
        "output-available" => (
            false,
            result_text(part.get("output").unwrap_or(&Tree::Null)),
        ),
        "output-error" => (
            true,
            str_at(part, "errorText").unwrap_or_default().to_string(),
        ),
        "output-denied" => (
            false,
            part.get("approval")
                .and_then(|a| str_at(a, "reason"))
                .unwrap_or_default()
                .to_string(),
        ),
        _ => return,
    };
    let result = ToolResult {
        call_id: id,
        key,
        name: Some(name.to_string()),
        is_error,
        text,
        provider_executed: provider,
        id_field: None,
        loc: loc.clone(),
        message: mloc.clone(),
    };
    conv.push(role, mloc, Item::Result(result));
}

/// A v4 tool invocation `{state: "partial-call" | "call" | "result", toolCallId, toolName,
/// args, result?}`: the call, then its result in state `result`.
fn push_v4_invocation(conv: &mut Conversation, role: Role, inv: &Tree, loc: Loc, mloc: &Loc) {
    let id = str_at(inv, "toolCallId").map(str::to_string);
    let name = str_at(inv, "toolName").unwrap_or_default().to_string();
    let args = inv.get("args");
    let call = ToolCall {
        key: key(&id, &loc),
        id: id.clone(),
        name: name.clone(),
        kind: CallKind::Function,
        arguments: match (args, str_at(inv, "state")) {
            (None, Some("partial-call")) => Arguments::value(json!({})),
            _ => arguments(args),
        },
        args_loc: if args.is_some() {
            loc.child("args")
        } else {
            loc.clone()
        },
        loc: loc.clone(),
        message: mloc.clone(),
    };
    let key = call.key.clone();
    conv.push(role, mloc, Item::Call(call));
    if str_at(inv, "state") != Some("result") {
        return;
    }
    let result = inv.get("result").unwrap_or(&Tree::Null);
    let result = ToolResult {
        call_id: id,
        key,
        name: Some(name),
        // v4 UI invocations have no error flag.
        is_error: looks_like_error(result),
        text: result_text(result),
        provider_executed: false,
        id_field: None,
        loc: loc.clone(),
        message: mloc.clone(),
    };
    conv.push(role, mloc, Item::Result(result));
}

#[cfg(test)]
mod tests {
    use crate::tree_json;

    use super::*;
    use crate::lint::{lint_str, Outcome};

    fn codes(text: &str) -> Vec<String> {
        lint_str("x.json", text).codes()
    }

    fn detected(value: Tree) -> Option<Format> {
        crate::formats::detect(&value).map(|a| a.format())
    }

    fn conv(value: Tree) -> Conversation {
        let doc = Doc {
            base: 0,
            value: &value,
        };
        let mut convs = VercelAi.normalise(&[doc]).unwrap_or_default();
        assert_eq!(convs.len(), 1);
        convs.remove(0)
    }

    #[test]
    fn clean_fixtures() {
        for text in [
            include_str!("../../../../fixtures/vercel-ai/clean-model-messages-v5.json"),
            include_str!("../../../../fixtures/vercel-ai/clean-core-messages-v4.json"),
            include_str!("../../../../fixtures/vercel-ai/clean-ui-messages.json"),
        ] {
            let report = lint_str("x.json", text);
            assert_eq!(report.outcome, Outcome::Checked(vec![Format::VercelAi]));
            assert_eq!(report.codes(), Vec::<String>::new());
        }
    }

    #[test]
    fn broken_pairing() {
        assert_eq!(
            codes(include_str!("../../../../fixtures/vercel-ai/broken-pairing.json")),
            [
                "TC104@16:9",
                "TC101@39:9",
                "TC105@67:9",
                "TC102@79:9",
                "TC103@120:9"
            ]
        );
    }

    #[test]
    fn broken_arguments() {
        assert_eq!(
            codes(include_str!(
                "../../../../fixtures/vercel-ai/broken-arguments.json"
            )),
            ["TC201@13:18", "TC202@19:18", "TC203@25:18", "TC203@31:17"]
        );
    }

    #[test]
    fn broken_ui_messages() {
        assert_eq!(
            codes(include_str!(
                "../../../../fixtures/vercel-ai/broken-ui-messages.json"
            )),
            ["TC201@16:21", "TC104@26:7", "TC102@33:7"]
        );
    }

    #[test]
    fn detection() {
        let v5 = tree_json!({"messages": [
            {"role": "system", "content": "be brief"},
            {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}]},
            {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "f", "output": {"type": "text", "value": "ok"}}]}
        ]});
        assert_eq!(detected(v5), Some(Format::VercelAi));
        let ui = tree_json!([{"id": "m1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}]);
        assert_eq!(detected(ui), Some(Format::VercelAi));
        let openai = tree_json!({"messages": [
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"}
        ]});
        assert_eq!(detected(openai), Some(Format::OpenAiChat));
        let anthropic = tree_json!({"messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}
        ]});
        assert_eq!(detected(anthropic), Some(Format::Anthropic));
        let plain =
            tree_json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]);
        assert_eq!(detected(plain), Some(Format::OpenAiChat));
    }

    #[test]
    fn error_flags_and_provider_results() {
        let c = conv(tree_json!([
            {"role": "assistant", "content": [
                {"type": "tool-call", "toolCallId": "a", "toolName": "f", "input": {}},
                {"type": "tool-call", "toolCallId": "b", "toolName": "f", "args": {}},
                {"type": "tool-call", "toolCallId": "srv", "toolName": "code", "input": {}, "providerExecuted": true}
            ]},
            {"role": "tool", "content": [
                {"type": "tool-result", "toolCallId": "a", "toolName": "f", "output": {"type": "error-json", "value": {"code": 1}}},
                {"type": "tool-result", "toolCallId": "b", "toolName": "f", "result": "Error: no", "isError": false},
                {"type": "tool-result", "toolCallId": "srv", "toolName": "code", "output": {"type": "text", "value": "done"}}
            ]}
        ]));
        let results: Vec<_> = c
            .results()
            .map(|(_, r)| (r.is_error, r.provider_executed))
            .collect();
        assert_eq!(results, [(true, false), (false, false), (false, true)]);
        // A deferred provider-executed result in a tool message is not an orphan.
        let text = tree_json!([
            {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "srv", "toolName": "code", "input": {}, "providerExecuted": true}]},
            {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "srv", "toolName": "code", "output": {"type": "text", "value": "done"}}]},
            {"role": "user", "content": "thanks"}
        ]);
        assert_eq!(codes(&text.to_string()), Vec::<String>::new());
    }

    #[test]
    fn approval_responses() {
        let text = |tail: &str| {
            format!(
                r#"[{{"role": "user", "content": "clean up"}},
  {{"role": "assistant", "content": [
    {{"type": "tool-call", "toolCallId": "c1", "toolName": "rm", "input": {{"path": "/tmp/x"}}}},
    {{"type": "tool-approval-request", "approvalId": "ap1", "toolCallId": "c1"}}]}},
  {{"role": "tool", "content": [{{"type": "tool-approval-response", "approvalId": "ap1", "approved": true}}]}}{tail}
]"#
            )
        };
        // Pending execution: the SDK runs it from the last message.
        assert_eq!(codes(&text("")), Vec::<String>::new());
        // Executed, its result appended as another tool message.
        let result = r#",
  {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "rm", "output": {"type": "text", "value": "removed"}}]}"#;
        assert_eq!(codes(&text(result)), Vec::<String>::new());
        // Never executed, and the conversation went on.
        let user = r#",
  {"role": "user", "content": "next"}"#;
        assert_eq!(codes(&text(user)), ["TC102@3:5"]);
    }

    #[test]
    fn ui_streaming_and_v4_invocations() {
        // A trailing part still streaming its input has no arguments yet.
        let streaming = r#"[
  {"id": "m1", "role": "user", "parts": [{"type": "text", "text": "go"}]},
  {"id": "m2", "role": "assistant", "parts": [{"type": "tool-search", "toolCallId": "c1", "state": "input-streaming"}]}
]"#;
        assert_eq!(codes(streaming), Vec::<String>::new());
        let v4 = r#"[
  {"id": "m1", "role": "assistant", "content": "", "toolInvocations": [
    {"state": "result", "toolCallId": "c1", "toolName": "f", "args": {"a": 1}, "result": "ok"},
    {"state": "call", "toolCallId": "c2", "toolName": "f", "args": {"a": 2}}]},
  {"id": "m2", "role": "user", "content": "and?", "parts": [{"type": "text", "text": "and?"}]},
  {"id": "m3", "role": "assistant", "parts": [{"type": "tool-invocation", "toolInvocation":
    {"state": "result", "toolCallId": "c3", "toolName": "f", "args": "{\"a\":", "result": "Error: bad"}}]}
]"#;
        let report = lint_str("x.json", v4);
        assert_eq!(report.outcome, Outcome::Checked(vec![Format::VercelAi]));
        // Opening with a call is a warning: Gemini would reject it.
        assert_eq!(report.codes(), ["TC504@2:3", "TC102@4:5", "TC201@7:70"]);
        let c = conv(crate::tree::parse(v4).map(|t| t.value).unwrap_or_default());
        assert_eq!(c.pairing, Pairing::AnyLater);
        let errors: Vec<_> = c.results().map(|(_, r)| r.is_error).collect();
        assert_eq!(errors, [false, true]);
    }

    #[test]
    fn rejects_unknown_roles() {
        let value = tree_json!([{"role": "bot", "content": "hi"}]);
        let doc = Doc {
            base: 0,
            value: &value,
        };
        assert!(VercelAi.normalise(&[doc]).is_err());
    }
}
