//! `fix` of a JSONL dataset a chunk at a time, the counterpart of [`super::lint`]: the same
//! files (a `.jsonl` or `.ndjson` over one chunk whose first records are one conversation
//! each), each chunk fixed exactly as its records are fixed in the whole file, handed to the
//! caller in file order (for its diff and findings) and, for `--write`, streamed into the
//! temporary file `crate::fix::write` renames over the original. Memory holds the chunks
//! being fixed, a few per thread, never the file.
//!
//! The write begins only at the first chunk that changed (the unchanged bytes before it are
//! copied from the file), so a file with nothing to fix is never rewritten and leaves no
//! temporary file. Before the rename, besides the size, modification time and inode, the file
//! is read again and its hash compared with the hash of the bytes read the first time.
//!
//! Where it differs from the whole file: a chunk that cannot be fixed (a byte that is not
//! UTF-8, an internal error) stops the file with the error the whole file gets, after the
//! diffs of the chunks before it were printed (a dry run prints as it goes); the fix loop's
//! setting aside of fixes that undo one another, and its round bound, work per chunk.

use std::io::{Read, Seek, Write};
use std::path::Path;

use super::{Chunk, Chunks, Place, CHUNK_BYTES};
use crate::diagnostic::Diagnostic;
use crate::fix::write::{Pending, WriteError};
use crate::fix::{FileFix, FixError};
use crate::lint::{LintOptions, Outcome, SourceName};
use crate::read::FileStamp;

/// A file to fix a chunk at a time (see [`plan`]).
pub struct Plan<'a> {
    pub path: &'a Path,
    pub limit: u64,
}

/// The file at `path` as a [`Plan`] when it is to be fixed a chunk at a time: the decision
/// [`super::lint`] takes, on the same first chunk. `None`: fix it whole.
pub fn plan<'a>(
    path: &'a Path,
    name: &str,
    limit: u64,
    opts: &LintOptions,
) -> Result<Option<Plan<'a>>, String> {
    let cannot = |e: std::io::Error| format!("cannot read {name}: {e}");
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut chunks = Chunks::new(file, CHUNK_BYTES, limit);
    let first = chunks.next_chunk().map_err(cannot)?;
    Ok(first
        .is_some_and(|first| super::opens_per_record(&first, opts))
        .then_some(Plan { path, limit }))
}

/// How to fix the file.
pub struct Job<'a> {
    pub name: &'a SourceName,
    pub explicit: bool,
    pub opts: &'a LintOptions,
    pub unsafe_fixes: bool,
    /// Write the fixed file back.
    pub write: bool,
    /// Bytes of whole lines per chunk ([`FIX_CHUNK_BYTES`]; tests use tiny chunks).
    pub chunk_bytes: usize,
}

/// How many bytes of whole lines `fix` takes at a time. Smaller than a lint's chunk: a
/// chunk being fixed holds its text, the fixed text, its findings with their edits and its
/// diff, and two threads keep four chunks in flight (a 200 MB dataset with every second
/// record broken peaked at 138 MiB with 4 MiB chunks, 45 MiB with these, at the same CPU).
pub const FIX_CHUNK_BYTES: usize = 512 << 10;

/// One chunk fixed, handed to the caller in file order.
pub struct FixedChunk {
    fix: FileFix,
    /// Where the chunk starts in the file as read and as fixed: 0-based line, byte offset.
    old: (usize, usize),
    new: (usize, usize),
    /// The finding for a record over the size limit, which the chunk stands for unread.
    oversized: Option<u64>,
}

impl FixedChunk {
    /// The chunk's text as read and as fixed (an oversized record is an empty line here).
    pub fn texts(&self) -> (std::borrow::Cow<'_, str>, &str) {
        (self.fix.original_text(), self.fix.fixed_text())
    }

    /// The findings of the chunk as fixed (`after`) or as read, each with its fix, placed by
    /// `place` and moved to the file's lines and offsets: what `input::Fixed::findings`
    /// gives for these records in the whole file; with `render`, their full report too.
    pub fn findings(
        &mut self,
        job: &Job<'_>,
        after: bool,
        place: Place<'_>,
        render: Option<super::Render<'_>>,
    ) -> (Vec<Diagnostic>, Vec<String>) {
        let file = &mut self.fix;
        let relint = |text: String| {
            let name = SourceName {
                name: job.name.name.clone(),
                path: job.name.path.clone(),
            };
            crate::lint::lint_record_text(name, text, job.opts)
        };
        let mut placed = file.place_findings(after, relint, place);
        if let Some(limit) = self.oversized {
            placed.push(super::oversized(&file.report.source, limit));
        }
        let (line, base) = if after { self.new } else { self.old };
        // Rendered in the chunk's text, before the spans move to the file's offsets.
        let rendered = match render {
            Some(render) if !placed.is_empty() => render(&file.report.source, &placed, line),
            _ => Vec::new(),
        };
        super::relocate(&mut placed, line, base);
        (placed, rendered)
    }
}

/// What fixing the file came to.
#[derive(Default)]
pub struct Totals {
    /// Fixes applied, over all chunks.
    pub applied: usize,
    /// Fixes left out because they are unsafe and were not asked for.
    pub unsafe_left: usize,
    /// Findings left that have no fix.
    pub unfixable: usize,
    pub changed: bool,
    /// Why the fixed file was not written (it is untouched).
    pub write_error: Option<WriteError>,
    /// No record matched a conversation format and the file was named: the findings saying
    /// so, as a whole file gets them (placed by the caller).
    pub unrecognised: Option<crate::lint::FileReport>,
}

/// Fixes the file of `plan` a chunk at a time, calling `each` with every chunk in file
/// order, and with `job.write` writes it back. `Err`: a chunk could not be fixed (or the
/// file read, or `each` failed); nothing was written.
pub fn run(
    plan: &Plan<'_>,
    job: &Job<'_>,
    each: &mut dyn FnMut(&mut FixedChunk) -> Result<(), String>,
) -> Result<Totals, String> {
    let name = &job.name.name;
    let cannot = |e: std::io::Error| format!("cannot read {name}: {e}");
    let file = std::fs::File::open(plan.path).map_err(cannot)?;
    let stamp = FileStamp::of(&file.metadata().map_err(cannot)?);
    let mut chunks = Chunks::new(file, job.chunk_bytes, plan.limit);
    chunks.hash = Some(Default::default());
    let mut writer = Writer {
        path: plan.path,
        stamp,
        pending: None,
        error: None,
    };
    let mut totals = Totals::default();
    let (mut formats, mut findings) = (false, false);
    let mut new = (0usize, 0usize);
    let batch = rayon::current_num_threads().max(1);
    let mut next = read_batch(&mut chunks, batch).map_err(cannot)?;
    while !next.is_empty() {
        // The next chunks are read while these are fixed.
        let (fixed, read) = rayon::join(
            || {
                use rayon::prelude::*;
                next.into_par_iter()
                    .map(|mut chunk| {
                        // The bad byte's offset is the file's, not the chunk's.
                        if let Some(e) = (!crate::encoding::is_utf8(&chunk.bytes))
                            .then(|| std::str::from_utf8(&chunk.bytes).err())
                            .flatten()
                        {
                            let at = e.valid_up_to();
                            let byte = chunk.bytes.get(at).copied().unwrap_or_default();
                            let why = crate::encoding::bad_utf8(byte, chunk.base + at);
                            return (chunk, Err(FixError::Undecodable(why)));
                        }
                        let fix = crate::fix::engine::fix_record_lines(
                            job.name,
                            std::mem::take(&mut chunk.bytes),
                            job.opts,
                            job.unsafe_fixes,
                        );
                        (chunk, fix)
                    })
                    .collect::<Vec<_>>()
            },
            || read_batch(&mut chunks, batch),
        );
        for (chunk, fix) in fixed {
            let fix = fix.map_err(|e: FixError| format!("{name}: {e}"))?;
            totals.applied += fix.applied;
            totals.unsafe_left += fix.unsafe_left;
            totals.unfixable += fix
                .report
                .findings
                .iter()
                .filter(|f| f.fix.is_none())
                .count()
                + usize::from(chunk.oversized);
            totals.changed |= fix.changed();
            formats |= matches!(&fix.report.outcome, Outcome::Checked(f) if !f.is_empty());
            findings |= !fix.report.findings.is_empty() || chunk.oversized;
            let fixed_len = fix.encoding.encode(fix.fixed_text()).len();
            let fixed_lines = line_count(fix.fixed_text());
            if job.write {
                writer.chunk(&chunk, &fix);
            }
            let mut fixed_chunk = FixedChunk {
                fix,
                old: (chunk.first_line, chunk.base),
                new,
                oversized: chunk.oversized.then_some(chunk.limit),
            };
            // An oversized record is kept as it is, in place of its empty line.
            let span = if chunk.oversized {
                chunk.span
            } else {
                fixed_len
            };
            new = (new.0 + fixed_lines, new.1 + span);
            each(&mut fixed_chunk)?;
        }
        next = read.map_err(cannot)?;
    }
    if !formats && !findings && (job.explicit || job.opts.input_format.is_some()) {
        let reason = "no record that matches a conversation format";
        totals.unrecognised = Some(crate::lint::unrecognised_report(job.name, job.opts, reason));
        totals.unfixable += 1;
    }
    let read_hash = chunks.hash.take().map(|h| std::hash::Hasher::finish(&h));
    totals.write_error = writer.commit(chunks.base as u64, read_hash);
    Ok(totals)
}

/// Lines of a chunk's text, as the diff and the findings count them.
fn line_count(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count()
}

/// Up to `n` chunks.
fn read_batch<R: Read>(chunks: &mut Chunks<R>, n: usize) -> std::io::Result<Vec<Chunk>> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        match chunks.next_chunk()? {
            Some(chunk) => out.push(chunk),
            None => break,
        }
    }
    Ok(out)
}

/// The write of the fixed file, begun at the first chunk that changed.
struct Writer<'a> {
    path: &'a Path,
    stamp: FileStamp,
    pending: Option<Pending>,
    /// The first failure: nothing more is written, and the file is left as it is.
    error: Option<WriteError>,
}

impl Writer<'_> {
    /// Writes one fixed chunk (its original bytes for an oversized record), first beginning
    /// the write if this is the first chunk that changed.
    fn chunk(&mut self, chunk: &Chunk, fix: &FileFix) {
        if self.error.is_some() || (self.pending.is_none() && !fix.changed()) {
            return;
        }
        if let Err(e) = self.write_chunk(chunk, fix) {
            self.error = Some(e);
            // Dropped, the temporary file is removed.
            self.pending = None;
        }
    }

    fn write_chunk(&mut self, chunk: &Chunk, fix: &FileFix) -> Result<(), WriteError> {
        let pending = match &mut self.pending {
            Some(pending) => pending,
            None => {
                let mut pending = crate::fix::write::prepare(self.path, Some(&self.stamp))?;
                // The unchanged chunks before this one, from the file.
                copy_range(self.path, 0, chunk.base as u64, pending.file())?;
                self.pending.insert(pending)
            }
        };
        if chunk.oversized {
            let (from, len) = (chunk.base as u64, chunk.span as u64);
            return copy_range(self.path, from, len, pending.file());
        }
        pending
            .file()
            .write_all(&fix.encoding.encode(fix.fixed_text()))
            .map_err(|e| WriteError(format!("cannot write the temporary file: {e}")))
    }

    /// Renames the written file over the original if it still holds the `read_len` bytes
    /// whose hash was `read_hash`; what failed, if anything.
    fn commit(self, read_len: u64, read_hash: Option<u64>) -> Option<WriteError> {
        if let Some(e) = self.error {
            return Some(e);
        }
        let pending = self.pending?;
        pending
            .commit(
                read_len,
                &|target| Ok(Some(hash_file(target)?) == read_hash),
            )
            .err()
    }
}

/// Copies `len` bytes of the file at `path` from `from` into `out`.
fn copy_range(path: &Path, from: u64, len: u64, out: &mut std::fs::File) -> Result<(), WriteError> {
    let cannot = |e: std::io::Error| WriteError(format!("cannot copy it: {e}"));
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    file.seek(std::io::SeekFrom::Start(from)).map_err(cannot)?;
    let copied = std::io::copy(&mut file.take(len), out).map_err(cannot)?;
    if copied != len {
        return Err(crate::fix::write::changed());
    }
    Ok(())
}

/// The hash of the file's bytes as they are now, read a buffer at a time.
fn hash_file(path: &Path) -> Result<u64, WriteError> {
    use std::hash::Hasher;
    let cannot = |e: std::io::Error| WriteError(format!("cannot read it again: {e}"));
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    let mut hash = std::collections::hash_map::DefaultHasher::default();
    let mut buf = vec![0; 256 << 10];
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(cannot(e)),
        };
        hash.write(buf.get(..n).unwrap_or_default());
    }
    Ok(hash.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::diff::{unified, DiffStream, DiffStyle};
    use proptest::strategy::Strategy;

    /// Records of a fine-tuning set, `kinds` picking each: clean, orphaned result (safe
    /// fix), truncated arguments (unsafe fix), cut off (no fix).
    fn dataset(kinds: &[u8], crlf: bool) -> String {
        let end = if crlf { "\r\n" } else { "\n" };
        let mut out = String::new();
        for (i, kind) in kinds.iter().enumerate() {
            let record = match kind % 4 {
                1 => format!(
                    r#"{{"messages":[{{"role":"user","content":"r{i}"}},{{"role":"tool","tool_call_id":"gone_{i}","content":"x"}},{{"role":"assistant","content":"ok"}}]}}"#
                ),
                2 => format!(
                    r#"{{"messages":[{{"role":"user","content":"r{i}"}},{{"role":"assistant","content":null,"tool_calls":[{{"id":"c{i}","type":"function","function":{{"name":"f","arguments":"{{\"q\": \"hel"}}}}]}},{{"role":"tool","tool_call_id":"c{i}","content":"x"}}]}}"#
                ),
                3 => format!(r#"{{"messages":[{{"role":"user","content":"r{i} cut"#),
                _ => format!(
                    r#"{{"messages":[{{"role":"user","content":"r{i}"}},{{"role":"assistant","content":"a{i}"}}]}}"#
                ),
            };
            out.push_str(&record);
            out.push_str(end);
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(48))]
        /// Fixed in chunks of any size, a dataset gives the whole fix's text, diff and
        /// findings (as read and as fixed), in the file's lines and offsets.
        #[test]
        fn chunked_fix_is_the_whole_fix(
            // A clean first record: the file must open as one conversation per record.
            kinds in proptest::collection::vec(0u8..4, 1..40).prop_map(|mut k| {
                k.insert(0, 0);
                k
            }),
            chunk_bytes in 1usize..600,
            crlf: bool,
            unsafe_fixes: bool,
            last_newline: bool,
        ) {
            let mut text = dataset(&kinds, crlf);
            if !last_newline {
                text.truncate(text.trim_end().len());
            }
            let dir = tempfile::tempdir().expect("tempdir");
            let path = dir.path().join("d.jsonl");
            std::fs::write(&path, &text).expect("write");
            let name = SourceName { name: "d.jsonl".into(), path: None };
            let opts = LintOptions::default();
            let whole = crate::fix::fix_bytes(&name, text.clone().into_bytes(), true, &opts, unsafe_fixes)
                .expect("whole fix");
            let style = DiffStyle { color: false, crop: false };
            let place = |s: &crate::source::SourceFile, f| crate::diagnostic::place_all(s, f);
            let json = |d: &[Diagnostic]| serde_json::to_string(d).unwrap_or_default();
            let before = crate::lint::lint_bytes(
                SourceName { name: "d.jsonl".into(), path: None },
                text.clone().into_bytes(),
                true,
                &opts,
            );
            let whole_before = json(&place(&before.source, before.findings));
            let whole_after = json(&place(&whole.report.source, whole.report.findings.clone()));
            for write in [false, true] {
                let job = Job { name: &name, explicit: true, opts: &opts, unsafe_fixes, write, chunk_bytes };
                let mut diff = DiffStream::unified("d.jsonl", &style);
                let (mut diffs, mut found) = (Vec::new(), Vec::new());
                let totals = run(&Plan { path: &path, limit: 1 << 20 }, &job, &mut |chunk| {
                    let (old, new) = chunk.texts();
                    diff.push(&old, new, &mut diffs).map_err(|e| e.to_string())?;
                    found.extend(chunk.findings(&job, write, &place, None).0);
                    Ok(())
                })
                .expect("chunked fix");
                diff.finish(&mut diffs).expect("diff");
                let diffs = String::from_utf8(diffs).unwrap_or_default();
                proptest::prop_assert!(totals.write_error.is_none());
                proptest::prop_assert_eq!(totals.applied, whole.applied);
                proptest::prop_assert_eq!(totals.changed, whole.changed());
                proptest::prop_assert_eq!(
                    &diffs,
                    &unified("d.jsonl", &whole.original_text(), whole.fixed_text(), &style)
                );
                let whole_found = if write { &whole_after } else { &whole_before };
                proptest::prop_assert_eq!(&json(&found), whole_found);
                let on_disk = std::fs::read_to_string(&path).expect("read");
                let expected = if write { whole.fixed_text() } else { text.as_str() };
                proptest::prop_assert_eq!(on_disk.as_str(), expected);
                std::fs::write(&path, &text).expect("write");
            }
        }
    }

    /// A file whose bytes change while it is fixed, its size, modification time and inode
    /// kept, is not written: the hash of the bytes read tells.
    #[test]
    fn a_file_changed_in_place_is_not_written() {
        let text = dataset(&[0, 1, 0, 1, 0, 1], false);
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("d.jsonl");
        std::fs::write(&path, &text).expect("write");
        let name = SourceName {
            name: "d.jsonl".into(),
            path: None,
        };
        let opts = LintOptions::default();
        let job = Job {
            name: &name,
            explicit: true,
            opts: &opts,
            unsafe_fixes: false,
            write: true,
            chunk_bytes: 100,
        };
        let modified = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .expect("mtime");
        let changed = text.replacen("r0", "R0", 1);
        let mut first = true;
        let totals = run(
            &Plan {
                path: &path,
                limit: 1 << 20,
            },
            &job,
            &mut |_| {
                if std::mem::take(&mut first) {
                    // The first chunk, read and written already: changed under the fix.
                    let file = std::fs::OpenOptions::new().write(true).open(&path);
                    let file = file.map_err(|e| e.to_string())?;
                    (&file)
                        .write_all(changed.as_bytes())
                        .map_err(|e| e.to_string())?;
                    file.set_modified(modified).map_err(|e| e.to_string())?;
                }
                Ok(())
            },
        )
        .expect("fix");
        assert!(totals.changed);
        let error = totals.write_error.map(|e| e.0).unwrap_or_default();
        assert!(error.contains("changed on disk"), "{error}");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), changed);
        let left = std::fs::read_dir(dir.path()).expect("dir").count();
        assert_eq!(left, 1, "no temporary file left");
    }
}
