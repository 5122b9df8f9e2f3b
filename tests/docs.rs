//! The documentation book (`docs/`, rendered by mdBook from `book.toml`): its generated pages
//! (`SUMMARY.md`, `rules/`, `formats/`) must match what the program generates, every page
//! must be in the table of contents, and every link in the book and the README must resolve.
//!
//! Regenerate with `UPDATE_DOCS=1 cargo test --test tests docs::` (or
//! `cargo run -- generate-docs docs`).

use crate::common;

use std::path::{Path, PathBuf};

use common::{root, toolcheck};

/// Every Markdown file under `dir`, as paths relative to it, sorted.
fn markdown_files(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(base, &path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                let relative = path.strip_prefix(base).unwrap_or(&path);
                out.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut names = Vec::new();
    walk(dir, dir, &mut names);
    names.sort();
    names
}

/// The generated pages among `names`: `SUMMARY.md` and those under `rules/`, `formats/` and
/// `doctor/`.
fn generated(names: &[String]) -> Vec<String> {
    let folders = ["rules/", "formats/", "doctor/"];
    names
        .iter()
        .filter(|n| *n == "SUMMARY.md" || folders.iter().any(|f| n.starts_with(f)))
        .cloned()
        .collect()
}

#[test]
fn generated_docs_are_up_to_date() {
    let docs = root().join("docs");
    if std::env::var_os("UPDATE_DOCS").is_some() {
        let out = toolcheck(&["generate-docs", "docs"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    let fresh = tempfile::tempdir().expect("a temporary directory");
    let dir = fresh.path().to_string_lossy().into_owned();
    let out = toolcheck(&["generate-docs", &dir]);
    assert_eq!(out.code, 0, "{}", out.stderr);

    let expected = markdown_files(fresh.path());
    assert!(
        expected.iter().filter(|n| n.starts_with("rules/")).count() > 10
            && expected
                .iter()
                .filter(|n| n.starts_with("formats/"))
                .count()
                > 10,
        "a page per rule and per format, and their indexes: {expected:?}"
    );
    let hint = "the generated docs are stale: regenerate them with \
                `UPDATE_DOCS=1 cargo test --test tests docs::`";
    assert_eq!(generated(&markdown_files(&docs)), expected, "{hint}");
    for name in &expected {
        let want = std::fs::read_to_string(fresh.path().join(name)).unwrap_or_default();
        let have = std::fs::read_to_string(docs.join(name)).unwrap_or_default();
        assert!(have == want, "{name} differs. {hint}");
    }
}

/// The link targets of a Markdown text, as mdBook renders them (not text in code).
fn links(text: &str) -> Vec<String> {
    use pulldown_cmark::{Event, Parser, Tag};
    Parser::new(text)
        .filter_map(|event| match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                Some(dest_url.to_string())
            }
            _ => None,
        })
        .collect()
}

/// The anchors of a page's headings, as GitHub and mdBook derive them.
fn anchors(text: &str) -> Vec<String> {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let mut out = Vec::new();
    let mut heading: Option<String> = None;
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(h) = heading.take() {
                    let slug: String = h
                        .to_lowercase()
                        .chars()
                        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
                        .map(|c| if c == ' ' { '-' } else { c })
                        .collect();
                    out.push(slug);
                }
            }
            _ => {}
        }
    }
    out
}

/// Every link to a file in the repository (not a URL) that names no file, or an anchor that
/// no heading of its page has.
fn broken_links(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut broken = Vec::new();
    for link in links(&text) {
        if link.contains("://") || link.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = link.split_once('#').unwrap_or((link.as_str(), ""));
        let target: PathBuf = if path.is_empty() {
            file.to_path_buf()
        } else {
            dir.join(path)
        };
        if !target.exists() {
            broken.push(format!("{link} (no such file)"));
        } else if !anchor.is_empty() && target.extension().is_some_and(|e| e == "md") {
            let page = std::fs::read_to_string(&target).unwrap_or_default();
            if !anchors(&page).iter().any(|a| a == anchor) {
                broken.push(format!("{link} (no such heading)"));
            }
        }
    }
    broken
}

#[test]
fn every_page_is_in_the_book_and_every_link_resolves() {
    let docs = root().join("docs");
    let summary = std::fs::read_to_string(docs.join("SUMMARY.md")).expect("docs/SUMMARY.md");
    let listed = links(&summary);
    let pages = markdown_files(&docs);
    let unlisted: Vec<&String> = pages
        .iter()
        .filter(|p| *p != "SUMMARY.md" && !listed.contains(p))
        .collect();
    assert!(
        unlisted.is_empty(),
        "pages mdBook would not build, missing from the chapter list in src/docs/book.rs: {unlisted:?}"
    );
    let mut broken = Vec::new();
    let files = pages
        .iter()
        .map(|p| docs.join(p))
        .chain([root().join("README.md"), root().join("CHANGELOG.md")]);
    for file in files {
        for link in broken_links(&file) {
            let shown = file
                .strip_prefix(root())
                .unwrap_or(&file)
                .display()
                .to_string();
            broken.push(format!("{shown}: {link}"));
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_is_an_overview() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= 150,
        "README.md has {lines} lines: the rest belongs in docs/"
    );
}

#[test]
fn explain_prints_a_formats_page() {
    let out = toolcheck(&["explain", "codex"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let page = std::fs::read_to_string(root().join("docs/formats/codex.md")).expect("the page");
    let body = page.split_once("\n\n").map(|(_, b)| b).unwrap_or_default();
    assert_eq!(out.stdout, body);
    assert!(out.stdout.starts_with("# `codex`\n"), "{}", out.stdout);
    let unknown = toolcheck(&["explain", "codx"]);
    insta::assert_snapshot!(unknown.transcript());
}

#[test]
fn a_rule_page_has_heading_severity_fix_and_the_doc() {
    let page = std::fs::read_to_string(root().join("docs/rules/orphaned-tool-result.md"))
        .expect("the page exists");
    let explain = toolcheck(&["explain", "TC101"]).stdout;
    assert!(
        page.contains("\n# orphaned-tool-result (TC101)\n"),
        "{page}"
    );
    assert!(page.contains("- Severity: error\n- Fix: safe"), "{page}");
    let doc_start = explain.find("## What it does").unwrap_or_default();
    let doc_end = explain.find("\n\nDocumentation:").unwrap_or(explain.len());
    let doc = explain.get(doc_start..doc_end).unwrap_or_default();
    assert!(!doc.is_empty() && page.contains(doc), "{page}");
}

#[test]
fn generating_removes_pages_of_rules_that_are_gone() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::create_dir_all(dir.path().join("rules")).expect("mkdir");
    let stale = dir.path().join("rules/retired-rule.md");
    let mine = dir.path().join("rules/notes.md");
    let generated =
        std::fs::read_to_string(root().join("docs/rules/README.md")).expect("the index exists");
    std::fs::write(&stale, generated).expect("write");
    std::fs::write(&mine, "# my notes\n").expect("write");
    let out = toolcheck(&["generate-docs", &dir.path().to_string_lossy()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!stale.exists(), "a generated page of no rule is deleted");
    assert!(mine.exists(), "a page toolcheck did not write is kept");
}

#[test]
fn sarif_rules_point_to_their_pages() {
    let out = toolcheck(&[
        "lint",
        "fixtures/openai-chat/broken-request.json",
        "--output-format",
        "sarif",
    ]);
    let sarif: serde_json::Value = serde_json::from_str(&out.stdout).expect("SARIF JSON");
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rule descriptors");
    assert!(!rules.is_empty());
    for rule in rules {
        let name = rule["name"].as_str().unwrap_or_default();
        let uri = rule["helpUri"].as_str().unwrap_or_default();
        assert_eq!(uri, format!("docs/rules/{name}.md"));
        assert!(root().join(uri).is_file(), "{uri} exists");
    }
}
