//! Unified diffs of fixes, with long JSONL lines cropped to the part that changed.

use std::borrow::Cow;
use std::io::{Seek, Write};

use imara_diff::{Algorithm, Diff, InternedInput};
use similar::{ChangeTag, DiffOp};

use crate::escape;

pub use super::align::{aligned, Aligned};
#[cfg(test)]
use super::align::{aligned_pieces, aligned_undo_in, Sizes};

/// Lines longer than this (in characters) are cropped around what changed.
const LONG_LINE: usize = 240;
/// Characters of context kept on each side of a change inside a long line.
const CONTEXT_CHARS: usize = 60;
/// Unchanged lines shown around each change.
const CONTEXT_LINES: usize = 3;

pub struct DiffStyle {
    pub color: bool,
    /// Crop long lines around what changed (for a reader at a terminal; a diff written to a
    /// file or a pipe stays whole, so it applies as a patch).
    pub crop: bool,
}

/// The operations that turn the old lines (each with its terminator) into the new ones.
///
/// imara-diff's Myers, not similar's: similar's costs the lines times the changed lines
/// (a fix that inserts a result after each of 16,000 calls of a session took 8 s to
/// diff); imara-diff first sets aside lines that occur on one side only (each inserted
/// JSONL record) and bounds the search as git does, 5× faster there. Its histogram
/// algorithm was slower on such fixes.
fn line_ops(old: &str, new: &str) -> Vec<DiffOp> {
    let input = InternedInput::new(old, new);
    let mut diff = Diff::compute(Algorithm::Myers, &input);
    diff.postprocess_lines(&input);
    // The same lines imara-diff tokenised: each ends after its `\n`.
    let old_lines = crate::source::lines_inclusive(old).count();
    let mut ops = Vec::new();
    let (mut at_old, mut at_new) = (0usize, 0usize);
    for hunk in diff.hunks() {
        let (old_start, old_end) = (hunk.before.start as usize, hunk.before.end as usize);
        let (new_start, new_end) = (hunk.after.start as usize, hunk.after.end as usize);
        if old_start > at_old {
            ops.push(DiffOp::Equal {
                old_index: at_old,
                new_index: at_new,
                len: old_start - at_old,
            });
        }
        let (old_len, new_len) = (old_end - old_start, new_end - new_start);
        ops.push(match (old_len, new_len) {
            (_, 0) => DiffOp::Delete {
                old_index: old_start,
                old_len,
                new_index: new_start,
            },
            (0, _) => DiffOp::Insert {
                old_index: old_start,
                new_index: new_start,
                new_len,
            },
            _ => DiffOp::Replace {
                old_index: old_start,
                old_len,
                new_index: new_start,
                new_len,
            },
        });
        (at_old, at_new) = (old_end, new_end);
    }
    if old_lines > at_old {
        ops.push(DiffOp::Equal {
            old_index: at_old,
            new_index: at_new,
            len: old_lines - at_old,
        });
    }
    ops
}

/// The lines of one operation in the order a unified diff shows them, each with the line it
/// replaces or is replaced by (the same position on the other side of a replacement), which
/// a long line is cropped against. `old` and `new` hold the lines from `from` (old, new).
fn op_lines<'t>(
    op: &DiffOp,
    old: &'t [Cow<'_, str>],
    new: &'t [Cow<'_, str>],
    from: (usize, usize),
) -> Vec<(ChangeTag, &'t str, Option<&'t str>)> {
    let shift =
        |r: std::ops::Range<usize>, by: usize| r.start.saturating_sub(by)..r.end.saturating_sub(by);
    let (olds, news) = (
        old.get(shift(op.old_range(), from.0)).unwrap_or_default(),
        new.get(shift(op.new_range(), from.1)).unwrap_or_default(),
    );
    match op {
        DiffOp::Equal { .. } => olds
            .iter()
            .map(|l| (ChangeTag::Equal, l.as_ref(), None))
            .collect(),
        DiffOp::Delete { .. } => olds
            .iter()
            .map(|l| (ChangeTag::Delete, l.as_ref(), None))
            .collect(),
        DiffOp::Insert { .. } => news
            .iter()
            .map(|l| (ChangeTag::Insert, l.as_ref(), None))
            .collect(),
        DiffOp::Replace { .. } => {
            let deleted = olds.iter().enumerate().map(|(i, l)| {
                (
                    ChangeTag::Delete,
                    l.as_ref(),
                    news.get(i).map(|p| p.as_ref()),
                )
            });
            let inserted = news.iter().enumerate().map(|(i, l)| {
                (
                    ChangeTag::Insert,
                    l.as_ref(),
                    olds.get(i).map(|p| p.as_ref()),
                )
            });
            deleted.chain(inserted).collect()
        }
    }
}

/// The `@@ -a,b +c,d @@` line of a hunk covering these lines (old, new).
fn hunk_header(old: std::ops::Range<usize>, new: std::ops::Range<usize>) -> String {
    format!(
        "@@ -{} +{} @@\n",
        hunk_range(old.start, old.len()),
        hunk_range(new.start, new.len())
    )
}

/// A complete unified diff of `old` → `new`, uncropped and uncoloured, that `git apply` and
/// `patch -p1` accept; empty when they are equal.
pub fn patch(name: &str, old: &str, new: &str) -> String {
    patch_aligned(name, &aligned(old, new))
}

/// A unified diff of `old` → `new` for the file `name`; empty when they are equal.
pub fn unified(name: &str, old: &str, new: &str, style: &DiffStyle) -> String {
    unified_aligned(name, &aligned(old, new), style)
}

/// [`patch`] of two texts given as [`Aligned`] pieces.
pub fn patch_aligned(name: &str, pieces: &Aligned<'_>) -> String {
    if pieces.iter().all(|(old, new)| old == new) {
        return String::new();
    }
    whole(DiffStream::patch(name), pieces)
}

/// [`unified`] of two texts given as [`Aligned`] pieces.
pub fn unified_aligned(name: &str, pieces: &Aligned<'_>, style: &DiffStyle) -> String {
    whole(DiffStream::unified(name, style), pieces)
}

/// The diff of whole texts, given to the stream in aligned pieces.
fn whole(mut diff: DiffStream<'_>, pieces: &Aligned<'_>) -> String {
    let mut out = Vec::new();
    // Writing to memory does not fail.
    for (old, new) in pieces {
        let _ = diff.push(old, new, &mut out);
    }
    let _ = diff.finish(&mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// A diff given a file a piece of whole lines at a time (a JSONL dataset fixed a chunk at a
/// time), writing each hunk once no later piece can change it: what the pieces and
/// [`DiffStream::finish`] write is the diff of the whole texts, hunk line numbers in the
/// file's numbering and hunks that span pieces joined. It holds the lines of the operation
/// still open (a run of changed lines, or a few unchanged ones), not the file; the lines of
/// a long hunk wait in a temporary file, since its header, which counts them, goes first.
pub struct DiffStream<'s> {
    name: String,
    style: Option<&'s DiffStyle>,
    started: bool,
    /// Operations not yet rendered, in the file's line numbers.
    ops: Vec<DiffOp>,
    /// The old and new lines from `from` on, which `ops` cover.
    old: Vec<String>,
    new: Vec<String>,
    from: (usize, usize),
    /// Lines given so far (old, new).
    at: (usize, usize),
    /// The hunk begun: the lines it covers so far (old, new), and its lines rendered.
    open: Option<(std::ops::Range<usize>, std::ops::Range<usize>)>,
    body: Body,
}

/// A hunk's rendered lines: in memory, or past [`SPILL`] bytes in a temporary file.
#[derive(Default)]
struct Body {
    text: String,
    file: Option<std::fs::File>,
}

/// Bytes of one hunk's lines kept in memory before they go to a temporary file.
const SPILL: usize = 1 << 20;

impl Body {
    fn push(&mut self, line: &str) -> std::io::Result<()> {
        self.text.push_str(line);
        if self.text.len() > SPILL {
            let file = match &mut self.file {
                Some(file) => file,
                None => self.file.insert(tempfile::tempfile()?),
            };
            file.write_all(self.text.as_bytes())?;
            self.text.clear();
        }
        Ok(())
    }

    /// Writes the lines to `out` and empties the body.
    fn drain(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        if let Some(mut file) = self.file.take() {
            file.seek(std::io::SeekFrom::Start(0))?;
            std::io::copy(&mut file, out)?;
        }
        out.write_all(self.text.as_bytes())?;
        self.text.clear();
        Ok(())
    }
}

impl<'s> DiffStream<'s> {
    /// A [`patch`], a piece at a time.
    pub fn patch(name: &str) -> DiffStream<'s> {
        DiffStream::new(name, None)
    }

    /// A [`unified`] diff, a piece at a time.
    pub fn unified(name: &str, style: &'s DiffStyle) -> DiffStream<'s> {
        DiffStream::new(name, Some(style))
    }

    fn new(name: &str, style: Option<&'s DiffStyle>) -> DiffStream<'s> {
        DiffStream {
            name: name.to_string(),
            style,
            started: false,
            ops: Vec::new(),
            old: Vec::new(),
            new: Vec::new(),
            from: (0, 0),
            at: (0, 0),
            open: None,
            body: Body::default(),
        }
    }

    /// The next piece of the file, as it was and as it is now (each whole lines, but for a
    /// last line without its newline): writes the hunks it completes.
    pub fn push(&mut self, old: &str, new: &str, out: &mut dyn Write) -> std::io::Result<()> {
        let (at_old, at_new) = self.at;
        let unchanged = std::ptr::eq(old, new) || old == new;
        let mut olds: Vec<Cow<'_, str>> = std::mem::take(&mut self.old)
            .into_iter()
            .map(Cow::Owned)
            .collect();
        let mut news: Vec<Cow<'_, str>> = std::mem::take(&mut self.new)
            .into_iter()
            .map(Cow::Owned)
            .collect();
        // Each side is split into lines once; an unchanged piece's new lines are its old ones.
        let (olds_before, news_before) = (olds.len(), news.len());
        olds.extend(crate::source::lines_inclusive(old).map(Cow::Borrowed));
        let old_lines = olds.len() - olds_before;
        if unchanged {
            news.extend(olds.iter().skip(olds_before).cloned());
        } else {
            news.extend(crate::source::lines_inclusive(new).map(Cow::Borrowed));
        }
        let new_lines = news.len() - news_before;
        let local = if unchanged {
            // Nothing changed: no diff to compute, only lines to count.
            let equal = DiffOp::Equal {
                old_index: 0,
                new_index: 0,
                len: old_lines,
            };
            (old_lines > 0).then_some(equal).into_iter().collect()
        } else {
            line_ops(old, new)
        };
        for op in local {
            let (o, n) = (op.old_range(), op.new_range());
            self.append(op_of(
                matches!(op, DiffOp::Equal { .. }),
                o.start + at_old,
                o.len(),
                n.start + at_new,
                n.len(),
            ));
        }
        self.at = (at_old + old_lines, at_new + new_lines);
        let done = self.advance(&olds, &news, out, false);
        // Keep the lines the operations still open cover.
        let keep = self
            .ops
            .first()
            .map_or(self.at, |op| (op.old_range().start, op.new_range().start));
        self.old = olds
            .into_iter()
            .skip(keep.0.saturating_sub(self.from.0))
            .map(Cow::into_owned)
            .collect();
        self.new = news
            .into_iter()
            .skip(keep.1.saturating_sub(self.from.1))
            .map(Cow::into_owned)
            .collect();
        self.from = keep;
        done
    }

    /// Writes the hunk still open, once the last piece was given.
    pub fn finish(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        let old = std::mem::take(&mut self.old);
        let new = std::mem::take(&mut self.new);
        let olds: Vec<Cow<'_, str>> = old.into_iter().map(Cow::Owned).collect();
        let news: Vec<Cow<'_, str>> = new.into_iter().map(Cow::Owned).collect();
        self.advance(&olds, &news, out, true)
    }

    /// Renders what no later piece can change: each hunk that ends (unchanged lines more
    /// than twice the context follow it) is written; the operations of the hunk still open
    /// but its last (which the next piece may extend) are rendered into its body. `last`:
    /// there is no next piece.
    fn advance(
        &mut self,
        olds: &[Cow<'_, str>],
        news: &[Cow<'_, str>],
        out: &mut dyn Write,
        last: bool,
    ) -> std::io::Result<()> {
        let n = CONTEXT_LINES;
        let mut ops: std::collections::VecDeque<DiffOp> = std::mem::take(&mut self.ops).into();
        loop {
            if self.open.is_none() {
                // Unchanged lines before a hunk: only the last few are its context.
                if let Some(DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                }) = ops.front_mut()
                {
                    let skip = len.saturating_sub(n);
                    *old_index += skip;
                    *new_index += skip;
                    *len -= skip;
                }
                let Some(first) = ops.iter().find(|op| !matches!(op, DiffOp::Equal { .. })) else {
                    self.ops = if last { Vec::new() } else { ops.into() };
                    return Ok(());
                };
                let first = ops.front().unwrap_or(first);
                let (o, n) = (first.old_range().start, first.new_range().start);
                self.open = Some((o..o, n..n));
            }
            let Some(op) = ops.pop_front() else {
                if last {
                    self.close(out)?;
                }
                return Ok(());
            };
            let ends_hunk = matches!(op, DiffOp::Equal { len, .. } if len > 2 * n);
            let is_last = ops.is_empty();
            if is_last && !ends_hunk && !last {
                // The next piece may extend it.
                self.ops = vec![op];
                return Ok(());
            }
            if !ends_hunk && !is_last {
                self.render(&op, olds, news)?;
                continue;
            }
            // The hunk ends here, with at most the context after it.
            match op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => {
                    let shown = DiffOp::Equal {
                        old_index,
                        new_index,
                        len: len.min(n),
                    };
                    self.render(&shown, olds, news)?;
                    if ends_hunk {
                        // The last few are the next hunk's context.
                        ops.push_front(DiffOp::Equal {
                            old_index: old_index + len - n,
                            new_index: new_index + len - n,
                            len: n,
                        });
                    }
                }
                change => self.render(&change, olds, news)?,
            }
            self.close(out)?;
        }
    }

    /// Renders one operation's lines into the open hunk's body.
    fn render(
        &mut self,
        op: &DiffOp,
        olds: &[Cow<'_, str>],
        news: &[Cow<'_, str>],
    ) -> std::io::Result<()> {
        if let Some((old, new)) = &mut self.open {
            old.end = op.old_range().end;
            new.end = op.new_range().end;
        }
        let mut line_out = String::new();
        for (tag, line, partner) in op_lines(op, olds, news, self.from) {
            line_out.clear();
            match self.style {
                Some(style) => unified_line(tag, line, partner, style, &mut line_out),
                None => patch_line(tag, line, &mut line_out),
            }
            self.body.push(&line_out)?;
        }
        Ok(())
    }

    /// Writes the open hunk: the file's header before the first, the hunk's, its lines.
    fn close(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        let Some((old, new)) = self.open.take() else {
            return Ok(());
        };
        if !self.started {
            self.started = true;
            out.write_all(file_header(&self.name, self.style).as_bytes())?;
        }
        let header = hunk_header(old, new);
        match self.style {
            Some(style) => out.write_all(paint(&header, "36", style).as_bytes())?,
            None => out.write_all(header.as_bytes())?,
        }
        self.body.drain(out)
    }

    /// Adds one operation, joined to the last one when both are unchanged lines or both
    /// changes (the diff of the whole text has one operation there).
    fn append(&mut self, op: DiffOp) {
        let equal = matches!(op, DiffOp::Equal { .. });
        if let Some(last) = self.ops.last_mut() {
            if matches!(last, DiffOp::Equal { .. }) == equal {
                let (o, n) = (last.old_range(), last.new_range());
                *last = op_of(
                    equal,
                    o.start,
                    o.len() + op.old_range().len(),
                    n.start,
                    n.len() + op.new_range().len(),
                );
                return;
            }
        }
        self.ops.push(op);
    }
}

fn op_of(
    equal: bool,
    old_index: usize,
    old_len: usize,
    new_index: usize,
    new_len: usize,
) -> DiffOp {
    match (equal, old_len, new_len) {
        (true, len, _) => DiffOp::Equal {
            old_index,
            new_index,
            len,
        },
        (false, _, 0) => DiffOp::Delete {
            old_index,
            old_len,
            new_index,
        },
        (false, 0, _) => DiffOp::Insert {
            old_index,
            new_index,
            new_len,
        },
        (false, _, _) => DiffOp::Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        },
    }
}

/// The `---`/`+++` lines: a patch's paths quoted as git quotes them, a reader's escaped.
fn file_header(name: &str, style: Option<&DiffStyle>) -> String {
    let path = name.trim_start_matches('/');
    match style {
        None => format!(
            "--- {}\n+++ {}\n",
            quote_path(&format!("a/{path}")),
            quote_path(&format!("b/{path}"))
        ),
        Some(style) => {
            // `a/` and `b/` prefixes, as git writes them, also before absolute paths.
            // The name and the lines come from the user's files: escape what a terminal
            // acts on.
            let path = escape::value(path);
            paint(&format!("--- a/{path}\n+++ b/{path}\n"), "1", style)
        }
    }
}

fn patch_line(tag: ChangeTag, line: &str, out: &mut String) {
    out.push_str(sign(tag));
    out.push_str(line);
    if !line.ends_with(['\n', '\r']) {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

fn unified_line(
    tag: ChangeTag,
    line: &str,
    partner: Option<&str>,
    style: &DiffStyle,
    out: &mut String,
) {
    let whole = line.trim_end_matches(['\n', '\r']);
    let body = if style.crop {
        crop(whole, partner.map(|p| p.trim_end_matches(['\n', '\r'])))
    } else {
        whole.to_string()
    };
    // Tabs indent pretty-printed JSON; anything else unsafe is escaped.
    let body = escape::layout(&body);
    let color = match tag {
        ChangeTag::Delete => "31",
        ChangeTag::Insert => "32",
        ChangeTag::Equal => "",
    };
    out.push_str(&paint(&format!("{}{body}", sign(tag)), color, style));
    out.push('\n');
    if !line.ends_with('\n') {
        out.push_str("\\ No newline at end of file\n");
    }
}

/// A patch header's path as git writes it: as is, or, when it holds a character a terminal
/// acts on (a hostile file or store table name), in double quotes with C escapes, which
/// `git apply` and `patch` read back.
fn quote_path(path: &str) -> std::borrow::Cow<'_, str> {
    if !path.chars().any(escape::is_unsafe) {
        return path.into();
    }
    let mut out = String::from("\"");
    for c in path.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if escape::is_unsafe(c) => {
                let mut bytes = [0; 4];
                for b in c.encode_utf8(&mut bytes).bytes() {
                    out.push_str(&format!("\\{b:03o}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out.into()
}

fn sign(tag: ChangeTag) -> &'static str {
    match tag {
        ChangeTag::Delete => "-",
        ChangeTag::Insert => "+",
        ChangeTag::Equal => " ",
    }
}

fn hunk_range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

fn paint(text: &str, code: &str, style: &DiffStyle) -> String {
    if style.color && !code.is_empty() {
        let body = text.trim_end_matches('\n');
        let tail = text.get(body.len()..).unwrap_or_default();
        format!("\x1b[{code}m{body}\x1b[0m{tail}")
    } else {
        text.to_string()
    }
}

/// A long line cropped to the window where it differs from `partner` (or its head).
fn crop(line: &str, partner: Option<&str>) -> String {
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= LONG_LINE {
        return line.to_string();
    }
    let (from, to) = match partner {
        Some(other) => {
            let other: Vec<char> = other.chars().collect();
            let prefix = chars.iter().zip(&other).take_while(|(a, b)| a == b).count();
            let suffix = chars
                .iter()
                .rev()
                .zip(other.iter().rev())
                .take_while(|(a, b)| a == b)
                .count()
                .min(chars.len() - prefix);
            (
                prefix.saturating_sub(CONTEXT_CHARS),
                (chars.len() - suffix + CONTEXT_CHARS).min(chars.len()),
            )
        }
        None => (0, LONG_LINE),
    };
    let mut out = String::new();
    if from > 0 {
        out.push_str(&format!("…[{from} chars]"));
    }
    out.extend(chars.get(from..to).unwrap_or_default());
    if to < chars.len() {
        out.push_str(&format!("…[{} chars]", chars.len() - to));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_unified_diff() {
        let d = unified(
            "a.json",
            "[\n1,\n2\n]\n",
            "[\n1\n]\n",
            &DiffStyle {
                color: false,
                crop: true,
            },
        );
        assert_eq!(
            d,
            "--- a/a.json\n+++ b/a.json\n@@ -1,4 +1,3 @@\n [\n-1,\n-2\n+1\n ]\n"
        );
    }

    #[test]
    fn patch_quotes_names_a_terminal_would_act_on_as_git_does() {
        let d = patch("x\u{1b}]0;t\u{7}\n\"y\u{202e}.db:t[rowid=1]", "1\n", "2\n");
        let quoted = "x\\033]0;t\\007\\n\\\"y\\342\\200\\256.db:t[rowid=1]";
        assert_eq!(
            d,
            format!("--- \"a/{quoted}\"\n+++ \"b/{quoted}\"\n@@ -1 +1 @@\n-1\n+2\n")
        );
        assert!(patch("é \\.json", "1\n", "2\n").starts_with("--- a/é \\.json\n"));
    }

    #[test]
    fn names_and_lines_from_the_file_are_escaped() {
        let d = unified(
            "x\u{1b}]0;t\u{7}\ny.json",
            "{\"a\": \"\u{202e}\u{9b}1\"}\n",
            "{\"a\":\t\"\u{7f}\"}\n",
            &DiffStyle {
                color: false,
                crop: true,
            },
        );
        assert_eq!(
            d,
            "--- a/x\\u{1b}]0;t\\u{7}\\u{a}y.json\n+++ b/x\\u{1b}]0;t\\u{7}\\u{a}y.json\n\
             @@ -1 +1 @@\n-{\"a\": \"\\u{202e}\\u{9b}1\"}\n+{\"a\":\t\"\\u{7f}\"}\n"
        );
    }

    #[test]
    fn long_lines_are_cropped_to_the_change() {
        let old = format!("{{\"a\": \"{}\", \"b\": 1}}\n", "x".repeat(1000));
        let new = format!("{{\"a\": \"{}\", \"b\": 2}}\n", "x".repeat(1000));
        let d = unified(
            "a.jsonl",
            &old,
            &new,
            &DiffStyle {
                color: false,
                crop: true,
            },
        );
        assert!(d.len() < 500, "{d}");
        assert!(
            d.contains("-…[") && d.contains("\"b\": 1}") && d.contains("\"b\": 2}"),
            "{d}"
        );
    }

    /// Lines of a piece as fixed: each line kept, replaced, dropped or followed by a new
    /// one, as `ops` (one digit per line) says.
    fn fixed_piece(lines: &[String], ops: &[u8]) -> String {
        let mut out = String::new();
        for (line, op) in lines.iter().zip(ops.iter().chain(std::iter::repeat(&0))) {
            match op % 5 {
                1 => out.push_str(&line.replace('l', "m")),
                2 => {}
                3 => {
                    out.push_str(line);
                    out.push_str("new\n");
                }
                _ => out.push_str(line),
            }
        }
        out
    }

    /// The diff of whole texts as `similar` groups its operations into hunks.
    fn reference(old: &str, new: &str, style: Option<&DiffStyle>) -> String {
        let olds: Vec<Cow<'_, str>> = old.split_inclusive('\n').map(Cow::Borrowed).collect();
        let news: Vec<Cow<'_, str>> = new.split_inclusive('\n').map(Cow::Borrowed).collect();
        let groups = similar::group_diff_ops(line_ops(old, new), CONTEXT_LINES);
        let mut out = String::new();
        if groups.is_empty() {
            return out;
        }
        out.push_str(&file_header("a.jsonl", style));
        for group in groups {
            let (Some(first), Some(last)) = (group.first(), group.last()) else {
                continue;
            };
            out.push_str(&hunk_header(
                first.old_range().start..last.old_range().end,
                first.new_range().start..last.new_range().end,
            ));
            for op in &group {
                for (tag, line, partner) in op_lines(op, &olds, &news, (0, 0)) {
                    match style {
                        Some(style) => unified_line(tag, line, partner, style, &mut out),
                        None => patch_line(tag, line, &mut out),
                    }
                }
            }
        }
        out
    }

    proptest::proptest! {
        /// A diff given a piece at a time is the diff of the whole texts, however the file
        /// is cut (at line ends), wherever the changes fall, with or without a last newline
        /// and with CRLF lines.
        #[test]
        fn a_diff_in_pieces_is_the_whole_diff(
            lines in 1usize..80,
            changes in proptest::collection::vec(0u8..12, 0..80),
            cuts in proptest::collection::vec(1usize..20, 1..10),
            crlf: bool,
            last_newline: bool,
        ) {
            let end = if crlf { "\r\n" } else { "\n" };
            let mut all: Vec<String> = (0..lines).map(|i| format!("l{i}{end}")).collect();
            if !last_newline {
                if let Some(last) = all.last_mut() {
                    *last = last.trim_end().to_string();
                }
            }
            let style = DiffStyle { color: false, crop: false };
            let mut pieces = Vec::new();
            let (mut at, mut cut) = (0, 0);
            while at < all.len() {
                let len = cuts.get(cut % cuts.len()).copied().unwrap_or(1);
                let to = (at + len).min(all.len());
                let old: String = all[at..to].concat();
                let new = fixed_piece(&all[at..to], changes.get(at..).unwrap_or_default());
                pieces.push((old, new));
                (at, cut) = (to, cut + 1);
            }
            let whole_old: String = pieces.iter().map(|p| p.0.as_str()).collect();
            let whole_new: String = pieces.iter().map(|p| p.1.as_str()).collect();
            let mut unified_pieces = DiffStream::unified("a.jsonl", &style);
            let mut patch_pieces = DiffStream::patch("a.jsonl");
            let (mut u, mut p) = (Vec::new(), Vec::new());
            for (old, new) in &pieces {
                unified_pieces.push(old, new, &mut u).expect("diff");
                patch_pieces.push(old, new, &mut p).expect("diff");
            }
            unified_pieces.finish(&mut u).expect("diff");
            patch_pieces.finish(&mut p).expect("diff");
            let (u, p) = (String::from_utf8(u).unwrap_or_default(), String::from_utf8(p).unwrap_or_default());
            // The whole diff is itself a stream of one piece: both are held to similar's
            // grouping of the whole text's operations.
            proptest::prop_assert_eq!(&u, &reference(&whole_old, &whole_new, Some(&style)));
            proptest::prop_assert_eq!(&p, &reference(&whole_old, &whole_new, None));
            proptest::prop_assert_eq!(u, unified("a.jsonl", &whole_old, &whole_new, &style));
            proptest::prop_assert_eq!(p, patch("a.jsonl", &whole_old, &whole_new));
        }
    }

    proptest::proptest! {
        /// A big text is cut into pieces that pair up, and its diff given in those pieces
        /// is its diff in one piece (here with sizes that cut texts of a few hundred bytes).
        #[test]
        fn aligned_pieces_give_the_whole_diff(
            lines in 1usize..400,
            changes in proptest::collection::vec((0usize..400, 1u8..4), 0..6),
            crlf: bool,
        ) {
            let end = if crlf { "\r\n" } else { "\n" };
            let all: Vec<String> = (0..lines).map(|i| format!("line {i}{end}")).collect();
            let mut ops = vec![0u8; lines];
            for (at, op) in changes {
                if let Some(o) = ops.get_mut(at) {
                    *o = op;
                }
            }
            let old: String = all.concat();
            let new = fixed_piece(&all, &ops);
            let sizes = Sizes { one_piece: 64, anchor: 12, margin: 24 };
            let pieces = aligned_pieces(&old, &new, &sizes);
            let olds: String = pieces.iter().map(|p| p.0).collect();
            let news: String = pieces.iter().map(|p| p.1).collect();
            proptest::prop_assert_eq!(&olds, &old);
            proptest::prop_assert_eq!(&news, &new);
            let style = DiffStyle { color: false, crop: false };
            let mut stream = DiffStream::unified("a.jsonl", &style);
            let mut out = Vec::new();
            for (o, n) in &pieces {
                stream.push(o, n, &mut out).expect("diff");
            }
            stream.finish(&mut out).expect("diff");
            let whole_text = reference(&old, &new, Some(&style));
            proptest::prop_assert_eq!(String::from_utf8(out).unwrap_or_default(), whole_text);
        }
    }

    proptest::proptest! {
        /// A text fixed over rounds, kept as what the fixes replaced, is cut into pieces
        /// that pair up, and its diff given in those pieces is its diff in one piece.
        #[test]
        fn pieces_of_an_undo_give_the_whole_diff(
            lines in 1usize..300,
            rounds in proptest::collection::vec(
                proptest::collection::vec((0usize..4000, 0usize..30, "[a-c\n]{0,12}"), 0..5),
                1..4,
            ),
        ) {
            use crate::edit::json_edit::place;
            use crate::finding::Edit;
            let read: String = (0..lines).map(|i| format!("line {i}\n")).collect();
            let mut undo = super::super::undo::Undo::of(&read, super::super::undo::print(&read));
            let mut fixed = read.clone();
            for edits in rounds {
                let edits: Vec<Edit> = edits
                    .into_iter()
                    .map(|(at, width, content)| {
                        let start = at % (fixed.len() + 1);
                        Edit { start, end: (start + width).min(fixed.len()), content }
                    })
                    .collect();
                let placed = place(&fixed, &edits);
                undo = undo.after(&fixed, &placed.replaced);
                fixed = placed.apply(&fixed);
            }
            let sizes = Sizes { one_piece: 64, anchor: 12, margin: 24 };
            let pieces = aligned_undo_in(&undo, &fixed, &sizes);
            let olds: String = pieces.iter().map(|p| p.0.as_ref()).collect();
            let news: String = pieces.iter().map(|p| p.1).collect();
            proptest::prop_assert_eq!(&olds, &read);
            proptest::prop_assert_eq!(&news, &fixed);
            // Every piece but the last ends a line on both sides.
            let cut = pieces.len().saturating_sub(1);
            for (o, n) in pieces.iter().take(cut) {
                proptest::prop_assert!(o.is_empty() || o.ends_with('\n'));
                proptest::prop_assert!(n.is_empty() || n.ends_with('\n'));
            }
            let style = DiffStyle { color: false, crop: false };
            proptest::prop_assert_eq!(
                unified_aligned("a.jsonl", &pieces, &style),
                reference(&read, &fixed, Some(&style))
            );
            proptest::prop_assert_eq!(
                patch_aligned("a.jsonl", &pieces),
                patch("a.jsonl", &read, &fixed)
            );
        }
    }

    #[test]
    fn a_big_text_changed_in_two_places_is_cut_around_each() {
        let all: Vec<String> = (0..200).map(|i| format!("line {i}\n")).collect();
        let mut ops = vec![0u8; 200];
        ops[0] = 1;
        ops[150] = 2;
        let (old, new) = (all.concat(), fixed_piece(&all, &ops));
        let sizes = Sizes {
            one_piece: 64,
            anchor: 12,
            margin: 24,
        };
        let pieces = aligned_pieces(&old, &new, &sizes);
        // The first line's change, the equal run, the second change, the rest.
        let changed = pieces.iter().filter(|(o, n)| o != n).count();
        assert_eq!(changed, 2, "{pieces:?}");
        // Each changed piece is the change and a margin around it, not the text.
        assert!(pieces
            .iter()
            .filter(|(o, n)| o != n)
            .all(|(o, n)| o.len().max(n.len()) < old.len() / 4));
    }
}
