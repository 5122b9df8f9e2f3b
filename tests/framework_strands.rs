//! Strands Agents session folders (`FileSessionManager`), end to end through the binary: a
//! `messages/` folder is one conversation, whichever of its paths is named.

mod common;

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

/// Findings only: no message file is touched.
#[test]
fn fix_leaves_the_files_alone() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let from = root().join("fixtures/strands/session_broken");
    let to = tmp.path().join("session_broken");
    let mut copied = Vec::new();
    for entry in common::walk(&from) {
        let rel = entry.strip_prefix(&from).expect("inside").to_path_buf();
        let target = to.join(&rel);
        std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        std::fs::copy(&entry, &target).expect("copy");
        copied.push((target, std::fs::read(&entry).expect("read")));
    }
    let out = toolcheck_in(
        tmp.path(),
        &["fix", "--write", "--unsafe-fixes", "session_broken"],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    for (path, bytes) in copied {
        assert_eq!(
            std::fs::read(&path).expect("read"),
            bytes,
            "{}",
            path.display()
        );
    }
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
