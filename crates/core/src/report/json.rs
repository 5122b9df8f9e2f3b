use std::io::{self, Write};

use super::Diagnostic;

/// One pretty-printed JSON array.
pub fn write_array(out: &mut dyn Write, diagnostics: &[Diagnostic]) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, diagnostics)?;
    writeln!(out)
}

/// One JSON object per line.
pub fn write_lines(out: &mut dyn Write, diagnostics: &[Diagnostic]) -> io::Result<()> {
    for d in diagnostics {
        serde_json::to_writer(&mut *out, d)?;
        writeln!(out)?;
    }
    Ok(())
}
