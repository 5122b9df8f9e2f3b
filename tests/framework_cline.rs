//! Cline, Roo Code and Kilo Code task histories (`api_conversation_history.json`), end to end
//! through the binary.

use crate::common;

use common::{toolcheck, toolcheck_in};

/// An orphaned result, an unpaired native call, and arguments cut off mid-string.
#[test]
fn broken_history() {
    let out = toolcheck(&["lint", "fixtures/cline/broken-history.json"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// Results written as `[tool for '…'] Result:` text pair with the native calls before them,
/// XML-era calls are text, and condensed messages (and a role-less reasoning item) are not
/// checked, nor taken for unread structures.
#[test]
fn clean_histories_do_not_fire() {
    for file in [
        "fixtures/cline/clean-text-results.json",
        "fixtures/cline/clean-condensed.json",
    ] {
        let out = toolcheck(&["lint", file, "-v"]);
        assert_eq!(out.code, 0, "{}", out.transcript());
        assert!(out.stderr.contains("(cline)"), "{}", out.stderr);
    }
}

/// The same text results read as a plain Anthropic request are unpaired calls: the reason
/// for the format.
#[test]
fn text_results_are_unpaired_as_anthropic() {
    let out = toolcheck(&[
        "lint",
        "fixtures/cline/clean-text-results.json",
        "--input-format",
        "anthropic",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("TC102"), "{}", out.transcript());
}

/// A bare array of Anthropic messages with nothing only Cline writes stays `anthropic`.
#[test]
fn plain_message_array_is_anthropic() {
    let out = common::toolcheck_stdin(
        &[
            "lint",
            "-",
            "--stdin-filename",
            "api_conversation_history.json",
            "-v",
        ],
        r#"[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]"#,
    );
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(out.stderr.contains("(anthropic)"), "{}", out.stderr);
}

/// The orphaned result goes and the unpaired call gets an error result in its place; the
/// string arguments have no automatic fix, so the round trip leaves that rule out.
#[test]
fn fix_round_trip_lints_clean() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("api_conversation_history.json");
    std::fs::copy(
        common::root().join("fixtures/cline/broken-history.json"),
        &path,
    )
    .expect("copy the fixture");
    let fix = || {
        toolcheck_in(
            dir.path(),
            &[
                "fix",
                "api_conversation_history.json",
                "--write",
                "--ignore",
                "arguments-not-object",
            ],
            None,
        )
    };
    let out = fix();
    insta::assert_snapshot!(out.transcript());
    let fixed = std::fs::read_to_string(&path).expect("fixed file");
    let again = fix();
    assert_eq!(
        std::fs::read_to_string(&path).expect("fixed file"),
        fixed,
        "{}",
        again.transcript()
    );
    let lint = toolcheck_in(
        dir.path(),
        &[
            "lint",
            "api_conversation_history.json",
            "--ignore",
            "arguments-not-object",
        ],
        None,
    );
    assert_eq!(lint.code, 0, "{}", lint.transcript());
}
