//! The CI report formats: GitLab Code Quality and JUnit XML.

use crate::common;

use common::toolcheck;

const BROKEN: [&str; 2] = [
    "fixtures/anthropic/broken-request.json",
    "fixtures/openai-chat/broken-request.json",
];

#[test]
fn gitlab_code_quality_report_matches_gitlabs_format() {
    let mut args = vec!["lint", "--output-format", "gitlab"];
    args.extend(BROKEN);
    let out = toolcheck(&args);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(common::root().join("tests/data/gitlab-codequality.schema.json"))
            .expect("schema"),
    )
    .expect("schema JSON");
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let issues = report.as_array().expect("an array");
    let lint = toolcheck(&["lint", "--output-format", "json", BROKEN[0], BROKEN[1]]);
    let findings: serde_json::Value = serde_json::from_str(&lint.stdout).expect("JSON");
    assert_eq!(issues.len(), findings.as_array().map_or(0, Vec::len));
    // GitLab keeps one issue per fingerprint: they must differ, and stay the same run to run.
    let mut prints: Vec<&str> = issues
        .iter()
        .filter_map(|i| i["fingerprint"].as_str())
        .collect();
    prints.sort_unstable();
    prints.dedup();
    assert_eq!(prints.len(), issues.len());
    assert_eq!(toolcheck(&args).stdout, out.stdout);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn junit_report_has_one_failed_case_per_finding() {
    let mut args = vec!["lint", "--output-format", "junit"];
    args.extend(BROKEN);
    let out = toolcheck(&args);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let xml = &out.stdout;
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"));
    let cases = xml.matches("<testcase ").count();
    let failures = xml.matches("<failure ").count();
    assert_eq!(cases, failures);
    assert!(xml.contains("tests=\"16\" failures=\"16\""), "{xml}");
    assert_eq!(xml.matches("<testsuite ").count(), 2);
    assert_balanced(xml);
    insta::assert_snapshot!(out.stdout);

    let clean = toolcheck(&[
        "lint",
        "--output-format",
        "junit",
        "fixtures/openai-chat/clean-request.json",
    ]);
    assert_eq!(clean.code, 0);
    assert!(clean.stdout.contains("tests=\"1\" failures=\"0\""));
    assert!(clean.stdout.contains("<testcase name=\"No findings\""));
    assert_balanced(&clean.stdout);
}

#[test]
fn ci_reports_have_no_room_for_statistics() {
    for format in ["gitlab", "junit"] {
        let out = toolcheck(&["lint", "--statistics", "--output-format", format, BROKEN[0]]);
        assert_eq!(out.code, 2, "{format}: {}", out.stderr);
    }
}

/// The report is well-formed XML, and each suite's counts are its cases and failures.
fn assert_balanced(xml: &str) {
    let doc = roxmltree::Document::parse(xml).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    for suite in root.children().filter(|n| n.has_tag_name("testsuite")) {
        let cases: Vec<_> = suite
            .children()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        let failed = cases
            .iter()
            .filter(|c| c.children().any(|n| n.has_tag_name("failure")))
            .count();
        assert_eq!(
            suite.attribute("tests"),
            Some(cases.len().to_string().as_str())
        );
        assert_eq!(
            suite.attribute("failures"),
            Some(failed.to_string().as_str())
        );
    }
}

#[test]
fn ci_reports_name_the_span_of_a_trace_finding() {
    // Issue 41: every output points at the span, as JSON and the concise line do.
    let file = "fixtures/openinference/broken-phoenix-rest.json";
    let json = toolcheck(&["lint", "--no-config", "--output-format", "json", file]);
    let found: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    let span = found[0]["span"]["span_id"]
        .as_str()
        .expect("a span id")
        .to_string();
    for format in ["github", "gitlab", "junit"] {
        let out = toolcheck(&["lint", "--no-config", "--output-format", format, file]);
        assert_eq!(out.code, 1, "{format}");
        assert!(
            out.stdout.contains("span ") && out.stdout.contains(&span),
            "{format} names no span:\n{}",
            out.stdout
        );
    }
}
