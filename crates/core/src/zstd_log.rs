//! A log kept as independent Zstandard frames, read as one input: the text it decompresses
//! to, checked as any JSONL file is. DeepSeek Harness writes its sessions so
//! (`session.jsonl.zstd`: a first frame holding the header line, then one frame per durable
//! write batch, each with its content checksum; `session-persistence-jsonl/src/zstd.ts`).
//!
//! Findings are placed on the decompressed text: `session.jsonl.zstd:LINE:COL` is a line
//! of the log as it decompresses, never a byte of the compressed file. The frames are found
//! by their structure before any is decompressed (as dsh's `scanZstdFrames` does), so a
//! frame the file ends inside (a write cut by a crash) is told from a damaged one:
//!
//! - a torn final frame: what of it decompresses is kept up to its last complete line, and
//!   an `input-not-checked` finding says the tail was torn and where (dsh does the same on
//!   resume: it truncates the file at the frame's start and appends what it recovered);
//! - a complete frame that fails to decompress or its checksum: a `parse-error` naming the
//!   frame's byte offset in the file, placed where its lines would be; the frames around it
//!   are still read (dsh refuses to load such a session at all).
//!
//! What the frames decompress to is bounded by the maximum input size, like any input's
//! bytes, so a small file cannot expand without end.
//!
//! A fix is written back frame by frame (`Log::rewrite`): a frame whose lines are unchanged
//! keeps its bytes, a changed one is compressed again (with a checksum if it had one), and
//! lines added after the last frame become one new frame, as dsh appends a write batch. A
//! log read from stdin, one with a torn or damaged frame, or one with a frame that ends
//! inside a line is never rewritten: its fixes are withheld (`Log::unwritable`).

use crate::finding::Finding;
use crate::lint::{FileReport, LintOptions, SourceName};
use crate::rules;

/// The first four bytes of a Zstandard frame.
pub const MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Whether `bytes` open with a Zstandard frame.
pub fn is_zstd(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Where the frames of a file are, found from their headers and block headers alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scan {
    /// Each complete frame's byte range in the file.
    pub frames: Vec<(usize, usize)>,
    /// Where a frame starts that the file ends inside.
    pub torn: Option<usize>,
    /// A position where no frame can start or go on (a bad magic number, a reserved bit,
    /// a reserved block type), and what is wrong there; nothing after it is framed.
    pub broken: Option<(usize, &'static str)>,
}

/// Walks the frames of `buf` without decompressing them: the frame header (magic, the
/// descriptor, the window byte, the dictionary id and content size), each block header
/// (3 bytes: last-block bit, type, size; an RLE block's payload is one byte), and the
/// checksum when the descriptor says there is one.
pub fn scan(buf: &[u8]) -> Scan {
    let mut out = Scan {
        frames: Vec::new(),
        torn: None,
        broken: None,
    };
    let mut at = 0;
    while at < buf.len() {
        match frame_end(buf, at) {
            Framed::Complete(end) => {
                out.frames.push((at, end));
                at = end;
            }
            Framed::Torn => {
                out.torn = Some(at);
                break;
            }
            Framed::Broken(why) => {
                out.broken = Some((at, why));
                break;
            }
        }
    }
    out
}

enum Framed {
    Complete(usize),
    Torn,
    Broken(&'static str),
}

fn frame_end(buf: &[u8], start: usize) -> Framed {
    let byte = |i: usize| buf.get(i).copied();
    let Some(magic) = buf.get(start..start + 4) else {
        return if MAGIC.starts_with(buf.get(start..).unwrap_or_default()) {
            Framed::Torn
        } else {
            Framed::Broken("not a Zstandard frame (bad magic number)")
        };
    };
    if magic != MAGIC {
        return Framed::Broken("not a Zstandard frame (bad magic number)");
    }
    let Some(fhd) = byte(start + 4) else {
        return Framed::Torn;
    };
    // Bits 3 (reserved) and 4 (unused) must be clear, as dsh's scanner requires.
    if fhd & 0x18 != 0 {
        return Framed::Broken("a reserved bit of the frame header is set");
    }
    let single_segment = fhd & 0x20 != 0;
    let fcs = match fhd >> 6 {
        0 => usize::from(single_segment),
        flag => 1usize << flag,
    };
    let window = usize::from(!single_segment);
    let dict = [0usize, 1, 2, 4]
        .get(usize::from(fhd & 3))
        .copied()
        .unwrap_or(0);
    let checksum = if fhd & 4 != 0 { 4 } else { 0 };
    let mut at = start + 5 + window + dict + fcs;
    loop {
        let (Some(b0), Some(b1), Some(b2)) = (byte(at), byte(at + 1), byte(at + 2)) else {
            return Framed::Torn;
        };
        let header = u32::from(b0) | u32::from(b1) << 8 | u32::from(b2) << 16;
        let last = header & 1 != 0;
        let kind = (header >> 1) & 3;
        let size = usize::try_from(header >> 3).unwrap_or(usize::MAX);
        let payload = match kind {
            1 => 1,
            3 => return Framed::Broken("a block of the reserved type"),
            _ => size,
        };
        at = at.saturating_add(3).saturating_add(payload);
        if last {
            break;
        }
    }
    let end = at.saturating_add(checksum);
    if end > buf.len() {
        Framed::Torn
    } else {
        Framed::Complete(end)
    }
}

/// Why a frame's bytes did not decompress.
#[derive(Debug)]
pub enum Undecoded {
    /// The bytes are damaged or the checksum does not match.
    Corrupt(String),
    /// Decompressing would exceed the bound.
    TooLarge,
}

/// Decompresses the frame `frame` onto `out`, holding `out` to `limit` bytes; `Ok(false)`
/// when the bytes end before the frame does (what decompressed so far is on `out`: the
/// prefix of a torn frame).
pub fn decode_frame(frame: &[u8], out: &mut Vec<u8>, limit: u64) -> Result<bool, Undecoded> {
    use zstd::stream::raw::{Decoder, InBuffer, Operation, OutBuffer};
    let corrupt = |e: std::io::Error| Undecoded::Corrupt(e.to_string());
    let mut decoder = Decoder::new().map_err(corrupt)?;
    let mut input = InBuffer::around(frame);
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let mut output = OutBuffer::around(chunk.as_mut_slice());
        let hint = decoder.run(&mut input, &mut output).map_err(corrupt)?;
        let written = output.pos();
        if (out.len() + written) as u64 > limit {
            return Err(Undecoded::TooLarge);
        }
        out.extend_from_slice(chunk.get(..written).unwrap_or_default());
        if hint == 0 {
            // The frame ended (its checksum, when it has one, was verified).
            return Ok(true);
        }
        if input.pos() >= frame.len() && written == 0 {
            return Ok(false);
        }
    }
}

/// What reading the frames found besides their text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum NoteKind {
    /// A complete frame that did not decompress, at this byte of the file.
    Corrupt { at: usize, why: String },
    /// The final frame, at this byte, is torn; `kept` bytes of it were recovered.
    Torn {
        at: usize,
        kept: usize,
        dropped: usize,
    },
    /// Bytes at this offset are no frame.
    Broken { at: usize, why: &'static str },
}

/// A note placed at an offset of the decompressed text.
#[derive(Debug, Clone)]
struct Note {
    offset: usize,
    kind: NoteKind,
}

/// A complete frame that decompressed: where it is in the file and in the text.
#[derive(Debug, Clone)]
struct Frame {
    bytes: std::ops::Range<usize>,
    text: std::ops::Range<usize>,
    /// Whether its header asks for a content checksum (a frame compressed again keeps it).
    checksum: bool,
    /// Whether its text ends with a newline (else one was added to keep lines apart).
    whole_lines: bool,
}

/// Where a log was read from: a file it can be written back to, or stdin (a stream).
#[derive(Debug, Clone)]
enum Origin {
    File(Option<crate::read::FileStamp>),
    Stream,
}

/// A log of Zstandard frames as read: the text its frames decompress to, and what was
/// found wrong with the frames; the file's bytes and frames, to write a fix back.
#[derive(Debug)]
pub struct Log {
    bytes: Vec<u8>,
    notes: Vec<Note>,
    file: Vec<u8>,
    frames: Vec<Frame>,
    origin: Origin,
}

/// Reads the log at `path` (named `name`): its file and what it decompresses to are both
/// held to `limit` bytes (`None`: over it). `Err` for a file that cannot be read.
pub fn read(path: &std::path::Path, name: &str, limit: u64) -> Result<Option<Log>, String> {
    from_read(crate::read::read_path(path, limit), name, limit)
}

/// [`read`] of a log already opened (its head told it is one), read on from its handle.
pub fn read_open(
    file: crate::read::OpenFile,
    name: &str,
    limit: u64,
) -> Result<Option<Log>, String> {
    from_read(file.read(limit), name, limit)
}

fn from_read(
    read: std::io::Result<crate::read::Loaded>,
    name: &str,
    limit: u64,
) -> Result<Option<Log>, String> {
    match read {
        Ok(crate::read::Loaded::Bytes(bytes, stamp)) => {
            Ok(decode_owned(bytes, limit, Origin::File(stamp)))
        }
        Ok(crate::read::Loaded::TooLarge { .. }) => Ok(None),
        Err(e) => Err(format!("cannot read {name}: {e}")),
    }
}

/// The log `file` holds, `None` when it decompresses to more than `limit` bytes. It was
/// read from stdin or a stream, so it is never written back.
pub fn decode(file: &[u8], limit: u64) -> Option<Log> {
    decode_owned(file.to_vec(), limit, Origin::Stream)
}

/// The log a file's bytes hold, as [`read`] finds it (a fix may be written back, with no
/// stamp to check the file against): for tests and the fuzz targets.
pub fn decode_file(file: Vec<u8>, limit: u64) -> Option<Log> {
    decode_owned(file, limit, Origin::File(None))
}

fn decode_owned(file: Vec<u8>, limit: u64, origin: Origin) -> Option<Log> {
    let scan = scan(&file);
    let mut bytes = Vec::new();
    let mut notes = Vec::new();
    let mut frames = Vec::with_capacity(scan.frames.len());
    for &(start, end) in &scan.frames {
        let frame = file.get(start..end).unwrap_or_default();
        let before = bytes.len();
        match decode_frame(frame, &mut bytes, limit) {
            Ok(true) => frames.push(Frame {
                bytes: start..end,
                text: before..bytes.len(),
                // The frame header descriptor's checksum bit (byte 4, bit 2).
                checksum: frame.get(4).is_some_and(|d| d & 4 != 0),
                whole_lines: bytes.len() == before || bytes.last() == Some(&b'\n'),
            }),
            // The structure said complete; the decoder wants more: damaged all the same.
            Ok(false) => {
                bytes.truncate(before);
                notes.push(Note {
                    offset: before,
                    kind: NoteKind::Corrupt {
                        at: start,
                        why: "it ends before its content does".into(),
                    },
                });
            }
            Err(Undecoded::Corrupt(why)) => {
                bytes.truncate(before);
                notes.push(Note {
                    offset: before,
                    kind: NoteKind::Corrupt { at: start, why },
                });
            }
            Err(Undecoded::TooLarge) => return None,
        }
        // A frame holds whole lines; one that does not is kept apart from the next.
        if bytes.len() > before && bytes.last() != Some(&b'\n') {
            bytes.push(b'\n');
        }
    }
    if let Some(start) = scan.torn {
        let frame = file.get(start..).unwrap_or_default();
        let before = bytes.len();
        match decode_frame(frame, &mut bytes, limit) {
            Err(Undecoded::TooLarge) => return None,
            // dsh swallows a torn frame's decoding error and keeps what decoded before it.
            Ok(_) | Err(Undecoded::Corrupt(_)) => {}
        }
        // Only whole lines of it are kept, as dsh keeps them.
        let recovered = bytes.len() - before;
        let keep = bytes
            .get(before..)
            .and_then(|tail| memchr::memrchr(b'\n', tail))
            .map_or(0, |i| i + 1);
        bytes.truncate(before + keep);
        notes.push(Note {
            offset: before + keep,
            kind: NoteKind::Torn {
                at: start,
                kept: keep,
                dropped: recovered - keep,
            },
        });
    }
    if let Some((at, why)) = scan.broken {
        notes.push(Note {
            offset: bytes.len(),
            kind: NoteKind::Broken { at, why },
        });
    }
    Some(Log {
        bytes,
        notes,
        file,
        frames,
        origin,
    })
}

impl Log {
    /// The decompressed text's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The fix loop on the log's text, each round linted by [`Log::lint`] (so a log that
    /// cannot be written back changes nothing).
    pub fn fix(
        &self,
        name: &SourceName,
        explicit: bool,
        opts: &LintOptions,
        unsafe_fixes: bool,
    ) -> Result<crate::fix::FileFix, crate::fix::FixError> {
        let text = String::from_utf8_lossy(&self.bytes).into_owned();
        crate::fix::fix_named(
            name,
            text,
            |name, text| self.lint(name, text.into_bytes(), explicit, opts),
            unsafe_fixes,
        )
    }

    /// Why a fix of this log cannot be written back, if it cannot: read from stdin, a torn
    /// or damaged frame (its lines are not all known), a frame ending inside a line.
    pub fn unwritable(&self) -> Option<&'static str> {
        if matches!(self.origin, Origin::Stream) {
            return Some("a Zstandard-compressed log read from stdin is not rewritten (name its file to fix it in place)");
        }
        if let Some(note) = self.notes.first() {
            return Some(match note.kind {
                NoteKind::Torn { .. } => "the file ends inside a Zstandard frame (a cut-off write), and toolcheck does not rewrite a torn log (DeepSeek Harness recovers the tail itself on resume)",
                NoteKind::Corrupt { .. } | NoteKind::Broken { .. } => "a Zstandard frame of the file is damaged, and toolcheck does not rewrite a log it could not read whole",
            });
        }
        if self.frames.iter().any(|f| !f.whole_lines) {
            return Some("a Zstandard frame of the file ends inside a line, and toolcheck does not rewrite such a log");
        }
        None
    }

    /// Lints `text` (the log's text, as read or as a fix left it) as the file `name`, with
    /// the frames' findings; every fix is withheld when the log cannot be written back.
    pub fn lint(
        &self,
        name: SourceName,
        text: Vec<u8>,
        explicit: bool,
        opts: &LintOptions,
    ) -> FileReport {
        let mut report = crate::lint::lint_bytes(name, text, explicit, opts);
        if let Some(why) = self.unwritable() {
            for finding in &mut report.findings {
                if finding.fix.take().is_some() {
                    crate::lint::note_withheld(finding, why);
                }
            }
        }
        let len = report.source.text.len();
        for note in &self.notes {
            let start = crate::source::floor_char_boundary(&report.source.text, note.offset);
            let end = crate::source::ceil_char_boundary(&report.source.text, start + 1).min(len);
            let finding = match &note.kind {
                NoteKind::Corrupt { at, why } => Finding::at_span(
                    &rules::ParseError::META,
                    start,
                    end,
                    format!("corrupt Zstandard frame at byte {at} of the file: {why}; its lines are not read (DeepSeek Harness refuses to load such a session)"),
                )
                .help("restore the file from a backup; the frames before and after it were read"),
                NoteKind::Broken { at, why } => Finding::at_span(
                    &rules::ParseError::META,
                    start,
                    end,
                    format!("bytes from offset {at} of the file are {why}; nothing from there on is read"),
                )
                .help("restore the file from a backup; the frames before it were read"),
                NoteKind::Torn { at, kept, dropped } => Finding::at_span(
                    &rules::InputNotChecked::META,
                    start,
                    end,
                    format!(
                        "the file ends inside its last Zstandard frame (from byte {at}): a write was cut off; {}",
                        torn_outcome(*kept, *dropped)
                    ),
                )
                .help("DeepSeek Harness recovers such a tail on resume: it truncates the file at that frame and appends the recovered lines as a new frame"),
            };
            if opts.selection.is_enabled(finding.rule.code) {
                report.findings.push(finding);
            }
        }
        report
    }
}

impl Log {
    /// The file's bytes for the log's text become `text`, frame by frame: a frame whose
    /// lines are all kept keeps its bytes exactly; a frame with a line changed, added inside
    /// it or removed is compressed again (with a content checksum if it had one); lines added
    /// between two frames or after the last become one new frame there. The result is
    /// decompressed again and refused unless it is exactly `text`.
    pub fn rewrite(&self, text: &[u8]) -> Result<Vec<u8>, String> {
        if let Some(why) = self.unwritable() {
            return Err(why.to_string());
        }
        let not_utf8 = |_| "its text is not UTF-8, so it is not rewritten".to_string();
        let old = std::str::from_utf8(&self.bytes).map_err(not_utf8)?;
        let new = std::str::from_utf8(text).map_err(not_utf8)?;
        // Each line of the text as read, with the frame holding it; frames end on lines.
        let mut old_lines = Vec::new();
        let mut frame_of = Vec::new();
        let mut first_line = Vec::with_capacity(self.frames.len());
        for (f, frame) in self.frames.iter().enumerate() {
            first_line.push(old_lines.len());
            let frame_text = old.get(frame.text.clone()).unwrap_or_default();
            for line in crate::source::lines_inclusive(frame_text) {
                old_lines.push(line);
                frame_of.push(f);
            }
        }
        let new_lines: Vec<&str> = crate::source::lines_inclusive(new).collect();
        let mut plan = Plan {
            before: vec![String::new(); self.frames.len()],
            text: vec![String::new(); self.frames.len()],
            changed: vec![false; self.frames.len()],
            after: String::new(),
        };
        let frame = |line: usize| frame_of.get(line).copied();
        let lines =
            |range: std::ops::Range<usize>| new_lines.get(range).unwrap_or_default().concat();
        // A few seconds bound the diff; past them it is coarser, never wrong.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let ops = similar::capture_diff_slices_deadline(
            similar::Algorithm::Myers,
            &old_lines,
            &new_lines,
            Some(deadline),
        );
        // First the frames that change, so that only their lines are copied below.
        for op in &ops {
            match *op {
                similar::DiffOp::Equal { .. } => {}
                similar::DiffOp::Delete {
                    old_index, old_len, ..
                }
                | similar::DiffOp::Replace {
                    old_index, old_len, ..
                } => plan.mark(&frame_of, old_index..old_index + old_len),
                similar::DiffOp::Insert { old_index, .. } => {
                    if frame(old_index).is_some_and(|f| first_line.get(f) != Some(&old_index)) {
                        plan.mark(&frame_of, old_index..old_index + 1);
                    }
                }
            }
        }
        for op in ops {
            match op {
                similar::DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => {
                    for k in 0..len {
                        let Some(f) = frame(old_index + k) else {
                            continue;
                        };
                        if let (Some(true), Some(line)) =
                            (plan.changed.get(f).copied(), new_lines.get(new_index + k))
                        {
                            plan.push(f, line);
                        }
                    }
                }
                similar::DiffOp::Delete {
                    old_index, old_len, ..
                } => {
                    plan.mark(&frame_of, old_index..old_index + old_len);
                }
                similar::DiffOp::Insert {
                    old_index,
                    new_index,
                    new_len,
                } => {
                    let added = lines(new_index..new_index + new_len);
                    match frame(old_index) {
                        None => plan.after.push_str(&added),
                        // At a frame's first line: a frame of their own before it.
                        Some(f) if first_line.get(f) == Some(&old_index) => {
                            if let Some(before) = plan.before.get_mut(f) {
                                before.push_str(&added);
                            }
                        }
                        Some(f) => {
                            plan.push(f, &added);
                            plan.mark(&frame_of, old_index..old_index + 1);
                        }
                    }
                }
                similar::DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    if let Some(f) = frame(old_index) {
                        plan.push(f, &lines(new_index..new_index + new_len));
                    }
                    plan.mark(&frame_of, old_index..old_index + old_len);
                }
            }
        }
        let mut out = Vec::with_capacity(self.file.len() + plan.after.len());
        for (f, frame) in self.frames.iter().enumerate() {
            let before = plan.before.get(f).map_or("", String::as_str);
            if !before.is_empty() {
                out.extend(compress(before, frame.checksum)?);
            }
            let text = plan.text.get(f).map_or("", String::as_str);
            if !plan.changed.get(f).copied().unwrap_or(true) {
                out.extend_from_slice(self.file.get(frame.bytes.clone()).unwrap_or_default());
            } else if !text.is_empty() {
                out.extend(compress(text, frame.checksum)?);
            }
        }
        if !plan.after.is_empty() {
            // dsh checksums every frame it writes; a log without frames has none to follow.
            let checksum = self.frames.last().is_none_or(|f| f.checksum);
            out.extend(compress(&plan.after, checksum)?);
        }
        // What is written must read back as exactly the text intended, and nothing more.
        let again = decode_owned(out, text.len() as u64, Origin::Stream)
            .ok_or("internal error: the rewritten frames decompress to more than the fixed text")?;
        if !again.notes.is_empty() || again.bytes != text {
            return Err(
                "internal error: the rewritten frames do not decompress to the fixed text".into(),
            );
        }
        Ok(again.file)
    }

    /// Writes `text` (the fixed text) back to `path` as [`Log::rewrite`] frames it, through
    /// the write every fixed file takes: refused if the file changed since it was read; a
    /// fix that only adds frames at the end is appended in place.
    pub fn write(
        &self,
        path: &std::path::Path,
        name: &str,
        text: &str,
    ) -> Result<(), crate::fix::write::WriteError> {
        let not_written =
            |why: String| crate::fix::write::WriteError(format!("{name}: not written: {why}"));
        let Origin::File(stamp) = &self.origin else {
            return Err(not_written(
                self.unwritable().unwrap_or_default().to_string(),
            ));
        };
        let bytes = self.rewrite(text.as_bytes()).map_err(not_written)?;
        crate::fix::write::write_atomic(path, &self.file, stamp.as_ref(), bytes)
    }
}

/// The text each frame is to hold, as the line diff assigns it.
struct Plan {
    /// Lines added right before each frame (a frame of their own).
    before: Vec<String>,
    text: Vec<String>,
    changed: Vec<bool>,
    /// Lines added after the last frame (one new frame).
    after: String,
}

impl Plan {
    fn push(&mut self, frame: usize, text: &str) {
        if let Some(t) = self.text.get_mut(frame) {
            t.push_str(text);
        }
    }

    /// Marks the frames holding the old lines `lines` as changed.
    fn mark(&mut self, frame_of: &[usize], lines: std::ops::Range<usize>) {
        for f in frame_of.get(lines).unwrap_or_default() {
            if let Some(c) = self.changed.get_mut(*f) {
                *c = true;
            }
        }
    }
}

/// One frame of `text`, as dsh compresses a write batch: the default level (3), with a
/// content checksum when `checksum`.
pub fn compress(text: &str, checksum: bool) -> Result<Vec<u8>, String> {
    let failed = |e: std::io::Error| format!("cannot compress a frame: {e}");
    let mut encoder = zstd::bulk::Compressor::new(3).map_err(failed)?;
    encoder
        .set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(checksum))
        .map_err(failed)?;
    encoder.compress(text.as_bytes()).map_err(failed)
}

/// What was kept of a torn frame.
fn torn_outcome(kept: usize, dropped: usize) -> String {
    match (kept, dropped) {
        (0, 0) => "nothing of it decompresses, so its lines are lost".into(),
        (kept, 0) => format!("its complete lines ({kept} bytes) were read"),
        (0, dropped) => {
            format!("it holds no complete line; a partial line of {dropped} bytes was not read")
        }
        (kept, dropped) => format!(
            "its complete lines ({kept} bytes) were read, a partial line of {dropped} bytes was not"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(text: &str) -> Vec<u8> {
        let mut encoder = zstd::bulk::Compressor::new(3).expect("encoder");
        encoder
            .set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))
            .expect("checksum");
        encoder.compress(text.as_bytes()).expect("compress")
    }

    #[test]
    fn frames_are_found_and_a_torn_tail_keeps_its_whole_lines() {
        let mut file = frame("{\"type\":\"session\"}\n");
        file.extend(frame("{\"a\":1}\n{\"b\":2}\n"));
        let whole = file.len();
        file.extend(frame("{\"c\":3}\n{\"d\":"));
        let scan = scan(&file);
        assert_eq!(scan.frames.len(), 3);
        let log = decode(&file, 1 << 20).expect("decodes");
        assert!(log.notes.is_empty());
        // Cut the last frame: the structure says torn, its prefix may or may not decode.
        let cut = file.get(..file.len() - 2).expect("shorter").to_vec();
        let scan = scan_of(&cut);
        assert_eq!(scan.torn, Some(whole));
        let log = decode(&cut, 1 << 20).expect("decodes");
        assert!(log.bytes.ends_with(b"\n"));
        assert!(matches!(
            log.notes.as_slice(),
            [Note {
                kind: NoteKind::Torn { .. },
                ..
            }]
        ));
    }

    fn scan_of(buf: &[u8]) -> Scan {
        scan(buf)
    }

    #[test]
    fn a_damaged_frame_is_named_by_its_offset_and_the_rest_is_read() {
        let mut file = frame("{\"h\":0}\n");
        let second = file.len();
        let mut bad = frame("{\"a\":1}\n");
        let last = bad.len() - 1;
        if let Some(b) = bad.get_mut(last) {
            *b ^= 0xff; // the checksum
        }
        file.extend(bad);
        file.extend(frame("{\"c\":3}\n"));
        let log = decode(&file, 1 << 20).expect("decodes");
        assert_eq!(log.bytes, b"{\"h\":0}\n{\"c\":3}\n");
        assert!(matches!(
            log.notes.as_slice(),
            [Note { kind: NoteKind::Corrupt { at, .. }, .. }] if *at == second
        ));
    }

    #[test]
    fn output_is_bounded() {
        let file = frame(&"x".repeat(100_000));
        assert!(decode(&file, 1000).is_none());
    }

    #[test]
    fn garbage_is_no_frame() {
        let scan = scan(b"\x28\xb5\x2f\xfd\x18");
        assert!(scan.broken.is_some());
        let scan = scan_of(b"\x28\xb5");
        assert_eq!(scan.torn, Some(0));
    }

    /// The frames of `texts`, one each, and the log they read as (writable).
    fn log_of(texts: &[&str]) -> (Vec<u8>, Log) {
        let file: Vec<u8> = texts.iter().flat_map(|t| frame(t)).collect();
        let log = decode_file(file.clone(), 1 << 20).expect("decodes");
        (file, log)
    }

    fn frames_of(file: &[u8]) -> Vec<&[u8]> {
        scan(file)
            .frames
            .iter()
            .map(|&(s, e)| file.get(s..e).expect("a frame"))
            .collect()
    }

    const TEXTS: [&str; 3] = ["{\"h\":0}\n", "{\"a\":1}\n{\"b\":2}\n", "{\"c\":3}\n"];

    #[test]
    fn an_unchanged_text_is_the_same_bytes() {
        let (file, log) = log_of(&TEXTS);
        assert_eq!(log.rewrite(log.bytes()).expect("rewritten"), file);
    }

    #[test]
    fn added_lines_are_one_new_frame_after_the_others() {
        let (file, log) = log_of(&TEXTS);
        let text = [TEXTS.concat(), "{\"d\":4}\n{\"e\":5}\n".into()].concat();
        let out = log.rewrite(text.as_bytes()).expect("rewritten");
        assert!(out.starts_with(&file));
        assert_eq!(frames_of(&out).len(), 4);
        let again = decode(&out, 1 << 20).expect("decodes");
        assert_eq!(again.bytes(), text.as_bytes());
        // dsh's frames carry checksums; the new one does too.
        assert!(again.frames.iter().all(|f| f.checksum));
    }

    #[test]
    fn a_changed_frame_alone_is_compressed_again() {
        let (file, log) = log_of(&TEXTS);
        let text = TEXTS.concat().replace("{\"b\":2}", "{\"b\":20}");
        let out = log.rewrite(text.as_bytes()).expect("rewritten");
        let (old, new) = (frames_of(&file), frames_of(&out));
        assert_eq!(new.len(), 3);
        assert_eq!(old.first(), new.first());
        assert_eq!(old.get(2), new.get(2));
        assert_ne!(old.get(1), new.get(1));
        let again = decode(&out, 1 << 20).expect("decodes");
        assert_eq!(again.bytes(), text.as_bytes());
        assert!(again.frames.get(1).is_some_and(|f| f.checksum));
    }

    #[test]
    fn lines_removed_or_inserted_between_frames_keep_the_neighbours() {
        let (file, log) = log_of(&TEXTS);
        let old = frames_of(&file);
        // A frame's every line removed: the frame goes, the others stay as they were.
        let text = [TEXTS[0], TEXTS[2]].concat();
        let out = log.rewrite(text.as_bytes()).expect("rewritten");
        assert_eq!(frames_of(&out), [old[0], old[2]]);
        // A line between two frames: a frame of its own there.
        let text = [TEXTS[0], "{\"x\":9}\n", TEXTS[1], TEXTS[2]].concat();
        let out = log.rewrite(text.as_bytes()).expect("rewritten");
        let new = frames_of(&out);
        assert_eq!(new.len(), 4);
        assert_eq!((new[0], new[2], new[3]), (old[0], old[1], old[2]));
        assert_eq!(
            decode(&out, 1 << 20).expect("decodes").bytes(),
            text.as_bytes()
        );
    }

    #[test]
    fn a_frame_without_a_checksum_is_compressed_again_without_one() {
        let mut plain = zstd::bulk::Compressor::new(3).expect("encoder");
        let mut file = frame(TEXTS[0]);
        file.extend(plain.compress(TEXTS[1].as_bytes()).expect("compress"));
        let log = decode_file(file, 1 << 20).expect("decodes");
        let text = [TEXTS[0], "{\"a\":1}\n"].concat();
        let out = log.rewrite(text.as_bytes()).expect("rewritten");
        let again = decode(&out, 1 << 20).expect("decodes");
        assert_eq!(
            again.frames.iter().map(|f| f.checksum).collect::<Vec<_>>(),
            [true, false]
        );
    }

    #[test]
    fn stdin_torn_damaged_and_unterminated_logs_are_not_rewritten() {
        let (file, _) = log_of(&TEXTS);
        let text = [TEXTS.concat(), "{\"d\":4}\n".into()].concat();
        let stdin = decode(&file, 1 << 20).expect("decodes");
        assert!(stdin.rewrite(text.as_bytes()).is_err());
        let torn = decode_file(file.get(..file.len() - 3).expect("cut").to_vec(), 1 << 20);
        assert!(torn.expect("decodes").rewrite(text.as_bytes()).is_err());
        let mut damaged = file.clone();
        if let Some(b) = damaged.last_mut() {
            *b ^= 0xff;
        }
        let damaged = decode_file(damaged, 1 << 20).expect("decodes");
        assert!(damaged.unwritable().is_some());
        let open_line = [frame(TEXTS[0]), frame("{\"a\":")].concat();
        let open_line = decode_file(open_line, 1 << 20).expect("decodes");
        assert!(open_line.rewrite(open_line.bytes()).is_err());
        // A text the frames cannot hold as whole lines is refused, not written differently.
        let (_, log) = log_of(&TEXTS);
        let cut = [TEXTS.concat(), "{\"d\":".into()].concat();
        assert!(log.rewrite(cut.as_bytes()).is_err());
    }
}
