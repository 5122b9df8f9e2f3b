//! SARIF 2.1.0, for code-scanning dashboards (GitHub code scanning and others).

use std::io::{self, Write};

use serde_json::{json, Value};

use super::Diagnostic;
use crate::finding::Severity;
use crate::rules;

pub fn write(out: &mut dyn Write, diagnostics: &[Diagnostic]) -> io::Result<()> {
    let metas: Vec<&rules::RuleMeta> = rules::RULES.iter().map(|r| r.meta()).collect();
    let rule_descriptors: Vec<Value> = metas
        .iter()
        .map(|m| {
            json!({
                "id": m.code,
                "name": m.name,
                "shortDescription": {"text": m.summary},
                "fullDescription": {"text": m.summary},
                "help": {"text": m.documentation(), "markdown": m.documentation()},
                "helpUri": crate::docs::rule_doc_url(m),
                "defaultConfiguration": {"level": level(m.severity)},
                "properties": {"fix": m.fix.as_str()}
            })
        })
        .collect();
    let results: Vec<Value> = diagnostics
        .iter()
        .map(|d| {
            let mut message = d.message.clone();
            if let Some(help) = &d.help {
                message.push_str("\nhelp: ");
                message.push_str(help);
            }
            let uri = d.path.replace('\\', "/");
            let mut result = json!({
                "ruleId": d.code,
                "ruleIndex": metas.iter().position(|m| m.code == d.code).unwrap_or(0),
                "level": level(d.severity),
                "message": {"text": message},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri},
                        "region": {
                            "startLine": d.line,
                            "startColumn": d.column,
                            "endLine": d.end_line,
                            "endColumn": d.end_column,
                            "byteOffset": d.start,
                            "byteLength": d.end - d.start
                        }
                    },
                    "logicalLocations": [{"fullyQualifiedName": d.pointer, "kind": "element"}]
                }]
            });
            if let Some(fix) = &d.fix {
                result["fixes"] = json!([{
                    "description": {"text": fix.message},
                    "artifactChanges": [{
                        "artifactLocation": {"uri": uri},
                        "replacements": fix.edits.iter().map(|e| json!({
                            "deletedRegion": {"byteOffset": e.start, "byteLength": e.end - e.start},
                            "insertedContent": {"text": e.content}
                        })).collect::<Vec<_>>()
                    }]
                }]);
                result["properties"] = json!({"applicability": fix.applicability});
            }
            result
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "toolcheck",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rule_descriptors
            }},
            // Columns count characters, as in every other output.
            "columnKind": "unicodeCodePoints",
            "results": results
        }]
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
