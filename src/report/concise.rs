use std::io::{self, Write};

use super::Diagnostic;

/// `path:line:col: CODE [name] message`
pub fn write(out: &mut dyn Write, diagnostics: &[Diagnostic]) -> io::Result<()> {
    for d in diagnostics {
        writeln!(
            out,
            "{}:{}:{}: {} [{}] {}",
            d.path, d.line, d.column, d.code, d.rule, d.message
        )?;
    }
    Ok(())
}
