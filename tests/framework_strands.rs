//! Strands Agents session folders (`FileSessionManager`), end to end through the binary: a
//! `messages/` folder is one conversation, whichever of its paths is named.

use crate::common;

use common::{root, toolcheck, toolcheck_in};

/// A session folder walked: the messages folder is one input, the session and agent
/// records beside it are skipped and named in the summary.
#[test]
fn clean_session_is_one_conversation() {
    let out = toolcheck(&["lint", "-v", "fixtures/strands/session_clean"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

/// Thirteen messages read in numeric order, the first trimmed by the sliding window
/// (`removed_message_count`) and left out: a call answered by nothing, three identical
/// failing deploys, a result for a call that is not there; each finding placed in its file,
/// and other records named by their file.
#[test]
fn broken_session_concise() {
    let out = toolcheck(&[
        "lint",
        "--output-format",
        "concise",
        "fixtures/strands/session_broken",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// Naming one message file, or the messages folder itself, reads the whole folder.
#[test]
fn a_named_file_reads_its_folder() {
    let dir = "fixtures/strands/session_broken/agents/agent_default/messages";
    for named in [format!("{dir}/message_7.json"), dir.to_string()] {
        let out = toolcheck(&["lint", "-v", "--output-format", "concise", &named]);
        assert_eq!(out.code, 1, "{}", out.transcript());
        assert!(
            out.stderr.contains(&format!(
                "checked {dir} (strands): 1 conversation, 5 calls, 5 results"
            )),
            "{}",
            out.transcript()
        );
        assert_eq!(out.stdout.lines().filter(|l| l.contains(": TC")).count(), 3);
    }
}

/// A copy of the session folder `fixture` (under `fixtures/strands/`) in a temporary
/// directory, and every file of it with its bytes.
fn copy_session(fixture: &str) -> (tempfile::TempDir, Vec<(std::path::PathBuf, Vec<u8>)>) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let from = root().join("fixtures/strands").join(fixture);
    let to = tmp.path().join(fixture);
    let mut copied = Vec::new();
    for entry in common::walk(&from) {
        let rel = entry.strip_prefix(&from).expect("inside").to_path_buf();
        let target = to.join(&rel);
        std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        std::fs::copy(&entry, &target).expect("copy");
        copied.push((target, std::fs::read(&entry).expect("read")));
    }
    (tmp, copied)
}

/// The files of a copied session whose bytes are not as copied.
fn changed_files(copied: &[(std::path::PathBuf, Vec<u8>)]) -> Vec<String> {
    let mut changed: Vec<String> = copied
        .iter()
        .filter(|(path, bytes)| std::fs::read(path).expect("read") != *bytes)
        .map(|(path, _)| {
            path.file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    changed.sort();
    changed
}

/// What `fix` would change, one diff per message file, named by its path: in the broken
/// session the unanswered call's error result goes into the next message (message_3.json),
/// and the stray result leaves message_11.json.
#[test]
fn fix_dry_run_diffs_each_message_file() {
    let out = toolcheck(&["fix", "--unsafe-fixes", "fixtures/strands/session_broken"]);
    assert_eq!(out.code, 1, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

/// `fix --write` edits the blocks inside message_5.json (a result for the unanswered
/// notify call put ahead of its blocks, the stale result taken out) and no other file: the
/// result alone in message_9.json would leave an empty message if removed, so its finding
/// stays, with a note; message_2.json, trimmed by the sliding window (the first two files by
/// position, despite the gap in the numbers), is neither read nor touched. A second fix finds
/// nothing to do.
#[test]
fn fix_write_edits_only_the_message_files_that_hold_the_blocks() {
    let (tmp, copied) = copy_session("session_fixable");
    let out = toolcheck_in(tmp.path(), &["fix", "--write", "session_fixable"], None);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert_eq!(changed_files(&copied), ["message_5.json"]);
    let dir = tmp
        .path()
        .join("session_fixable/agents/agent_default/messages");
    let fixed = std::fs::read_to_string(dir.join("message_5.json")).expect("read");
    // Still what Strands reads back: `json.load`, the same message id.
    let value: serde_json::Value = serde_json::from_str(&fixed).expect("JSON");
    assert_eq!(value["message_id"], 5);
    insta::assert_snapshot!("fixable_message_5_after_fix", fixed);
    let lint = toolcheck_in(
        tmp.path(),
        &["lint", "--output-format", "json", "session_fixable"],
        None,
    );
    let left: Vec<serde_json::Value> = serde_json::from_str(&lint.stdout).expect("JSON");
    let codes: Vec<(&str, &str)> = left
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default(),
                d["path"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        codes,
        [(
            "TC101",
            "session_fixable/agents/agent_default/messages/message_9.json"
        )],
        "{}",
        lint.transcript()
    );
    let help = left[0]["help"].as_str().unwrap_or_default();
    assert!(help.contains("no automatic fix here"), "{help}");
    assert!(help.contains("message_<n>.json"), "{help}");
    let again = toolcheck_in(tmp.path(), &["fix", "--write", "session_fixable"], None);
    assert_eq!(again.code, 1, "{}", again.transcript());
    assert_eq!(changed_files(&copied), ["message_5.json"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("message_5.json")).expect("read"),
        fixed
    );
}

/// Two message files to write, the second read-only: nothing is written, the first
/// included, and the error names the file.
#[test]
fn a_refused_write_leaves_every_file_untouched() {
    let (tmp, copied) = copy_session("session_broken");
    let last = tmp
        .path()
        .join("session_broken/agents/agent_default/messages/message_11.json");
    let mut permissions = std::fs::metadata(&last).expect("stat").permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&last, permissions).expect("chmod");
    let out = toolcheck_in(
        tmp.path(),
        &["fix", "--write", "--unsafe-fixes", "session_broken"],
        None,
    );
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(
        out.stderr
            .contains("message_11.json: the file is read-only; no message file was written"),
        "{}",
        out.transcript()
    );
    assert!(
        changed_files(&copied).is_empty(),
        "{:?}",
        changed_files(&copied)
    );
}

/// Both files written when nothing stands in the way, each atomically; the rest untouched,
/// and the session then lints clean of what was fixed.
#[test]
fn fix_write_of_two_files() {
    let (tmp, copied) = copy_session("session_broken");
    let out = toolcheck_in(
        tmp.path(),
        &["fix", "--write", "--unsafe-fixes", "session_broken"],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert_eq!(
        changed_files(&copied),
        ["message_11.json", "message_3.json"]
    );
    let lint = toolcheck_in(
        tmp.path(),
        &["lint", "--output-format", "concise", "session_broken"],
        None,
    );
    assert!(!lint.stdout.contains("TC101"), "{}", lint.transcript());
    assert!(!lint.stdout.contains("TC102"), "{}", lint.transcript());
    assert!(lint.stdout.contains("TC401"), "{}", lint.transcript());
}

/// SARIF names the message file, with the line, column and byte offset in that file.
#[test]
fn sarif_names_the_message_file() {
    let out = toolcheck(&[
        "lint",
        "--output-format",
        "sarif",
        "fixtures/strands/session_broken",
    ]);
    let sarif: serde_json::Value = serde_json::from_str(&out.stdout).expect("SARIF is JSON");
    let first = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
    let uri = first["artifactLocation"]["uri"]
        .as_str()
        .unwrap_or_default();
    assert!(uri.ends_with("messages/message_2.json"), "{uri}");
    let offset = first["region"]["byteOffset"].as_u64().unwrap_or_default();
    let text = std::fs::read_to_string(
        "fixtures/strands/session_broken/agents/agent_default/messages/message_2.json",
    )
    .expect("fixture");
    let at = usize::try_from(offset).unwrap_or_default();
    assert!(
        text.get(at..)
            .is_some_and(|t| t.starts_with("{\n        \"toolUse\"")),
        "{offset}"
    );
    assert_eq!(first["region"]["startLine"], 14);
}

#[test]
fn the_full_report_names_the_message_file_line_and_column() {
    let dir = "fixtures/strands/session_broken";
    let concise = toolcheck(&["lint", "--no-config", "--output-format", "concise", dir]);
    let full = toolcheck(&["lint", "--no-config", dir]);
    let expected: Vec<String> = concise
        .stdout
        .lines()
        .filter_map(|l| l.split(": TC").next())
        .filter(|at| at.ends_with(|c: char| c.is_ascii_digit()))
        .map(|at| format!("[{at}]"))
        .collect();
    let headers: Vec<String> = full
        .stdout
        .lines()
        .filter_map(|l| l.split_once("╭─").map(|(_, h)| h.to_string()))
        .collect();
    assert_eq!(headers, expected, "{}", full.transcript());
}

/// In JSON output a fix's edits count in the finding's file; the unanswered call's fix edits
/// the next message's file instead, so it carries no edits and names that file, while the
/// stray result's removal counts its bytes in its own file.
#[test]
fn json_fixes_count_in_the_file_they_edit() {
    let out = toolcheck(&[
        "lint",
        "--output-format",
        "json",
        "fixtures/strands/session_broken",
    ]);
    let found: Vec<serde_json::Value> = serde_json::from_str(&out.stdout).expect("JSON");
    let fix_of = |code: &str| {
        found
            .iter()
            .find(|d| d["code"] == code)
            .map(|d| d["fix"].clone())
            .unwrap_or_default()
    };
    let insert = fix_of("TC102");
    assert_eq!(insert["edits"], serde_json::json!([]), "{insert}");
    assert!(
        insert["message"]
            .as_str()
            .is_some_and(|m| m.contains("an edit of message_3.json")),
        "{insert}"
    );
    let remove = fix_of("TC101");
    let edit = &remove["edits"][0];
    let text = std::fs::read_to_string(
        "fixtures/strands/session_broken/agents/agent_default/messages/message_11.json",
    )
    .expect("fixture");
    let (start, end) = (
        usize::try_from(edit["start"].as_u64().unwrap_or_default()).unwrap_or_default(),
        usize::try_from(edit["end"].as_u64().unwrap_or_default()).unwrap_or_default(),
    );
    assert!(
        text.get(start..end)
            .is_some_and(|removed| removed.contains("tooluse_Ghost")),
        "{remove}"
    );
}
