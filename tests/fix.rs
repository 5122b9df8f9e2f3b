//! `toolcheck fix`: diffs, --write, and the invariants every fix keeps.

use crate::common;

use std::path::{Path, PathBuf};

use common::{fixture_files, root, toolcheck, toolcheck_in, toolcheck_stdin};

/// A copy of the fixtures in a temporary directory.
fn fixture_copy() -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut files = Vec::new();
    for rel in fixture_files() {
        let to = dir.path().join(&rel);
        std::fs::create_dir_all(to.parent().expect("a parent")).expect("mkdir");
        std::fs::copy(root().join(&rel), &to).expect("copy");
        files.push(to);
    }
    (dir, files)
}

/// How many documents (the file, or its JSONL records) do not parse.
fn unparseable(path: &Path, text: &str) -> usize {
    let is_jsonl = path
        .extension()
        .is_some_and(|e| e == "jsonl" || e == "ndjson");
    let bad = |t: &str| usize::from(serde_json::from_str::<serde_json::Value>(t).is_err());
    if is_jsonl {
        text.lines().filter(|l| !l.trim().is_empty()).map(bad).sum()
    } else {
        bad(text)
    }
}

#[test]
fn dry_run_shows_diffs_of_every_fixable_fixture() {
    let out = toolcheck(&["fix", "fixtures", "--color", "never"]);
    assert_eq!(out.code, 1, "there is something to fix");
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn fixing_every_fixture_keeps_the_invariants() {
    let (dir, files) = fixture_copy();
    let before: Vec<(Vec<u8>, std::time::SystemTime)> = files
        .iter()
        .map(|f| {
            (
                std::fs::read(f).expect("read"),
                std::fs::metadata(f)
                    .and_then(|m| m.modified())
                    .expect("mtime"),
            )
        })
        .collect();
    let out = toolcheck_in(
        dir.path(),
        &["fix", ".", "--write", "--unsafe-fixes", "--color", "never"],
        None,
    );
    assert_ne!(out.code, 2, "{}", out.stderr);

    // Nothing fixable is left, and fixing again changes nothing.
    let lint = toolcheck_in(dir.path(), &["lint", ".", "--output-format", "json"], None);
    let remaining: Vec<serde_json::Value> = serde_json::from_str(&lint.stdout).expect("JSON");
    let fixable: Vec<&serde_json::Value> =
        remaining.iter().filter(|d| !d["fix"].is_null()).collect();
    assert!(fixable.is_empty(), "fixable findings remain: {fixable:#?}");
    let again = toolcheck_in(dir.path(), &["fix", ".", "--unsafe-fixes"], None);
    assert_eq!(again.code, 0, "a second fix found more: {}", again.stdout);
    assert!(again.stdout.is_empty());

    for (file, (bytes, mtime)) in files.iter().zip(before) {
        let now = std::fs::read(file).expect("read");
        let name = file.display();
        if now == bytes {
            let mtime_now = std::fs::metadata(file)
                .and_then(|m| m.modified())
                .expect("mtime");
            assert_eq!(mtime, mtime_now, "{name} was rewritten without changes");
        } else {
            // What parsed before parses after (deliberately truncated records stay so).
            let was = unparseable(file, &String::from_utf8_lossy(&bytes));
            let is = unparseable(file, &String::from_utf8_lossy(&now));
            assert!(
                is <= was,
                "{name}: {is} unparseable documents after fixing, {was} before"
            );
        }
    }
}

#[test]
fn write_prints_what_it_changed_and_exits_by_what_remains() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("fixable.json");
    std::fs::write(
        &file,
        r#"{"messages": [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "call_x", "content": "stale"}]}"#,
    )
    .expect("write");
    let out = toolcheck_in(
        dir.path(),
        &["fix", "fixable.json", "--write", "--color", "never"],
        None,
    );
    assert_eq!(out.code, 0, "nothing is left after fixing: {}", out.stderr);
    assert!(out.stdout.contains("-{\"messages\""), "{}", out.stdout);
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        r#"{"messages": [{"role": "user", "content": "hi"}]}"#
    );
    assert!(
        out.stderr.contains("Fixed 1 finding in 1 file."),
        "{}",
        out.stderr
    );
}

#[test]
fn untouched_bytes_stay_identical() {
    // Odd spacing, escapes and number spellings outside the fixed element survive.
    let text = "{ \"model\":\"x\" ,\"temperature\" : 1.0,\n  \"messages\" : [\n\t{\"role\":\"user\",\"content\":\"caf\\u00e9 \\/ 1e3\"},\n\t{\"role\":\"tool\",\"tool_call_id\":\"gone\",\"content\":\"x\"} ,\n\t{\"role\":\"assistant\",\"content\":\"ok\"}\n  ]\n}\n";
    let out = toolcheck_stdin(
        &["fix", "-", "--stdin-filename", "odd.json", "--write"],
        text,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The element and the comma before it go; the space before the next comma stays.
    let expected = text.replace(
        ",\n\t{\"role\":\"tool\",\"tool_call_id\":\"gone\",\"content\":\"x\"}",
        "",
    );
    assert_eq!(out.stdout, expected);
}

#[test]
fn inserted_results_follow_the_layout() {
    let compact = r#"[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"next"}]"#;
    let out = toolcheck_stdin(
        &["fix", "-", "--stdin-filename", "c.json", "--write"],
        compact,
    );
    assert_eq!(
        out.stdout,
        r#"[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"Error: no result was recorded for this call; it may or may not have run, so check its effects before relying on it or running it again (inserted by toolcheck)"},{"role":"user","content":"next"}]"#
    );
    let jsonl = "{\"messages\": [{\"role\": \"assistant\", \"tool_calls\": [{\"id\": \"c1\", \"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": \"{\\\"a\\\": \"}}]}, {\"role\": \"user\", \"content\": \"next\"}]}\n";
    let out = toolcheck_stdin(
        &[
            "fix",
            "-",
            "--stdin-filename",
            "t.jsonl",
            "--write",
            "--unsafe-fixes",
        ],
        jsonl,
    );
    assert_eq!(
        out.stdout.lines().count(),
        1,
        "a JSONL record stays one line: {}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains(r#""arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "c1""#),
        "{}",
        out.stdout
    );
}

#[test]
fn unsafe_fixes_are_left_out_unless_asked() {
    let text = r#"{"messages": [
  {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
  {"role": "tool", "tool_call_id": "c1", "content": "Error: timeout"},
  {"role": "tool", "tool_call_id": "c1", "content": "ok"}
]}"#;
    let safe = toolcheck_stdin(&["fix", "-", "--stdin-filename", "d.json"], text);
    assert_eq!(safe.code, 0, "nothing safe to fix");
    assert!(
        safe.stderr.contains("1 unsafe fix left out"),
        "{}",
        safe.stderr
    );
    let all = toolcheck_stdin(
        &["fix", "-", "--stdin-filename", "d.json", "--unsafe-fixes"],
        text,
    );
    assert_eq!(all.code, 1);
    assert!(
        all.stdout
            .contains("-  {\"role\": \"tool\", \"tool_call_id\": \"c1\", \"content\": \"ok\"}"),
        "{}",
        all.stdout
    );
}

#[test]
fn remove_call_instead_of_inserting_a_result() {
    let text = r#"[{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, {"role": "user", "content": "next"}]"#;
    let out = toolcheck_stdin(
        &[
            "fix",
            "-",
            "--stdin-filename",
            "r.json",
            "--write",
            "--unpaired",
            "remove-call",
            "--unsafe-fixes",
        ],
        text,
    );
    assert_eq!(out.stdout, r#"[{"role": "user", "content": "next"}]"#);
}

#[cfg(unix)]
#[test]
fn write_keeps_the_mode_and_follows_symlinks() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("real.json");
    std::fs::write(
        &target,
        r#"{"messages": [{"role": "tool", "tool_call_id": "x", "content": "y"}, {"role": "user", "content": "hi"}]}"#,
    )
    .expect("write");
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    let out = toolcheck_in(dir.path(), &["fix", "link.json", "--write"], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(std::fs::symlink_metadata(&link)
        .expect("lstat")
        .file_type()
        .is_symlink());
    let mode = std::fs::metadata(&target)
        .expect("stat")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o640);
    assert_eq!(
        std::fs::read_to_string(&target).expect("read"),
        r#"{"messages": [{"role": "user", "content": "hi"}]}"#
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("readdir")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".toolcheck-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left behind");
}

#[test]
fn refuses_to_overwrite_a_file_that_changed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("a.json");
    std::fs::write(&file, "[1]").expect("write");
    let err = toolcheck::fix::write::write_atomic(&file, b"[2]", None, "[3]")
        .expect_err("refused")
        .to_string();
    assert!(err.contains("changed on disk"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "[1]");
}

#[test]
fn crlf_files_stay_crlf() {
    let pretty = std::fs::read_to_string(root().join("fixtures/openai-chat/broken-request.json"))
        .expect("fixture")
        .replace('\n', "\r\n");
    let out = toolcheck_stdin(
        &["fix", "-", "--stdin-filename", "crlf.json", "--write"],
        &pretty,
    );
    assert!(out.stdout.len() > pretty.len() / 2, "{}", out.stderr);
    assert!(
        !out.stdout.replace("\r\n", "").contains('\n'),
        "a bare LF was inserted:\n{:?}",
        out.stdout
    );
    let session = std::fs::read_to_string(
        root().join("fixtures/claude-code/broken-interrupted-mid-tool.jsonl"),
    )
    .expect("fixture")
    .replace('\n', "\r\n");
    let out = toolcheck_stdin(
        &["fix", "-", "--stdin-filename", "s.jsonl", "--write"],
        &session,
    );
    assert!(
        out.stdout.lines().count() > session.lines().count(),
        "a result line was inserted"
    );
    assert!(
        !out.stdout.replace("\r\n", "").contains('\n'),
        "{:?}",
        out.stdout
    );
}

#[test]
fn fix_takes_the_common_output_options() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("mixed.json");
    // A duplicate result (unsafe fix), a reused id (no fix), double-encoded arguments (safe).
    std::fs::write(
        &file,
        r#"{"messages": [
  {"role": "assistant", "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "\"{\\\"a\\\": 1}\""}},
    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
  {"role": "tool", "tool_call_id": "c1", "content": "one"},
  {"role": "tool", "tool_call_id": "c1", "content": "two"},
  {"role": "tool", "tool_call_id": "c1", "content": "three"},
  {"role": "assistant", "content": "done"}
]}"#,
    )
    .expect("write");
    // Dry run as JSON: every finding, with its fix; no diff.
    let json = toolcheck_in(
        dir.path(),
        &["fix", "mixed.json", "--output-format", "json"],
        None,
    );
    let findings: Vec<serde_json::Value> =
        serde_json::from_str(&json.stdout).expect("JSON, not a diff");
    assert!(findings
        .iter()
        .any(|f| f["code"] == "TC203" && f["fix"]["applicability"] == "safe"));
    assert_eq!(json.code, 1, "there is something to fix");
    let zero = toolcheck_in(
        dir.path(),
        &["fix", "mixed.json", "--exit-zero", "-q"],
        None,
    );
    assert_eq!(zero.code, 0);
    // --write with --statistics: counts of what is left in the written file.
    let stats = toolcheck_in(
        dir.path(),
        &["fix", "mixed.json", "--write", "--statistics"],
        None,
    );
    assert_eq!(stats.code, 1, "findings remain: {}", stats.stderr);
    assert!(
        stats.stdout.contains("TC104") && !stats.stdout.contains("TC203"),
        "{}",
        stats.stdout
    );
    assert!(
        stats
            .stderr
            .contains("Fixed 1 finding in 1 file. 1 finding has no automatic fix"),
        "the unsafe one is not counted as unfixable: {}",
        stats.stderr
    );
    assert!(
        stats.stderr.contains("1 unsafe fix left out"),
        "{}",
        stats.stderr
    );
}

#[test]
fn a_fix_never_leaves_a_file_toolcheck_cannot_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let only_orphan = r#"[{"role": "tool", "tool_call_id": "call_1", "content": "18C"}]"#;
    let file = dir.path().join("window.json");
    std::fs::write(&file, only_orphan).expect("write");
    // Removing the orphan would leave `[]`, which is no conversation: the fix is withheld.
    let out = toolcheck_in(dir.path(), &["fix", "window.json", "--write"], None);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), only_orphan);
    assert!(out.stderr.contains("Nothing to fix"), "{}", out.stderr);
    let lint = toolcheck_in(dir.path(), &["lint", "window.json"], None);
    assert!(lint.stdout.contains("TC101"), "{}", lint.stdout);
    assert!(!lint.stdout.contains("TC002"), "{}", lint.stdout);
    // With another message left, the same orphan is removed as before.
    std::fs::write(
        &file,
        r#"[{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "call_1", "content": "18C"}]"#,
    )
    .expect("write");
    let out = toolcheck_in(dir.path(), &["fix", "window.json", "--write"], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        r#"[{"role": "user", "content": "hi"}]"#
    );
}

#[test]
fn piped_fix_output_is_a_patch_git_applies() {
    let dir = tempfile::tempdir().expect("tempdir");
    let long_tail = "x".repeat(600);
    let text = format!(
        "{{\"messages\": [{{\"role\": \"user\", \"content\": \"{long_tail}\"}}, {{\"role\": \"tool\", \"tool_call_id\": \"call_x\", \"content\": \"stale\"}}]}}\n"
    );
    std::fs::write(dir.path().join("long.json"), &text).expect("write");
    let out = toolcheck_in(dir.path(), &["fix", "long.json"], None);
    assert_eq!(out.code, 1, "{}", out.stderr);
    // Not cropped: the whole line is in the patch, which `git apply` takes.
    assert!(out.stdout.contains(&long_tail), "{}", out.stdout);
    assert!(!out.stdout.contains('…'), "{}", out.stdout);
    std::fs::write(dir.path().join("fix.patch"), &out.stdout).expect("write");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("git runs")
    };
    if !git(&["init", "-q"]).status.success() {
        return;
    }
    let applied = git(&["apply", "fix.patch"]);
    assert!(
        applied.status.success(),
        "{}",
        String::from_utf8_lossy(&applied.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("long.json")).expect("read"),
        format!("{{\"messages\": [{{\"role\": \"user\", \"content\": \"{long_tail}\"}}]}}\n")
    );
}
