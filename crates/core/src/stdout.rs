//! Standard output for every command: buffered, and a closed pipe ends the output quietly.
//!
//! `toolcheck lint | head -1` closes the pipe after the first line. `println!` would panic
//! there ("failed printing to stdout: Broken pipe", exit 101); like ripgrep, toolcheck instead
//! stops printing and finishes the run, so the exit code is the one the run would have had
//! and nothing is reported on stderr. Other write errors still surface.

use std::io::{self, BufWriter, StdoutLock, Write};

/// Buffered, locked standard output on which a closed pipe is not an error.
pub fn stdout() -> BufWriter<PipeWriter<StdoutLock<'static>>> {
    BufWriter::new(PipeWriter::new(io::stdout().lock()))
}

/// A writer that, once its reader has gone (`BrokenPipe`), accepts and drops everything.
#[derive(Debug)]
pub struct PipeWriter<W> {
    inner: W,
    closed: bool,
}

impl<W: Write> PipeWriter<W> {
    pub fn new(inner: W) -> Self {
        PipeWriter {
            inner,
            closed: false,
        }
    }

    /// Whether the reader has gone: nothing written now is seen.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    fn absorb<T>(&mut self, result: io::Result<T>, ok: T) -> io::Result<T> {
        match result {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(ok)
            }
            other => other,
        }
    }
}

impl<W: Write> Write for PipeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        let result = self.inner.write(buf);
        self.absorb(result, buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let result = self.inner.flush();
        self.absorb(result, ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Accepts `room` bytes, then fails with `kind`.
    struct Pipe {
        room: usize,
        kind: io::ErrorKind,
        got: Vec<u8>,
    }

    impl Write for Pipe {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.got.len() + buf.len() > self.room {
                return Err(io::Error::from(self.kind));
            }
            self.got.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_pipe_swallows_the_rest() {
        let mut w = PipeWriter::new(Pipe {
            room: 6,
            kind: io::ErrorKind::BrokenPipe,
            got: Vec::new(),
        });
        assert!(writeln!(w, "first").is_ok());
        assert!(!w.is_closed());
        assert!(writeln!(w, "second").is_ok());
        assert!(w.is_closed());
        assert!(writeln!(w, "third").is_ok() && w.flush().is_ok());
        assert_eq!(w.inner.got, b"first\n");
    }

    #[test]
    fn other_errors_surface() {
        let mut w = PipeWriter::new(Pipe {
            room: 0,
            kind: io::ErrorKind::StorageFull,
            got: Vec::new(),
        });
        let err = writeln!(w, "x").err().map(|e| e.kind());
        assert_eq!(err, Some(io::ErrorKind::StorageFull));
        assert!(!w.is_closed());
    }
}
