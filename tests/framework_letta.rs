//! Letta agent files (`.af`), end to end through the binary.

mod common;

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

/// Findings only: a fix would edit the message and the in-context list together.
#[test]
fn fix_offers_nothing() {
    let out = common::fix_leaves_alone("letta/broken-agents.af", "agent.af");
    assert_eq!(out.code, 1, "{}", out.transcript());
}
