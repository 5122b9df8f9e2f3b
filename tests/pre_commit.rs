//! What the pre-commit hooks (`.pre-commit-hooks.yaml`) rely on: every staged JSON file is
//! passed by name, and `--skip-unknown-format` skips those that hold no conversation.

use crate::common;

use common::{root, toolcheck_in};

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(
        dir.path().join("package.json"),
        "{\"name\": \"demo\", \"version\": \"1.0.0\"}\n",
    )
    .expect("write");
    let log = std::fs::read_to_string(root().join("fixtures/openai-chat/broken-request.json"))
        .expect("fixture");
    std::fs::write(dir.path().join("request.json"), log).expect("write");
    dir
}

#[test]
fn named_files_without_a_conversation_are_skipped_on_request() {
    let dir = project();
    let named = [
        "lint",
        "--no-config",
        "--output-format",
        "concise",
        "package.json",
    ];
    let reported = toolcheck_in(dir.path(), &named, None);
    let skipped = toolcheck_in(
        dir.path(),
        &[&named[..], &["--skip-unknown-format", "-v"]].concat(),
        None,
    );
    insta::assert_snapshot!(format!("{}{}", reported.transcript(), skipped.transcript()));
}

#[test]
fn skipping_keeps_the_findings_of_real_logs() {
    let dir = project();
    let out = toolcheck_in(
        dir.path(),
        &[
            "lint",
            "--no-config",
            "--skip-unknown-format",
            "--output-format",
            "concise",
            "package.json",
            "request.json",
        ],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stdout.contains("request.json:"), "{}", out.stdout);
    assert!(!out.stdout.contains("package.json"), "{}", out.stdout);
}

#[test]
fn the_hooks_manifest_names_both_hooks() {
    let manifest =
        std::fs::read_to_string(root().join(".pre-commit-hooks.yaml")).expect("the manifest");
    for line in [
        "- id: toolcheck\n",
        "- id: toolcheck-fix\n",
        "  entry: toolcheck lint --skip-unknown-format\n",
        "  entry: toolcheck fix --write --skip-unknown-format\n",
        "  language: python\n",
        "  pass_filenames: true\n",
    ] {
        assert!(
            manifest.contains(line),
            "{line:?} in .pre-commit-hooks.yaml"
        );
    }
}
