//! The `lint` command as users see it: findings, formats, exit codes.

use crate::common;

use common::{fixture_files, toolcheck, toolcheck_stdin};

#[test]
fn lints_every_fixture_concisely() {
    let out = toolcheck(&["lint", "fixtures", "--output-format", "concise"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn clean_fixtures_have_no_findings_and_broken_ones_do() {
    for file in fixture_files() {
        let name = std::path::Path::new(&file)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let out = toolcheck(&["lint", &file, "--output-format", "concise", "-q"]);
        if name.starts_with("clean-") {
            assert_eq!(out.code, 0, "{file} should be clean:\n{}", out.stdout);
            assert!(out.stdout.is_empty(), "{file}:\n{}", out.stdout);
        } else if name.starts_with("broken-") {
            assert_eq!(out.code, 1, "{file} should have findings");
            assert!(!out.stdout.is_empty(), "{file} reported nothing");
        }
    }
}

#[test]
fn full_report_for_openai_chat() {
    let out = toolcheck(&["lint", "fixtures/openai-chat/broken-request.json"]);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn full_report_for_anthropic() {
    let out = toolcheck(&["lint", "fixtures/anthropic/broken-request.json"]);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn full_report_crops_long_jsonl_lines() {
    let out = toolcheck(&["lint", "fixtures/openai-chat/broken-finetune.jsonl"]);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn json_output_has_the_documented_fields() {
    let out = toolcheck(&[
        "lint",
        "fixtures/anthropic/broken-request.json",
        "--output-format",
        "json",
    ]);
    assert_eq!(out.code, 1);
    let parsed: serde_json::Value = serde_json::from_str(&out.stdout).expect("valid JSON");
    let first = &parsed[0];
    for key in [
        "code",
        "rule",
        "severity",
        "message",
        "help",
        "path",
        "format",
        "line",
        "column",
        "end_line",
        "end_column",
        "pointer",
        "fix",
    ] {
        assert!(first.get(key).is_some(), "missing {key} in {first}");
    }
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn jsonl_output_is_one_object_per_line() {
    let out = toolcheck(&[
        "lint",
        "fixtures/openai-chat/broken-finetune.jsonl",
        "--output-format",
        "jsonl",
    ]);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 4);
    for line in lines {
        let v: serde_json::Value = serde_json::from_str(line).expect("each line is JSON");
        assert_eq!(v["path"], "fixtures/openai-chat/broken-finetune.jsonl");
    }
}

#[test]
fn github_annotations() {
    let out = toolcheck(&[
        "lint",
        "fixtures/openai-chat/broken-finetune.jsonl",
        "--output-format",
        "github",
    ]);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn clean_file_exits_zero_with_a_summary() {
    let out = toolcheck(&["lint", "fixtures/anthropic/clean-request.json"]);
    assert_eq!(out.code, 0);
    assert_eq!(out.stdout, "No findings: 1 file checked.\n");
}

#[test]
fn reads_stdin_with_a_reported_name() {
    let body = r#"{"messages": [{"role": "tool", "tool_call_id": "call_1", "content": "x"}]}"#;
    let out = toolcheck_stdin(
        &[
            "lint",
            "-",
            "--stdin-filename",
            "body.json",
            "--output-format",
            "concise",
        ],
        body,
    );
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn stdin_jsonl_by_its_filename() {
    let body = "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n{\"messages\": [{\"role\": \"tool\", \"tool_call_id\": \"c\", \"content\": \"x\"}]}\n";
    let out = toolcheck_stdin(
        &[
            "lint",
            "-",
            "--stdin-filename",
            "train.jsonl",
            "--output-format",
            "concise",
            "-q",
        ],
        body,
    );
    assert_eq!(
        out.stdout,
        "train.jsonl:2:15: TC101 [orphaned-tool-result] tool result for \"c\" has no matching tool call; the conversation has no tool call before it\n"
    );
}

#[test]
fn explicit_unrecognised_file_is_a_finding() {
    let out = toolcheck(&[
        "lint",
        "fixtures/mixed/package.json",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn directory_walk_skips_unrelated_json() {
    let out = toolcheck(&["lint", "fixtures/mixed", "-v"]);
    assert_eq!(out.code, 0);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn a_skipped_file_and_its_one_item_are_named_in_the_singular() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("numbers.json"), "[1]").expect("write");
    let out = common::toolcheck_in(dir.path(), &["lint", ".", "-v"], None);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(
        out.stderr.contains(
            "skipped numbers.json: an array of 1 item that is not a message of a known format"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout
            .contains("1 skipped (not a conversation format: 1 other JSON; -v lists it)"),
        "{}",
        out.stdout
    );
}

#[test]
fn missing_path_exits_two_but_other_files_are_checked() {
    let out = toolcheck(&[
        "lint",
        "no/such/file.json",
        "fixtures/errors/truncated.json",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 2);
    assert!(out.stdout.contains("TC001 [parse-error] file is truncated"));
    assert!(out.stderr.contains("no/such/file.json"));
}

#[test]
fn select_and_ignore_by_code_prefix_and_name() {
    let file = "fixtures/openai-chat/broken-request.json";
    let only = toolcheck(&[
        "lint",
        file,
        "--output-format",
        "concise",
        "-q",
        "--select",
        "TC2",
    ]);
    assert!(
        only.stdout.lines().all(|l| l.contains(": TC2")),
        "{}",
        only.stdout
    );
    assert!(!only.stdout.is_empty());
    let without = toolcheck(&[
        "lint",
        file,
        "--output-format",
        "concise",
        "-q",
        "--ignore",
        "unpaired-tool-call,TC2",
    ]);
    assert!(!without.stdout.contains("TC102"));
    assert!(!without.stdout.contains(": TC2"));
    assert!(without.stdout.contains("TC101"));
    let bad = toolcheck(&["lint", file, "--select", "TC9"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("unknown rule selector `TC9`"));
}

#[test]
fn statistics_and_exit_zero() {
    let out = toolcheck(&[
        "lint",
        "fixtures/openai-chat",
        "--statistics",
        "--exit-zero",
    ]);
    assert_eq!(out.code, 0);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn quiet_prints_findings_only() {
    let out = toolcheck(&["lint", "fixtures/anthropic/clean-request.json", "-q"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""));
}

#[test]
fn forced_format_that_does_not_fit_is_a_finding() {
    let out = toolcheck(&[
        "lint",
        "fixtures/openai-chat/clean-request.json",
        "--input-format",
        "anthropic",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("TC002"), "{}", out.stdout);
}

#[test]
fn sarif_output_for_code_scanning() {
    let out = toolcheck(&[
        "lint",
        "fixtures/anthropic/broken-request.json",
        "--output-format",
        "sarif",
    ]);
    assert_eq!(out.code, 1);
    let log: serde_json::Value = serde_json::from_str(&out.stdout).expect("SARIF is JSON");
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 7);
    for result in results {
        // Each result points at its rule's descriptor.
        let index = result["ruleIndex"].as_u64().expect("index") as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        let region = &result["locations"][0]["physicalLocation"]["region"];
        assert!(region["startLine"].as_u64() >= Some(1));
    }
    // Fixes travel as byte replacements.
    let orphan = results
        .iter()
        .find(|r| r["ruleId"] == "TC101")
        .expect("TC101");
    let replacement = &orphan["fixes"][0]["artifactChanges"][0]["replacements"][0];
    assert!(replacement["deletedRegion"]["byteLength"].as_u64() > Some(0));
    insta::assert_snapshot!(out
        .stdout
        .lines()
        .filter(|l| l.contains("\"ruleId\"") || l.contains("\"startLine\""))
        .collect::<Vec<_>>()
        .join("\n"));
}

#[test]
fn verbose_lists_the_format_of_each_checked_file() {
    let out = toolcheck(&["lint", "fixtures/codex", "fixtures/mixed", "-v", "-q"]);
    let checked: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("checked "))
        .collect();
    assert!(
        checked.iter().all(|l| l.contains(" (codex): ")),
        "{}",
        out.stderr
    );
    assert_eq!(
        out.stderr
            .lines()
            .filter(|l| l.starts_with("skipped "))
            .count(),
        4
    );
}

#[test]
fn statistics_as_json() {
    let out = toolcheck(&[
        "lint",
        "fixtures/anthropic",
        "--statistics",
        "--output-format",
        "json",
    ]);
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&out.stdout).expect("only JSON on stdout");
    let total: u64 = rows.iter().filter_map(|r| r["count"].as_u64()).sum();
    assert_eq!(total, 18);
    assert!(rows
        .iter()
        .all(|r| r["code"].is_string() && r["rule"].is_string()));
}
