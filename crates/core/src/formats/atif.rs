//! Harbor ATIF trajectories (`trajectory.json`, the Agent Trajectory Interchange Format of
//! harbor-framework/harbor `docs/rfcs/0001-trajectory-format.md`): an evaluation and
//! training record converted from many agents (Claude Code, Codex, OpenHands, Terminus).
//!
//! `{schema_version: "ATIF-v1.x", session_id, agent: {name, version, model_name,
//! tool_definitions?}, steps: [Step]}`, a step `{step_id, source: system|user|agent, message,
//! tool_calls?: [{tool_call_id, function_name, arguments: object}], observation?: {results:
//! [{source_call_id?, content?}]}}`. A call and its result are in the same agent step
//! (`source_call_id` = `tool_call_id`): read as the step's assistant turn followed by a turn
//! of its results. A result without `source_call_id` answers no call (a non-tool action, a
//! terminal screen). `arguments` must be an object, so a string there is read as the value
//! it is. The format has no error flag; producers write `extra.is_error`,
//! `extra.tool_result_is_error` or `extra.status: "error"`. Tools: `agent.tool_definitions`
//! (OpenAI function format, v1.5+). A record, not state that is replayed: findings only.

use super::{array_at, str_at, Adapter, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{
    pairing_key, result_text, Arguments, CallKind, Conversation, Item, Loc, Pairing, Role, Text,
    ToolCall, ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain atif` prints (Markdown).
pub(super) const DOC: &str = r#"Harbor ATIF trajectories (`trajectory.json`, `schema_version: "ATIF-v1.x"`): each step's `tool_calls` (`{tool_call_id, function_name, arguments}`, an object) answered in the same step's `observation.results` by `source_call_id` (results without one answer nothing); failures from producers' `extra.is_error` / `extra.tool_result_is_error` / `extra.status: "error"`; tools from `agent.tool_definitions`; findings only"#;

pub struct Atif;

impl Dialect for Atif {}

impl Adapter for Atif {
    fn format(&self) -> Format {
        Format::Atif
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        let versioned = str_at(doc, "schema_version").is_some_and(|v| v.starts_with("ATIF-"));
        (versioned && array_at(doc, "steps").is_some()).then_some(90)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        docs.iter().map(normalise_doc).collect()
    }

    /// A record of a finished run: findings only.
    fn plan_edits(&self, _intent: &FixIntent, _cx: &EditContext<'_>) -> Planned {
        Planned::Unsupported
    }
}

/// Whether a result's producer marked it failed.
fn marked_failed(result: &Tree) -> bool {
    let Some(extra) = result.get("extra") else {
        return false;
    };
    ["is_error", "tool_result_is_error"]
        .iter()
        .any(|k| extra.get(k).and_then(Tree::as_bool) == Some(true))
        || str_at(extra, "status") == Some("error")
}

fn normalise_doc(doc: &Doc<'_>) -> Result<Conversation, String> {
    let root = Loc::new(doc.base, "");
    let steps = array_at(doc.value, "steps").ok_or("expected an ATIF trajectory (`steps`)")?;
    let mut conv = Conversation::new(Format::Atif, root.clone(), Pairing::NextTurn);
    if let Some(defs) = doc
        .value
        .get("agent")
        .and_then(|a| array_at(a, "tool_definitions"))
    {
        let at = root.child(("agent", "tool_definitions"));
        conv.tools = defs
            .iter()
            .enumerate()
            .filter_map(|(n, d)| super::otlp::tool_def(&d.to_serde(), &at.child(n)))
            .collect();
    }
    for (i, step) in steps.iter().enumerate() {
        let sloc = root.child(("steps", i));
        let role = match str_at(step, "source") {
            Some("agent") => Role::Assistant,
            Some("system") => Role::System,
            _ => Role::User,
        };
        conv.start_turn(role, sloc.clone());
        if str_at(step, "message").is_some_and(|m| !m.trim().is_empty()) {
            conv.push_to_last(Item::Text(Text {
                loc: sloc.child("message"),
                message: sloc.clone(),
            }));
        }
        for (j, call) in array_at(step, "tool_calls")
            .into_iter()
            .flatten()
            .enumerate()
        {
            let loc = sloc.child(("tool_calls", j));
            let id = str_at(call, "tool_call_id").map(str::to_string);
            let args = call.get("arguments");
            conv.push_to_last(Item::Call(ToolCall {
                key: pairing_key(id.as_deref(), &loc),
                id,
                name: str_at(call, "function_name")
                    .unwrap_or_default()
                    .to_string(),
                kind: CallKind::Function,
                arguments: args.map_or(Arguments::Absent, |a| Arguments::value(a.to_serde())),
                args_loc: if args.is_some() {
                    loc.child("arguments")
                } else {
                    loc.clone()
                },
                loc,
                message: sloc.clone(),
            }));
        }
        let results = step.get("observation").and_then(|o| array_at(o, "results"));
        let mut answered = false;
        for (k, result) in results.into_iter().flatten().enumerate() {
            let Some(id) = str_at(result, "source_call_id") else {
                continue;
            };
            if !answered {
                conv.start_turn(Role::Tool, sloc.child("observation"));
                answered = true;
            }
            let loc = sloc.child(("observation", "results")).child(k);
            conv.push_to_last(Item::Result(ToolResult {
                key: id.to_string(),
                call_id: Some(id.to_string()),
                name: None,
                is_error: marked_failed(result),
                text: result.get("content").map(result_text).unwrap_or_default(),
                provider_executed: false,
                id_field: None,
                message: loc.clone(),
                loc,
            }));
        }
    }
    Ok(conv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree_json as json;

    #[test]
    fn sniffs_trajectories_only() {
        assert_eq!(
            Atif.sniff(&json!({"schema_version": "ATIF-v1.4", "session_id": "s", "steps": []})),
            Some(90)
        );
        assert_eq!(Atif.sniff(&json!({"steps": []})), None);
        assert_eq!(Atif.sniff(&json!({"schema_version": "ATIF-v1.8"})), None);
    }
}
