use std::io::{self, Write};

use super::Diagnostic;
use crate::finding::Severity;

/// GitHub Actions workflow commands: each finding becomes an annotation on its line.
pub fn write(out: &mut dyn Write, diagnostics: &[Diagnostic]) -> io::Result<()> {
    for d in diagnostics {
        let level = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        writeln!(
            out,
            "::{level} title={code} [{rule}],file={file},line={line},col={col},endLine={end_line},endColumn={end_col}::{message}",
            code = d.code,
            rule = d.rule,
            file = escape_property(&d.path),
            line = d.line,
            col = d.column,
            end_line = d.end_line,
            end_col = d.end_column,
            message = escape_data(&message),
        )?;
    }
    Ok(())
}

/// Escaping of the message part of a workflow command.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escaping of a property value (also `:` and `,`).
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}
