//! OpenAI Codex CLI rollouts (`~/.codex/sessions/…/rollout-<ts>-<uuid>.jsonl`): one JSONL
//! file is one session.
//!
//! Lines are `{timestamp, type, payload}` with `type` one of `session_meta`, `turn_context`,
//! `response_item`, `event_msg` or `compacted`. Only `response_item` payloads build the
//! conversation; they are Responses API items, read by the shared code in
//! [`super::openai_responses`]. Old rollouts have no envelope: a metadata line
//! `{id, timestamp, instructions}`, then raw items, and sometimes `record_type: "state"` lines.
//!
//! Resuming a session replays every item to the Responses API, so a trailing unanswered call
//! is reported too (`resumable`).
//!
//! What the Responses API resolves by server id (reasoning items' ids, what follows them,
//! `store`, `item_reference`s) is not recorded: Codex serialises its items its own way for
//! the request (it never sends a reasoning item's `id`, and sends `reasoning_text` content
//! to the local models that produce it), to its own backend as often as to OpenAI's public
//! API, so the rollout does not show what the provider receives.
//!
//! `compacted` lines: on resume Codex replaces the history it rebuilt so far with the line's
//! `replacement_history` (or, in rollouts without one, with the initial context, the user
//! messages and the summary `message`: no calls or outputs survive either way). So each
//! `compacted` line starts a new conversation, seeded with its replacement items, and only
//! the last one is what resume sends (`resumable`). The earlier ones are still checked as the
//! requests they were, except that calls left open when the compaction replaced them are not
//! reported; an output after a compaction whose call came before it is an orphan, as the
//! replayed history would be.

use serde_json::{json, Value as Json};

use super::openai_responses::{output_item, read_item};
use super::adapter::{read_in_order_by, InOrder};
use super::{array_at, str_at, Adapter, CallSite, Dialect, Doc, Format};
use crate::transcript::{failed_text, result_text, Conversation, Item, Loc, Mark, Pairing, Role, Text};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain codex` prints (Markdown).
pub(super) const DOC: &str = r#"Codex CLI rollout JSONL (`response_item` payloads, old envelope-less rollouts, compactions; see [docs/agents/codex.md](../agents/codex.md))"#;

pub struct Codex;

/// Envelope record types.
const RECORD_TYPES: [&str; 5] = [
    "session_meta",
    "turn_context",
    "response_item",
    "event_msg",
    "compacted",
];

/// Raw item types of envelope-less rollouts.
const RAW_ITEM_TYPES: [&str; 9] = [
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
    "ghost_snapshot",
];

impl Dialect for Codex {
    fn interrupted_result(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        let item = output_item(site.element, text)?;
        // Items inside a compaction's replacement history are bare; rollout lines carry an
        // envelope with the call line's timestamp (resume requires one).
        match site.record {
            Some(record)
                if record.get("payload").is_some()
                    && !site.call.loc.pointer.contains("/replacement_history/") =>
            {
                Some(json!({
                    "timestamp": record.get("timestamp").map_or(Json::Null, Tree::to_serde),
                    "type": "response_item",
                    "payload": item
                }))
            }
            _ => Some(item),
        }
    }
}

impl Adapter for Codex {
    fn format(&self) -> Format {
        Format::Codex
    }

    fn has_documents(&self) -> bool {
        false
    }

    fn sniff_record(&self, record: &Tree) -> Option<u8> {
        let kind = str_at(record, "type");
        if record.get("payload").is_some() && record.get("timestamp").is_some() {
            return kind
                .is_some_and(|k| RECORD_TYPES.contains(&k))
                .then_some(90);
        }
        if str_at(record, "record_type") == Some("state") {
            return Some(10);
        }
        match kind {
            // A raw `ResponseItem` line of an old rollout.
            Some(kind) if RAW_ITEM_TYPES.contains(&kind) => {
                let plausible = match kind {
                    "message" => {
                        record.get("role").is_some() && array_at(record, "content").is_some()
                    }
                    "function_call" | "custom_tool_call" | "function_call_output" => {
                        record.get("call_id").is_some()
                    }
                    _ => true,
                };
                plausible.then_some(40)
            }
            Some(_) => None,
            // The metadata line of an old rollout.
            None => {
                let object = record.as_object()?;
                let meta = str_at(record, "id").is_some()
                    && str_at(record, "timestamp").is_some()
                    && object
                        .keys()
                        .all(|k| matches!(k, "id" | "timestamp" | "instructions" | "git"));
                meta.then_some(50)
            }
        }
    }

    read_in_order_by!(Rollout);
}

/// A rollout as read so far: the conversations that compactions closed, the one being read.
struct Rollout {
    segments: Vec<Conversation>,
    conv: Conversation,
    recognised: bool,
    cli_version: Option<String>,
}

impl InOrder for Rollout {
    /// A rollout whose first line starts at byte `first`.
    fn new(first: usize) -> Self {
        Rollout {
            segments: Vec::new(),
            conv: new_conversation(Loc::new(first, "")),
            recognised: false,
            cli_version: None,
        }
    }

    /// Reads one line into the conversation being read, and returns where that stood before
    /// (a `compacted` line starts a new one).
    fn read(&mut self, doc: Doc<'_>) -> Mark {
        let mut mark = self.conv.mark();
        let record = doc.value;
        let root = Loc::new(doc.base, "");
        let payload = record.get("payload");
        if str_at(record, "type") == Some("session_meta") {
            if let Some(v) = payload.and_then(|p| str_at(p, "cli_version")) {
                self.cli_version = Some(v.to_string());
            }
        }
        match (str_at(record, "type"), payload) {
            (Some("response_item"), Some(item)) => {
                self.recognised = true;
                read_codex_item(item, root.child("payload"), &mut self.conv);
            }
            (Some("compacted"), Some(compacted)) => {
                self.recognised = true;
                let mut next = new_conversation(root.clone());
                mark = next.mark();
                let payload_loc = root.child("payload");
                match array_at(compacted, "replacement_history") {
                    Some(items) => {
                        let items_loc = payload_loc.child("replacement_history");
                        for (i, item) in items.iter().enumerate() {
                            read_codex_item(item, items_loc.child(i), &mut next);
                        }
                    }
                    // Rebuilt from the user messages and this summary: no calls survive.
                    None => next.push(
                        Role::User,
                        &payload_loc,
                        Item::Text(Text {
                            loc: payload_loc.clone(),
                            message: payload_loc.clone(),
                        }),
                    ),
                }
                self.conv.resumable = false;
                self.segments.push(std::mem::replace(&mut self.conv, next));
            }
            (Some(kind), Some(_)) if RECORD_TYPES.contains(&kind) => self.recognised = true,
            // Envelope-less rollouts: raw items after a metadata line.
            (Some(_), None) => {
                self.recognised = true;
                read_codex_item(record, root, &mut self.conv);
            }
            _ if str_at(record, "record_type").is_some() || str_at(record, "id").is_some() => {
                self.recognised = true;
            }
            _ => {}
        }
        mark
    }

    /// The rollout's conversations; `any`: it had lines, none of which may be Codex's.
    fn finish(mut self, any: bool) -> Result<Vec<Conversation>, String> {
        if !self.recognised && any {
            return Err("expected Codex rollout lines `{timestamp, type, payload}`".into());
        }
        self.segments.push(self.conv);
        for segment in &mut self.segments {
            segment.agent_version.clone_from(&self.cli_version);
        }
        Ok(self.segments)
    }

    fn conversation(&self) -> &Conversation {
        &self.conv
    }
}

/// Codex reports a failed shell command in the output text, not with a flag: a JSON
/// `{"output", "metadata": {"exit_code"}}` (older CLIs) or an `Exit code: N` header (newer).
/// Judged on the raw item, right after `read_item` added its result; a failed result's text
/// becomes the command output (inside a JSON wrapper) or the output as written (after an
/// `Exit code:` header), so error messages compare and read as the tool printed them.
fn read_codex_item(item: &Tree, loc: Loc, conv: &mut Conversation) {
    read_item(item, loc, conv);
    if str_at(item, "type") != Some("function_call_output") {
        return;
    }
    let Some(text) = item.get("output").and_then(Tree::as_str) else {
        return;
    };
    let (code, output) = exit_code(text);
    let Some(Item::Result(result)) = conv.turns.last_mut().and_then(|t| t.items.last_mut()) else {
        return;
    };
    result.is_error |= code.is_some_and(|code| code != 0);
    // Held only for a failure or a placeholder, as every result's text is: the command
    // output inside a JSON wrapper, else the output as written (which `read_item` let go
    // if only the exit code says the command failed).
    match output {
        Some(output) => {
            result.text = failed_text(result.is_error, || {
                result_text(&Tree::String(output.into()))
            });
        }
        None if result.is_error && result.text.is_empty() => {
            result.text = result_text(&Tree::String(text.into()));
        }
        None => {}
    }
}

/// The exit code a shell output reports, and the command output inside a JSON wrapper.
fn exit_code(text: &str) -> (Option<i64>, Option<String>) {
    if let Some(rest) = text.strip_prefix("Exit code:") {
        return (
            rest.split_whitespace().next().and_then(|c| c.parse().ok()),
            None,
        );
    }
    if text.starts_with('{') {
        if let Ok(crate::json::Parsed { value, .. }) = crate::json::parse(text) {
            let code = value.pointer("/metadata/exit_code").and_then(Tree::as_i64);
            let output = value
                .get("output")
                .and_then(Tree::as_str)
                .map(str::to_string);
            return (code, output);
        }
    }
    (None, None)
}

fn new_conversation(loc: Loc) -> Conversation {
    let mut conv = Conversation::new(Format::Codex, loc, Pairing::AnyLater);
    conv.resumable = true;
    conv
}

#[cfg(test)]
mod tests {
    use crate::tree_json;

    use super::*;
    use crate::lint::{lint_str, Outcome};

    fn codes(name: &str, text: &str) -> Vec<String> {
        lint_str(name, text).codes()
    }

    fn jsonl(records: &[Tree]) -> String {
        records.iter().map(|r| format!("{r}\n")).collect()
    }

    fn line(kind: &str, payload: Tree) -> Tree<'static> {
        tree_json!({"timestamp": "2025-10-02T09:00:00.000Z", "type": kind, "payload": payload})
    }

    fn call(id: &str) -> Tree<'_> {
        line(
            "response_item",
            tree_json!({"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}", "call_id": id}),
        )
    }

    fn output(id: &str, output: Tree) -> Tree<'static> {
        line(
            "response_item",
            tree_json!({"type": "function_call_output", "call_id": id, "output": output}),
        )
    }

    fn user(text: &str) -> Tree<'_> {
        line(
            "response_item",
            tree_json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}),
        )
    }

    fn normalise(text: &str) -> Vec<Conversation> {
        let values: Vec<(usize, Tree)> = text
            .split_inclusive('\n')
            .scan(0, |at, l| {
                let base = *at;
                *at += l.len();
                Some((
                    base,
                    crate::tree::parse(l).map(|t| t.value).unwrap_or(Tree::Null),
                ))
            })
            .collect();
        let docs: Vec<Doc<'_>> = values
            .iter()
            .map(|(base, value)| Doc { base: *base, value })
            .collect();
        Codex.normalise(&docs).unwrap_or_default()
    }

    #[test]
    fn a_non_zero_exit_code_is_a_failure() {
        assert_eq!(
            super::exit_code("Exit code: 2\nWall time: 0.1 seconds\nOutput:\nboom"),
            (Some(2), None)
        );
        assert_eq!(
            super::exit_code(
                r#"{"output": "ok", "metadata": {"exit_code": 0, "duration_seconds": 1.0}}"#
            ),
            (Some(0), Some("ok".to_string()))
        );
        assert_eq!(super::exit_code("plain text"), (None, None));
        // The loop fixture fails three times on a non-zero exit code, then succeeds.
        let conv = &normalise(include_str!("../../../../fixtures/codex/broken-loop.jsonl"))[0];
        let failed: Vec<bool> = conv.results().map(|(_, r)| r.is_error).collect();
        assert_eq!(failed, [true, true, true, false]);
    }

    #[test]
    fn clean_fixtures_have_no_findings() {
        for (name, text) in [
            (
                "clean-session.jsonl",
                include_str!("../../../../fixtures/codex/clean-session.jsonl"),
            ),
            (
                "clean-compacted.jsonl",
                include_str!("../../../../fixtures/codex/clean-compacted.jsonl"),
            ),
            (
                "clean-legacy.jsonl",
                include_str!("../../../../fixtures/codex/clean-legacy.jsonl"),
            ),
        ] {
            let report = lint_str(name, text);
            assert_eq!(report.codes(), Vec::<String>::new(), "{name}");
            assert_eq!(
                report.outcome,
                Outcome::Checked(vec![Format::Codex]),
                "{name}"
            );
        }
    }

    #[test]
    fn broken_interrupted() {
        // An Esc-interrupted call the session moved past, and one left open at the end: resume
        // replays both.
        assert_eq!(
            codes(
                "broken-interrupted.jsonl",
                include_str!("../../../../fixtures/codex/broken-interrupted.jsonl")
            ),
            ["TC102@4:74", "TC102@11:74"]
        );
    }

    #[test]
    fn broken_arguments() {
        assert_eq!(
            codes(
                "broken-arguments.jsonl",
                include_str!("../../../../fixtures/codex/broken-arguments.jsonl")
            ),
            [
                "TC201@4:125",
                "TC104@5:74",
                "TC105@8:74",
                "TC101@9:74",
                "TC202@10:131",
                "TC203@11:133"
            ]
        );
    }

    #[test]
    fn broken_compacted() {
        // The output arrives after a compaction replaced its call.
        assert_eq!(
            codes(
                "broken-compacted.jsonl",
                include_str!("../../../../fixtures/codex/broken-compacted.jsonl")
            ),
            ["TC101@8:74"]
        );
    }

    #[test]
    fn sniffs_records() {
        assert_eq!(Codex.sniff_record(&user("hi")), Some(90));
        assert_eq!(Codex.sniff_record(&tree_json!({"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c"})), Some(40));
        assert_eq!(Codex.sniff_record(&tree_json!({"id": "5e0c2b7a", "timestamp": "2025-05-14T16:40:12Z", "instructions": null})), Some(50));
        assert_eq!(
            Codex.sniff_record(&tree_json!({"record_type": "state"})),
            Some(10)
        );
        // Not ours: chat messages, Claude Code lines, NeMo-Gym records, unknown envelopes.
        assert_eq!(
            Codex.sniff_record(&tree_json!({"role": "user", "content": "hi"})),
            None
        );
        assert_eq!(Codex.sniff_record(&tree_json!({"type": "user", "message": {"role": "user", "content": "hi"}, "uuid": "u1", "timestamp": "t"})), None);
        assert_eq!(
            Codex.sniff_record(&tree_json!({"responses_create_params": {"input": []}, "response": {}})),
            None
        );
        assert_eq!(
            Codex.sniff_record(&tree_json!({"timestamp": "t", "type": "other", "payload": {}})),
            None
        );
    }

    #[test]
    fn output_shapes_and_error_flags() {
        let text = jsonl(&[
            line("session_meta", tree_json!({"id": "s1", "cwd": "/tmp"})),
            user("go"),
            call("c1"),
            call("c2"),
            call("c3"),
            call("c4"),
            output(
                "c1",
                tree_json!({"content": "permission denied", "success": false}),
            ),
            output("c2", tree_json!({"content": "ok", "success": true})),
            output(
                "c3",
                tree_json!([{"type": "input_text", "text": "Error: no such file"}, {"type": "input_image", "image_url": "data:image/png;base64,AA"}]),
            ),
            output("c4", tree_json!("Exit code: 0\nOutput:\nREADME.md")),
            call("c5"),
            output("c5", tree_json!("Exit code: 2\nOutput:\nno such file")),
        ]);
        assert_eq!(codes("s.jsonl", &text), Vec::<String>::new());
        let convs = normalise(&text);
        assert_eq!(convs.len(), 1);
        let conv = &convs[0];
        assert!(conv.resumable);
        let flags: Vec<(bool, &str)> = conv
            .results()
            .map(|(_, r)| (r.is_error, r.text.as_str()))
            .collect();
        assert_eq!(
            flags,
            [
                (true, "permission denied"),
                // Only a failure's text is held (rules compare failures' texts).
                (false, ""),
                (true, "Error: no such file"),
                (false, ""),
                // Failed by its exit code alone: its text as written.
                (true, "Exit code: 2\nOutput:\nno such file"),
            ]
        );
        // Each node points into its own line, under `/payload`.
        let (_, first) = conv.calls().next().unwrap_or_else(|| panic!("no call"));
        let third_line = text.lines().take(2).map(|l| l.len() + 1).sum::<usize>();
        assert_eq!(first.loc, Loc::new(third_line, "/payload"));
        assert_eq!(first.args_loc.pointer, "/payload/arguments");
    }

    #[test]
    fn compaction_without_replacement_history_drops_earlier_calls() {
        let text = jsonl(&[
            user("go"),
            call("c1"),
            line(
                "compacted",
                tree_json!({"message": "Summary of the work so far."}),
            ),
            user("continue"),
            call("c2"),
            output("c2", tree_json!("done")),
        ]);
        assert_eq!(codes("s.jsonl", &text), Vec::<String>::new());
        let convs = normalise(&text);
        assert_eq!(convs.len(), 2);
        assert!(!convs[0].resumable && convs[1].resumable);
        // What resume sends is the last segment, which starts at the compacted line.
        let compacted_at = text.lines().take(2).map(|l| l.len() + 1).sum::<usize>();
        assert_eq!(convs[1].loc, Loc::new(compacted_at, ""));
    }

    #[test]
    fn replacement_history_is_read_in_place() {
        let text = jsonl(&[
            user("go"),
            line(
                "compacted",
                tree_json!({"message": "", "replacement_history": [
                    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
                    {"type": "function_call", "name": "shell", "arguments": "{\"command\": [", "call_id": "c9"}
                ]}),
            ),
            user("continue"),
        ]);
        // The replayed call is truncated and unanswered.
        assert_eq!(codes("s.jsonl", &text), ["TC102@2:186", "TC201@2:237"]);
    }
}
