//! The parser behind [`parse`](fn@super::parse): JSON text into a borrowed [`Value`], accepting
//! exactly what serde_json accepts, and the decoding of the escapes in the strings it read
//! (done later, when a [`Str`] is first read).

use super::{Map, Number, Str, Value};
use crate::spans::Spans;

/// How a read stopped short: serde_json is asked for the message.
#[derive(Debug)]
pub struct Rejected;

/// A document read from text.
pub struct Tree<'a> {
    pub value: Value<'a>,
    /// A lone UTF-16 surrogate escape was read as U+FFFD.
    pub lossy: bool,
    /// Where its containers are (the big ones, or all of a short text: `spans::recorded_from`).
    pub spans: Spans,
}

/// The nesting serde_json refuses: its recursion limit (128) counts down on entering each
/// array or object and fails on reaching zero.
const DEPTH_LIMIT: usize = 128;

/// Reads `text` as one JSON document (surrounding whitespace allowed).
pub fn parse(text: &str) -> Result<Tree<'_>, Rejected> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        depth: 0,
        lossy: false,
        items: Vec::new(),
        members: Vec::new(),
        element_spans: Vec::new(),
        spans: Spans::for_text(text.len()),
        spans_from: crate::spans::recorded_from(text.len()),
    };
    p.skip_ws();
    p.value(Into::Items)?;
    p.skip_ws();
    let value = p.items.pop().ok_or(Rejected)?;
    if p.pos != p.bytes.len() {
        return Err(Rejected);
    }
    if p.spans_from > 0 {
        p.spans.finish();
    }
    Ok(Tree {
        value,
        lossy: p.lossy,
        spans: p.spans,
    })
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    lossy: bool,
    /// The values read and not yet in their container, innermost last: the elements of the
    /// arrays being read in `items`, the members of the objects in `members` (each pushed
    /// with its key, its value then written in place). Each container is copied out into a
    /// vector of its exact size when it closes, so a document costs one allocation per
    /// container, never a regrowth. Every value is written where it belongs as it is read
    /// rather than returned: a 32-byte value handed back through the stack is read back
    /// before its bytes are stored whole, which stalls (a third of the parse, before), and
    /// pairing keys with values when an object closed cost a sixth of the parse.
    items: Vec<Value<'a>>,
    members: Vec<(Str<'a>, Value<'a>)>,
    /// The spans of the elements of the arrays being read, innermost last, each from its
    /// array's start (32 bits: offsets past that only in arrays too big to keep them), kept
    /// for the arrays that turn out big.
    element_spans: Vec<(u32, u32)>,
    spans: Spans,
    /// The smallest container [`Parser::spans`] records.
    spans_from: usize,
}

/// The length of the plain run `bytes` opens with: the offset of the first quote, backslash
/// or control character (below U+0020, which JSON strings may not hold), or `bytes.len()`.
///
/// Most strings are keys and short values: their first bytes are tested eight at a time,
/// the three tests in one pass. A run longer than that is left to `memchr2` for the quote
/// and backslash (SIMD) and to a second pass for control characters, which is faster over
/// long text than the three tests together.
pub(crate) fn plain_run(bytes: &[u8]) -> usize {
    const SHORT: usize = 32;
    let (head, rest) = bytes.split_at(bytes.len().min(SHORT));
    let run = short_run(head);
    if run < head.len() || rest.is_empty() {
        return run;
    }
    let run = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
    let plain = rest.get(..run).unwrap_or_default();
    let run = if has_control(plain) {
        plain.iter().position(|&b| b < 0x20).unwrap_or(run)
    } else {
        run
    };
    SHORT + run
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// [`plain_run`], eight bytes at a time. Each test flags its first matching byte exactly (a
/// borrow can flag bytes above a match, never below one), so the lowest flag of the three
/// is the answer.
fn short_run(bytes: &[u8]) -> usize {
    let zero_in = |x: u64| x.wrapping_sub(ONES) & !x;
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let x = u64::from_le_bytes(w);
        // A byte below 0x20 borrows into its high bit (bytes at or above 0x80 excluded).
        let flags = (zero_in(x ^ (ONES * u64::from(b'"')))
            | zero_in(x ^ (ONES * u64::from(b'\\')))
            | (x.wrapping_sub(ONES * 0x20) & !x))
            & HIGH;
        if flags != 0 {
            return at + (flags.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    let tail = words.remainder();
    at + tail
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .unwrap_or(tail.len())
}

/// Whether `bytes` holds a control character (below U+0020): eight bytes at a time.
fn has_control(bytes: &[u8]) -> bool {
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let x = u64::from_le_bytes(w);
        if x.wrapping_sub(ONES * 0x20) & !x & HIGH != 0 {
            return true;
        }
    }
    words.remainder().iter().any(|&b| b < 0x20)
}

/// Where [`Parser::value`] writes the value it reads.
#[derive(Clone, Copy)]
enum Into {
    /// Onto [`Parser::items`]: an array's element, or the document.
    Items,
    /// Into the last of [`Parser::members`], pushed with its key before the value was read.
    Member,
}

impl<'a> Parser<'a> {
    /// Writes `value` where `into` says.
    fn put(&mut self, value: Value<'a>, into: Into) {
        match into {
            Into::Items => self.items.push(value),
            Into::Member => {
                if let Some((_, slot)) = self.members.last_mut() {
                    *slot = value;
                }
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.pos += 1;
        }
    }

    /// Reads one value, written where `into` says.
    fn value(&mut self, into: Into) -> Result<(), Rejected> {
        let value = match self.peek().ok_or(Rejected)? {
            b'{' => return self.object(into),
            b'[' => return self.array(into),
            b'"' => Value::String(Str::borrowed(self.string()?)),
            b't' => self.literal(b"true", Value::Bool(true))?,
            b'f' => self.literal(b"false", Value::Bool(false))?,
            b'n' => self.literal(b"null", Value::Null)?,
            b'-' | b'0'..=b'9' => Value::Number(Number(self.number()?.into())),
            _ => return Err(Rejected),
        };
        self.put(value, into);
        Ok(())
    }

    fn literal(&mut self, word: &[u8], value: Value<'a>) -> Result<Value<'a>, Rejected> {
        if self.bytes.get(self.pos..self.pos + word.len()) == Some(word) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(Rejected)
        }
    }

    fn enter(&mut self) -> Result<(), Rejected> {
        self.depth += 1;
        if self.depth >= DEPTH_LIMIT {
            return Err(Rejected);
        }
        Ok(())
    }

    /// Steps over a container's closing bracket, out of the depth [`Parser::enter`] took.
    fn leave(&mut self) {
        self.pos += 1;
        self.depth -= 1;
    }

    fn array(&mut self, into: Into) -> Result<(), Rejected> {
        let open = self.pos;
        self.enter()?;
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.leave();
            self.put(Value::Array(Vec::new()), into);
            return Ok(());
        }
        let mark = self.items.len();
        let spans_mark = self.element_spans.len();
        // A text that records every container records each where it opens, in the order
        // the spans are searched in: nothing to sort afterwards.
        let slot = (self.spans_from == 0).then(|| self.spans.open_array(open));
        loop {
            self.skip_ws();
            let from = self.pos;
            self.value(Into::Items)?;
            let from_open = |at: usize| u32::try_from(at - open).unwrap_or(u32::MAX);
            self.element_spans
                .push((from_open(from), from_open(self.pos)));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.leave();
                    match slot {
                        Some(slot) => {
                            let elements = self.element_spans.drain(spans_mark..);
                            self.spans.close_array(slot, self.pos, elements);
                        }
                        None => self.keep_array_spans(open, spans_mark),
                    }
                    let array = Value::Array(take_from(&mut self.items, mark));
                    self.put(array, into);
                    return Ok(());
                }
                _ => return Err(Rejected),
            }
        }
    }

    /// Keeps the element spans of the array that opened at `open` and just closed, from
    /// `mark` on, if it is recorded ([`crate::spans::recorded_from`]).
    fn keep_array_spans(&mut self, open: usize, mark: usize) {
        let len = self.pos - open;
        // Offsets from the array's start fit in 32 bits: half the memory.
        if len >= self.spans_from && u32::try_from(len).is_ok() {
            self.spans
                .push_array(open, self.pos, self.element_spans.drain(mark..));
        } else {
            self.element_spans.truncate(mark);
        }
    }

    fn object(&mut self, into: Into) -> Result<(), Rejected> {
        let open = self.pos;
        self.enter()?;
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.leave();
            let empty = Value::Object(Map {
                members: Vec::new(),
            });
            self.put(empty, into);
            return Ok(());
        }
        let mark = self.members.len();
        let slot = (self.spans_from == 0).then(|| self.spans.open_object(open));
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(Rejected);
            }
            let key = Str::borrowed(self.string()?);
            self.members.push((key, Value::Null));
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(Rejected);
            }
            self.pos += 1;
            self.skip_ws();
            self.value(Into::Member)?;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.leave();
                    match slot {
                        Some(slot) => self.spans.close_object(slot, self.pos),
                        None if self.pos - open >= self.spans_from => {
                            self.spans.push_object(open, self.pos);
                        }
                        None => {}
                    }
                    let members = take_from(&mut self.members, mark);
                    self.put(Value::Object(Map { members }), into);
                    return Ok(());
                }
                _ => return Err(Rejected),
            }
        }
    }

    /// A string's text as [`Str`] keeps it; `pos` is at its opening quote.
    fn string(&mut self) -> Result<&'a str, Rejected> {
        self.pos += 1;
        let start = self.pos;
        let mut escaped = false;
        loop {
            // The plain run, most of any string: up to the next quote, backslash or control
            // character.
            let rest = self.bytes.get(self.pos..).unwrap_or_default();
            self.pos += plain_run(rest);
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    // Escaped text keeps its closing quote, which marks it (see `Str`).
                    let end = if escaped { self.pos } else { self.pos - 1 };
                    return self.text.get(start..end).ok_or(Rejected);
                }
                Some(b'\\') => {
                    escaped = true;
                    self.escape()?;
                }
                // A control character, or the end of the text.
                _ => return Err(Rejected),
            }
        }
    }

    /// One escape; `pos` is at its backslash.
    fn escape(&mut self) -> Result<(), Rejected> {
        match self.bytes.get(self.pos + 1).copied() {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                self.pos += 2;
                Ok(())
            }
            Some(b'u') => {
                let unit = hex4(self.bytes, self.pos + 2).ok_or(Rejected)?;
                self.pos += 6;
                if (0xD800..0xDC00).contains(&unit) {
                    let low = (self.bytes.get(self.pos..self.pos + 2) == Some(b"\\u"))
                        .then(|| hex4(self.bytes, self.pos + 2))
                        .flatten();
                    match low {
                        Some(low) if (0xDC00..0xE000).contains(&low) => self.pos += 6,
                        _ => self.lossy = true,
                    }
                } else if (0xDC00..0xE000).contains(&unit) {
                    self.lossy = true;
                }
                Ok(())
            }
            _ => Err(Rejected),
        }
    }

    /// A number's text.
    fn number(&mut self) -> Result<&'a str, Rejected> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(Rejected),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(Rejected);
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(Rejected);
            }
            self.digits();
        }
        self.text.get(start..self.pos).ok_or(Rejected)
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }
}

/// The elements of `scratch` from `mark` on, moved into a vector of their exact size with
/// one copy of the block (moving them one by one cost as much again as the parse of an
/// object's members). `Vec::split_off` at 0 would hand over the scratch buffer, with its
/// spare capacity, so that case is appended to a vector of the right size.
fn take_from<T>(scratch: &mut Vec<T>, mark: usize) -> Vec<T> {
    if mark == 0 {
        let mut taken = Vec::with_capacity(scratch.len());
        taken.append(scratch);
        return taken;
    }
    scratch.split_off(mark)
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    digits.iter().try_fold(0u32, |acc, &d| {
        let v = (d as char).to_digit(16)?;
        Some(acc * 16 + v)
    })
}

/// Decodes the escapes of a string the parser accepted; lone surrogates become U+FFFD.
pub(super) fn unescape(raw: &str) -> String {
    unescape_until(raw, usize::MAX)
}

/// [`unescape`], stopping once at least `limit` bytes are decoded.
pub(super) fn unescape_until(raw: &str, limit: usize) -> String {
    let bytes = raw.as_bytes();
    let mut out = String::with_capacity(raw.len().min(limit.saturating_add(16)));
    let mut i = 0;
    while i < bytes.len() && out.len() < limit {
        let rest = bytes.get(i..).unwrap_or_default();
        let plain = memchr::memchr(b'\\', rest).unwrap_or(rest.len());
        let want = limit - out.len();
        if plain >= want {
            // The run alone reaches the limit: take it to the next character boundary.
            let end = crate::source::ceil_char_boundary(raw, i + want);
            out.push_str(raw.get(i..end).unwrap_or_default());
            break;
        }
        out.push_str(raw.get(i..i + plain).unwrap_or_default());
        i += plain;
        if i >= bytes.len() {
            break;
        }
        let (c, len) = match bytes.get(i + 1).copied() {
            Some(b'"') => ('"', 2),
            Some(b'\\') => ('\\', 2),
            Some(b'/') => ('/', 2),
            Some(b'b') => ('\u{8}', 2),
            Some(b'f') => ('\u{c}', 2),
            Some(b'n') => ('\n', 2),
            Some(b'r') => ('\r', 2),
            Some(b't') => ('\t', 2),
            Some(b'u') => {
                let unit = hex4(bytes, i + 2).unwrap_or(0xFFFD);
                let low = (bytes.get(i + 6..i + 8) == Some(b"\\u"))
                    .then(|| hex4(bytes, i + 8))
                    .flatten()
                    .filter(|l| (0xDC00..0xE000).contains(l));
                match low {
                    Some(low) if (0xD800..0xDC00).contains(&unit) => {
                        let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        (char::from_u32(c).unwrap_or('\u{fffd}'), 12)
                    }
                    _ => (char::from_u32(unit).unwrap_or('\u{fffd}'), 6),
                }
            }
            _ => ('\u{fffd}', 1),
        };
        out.push(c);
        i += len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_surrogates() {
        let t = parse(r#"["a\ud83d b", "\udc00", "\ud83d\ude00", "\\ud83d", "\u00e9\/"]"#)
            .expect("valid");
        assert!(t.lossy);
        let v = t.value;
        assert_eq!(v[0], "a\u{fffd} b");
        assert_eq!(v[1], "\u{fffd}");
        assert_eq!(v[2], "\u{1f600}");
        assert_eq!(v[3], "\\ud83d");
        assert_eq!(v[4], "\u{e9}/");
        assert!(!parse(r#"["\\ud83d"]"#).expect("valid").lossy);
    }

    fn naive_run(bytes: &[u8]) -> usize {
        bytes
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            .unwrap_or(bytes.len())
    }

    #[test]
    fn plain_runs_stop_at_the_first_quote_backslash_or_control() {
        for text in [
            "",
            "plain",
            "eight by",
            "ends \"here\" and",
            "a\\b",
            "tab\there",
            "größe データ 🙂 \u{1f}",
            "0123456\"89",
            "01234567\u{0}",
            "a run of plain text longer than thirty-two bytes, then \"",
            "a run of plain text longer than thirty-two bytes, then \u{7}",
            "a run of plain text longer than thirty-two bytes with no end",
        ] {
            assert_eq!(
                plain_run(text.as_bytes()),
                naive_run(text.as_bytes()),
                "{text:?}"
            );
        }
    }

    proptest::proptest! {
        /// A borrow flags bytes only above a match: the first flag is always the first match.
        #[test]
        fn plain_run_is_the_first_match(bytes in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::num::u8::ANY,
                proptest::prelude::Just(b'"'),
                proptest::prelude::Just(b'\\'),
                0u8..0x21,
            ],
            0..100,
        )) {
            proptest::prop_assert_eq!(plain_run(&bytes), naive_run(&bytes));
        }
    }

    #[test]
    fn rejects_what_serde_json_rejects() {
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"a\":1,}",
            "01",
            "1.",
            "-",
            "1e",
            "tru",
            "\"a",
            "\"\t\"",
            "\"\\x\"",
            "\"\\u12\"",
            "[1 2]",
            "{\"a\" 1}",
            "{1:2}",
            "nul",
            "1 2",
            "+1",
            ".5",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
            assert!(
                serde_json::from_str::<serde_json::Value>(bad).is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn depth_limit_matches_serde_json() {
        for depth in [126, 127, 128, 129] {
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            assert_eq!(
                parse(&text).is_ok(),
                serde_json::from_str::<serde_json::Value>(&text).is_ok(),
                "depth {depth}"
            );
        }
    }
}
