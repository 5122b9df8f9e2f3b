//! `repeated-failing-call` and its options.

use crate::common;

use common::{toolcheck, toolcheck_stdin};

const JSONL: &str = "fixtures/openai-chat/broken-loops.jsonl";

fn loops(args: &[&str]) -> Vec<String> {
    let mut all = vec![
        "lint",
        JSONL,
        "--select",
        "TC401",
        "--output-format",
        "concise",
        "-q",
    ];
    all.extend_from_slice(args);
    toolcheck(&all).stdout.lines().map(str::to_string).collect()
}

#[test]
fn either_mode_finds_argument_and_error_text_loops() {
    let found = loops(&[]);
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(found[0].contains("called 3 times in a row with the same arguments"));
    assert!(found[1].contains("3 times in a row with varying arguments"));
    assert!(
        found[2].contains("12 times in a row"),
        "a long run is reported once"
    );
}

#[test]
fn args_mode_ignores_loops_that_only_share_the_error() {
    let found = loops(&["--loop-match", "args"]);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found.iter().all(|l| !l.contains("varying arguments")));
}

#[test]
fn threshold_sets_the_run_length() {
    assert_eq!(loops(&["--loop-threshold", "12"]).len(), 1);
    assert!(loops(&["--loop-threshold", "13"]).is_empty());
    let bad = toolcheck(&["lint", JSONL, "--loop-threshold", "1"]);
    assert_eq!(bad.code, 2, "a threshold below 2 is a usage error");
}

#[test]
fn the_finding_sits_at_the_call_that_reaches_the_threshold() {
    let found = loops(&[]);
    // Line 3 is the 12-call run; its third call starts at column 595.
    assert!(
        found[2].starts_with(&format!("{JSONL}:3:595:")),
        "{}",
        found[2]
    );
}

#[test]
fn object_arguments_loop_with_text_and_other_tools_between() {
    let out = toolcheck(&[
        "lint",
        "fixtures/anthropic/broken-loops.json",
        "--output-format",
        "concise",
        "-q",
    ]);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", out.stdout);
    assert!(lines[0].contains("`deploy` was called 4 times in a row with the same arguments"));
}

#[test]
fn a_success_breaks_the_run_and_a_single_retry_is_silent() {
    let log = r#"{"messages": [
      {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "exec", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "c1", "content": "Error: boom"},
      {"role": "assistant", "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "exec", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "c2", "content": "Error: boom"},
      {"role": "assistant", "tool_calls": [{"id": "c3", "type": "function", "function": {"name": "exec", "arguments": "{\"command\": \"ls\"}"}}]},
      {"role": "tool", "tool_call_id": "c3", "content": "a.txt"},
      {"role": "assistant", "tool_calls": [{"id": "c4", "type": "function", "function": {"name": "exec", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "c4", "content": "Error: boom"},
      {"role": "assistant", "content": "done"}
    ]}"#;
    let out = toolcheck_stdin(&["lint", "-", "--select", "TC401", "-q"], log);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""));
}
