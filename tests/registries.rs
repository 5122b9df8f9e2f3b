//! One declaration per thing: a format is its module of `src/formats/` plus one line of the
//! registry in `src/format.rs`, and nothing else in the crate branches on which format a
//! conversation is.

use std::path::Path;

use crate::layers::{non_test, rust_files, src, strip};

/// One line of `each_format!`: the variant and the module.
struct Line {
    variant: String,
    module: String,
}

fn registry() -> Vec<Line> {
    let text = std::fs::read_to_string(src().join("format.rs")).expect("src/format.rs");
    let body = text
        .split_once("$then! {")
        .and_then(|(_, rest)| rest.split_once("\n        }"))
        .map(|(body, _)| body)
        .expect("each_format! holds `$then! { … }`");
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .map(|l| {
            let words: Vec<&str> = l.trim_end_matches(',').split_whitespace().collect();
            Line {
                variant: words.first().expect("a variant").to_string(),
                module: words.last().expect("a module").to_string(),
            }
        })
        .collect()
}

#[test]
fn every_registered_format_has_its_module_and_its_adapter() {
    let lines = registry();
    assert!(
        lines.len() > 30,
        "the registry was not read: {} lines",
        lines.len()
    );
    let formats = src().join("formats");
    for line in &lines {
        let file = [
            formats.join(format!("{}.rs", line.module)),
            formats.join(&line.module).join("mod.rs"),
        ]
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{}: no src/formats/{}.rs", line.variant, line.module));
        let code = std::fs::read_to_string(&file).expect("readable");
        assert!(
            code.contains(&format!("pub struct {};", line.variant)),
            "{} declares no adapter `pub struct {};`",
            file.display(),
            line.variant
        );
    }
}

/// Outside `format.rs` no code matches on, or compares with, a particular format: what
/// differs by format is declared on its registry line or in its adapter.
#[test]
fn nothing_outside_the_registry_branches_on_a_format() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with("format.rs")) {
        let text = std::fs::read_to_string(file).expect("readable");
        let code = strip(non_test(&text));
        for (n, line) in code.lines().enumerate() {
            if branches_on_a_format(line) {
                let rel = file.strip_prefix(src()).unwrap_or(Path::new(""));
                found.push(format!("src/{}:{}: {}", rel.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "declare it on the format's registry line instead:\n{}",
        found.join("\n")
    );
}

/// `Format::X =>`, `Format::X |`, `| Format::X`, `== Format::X`, `Format::X !=`…
fn branches_on_a_format(line: &str) -> bool {
    let mut rest = line;
    while let Some(at) = rest.find("Format::") {
        let before = rest[..at].trim_end();
        let name_start = at + "Format::".len();
        let after = &rest[name_start..];
        let name_len = after
            .find(|c: char| !c.is_alphanumeric() && c != '_')
            .unwrap_or(after.len());
        let is_variant = after.starts_with(|c: char| c.is_ascii_uppercase())
            && !after[..name_len]
                .chars()
                .all(|c| c.is_ascii_uppercase() || c == '_');
        let next = after[name_len..].trim_start();
        // `OutputFormat::Json =>` and the like are other enums.
        let prefixed = rest[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        if is_variant
            && !prefixed
            && (next.starts_with("=>")
                || next.starts_with('|') && !next.starts_with("||")
                || next.starts_with("==")
                || next.starts_with("!=")
                || before.ends_with("==")
                || before.ends_with("!=")
                || before.ends_with('|') && !before.ends_with("||"))
        {
            return true;
        }
        rest = &rest[name_start..];
    }
    false
}

#[test]
fn the_branch_reader_sees_matches_and_comparisons_only() {
    assert!(branches_on_a_format("Format::Pi => &[],"));
    assert!(branches_on_a_format(
        "Format::Otel | Format::Langfuse => x,"
    ));
    assert!(branches_on_a_format("if conv.format == Format::Mcp {"));
    assert!(branches_on_a_format(
        "crate::format::Format::GeminiCli != f"
    ));
    assert!(!branches_on_a_format("format: Format::Goose,"));
    assert!(!branches_on_a_format("OutputFormat::Json => write(out),"));
    assert!(!branches_on_a_format("for &format in Format::ALL {"));
    assert!(!branches_on_a_format("a || Format::from_name(n).is_some()"));
}
