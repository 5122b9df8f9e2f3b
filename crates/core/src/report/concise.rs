use std::io::{self, Write};

use super::paint::Paint;
use super::Diagnostic;
use crate::escape;

/// `path:line:col: CODE [name] message`, coloured when `color` (text from the log is
/// escaped either way, so colour never comes from the log).
pub fn write(out: &mut dyn Write, diagnostics: &[Diagnostic], color: bool) -> io::Result<()> {
    let paint = Paint::new(color);
    for d in diagnostics {
        let code = paint.severity(d.severity, d.code);
        // A row of a SQLite store is named by its location instead (`db:table[rowid=N]/ptr`).
        if let Some(location) = &d.location {
            writeln!(
                out,
                "{}: {code} [{}] {}",
                paint.bold(&escape::value(location)),
                d.rule,
                escape::value(&d.message)
            )?;
            continue;
        }
        // Path and message carry text from the log: one finding stays one plain line.
        let place = format!("{}:{}:{}:", escape::value(&d.path), d.line, d.column);
        // A finding in a trace names its span after the message.
        let span = escape::value(&d.span_suffix()).into_owned();
        writeln!(
            out,
            "{} {code} [{}] {}{span}",
            paint.bold(&place),
            d.rule,
            escape::value(&d.message)
        )?;
    }
    Ok(())
}
