//! JSONL datasets read a chunk of whole lines at a time, so that linting a file of any size
//! holds one chunk (and its records' trees) instead of the file: a fine-tuning set of 10 GB
//! lints in the memory of a few megabytes of records.
//!
//! Only a file that holds one conversation per record is read this way (its first records
//! decide, as they decide for a whole file); a session (Claude Code, Codex, pi…) is one
//! conversation across its lines and is read whole. Each chunk is checked exactly as its
//! records are checked in the whole file, its findings placed and (for the full report)
//! rendered while the chunk is in memory, then moved to the file's lines and byte offsets.
//! The maximum input size bounds each record instead of the file.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use crate::coverage::ReadCounts;
use crate::diagnostic::Diagnostic;
use crate::finding::Finding;
use crate::format::Format;
use crate::lint::{LintOptions, Outcome, SourceName};
use crate::source::SourceFile;

pub mod fix;

/// How many bytes of whole lines one chunk holds (a longer record is a chunk of its own).
pub const CHUNK_BYTES: usize = 4 << 20;

/// Places a chunk's findings (in the chunk's text).
pub type Place<'a> = &'a (dyn Fn(&SourceFile, Vec<Finding>) -> Vec<Diagnostic> + Sync);
/// Renders a chunk's placed findings for the full report; the `usize` is the chunk's first
/// line in the file (0-based).
pub type Render<'a> = &'a (dyn Fn(&SourceFile, &[Diagnostic], usize) -> Vec<String> + Sync);

/// Whether a file is one to read a chunk at a time: a `.jsonl` or `.ndjson` file larger than
/// one chunk (its records are then judged by [`lint`]).
pub fn is_candidate(path: &Path, size: u64) -> bool {
    let jsonl = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("ndjson"));
    jsonl && size > CHUNK_BYTES as u64
}

/// An input's findings placed, with their full-report rendering when one was asked for:
/// what linting a file a chunk at a time gives, and what `input::lint_placed` gives for any
/// input.
pub struct Placed {
    /// Every finding, placed in the file.
    pub diagnostics: Vec<Diagnostic>,
    /// The full report's rendering of each finding, when a renderer was given.
    pub rendered: Vec<String>,
    pub outcome: Outcome,
    pub read: ReadCounts,
    /// Bytes of text read (for progress).
    pub bytes: u64,
}

/// Lints the JSONL file at `path` a chunk of [`CHUNK_BYTES`] at a time. `Ok(None)`: the file
/// is not one conversation per record (or opens with a UTF-16 mark or bytes that are not
/// UTF-8), and must be read whole. Records longer than `limit` are reported, not read.
pub fn lint(
    path: &Path,
    name: &SourceName,
    explicit: bool,
    opts: &LintOptions,
    limit: u64,
    place: Place<'_>,
    render: Option<Render<'_>>,
) -> Result<Option<Placed>, String> {
    let cannot = |e: std::io::Error| format!("cannot read {}: {e}", name.name);
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut chunks = Chunks::new(file, CHUNK_BYTES, limit);
    let Some(first) = chunks.next_chunk().map_err(cannot)? else {
        return Ok(None);
    };
    if !opens_per_record(&first, opts) {
        return Ok(None);
    }
    let mut out = Placed {
        diagnostics: Vec::new(),
        rendered: Vec::new(),
        outcome: Outcome::Checked(Vec::new()),
        read: ReadCounts::default(),
        bytes: 0,
    };
    let mut formats: Vec<Format> = Vec::new();
    let mut chunk = Some(first);
    while let Some(current) = chunk {
        out.bytes += current.bytes.len() as u64;
        // The next chunk is read while this one is checked.
        let (spent, next) = rayon::join(
            || check_chunk(current, name, opts, place, render, &mut out, &mut formats),
            || chunks.next_chunk(),
        );
        chunks.reuse(spent);
        chunk = next.map_err(cannot)?;
    }
    formats.sort();
    formats.dedup();
    out.outcome = Outcome::Checked(formats);
    if matches!(&out.outcome, Outcome::Checked(f) if f.is_empty()) && out.diagnostics.is_empty() {
        // As for a whole file: no record matched a conversation format.
        let reason = crate::lint::Skip::new(
            crate::lint::SkipKind::Other,
            "no record that matches a conversation format",
        );
        if !explicit && opts.input_format.is_none() {
            out.outcome = Outcome::Skipped(reason);
        } else {
            let report = crate::lint::unrecognised_report(name, opts, &reason.reason);
            out.diagnostics = place(&report.source, report.findings);
        }
    }
    Ok(Some(out))
}

/// Whether a file whose first chunk is `first` holds one conversation per record (and is
/// UTF-8, without a UTF-16 mark): the decision to read it a chunk at a time.
fn opens_per_record(first: &Chunk, opts: &LintOptions) -> bool {
    !first.bytes.starts_with(&[0xff, 0xfe])
        && !first.bytes.starts_with(&[0xfe, 0xff])
        && simdutf8::basic::from_utf8(&first.bytes)
            .is_ok_and(|text| crate::lint::opens_per_record_jsonl(text, opts))
}

/// Checks one chunk and moves its findings into `out`, in the file's lines and offsets;
/// returns the chunk's buffer, for the chunk after next.
fn check_chunk(
    chunk: Chunk,
    name: &SourceName,
    opts: &LintOptions,
    place: Place<'_>,
    render: Option<Render<'_>>,
    out: &mut Placed,
    formats: &mut Vec<Format>,
) -> Vec<u8> {
    let source_name = SourceName {
        name: name.name.clone(),
        path: name.path.clone(),
    };
    let mut report = crate::lint::lint_record_lines(source_name, chunk.bytes, opts);
    out.read.add(report.read);
    if let Outcome::Checked(found) = &report.outcome {
        formats.extend(found.iter().copied());
    }
    let mut placed = place(&report.source, report.findings);
    if chunk.oversized {
        placed.push(oversized(&report.source, chunk.limit));
    }
    if let Some(render) = render {
        out.rendered
            .extend(render(&report.source, &placed, chunk.first_line));
    }
    relocate(&mut placed, chunk.first_line, chunk.base);
    out.diagnostics.append(&mut placed);
    std::mem::take(&mut report.source.text).into_bytes()
}

/// Moves a chunk's placed findings to the file's lines and byte offsets: the chunk starts
/// at line `first_line` (0-based), byte `base`.
fn relocate(placed: &mut [Diagnostic], first_line: usize, base: usize) {
    for d in placed {
        d.line += first_line;
        d.end_line += first_line;
        d.start += base;
        d.end += base;
        if let Some(fix) = &mut d.fix {
            for edit in &mut fix.edits {
                edit.start += base;
                edit.end += base;
            }
        }
    }
}

/// The finding for a record longer than the maximum input size, which was not read: its
/// chunk is an empty line.
fn oversized(source: &SourceFile, limit: u64) -> Diagnostic {
    let message = format!(
        "record is larger than the maximum input size of {}; it was not checked",
        crate::read::human_size(limit)
    );
    let finding = Finding::at_span(&crate::rules::InputNotChecked::META, 0, 0, message)
        .help("raise the limit with `--max-file-size` (or `max-file-size` in toolcheck.toml) if the record really is one conversation");
    Diagnostic::resolve(source, finding)
}

/// The reader's buffer: big reads, few system calls.
const READ_BUFFER: usize = 256 << 10;

/// Whole lines of a file, about `chunk_bytes` at a time.
struct Chunks<R> {
    reader: BufReader<R>,
    chunk_bytes: usize,
    limit: u64,
    /// Byte offset and 0-based line of the next chunk.
    base: usize,
    line: usize,
    /// A record over the limit met after a chunk's first line: the next chunk is its own
    /// (bytes it took, whether a newline ended it).
    pending: Option<(usize, bool)>,
    /// A hash of every byte read, when asked for (a fix written back checks with it that the
    /// file still holds what was read).
    hash: Option<std::collections::hash_map::DefaultHasher>,
    /// A checked chunk's buffer, read into again: a fresh 4 MiB buffer per chunk cost the
    /// kernel a twentieth of a dataset lint in clearing its pages.
    spare: Option<Vec<u8>>,
}

struct Chunk {
    bytes: Vec<u8>,
    /// Offset of the chunk's first byte in the file, and its first line (0-based).
    base: usize,
    first_line: usize,
    /// The chunk is one record over the limit, left out (an empty line stands for it).
    oversized: bool,
    limit: u64,
    /// Bytes of the file the chunk stands for (an oversized record's, not its empty line's).
    span: usize,
}

impl<R: Read> Chunks<R> {
    fn new(reader: R, chunk_bytes: usize, limit: u64) -> Self {
        Chunks {
            reader: BufReader::with_capacity(READ_BUFFER, reader),
            chunk_bytes: chunk_bytes.max(1),
            limit,
            base: 0,
            line: 0,
            pending: None,
            hash: None,
            spare: None,
        }
    }

    /// Takes back a checked chunk's buffer for a later chunk.
    fn reuse(&mut self, mut bytes: Vec<u8>) {
        bytes.clear();
        self.spare = Some(bytes);
    }

    /// The next chunk of whole lines (the last may lack its newline); `None` at the end. A
    /// record over the limit is a chunk of its own, an empty line standing for it, so every
    /// chunk's offsets are the file's offsets less its base.
    fn next_chunk(&mut self) -> std::io::Result<Option<Chunk>> {
        let mut chunk = Chunk {
            // Room for the chunk and the line that crosses its end, so it never grows.
            bytes: match self.spare.take() {
                Some(bytes) => bytes,
                None => Vec::with_capacity(self.chunk_bytes.saturating_add(READ_BUFFER)),
            },
            base: self.base,
            first_line: self.line,
            oversized: false,
            limit: self.limit,
            span: 0,
        };
        if let Some((taken, ended)) = self.pending.take() {
            self.oversized_chunk(&mut chunk, taken, ended);
            return Ok(Some(chunk));
        }
        let mut lines = 0;
        let mut read = 0;
        while chunk.bytes.len() < self.chunk_bytes {
            let line_start = chunk.bytes.len();
            let (taken, ended, over) = self.read_line(&mut chunk.bytes)?;
            if taken == 0 {
                break;
            }
            if over {
                chunk.bytes.truncate(line_start);
                if line_start == 0 {
                    self.oversized_chunk(&mut chunk, taken, ended);
                    return Ok(Some(chunk));
                }
                self.pending = Some((taken, ended));
                break;
            }
            read += taken;
            if ended {
                lines += 1;
            }
        }
        if read == 0 {
            return Ok(None);
        }
        self.base += read;
        self.line += lines;
        chunk.span = read;
        Ok(Some(chunk))
    }

    fn oversized_chunk(&mut self, chunk: &mut Chunk, taken: usize, ended: bool) {
        chunk.bytes.clear();
        if ended {
            chunk.bytes.push(b'\n');
        }
        chunk.oversized = true;
        chunk.span = taken;
        self.base += taken;
        self.line += usize::from(ended);
    }

    /// Appends one line (with its newline) to `out`, keeping at most `limit` bytes of it:
    /// (bytes read, whether a newline ended it, whether it was over the limit).
    fn read_line(&mut self, out: &mut Vec<u8>) -> std::io::Result<(usize, bool, bool)> {
        let mut taken = 0;
        let mut over = false;
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok((taken, false, over));
            }
            let (part, ended) = match memchr::memchr(b'\n', buf) {
                Some(i) => (buf.get(..=i).unwrap_or(buf), true),
                None => (buf, false),
            };
            let n = part.len();
            if let Some(hash) = &mut self.hash {
                std::hash::Hasher::write(hash, part);
            }
            if !over {
                if (taken + n) as u64 > self.limit {
                    over = true;
                } else {
                    out.extend_from_slice(part);
                }
            }
            taken += n;
            self.reader.consume(n);
            if ended {
                return Ok((taken, true, over));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks_of(text: &str, size: usize, limit: u64) -> Vec<(String, usize, usize, usize)> {
        let mut chunks = Chunks::new(text.as_bytes(), size, limit);
        let mut out = Vec::new();
        while let Ok(Some(c)) = chunks.next_chunk() {
            out.push((
                String::from_utf8_lossy(&c.bytes).into_owned(),
                c.base,
                c.first_line,
                usize::from(c.oversized),
            ));
        }
        out
    }

    #[test]
    fn chunks_hold_whole_lines_and_know_where_they_start() {
        let got = chunks_of("aa\nbbbb\ncc\nd", 4, 100);
        assert_eq!(
            got,
            [
                ("aa\nbbbb\n".to_string(), 0, 0, 0),
                ("cc\nd".to_string(), 8, 2, 0)
            ]
        );
        assert!(chunks_of("", 4, 100).is_empty());
    }

    #[test]
    fn a_record_over_the_limit_is_left_out_in_place() {
        let got = chunks_of("aa\nbbbbbbbb\ncc\n", 100, 5);
        assert_eq!(
            got,
            [
                ("aa\n".to_string(), 0, 0, 0),
                ("\n".to_string(), 3, 1, 1),
                ("cc\n".to_string(), 12, 2, 0)
            ]
        );
        let got = chunks_of("bbbbbbbb", 100, 5);
        assert_eq!(got, [(String::new(), 0, 0, 1)]);
    }
}
