//! JUnit XML, which most CI systems show as test results (GitLab's `artifacts:reports:junit`,
//! Jenkins, Azure Pipelines, CircleCI): one test suite per file, one failed test case per
//! finding; a run without findings is one passing case, so the report is never empty.

use std::io::{self, Write};

use super::Diagnostic;
use crate::finding::Severity;

pub fn write(out: &mut dyn Write, diagnostics: &[Diagnostic]) -> io::Result<()> {
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<testsuites name="toolcheck" tests="{tests}" failures="{failures}" errors="0">"#,
        tests = diagnostics.len().max(1),
        failures = diagnostics.len(),
    )?;
    if diagnostics.is_empty() {
        writeln!(
            out,
            r#"  <testsuite name="toolcheck" tests="1" failures="0" errors="0" skipped="0">"#
        )?;
        writeln!(
            out,
            r#"    <testcase name="No findings" classname="toolcheck"/>"#
        )?;
        writeln!(out, "  </testsuite>")?;
    }
    // Diagnostics arrive sorted by file: each run of one path is a suite.
    let mut rest = diagnostics;
    while let Some(first) = rest.first() {
        let n = rest
            .iter()
            .position(|d| d.path != first.path)
            .unwrap_or(rest.len());
        let (file, next) = rest.split_at(n);
        rest = next;
        writeln!(
            out,
            r#"  <testsuite name="{path}" tests="{n}" failures="{n}" errors="0" skipped="0">"#,
            path = attr(&first.path),
        )?;
        for d in file {
            let place = match &d.location {
                Some(location) => location.clone(),
                None => format!("{}:{}:{}", d.path, d.line, d.column),
            };
            let kind = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            writeln!(
                out,
                r#"    <testcase name="{code} [{rule}] at {line}:{column}" classname="{path}" file="{path}" line="{line}">"#,
                code = d.code,
                rule = d.rule,
                line = d.line,
                column = d.column,
                path = attr(&d.path),
            )?;
            let mut body = format!("{place}: {} [{}] {}", d.code, d.rule, d.message);
            if let Some(help) = &d.help {
                body.push_str("\nhelp: ");
                body.push_str(help);
            }
            if !d.pointer.is_empty() {
                body.push_str("\npointer: ");
                body.push_str(&d.pointer);
            }
            if let Some(span) = &d.span {
                body.push_str("\nspan: ");
                body.push_str(&span.brief());
            }
            writeln!(
                out,
                r#"      <failure message="{message}" type="{kind}">{body}</failure>"#,
                message = attr(&d.message),
                body = text(&body),
            )?;
            writeln!(out, "    </testcase>")?;
        }
        writeln!(out, "  </testsuite>")?;
    }
    writeln!(out, "</testsuites>")
}

/// Text as XML 1.0 character data: markup escaped, and the characters XML 1.0 cannot hold at
/// all (C0 controls but tab and line breaks, lone surrogates cannot occur in a `str`, U+FFFE
/// and U+FFFF) written as `\u{…}`, as toolcheck writes unsafe characters elsewhere.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c < ' ' || c == '\u{fffe}' || c == '\u{ffff}' => {
                out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

/// Text as an attribute value in double quotes: also quotes, and line breaks and tabs as
/// character references (an attribute's whitespace is otherwise normalised away).
fn attr(s: &str) -> String {
    text(s)
        .replace('"', "&quot;")
        .replace('\n', "&#10;")
        .replace('\r', "&#13;")
        .replace('\t', "&#9;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_characters_xml_cannot_hold() {
        assert_eq!(text("a<b>&c\u{1b}"), "a&lt;b&gt;&amp;c\\u{1b}");
        assert_eq!(attr("say \"hi\"\n"), "say &quot;hi&quot;&#10;");
    }
}
