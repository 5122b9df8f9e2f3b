//! Issue 11's acceptance: one folder holding what each agent framework writes, clean and
//! broken, is linted with no `--input-format`, `fix --write` repairs what it can, a second
//! fix changes nothing, and the clean files are never touched.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{root, toolcheck_in, walk};

/// The framework fixture folders (the provider formats have their own tests).
const FRAMEWORKS: &[&str] = &[
    "moltis",
    "mcp",
    "spring-ai",
    "agentscope",
    "adk",
    "langgraph-stream",
];

fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in walk(dir) {
        let name = entry
            .strip_prefix(dir)
            .expect("inside the folder")
            .to_string_lossy()
            .into_owned();
        files.insert(name, std::fs::read(&entry).expect("readable"));
    }
    files
}

#[test]
fn every_framework_in_one_folder_is_read_fixed_and_settles() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    for framework in FRAMEWORKS {
        let target = tmp.path().join(framework);
        std::fs::create_dir_all(&target).expect("mkdir");
        for file in walk(&root().join("fixtures").join(framework)) {
            let name = file.file_name().expect("a file name");
            std::fs::copy(&file, target.join(name)).expect("copy");
        }
    }

    // Every file the walk picks up is read as its framework's format, none is skipped.
    let verbose = toolcheck_in(tmp.path(), &["lint", ".", "-v", "-q"], None);
    assert!(
        !verbose.stderr.contains("skipped "),
        "nothing is skipped:\n{}",
        verbose.stderr
    );
    for framework in FRAMEWORKS {
        if *framework == "mcp" {
            // `.log` captures are read when named; the walk takes the `.jsonl` ones.
            assert!(verbose.stderr.contains("(mcp)"), "{}", verbose.stderr);
            continue;
        }
        assert!(
            verbose.stderr.contains(&format!("({framework})")),
            "{framework} files are read as {framework}:\n{}",
            verbose.stderr
        );
    }
    assert_eq!(verbose.code, 1, "the broken fixtures have findings");

    let before = snapshot(tmp.path());
    let first = toolcheck_in(tmp.path(), &["fix", "--write", "."], None);
    assert_ne!(first.code, 2, "fix --write runs: {}", first.transcript());
    let fixed = snapshot(tmp.path());
    for (name, bytes) in &before {
        let base = Path::new(name)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if base.starts_with("clean-") {
            assert_eq!(
                Some(bytes),
                fixed.get(name),
                "{name} is clean and untouched"
            );
        }
    }
    assert!(
        before
            .iter()
            .any(|(name, bytes)| fixed.get(name) != Some(bytes)),
        "fix --write repaired something"
    );

    let second = toolcheck_in(tmp.path(), &["fix", "--write", "."], None);
    assert_eq!(
        fixed,
        snapshot(tmp.path()),
        "a second fix changes nothing: {}",
        second.transcript()
    );
    // What is left has no safe fix.
    let left = toolcheck_in(tmp.path(), &["lint", ".", "--output-format", "json"], None);
    let findings: serde_json::Value = serde_json::from_str(&left.stdout).expect("JSON output");
    let safe_left: Vec<&serde_json::Value> = findings
        .as_array()
        .expect("an array")
        .iter()
        .filter(|f| f["fix"]["applicability"] == "safe")
        .collect();
    assert!(safe_left.is_empty(), "safe fixes remain: {safe_left:#?}");
}
