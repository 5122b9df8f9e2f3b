//! SARIF 2.1.0, for code-scanning dashboards (GitHub code scanning and others).

use std::io::{self, Write};

use super::Diagnostic;
use crate::finding::Severity;
use crate::rules;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::{json, Value as Json};

pub fn write(out: &mut dyn Write, diagnostics: &[Diagnostic]) -> io::Result<()> {
    let metas: Vec<&rules::RuleMeta> = rules::RULES.iter().map(|r| r.meta()).collect();
    let rule_descriptors: Vec<Json> = metas
        .iter()
        .map(|m| {
            json!({
                "id": m.code,
                "name": m.name,
                "shortDescription": {"text": m.summary},
                "fullDescription": {"text": m.summary},
                "help": {"text": m.documentation(), "markdown": m.documentation()},
                "helpUri": m.doc_url(),
                "defaultConfiguration": {"level": level(m.severity)},
                "properties": {"fix": m.fix.as_str()}
            })
        })
        .collect();
    let results: Vec<Json> = diagnostics
        .iter()
        .map(|d| {
            let mut message = d.message.clone();
            if let Some(help) = &d.help {
                message.push_str("\nhelp: ");
                message.push_str(help);
            }
            let location = artifact_location(&d.path);
            let mut result = match &d.location {
                // A row of a SQLite store: the database is the artifact, the row its logical
                // location (byte regions of the file mean nothing there).
                Some(row) => json!({
                    "ruleId": d.code,
                    "ruleIndex": metas.iter().position(|m| m.code == d.code).unwrap_or(0),
                    "level": level(d.severity),
                    "message": {"text": message},
                    "locations": [{
                        "physicalLocation": {"artifactLocation": location},
                        "logicalLocations": [{"fullyQualifiedName": row, "kind": "element"}]
                    }]
                }),
                None => json!({
                "ruleId": d.code,
                "ruleIndex": metas.iter().position(|m| m.code == d.code).unwrap_or(0),
                "level": level(d.severity),
                "message": {"text": message},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": location,
                        "region": {
                            "startLine": d.line,
                            "startColumn": d.column,
                            "endLine": d.end_line,
                            "endColumn": d.end_column,
                            "byteOffset": d.start.saturating_sub(d.base),
                            "byteLength": d.end - d.start
                        }
                    },
                    "logicalLocations": [{"fullyQualifiedName": d.pointer, "kind": "element"}]
                }]
                }),
            };
            if let Some(fix) = d.fix.as_ref().filter(|_| d.location.is_none()) {
                result["fixes"] = json!([{
                    "description": {"text": fix.message},
                    "artifactChanges": [{
                        "artifactLocation": location,
                        "replacements": fix.edits.iter().map(|e| json!({
                            "deletedRegion": {"byteOffset": e.start, "byteLength": e.end - e.start},
                            "insertedContent": {"text": e.content}
                        })).collect::<Vec<_>>()
                    }]
                }]);
                result["properties"]["applicability"] = json!(fix.applicability);
            }
            // The providers that reject the history because of it (`--target`).
            if !d.providers.is_empty() {
                result["properties"]["providers"] = json!(d.providers);
            }
            if let Some(id) = &d.tool_call_id {
                result["properties"]["toolCallId"] = json!(id);
            }
            // The span of a trace the finding is in.
            if let Some(span) = &d.span {
                result["properties"]["span"] = json!(span);
            }
            result
        })
        .collect();
    let mut run = json!({
        "tool": {"driver": {
            "name": "toolcheck",
            "version": env!("CARGO_PKG_VERSION"),
            "rules": rule_descriptors
        }},
        // Columns count characters, as in every other output.
        "columnKind": "unicodeCodePoints",
        "results": results
    });
    // Relative paths are relative to where toolcheck ran.
    if let Some(base) = std::env::current_dir()
        .ok()
        .and_then(|dir| dir.to_str().map(directory_uri))
    {
        run["originalUriBaseIds"] = json!({ SRCROOT: {"uri": base} });
    }
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [run]
    });
    serde_json::to_writer_pretty(&mut *out, &log)?;
    writeln!(out)
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// The base that relative artifact paths resolve against: the working directory.
const SRCROOT: &str = "%SRCROOT%";

/// Everything but RFC 3986's unreserved characters is encoded in a path segment: always
/// valid, and never a `:` that would read as a scheme, nor a `#`, `?` or `%` that would end
/// or change the path.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A SARIF `artifactLocation` for a path as toolcheck reports it: a relative reference
/// against `%SRCROOT%`, or a `file:` URI for an absolute path.
fn artifact_location(path: &str) -> Json {
    match absolute_uri(path) {
        Some(uri) => json!({ "uri": uri }),
        None => json!({ "uri": encode_path(path), "uriBaseId": SRCROOT }),
    }
}

/// The `file:` URI of a directory, with the trailing slash a base URI needs.
fn directory_uri(dir: &str) -> String {
    let mut uri = absolute_uri(dir).unwrap_or_else(|| encode_path(dir));
    if !uri.ends_with('/') {
        uri.push('/');
    }
    uri
}

/// `file:` URI of an absolute path (`/x`, and on Windows `C:\x` and `\\server\share`).
fn absolute_uri(path: &str) -> Option<String> {
    let encoded = encode_path(path);
    if encoded.starts_with("//") {
        // A UNC path: the server is the authority.
        Some(format!("file:{encoded}"))
    } else if encoded.starts_with('/') {
        Some(format!("file://{encoded}"))
    } else if cfg!(windows) && std::path::Path::new(path).is_absolute() {
        Some(format!("file:///{encoded}"))
    } else {
        None
    }
}

/// Percent-encodes each segment of a path and joins them with `/` (on Windows `\` is a
/// separator too; elsewhere it is a character of the name).
fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for (i, segment) in path.split(std::path::is_separator).enumerate() {
        if i > 0 {
            out.push('/');
        }
        let is_drive = i == 0
            && cfg!(windows)
            && segment.len() == 2
            && segment.ends_with(':')
            && segment.starts_with(|c: char| c.is_ascii_alphabetic());
        if is_drive {
            // `C:` stays as is: `file:///C:/x` is the form readers expect.
            out.push_str(segment);
        } else {
            out.extend(utf8_percent_encode(segment, SEGMENT));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_encoded_references_against_srcroot() {
        assert_eq!(
            artifact_location("logs/a b#1%?é\u{1b}.json"),
            json!({"uri": "logs/a%20b%231%25%3F%C3%A9%1B.json", "uriBaseId": "%SRCROOT%"})
        );
        // A `:` in the first segment would read as a scheme.
        assert_eq!(artifact_location("c:x.json")["uri"], "c%3Ax.json");
    }

    #[cfg(unix)]
    #[test]
    fn absolute_paths_are_file_uris() {
        assert_eq!(
            artifact_location("/home/me/a b.json"),
            json!({"uri": "file:///home/me/a%20b.json"})
        );
        // Not a separator on Unix: part of the name.
        assert_eq!(artifact_location("a\\b.json")["uri"], "a%5Cb.json");
        assert_eq!(directory_uri("/home/me"), "file:///home/me/");
        assert_eq!(directory_uri("/"), "file:///");
    }
}
