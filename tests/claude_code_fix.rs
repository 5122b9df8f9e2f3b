//! Claude Code fixes end to end (`toolcheck::fix::fix_bytes` on session files): the fixed
//! session parses, lints clean, fixes to itself, and keeps its `parentUuid` chain whole.
//! How the chain is rebuilt and re-linked is unit-tested in `src/formats/claude_code/`.

use std::collections::{HashMap, HashSet};

use toolcheck::edit::plan::INTERRUPTED;
use toolcheck::formats::{Doc, Format};
use toolcheck::lint::{LintOptions, SourceName};
use toolcheck::transcript::{Conversation, Item};
use toolcheck::tree::Value;

/// A tree written in `serde_json::json!` syntax.
macro_rules! json {
($($t:tt)+) => {
    Value::from_serde(&serde_json::json!($($t)+))
};
}

const INTERRUPTED_MID_TOOL: &str =
    include_str!("../fixtures/claude-code/broken-interrupted-mid-tool.jsonl");
const UNANSWERED_THEN_PROMPT: &str =
    include_str!("../fixtures/claude-code/broken-unanswered-then-prompt.jsonl");
const COMPACTION_ORPHAN: &str =
    include_str!("../fixtures/claude-code/broken-compaction-orphan.jsonl");
const DUPLICATE_TOOL_RESULT: &str =
    include_str!("../fixtures/claude-code/broken-duplicate-tool-result.jsonl");
const QUEUED_PROMPT: &str =
    include_str!("../fixtures/claude-code/broken-queued-prompt-before-result.jsonl");

/// `value[key]` as a string.
fn str_at<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// Parses JSONL text into records with their byte offsets.
fn records(text: &str) -> Vec<(usize, Value<'_>)> {
    let mut out = Vec::new();
    let mut base = 0;
    for line in text.split_inclusive('\n') {
        if !line.trim().is_empty() {
            out.push((
                base,
                toolcheck::tree::parse(line).expect("test JSONL").value,
            ));
        }
        base += line.len();
    }
    out
}

/// The conversations of a session, as the Claude Code adapter reads them.
fn normalise(text: &str) -> Vec<Conversation> {
    let recs = records(text);
    let docs: Vec<Doc<'_>> = recs
        .iter()
        .map(|(base, value)| Doc { base: *base, value })
        .collect();
    Format::ClaudeCode
        .adapter()
        .expect("the Claude Code adapter")
        .normalise(&docs)
        .expect("a Claude Code session")
}

/// Each turn as its role and items: `call:<name>`, `result:<id>`, `text`.
fn shape(conv: &Conversation) -> Vec<String> {
    conv.turns
        .iter()
        .map(|t| {
            let items: Vec<String> = t
                .items
                .iter()
                .map(|item| match item {
                    Item::Text(_) => "text".to_string(),
                    Item::Thinking(_) => "thinking".to_string(),
                    Item::Call(c) => format!("call:{}", c.name),
                    Item::Result(r) => {
                        format!("result:{}", r.call_id.clone().unwrap_or_default())
                    }
                })
                .collect();
            format!("{} {}", t.role.as_str(), items.join(","))
        })
        .collect()
}

fn line(v: Value) -> String {
    let mut s = v.to_string();
    s.push('\n');
    s
}

fn msg(uuid: &str, parent: Option<&str>, role: &str, content: Value) -> String {
    let mut message = serde_json::json!({"role": role, "content": content});
    if role == "assistant" {
        message["id"] = serde_json::json!(format!("msg_{uuid}"));
    }
    line(
        json!({"parentUuid": parent, "isSidechain": false, "userType": "external",
        "sessionId": "s1", "type": role, "message": message, "uuid": uuid}),
    )
}

fn call(id: &str) -> Value<'_> {
    json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "ls"}}])
}

fn result(id: &str) -> Value<'_> {
    json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}])
}

fn fix_with(text: &str, opts: &LintOptions) -> String {
    let name = SourceName {
        name: "session.jsonl".into(),
        path: None,
    };
    let fixed = toolcheck::fix::fix_bytes(&name, text.as_bytes().to_vec(), true, opts, true)
        .expect("fixing converges and parses");
    assert!(
        !fixed.report.findings.iter().any(|f| f.fix.is_some()),
        "a fixable finding is left: {:?}",
        fixed.report.findings
    );
    fixed.into_fixed_text()
}

fn fix(text: &str) -> String {
    fix_with(text, &LintOptions::default())
}

fn parse_lines(text: &str) -> Vec<Value<'_>> {
    records(text).into_iter().map(|(_, v)| v).collect()
}

fn by_uuid<'v>(lines: &'v [Value<'v>], uuid: &str) -> &'v Value<'v> {
    lines
        .iter()
        .find(|l| str_at(l, "uuid") == Some(uuid))
        .unwrap_or_else(|| panic!("no line {uuid}"))
}

/// Every `parentUuid` names a line of the file, is null, or already named nothing in the
/// original; no uuid is used twice.
fn assert_chain_whole(original: &str, fixed: &str) {
    let dangling = |text: &str| -> HashSet<String> {
        let lines = parse_lines(text);
        let uuids: HashSet<&str> = lines.iter().filter_map(|l| str_at(l, "uuid")).collect();
        lines
            .iter()
            .filter_map(|l| str_at(l, "parentUuid"))
            .filter(|p| !uuids.contains(p))
            .map(str::to_string)
            .collect()
    };
    let before = dangling(original);
    for parent in dangling(fixed) {
        assert!(
            before.contains(&parent),
            "parentUuid {parent} names no line"
        );
    }
    let fixed_lines = parse_lines(fixed);
    let mut seen = HashSet::new();
    for uuid in fixed_lines.iter().filter_map(|l| str_at(l, "uuid")) {
        assert!(seen.insert(uuid), "uuid {uuid} is used twice");
    }
}

#[test]
fn fixed_fixtures_parse_lint_clean_and_keep_the_chain() {
    for (name, text, lines_added) in [
        ("interrupted-mid-tool", INTERRUPTED_MID_TOOL, 1),
        ("unanswered-then-prompt", UNANSWERED_THEN_PROMPT, 1),
        ("compaction-orphan", COMPACTION_ORPHAN, -1),
        ("duplicate-tool-result", DUPLICATE_TOOL_RESULT, -1),
        ("queued-prompt-before-result", QUEUED_PROMPT, 0),
    ] {
        let fixed = fix(text);
        assert_ne!(fixed, text, "{name}");
        // Every line parses (records() panics otherwise), one record per line.
        let count = |t: &str| t.lines().filter(|l| !l.trim().is_empty()).count() as i64;
        assert_eq!(count(&fixed), count(text) + lines_added, "{name}");
        assert_eq!(parse_lines(&fixed).len() as i64, count(&fixed), "{name}");
        assert!(fixed.ends_with('\n'), "{name}");
        assert_eq!(fix(&fixed), fixed, "{name}: fixing again changes nothing");
        assert_chain_whole(text, &fixed);
        // Only the lines the fix is about changed: the rest are kept byte for byte.
        let kept: HashSet<&str> = text.lines().collect();
        let changed = fixed.lines().filter(|l| !kept.contains(l)).count();
        assert!(changed <= 3, "{name}: {changed} lines changed");
    }
}

#[test]
fn an_inserted_result_line_is_linked_in_with_its_neighbours_fields() {
    let fixed = fix(INTERRUPTED_MID_TOOL);
    let lines = parse_lines(&fixed);
    // Line 3 holds the call and ends the turn; the new line follows it.
    let assistant = &lines[2];
    let inserted = &lines[3];
    for key in [
        "sessionId",
        "cwd",
        "version",
        "gitBranch",
        "userType",
        "isSidechain",
    ] {
        assert_eq!(inserted.get(key), assistant.get(key), "{key}");
    }
    assert_eq!(inserted["timestamp"], assistant["timestamp"]);
    assert_eq!(inserted["parentUuid"], assistant["uuid"]);
    assert_eq!(inserted["sourceToolAssistantUUID"], assistant["uuid"]);
    assert_eq!(inserted["type"], "user");
    assert_eq!(inserted["toolUseResult"], INTERRUPTED);
    let block = &inserted["message"]["content"][0];
    assert_eq!(block["type"], "tool_result");
    assert_eq!(block["tool_use_id"], "toolu_01J32yhGXn1SsbUHuwQ8qRmA");
    assert_eq!(block["is_error"], true);
    // A fresh v4-shaped uuid, the same on every run, and the next line hangs from it.
    let uuid = str_at(inserted, "uuid").unwrap();
    assert_eq!(uuid.len(), 36);
    assert_eq!(&uuid[14..15], "4");
    assert!(!INTERRUPTED_MID_TOOL.contains(uuid));
    assert_eq!(str_at(&lines[4], "parentUuid"), Some(uuid));
    assert_eq!(str_at(&lines[4], "type"), Some("progress"));
    assert_eq!(fix(INTERRUPTED_MID_TOOL), fixed);
    // Keys in the order Claude Code writes a result line.
    let keys: Vec<&str> = inserted.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "parentUuid",
            "isSidechain",
            "userType",
            "cwd",
            "sessionId",
            "version",
            "gitBranch",
            "type",
            "message",
            "uuid",
            "timestamp",
            "toolUseResult",
            "sourceToolAssistantUUID"
        ]
    );
    // The whole file rebuilds as one chain ending in the inserted result.
    let convs = normalise(&fixed);
    assert_eq!(convs.len(), 1);
    assert_eq!(
        shape(&convs[0]).last().unwrap(),
        &format!("user result:{}", block["tool_use_id"].as_str().unwrap())
    );
}

#[test]
fn a_result_inserted_before_a_prompt_stays_on_the_chain() {
    let fixed = fix(UNANSWERED_THEN_PROMPT);
    let lines = parse_lines(&fixed);
    let inserted = &lines[2];
    assert_eq!(inserted["parentUuid"], lines[1]["uuid"]);
    // The progress line that hung from the call now hangs from the result; the prompt
    // after it is untouched.
    assert_eq!(lines[3]["parentUuid"], inserted["uuid"]);
    assert_eq!(
        UNANSWERED_THEN_PROMPT.lines().nth(3),
        fixed.lines().nth(4),
        "the prompt line"
    );
    let convs = normalise(&fixed);
    assert_eq!(
        shape(&convs[0]),
        [
            "user text",
            "assistant call:Bash",
            "user result:toolu_01tYs03t7pxlJeyU5ZZTL36B,text",
            "assistant text"
        ]
    );
}

#[test]
fn a_removed_line_s_child_is_re_parented() {
    // The orphaned result line is removed; the assistant line under it takes its parent.
    let fixed = fix(COMPACTION_ORPHAN);
    let recs = parse_lines(&fixed);
    assert!(!fixed.contains("\"uuid\":\"6d167ec4-6dff-434b-a5ed-cb4224cc9507\""));
    assert_eq!(
        by_uuid(&recs, "748197ac-0c56-43cf-9b69-1d080e5a7a7a")["parentUuid"],
        "8fbf5ca1-08b4-4545-863d-b5f88156e86e"
    );
    // The duplicate result line goes; the reply under it hangs from the first result.
    let fixed = fix(DUPLICATE_TOOL_RESULT);
    let lines = parse_lines(&fixed);
    assert!(!fixed.contains("\"uuid\":\"85bc9873-236b-4ee7-9b1e-883e972f3174\""));
    assert_eq!(
        by_uuid(&lines, "24f97a41-7aa5-4f09-92a1-99014ed9e5c9")["parentUuid"],
        "69a5d2ac-53a8-4257-8351-3ff72a96f024"
    );
}

#[test]
fn a_removed_root_passes_on_its_null_parent() {
    let text = [
        msg("r0", None, "user", result("toolu_gone")),
        msg("u1", Some("r0"), "user", json!("go")),
        msg("a1", Some("u1"), "assistant", json!("done")),
    ]
    .concat();
    let fixed = fix(&text);
    assert_eq!(
        fixed,
        [
            msg("u1", None, "user", json!("go")),
            msg("a1", Some("u1"), "assistant", json!("done")),
        ]
        .concat()
    );
}

#[test]
fn a_result_sharing_its_line_is_removed_as_a_block() {
    let both = json!([
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "ok"},
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "again"}
    ]);
    let text = [
        msg("u1", None, "user", json!("go")),
        msg("a1", Some("u1"), "assistant", call("toolu_a")),
        msg("r1", Some("a1"), "user", both),
        msg("a2", Some("r1"), "assistant", json!("done")),
    ]
    .concat();
    let fixed = fix(&text);
    assert_eq!(fixed.lines().count(), 4);
    assert!(!fixed.contains("again"));
    assert_eq!(fixed.lines().last(), text.lines().last());
}

#[test]
fn remove_call_re_parents_the_call_s_children() {
    let mut opts = LintOptions::default();
    opts.rule_options.unpaired = toolcheck::rules::UnpairedFix::RemoveCall;
    let fixed = fix_with(UNANSWERED_THEN_PROMPT, &opts);
    let lines = parse_lines(&fixed);
    assert_eq!(lines.len(), 4);
    assert!(!fixed.contains("toolu_01tYs03t7pxlJeyU5ZZTL36B\",\"name\""));
    // The progress line that hung from the removed call hangs from the first prompt.
    assert_eq!(lines[1]["type"], "progress");
    assert_eq!(lines[1]["parentUuid"], lines[0]["uuid"]);
    assert_chain_whole(UNANSWERED_THEN_PROMPT, &fixed);
    assert_eq!(fix_with(&fixed, &opts), fixed);
}

#[test]
fn parallel_unanswered_calls_get_results_on_one_chain() {
    let calls = json!([
        {"type": "tool_use", "id": "toolu_a", "name": "Bash", "input": {}},
        {"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {}}
    ]);
    let text = [
        msg("u1", None, "user", json!("go")),
        msg("a1", Some("u1"), "assistant", calls),
        msg("u2", Some("a1"), "user", json!("stop")),
        msg("a2", Some("u2"), "assistant", json!("stopped")),
    ]
    .concat();
    let fixed = fix(&text);
    assert_chain_whole(&text, &fixed);
    let lines = parse_lines(&fixed);
    assert_eq!(lines.len(), 6);
    // a1 -> result -> result -> u2: no fork.
    let mut children: HashMap<&str, usize> = HashMap::new();
    for parent in lines.iter().filter_map(|l| str_at(l, "parentUuid")) {
        *children.entry(parent).or_default() += 1;
    }
    assert!(children.values().all(|&n| n == 1), "{children:?}");
    // Both answered in the next turn (the second insert lands first: order is free).
    let shape = shape(&normalise(&fixed)[0]);
    assert_eq!(shape.len(), 4);
    assert!(shape[2].contains("result:toolu_a") && shape[2].contains("result:toolu_b"));
    assert!(shape[2].ends_with(",text"));
    // Trailing calls (nothing hangs from the call's line yet): still one chain.
    let trailing = text
        .lines()
        .take(2)
        .map(|l| format!("{l}\n"))
        .collect::<String>();
    let fixed = fix(&trailing);
    assert_chain_whole(&trailing, &fixed);
    let lines = parse_lines(&fixed);
    assert_eq!(lines.len(), 4);
    let parents: HashSet<&str> = lines
        .iter()
        .filter_map(|l| str_at(l, "parentUuid"))
        .collect();
    assert_eq!(parents.len(), 3, "{fixed}");
}

#[test]
fn a_misplaced_result_line_moves_after_its_call() {
    let fixed = fix(QUEUED_PROMPT);
    let lines = parse_lines(&fixed);
    // call, result, queued prompt, reply: re-linked in that order.
    assert_eq!(lines[2]["uuid"], "45733332-4415-4ff2-876a-c93f02cbadba");
    assert_eq!(lines[2]["parentUuid"], lines[1]["uuid"]);
    assert_eq!(lines[3]["uuid"], "4adb1d42-92dd-4c02-8467-3b8904b8735b");
    assert_eq!(lines[3]["parentUuid"], lines[2]["uuid"]);
    assert_eq!(lines[4]["parentUuid"], lines[3]["uuid"]);
    assert_chain_whole(QUEUED_PROMPT, &fixed);
}
