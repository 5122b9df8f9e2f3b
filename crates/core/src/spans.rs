//! Where a document's containers are in its text (the big ones, or all of a short text):
//! recorded by the parser ([`crate::tree::parse`]) as it reads them, kept with the text's
//! source (or, for a dataset record, for its check), and read when a finding is placed or a
//! fix planned by its pointer ([`crate::source::with_span_cache`]).

/// Containers smaller than this are not in [`Spans`] of a text at least
/// [`RECORD_ALL_BELOW`] long: rescanning one costs less than remembering it.
#[cfg(not(fuzzing))]
pub const SPANS_FROM: usize = 64 << 10;
/// Under the fuzzer, nearly every container: placement from spans is checked against a scan.
#[cfg(fuzzing)]
pub const SPANS_FROM: usize = 8;

/// A text shorter than this (a dataset record, a small file) records every container: the
/// spans are few, live no longer than the text's check, and spare each finding's placement
/// and each fix's planning a walk of the text along its pointer (a seventh of a lint of
/// 1.2 KB records).
#[cfg(not(fuzzing))]
pub const RECORD_ALL_BELOW: usize = 64 << 10;
/// Under the fuzzer, most inputs record every container and the longer ones only those of
/// [`SPANS_FROM`] bytes or more: both ways of recording are exercised.
#[cfg(fuzzing)]
pub const RECORD_ALL_BELOW: usize = 2 << 10;

/// The smallest container recorded in a text of `len` bytes.
pub fn recorded_from(len: usize) -> usize {
    #[cfg(fuzzing)]
    if OFF.load(std::sync::atomic::Ordering::Relaxed) {
        return usize::MAX;
    }
    if len < RECORD_ALL_BELOW {
        0
    } else {
        SPANS_FROM
    }
}

#[cfg(fuzzing)]
static OFF: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Under the fuzzer: runs `f` with no spans recorded (every lookup scans), to compare what
/// it finds and plans with what the recorded spans give. One fuzzing process runs one input
/// at a time, so a process-wide switch is enough.
#[cfg(fuzzing)]
pub fn without_spans<R>(f: impl FnOnce() -> R) -> R {
    use std::sync::atomic::Ordering;
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            OFF.store(false, Ordering::Relaxed);
        }
    }
    OFF.store(true, Ordering::Relaxed);
    let _restore = Restore;
    f()
}

/// Where a document's containers are in its text, recorded while it was read (the big ones,
/// or all of a short text: [`recorded_from`]): what placing a finding or planning a fix by its
/// pointer would otherwise find by scanning the text again (a 300,000-message array once
/// per lookup scope, a quarter of a lint of an 87 MB document). Offsets are in the text
/// read, until [`Spans::shift`]ed.
#[derive(Debug, Default)]
pub struct Spans {
    /// The arrays recorded, ordered by start.
    arrays: Vec<ArraySpan>,
    /// Every recorded array's elements' spans from its start, one stretch per array: one
    /// vector for them all, not one per array.
    elements: Vec<(u32, u32)>,
    /// The objects recorded, ordered by start: start and end.
    objects: Vec<(usize, usize)>,
}

#[derive(Debug)]
struct ArraySpan {
    start: usize,
    end: usize,
    /// Its elements' stretch of [`Spans::elements`].
    elements: std::ops::Range<usize>,
}

/// A recorded array: where it starts and ends, and each element's span from its start.
#[derive(Debug, Clone, Copy)]
pub struct ArraySpans<'s> {
    pub start: usize,
    pub end: usize,
    elements: &'s [(u32, u32)],
}

impl Spans {
    /// Room for what a text of `len` bytes records (see [`recorded_from`]): a short text
    /// records all its containers, so its vectors are sized once rather than grown (for a
    /// dataset record, growing them cost an eighth of its parse).
    pub(crate) fn for_text(len: usize) -> Spans {
        if recorded_from(len) > 0 {
            return Spans::default();
        }
        Spans {
            arrays: Vec::with_capacity(len / 128 + 1),
            elements: Vec::with_capacity(len / 32 + 1),
            objects: Vec::with_capacity(len / 32 + 1),
        }
    }

    /// Records an array and its elements' spans from its start.
    pub(crate) fn push_array(
        &mut self,
        start: usize,
        end: usize,
        elements: impl IntoIterator<Item = (u32, u32)>,
    ) {
        let slot = self.open_array(start);
        self.close_array(slot, end, elements);
    }

    pub(crate) fn push_object(&mut self, start: usize, end: usize) {
        self.objects.push((start, end));
    }

    /// Records an array where it opens, at `start`, to be closed by [`Spans::close_array`]:
    /// containers recorded as they open are in order already. Returns its slot.
    pub(crate) fn open_array(&mut self, start: usize) -> usize {
        self.arrays.push(ArraySpan {
            start,
            end: start,
            elements: 0..0,
        });
        self.arrays.len() - 1
    }

    /// Closes the array [`Spans::open_array`] recorded in `slot`.
    pub(crate) fn close_array(
        &mut self,
        slot: usize,
        end: usize,
        elements: impl IntoIterator<Item = (u32, u32)>,
    ) {
        let from = self.elements.len();
        self.elements.extend(elements);
        let to = self.elements.len();
        if let Some(array) = self.arrays.get_mut(slot) {
            array.end = end;
            array.elements = from..to;
        }
    }

    /// [`Spans::open_array`] for an object.
    pub(crate) fn open_object(&mut self, start: usize) -> usize {
        self.objects.push((start, start));
        self.objects.len() - 1
    }

    /// Closes the object [`Spans::open_object`] recorded in `slot`.
    pub(crate) fn close_object(&mut self, slot: usize, end: usize) {
        if let Some(object) = self.objects.get_mut(slot) {
            object.1 = end;
        }
    }

    /// Orders what was recorded as each container closed (inner before outer) by start.
    pub(crate) fn finish(&mut self) {
        self.arrays.sort_unstable_by_key(|a| a.start);
        self.objects.sort_unstable();
    }

    pub fn is_empty(&self) -> bool {
        self.arrays.is_empty() && self.objects.is_empty()
    }

    /// Moves every offset `by` bytes on (a document read from the middle of a file).
    pub fn shift(&mut self, by: usize) {
        for array in &mut self.arrays {
            array.start += by;
            array.end += by;
        }
        for object in &mut self.objects {
            object.0 += by;
            object.1 += by;
        }
    }

    /// Whether every container recorded opens and closes where `text` has brackets: spans
    /// of another text, or of this one changed since, are not used.
    pub fn fits(&self, text: &[u8]) -> bool {
        let at = |i: usize| text.get(i).copied();
        let brackets = |start: usize, end: usize, open: u8, close: u8| {
            at(start) == Some(open) && end.checked_sub(1).and_then(at) == Some(close)
        };
        self.arrays
            .iter()
            .all(|a| brackets(a.start, a.end, b'[', b']'))
            && self
                .objects
                .iter()
                .all(|&(s, e)| brackets(s, e, b'{', b'}'))
    }

    /// The recorded array that starts at `start`.
    pub fn array(&self, start: usize) -> Option<ArraySpans<'_>> {
        let at = self.arrays.binary_search_by_key(&start, |a| a.start).ok()?;
        self.arrays.get(at).map(|a| self.view(a))
    }

    fn view(&self, array: &ArraySpan) -> ArraySpans<'_> {
        ArraySpans {
            start: array.start,
            end: array.end,
            elements: self
                .elements
                .get(array.elements.clone())
                .unwrap_or_default(),
        }
    }

    /// The end of the array or object that starts at `start`, if it is recorded or an
    /// element of a recorded array.
    pub fn end(&self, start: usize) -> Option<usize> {
        if let Some(array) = self.array(start) {
            return Some(array.end);
        }
        if let Ok(at) = self.objects.binary_search_by_key(&start, |o| o.0) {
            return self.objects.get(at).map(|o| o.1);
        }
        // The arrays that open before `start`, innermost first; only a few are looked at,
        // as this is a cache: a miss costs a scan.
        let before = self.arrays.partition_point(|a| a.start < start);
        self.arrays
            .get(..before)
            .unwrap_or_default()
            .iter()
            .rev()
            .take(8)
            .filter(|a| start < a.end)
            .find_map(|a| self.view(a).element_end(start))
    }
}

impl ArraySpans<'_> {
    pub fn len(&self) -> usize {
        self.elements.len()
    }

    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }

    /// Element `index`'s start and end.
    pub fn element(&self, index: usize) -> Option<(usize, usize)> {
        let &(from, to) = self.elements.get(index)?;
        Some((self.start + from as usize, self.start + to as usize))
    }

    /// Every element's start and end.
    pub fn elements(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let start = self.start;
        self.elements
            .iter()
            .map(move |&(from, to)| (start + from as usize, start + to as usize))
    }

    /// The end of the element that starts at `start`.
    fn element_end(&self, start: usize) -> Option<usize> {
        let from = u32::try_from(start.checked_sub(self.start)?).ok()?;
        let at = self.elements.binary_search_by_key(&from, |e| e.0).ok()?;
        self.element(at).map(|e| e.1)
    }
}

#[cfg(test)]
mod tests {
    use crate::pointer::{element_spans, locate};
    use crate::source::{with_span_cache, SourceFile};

    /// A document `prefix` bytes into its text, with a message array well over
    /// [`super::SPANS_FROM`] whose elements hold brackets in strings, escapes and arrays.
    fn document(prefix: &str, messages: usize) -> (String, usize) {
        let mut text = format!("{prefix}{{\"model\": \"m\", \"messages\": [\n");
        for i in 0..messages {
            if i > 0 {
                text.push_str(",\n");
            }
            text.push_str(&format!(
                "{{\"role\": \"user\", \"content\": \"[{i}] {{\\\"x\\\": ]\", \"calls\": [{i}, [\"a\"], {{}}]}}"
            ));
        }
        text.push_str("], \"tail\": {\"k\": [1, 2]}}\n");
        (text, prefix.len())
    }

    fn located(
        source: &SourceFile,
        base: usize,
        pointers: &[String],
    ) -> Vec<Option<(usize, usize)>> {
        with_span_cache(source, || {
            pointers
                .iter()
                .map(|p| locate(&source.text, base, p))
                .collect()
        })
    }

    #[test]
    fn seeded_spans_locate_what_a_scan_locates() {
        for prefix in ["", "\u{feff}", "   "] {
            let (text, base) = document(prefix, 2_000);
            let doc = text.get(base..).unwrap_or_default();
            let parsed = crate::tree::parse(doc).expect("JSON");
            assert!(!parsed.spans.is_empty(), "the message array is recorded");
            let plain = SourceFile::new(None, "plain".into(), text.clone());
            let seeded = SourceFile::new(None, "seeded".into(), text.clone());
            seeded.add_spans(base, parsed.spans);
            let mut pointers: Vec<String> = ["", "/model", "/messages", "/tail", "/tail/k/1", "/x"]
                .map(String::from)
                .to_vec();
            for i in [0, 1, 999, 1_999, 2_000] {
                for tail in [
                    "",
                    "/content",
                    "/calls",
                    "/calls/1/0",
                    "/calls/2",
                    "/calls/3",
                ] {
                    pointers.push(format!("/messages/{i}{tail}"));
                }
            }
            assert_eq!(
                located(&plain, base, &pointers),
                located(&seeded, base, &pointers)
            );
            let (start, end) = locate(&text, base, "/messages").expect("the array");
            let spans = |source: &SourceFile| {
                with_span_cache(source, || element_spans(&source.text, start, end))
                    .map(|spans| spans.to_vec())
            };
            let scanned = spans(&plain);
            assert_eq!(scanned.as_ref().map(Vec::len), Some(2_000));
            assert_eq!(scanned, spans(&seeded));
        }
    }

    /// A short text records every container (each as it opens, so in order): pointers to
    /// every kind of node locate where a scan locates them, and every array's element spans
    /// are what a scan gives.
    #[test]
    fn short_texts_record_every_container() {
        for prefix in ["", "\u{feff}", "   "] {
            let (text, base) = document(prefix, 12);
            assert!(text.len() < super::RECORD_ALL_BELOW);
            let doc = text.get(base..).unwrap_or_default();
            let parsed = crate::tree::parse(doc).expect("JSON");
            // Well under `SPANS_FROM`: recorded only because the text is short.
            assert!(!parsed.spans.is_empty());
            let plain = SourceFile::new(None, "plain".into(), text.clone());
            let seeded = SourceFile::new(None, "seeded".into(), text.clone());
            seeded.add_spans(base, parsed.spans);
            let mut pointers: Vec<String> = ["", "/messages", "/tail", "/tail/k", "/tail/k/1"]
                .map(String::from)
                .to_vec();
            for i in 0..13 {
                for tail in [
                    "",
                    "/role",
                    "/calls",
                    "/calls/0",
                    "/calls/1",
                    "/calls/1/0",
                    "/calls/2",
                ] {
                    pointers.push(format!("/messages/{i}{tail}"));
                }
            }
            let scanned = located(&plain, base, &pointers);
            assert_eq!(scanned.iter().filter(|l| l.is_some()).count(), 5 + 12 * 7);
            assert_eq!(scanned, located(&seeded, base, &pointers));
            let arrays = [
                "/messages",
                "/tail/k",
                "/messages/0/calls",
                "/messages/11/calls/1",
            ];
            for pointer in arrays {
                let (start, end) = locate(&text, base, pointer).expect("an array");
                let spans = |source: &SourceFile| {
                    with_span_cache(source, || element_spans(&source.text, start, end))
                        .map(|spans| spans.to_vec())
                };
                assert_eq!(spans(&plain), spans(&seeded), "{pointer}");
            }
        }
    }

    /// Spans of a text that has changed since they were recorded are not used.
    #[test]
    fn spans_of_another_text_are_not_used() {
        let (text, _) = document("", 2_000);
        let parsed = crate::tree::parse(&text).expect("JSON");
        let shifted = format!(" {text}");
        let stale = SourceFile::new(None, "stale".into(), shifted.clone());
        stale.add_spans(0, parsed.spans);
        let plain = SourceFile::new(None, "plain".into(), shifted);
        let pointers = ["/messages/1500/calls/1", "/tail/k", "/messages"].map(String::from);
        assert_eq!(located(&plain, 0, &pointers), located(&stale, 0, &pointers));
        assert!(located(&plain, 0, &pointers).iter().all(Option::is_some));
    }
}
