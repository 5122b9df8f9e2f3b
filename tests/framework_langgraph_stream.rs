//! LangGraph stream-event logs (`langgraph-stream`): `[mode, payload]` events saved as a JSON
//! array or JSONL, checked from the last root `values` snapshot.

use crate::common;

use common::{fix_write_twice, toolcheck};

/// A call the graph was interrupted in before its tool ran, then a new prompt; a truncated
/// `invalid_tool_calls` entry. Subgraph events (`[namespace, mode, payload]`) come after the
/// root snapshot that is not the last; findings point into the last one (line 7).
#[test]
fn an_interrupted_call_in_the_last_snapshot() {
    let out = toolcheck(&["lint", "fixtures/langgraph-stream/broken-interrupted.jsonl"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
    let json = toolcheck(&[
        "lint",
        "fixtures/langgraph-stream/broken-interrupted.jsonl",
        "--output-format",
        "json",
    ]);
    assert!(
        json.stdout
            .contains(r#""pointer": "/2/messages/1/kwargs/tool_calls/0""#),
        "{}",
        json.stdout
    );
}

#[test]
fn fix_write_answers_the_call_in_the_last_snapshot_and_settles() {
    let (out, fixed) = fix_write_twice("langgraph-stream", &["broken-interrupted.jsonl"]);
    insta::assert_snapshot!(out.transcript());
    let last = fixed[0].lines().last().unwrap_or_default();
    assert!(
        last.contains(
            r#""ToolMessage"], "kwargs": {"content": "Error: no result was recorded for this call"#
        ),
        "{last}"
    );
    // Only the last snapshot is rewritten.
    assert_eq!(fixed[0].matches("ToolMessage").count(), 1, "{}", fixed[0]);
}

#[test]
fn clean_stream_is_recognised_and_does_not_fire() {
    let path = "fixtures/langgraph-stream/clean-stream.json";
    let one = toolcheck(&["lint", path, "--output-format", "json"]);
    assert_eq!(one.code, 0, "{}", one.transcript());
    let verbose = toolcheck(&["lint", "-v", path]);
    assert!(
        verbose
            .stderr
            .contains("(langgraph-stream): 1 conversation, 1 call, 1 result"),
        "{}",
        verbose.stderr
    );
    let forced = toolcheck(&["lint", path, "--input-format", "langgraph-stream"]);
    assert_eq!(forced.code, 0, "{}", forced.transcript());
    // LangChain dumps stay LangChain's.
    let other = toolcheck(&["lint", "fixtures/langchain", "--output-format", "json"]);
    assert!(
        !other.stdout.contains("\"langgraph-stream\""),
        "{}",
        other.stdout
    );
}

/// The LangGraph API's stream (`client.runs.stream`, parts saved as `[event, data]`) carries
/// messages as pydantic dumps; three failing `deploy` calls in a row are one loop.
#[test]
fn api_stream_with_a_loop_of_failing_calls() {
    let out = toolcheck(&[
        "lint",
        "fixtures/langgraph-stream/broken-api-loop.json",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}
