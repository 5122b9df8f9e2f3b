//! Bad input gets a finding, never a panic: every fixture cut short and mutated at random
//! goes through lint and fix.

use proptest::prelude::*;

use toolcheck::fix::fix_bytes;
use toolcheck::lint::{lint_bytes, LintOptions, SourceName};

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures"
    ))];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                out.push((path.to_string_lossy().into_owned(), bytes));
            }
        }
    }
    out.sort();
    out
}

fn check(name: &str, bytes: Vec<u8>) {
    let opts = LintOptions::default();
    let source = || SourceName {
        name: name.to_string(),
        path: None,
    };
    let report = lint_bytes(source(), bytes.clone(), true, &opts);
    let renderer = toolcheck::report::FullRenderer::new(false);
    let mut placed = Vec::new();
    for finding in &report.findings {
        let d = toolcheck::report::Diagnostic::resolve(&report.source, finding.clone());
        assert!(d.line >= 1 && d.column >= 1);
        placed.push(d);
    }
    // The full report renders for every finding, and a file's findings rendered together (in
    // file order, columns counted on from one to the next) show what each shows alone.
    placed.sort_by_key(|d| d.start);
    let alone: Vec<String> = placed
        .iter()
        .map(|d| renderer.render(&report.source, d))
        .collect();
    let together: Vec<String> = renderer.render_file(&report.source, &placed).collect();
    assert_eq!(alone, together);
    // Fixing either works or refuses with an error; it never panics.
    let _ = fix_bytes(&source(), bytes, true, &opts, true);
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn truncated_fixtures_do_not_panic(pick in any::<prop::sample::Index>(), cut in any::<prop::sample::Index>()) {
        let all = fixtures();
        let (name, bytes) = &all[pick.index(all.len())];
        let at = cut.index(bytes.len() + 1);
        check(name, bytes[..at].to_vec());
    }

    #[test]
    fn mutated_fixtures_do_not_panic(
        pick in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let all = fixtures();
        let (name, bytes) = &all[pick.index(all.len())];
        let mut bytes = bytes.clone();
        for (at, byte) in edits {
            if !bytes.is_empty() {
                let i = at.index(bytes.len());
                // Mostly structural characters, sometimes any byte (invalid UTF-8 too).
                bytes[i] = match byte % 8 {
                    0 => b'{', 1 => b'}', 2 => b'"', 3 => b',', 4 => b'[', 5 => b']', 6 => b'\n',
                    _ => byte,
                };
            }
        }
        check(name, bytes);
    }
}

#[test]
fn deeply_nested_input_is_reported_as_not_checked() {
    // Valid JSON deeper than toolcheck reads: not a parse error, but never a silent pass.
    let text = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let report = toolcheck::lint::lint_str("deep.json", &text);
    assert_eq!(report.codes(), ["TC003@1:128"]);
    assert!(report.findings[0]
        .message
        .contains("nested deeper than 128 levels"));
}

#[test]
fn invalid_utf8_is_a_parse_error_and_other_records_are_checked() {
    let mut bytes =
        b"{\"messages\": [{\"role\": \"tool\", \"tool_call_id\": \"x\", \"content\": \"a\"}]}\n"
            .to_vec();
    bytes.extend_from_slice(b"{\"messages\": [{\"role\": \"user\", \"content\": \"\xff\xfe\"}]}\n");
    let report = lint_bytes(
        SourceName {
            name: "bad.jsonl".into(),
            path: None,
        },
        bytes,
        true,
        &LintOptions::default(),
    );
    assert_eq!(report.codes(), ["TC101@1:15", "TC001@2:1"]);
}
