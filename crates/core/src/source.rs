//! File text and its line index: byte offsets ↔ line:column, char boundaries, and the cache
//! that memoises JSON scans while a text's findings are placed ([`with_span_cache`]).
//!
//! Spans are found on demand: a file is parsed once, the model keeps JSON pointers, and only
//! files with findings are scanned again ([`crate::pointer`]) to turn pointers into byte
//! ranges. Clean files therefore cost one parse.

use std::path::PathBuf;

// Moved to `pointer`; re-exported for the modules that still import them from here.

/// One input file (or stdin) as text, with a line index built on first use: a clean JSON
/// file never needs one.
#[derive(Debug)]
pub struct SourceFile {
    /// Where the text came from; `None` for stdin.
    pub path: Option<PathBuf>,
    /// The name findings report (the path as given, or `--stdin-filename`).
    pub name: String,
    pub text: String,
    line_starts: std::sync::OnceLock<Vec<usize>>,
    /// Indexes of the text that fix planners derive, one per type (see [`SourceFile::derived`]).
    derived: std::sync::Mutex<Vec<std::sync::Arc<dyn std::any::Any + Send + Sync>>>,
    /// Where the recorded containers of the documents read from the text are (see
    /// [`SourceFile::add_spans`]).
    spans: std::sync::Mutex<Vec<std::sync::Arc<crate::spans::Spans>>>,
}

impl SourceFile {
    pub fn new(path: Option<PathBuf>, name: String, text: String) -> Self {
        SourceFile {
            path,
            name,
            text,
            line_starts: std::sync::OnceLock::new(),
            derived: Default::default(),
            spans: Default::default(),
        }
    }

    /// Keeps where the recorded containers are of a document read from the text at `base`, so
    /// that locating a pointer in it ([`with_span_cache`]) does not scan them again. The
    /// spans must be of this text as it is: the text is not changed while its source lives.
    pub fn add_spans(&self, base: usize, mut spans: crate::spans::Spans) {
        if spans.is_empty() {
            return;
        }
        spans.shift(base);
        self.spans
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(std::sync::Arc::new(spans));
    }

    /// The index of type `T` of this text, built by `build` on first use. It lives with the
    /// file rather than with one conversation's planning, so every fix of every conversation
    /// in the file (a session's sidechains too) shares one build instead of rescanning the
    /// text per fix.
    pub fn derived<T: std::any::Any + Send + Sync>(
        &self,
        build: impl FnOnce(&Self) -> T,
    ) -> std::sync::Arc<T> {
        // A panic while building leaves nothing half-built in the list, so a poisoned lock
        // is still consistent.
        let mut list = self
            .derived
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(found) = list.iter().find_map(|d| d.clone().downcast::<T>().ok()) {
            return found;
        }
        let built = std::sync::Arc::new(build(self));
        list.push(built.clone());
        built
    }

    fn starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| line_starts(&self.text))
    }

    /// 1-based line and column of each offset, as [`SourceFile::line_col`] counts them, in
    /// one forward pass over the text: placing many findings on one long line (a compact
    /// JSON document) counts its characters once, not once per finding.
    pub fn line_cols(&self, offsets: &[usize]) -> Vec<(usize, usize)> {
        line_cols(&self.text, self.starts(), offsets)
    }

    /// 0-based line index holding `offset` (the last line for offsets past the end).
    pub fn line_index(&self, offset: usize) -> usize {
        line_index(self.starts(), offset)
    }

    /// Byte range of line `idx` (0-based), without its line terminator. A line past the
    /// last one is the empty range at the end of the text, so no caller can index out of
    /// bounds (a file still being written often lacks its final newline).
    pub fn line_range(&self, idx: usize) -> (usize, usize) {
        let len = self.text.len();
        let starts = self.starts();
        let Some(&start) = starts.get(idx) else {
            return (len, len);
        };
        let mut end = starts
            .get(idx + 1)
            .map_or(len, |next| next.saturating_sub(1));
        if end > start && self.text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        (start, end.max(start))
    }

    /// Byte range of line `idx` including its terminator (`\n` or `\r\n`), if it has one:
    /// what removing a whole JSONL record removes.
    pub fn line_range_with_terminator(&self, idx: usize) -> (usize, usize) {
        let len = self.text.len();
        let starts = self.starts();
        let start = starts.get(idx).copied().unwrap_or(len);
        let end = starts.get(idx + 1).copied().unwrap_or(len);
        (start, end.max(start))
    }

    pub fn line_count(&self) -> usize {
        self.starts().len()
    }

    /// 1-based line and column (in characters) of a byte offset; an offset inside a
    /// character counts as that character, an offset past the end as the end.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        first(line_cols(&self.text, self.starts(), &[offset]))
    }
}

/// [`SourceFile::line_col`] of a text that has no `SourceFile` (a config file): the same
/// numbers, from a line index built for this one call.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    first(line_cols(text, &line_starts(text), &[offset]))
}

fn first(positions: Vec<(usize, usize)>) -> (usize, usize) {
    positions.first().copied().unwrap_or((1, 1))
}

/// The byte offset where each line of `text` starts.
pub fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
    starts
}

/// How many lines `text` has, as [`line_starts`] counts them, without building the index.
pub fn count_lines(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1
}

/// The lines of `text`, each with its `\n` (the last without one when the text does not end
/// in a newline): what `text.split_inclusive('\n')` yields, with the newlines found by SIMD
/// `memchr`. std's char searcher sets up afresh for each short line and then goes a byte
/// at a time; splitting an unchanged stretch of a big file was most of its diff.
pub fn lines_inclusive(text: &str) -> impl Iterator<Item = &str> + '_ {
    let mut start = 0;
    let mut newlines = memchr::memchr_iter(b'\n', text.as_bytes());
    std::iter::from_fn(move || {
        let end = newlines.next().map_or(text.len(), |at| at + 1);
        // A newline byte is never inside a character: both ends are boundaries.
        let line = text.get(start..end).filter(|line| !line.is_empty());
        start = end;
        line
    })
}

/// 0-based index of the line holding `offset`, given the line `starts` (the last line for
/// offsets past the end).
pub fn line_index(starts: &[usize], offset: usize) -> usize {
    match starts.binary_search(&offset) {
        Ok(i) => i,
        Err(i) => i.saturating_sub(1),
    }
}

/// The one offset → line:column mapping: 1-based line and column (in characters) of each
/// offset of `text`, whose line `starts` are given. An offset inside a character counts as
/// that character, one past the end as the end. Offsets are visited in order with a
/// cursor, so the characters of a line are counted once however many offsets it holds.
fn line_cols(text: &str, starts: &[usize], offsets: &[usize]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&i| offsets.get(i).copied().unwrap_or(0));
    let mut out = vec![(1, 1); offsets.len()];
    // The cursor: a char boundary, its 0-based line, and its 0-based column.
    let (mut at, mut line, mut col) = (0usize, usize::MAX, 0usize);
    for i in order {
        let offset = floor_char_boundary(text, offsets.get(i).copied().unwrap_or(0));
        let this_line = line_index(starts, offset);
        if this_line != line || offset < at {
            line = this_line;
            at = starts.get(line).copied().unwrap_or(0);
            col = 0;
        }
        col += text.get(at..offset).map_or(0, |s| s.chars().count());
        at = offset;
        if let Some(slot) = out.get_mut(i) {
            *slot = (line + 1, col + 1);
        }
    }
    out
}

/// The largest char boundary of `text` at or before `offset` (clamped to its length):
/// parsers report byte positions that can fall inside a multi-byte character.
pub fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest char boundary of `text` at or after `offset` (clamped to its length).
pub fn ceil_char_boundary(text: &str, offset: usize) -> usize {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// The byte ranges of the top-level values of a text that holds several JSON objects or
/// arrays one after another, separated by whitespace only: concatenated JSON, what the
/// OpenTelemetry Python SDK's `ConsoleSpanExporter` writes (one pretty-printed object per
/// span, not JSONL and not an array). `None` unless there are at least two and each opens
/// with `{` or `[`. Values are told apart by their brackets and strings only, not parsed:
/// each is parsed on its own, so one that is not JSON is reported where it is, and one left
/// open at the end (a file still being written) runs to the end of the text.
pub fn concatenated_values(text: &str) -> Option<Vec<(usize, usize)>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut pos = skip_space(bytes, 0);
    while pos < bytes.len() {
        if !matches!(bytes.get(pos), Some(b'{' | b'[')) {
            return None;
        }
        let end = container_end(bytes, pos).unwrap_or(bytes.len());
        out.push((pos, end));
        pos = skip_space(bytes, end);
    }
    (out.len() >= 2).then_some(out)
}

fn skip_space(bytes: &[u8], mut pos: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(pos) {
        pos += 1;
    }
    pos
}

/// End (exclusive) of the string whose opening quote is at `start`, stepping over escapes.
pub(crate) fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut pos = start + 1;
    loop {
        pos += memchr::memchr2(b'"', b'\\', bytes.get(pos..)?)?;
        match bytes.get(pos)? {
            b'"' => return Some(pos + 1),
            _ => pos += 2,
        }
    }
}

/// The bytes a container scan stops at: quotes and brackets.
const STRUCTURAL: [bool; 256] = {
    let mut table = [false; 256];
    table[b'"' as usize] = true;
    table[b'{' as usize] = true;
    table[b'[' as usize] = true;
    table[b'}' as usize] = true;
    table[b']' as usize] = true;
    table
};

/// End (exclusive) of the object or array opening at `start`, by bracket depth outside
/// strings (not validated: brackets of either kind count alike); `None` when the text ends
/// first, or `start` opens none.
pub(crate) fn container_end(bytes: &[u8], start: usize) -> Option<usize> {
    if !matches!(bytes.get(start)?, b'{' | b'[') {
        return None;
    }
    let mut depth = 0usize;
    let mut pos = start;
    loop {
        pos += bytes
            .get(pos..)?
            .iter()
            .position(|&b| STRUCTURAL[usize::from(b)])?;
        match bytes.get(pos)? {
            b'"' => {
                pos = string_end(bytes, pos)?;
                continue;
            }
            b'{' | b'[' => depth += 1,
            _ => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(pos + 1);
                }
            }
        }
        pos += 1;
    }
}

/// Memoised spans for one text while it is borrowed, so locating N findings (or planning N
/// fixes) in an array of N elements is linear, not quadratic: element starts per array and
/// the ends of objects and arrays. The cache is installed by [`with_span_cache`] for one
/// text and consulted only for that same text (by address and length, which cannot change
/// while it is borrowed); outside a scope nothing is cached. The scans themselves are
/// [`crate::pointer`]'s, passed in as closures.
pub(crate) mod span_cache {
    use std::cell::RefCell;
    // foldhash: these maps key on ids and offsets a run compares itself; SipHash's
    // flood resistance buys nothing there and costs a few percent of a lint.
    use foldhash::{HashMap, HashMapExt};

    /// Each element's span in an array.
    pub(super) type Spans = std::rc::Rc<Vec<(usize, usize)>>;

    pub(super) struct Cache {
        ptr: usize,
        len: usize,
        /// Array start → the start of each element.
        elements: HashMap<usize, std::rc::Rc<Vec<usize>>>,
        /// Object or array start → its end.
        ends: HashMap<usize, Option<usize>>,
        /// Array start → each element's span.
        spans: HashMap<usize, Option<Spans>>,
        /// What the parser recorded of the text's containers: consulted before a scan.
        seeds: Vec<std::sync::Arc<crate::spans::Spans>>,
    }

    impl Cache {
        fn seeded_array(&self, start: usize) -> Option<crate::spans::ArraySpans<'_>> {
            self.seeds.iter().find_map(|s| s.array(start))
        }
    }

    thread_local! {
        pub(super) static CACHE: RefCell<Option<Cache>> = const { RefCell::new(None) };
    }

    fn matches(cache: &Cache, bytes: &[u8]) -> bool {
        cache.ptr == bytes.as_ptr() as usize && cache.len == bytes.len()
    }

    /// Installs a cache for `text` unless one is installed for it; returns whether it did.
    pub(super) fn install(text: &str, mut seeds: Vec<std::sync::Arc<crate::spans::Spans>>) -> bool {
        seeds.retain(|s| s.fits(text.as_bytes()));
        CACHE.with(|c| {
            let mut c = c.borrow_mut();
            if c.as_ref()
                .is_some_and(|cache| matches(cache, text.as_bytes()))
            {
                return false;
            }
            *c = Some(Cache {
                ptr: text.as_ptr() as usize,
                len: text.len(),
                elements: HashMap::new(),
                ends: HashMap::new(),
                spans: HashMap::new(),
                seeds,
            });
            true
        })
    }

    pub(super) fn remove() {
        CACHE.with(|c| *c.borrow_mut() = None);
    }

    /// The end of the container at `start`, memoised when a cache is installed for `bytes`.
    pub(crate) fn end(
        bytes: &[u8],
        start: usize,
        compute: impl FnOnce() -> Option<usize>,
    ) -> Option<usize> {
        let cached = CACHE.with(|c| {
            c.borrow()
                .as_ref()
                .filter(|cache| matches(cache, bytes))
                .map(|cache| {
                    let seeded = || cache.seeds.iter().find_map(|s| s.end(start)).map(Some);
                    cache.ends.get(&start).copied().or_else(seeded)
                })
        });
        match cached {
            None => compute(),
            Some(Some(end)) => end,
            Some(None) => {
                let end = compute();
                // Rescanning a small container costs less than remembering it: a dataset
                // chunk's map of every small object's end cost more than the scans it saved.
                if end.is_none_or(|end| end - start >= MEMO_FROM) {
                    CACHE.with(|c| {
                        if let Some(cache) = c.borrow_mut().as_mut() {
                            cache.ends.insert(start, end);
                        }
                    });
                }
                end
            }
        }
    }

    /// The smallest container (in bytes) whose end is memoised.
    const MEMO_FROM: usize = 256;

    /// The element spans of the array at `start`, memoised when a cache is installed.
    pub(crate) fn spans(
        bytes: &[u8],
        start: usize,
        compute: impl FnOnce() -> Option<Vec<(usize, usize)>>,
    ) -> Option<std::rc::Rc<Vec<(usize, usize)>>> {
        let cached = CACHE.with(|c| {
            c.borrow()
                .as_ref()
                .filter(|cache| matches(cache, bytes))
                .map(|cache| cache.spans.get(&start).cloned())
        });
        match cached {
            None => compute().map(std::rc::Rc::new),
            Some(Some(spans)) => spans,
            Some(None) => {
                let seeded = CACHE.with(|c| {
                    c.borrow()
                        .as_ref()
                        .and_then(|cache| cache.seeded_array(start))
                        .map(|array| array.elements().collect::<Vec<_>>())
                });
                let spans = seeded.or_else(compute).map(std::rc::Rc::new);
                CACHE.with(|c| {
                    if let Some(cache) = c.borrow_mut().as_mut() {
                        cache.spans.insert(start, spans.clone());
                    }
                });
                spans
            }
        }
    }

    /// `Some(start of element index)` (or `Some(None)` when there is none) of the array at
    /// `arr`, when a cache is installed for `bytes`; `None` when there is no cache. `starts`
    /// scans the start of every element, once per array.
    pub(crate) fn element(
        bytes: &[u8],
        arr: usize,
        index: usize,
        starts: impl FnOnce() -> Vec<usize>,
    ) -> Option<Option<usize>> {
        let installed = CACHE.with(|c| {
            c.borrow()
                .as_ref()
                .is_some_and(|cache| matches(cache, bytes))
        });
        if !installed {
            return None;
        }
        let seeded = CACHE.with(|c| {
            c.borrow()
                .as_ref()
                .and_then(|cache| cache.seeded_array(arr))
                .map(|array| array.element(index).map(|e| e.0))
        });
        if seeded.is_some() {
            return seeded;
        }
        let known = CACHE.with(|c| {
            c.borrow()
                .as_ref()
                .and_then(|cache| cache.elements.get(&arr).cloned())
        });
        let starts = match known {
            Some(starts) => starts,
            None => {
                let starts = std::rc::Rc::new(starts());
                CACHE.with(|c| {
                    if let Some(cache) = c.borrow_mut().as_mut() {
                        cache.elements.insert(arr, starts.clone());
                    }
                });
                starts
            }
        };
        Some(starts.get(index).copied())
    }
}

/// Runs `f` with spans of `text` memoised (see `span_cache`): for resolving or planning
/// many findings in one text.
pub fn with_span_cache<R>(source: &SourceFile, f: impl FnOnce() -> R) -> R {
    with_span_cache_and(source, None, f)
}

/// [`with_span_cache`], with the spans of one more document of the text (at offsets in the
/// text) that the source does not keep: a dataset record's, which live only while it is
/// checked. Inside, `with_span_cache` of the same source uses this scope's cache.
pub fn with_record_spans<R>(
    source: &SourceFile,
    spans: crate::spans::Spans,
    f: impl FnOnce() -> R,
) -> R {
    if spans.is_empty() {
        return with_span_cache(source, f);
    }
    with_span_cache_and(source, Some(std::sync::Arc::new(spans)), f)
}

fn with_span_cache_and<R>(
    source: &SourceFile,
    extra: Option<std::sync::Arc<crate::spans::Spans>>,
    f: impl FnOnce() -> R,
) -> R {
    struct Guard(bool);
    impl Drop for Guard {
        fn drop(&mut self) {
            if self.0 {
                span_cache::remove();
            }
        }
    }
    let mut spans = source
        .spans
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    spans.extend(extra);
    let _guard = Guard(span_cache::install(&source.text, spans));
    f()
}

#[cfg(test)]
mod tests {

    #[test]
    fn concatenated_values_are_split_where_they_are() {
        let text = "{\n  \"a\": \"}{\\\"\"\n}\n[1, [2]] {\"b\": {}}\n";
        let ranges = concatenated_values(text).expect("three values");
        let values: Vec<&str> = ranges.iter().filter_map(|&(a, b)| text.get(a..b)).collect();
        assert_eq!(
            values,
            ["{\n  \"a\": \"}{\\\"\"\n}", "[1, [2]]", "{\"b\": {}}"]
        );
        // A value left open runs to the end; one value, scalars, text between: not split.
        let open = concatenated_values("{}\n{\"a\": [").expect("two values");
        assert_eq!(open, [(0, 2), (3, 10)]);
        for text in ["{\"a\": 1}", "{} 1", "{} x {}", "", "1 2", "{}}"] {
            assert_eq!(concatenated_values(text), None, "{text}");
        }
    }
    use super::*;
    use crate::pointer::locate;

    #[test]
    fn line_cols_in_one_pass_agree_with_line_col() {
        let text = "{\"a\": \"größe 🙂\",\r\n \"b\": [\"データ\", 1]}\n{\"c\": 2}";
        let file = SourceFile::new(None, "x.json".into(), text.to_string());
        // Every offset, in an order that jumps back and forth, including inside characters.
        let offsets: Vec<usize> = (0..=text.len() + 2)
            .rev()
            .step_by(3)
            .chain(0..=text.len())
            .collect();
        let expected: Vec<(usize, usize)> = offsets.iter().map(|&o| file.line_col(o)).collect();
        assert_eq!(file.line_cols(&offsets), expected);
        // A text without a `SourceFile` (a config file) is counted the same way.
        let free: Vec<(usize, usize)> = offsets.iter().map(|&o| line_col(text, o)).collect();
        assert_eq!(free, expected);
    }

    #[test]
    fn offsets_inside_a_character_count_as_that_character() {
        // 你 is bytes 1..4, 😀 bytes 4..8.
        let file = SourceFile::new(None, "t".into(), "\"你😀".into());
        assert_eq!(floor_char_boundary(&file.text, 2), 1);
        assert_eq!(ceil_char_boundary(&file.text, 2), 4);
        assert_eq!(floor_char_boundary(&file.text, 6), 4);
        assert_eq!(ceil_char_boundary(&file.text, 6), 8);
        assert_eq!(ceil_char_boundary(&file.text, 99), 8);
        assert_eq!(file.line_col(2), (1, 2));
        assert_eq!(file.line_col(7), (1, 3));
        assert_eq!(file.line_col(8), (1, 4));
        assert_eq!(file.line_range(5), (8, 8));
    }

    #[test]
    fn lines_counted_are_the_lines_indexed() {
        for text in ["", "a", "a\n", "\n\n", "a\r\nb\nc", "\u{feff}x\ny\n"] {
            assert_eq!(count_lines(text), line_starts(text).len(), "{text:?}");
        }
    }

    #[test]
    fn crlf_lines_exclude_the_carriage_return() {
        let file = SourceFile::new(None, "t".into(), "{\r\n\"é\": 1\r\n}".into());
        assert_eq!(file.line_range(1), (3, 10));
        assert_eq!(file.line_col(9), (2, 6));
    }

    #[test]
    fn columns_count_characters() {
        let file = SourceFile::new(None, "t".into(), "{\"é\": 1}".into());
        let (s, _) = locate(&file.text, 0, "/é").unwrap();
        assert_eq!(file.line_col(s), (1, 7));
    }

    proptest::proptest! {
        /// The SIMD line splitter yields exactly what `split_inclusive('\n')` does.
        #[test]
        fn lines_inclusive_is_split_inclusive(text in "(\n|\r|a|é|🙂| ){0,24}") {
            let ours: Vec<&str> = lines_inclusive(&text).collect();
            let std: Vec<&str> = text.split_inclusive('\n').collect();
            proptest::prop_assert_eq!(ours, std);
        }
    }
}
