use std::io::{self, Write};

use super::Diagnostic;
use crate::escape;
use crate::finding::Severity;

/// SGR sequences of the coloured lines: the place bold, the code red (error) or yellow.
const BOLD: &str = "\x1b[1m";
const ERROR: &str = "\x1b[1;31m";
const WARNING: &str = "\x1b[1;33m";
const RESET: &str = "\x1b[0m";

/// `path:line:col: CODE [name] message`, coloured when `color` (text from the log is
/// escaped either way, so colour never comes from the log).
pub fn write(out: &mut dyn Write, diagnostics: &[Diagnostic], color: bool) -> io::Result<()> {
    let (bold, reset) = if color { (BOLD, RESET) } else { ("", "") };
    for d in diagnostics {
        let code = match (color, d.severity) {
            (false, _) => "",
            (true, Severity::Error) => ERROR,
            (true, _) => WARNING,
        };
        // A row of a SQLite store is named by its location instead (`db:table[rowid=N]/ptr`).
        if let Some(location) = &d.location {
            writeln!(
                out,
                "{bold}{}{reset}: {code}{}{reset} [{}] {}",
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
            "{bold}{}:{}:{}:{reset} {code}{}{reset} [{}] {}",
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
