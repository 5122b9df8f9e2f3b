//! Letta agent files (`.af`): an agent exported with its messages, tools and memory
//! (letta-ai/letta `letta/schemas/agent_file.py`: `AgentFileSchema`, `AgentSchema`,
//! `MessageSchema`; samples in letta-ai/agent-file).
//!
//! Two generations:
//! - current: `{agents:[{id, messages, in_context_message_ids, llm_config, …}], tools,
//!   blocks, groups, files, sources, mcp_servers, …}`;
//! - 0.6/0.7: one flat agent `{agent_type, llm_config, core_memory, messages, tools, system,
//!   version, in_context_message_indices}` (0.6.43 marks each message `in_context: true`
//!   instead). These were read as OpenAI Chat before, and a re-rendered system message that
//!   sits between a call and its result in `messages` looked like a misplaced result.
//!
//! The conversation the model is sent is the in-context list, not `messages` (which keeps
//! superseded system messages): the ids, indices or flags in that order. The export lists at
//! most 50 messages, so in-context ids may point outside the file; those are left out, and
//! a result whose call is among them is not an orphan (the history goes on, on the server).
//! Messages are OpenAI Chat: `{role, content:[{type:"text", text}], tool_calls:[{id,
//! function:{name, arguments: S}}], tool_call_id}`; a tool message failed when its
//! `tool_returns[].status` is `"error"` or its packaged result says `"status": "Failed"`
//! (`package_function_response`). Tools are `tools[].json_schema` (`{name, description,
//! parameters}`), the provider `llm_config.model_endpoint_type`. Some files are a JSON
//! string holding the JSON: read through the string.
//!
//! Fixes: a result the context holds no call for (an orphaned tool message) is taken out of
//! the context, not out of the file: its id leaves `in_context_message_ids` (its index
//! leaves `in_context_message_indices`, or its `in_context` flag turns `false` in 0.6.43
//! files), one edit, and the message stays in `messages` as history, as Letta keeps
//! messages it evicts. Nothing is renumbered: Letta builds the context from those ids
//! (`agent_serialization_manager.py` `import_file`) or indices (`agent_manager.py`
//! `deserialize`), and the messages keep their places. Other repairs are withheld with a note:
//! inserting a result means a new message with a new id in two lists; a call is located
//! only to its message here, so nothing inside one is edited; and in a file that is a JSON
//! string holding the agent file, every edit would be inside that string.

use serde_json::Value as Json;

use super::calls::{self, Message, ModelCall};
use super::otlp::{self, Place};
use super::{str_at, Adapter, Dialect, Doc, Format, Planned};
use crate::edit::json_edit::{self, split_index};
use crate::edit::plan::EditContext;
use crate::finding::{Edit, FixIntent};
use crate::transcript::{Conversation, Item, Loc, Role};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain letta` prints (Markdown).
pub(super) const DOC: &str = r#"Letta agent files (`.af`, picked by walks): the current schema (`agents[].messages` with `in_context_message_ids`, `tools[].json_schema`) and the 0.6/0.7 flat agent (`llm_config`, `messages`, `in_context_message_indices`, or per-message `in_context`); the conversation is the in-context list in its order (superseded system messages left out; ids outside the export skipped), OpenAI Chat messages with `[{type: "text", text}]` content; `tool_returns[].status: "error"` and packaged `"status": "Failed"` results are failures; held to `llm_config.model_endpoint_type`; files stored as a JSON string of JSON are read; fixes: a result whose call the context does not hold leaves the context (its id leaves `in_context_message_ids`, its index `in_context_message_indices`, or its `in_context` flag turns `false`; the message stays in `messages`, nothing is renumbered); other repairs, and every repair in a file stored as a JSON string, are withheld with a note saying why"#;

pub struct Letta;

impl Dialect for Letta {}

/// Whether a value is a current agent file (`agents` of agents with in-context ids).
fn is_current(doc: &Json) -> bool {
    doc.get("agents")
        .and_then(Json::as_array)
        .is_some_and(|agents| {
            !agents.is_empty()
                && agents.iter().all(|a| {
                    a.get("messages").is_some_and(Json::is_array)
                        && a.get("in_context_message_ids").is_some_and(Json::is_array)
                })
        })
}

/// Whether a value is a 0.6/0.7 flat agent.
fn is_flat(doc: &Json) -> bool {
    doc.get("messages").is_some_and(Json::is_array)
        && doc.get("llm_config").is_some_and(Json::is_object)
        && (doc.get("agent_type").is_some() || doc.get("core_memory").is_some())
}

/// The document as JSON, and where its parts are: a file that is a JSON string holding the
/// JSON is read through the string (every part then at the string).
fn document(value: &Tree, base: usize) -> Option<(Json, Place)> {
    let loc = Loc::new(base, "");
    match value {
        Tree::String(text) => {
            let inner = text.as_str();
            // Cheap refusal before parsing a string that cannot be an agent file.
            if !(inner.contains("\"agents\"") || inner.contains("\"llm_config\"")) {
                return None;
            }
            let json = crate::json::parse_value(inner).ok()?;
            Some((
                json,
                Place {
                    loc,
                    precise: false,
                },
            ))
        }
        Tree::Object(map) if map.contains_key("agents") || map.contains_key("llm_config") => {
            Some((value.to_serde(), Place { loc, precise: true }))
        }
        _ => None,
    }
}

impl Adapter for Letta {
    fn format(&self) -> Format {
        Format::Letta
    }

    /// Above OpenAI Chat, which an old flat agent's `messages` also fit.
    fn sniff(&self, doc: &Tree) -> Option<u8> {
        let (json, _) = document(doc, 0)?;
        (is_current(&json) || is_flat(&json)).then_some(95)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let mut out = Vec::new();
        for doc in docs {
            let (json, place) = document(doc.value, doc.base)
                .filter(|(j, _)| is_current(j) || is_flat(j))
                .ok_or("expected a Letta agent file (`agents` with `in_context_message_ids`, or a 0.6 agent with `llm_config` and `messages`)")?;
            let tools = tools(&json, &place);
            if is_current(&json) {
                let agents = json.get("agents").and_then(Json::as_array);
                for (i, agent) in agents.into_iter().flatten().enumerate() {
                    let at = Place {
                        loc: place.child("agents").child(i),
                        precise: place.precise,
                    };
                    out.push(agent_conversation(agent, &at, tools.clone()));
                }
            } else {
                out.push(agent_conversation(&json, &place, tools));
            }
        }
        Ok(out)
    }

    /// An orphaned tool message leaves the context (one edit in the in-context list); every
    /// other repair is withheld, with the reason.
    fn plan_edits(&self, intent: &FixIntent, cx: &EditContext<'_>) -> Planned {
        if anchor(intent).is_some_and(|at| encoded(&cx.source.text, at.base)) {
            return Planned::Withheld(ENCODED);
        }
        match intent {
            FixIntent::RemoveResult { result, message } if result == message => {
                out_of_context(cx, message)
                    .map_or(Planned::Unsupported, |e| Planned::Edits(vec![e]))
            }
            FixIntent::InsertResult { .. } | FixIntent::GatherResults { .. } => {
                Planned::Withheld(NEW_MESSAGE)
            }
            FixIntent::RemoveCall { .. } | FixIntent::Replace { .. } => Planned::Withheld(INSIDE),
            _ => Planned::Unsupported,
        }
    }
}

/// Why fixes are withheld in a file that is a JSON string holding the agent file.
const ENCODED: &str = "the file is a JSON string holding the agent file, and an edit would have to be made inside that string; fix a decoded copy instead";

/// Why a fix that adds a message is withheld.
const NEW_MESSAGE: &str = "a result is a message of its own in a Letta agent file, with a new id in `messages` and in the in-context list; answer the call in Letta";

/// Why a fix inside a message is withheld.
const INSIDE: &str =
    "toolcheck locates a Letta tool call only to its message, so it edits nothing inside one";

/// A location a fix intent names, to tell which document it is in.
fn anchor(intent: &FixIntent) -> Option<&Loc> {
    Some(match intent {
        FixIntent::RemoveResult { result, .. } => result,
        FixIntent::RemoveCall { call, .. } => call,
        FixIntent::InsertResult { after, .. } => after,
        FixIntent::MoveResult { result, .. } => result,
        FixIntent::GatherResults { into, .. } => into,
        FixIntent::FillErrorResult { content } => content,
        FixIntent::Replace { at, .. } => at,
        FixIntent::MoveBlocks { before, .. } => before,
        FixIntent::AddMember { object, .. } | FixIntent::RemoveMember { object, .. } => object,
    })
}

/// Whether the document at `base` is a JSON string (a double-encoded agent file).
fn encoded(text: &str, base: usize) -> bool {
    text.get(base..)
        .map(str::trim_start)
        .is_some_and(|t| t.starts_with('"'))
}

/// The edit taking the message at `message` (`…/messages/<i>`) out of its agent's context:
/// its one entry in `in_context_message_ids` or `in_context_message_indices` removed, or its
/// `in_context` flag set to `false`. `None` when the context names it other than once.
fn out_of_context(cx: &EditContext<'_>, message: &Loc) -> Option<Edit> {
    let text = cx.source.text.as_str();
    let (list, i) = split_index(&message.pointer)?;
    let agent_at = list.strip_suffix("/messages")?;
    let agent = cx.value_at(&Loc::new(message.base, agent_at))?;
    let entry = agent.get("messages")?.at(i)?;
    let once = |key: &str, is_it: &dyn Fn(&Tree) -> bool| -> Option<Edit> {
        let list = agent.get(key)?.as_array()?;
        let mut at = list
            .iter()
            .enumerate()
            .filter(|(_, v)| is_it(v))
            .map(|(k, _)| k);
        let (Some(k), None) = (at.next(), at.next()) else {
            return None;
        };
        json_edit::remove_element(text, message.base, &format!("{agent_at}/{key}/{k}"))
    };
    if agent.get("in_context_message_ids").is_some() {
        let id = str_at(entry, "id")?;
        return once("in_context_message_ids", &|v| v.as_str() == Some(id));
    }
    if agent.get("in_context_message_indices").is_some() {
        return once("in_context_message_indices", &|v| {
            v.as_u64().and_then(|n| usize::try_from(n).ok()) == Some(i)
        });
    }
    if entry.get("in_context").and_then(Tree::as_bool) == Some(true) {
        let flag = format!("{}/in_context", message.pointer);
        return json_edit::replace_value(text, message.base, &flag, "false".into());
    }
    None
}

/// `tools[].json_schema`, each at its tool.
fn tools(doc: &Json, place: &Place) -> Vec<crate::transcript::ToolDef> {
    let list = doc.get("tools").and_then(Json::as_array);
    list.into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(n, tool)| {
            let loc = place.child("tools");
            let loc = if place.precise { loc.child(n) } else { loc };
            otlp::tool_def(tool.get("json_schema").unwrap_or(tool), &loc)
        })
        .collect()
}

/// Whether some in-context ids name messages the export left out (it lists at most 50):
/// the history goes on before the file, on the Letta server.
fn truncated(agent: &Json) -> bool {
    let messages = agent.get("messages").and_then(Json::as_array);
    let known = |id: &str| {
        messages
            .into_iter()
            .flatten()
            .any(|m| m.get("id").and_then(Json::as_str) == Some(id))
    };
    agent
        .get("in_context_message_ids")
        .and_then(Json::as_array)
        .is_some_and(|ids| ids.iter().filter_map(Json::as_str).any(|id| !known(id)))
}

/// The messages of an agent in the order its context holds them, with their indices.
fn in_context(agent: &Json) -> Vec<(usize, &Json)> {
    let messages = agent
        .get("messages")
        .and_then(Json::as_array)
        .map_or(&[][..], Vec::as_slice);
    if let Some(ids) = agent.get("in_context_message_ids").and_then(Json::as_array) {
        return ids
            .iter()
            .filter_map(|id| {
                let id = id.as_str()?;
                messages
                    .iter()
                    .enumerate()
                    .find(|(_, m)| m.get("id").and_then(Json::as_str) == Some(id))
            })
            .collect();
    }
    if let Some(indices) = agent
        .get("in_context_message_indices")
        .and_then(Json::as_array)
    {
        return indices
            .iter()
            .filter_map(|i| {
                let i = usize::try_from(i.as_u64()?).ok()?;
                Some((i, messages.get(i)?))
            })
            .collect();
    }
    let flagged = messages
        .iter()
        .any(|m| m.get("in_context").is_some_and(Json::is_boolean));
    messages
        .iter()
        .enumerate()
        .filter(|(_, m)| !flagged || m.get("in_context").and_then(Json::as_bool) == Some(true))
        .collect()
}

fn agent_conversation(
    agent: &Json,
    place: &Place,
    tools: Vec<crate::transcript::ToolDef>,
) -> Conversation {
    let context = in_context(agent);
    // Messages out of context are history the model is not sent: left out on purpose.
    let excluded: Vec<Loc> = if place.precise {
        let count = agent
            .get("messages")
            .and_then(Json::as_array)
            .map_or(0, Vec::len);
        let mut sent = vec![false; count];
        for (k, _) in &context {
            if let Some(flag) = sent.get_mut(*k) {
                *flag = true;
            }
        }
        (0..count)
            .filter(|&i| sent.get(i) == Some(&false))
            .map(|i| place.child("messages").child(i))
            .collect()
    } else {
        Vec::new()
    };
    let input: Vec<Message> = context
        .into_iter()
        .map(|(i, message)| {
            let loc = place.child("messages");
            let loc = if place.precise { loc.child(i) } else { loc };
            letta_message(message, loc)
        })
        .collect();
    let provider = agent
        .get("llm_config")
        .and_then(|c| c.get("model_endpoint_type"))
        .and_then(Json::as_str)
        .and_then(crate::provider::from_trace_name);
    let call = ModelCall {
        input,
        output: Vec::new(),
        tools,
        provider,
        failed: false,
        loc: place.loc.clone(),
        start: 0,
        order: 0,
        trace: None,
        rejection: None,
        origins: Vec::new(),
    };
    let mut convs = calls::rebuild(Format::Letta, vec![call], &[]);
    let mut conv = convs.pop().unwrap_or_else(|| {
        Conversation::new(
            Format::Letta,
            place.loc.clone(),
            crate::transcript::Pairing::NextTurn,
        )
    });
    // A result whose call the export left out is expected, not an orphan.
    conv.server_history = truncated(agent);
    conv.excluded.extend(excluded);
    conv
}

/// One message: OpenAI Chat, with Letta's text parts and failure markers.
fn letta_message(message: &Json, loc: Loc) -> Message {
    let mut plain = message.clone();
    // Letta content is `[{type:"text", text}]` (0.6 files may keep `text` instead).
    let text: String = match message.get("content") {
        Some(Json::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Json::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(Json::String(s)) => s.clone(),
        _ => message
            .get("text")
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_string(),
    };
    if let Some(map) = plain.as_object_mut() {
        map.insert("content".into(), Json::String(text.clone()));
    }
    let mut out = otlp::json_message(&plain, loc);
    if out.role == Role::Tool {
        let failed_return = message
            .get("tool_returns")
            .and_then(Json::as_array)
            .is_some_and(|r| {
                r.iter()
                    .any(|t| t.get("status").and_then(Json::as_str) == Some("error"))
            });
        let failed_package = crate::json::parse_value(&text)
            .ok()
            .and_then(|v| {
                v.get("status")
                    .and_then(Json::as_str)
                    .map(|s| s == "Failed")
            })
            .unwrap_or(false);
        for item in &mut out.items {
            if let Item::Result(r) = item {
                r.is_error |= failed_return || failed_package;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::session_docs;
    use crate::tree_json as json;

    #[test]
    fn sniffs_both_generations_and_double_encoding() {
        let current = json!({"agents": [{"id": "agent-0", "messages": [], "in_context_message_ids": []}], "tools": []});
        let flat = json!({"agent_type": "memgpt_agent", "llm_config": {"model": "gpt-4"}, "messages": [{"role": "user", "content": []}]});
        assert_eq!(Letta.sniff(&current), Some(95));
        assert_eq!(Letta.sniff(&flat), Some(95));
        assert_eq!(
            crate::formats::detect(&flat).map(|a| a.format()),
            Some(Format::Letta)
        );
        let text = current.to_serde().to_string();
        let encoded = crate::tree::Value::from_serde(&Json::String(text));
        assert_eq!(Letta.sniff(&encoded), Some(95));
        assert_eq!(
            Letta.sniff(&json!({"messages": [{"role": "user", "content": "hi"}]})),
            None
        );
    }

    /// The in-context ids choose and order the messages; ids outside the export are left out.
    #[test]
    fn in_context_ids_order_the_conversation() {
        let doc = json!({"agents": [{"id": "agent-0", "llm_config": {"model_endpoint_type": "openai"},
        "in_context_message_ids": ["message-2", "message-9", "message-0"],
        "messages": [
            {"id": "message-0", "role": "user", "content": [{"type": "text", "text": "later"}]},
            {"id": "message-1", "role": "system", "content": [{"type": "text", "text": "old"}]},
            {"id": "message-2", "role": "system", "content": [{"type": "text", "text": "new"}]}
        ]}]});
        let convs = Letta
            .normalise(&session_docs(std::slice::from_ref(&doc)))
            .unwrap_or_default();
        let turns: Vec<&str> = convs[0]
            .turns
            .iter()
            .map(|t| t.loc.pointer.as_str())
            .collect();
        assert_eq!(turns, ["/agents/0/messages/2", "/agents/0/messages/0"]);
        assert_eq!(convs[0].provider, Some(crate::provider::Provider::Openai));
        // "message-9" is not in the export: the history goes on before the file.
        assert!(convs[0].server_history);
    }

    /// A 0.6.43 file marks each message `in_context`: the orphan's flag turns `false`, one
    /// edit, and the fixed file lints clean.
    #[test]
    fn an_orphan_leaves_the_context_by_its_flag() {
        let text = r#"{"agent_type": "memgpt_agent", "llm_config": {"model_endpoint_type": "openai"}, "messages": [
  {"role": "user", "in_context": true, "content": [{"type": "text", "text": "hi"}]},
  {"role": "tool", "in_context": true, "tool_call_id": "call_x", "content": [{"type": "text", "text": "done"}]},
  {"role": "assistant", "in_context": true, "content": [{"type": "text", "text": "ok"}]}
]}"#;
        let name = crate::lint::SourceName {
            name: "agent.af".into(),
            path: None,
        };
        let opts = crate::lint::LintOptions::default();
        let fixed = crate::fix::fix_bytes(&name, text.as_bytes().to_vec(), true, &opts, false)
            .expect("fixed");
        assert_eq!(
            fixed.fixed_text(),
            text.replacen(
                r#""role": "tool", "in_context": true"#,
                r#""role": "tool", "in_context": false"#,
                1
            )
        );
        assert!(
            fixed.report.findings.is_empty(),
            "{:?}",
            fixed.report.findings
        );
    }
}
