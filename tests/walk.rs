//! Directory walks: ignore files (as ripgrep reads them), `--no-ignore`, what is skipped,
//! and the warning when a walk finds nothing to check.

use crate::common;

use std::path::Path;

use common::{root, toolcheck_in};

fn log(dir: &Path, rel: &str) {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::copy(
        root().join("fixtures/openai-chat/clean-request.json"),
        &path,
    )
    .expect("copy");
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
}

/// The files `lint -v` says it checked, in order, with no config file.
fn checked(dir: &Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["--no-config"];
    all.extend(args);
    common::checked_files(dir, &all)
}

/// A git work tree (a `.git` directory is what the walker looks for) with a file ignored
/// each way ripgrep knows.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::create_dir_all(d.join(".git/info")).expect("mkdir");
    write(d, ".git/info/exclude", "by-exclude.json\n");
    write(d, ".gitignore", "build/\n");
    write(d, "logs/.ignore", "by-dot-ignore.json\n");
    for rel in [
        "kept.json",
        "by-exclude.json",
        "build/out.json",
        "logs/by-dot-ignore.json",
        "logs/kept.jsonl",
    ] {
        log(d, rel);
    }
    dir
}

#[test]
fn gitignore_ignore_and_git_exclude_files_are_honoured_in_a_repository() {
    let dir = repo();
    assert_eq!(
        checked(dir.path(), &["."]),
        ["kept.json", "logs/kept.jsonl"]
    );
}

#[test]
fn no_ignore_checks_ignored_files_but_still_skips_hidden_ones() {
    let dir = repo();
    log(dir.path(), ".cache/hidden.json");
    assert_eq!(
        checked(dir.path(), &[".", "--no-ignore"]),
        [
            "build/out.json",
            "by-exclude.json",
            "kept.json",
            "logs/by-dot-ignore.json",
            "logs/kept.jsonl"
        ]
    );
}

#[test]
fn a_gitignore_outside_a_repository_is_not_read_but_an_ignore_file_is() {
    let dir = repo();
    std::fs::remove_dir_all(dir.path().join(".git")).expect("rm .git");
    assert_eq!(
        checked(dir.path(), &["."]),
        [
            "build/out.json",
            "by-exclude.json",
            "kept.json",
            "logs/kept.jsonl"
        ]
    );
}

#[test]
fn a_file_named_on_the_command_line_is_checked_even_when_ignored() {
    let dir = repo();
    assert_eq!(
        checked(dir.path(), &["build/out.json", "logs/by-dot-ignore.json"]),
        ["build/out.json", "logs/by-dot-ignore.json"]
    );
}

/// A directory with nothing a walk checks.
fn nothing_to_check() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::create_dir_all(d.join(".git")).expect("mkdir");
    write(d, ".gitignore", "out/\n");
    log(d, ".claude/session.json");
    log(d, "node_modules/pkg/a.json");
    log(d, "out/run.json");
    write(d, "notes.txt", "not a log\n");
    dir
}

#[test]
fn a_walk_that_finds_nothing_warns_and_exits_0() {
    let dir = nothing_to_check();
    let out = toolcheck_in(dir.path(), &["lint", "--no-config"], None);
    insta::assert_snapshot!(out.transcript());
    let quiet = toolcheck_in(dir.path(), &["lint", "--no-config", "-q"], None);
    assert_eq!(quiet.code, 0);
    assert_eq!(quiet.stderr, "", "-q leaves the warning out");
    let fix = toolcheck_in(dir.path(), &["fix", "--no-config", "."], None);
    assert_eq!(fix.code, 0, "{}", fix.transcript());
    assert!(
        fix.stderr
            .contains("warning: no conversation files found in ."),
        "{}",
        fix.stderr
    );
}

#[test]
fn verbose_lists_the_skipped_directories_and_why() {
    let dir = nothing_to_check();
    let out = toolcheck_in(dir.path(), &["lint", "--no-config", "-v", "."], None);
    insta::assert_snapshot!(out.transcript());
}
