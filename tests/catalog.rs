//! `toolcheck rules` and `toolcheck explain`.

use crate::common;

use common::toolcheck;

#[test]
fn rules_table() {
    let out = toolcheck(&["rules"]);
    assert_eq!(out.code, 0);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn rules_json_lists_every_rule_once() {
    let out = toolcheck(&["rules", "--output-format", "json"]);
    let rules: Vec<serde_json::Value> = serde_json::from_str(&out.stdout).expect("JSON array");
    let mut codes: Vec<&str> = rules.iter().filter_map(|r| r["code"].as_str()).collect();
    let n = codes.len();
    codes.dedup();
    assert_eq!(codes.len(), n);
    assert!(rules
        .iter()
        .all(|r| r["name"].is_string() && r["summary"].is_string()));
}

#[test]
fn explain_by_name_and_code_print_the_doc_comment() {
    let by_name = toolcheck(&["explain", "orphaned-tool-result"]);
    let by_code = toolcheck(&["explain", "tc101"]);
    assert_eq!(by_name.code, 0);
    assert_eq!(by_name.stdout, by_code.stdout);
    insta::assert_snapshot!(by_name.stdout);
}

#[test]
fn every_rule_documents_what_why_example_and_fix() {
    let out = toolcheck(&["rules", "--output-format", "json"]);
    let rules: Vec<serde_json::Value> = serde_json::from_str(&out.stdout).expect("JSON array");
    for rule in rules {
        let code = rule["code"].as_str().unwrap_or_default();
        let doc = toolcheck(&["explain", code]).stdout;
        for heading in [
            "## What it does",
            "## Why it matters",
            "## Example",
            "## Fix",
        ] {
            assert!(doc.contains(heading), "{code} lacks {heading}");
        }
    }
}

#[test]
fn explain_unknown_rule_is_a_usage_error() {
    let out = toolcheck(&["explain", "no-such-rule"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("unknown rule or format `no-such-rule`"));
}

#[test]
fn explain_suggests_the_closest_rule() {
    let out = toolcheck(&["explain", "orphaned-tool-resul"]);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn explain_suggests_nothing_when_nothing_is_close() {
    let out = toolcheck(&["explain", "no-such-rule"]);
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn unknown_selectors_suggest_the_closest_rule() {
    let select = toolcheck(&["lint", "fixtures/", "--select", "orphaned-tool-resul"]);
    let ignore = toolcheck(&["lint", "fixtures/", "--ignore", "TC1O1"]);
    let typo_in_list = toolcheck(&["lint", "fixtures/", "--select", "TC1,unpaired-tool-cal"]);
    insta::assert_snapshot!(format!(
        "{}{}{}",
        select.transcript(),
        ignore.transcript(),
        typo_in_list.transcript()
    ));
}

#[test]
fn explain_prints_the_whole_page_and_no_path_that_means_nothing_after_install() {
    let out = toolcheck(&["explain", "TC102"]);
    // The page in the repository is generated from the same text.
    let page = std::fs::read_to_string(common::root().join("docs/rules/unpaired-tool-call.md"))
        .expect("the generated page");
    let last = out.stdout.lines().last().unwrap_or_default();
    assert!(page.contains(last), "{last}");
    assert!(!out.stdout.contains("docs/rules/"), "{}", out.stdout);
}

/// `rules` takes `--color` as `lint` does: the codes and severities coloured, the columns
/// still aligned, and nothing coloured with `never` (the default off a terminal).
#[test]
fn rules_color_always_colours_severities_and_never_does_not() {
    let plain = toolcheck(&["rules"]);
    let never = toolcheck(&["rules", "--color", "never"]);
    assert_eq!(plain.stdout, never.stdout);
    assert!(!never.stdout.contains('\x1b'));
    let always = toolcheck(&["rules", "--color", "always"]);
    assert_eq!(always.code, 0, "{}", always.transcript());
    assert!(
        always.stdout.contains("\x1b[1;31mTC101 \x1b[0m"),
        "{}",
        always.stdout
    );
    assert!(
        always.stdout.contains("\x1b[1;33mwarning \x1b[0m"),
        "{}",
        always.stdout
    );
    let stripped = common::strip_colors(&always.stdout);
    assert_eq!(stripped, plain.stdout);
}
