//! LangSmith run exports: a run as `read_run(id, load_child_runs=True)` returns it (nested
//! `child_runs`), a JSON array of runs, or one run per JSONL line (`list_runs(trace_id=…)`
//! dumped) (langchain-ai/langsmith-sdk `python/langsmith/schemas.py`, `Run`: `{id, name,
//! run_type, start_time, end_time, inputs, outputs, error, extra: {invocation_params,
//! metadata}, parent_run_id, trace_id, dotted_order, child_runs, status}`).
//!
//! Model calls are runs of `run_type: "llm"` (LangChain's tracer also writes `chat_model`):
//! - LangChain callbacks (`langchain_core` `tracers/base.py` `_create_chat_model_run`):
//!   `inputs = {"messages": [[<dumpd message>…]]}`, one list per prompt of the batch (the
//!   first is the conversation), `outputs = {"generations": [[{"message": <dumpd AIMessage>,
//!   "text", "type": "ChatGeneration"}]], "llm_output", "type": "LLMResult"}`, the tools in
//!   `extra.invocation_params.tools`, the provider in `extra.metadata.ls_provider`; messages
//!   are read as the `langchain` format reads them;
//! - `wrap_openai`: `inputs` the `create` keyword arguments (`messages` OpenAI dicts, `tools`),
//!   `outputs` the `ChatCompletion` dump (`choices[0].message`).
//!
//! A run with `error` set or `status: "error"` failed. Rebuilt as the OTLP traces are
//! (`calls::rebuild`): calls whose inputs extend each other are one conversation, checked at
//! its last call. A trace records requests already sent: findings only.

use super::langchain;
use super::calls::{self, Message, ModelCall};
use super::otlp;
use super::{array_at, str_at, Adapter, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{Conversation, Loc, ToolDef};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain langsmith` prints (Markdown).
pub(super) const DOC: &str = r#"LangSmith run exports: a run tree (`child_runs`), an array of runs, or one run per line; `run_type: "llm"` runs with LangChain `dumpd` messages in `inputs.messages[0]` and `outputs.generations[0][0].message` (tools in `extra.invocation_params.tools`, provider `extra.metadata.ls_provider`) or `wrap_openai`'s `create` arguments and `ChatCompletion`; failed tool runs mark the result of their ToolMessage's call; rebuilt and judged as `otel` is; findings only"#;

pub struct Langsmith;

impl Dialect for Langsmith {}

/// Whether a value is a run: `run_type` and `inputs`, and one of the ids a run has
/// (LangChain dumps have none of these).
fn is_run(value: &Tree) -> bool {
    str_at(value, "run_type").is_some()
        && value.get("inputs").is_some_and(Tree::is_object)
        && ["trace_id", "dotted_order", "id"]
            .iter()
            .any(|k| value.get(k).is_some())
}

fn is_model_run(run: &Tree) -> bool {
    matches!(str_at(run, "run_type"), Some("llm" | "chat_model"))
}

/// Whether a run, or a run under it, is a model call.
fn has_model_run(run: &Tree) -> bool {
    let mut stack = vec![run];
    while let Some(run) = stack.pop() {
        if is_model_run(run) {
            return true;
        }
        stack.extend(array_at(run, "child_runs").into_iter().flatten());
    }
    false
}

impl Adapter for Langsmith {
    fn format(&self) -> Format {
        Format::Langsmith
    }

    /// Above the `langchain` format's score: a chat-model run also has `inputs.messages`.
    fn sniff(&self, doc: &Tree) -> Option<u8> {
        let runs = match doc.as_array() {
            Some(list) if list.first().is_some_and(is_run) => list.as_slice(),
            _ if is_run(doc) => std::slice::from_ref(doc),
            _ => return None,
        };
        runs.iter().any(has_model_run).then_some(95)
    }

    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        is_run(record).then_some(95)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let mut calls = Vec::new();
        let mut failed_tools = Vec::new();
        for doc in docs {
            let root = Loc::new(doc.base, "");
            let mut stack: Vec<(&Tree, Loc)> = match doc.value.as_array() {
                Some(list) => list
                    .iter()
                    .enumerate()
                    .map(|(i, run)| (run, root.child(i)))
                    .rev()
                    .collect(),
                None => vec![(doc.value, root)],
            };
            if !stack.iter().all(|(run, _)| is_run(run)) {
                return Err("expected LangSmith runs (`run_type`, `inputs`, `trace_id`)".into());
            }
            while let Some((run, loc)) = stack.pop() {
                if let Some(children) = array_at(run, "child_runs") {
                    stack.extend(
                        children
                            .iter()
                            .enumerate()
                            .map(|(k, child)| (child, loc.child(("child_runs", k))))
                            .rev(),
                    );
                }
                if is_model_run(run) {
                    calls.push(model_call(run, loc, calls.len()));
                } else if str_at(run, "run_type") == Some("tool") && failed(run) {
                    failed_tools.extend(tool_call_id(run));
                }
            }
        }
        if calls
            .iter()
            .all(|c| c.input.is_empty() && c.output.is_empty())
        {
            return Err(
                "the export holds no model-call run (`run_type: \"llm\"`) with messages".into(),
            );
        }
        Ok(calls::rebuild(Format::Langsmith, calls, &failed_tools))
    }

    fn normalise_records(&self, docs: &[Doc<'_>]) -> Option<Result<Vec<Conversation>, String>> {
        Some(self.normalise(docs))
    }

    /// A trace records requests already sent: findings only.
    fn plan_edits(&self, _intent: &FixIntent, _cx: &EditContext<'_>) -> Planned {
        Planned::Unsupported
    }
}

fn failed(run: &Tree) -> bool {
    run.get("error").is_some_and(|e| !e.is_null()) || str_at(run, "status") == Some("error")
}

/// The call a tool run answered: the `tool_call_id` of the ToolMessage it returned.
fn tool_call_id(run: &Tree) -> Option<String> {
    let output = run.get("outputs")?.get("output")?;
    let body = output.get("kwargs").unwrap_or(output);
    str_at(body, "tool_call_id").map(str::to_string)
}

fn model_call(run: &Tree, loc: Loc, order: usize) -> ModelCall {
    let mut pending = Vec::new();
    let mut input = Vec::new();
    let inputs_loc = loc.child("inputs");
    if let Some(list) = run.get("inputs").and_then(|i| array_at(i, "messages")) {
        // A batch: one list per prompt; the first is the conversation.
        let (list, at) = match list.first() {
            Some(Tree::Array(first)) => (first, inputs_loc.child(("messages", 0))),
            _ => (list, inputs_loc.child("messages")),
        };
        for (i, message) in list.iter().enumerate() {
            input.extend(read_message(message, at.child(i), &mut pending));
        }
    }
    let mut output = Vec::new();
    if let Some(outputs) = run.get("outputs") {
        let outputs_loc = loc.child("outputs");
        let generation = array_at(outputs, "generations")
            .and_then(|g| g.first())
            .and_then(Tree::as_array)
            .and_then(|g| g.first())
            .and_then(|g| {
                g.get("message").map(|m| {
                    (
                        m,
                        outputs_loc
                            .child("generations")
                            .child(0)
                            .child(0)
                            .child("message"),
                    )
                })
            });
        let choice = array_at(outputs, "choices")
            .and_then(|c| c.first())
            .and_then(|c| c.get("message"))
            .map(|m| (m, outputs_loc.child(("choices", 0)).child("message")));
        if let Some((message, at)) = generation.or(choice) {
            output.extend(read_message(message, at, &mut pending));
        }
    }
    let mut tools = Vec::new();
    let extra = run.get("extra");
    for (holder, at) in [
        (
            extra.and_then(|e| e.get("invocation_params")),
            loc.child(("extra", "invocation_params")),
        ),
        (run.get("inputs"), inputs_loc),
    ] {
        tools.extend(declared_tools(holder, &at));
    }
    let (trace, id) = (str_at(run, "trace_id"), str_at(run, "id"));
    let origins = crate::transcript::Origin::record(&loc, trace, id, ["inputs", "outputs"]);
    ModelCall {
        input,
        output,
        tools,
        provider: extra
            .and_then(|e| e.get("metadata"))
            .and_then(|m| str_at(m, "ls_provider"))
            .and_then(crate::provider::from_trace_name),
        failed: failed(run),
        start: str_at(run, "start_time").map_or(0, otlp::iso_nanos),
        loc,
        order,
        trace: str_at(run, "trace_id").map(str::to_string),
        rejection: str_at(run, "error").map(str::to_string),
        origins,
    }
}

/// One input or output message: LangChain's (`dumpd`, `messages_to_dict`, `model_dump`) or
/// an OpenAI dict.
fn read_message(message: &Tree, at: Loc, pending: &mut Vec<(String, String)>) -> Option<Message> {
    if langchain::is_message(message) {
        let (role, items) = langchain::message_items(message, &at, pending)?;
        return Some(Message {
            role,
            items,
            print: message.to_serde().to_string(),
            loc: at,
        });
    }
    message
        .get("role")
        .is_some()
        .then(|| otlp::json_message(&message.to_serde(), at))
}

fn declared_tools(holder: Option<&Tree>, at: &Loc) -> Vec<ToolDef> {
    let Some(list) = holder.and_then(|h| array_at(h, "tools")) else {
        return Vec::new();
    };
    list.iter()
        .enumerate()
        .filter_map(|(n, def)| otlp::tool_def(&def.to_serde(), &at.child(("tools", n))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::session_docs;
    use crate::tree_json as json;

    #[test]
    fn sniffs_runs_above_langchain() {
        let run = json!({"id": "r", "trace_id": "t", "run_type": "llm", "inputs": {"messages": [[
            {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"], "kwargs": {"content": "hi"}}
        ]]}});
        assert_eq!(
            crate::formats::detect(&run).map(|a| a.format()),
            Some(Format::Langsmith)
        );
        let chain = json!({"id": "r", "trace_id": "t", "run_type": "chain", "inputs": {}, "child_runs": [run.clone()]});
        assert_eq!(Langsmith.sniff(&chain), Some(95));
        // Near misses: a chain without model calls, a LangChain state dump.
        assert_eq!(
            Langsmith
                .sniff(&json!({"id": "r", "trace_id": "t", "run_type": "chain", "inputs": {}})),
            None
        );
        assert_eq!(
            Langsmith.sniff(&json!({"inputs": {"messages": [[]]}})),
            None
        );
    }

    /// A failed tool run marks the result of the call its ToolMessage answers.
    #[test]
    fn failed_tool_runs_mark_results() {
        let tool = |id: &str| json!({"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"], "kwargs": {"content": "429", "tool_call_id": id}});
        let ai = json!({"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"], "kwargs": {"content": "", "tool_calls": [{"name": "f", "args": {}, "id": "c1"}]}});
        let runs = json!([
            {"id": "a", "trace_id": "t", "run_type": "tool", "inputs": {"input": "{}"}, "status": "error", "error": "429", "outputs": {"output": tool("c1")}},
            {"id": "b", "trace_id": "t", "run_type": "llm", "inputs": {"messages": [[ai, tool("c1")]]}, "outputs": null}
        ]);
        let convs = Langsmith
            .normalise(&session_docs(std::slice::from_ref(&runs)))
            .unwrap_or_default();
        let conv = convs.first().expect("one conversation");
        assert!(conv.results().all(|(_, r)| r.is_error));
        assert!(!conv.accepted);
    }
}
