//! Letta agent files (`.af`), end to end through the binary.

use crate::common;

use common::toolcheck;

/// A 0.6.47 flat agent whose `messages` hold a re-rendered system message between a
/// `core_memory_replace` call and its result: the in-context indices leave the old system
/// message out and put the new one first, so nothing is misplaced. Read as OpenAI Chat, the
/// same file reports a false `misplaced-tool-result`.
#[test]
fn old_agent_reads_the_in_context_list() {
    let out = toolcheck(&["lint", "-v", "fixtures/letta/clean-0.6-in-context.af"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
    let literal = toolcheck(&[
        "lint",
        "--input-format",
        "openai-chat",
        "--output-format",
        "concise",
        "fixtures/letta/clean-0.6-in-context.af",
    ]);
    assert!(literal.stdout.contains("TC103"), "{}", literal.transcript());
}

/// A current agent file: arguments that break the tool's `json_schema`, a call left
/// unanswered when the user spoke again, a result for a call the context does not hold.
#[test]
fn current_agent_broken() {
    let out = toolcheck(&[
        "lint",
        "--output-format",
        "concise",
        "fixtures/letta/broken-agents.af",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// A file that is a JSON string holding the agent file is read through the string; walks pick
/// `.af` files.
#[test]
fn double_encoded_and_walked() {
    let out = toolcheck(&["lint", "-v", "fixtures/letta"]);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(
        out.stderr
            .contains("checked fixtures/letta/clean-double-encoded.af (letta): 1 conversation, 1 call, 1 result"),
        "{}",
        out.transcript()
    );
}

/// Copies `fixture` (under `fixtures/letta/`) to a temporary directory as `name`, runs
/// `fix --write` on it, and returns the run, the text as written and the concise lint after.
fn fix_write(fixture: &str, name: &str) -> (common::Output, String, common::Output) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(name);
    std::fs::copy(common::root().join("fixtures/letta").join(fixture), &path).expect("copy");
    let out = common::toolcheck_in(dir.path(), &["fix", "--write", name], None);
    let after = std::fs::read_to_string(&path).expect("read");
    let lint = common::toolcheck_in(
        dir.path(),
        &["lint", "--output-format", "concise", name],
        None,
    );
    (out, after, lint)
}

/// The result whose call the context does not hold leaves the context: its id leaves
/// `in_context_message_ids` (one edit), the message stays in `messages`; the unanswered call
/// and the schema violation stay, the first with a note saying why there is no fix.
#[test]
fn fix_takes_the_orphan_out_of_the_current_context() {
    let original = std::fs::read_to_string("fixtures/letta/broken-agents.af").expect("fixture");
    let (out, after, lint) = fix_write("broken-agents.af", "agent.af");
    assert_eq!(out.code, 1, "{}", out.transcript());
    insta::assert_snapshot!(out.stdout);
    // Only the id's line and the comma before it changed; the message is still there.
    assert_eq!(original.lines().count(), after.lines().count() + 1);
    assert!(after.contains(r#""id": "message-6""#));
    assert!(!lint.stdout.contains("TC101"), "{}", lint.transcript());
    assert!(!lint.stdout.contains("TC005"), "{}", lint.transcript());
    assert!(lint.stdout.contains("TC102"), "{}", lint.transcript());
    let json = common::toolcheck(&[
        "lint",
        "--output-format",
        "json",
        "fixtures/letta/broken-agents.af",
    ]);
    assert!(
        json.stdout
            .contains("no automatic fix here: a result is a message of its own"),
        "{}",
        json.transcript()
    );
}

/// A 0.6 agent: the orphan's index leaves `in_context_message_indices`, and nothing is
/// renumbered (Letta maps each index to `messages`, which keeps every message).
#[test]
fn fix_takes_the_orphan_out_of_the_old_indices() {
    let (out, after, lint) = fix_write("broken-0.6-indices.af", "agent.af");
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.stdout);
    assert_eq!(lint.code, 0, "{}", lint.transcript());
    let value: serde_json::Value = serde_json::from_str(&after).expect("JSON");
    assert_eq!(
        value["in_context_message_indices"],
        serde_json::json!([5, 1, 2, 3, 4, 6, 7, 8, 9])
    );
    assert_eq!(value["messages"].as_array().map(Vec::len), Some(11));
}

/// A file that is a JSON string holding the agent file: findings only, with the reason.
#[test]
fn double_encoded_fix_is_withheld() {
    let out = common::fix_leaves_alone("letta/broken-double-encoded.af", "agent.af");
    assert_eq!(out.code, 1, "{}", out.transcript());
    let json = common::toolcheck(&[
        "lint",
        "--output-format",
        "json",
        "fixtures/letta/broken-double-encoded.af",
    ]);
    assert!(
        json.stdout
            .contains("no automatic fix here: the file is a JSON string"),
        "{}",
        json.transcript()
    );
}
