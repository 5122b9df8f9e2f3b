use std::io::{self, Write};

use super::Diagnostic;
use crate::escape;
use crate::finding::Severity;

/// GitHub Actions workflow commands: each finding becomes an annotation on its line.
pub fn write(out: &mut dyn Write, diagnostics: &[Diagnostic]) -> io::Result<()> {
    for d in diagnostics {
        let level = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        // Controls and bidi characters from the log are escaped before the workflow-command
        // escaping, so a newline in a value shows as `\u{a}` and only the one between
        // message and help becomes a line break of the annotation.
        let mut message = escape::value(&d.message).into_owned();
        if let Some(location) = &d.location {
            message = format!("{}: {message}", escape::value(location));
        }
        // A finding in a trace names its span, as the concise line does.
        message.push_str(&escape::value(&d.span_suffix()));
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(&escape::value(help));
        }
        writeln!(
            out,
            "::{level} title={title},file={file},line={line},col={col},endLine={end_line},endColumn={end_col}::{message}",
            title = escape_property(&format!("{} [{}]", d.code, d.rule)),
            file = escape_property(&escape::value(&d.path)),
            line = d.line,
            col = d.column,
            end_line = d.end_line,
            end_col = d.end_column,
            message = escape_data(&message),
        )?;
    }
    Ok(())
}

/// Escaping of the message part of a workflow command (as GitHub's toolkit does it).
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escaping of a property value: also `:` and `,`, which end the property.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_data_and_properties_as_the_toolkit_does() {
        assert_eq!(escape_data("50%\r\nx::y,z"), "50%25%0D%0Ax::y,z");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }
}
