//! Google ADK (`adk`): saved sessions (`adk run --save_session`, the `adk web` Export) and
//! eval sets, end to end through the binary.

use crate::common;

use common::{fix_write_twice, toolcheck};

/// The seed failure: an eval set whose agent declares a tool with `parameters_json_schema`
/// written as a JSON string (genai types that field `Any`, so ADK keeps the string).
#[test]
fn a_double_encoded_schema_in_an_eval_set() {
    let out = toolcheck(&["lint", "fixtures/adk/broken-schema.evalset.json"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
    let (fix, fixed) = fix_write_twice("adk", &["broken-schema.evalset.json"]);
    insta::assert_snapshot!("schema_fix", fix.transcript());
    assert!(
        fixed[0].contains(r#""parameters_json_schema": {"type": "object", "properties": {"city""#),
        "{}",
        fixed[0]
    );
}

/// A snake_case session: a loop of failing calls (`response.error`), a call left unanswered
/// when the tool was not found, and a response to a call that is not there.
#[test]
fn broken_session() {
    let out = toolcheck(&[
        "lint",
        "fixtures/adk/broken-session.json",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn fix_write_inserts_a_response_event_and_settles() {
    let (out, fixed) = fix_write_twice("adk", &["broken-session.json"]);
    insta::assert_snapshot!(out.transcript());
    assert!(
        fixed[0].contains(r#""author": "booking_agent""#) && !fixed[0].contains("get_hours"),
        "{}",
        fixed[0]
    );
}

/// Expected tool uses with no id and no response are not unanswered calls; camelCase and
/// snake_case both read; an MCP result with `isError: false` is not a failure.
#[test]
fn clean_sessions_and_eval_sets_do_not_fire() {
    for clean in ["clean-session.json", "clean-weather.evalset.json"] {
        let path = format!("fixtures/adk/{clean}");
        let one = toolcheck(&["lint", &path, "--output-format", "json"]);
        assert_eq!(one.code, 0, "{clean}: {}", one.transcript());
        let verbose = toolcheck(&["lint", "-v", &path]);
        assert!(
            verbose.stderr.contains("(adk)"),
            "{clean}: {}",
            verbose.stderr
        );
    }
    // Gemini requests stay Gemini's.
    let other = toolcheck(&["lint", "fixtures/gemini", "--output-format", "json"]);
    assert!(!other.stdout.contains("\"adk\""), "{}", other.stdout);
}
