//! Hostile logs: what they contain reaches the terminal only as visible escapes, offsets in
//! multi-byte text never break a report, and SARIF carries valid URIs.

use crate::common;

use std::path::Path;

use common::{toolcheck_in, Output};

/// An OpenAI chat request whose names, ids and arguments carry terminal controls: escaped
/// in JSON (so the values hold raw controls) and raw in the file where JSON allows it (DEL,
/// C1, bidi), so source snippets and diffs carry them too.
const HOSTILE: &str = concat!(
    "{\"model\": \"m\",\n",
    " \"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"search\", ",
    "\"parameters\": {\"type\": \"object\", \"properties\": {\"q\": {\"type\": \"string\"}}}}}],\n",
    " \"messages\": [\n",
    "  {\"role\": \"user\", \"content\": \"hi\"},\n",
    "  {\"role\": \"assistant\", \"content\": null, \"tool_calls\": [\n",
    "   {\"id\": \"call_\\u001b[31mRED\\r\u{9b}2J\u{7f}\", \"type\": \"function\", \"function\": ",
    "{\"name\": \"evil\\u001b]0;pwned title\\u0007\\n::error file=x::pwned\u{202e}\u{2066}\", ",
    "\"arguments\": \"{\\\"q\\\": \\\"\\u001b]8;;https://evil.example\\u001b\\\\link\\u001b]8;;\\u001b\\\\\"}},\n",
    "   {\"id\": \"call_2\", \"type\": \"function\", \"function\": {\"name\": \"search\", ",
    "\"arguments\": \"{\\\"q\\\": \\u001b[2J\u{202e}\"}}\n",
    "  ]},\n",
    "  {\"role\": \"tool\", \"tool_call_id\": \"res\\u001b[31m\u{202e}\u{200f}\\n::error file=y::pwned\", \"content\": \"x\"},\n",
    "  {\"role\": \"user\", \"content\": \"bye\"}\n",
    " ]}\n",
);

/// A file name with the same kind of content (Linux allows all but `/` and NUL).
const HOSTILE_NAME: &str = "evil\u{1b}[31m\u{9b}\r\n::error file=z::pwned\u{202e}.json";

/// Whether `c` must never reach a terminal raw: a C0 control but newline and tab, DEL, a C1
/// control, a bidi control, or the replacement character (a sign of raw invalid bytes).
fn is_active(c: char) -> bool {
    (c < ' ' && c != '\n' && c != '\t')
        || ('\u{7f}'..='\u{9f}').contains(&c)
        || matches!(
            c,
            '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
        || c == '\u{fffd}'
}

fn assert_inert(what: &str, text: &str) {
    assert!(!text.trim().is_empty(), "{what}: no output to check");
    if let Some((at, c)) = text.char_indices().find(|&(_, c)| is_active(c)) {
        panic!("{what}: {c:?} at byte {at} in:\n{}", text.escape_debug());
    }
}

/// `text` without the SGR colour sequences (`ESC [ digits ; m`) toolcheck writes itself.
fn strip_colour(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("\u{1b}[") {
        out.push_str(rest.get(..i).unwrap_or_default());
        let after = rest.get(i + 2..).unwrap_or_default();
        let params = after
            .find(|c: char| !c.is_ascii_digit() && c != ';')
            .unwrap_or(after.len());
        if after.get(params..params + 1) == Some("m") {
            rest = after.get(params + 1..).unwrap_or_default();
        } else {
            // Not a colour: keep it, for the check to find.
            out.push_str("\u{1b}[");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn hostile_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("request.json"), HOSTILE).expect("fixture written");
    dir
}

fn run(dir: &Path, args: &[&str]) -> Output {
    let out = toolcheck_in(dir, args, None);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    out
}

#[test]
fn log_content_reaches_every_human_output_escaped() {
    let dir = hostile_dir();
    let d = dir.path();

    let json = run(d, &["lint", "request.json", "--output-format", "json"]);
    let findings: Vec<serde_json::Value> = serde_json::from_str(&json.stdout).expect("JSON");
    // The hostile values are in the findings (faithfully, in JSON), so the checks below see
    // them pass through each output.
    assert!(findings.len() >= 4, "{}", json.stdout);
    assert!(json
        .stdout
        .contains("\\u001b]0;pwned title\\u0007\\n::error file=x::pwned"));

    let plain = run(d, &["lint", "request.json", "--color", "never"]);
    assert_eq!(plain.code, 1);
    assert_inert("full", &plain.stdout);
    assert!(plain
        .stdout
        .contains("\\u{1b}]0;pwned title\\u{7}\\u{a}::error file=x::pwned"));
    assert!(plain.stdout.contains("\\u{9b}2J\\u{7f}"), "snippet escaped");

    let colour = run(d, &["lint", "request.json", "--color", "always"]);
    assert!(colour.stdout.contains("\u{1b}["), "colour was asked for");
    let uncoloured = strip_colour(&colour.stdout);
    assert_inert("full in colour", &uncoloured);
    assert_eq!(uncoloured, plain.stdout, "colour adds only colour");

    let concise = run(d, &["lint", "request.json", "--output-format", "concise"]);
    assert_inert("concise", &concise.stdout);
    assert_eq!(
        concise.stdout.lines().count(),
        findings.len() + 1,
        "one line per finding and the summary:\n{}",
        concise.stdout
    );

    let github = run(d, &["lint", "request.json", "--output-format", "github"]);
    assert_inert("github", &github.stdout);
    let lines: Vec<&str> = github.stdout.lines().collect();
    assert_eq!(lines.len(), findings.len(), "{}", github.stdout);
    for line in lines {
        assert!(
            line.starts_with("::error title=") || line.starts_with("::warning title="),
            "{line}"
        );
        // The first `::` after the command ends its properties: exactly the six
        // toolcheck writes, whatever the values hold.
        let properties = line
            .split_once(' ')
            .and_then(|(_, rest)| rest.split_once("::"))
            .map(|(properties, _)| properties)
            .unwrap_or_default();
        let keys: Vec<&str> = properties
            .split(',')
            .filter_map(|p| p.split_once('=').map(|(key, _)| key))
            .collect();
        assert_eq!(
            keys,
            ["title", "file", "line", "col", "endLine", "endColumn"],
            "{line}"
        );
    }

    let diff = run(d, &["fix", "request.json", "--color", "never"]);
    assert!(
        diff.stdout.starts_with("--- a/request.json\n"),
        "{}",
        diff.stdout
    );
    assert_inert("fix diff", &diff.stdout);
    assert_inert("fix summary", &diff.stderr);
    assert!(
        diff.stdout.contains("\\u{202e}\\u{200f}"),
        "{}",
        diff.stdout
    );
    let diff_colour = run(d, &["fix", "request.json", "--color", "always"]);
    assert_eq!(strip_colour(&diff_colour.stdout), diff.stdout);
}

#[test]
fn hostile_file_names_are_escaped_everywhere() {
    let dir = hostile_dir();
    let d = dir.path();
    std::fs::write(d.join(HOSTILE_NAME), HOSTILE).expect("a file with a hostile name");
    let shown = "evil\\u{1b}[31m\\u{9b}\\u{d}\\u{a}::error file=z::pwned\\u{202e}.json";

    for format in ["full", "concise"] {
        let out = run(d, &["lint", HOSTILE_NAME, "--output-format", format]);
        assert_inert(format, &out.stdout);
        assert!(out.stdout.contains(shown), "{format}:\n{}", out.stdout);
    }
    let github = run(d, &["lint", HOSTILE_NAME, "--output-format", "github"]);
    assert_inert("github", &github.stdout);
    // In a property, `:` and `,` are percent-encoded as well.
    let property =
        "file=evil\\u{1b}[31m\\u{9b}\\u{d}\\u{a}%3A%3Aerror file=z%3A%3Apwned\\u{202e}.json,";
    assert_eq!(github.stdout.lines().count(), 7, "{}", github.stdout);
    for line in github.stdout.lines() {
        assert!(line.starts_with("::") && line.contains(property), "{line}");
    }

    let verbose = run(d, &["lint", ".", "-v", "-q", "--output-format", "concise"]);
    assert_inert("-v", &verbose.stderr);
    assert!(
        verbose
            .stderr
            .contains(&format!("checked {shown} (openai-chat)")),
        "{}",
        verbose.stderr
    );

    let diff = run(d, &["fix", HOSTILE_NAME]);
    assert_inert("fix diff", &diff.stdout);
    assert!(diff
        .stdout
        .starts_with(&format!("--- a/{shown}\n+++ b/{shown}\n")));

    let missing = "missing\u{1b}]0;owned\u{7}\n::error::x\u{202e}.json";
    for command in ["lint", "fix"] {
        let out = run(d, &[command, missing]);
        assert_eq!(out.code, 2);
        assert_inert("error line", &out.stderr);
        let first = out.stderr.lines().next().unwrap_or_default();
        assert!(
            first.starts_with(
                "error: cannot read missing\\u{1b}]0;owned\\u{7}\\u{a}::error::x\\u{202e}.json: "
            ),
            "{}",
            out.stderr
        );
    }
}

#[test]
fn raw_controls_in_a_broken_file_are_escaped_in_its_snippet() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // Raw C0 controls are not valid JSON: the parse error's snippet shows them.
    let text = "{\"messages\": [{\"role\": \"user\", \"content\": \"\u{1b}]0;t\u{7}\u{1b}[2J\r\u{9b}\u{202e}";
    std::fs::write(dir.path().join("raw.json"), text).expect("fixture written");
    let out = run(dir.path(), &["lint", "raw.json"]);
    assert_inert("full", &out.stdout);
    insta::assert_snapshot!(out.transcript());
}

/// Files cut inside or just after multi-byte text, in every output format.
#[test]
fn offsets_in_multibyte_text_never_break_a_report() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let d = dir.path();
    let head = "{\"messages\":[{\"role\":\"user\",\"content\":\"";
    let emoji = "😀".as_bytes();
    let files: Vec<(&str, Vec<u8>)> =
        vec![
        ("cjk.json", format!("{head}你好").into_bytes()),
        ("cut-emoji.json", [head.as_bytes(), &emoji[..2]].concat()),
        ("emoji.json", format!("{head}😀😀").into_bytes()),
        (
            "crlf.json",
            // An unquoted value: the error is at `é`, before a CR LF.
            "{\r\n  \"messages\": [\r\n    {\"role\": \"user\", \"content\": été}\r\n  ]\r\n}\r\n"
                .as_bytes()
                .to_vec(),
        ),
        ("cjk.jsonl", format!("{head}你好\"}}]}}\n{head}你好\n").into_bytes()),
    ];
    let mut names = Vec::new();
    for (name, bytes) in &files {
        std::fs::write(d.join(name), bytes).expect("fixture written");
        names.push(*name);
    }
    let mut transcript = String::new();
    for format in ["full", "concise", "json", "jsonl", "github", "sarif"] {
        let mut args = vec!["lint", "--output-format", format];
        args.extend(&names);
        let out = run(d, &args);
        assert_eq!(out.code, 1, "{format}: {}", out.transcript());
        if matches!(format, "full" | "concise") {
            transcript.push_str(&format!("=== {format}\n{}", out.transcript()));
        }
    }
    // Columns count characters: serde_json's byte position lands inside `好` (column 41,
    // not 45), and inside the second `😀` (column 41, not 48).
    insta::assert_snapshot!(transcript);
}

#[test]
fn sarif_uris_are_percent_encoded_references() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let d = dir.path();
    let name = "a b#1%é.json";
    let body = r#"{"messages": [{"role": "tool", "tool_call_id": "call_1", "content": "x"}]}"#;
    std::fs::create_dir(d.join("sub dir")).expect("subdirectory");
    std::fs::write(d.join("sub dir").join(name), body).expect("fixture written");
    let absolute = d.join("sub dir").join(name);
    let absolute = absolute.to_str().expect("a UTF-8 temporary path");
    let out = run(
        d,
        &[
            "lint",
            "sub dir/a b#1%é.json",
            absolute,
            "--output-format",
            "sarif",
        ],
    );
    let log: serde_json::Value = serde_json::from_str(&out.stdout).expect("SARIF is JSON");
    let run = &log["runs"][0];
    let locations: Vec<&serde_json::Value> = run["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| &r["locations"][0]["physicalLocation"]["artifactLocation"])
        .collect();
    let fix_locations: Vec<&serde_json::Value> = run["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| &r["fixes"][0]["artifactChanges"][0]["artifactLocation"])
        .collect();
    assert_eq!(locations, fix_locations);
    // The temporary directory differs between runs; it is percent-encoded like the rest.
    let root = format!("file://{}", d.to_str().expect("a UTF-8 temporary path"));
    let shown = serde_json::to_string_pretty(&serde_json::json!({
        "originalUriBaseIds": run["originalUriBaseIds"],
        "artifactLocations": locations,
    }))
    .expect("JSON")
    .replace(&root, "file://[TMP]");
    insta::assert_snapshot!(shown);
}
