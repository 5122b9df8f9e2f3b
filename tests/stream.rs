//! JSONL datasets bigger than one chunk are linted a chunk at a time: the findings, their
//! lines, columns, fix offsets and the full report's snippets are exactly those of the same
//! records read whole; the maximum input size bounds a record, not the file; a session is
//! still read whole.

use crate::common;

use common::{toolcheck_in, Output};
use std::fmt::Write as _;
use std::path::Path;

/// A fine-tuning dataset of about `bytes` bytes: clean records, with a broken one (orphaned
/// result, truncated arguments, cut-off record, unknown tool) every few lines.
fn dataset(bytes: usize) -> String {
    let mut out = String::new();
    let mut i = 0usize;
    while out.len() < bytes {
        let call = format!("call_{i}");
        let record = match i % 7 {
            1 => format!(
                r#"{{"messages":[{{"role":"user","content":"record {i}"}},{{"role":"tool","tool_call_id":"gone_{i}","content":"evicted"}},{{"role":"assistant","content":"ok"}}]}}"#
            ),
            3 => format!(
                r#"{{"messages":[{{"role":"user","content":"record {i}"}},{{"role":"assistant","content":null,"tool_calls":[{{"id":"{call}","type":"function","function":{{"name":"search","arguments":"{{\"query\": \"hello wor"}}}}]}},{{"role":"tool","tool_call_id":"{call}","content":"x"}},{{"role":"assistant","content":"done"}}]}}"#
            ),
            5 => format!(r#"{{"messages":[{{"role":"user","content":"record {i} is cut"#),
            _ => format!(
                r#"{{"messages":[{{"role":"user","content":"record {i}, é ✓"}},{{"role":"assistant","content":null,"tool_calls":[{{"id":"{call}","type":"function","function":{{"name":"search","arguments":"{{\"query\": \"q{i}\"}}"}}}}]}},{{"role":"tool","tool_call_id":"{call}","content":"found {i}"}},{{"role":"assistant","content":"answer {i}"}}],"tools":[{{"type":"function","function":{{"name":"search","parameters":{{"type":"object","properties":{{"query":{{"type":"string"}}}},"required":["query"]}}}}}}]}}"#
            ),
        };
        let _ = writeln!(out, "{record}");
        i += 1;
    }
    out
}

fn lint(dir: &Path, name: &str, format: &str, extra: &[&str]) -> Output {
    let mut args = vec!["lint", "--no-config", "--output-format", format, name];
    args.extend_from_slice(extra);
    toolcheck_in(dir, &args, None)
}

#[test]
fn a_big_dataset_reads_in_chunks_as_it_reads_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Over one chunk; a `.json` copy of JSONL is read whole, record by record.
    let text = dataset(5 << 20);
    std::fs::write(dir.path().join("data.jsonl"), &text).expect("write");
    std::fs::write(dir.path().join("data.json"), &text).expect("write");
    for format in ["json", "full"] {
        let streamed = lint(dir.path(), "data.jsonl", format, &[]);
        let whole = lint(dir.path(), "data.json", format, &[]);
        assert_eq!(streamed.code, 1, "{}", streamed.stderr);
        assert_eq!(
            streamed.stdout.replace("data.jsonl", "data.json"),
            whole.stdout,
            "{format} output differs"
        );
        assert_eq!(streamed.stderr, whole.stderr);
    }
    // The last record's findings are placed at the file's last lines, not a chunk's.
    let json = lint(dir.path(), "data.jsonl", "json", &[]);
    let found: serde_json::Value = serde_json::from_str(&json.stdout).expect("json output");
    let lines = text.lines().count() as u64;
    let last = found
        .as_array()
        .and_then(|a| a.iter().filter_map(|d| d["line"].as_u64()).max())
        .unwrap_or(0);
    assert!(last + 7 > lines && last <= lines, "{last} of {lines}");
}

#[test]
fn the_size_limit_bounds_a_record_not_the_dataset() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text = dataset(5 << 20);
    let huge = format!(
        r#"{{"messages":[{{"role":"user","content":"{}"}}]}}"#,
        "x".repeat(3 << 20)
    );
    let _ = writeln!(text, "{huge}");
    text.push_str(&dataset(1 << 20));
    std::fs::write(dir.path().join("data.jsonl"), &text).expect("write");
    let out = lint(
        dir.path(),
        "data.jsonl",
        "concise",
        &["--max-file-size", "2M"],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let huge_line = text
        .lines()
        .position(|l| l.len() > 2 << 20)
        .map_or(0, |i| i + 1);
    let expected = format!(
        "data.jsonl:{huge_line}:1: TC003 [input-not-checked] record is larger than the maximum input size of 2 MiB; it was not checked"
    );
    assert!(
        out.stdout.lines().any(|l| l == expected),
        "{expected}\n{}",
        out.stdout.lines().take(5).collect::<Vec<_>>().join("\n")
    );
    // Records after it are still checked, at their own lines.
    let after = out
        .stdout
        .lines()
        .filter_map(|l| l.split(':').nth(1)?.parse::<usize>().ok())
        .filter(|&n| n > huge_line)
        .count();
    assert!(after > 100, "{after} findings after the huge record");
}

#[test]
fn a_big_session_is_still_one_conversation_under_the_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Claude Code session lines: one conversation across the file, read whole.
    let mut text = String::new();
    let mut parent = String::from("null");
    let mut i = 0;
    while text.len() < 5 << 20 {
        let uuid = format!("\"00000000-0000-4000-8000-{i:012}\"");
        let _ = writeln!(
            text,
            r#"{{"type":"user","uuid":{uuid},"parentUuid":{parent},"sessionId":"s","message":{{"role":"user","content":"line {i} {}"}}}}"#,
            "pad ".repeat(50)
        );
        parent = uuid;
        i += 1;
    }
    std::fs::write(dir.path().join("session.jsonl"), &text).expect("write");
    let out = toolcheck_in(
        dir.path(),
        &["lint", "--no-config", "-v", "session.jsonl"],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(
        out.stderr.contains("(claude-code): 1 conversation"),
        "{}",
        out.stderr
    );
    let limited = toolcheck_in(
        dir.path(),
        &[
            "lint",
            "--no-config",
            "--max-file-size",
            "1M",
            "session.jsonl",
        ],
        None,
    );
    assert!(
        limited
            .stdout
            .contains("larger than the maximum input size"),
        "{}",
        limited.transcript()
    );
}
