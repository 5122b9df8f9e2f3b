//! `--tools`: schemas supplied by the user for logs that carry none.

use crate::common;

use common::toolcheck;

const LOG: &str = "tests/data/calls-without-tools.json";

#[test]
fn without_tools_nothing_is_checked_against_schemas() {
    let out = toolcheck(&["lint", LOG, "--output-format", "concise"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
}

#[test]
fn mcp_tools_list_and_anthropic_array_supply_schemas() {
    let out = toolcheck(&[
        "lint",
        LOG,
        "--tools",
        "tests/data/mcp-tools-list.json",
        "--tools",
        "tests/data/anthropic-tools.json",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn one_tools_file_makes_other_names_unknown() {
    let out = toolcheck(&[
        "lint",
        LOG,
        "--tools",
        "tests/data/mcp-tools-list.json",
        "--output-format",
        "concise",
        "--select",
        "unknown-tool",
        "-q",
    ]);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", out.stdout);
    assert!(lines[0].contains("to `Bash` calls an undeclared tool"));
    assert!(lines[1].contains("to `Read` calls an undeclared tool"));
}

#[test]
fn unusable_tools_file_is_a_usage_error() {
    let out = toolcheck(&["lint", LOG, "--tools", "fixtures/mixed/package.json"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("cannot use --tools fixtures/mixed/package.json"),
        "{}",
        out.stderr
    );
    let missing = toolcheck(&["lint", LOG, "--tools", "no/such/tools.json"]);
    assert_eq!(missing.code, 2);
}

#[test]
fn claude_code_sessions_are_checked_against_supplied_tools() {
    let session = "fixtures/claude-code/broken-loop.jsonl";
    let without = toolcheck(&["lint", session, "--output-format", "concise", "-q"]);
    assert!(!without.stdout.contains("TC301") && !without.stdout.contains("TC202"));
    let with = toolcheck(&[
        "lint",
        session,
        "--tools",
        "tests/data/anthropic-tools.json",
        "--output-format",
        "concise",
        "-q",
    ]);
    let lines: Vec<&str> = with.stdout.lines().collect();
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("TC202 [empty-arguments]"))
            .count(),
        3,
        "{}",
        with.stdout
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("TC301 [schema-violation]"))
            .count(),
        3,
        "{}",
        with.stdout
    );
    assert!(with.stdout.contains("\"command\" is a required property"));
}
