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
//! bytes, so a small file cannot expand without end. Nothing here writes: fixes are
//! withheld (`withhold`), since a fix would have to append a frame, which toolcheck does not
//! do yet.

use crate::finding::Finding;
use crate::lint::{FileReport, LintOptions, SourceName};
use crate::rules;

/// The first four bytes of a Zstandard frame.
pub const MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Whether `bytes` open with a Zstandard frame.
pub fn is_zstd(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Whether the regular file at `path` opens with a Zstandard frame.
pub fn has_zstd_header(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head == MAGIC)
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

/// A log of Zstandard frames as read: the text its frames decompress to, and what was
/// found wrong with the frames.
#[derive(Debug)]
pub struct Log {
    bytes: Vec<u8>,
    notes: Vec<Note>,
}

/// Reads the log at `path` (named `name`): its file and what it decompresses to are both
/// held to `limit` bytes (`None`: over it). `Err` for a file that cannot be read.
pub fn read(path: &std::path::Path, name: &str, limit: u64) -> Result<Option<Log>, String> {
    match crate::read::read_path(path, limit) {
        Ok(crate::read::Loaded::Bytes(bytes, _)) => Ok(decode(&bytes, limit)),
        Ok(crate::read::Loaded::TooLarge { .. }) => Ok(None),
        Err(e) => Err(format!("cannot read {name}: {e}")),
    }
}

/// The log `file` holds, `None` when it decompresses to more than `limit` bytes.
pub fn decode(file: &[u8], limit: u64) -> Option<Log> {
    let scan = scan(file);
    let mut bytes = Vec::new();
    let mut notes = Vec::new();
    for &(start, end) in &scan.frames {
        let frame = file.get(start..end).unwrap_or_default();
        let before = bytes.len();
        match decode_frame(frame, &mut bytes, limit) {
            Ok(true) => {}
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
    Some(Log { bytes, notes })
}

impl Log {
    /// The decompressed text's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Lints `text` (the log's text, as read or as a fix left it) as the file `name`, with
    /// the frames' findings and every fix withheld: nothing writes a compressed log.
    pub fn lint(
        &self,
        name: SourceName,
        text: Vec<u8>,
        explicit: bool,
        opts: &LintOptions,
    ) -> FileReport {
        let mut report = crate::lint::lint_bytes(name, text, explicit, opts);
        for finding in &mut report.findings {
            if finding.fix.take().is_some() {
                crate::lint::note_withheld(
                    finding,
                    "toolcheck does not write Zstandard-compressed logs yet",
                );
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
}
