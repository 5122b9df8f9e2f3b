//! AWS Bedrock Converse requests (`{messages, system?, toolConfig?, inferenceConfig?}`), bare
//! arrays of Converse messages, and Converse responses (`{output: {message}, stopReason}`).
//!
//! Content blocks are single-key unions with no `type` field: `{text}`, `{image}`,
//! `{document}`, `{toolUse: {toolUseId, name, input: O}}`,
//! `{toolResult: {toolUseId, content: [{text}|{json}|...], status?}}`, `{reasoningContent}`,
//! `{cachePoint}`. `status: "error"` is the error flag. Tools are
//! `toolConfig.tools[].toolSpec.{name, inputSchema.json}`. Unlike Anthropic, Bedrock merges
//! nothing: roles must alternate ("A conversation must alternate between user and assistant
//! roles"), and every result must be in the one message after its call; results split over
//! two user messages are rejected ("Expected toolResult blocks at messages.N.content").

use serde_json::{json, Value as Json};

use super::{array_at, str_at, Adapter, CallSite, Dialect, Doc, Format};
use crate::transcript::{
    looks_like_error, pairing_key, result_text, Arguments, CallKind, Conversation, Item, Loc,
    Pairing, Role, Text, ToolCall, ToolDef, ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain bedrock-converse` prints (Markdown).
pub(super) const DOC: &str = r#"Converse `messages` with `toolUse`/`toolResult` blocks, `toolConfig` tools; no merging (Bedrock requires alternating roles)"#;

pub struct BedrockConverse;

/// Block keys only Converse uses.
const CONVERSE_BLOCKS: &[&str] = &[
    "toolUse",
    "toolResult",
    "reasoningContent",
    "cachePoint",
    "guardContent",
    "citationsContent",
];

impl Dialect for BedrockConverse {
    fn interrupted_block(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        // `status: "error"` requires non-empty content, which the text is.
        Some(json!({"toolResult": {
            "toolUseId": site.call.id.as_deref()?,
            "content": [{"text": text}],
            "status": "error"
        }}))
    }

    fn result_message(&self, block: Json) -> Option<Json> {
        Some(json!({"role": "user", "content": [block]}))
    }

    fn error_content(&self, text: &str) -> Option<Json> {
        Some(json!([{ "text": text }]))
    }
}

impl Adapter for BedrockConverse {
    fn format(&self) -> Format {
        Format::BedrockConverse
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        if let Some(message) = doc.get("output").and_then(|o| o.get("message")) {
            let converse = doc.get("stopReason").is_some() && is_converse_message(message);
            return converse.then_some(80);
        }
        let messages = array_at(doc, "messages").or_else(|| doc.as_array())?;
        // A Converse message has a role (one pass: every document is asked).
        if messages.is_empty() || !messages.iter().all(is_converse_message) {
            return None;
        }
        let converse_blocks = messages
            .iter()
            .flat_map(|m| array_at(m, "content").into_iter().flatten())
            .any(|b| CONVERSE_BLOCKS.iter().any(|k| b.get(k).is_some()));
        let converse_config = doc.get("toolConfig").is_some()
            || doc.get("inferenceConfig").is_some()
            || array_at(doc, "system").is_some_and(|s| s.iter().all(untyped_block));
        if converse_blocks {
            Some(85)
        } else if converse_config {
            Some(70)
        } else if doc.is_object() {
            // Untyped `{text}` blocks: not OpenAI or Anthropic, whose parts carry `type`.
            Some(30)
        } else {
            None
        }
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        docs.iter().map(normalise_doc).collect()
    }
}

/// A block without a `type` field (Converse unions are keyed by their single field).
fn untyped_block(block: &Tree) -> bool {
    block.as_object().is_some_and(|b| !b.contains_key("type"))
}

/// `{role: user|assistant, content: [untyped blocks]}`.
fn is_converse_message(message: &Tree) -> bool {
    matches!(str_at(message, "role"), Some("user" | "assistant"))
        && array_at(message, "content").is_some_and(|c| c.iter().all(untyped_block))
}

fn normalise_doc(doc: &Doc<'_>) -> Result<Conversation, String> {
    let root = Loc::new(doc.base, "");
    let mut conv = Conversation::new(Format::BedrockConverse, root.clone(), Pairing::NextTurn);
    conv.results_role = Role::User;
    conv.results_first = true;
    if let Some(message) = doc.value.get("output").and_then(|o| o.get("message")) {
        conv.is_response = true;
        push_message(&mut conv, message, &root.child(("output", "message")))?;
        return Ok(conv);
    }
    let (messages, messages_loc) = match doc.value {
        Tree::Array(messages) => (messages, root.clone()),
        _ => (
            array_at(doc.value, "messages").ok_or("expected a `messages` array")?,
            root.child("messages"),
        ),
    };
    read_tools(doc.value, &root, &mut conv);
    if doc.value.is_object() {
        // A request body: `toolConfig` is required once messages hold tool blocks.
        conv.declares_tools = Some(doc.value.get("toolConfig").is_some_and(|c| !c.is_null()));
        conv.thinking = thinking_enabled(doc.value);
    }
    for (i, message) in messages.iter().enumerate() {
        push_message(&mut conv, message, &messages_loc.child(i))?;
    }
    Ok(conv)
}

/// One Converse message as a turn of its own (also Strands session files).
pub(crate) fn push_message(
    conv: &mut Conversation,
    message: &Tree,
    mloc: &Loc,
) -> Result<(), String> {
    let role = match str_at(message, "role") {
        Some("assistant") => Role::Assistant,
        Some("user") => Role::User,
        Some(other) => return Err(format!("unexpected role \"{other}\" at {}", mloc.pointer)),
        None => return Err(format!("message without a `role` at {}", mloc.pointer)),
    };
    let blocks = array_at(message, "content").map_or(&[][..], Vec::as_slice);
    // Each message is a turn of its own.
    conv.start_turn(role, mloc.clone());
    for (j, block) in blocks.iter().enumerate() {
        // Cache points mark a prefix; they are neither text nor tool traffic.
        if block.get("cachePoint").is_some() {
            continue;
        }
        let loc = mloc.child(("content", j));
        let empty = block
            .get("toolResult")
            .and_then(|r| r.get("content"))
            .and_then(Tree::as_array)
            .is_some_and(Vec::is_empty);
        if empty {
            let content = loc.child(("toolResult", "content"));
            conv.empty_results.push((loc.clone(), content));
        }
        conv.push_to_last(block_item(block, loc, mloc));
    }
    Ok(())
}

fn block_item(block: &Tree, loc: Loc, mloc: &Loc) -> Item {
    if let Some(call) = block.get("toolUse") {
        let id = str_at(call, "toolUseId").map(str::to_string);
        let body = loc.child("toolUse");
        let input = call.get("input");
        return Item::Call(ToolCall {
            key: pairing_key(id.as_deref(), &loc),
            id,
            name: str_at(call, "name").unwrap_or_default().to_string(),
            kind: CallKind::Function,
            arguments: match input {
                None => Arguments::Absent,
                Some(v) => Arguments::value(v.to_serde()),
            },
            args_loc: if input.is_some() {
                body.child("input")
            } else {
                body
            },
            loc,
            message: mloc.clone(),
        });
    }
    if let Some(result) = block.get("toolResult") {
        let call_id = str_at(result, "toolUseId").map(str::to_string);
        let content = result.get("content").unwrap_or(&Tree::Null);
        let text = content_text(content);
        let is_error = match str_at(result, "status") {
            Some(status) => status == "error",
            // `status` is only supported by some models: without it, judge the content.
            None => looks_like_error(&Tree::String(text.clone().into())) || json_error(content),
        };
        return Item::Result(ToolResult {
            key: pairing_key(call_id.as_deref(), &loc),
            call_id,
            name: None,
            is_error,
            text,
            provider_executed: false,
            id_field: None,
            loc,
            message: mloc.clone(),
        });
    }
    let text = Text {
        loc,
        message: mloc.clone(),
    };
    if block.get("reasoningContent").is_some() {
        return Item::Thinking(text);
    }
    Item::Text(text)
}

/// Whether a Converse request enables Claude's extended thinking, which it passes through
/// `additionalModelRequestFields.thinking` (`{"type": "enabled", "budget_tokens": N}`):
/// `Some(true)` enabled, `Some(false)` absent or disabled, `None` for other settings
/// (adaptive thinking), where a turn without reasoning proves nothing.
fn thinking_enabled(doc: &Tree) -> Option<bool> {
    let thinking = doc
        .get("additionalModelRequestFields")
        .and_then(|f| f.get("thinking"));
    match thinking.map(|t| str_at(t, "type")) {
        None | Some(Some("disabled")) => Some(false),
        Some(Some("enabled")) => Some(true),
        Some(_) => None,
    }
}

/// The text of a result's content: its `text` blocks and serialised `json` blocks.
fn content_text(content: &Tree) -> String {
    let Tree::Array(blocks) = content else {
        return result_text(content);
    };
    let parts: Vec<Tree> = blocks
        .iter()
        .filter_map(|b| match (b.get("text"), b.get("json")) {
            (Some(Tree::String(text)), _) => Some(Tree::String(text.clone())),
            (_, Some(json)) => Some(Tree::String(json.to_string().into())),
            _ => None,
        })
        .collect();
    result_text(&Tree::Array(parts))
}

/// A `{json: {error: ...}}` result block.
fn json_error(content: &Tree) -> bool {
    content
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b.get("json"))
        .any(looks_like_error)
}

/// Reads `toolConfig.tools`: `toolSpec` entries (JSON Schema in `inputSchema.json`) and
/// `systemTool` built-ins; `cachePoint` entries are skipped.
fn read_tools(container: &Tree, root: &Loc, conv: &mut Conversation) {
    let Some(tools) = container
        .get("toolConfig")
        .and_then(|c| array_at(c, "tools"))
    else {
        return;
    };
    let tools_loc = root.child(("toolConfig", "tools"));
    for (k, tool) in tools.iter().enumerate() {
        let loc = tools_loc.child(k);
        let (spec, spec_key, builtin) = match (tool.get("toolSpec"), tool.get("systemTool")) {
            (Some(spec), _) => (spec, "toolSpec", false),
            (None, Some(system)) => (system, "systemTool", true),
            _ => continue,
        };
        let Some(name) = str_at(spec, "name") else {
            continue;
        };
        let schema = spec.get("inputSchema").and_then(|s| s.get("json"));
        let spec_loc = loc.child(spec_key);
        conv.tools.push(ToolDef {
            builtin,
            ..ToolDef::declared(
                name,
                schema,
                loc,
                spec_loc.child(("inputSchema", "json")),
            )
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::detect;
    use crate::lint::lint_str;
    use crate::transcript::SchemaDecl;
    use crate::tree_json;

    fn codes(text: &str) -> Vec<String> {
        lint_str("x.json", text).codes()
    }

    fn detected(text: &str) -> Option<Format> {
        let value: Tree = crate::tree::parse(text).ok()?.value;
        detect(&value).map(|a| a.format())
    }

    fn conversation(value: Tree) -> Option<Conversation> {
        BedrockConverse
            .normalise(&[Doc {
                base: 0,
                value: &value,
            }])
            .ok()?
            .into_iter()
            .next()
    }

    const CLEAN_REQUEST: &str =
        include_str!("../../../../fixtures/bedrock-converse/clean-converse-request.json");
    const CLEAN_RESPONSE: &str =
        include_str!("../../../../fixtures/bedrock-converse/clean-converse-response.json");
    const BROKEN_PAIRING: &str =
        include_str!("../../../../fixtures/bedrock-converse/broken-converse-pairing.json");
    const BROKEN_ARGUMENTS: &str =
        include_str!("../../../../fixtures/bedrock-converse/broken-converse-arguments.json");

    #[test]
    fn fixtures_are_detected_as_bedrock() {
        for text in [
            CLEAN_REQUEST,
            CLEAN_RESPONSE,
            BROKEN_PAIRING,
            BROKEN_ARGUMENTS,
        ] {
            assert_eq!(detected(text), Some(Format::BedrockConverse));
        }
    }

    #[test]
    fn clean_fixtures_have_no_findings() {
        assert_eq!(codes(CLEAN_REQUEST), Vec::<String>::new());
        assert_eq!(codes(CLEAN_RESPONSE), Vec::<String>::new());
    }

    #[test]
    fn broken_pairing() {
        assert_eq!(
            codes(BROKEN_PAIRING),
            [
                "TC101@6:9",
                "TC515@16:9",
                "TC104@33:9",
                "TC105@97:9",
                "TC102@113:9",
                "TC515@150:9",
                "TC103@153:9",
                "TC103@196:9",
                "TC515@206:9"
            ]
        );
    }

    #[test]
    fn broken_arguments() {
        assert_eq!(
            codes(BROKEN_ARGUMENTS),
            ["TC203@18:22", "TC202@25:22", "TC202@29:22", "TC203@38:22"]
        );
    }

    #[test]
    fn leaves_anthropic_and_openai_files_alone() {
        let anthropic = r#"{
            "model": "claude-sonnet-4-5", "max_tokens": 1024,
            "system": [{"type": "text", "text": "Be brief."}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01", "name": "f", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "ok"}]}
            ]
        }"#;
        assert_eq!(detected(anthropic), Some(Format::Anthropic));
        let anthropic_plain =
            r#"{"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}]}"#;
        assert_eq!(detected(anthropic_plain), Some(Format::Anthropic));
        let openai = r#"{"messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": "hello"}
        ]}"#;
        assert_eq!(detected(openai), Some(Format::OpenAiChat));
    }

    #[test]
    fn detects_plain_requests_and_bare_arrays() {
        let plain = r#"{"system": [{"text": "Be brief."}], "messages": [{"role": "user", "content": [{"text": "hi"}]}]}"#;
        assert_eq!(detected(plain), Some(Format::BedrockConverse));
        let bare = r#"[
            {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_1", "name": "f", "input": {}}}]},
            {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_1", "content": [{"text": "ok"}]}}]}
        ]"#;
        assert_eq!(detected(bare), Some(Format::BedrockConverse));
        assert_eq!(codes(bare), Vec::<String>::new());
    }

    #[test]
    fn error_flag_and_result_text() {
        let conv = conversation(tree_json!({"messages": [
            {"role": "assistant", "content": [
                {"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}},
                {"toolUse": {"toolUseId": "t2", "name": "f", "input": {}}},
                {"toolUse": {"toolUseId": "t3", "name": "f", "input": {}}},
                {"toolUse": {"toolUseId": "t4", "name": "f", "input": {}}}
            ]},
            {"role": "user", "content": [
                {"cachePoint": {"type": "default"}},
                {"toolResult": {"toolUseId": "t1", "content": [{"text": "timed out"}], "status": "error"}},
                {"toolResult": {"toolUseId": "t2", "content": [{"text": "Error: no such file"}]}},
                {"toolResult": {"toolUseId": "t3", "content": [{"json": {"error": "denied"}}]}},
                {"toolResult": {"toolUseId": "t4", "content": [{"text": "Error: ignored"}], "status": "success"}}
            ]}
        ]}))
        .expect("a conversation");
        let flags: Vec<(bool, &str)> = conv
            .results()
            .map(|(_, r)| (r.is_error, r.text.as_str()))
            .collect();
        assert_eq!(
            flags,
            [
                (true, "timed out"),
                (true, "Error: no such file"),
                (true, r#"{"error":"denied"}"#),
                (false, "Error: ignored")
            ]
        );
        // The cache point is not text: results still come first.
        assert_eq!(conv.turns[1].items.len(), 4);
    }

    #[test]
    fn reads_tool_specs() {
        let conv = conversation(tree_json!({
            "messages": [],
            "toolConfig": {"tools": [
                {"toolSpec": {"name": "a", "inputSchema": {"json": {"type": "object"}}}},
                {"cachePoint": {"type": "default"}},
                {"toolSpec": {"name": "b", "inputSchema": {"json": "{\"type\": \"object\"}"}}},
                {"toolSpec": {"name": "c"}}
            ]}
        }))
        .expect("a conversation");
        let tools: Vec<(&str, bool, &str)> = conv
            .tools
            .iter()
            .map(|t| {
                (
                    t.name.as_str(),
                    matches!(t.schema, Some(SchemaDecl::Encoded(_))),
                    t.schema_loc.pointer.as_str(),
                )
            })
            .collect();
        assert_eq!(
            tools,
            [
                ("a", false, "/toolConfig/tools/0/toolSpec/inputSchema/json"),
                ("b", true, "/toolConfig/tools/2/toolSpec/inputSchema/json"),
                ("c", false, "/toolConfig/tools/3"),
            ]
        );
    }

    #[test]
    fn reads_calls_and_rejects_bad_roles() {
        let conv = conversation(tree_json!({"messages": [
            {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f"}}]}
        ]}))
        .expect("a conversation");
        let (_, call) = conv.calls().next().expect("one call");
        assert_eq!(call.arguments, Arguments::Absent);
        assert_eq!(call.args_loc.pointer, "/messages/0/content/0/toolUse");
        assert_eq!(call.loc.pointer, "/messages/0/content/0");
        let bad = tree_json!({"messages": [{"role": "system", "content": [{"text": "x"}]}]});
        assert!(conversation(bad).is_none());
    }
}
