//! How every command writes: standard output, errors on stderr, colour and the width to
//! wrap at.

use std::io::{self, IsTerminal, Write};

use crate::cli::ColorChoice;
use crate::escape;

use super::EXIT_ERROR;

pub(super) fn usage_error(message: &str) -> u8 {
    // Config and --tools errors quote the files, which may be hostile; keep their layout.
    eprintln!("error: {}", escape::layout(message));
    EXIT_ERROR
}

/// Prints to standard output; a closed pipe is not an error (see `stdout.rs`), others are.
pub(super) fn print(text: &str) -> Result<(), u8> {
    let mut out = crate::stdout::stdout();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| {
            eprintln!("error: cannot write output: {e}");
            EXIT_ERROR
        })
}

/// Standard output failed: said on stderr unless the reader has gone.
pub(super) fn output_error(e: &io::Error) -> u8 {
    if e.kind() != io::ErrorKind::BrokenPipe {
        eprintln!("error: cannot write output: {e}");
    }
    EXIT_ERROR
}

/// Whether to colour stdout. `auto` follows the conventions anstream implements: `NO_COLOR`,
/// `CLICOLOR=0`, `CLICOLOR_FORCE`, `TERM=dumb`, whether stdout is a terminal, and on Windows
/// whether the console can show ANSI colours (enabling them if it can).
pub(super) fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            anstream::AutoStream::choice(&io::stdout()) != anstream::ColorChoice::Never
        }
    }
}

/// The width to wrap reports at: `COLUMNS`, else the terminal's, else a fixed width so piped
/// output does not depend on the window it was run in.
pub(super) fn terminal_width() -> usize {
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .or_else(|| {
            io::stdout()
                .is_terminal()
                .then(|| terminal_size::terminal_size().map(|(w, _)| usize::from(w.0)))
                .flatten()
        })
        .unwrap_or(crate::report::DEFAULT_WIDTH);
    width.clamp(60, 400)
}
