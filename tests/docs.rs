//! `docs/rules/` is generated from the rule catalog; this test fails when it is stale.
//!
//! Regenerate with `UPDATE_DOCS=1 cargo test --test tests docs::` (or
//! `cargo run -- generate-docs docs/rules`).

use crate::common;

use std::path::Path;

use common::{root, toolcheck};

fn markdown_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".md"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn rule_docs_are_up_to_date() {
    let docs = root().join("docs/rules");
    if std::env::var_os("UPDATE_DOCS").is_some() {
        let out = toolcheck(&["generate-docs", "docs/rules"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    let fresh = tempfile::tempdir().expect("a temporary directory");
    let dir = fresh.path().to_string_lossy().into_owned();
    let out = toolcheck(&["generate-docs", &dir]);
    assert_eq!(out.code, 0, "{}", out.stderr);

    let expected = markdown_files(fresh.path());
    assert!(
        expected.len() > 10,
        "one page per rule and an index: {expected:?}"
    );
    let hint =
        "docs/rules/ is stale: regenerate it with `UPDATE_DOCS=1 cargo test --test tests docs::`";
    assert_eq!(markdown_files(&docs), expected, "{hint}");
    for name in &expected {
        let want = std::fs::read_to_string(fresh.path().join(name)).unwrap_or_default();
        let have = std::fs::read_to_string(docs.join(name)).unwrap_or_default();
        assert!(have == want, "{name} differs. {hint}");
    }
}

#[test]
fn a_rule_page_has_heading_severity_fix_and_the_doc() {
    let page = std::fs::read_to_string(root().join("docs/rules/orphaned-tool-result.md"))
        .expect("the page exists");
    let explain = toolcheck(&["explain", "TC101"]).stdout;
    assert!(
        page.contains("\n# orphaned-tool-result (TC101)\n"),
        "{page}"
    );
    assert!(page.contains("- Severity: error\n- Fix: safe"), "{page}");
    let doc_start = explain.find("## What it does").unwrap_or_default();
    let doc_end = explain.find("\n\nDocumentation:").unwrap_or(explain.len());
    let doc = explain.get(doc_start..doc_end).unwrap_or_default();
    assert!(!doc.is_empty() && page.contains(doc), "{page}");
}

#[test]
fn generating_removes_pages_of_rules_that_are_gone() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let stale = dir.path().join("retired-rule.md");
    let mine = dir.path().join("notes.md");
    let generated =
        std::fs::read_to_string(root().join("docs/rules/README.md")).expect("the index exists");
    std::fs::write(&stale, generated).expect("write");
    std::fs::write(&mine, "# my notes\n").expect("write");
    let out = toolcheck(&["generate-docs", &dir.path().to_string_lossy()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!stale.exists(), "a generated page of no rule is deleted");
    assert!(mine.exists(), "a page toolcheck did not write is kept");
}

#[test]
fn sarif_rules_point_to_their_pages() {
    let out = toolcheck(&[
        "lint",
        "fixtures/openai-chat/broken-request.json",
        "--output-format",
        "sarif",
    ]);
    let sarif: serde_json::Value = serde_json::from_str(&out.stdout).expect("SARIF JSON");
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rule descriptors");
    assert!(!rules.is_empty());
    for rule in rules {
        let name = rule["name"].as_str().unwrap_or_default();
        let uri = rule["helpUri"].as_str().unwrap_or_default();
        assert_eq!(uri, format!("docs/rules/{name}.md"));
        assert!(root().join(uri).is_file(), "{uri} exists");
    }
}
