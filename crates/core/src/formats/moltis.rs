//! Moltis sessions (`<data_dir>/sessions/v1/k<hex key>/history.jsonl`, legacy
//! `<data_dir>/sessions/<key>.jsonl`): one append-only JSONL file is one conversation.
//!
//! Lines are `PersistedMessage`s tagged by `role`: `system`, `notice` (shown in the UI only,
//! never sent to a model), `user`, `assistant`, `tool` and `tool_result`. Assistant lines carry
//! OpenAI `tool_calls` (arguments as a JSON string); Moltis writes one assistant line per
//! finished call, followed by its `tool_result` line `{tool_call_id, tool_name, arguments,
//! success, result, error}`, where `arguments` is the object the tool ran with. `tool` lines
//! are plain OpenAI tool messages, written as compaction stubs.
//!
//! On reload Moltis turns the lines back into OpenAI-shaped messages for whichever provider
//! the session uses, so results pair with the turn right after their call, and a trailing
//! unanswered call is sent again with the next prompt (`resumable`).

use serde_json::{json, Value as Json};

use super::openai_chat::{push_tool_calls, tool_record_result};
use super::adapter::{read_in_order_by, InOrder};
use super::{has_text, str_at, Adapter, CallSite, Dialect, Doc, Format};
use crate::transcript::{
    looks_like_error, Conversation, EchoedArguments, Item, Loc, Mark, Pairing, Role, Text,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain moltis` prints (Markdown).
pub(super) const DOC: &str = r#"Moltis session `history.jsonl` (`~/.moltis/sessions/v1/k<key>/`, legacy `sessions/<key>.jsonl`): assistant `tool_calls`, `tool_result` lines (`success: false` / `error` fail), compaction stubs; arguments repeated on results are compared with the call's"#;

pub struct Moltis;

const ROLES: [&str; 6] = [
    "system",
    "notice",
    "user",
    "assistant",
    "tool",
    "tool_result",
];

/// Fields only Moltis writes on message lines (camelCase token counters, run bookkeeping).
const MARKS: [&str; 5] = ["run_id", "seq", "inputTokens", "outputTokens", "durationMs"];

impl Dialect for Moltis {
    fn interrupted_result(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        let call = site.call;
        let id = call.id.as_ref()?;
        let mut line = serde_json::Map::new();
        line.insert("role".into(), json!("tool_result"));
        line.insert("tool_call_id".into(), json!(id));
        line.insert("tool_name".into(), json!(call.name));
        // What the call asked for, as Moltis echoes it; left out when it does not parse.
        if let Some(args) = call.arguments.object() {
            line.insert("arguments".into(), Json::Object(args));
        }
        line.insert("success".into(), json!(false));
        // Moltis shows the model "Error: <error>", so the prefix is not repeated.
        let error = text.strip_prefix("Error: ").unwrap_or(text);
        line.insert("error".into(), json!(error));
        for key in ["created_at", "run_id"] {
            if let Some(value) = site.record.and_then(|r| r.get(key)) {
                line.insert(key.into(), value.to_serde());
            }
        }
        Some(Json::Object(line))
    }
}

impl Adapter for Moltis {
    fn format(&self) -> Format {
        Format::Moltis
    }

    fn has_documents(&self) -> bool {
        false
    }

    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        let role = str_at(record, "role").filter(|r| ROLES.contains(r))?;
        match role {
            "tool_result" => {
                let shaped = str_at(record, "tool_call_id").is_some()
                    && record.get("success").is_some_and(Tree::is_boolean);
                shaped.then_some(90)
            }
            "notice" => Some(60),
            // A bare chat message is not enough: Moltis stamps lines with epoch milliseconds
            // and run bookkeeping.
            _ => {
                let stamped = record.get("created_at").is_some_and(Tree::is_u64)
                    || MARKS.iter().any(|k| record.get(k).is_some());
                stamped.then_some(40)
            }
        }
    }

    read_in_order_by!(History);
}

/// A history as read so far.
struct History {
    conv: Conversation,
    recognised: bool,
}

impl History {
    /// One line of the history.
    fn read_line(&mut self, doc: Doc<'_>) {
        let record = doc.value;
        let mloc = Loc::new(doc.base, "");
        let Some(role) = str_at(record, "role").filter(|r| ROLES.contains(r)) else {
            return;
        };
        self.recognised = true;
        match role {
            "notice" => {}
            "tool" => {
                let content = record.get("content").unwrap_or(&Tree::Null);
                let result = tool_record_result(record, &mloc, looks_like_error(content), content);
                self.conv.push(Role::Tool, &mloc, Item::Result(result));
            }
            "tool_result" => read_tool_result(record, &mloc, &mut self.conv),
            _ => {
                let role = match role {
                    "assistant" => Role::Assistant,
                    "user" => Role::User,
                    _ => Role::System,
                };
                self.conv.start_turn(role, mloc.clone());
                if has_text(record.get("content")) {
                    self.conv.push_to_last(Item::Text(Text {
                        loc: mloc.child("content"),
                        message: mloc.clone(),
                    }));
                }
                if role == Role::Assistant {
                    push_tool_calls(&mut self.conv, record, &mloc);
                }
            }
        }
    }
}

impl InOrder for History {
    fn new(first: usize) -> Self {
        let mut conv = Conversation::new(Format::Moltis, Loc::new(first, ""), Pairing::NextTurn);
        conv.resumable = true;
        History {
            conv,
            recognised: false,
        }
    }

    fn read(&mut self, doc: Doc<'_>) -> Mark {
        let mark = self.conv.mark();
        self.read_line(doc);
        mark
    }

    fn conversation(&self) -> &Conversation {
        &self.conv
    }

    fn finish(self, any: bool) -> Result<Vec<Conversation>, String> {
        if !self.recognised && any {
            return Err(
                "expected Moltis history lines tagged by `role` (user, assistant, tool_result...)"
                    .into(),
            );
        }
        Ok(vec![self.conv])
    }
}

/// A `tool_result` line: failed when `success` is false, when `error` is set, or when the
/// tool's own result reports an error (`result.error`, `result.success: false`, also one
/// level down in `result.result`), as Moltis's runner judges it.
fn read_tool_result(record: &Tree, mloc: &Loc, conv: &mut Conversation) {
    let error = record.get("error").filter(|e| !e.is_null());
    let output = record.get("result").unwrap_or(&Tree::Null);
    let failed = record.get("success").and_then(Tree::as_bool) == Some(false)
        || error.is_some()
        || reports_failure(output)
        || output.get("result").is_some_and(reports_failure);
    // The text compared between failures: the error message where there is one.
    let shown = error
        .or_else(|| output.get("error").filter(|e| !e.is_null()))
        .unwrap_or(output);
    let result = tool_record_result(record, mloc, failed, shown);
    if let Some(args) = record.get("arguments") {
        conv.echoed_arguments.push(EchoedArguments {
            result: result.loc.clone(),
            value: args.to_serde(),
            loc: mloc.child("arguments"),
        });
    }
    conv.push(Role::Tool, mloc, Item::Result(result));
}

fn reports_failure(output: &Tree) -> bool {
    output.get("error").is_some_and(|e| !e.is_null())
        || output.get("success").and_then(Tree::as_bool) == Some(false)
}

#[cfg(test)]
mod tests {
    use crate::tree_json;

    use super::*;
    use crate::lint::{lint_str, Outcome};

    fn call(id: &str, args: &str) -> Tree<'static> {
        tree_json!({"role": "assistant", "content": "", "created_at": 1750000001000u64, "tool_calls": [{"id": id, "type": "function", "function": {"name": "exec", "arguments": args}}], "run_id": "r1"})
    }

    #[test]
    fn sniffs_moltis_lines_only() {
        assert_eq!(
            Moltis.sniff_record(&tree_json!({"role": "tool_result", "tool_call_id": "c", "tool_name": "exec", "success": true})),
            Some(90)
        );
        assert_eq!(
            Moltis.sniff_record(
                &tree_json!({"role": "user", "content": "hi", "created_at": 1750000000000u64})
            ),
            Some(40)
        );
        assert_eq!(
            Moltis.sniff_record(&tree_json!({"role": "user", "content": "hi"})),
            None
        );
        assert_eq!(
            Moltis.sniff_record(&tree_json!({"type": "user", "message": {"role": "user"}})),
            None
        );
    }

    #[test]
    fn failure_markers() {
        let records = [
            tree_json!({"role": "user", "content": "go", "created_at": 1750000000000u64}),
            call("c1", "{}"),
            tree_json!({"role": "tool_result", "tool_call_id": "c1", "tool_name": "exec", "arguments": {}, "success": false, "error": "missing 'command'"}),
            call("c2", "{}"),
            tree_json!({"role": "tool_result", "tool_call_id": "c2", "tool_name": "exec", "arguments": {}, "success": true, "result": {"error": "denied"}}),
            call("c3", "{}"),
            tree_json!({"role": "tool_result", "tool_call_id": "c3", "tool_name": "exec", "arguments": {}, "success": true, "result": {"result": {"success": false}}}),
            call("c4", "{}"),
            tree_json!({"role": "tool_result", "tool_call_id": "c4", "tool_name": "exec", "arguments": {}, "success": true, "result": {"stdout": "ok", "error": null}}),
            tree_json!({"role": "tool", "tool_call_id": "c0", "content": "[Result from earlier conversation — see context summary above]"}),
        ];
        let docs = crate::formats::session_docs(&records);
        let convs = Moltis.normalise(&docs).unwrap_or_default();
        let flags: Vec<(bool, &str)> = convs[0]
            .results()
            .map(|(_, r)| (r.is_error, r.text.as_str()))
            .collect();
        assert_eq!(
            flags,
            [
                (true, "missing 'command'"),
                (true, "denied"),
                (true, r#"{"result":{"success":false}}"#),
                (false, r#"{"stdout":"ok","error":null}"#),
                (
                    false,
                    "[Result from earlier conversation — see context summary above]"
                ),
            ]
        );
        assert_eq!(convs[0].echoed_arguments.len(), 4);
    }

    #[test]
    fn clean_fixture_is_read_as_moltis() {
        let report = lint_str(
            "history.jsonl",
            include_str!("../../../../fixtures/moltis/clean-history.jsonl"),
        );
        assert_eq!(report.codes(), Vec::<String>::new());
        assert_eq!(report.outcome, Outcome::Checked(vec![Format::Moltis]));
    }
}
