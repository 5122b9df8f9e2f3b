//! Where a document's big containers are in its text: recorded by the parser
//! ([`crate::tree::parse`]) as it reads them, kept with the text's source, and read when a
//! finding is placed or a fix planned by its pointer ([`crate::source::with_span_cache`]).

/// Containers smaller than this are not in [`Spans`]: rescanning one costs less than
/// remembering it.
#[cfg(not(fuzzing))]
pub const SPANS_FROM: usize = 64 << 10;
/// Under the fuzzer, nearly every container: placement from spans is checked against a scan.
#[cfg(fuzzing)]
pub const SPANS_FROM: usize = 8;

/// Where a document's big containers are in its text, recorded while it was read: what
/// placing a finding or planning a fix by its pointer would otherwise find by scanning the
/// text again (a 300,000-message array once per lookup scope, a quarter of a lint of an
/// 87 MB document). Offsets are in the text read, until [`Spans::shift`]ed.
#[derive(Debug, Default)]
pub struct Spans {
    /// Arrays of at least [`SPANS_FROM`] bytes, ordered by start.
    arrays: Vec<ArraySpans>,
    /// Objects of at least [`SPANS_FROM`] bytes, ordered by start: start and end.
    objects: Vec<(usize, usize)>,
}

/// A big array: where it starts and ends, and each element's span from its start.
#[derive(Debug)]
pub struct ArraySpans {
    pub start: usize,
    pub end: usize,
    elements: Vec<(u32, u32)>,
}

impl Spans {
    /// Records a big array and its elements' spans from its start.
    pub(crate) fn push_array(&mut self, start: usize, end: usize, elements: Vec<(u32, u32)>) {
        self.arrays.push(ArraySpans {
            start,
            end,
            elements,
        });
    }

    pub(crate) fn push_object(&mut self, start: usize, end: usize) {
        self.objects.push((start, end));
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

    /// The big array that starts at `start`.
    pub fn array(&self, start: usize) -> Option<&ArraySpans> {
        let at = self.arrays.binary_search_by_key(&start, |a| a.start).ok()?;
        self.arrays.get(at)
    }

    /// The end of the array or object that starts at `start`, if it is big or an element
    /// of a big array.
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
            .find_map(|a| a.element_end(start))
    }
}

impl ArraySpans {
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
