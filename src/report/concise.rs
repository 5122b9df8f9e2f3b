use std::io::{self, Write};

use super::Diagnostic;
use crate::escape;

/// `path:line:col: CODE [name] message`
pub fn write(out: &mut dyn Write, diagnostics: &[Diagnostic]) -> io::Result<()> {
    for d in diagnostics {
        // A row of a SQLite store is named by its location instead (`db:table[rowid=N]/ptr`).
        if let Some(location) = &d.location {
            writeln!(
                out,
                "{}: {} [{}] {}",
                escape::value(location),
                d.code,
                d.rule,
                escape::value(&d.message)
            )?;
            continue;
        }
        // Path and message carry text from the log: one finding stays one plain line.
        writeln!(
            out,
            "{}:{}:{}: {} [{}] {}",
            escape::value(&d.path),
            d.line,
            d.column,
            d.code,
            d.rule,
            escape::value(&d.message)
        )?;
    }
    Ok(())
}
